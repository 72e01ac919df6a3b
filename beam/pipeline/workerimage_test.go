package pipeline

import (
	"debug/elf"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/moby/buildkit/frontend/dockerfile/shell"
)

// The worker image (beam/Dockerfile) cannot be built here (no Docker daemon; buildah runs
// but no registry is reachable for the base images), so this test checks
// its recipe, beam/Dockerfile, against the repository instead.

func readFile(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sharedtest.Root(), rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// dockerfile is a Dockerfile as BuildKit's parser and instruction reader
// see it: the ARGs before the first FROM and the build stages.
type dockerfile struct {
	name   string
	args   map[string]string // global ARGs, name to default
	stages []instructions.Stage
}

// parseDockerfile reads the Dockerfile src with BuildKit's parser (the
// one docker build uses); name labels errors.
func parseDockerfile(name, src string) (*dockerfile, error) {
	res, err := parser.Parse(strings.NewReader(src))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	stages, metaArgs, err := instructions.Parse(res.AST, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(stages) == 0 {
		return nil, fmt.Errorf("%s: no FROM: a Dockerfile needs a base image", name)
	}
	f := &dockerfile{name: name, args: map[string]string{}, stages: stages}
	for _, a := range metaArgs {
		for _, kv := range a.Args {
			f.args[kv.Key] = kv.ValueString()
		}
	}
	return f, nil
}

func parseWorker(t *testing.T) *dockerfile {
	t.Helper()
	f, err := parseDockerfile("beam/Dockerfile", readFile(t, "beam/Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// stage returns the stage named name, or nil.
func (f *dockerfile) stage(name string) *instructions.Stage {
	for i := range f.stages {
		if f.stages[i].Name == name {
			return &f.stages[i]
		}
	}
	return nil
}

// baseImage returns stage i's FROM image with the global ARGs
// substituted.
func (f *dockerfile) baseImage(i int) (string, error) {
	img, err := expand(f.stages[i].BaseName, f.args)
	if err != nil {
		return "", fmt.Errorf("%s: FROM %s: %w", f.name, f.stages[i].BaseName, err)
	}
	return img, nil
}

// expand substitutes $NAME and ${NAME} in word from vars as BuildKit
// does; a name vars lacks is an error.
func expand(word string, vars map[string]string) (string, error) {
	var env []string
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	s, unmatched, err := shell.NewLex('\\').ProcessWord(word, shell.EnvsFromSlice(env))
	if err == nil && len(unmatched) > 0 {
		err = fmt.Errorf("$%s is not defined", strings.Join(slices.Sorted(maps.Keys(unmatched)), ", $"))
	}
	return s, err
}

// line is the line a command starts on.
func line(c instructions.Command) int {
	if l, ok := c.(interface{ Location() []parser.Range }); ok && len(l.Location()) > 0 {
		return l.Location()[0].Start.Line
	}
	return 0
}

// stageEnv returns the ENV values a stage sets, as the shell reads them
// (quotes removed, earlier values substituted).
func stageEnv(st *instructions.Stage) (map[string]string, error) {
	env := map[string]string{}
	lex := shell.NewLex('\\')
	for _, c := range st.Commands {
		e, ok := c.(*instructions.EnvCommand)
		if !ok {
			continue
		}
		for _, kv := range e.Env {
			var pairs []string
			for k, v := range env {
				pairs = append(pairs, k+"="+v)
			}
			v, _, err := lex.ProcessWord(kv.Value, shell.EnvsFromSlice(pairs))
			if err != nil {
				return nil, fmt.Errorf("line %d: ENV %s: %w", line(c), kv.Key, err)
			}
			env[kv.Key] = v
		}
	}
	return env, nil
}

func env(t *testing.T, st *instructions.Stage) map[string]string {
	t.Helper()
	e, err := stageEnv(st)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// copies returns a stage's COPY instructions.
func copies(st *instructions.Stage) []*instructions.CopyCommand {
	var out []*instructions.CopyCommand
	for _, c := range st.Commands {
		if cp, ok := c.(*instructions.CopyCommand); ok {
			out = append(out, cp)
		}
	}
	return out
}

// runs returns a stage's RUN command lines with the stage's ENV values
// substituted.
func runs(t *testing.T, st *instructions.Stage) []string {
	t.Helper()
	env := env(t, st)
	var out []string
	for _, c := range st.Commands {
		r, ok := c.(*instructions.RunCommand)
		if !ok {
			continue
		}
		cmd := strings.Join(r.CmdLine, " ")
		// The shell expands "$X" at run time; ENV values are what it finds.
		for k, v := range env {
			cmd = strings.ReplaceAll(cmd, "$"+k, v)
		}
		out = append(out, cmd)
	}
	return out
}

// TestWorkerImageVersions: the images are those of the Beam SDK the
// pipeline is built with and of its Go version.
func TestWorkerImageVersions(t *testing.T) {
	f := parseWorker(t)
	gomod := readFile(t, "beam/go.mod")
	m := regexp.MustCompile(`(?m)^\s*github.com/apache/beam/sdks/v2 v(\S+)`).FindStringSubmatch(gomod)
	if m == nil {
		t.Fatal("beam/go.mod requires no github.com/apache/beam/sdks/v2")
	}
	if f.args["BEAM_VERSION"] != m[1] {
		t.Errorf("ARG BEAM_VERSION=%s, beam/go.mod requires Beam %s", f.args["BEAM_VERSION"], m[1])
	}
	goVer := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindStringSubmatch(gomod)
	if goVer == nil || !strings.HasPrefix(f.args["GO_IMAGE"], "golang:"+goVer[1]+"-") {
		t.Errorf("ARG GO_IMAGE=%s; beam/go.mod says %v", f.args["GO_IMAGE"], goVer)
	}
	if len(f.stages) != 2 || f.stages[0].Name != "build" {
		t.Fatalf("want two stages, build and the worker image; got %+v", f.stages)
	}
	img, err := f.baseImage(1)
	if err != nil || img != "apache/beam_go_sdk:"+m[1] {
		t.Errorf("the worker image is based on %q (%v), want apache/beam_go_sdk:%s", img, err, m[1])
	}
	// glibc: the build stage and the SDK image are both Debian 12.
	if !strings.HasSuffix(f.args["GO_IMAGE"], "-bookworm") {
		t.Errorf("GO_IMAGE %s: the binary must be built on the SDK image's Debian (bookworm)", f.args["GO_IMAGE"])
	}
}

// TestWorkerImageContext: every file the build stage copies from the
// build context (the repository root) exists and is not left out of the
// context by beam/Dockerfile.dockerignore.
func TestWorkerImageContext(t *testing.T) {
	f := parseWorker(t)
	ignore := strings.Fields(readFile(t, "beam/Dockerfile.dockerignore"))
	ignore = slices.DeleteFunc(ignore, func(s string) bool { return strings.HasPrefix(s, "#") })
	ignored := func(p string) string {
		for _, pat := range ignore {
			pat = strings.TrimPrefix(pat, "**/")
			for q := p; q != "." && q != "/"; q = path.Dir(q) {
				if ok, _ := path.Match(pat, q); ok {
					return pat
				}
				if ok, _ := path.Match(pat, path.Base(q)); ok && strings.HasPrefix(pat, "*") {
					return pat
				}
			}
		}
		return ""
	}
	n := 0
	for i := range f.stages {
		for _, in := range copies(&f.stages[i]) {
			if in.From != "" {
				continue
			}
			for _, src := range in.SourcePaths {
				n++
				if _, err := os.Stat(filepath.Join(sharedtest.Root(), src)); err != nil {
					t.Errorf("beam/Dockerfile line %d: COPY %s: not in the repository: %v", line(in), src, err)
				}
				if src != "." {
					if pat := ignored(path.Clean(src)); pat != "" {
						t.Errorf("beam/Dockerfile line %d: COPY %s: left out of the context by %q", line(in), src, pat)
					}
				}
			}
		}
	}
	if n == 0 {
		t.Error("the image copies nothing from the repository")
	}
	for _, p := range []string{".git", "build/dreval-beam", "node_modules/x", "encoder/ort/ort.test"} {
		if ignored(p) == "" {
			t.Errorf("%s goes into the build context", p)
		}
	}
	for _, p := range []string{"go.mod", "beam/go.mod", "scripts/setup-ort.sh", "cmd/dreval/main.go", "experiment/run.go"} {
		if pat := ignored(p); pat != "" {
			t.Errorf("%s is left out of the build context by %q", p, pat)
		}
	}
}

// TestWorkerImageContents: what the worker image takes from the build
// stage is made there: the binary "make beam" builds, ONNX Runtime by the
// script "make setup" runs, the models "make setup" installs; the image's
// environment is what the pipeline's DoFns read.
func TestWorkerImageContents(t *testing.T) {
	f := parseWorker(t)
	build := f.stage("build")
	if build == nil {
		t.Fatal("beam/Dockerfile has no stage named build")
	}
	worker := &f.stages[len(f.stages)-1]
	buildEnv := env(t, build)
	cmds := runs(t, build)
	all := strings.Join(cmds, "\n")
	ortScript := readFile(t, "scripts/setup-ort.sh")
	if slices.Contains(cmds, "scripts/setup-ort.sh") && strings.Contains(ortScript, `"${DREVAL_ORT_LIB:-`) {
		all += "\n" + buildEnv["DREVAL_ORT_LIB"] // where the script installs the library
	}

	// Each COPY --from=build source is written by a build-stage RUN.
	for _, in := range copies(worker) {
		if in.From != "build" {
			t.Errorf("beam/Dockerfile line %d: the worker stage copies from %q, not the build stage", line(in), in.From)
			continue
		}
		for _, src := range in.SourcePaths {
			if !strings.Contains(all, strings.TrimSuffix(src, "/")) {
				t.Errorf("beam/Dockerfile line %d: COPY --from=build %s: no RUN of the build stage writes there", line(in), src)
			}
		}
	}

	// The binary: the package and name "make beam" builds, with cgo.
	goBuild := regexp.MustCompile(`cd (\S+) && \S*go build (?:-\S+ )*-o (\S+) (\S+)`)
	mk := goBuild.FindStringSubmatch(strings.ReplaceAll(readFile(t, "Makefile"), "$(GO)", "go"))
	img := goBuild.FindStringSubmatch(all)
	if mk == nil || img == nil {
		t.Fatalf("go build of the pipeline: Makefile %q, Dockerfile %q", mk, img)
	}
	if mk[1] != img[1] || mk[3] != img[3] || path.Base(mk[2]) != path.Base(img[2]) {
		t.Errorf("the image builds %s in %s as %s; make beam builds %s in %s as %s", img[3], img[1], path.Base(img[2]), mk[3], mk[1], path.Base(mk[2]))
	}
	if buildEnv["CGO_ENABLED"] != "1" {
		t.Error("the build stage builds without cgo: the worker binary would have no ONNX Runtime engine")
	}
	bin := img[2]
	if !slices.ContainsFunc(copies(worker), func(in *instructions.CopyCommand) bool {
		return slices.ContainsFunc(in.SourcePaths, func(s string) bool { return strings.HasPrefix(bin, s) })
	}) {
		t.Errorf("the worker image does not copy %s", bin)
	}

	// ONNX Runtime: the setup's script, its pinned version.
	setup := readFile(t, "scripts/setup.sh")
	if !strings.Contains(setup, "scripts/setup-ort.sh") || !slices.Contains(cmds, "scripts/setup-ort.sh") {
		t.Error("make setup and the image do not both install ONNX Runtime with scripts/setup-ort.sh")
	}
	v := regexp.MustCompile(`(?m)^version=(\S+)`).FindStringSubmatch(ortScript)
	if v == nil || !strings.Contains(readFile(t, "beam/Dockerfile"), "onnxruntime-node\n#     "+v[1]) && !strings.Contains(readFile(t, "beam/Dockerfile"), "onnxruntime-node "+v[1]) {
		t.Errorf("the Dockerfile's comment does not name the ONNX Runtime version scripts/setup-ort.sh pins (%v)", v)
	}
	if !strings.Contains(ortScript, `"${DREVAL_ORT_LIB:-`) {
		t.Error("scripts/setup-ort.sh does not install to $DREVAL_ORT_LIB, where the image expects the library")
	}

	// The models: the commands of make setup.
	modelCmd := regexp.MustCompile(`dreval model (?:get|export-onnx|distill)[^&\n]*`)
	norm := func(s string) string {
		s = regexp.MustCompile(`-models "[^"]*"`).ReplaceAllString(s, "")
		s = regexp.MustCompile(`"[^"]*/([^"/]+)"`).ReplaceAllString(s, "$1")
		return strings.Join(strings.Fields(s), " ")
	}
	var want, got []string
	for _, c := range modelCmd.FindAllString(setup, -1) {
		want = append(want, norm(c))
	}
	for _, c := range modelCmd.FindAllString(all, -1) {
		got = append(got, norm(c))
	}
	if len(want) == 0 || !slices.Equal(want, got) {
		t.Errorf("the image installs the models with %q; make setup with %q", got, want)
	}

	// The environment: where the DoFns look, and what the image holds.
	env := env(t, worker)
	for k, v := range buildEnv {
		if strings.HasPrefix(k, "DREVAL_") && env[k] != v {
			t.Errorf("%s is %q in the worker image, %q where the build stage installed it", k, env[k], v)
		}
	}
	t.Setenv("DREVAL_MODELS", env["DREVAL_MODELS"])
	t.Setenv("DREVAL_ORT_LIB", env["DREVAL_ORT_LIB"])
	if WorkerModelsDir() != env["DREVAL_MODELS"] || WorkerOrtLibrary() != env["DREVAL_ORT_LIB"] || env["DREVAL_MODELS"] == "" || env["DREVAL_ORT_LIB"] == "" {
		t.Errorf("the pipeline's workers would read models from %q and ONNX Runtime from %q; the image has %q and %q",
			WorkerModelsDir(), WorkerOrtLibrary(), env["DREVAL_MODELS"], env["DREVAL_ORT_LIB"])
	}
}

// TestWorkerImageShell: every RUN is a valid sh command line.
func TestWorkerImageShell(t *testing.T) {
	f := parseWorker(t)
	for _, st := range f.stages {
		for _, c := range st.Commands {
			in, ok := c.(*instructions.RunCommand)
			if !ok || !in.PrependShell {
				continue // the JSON form runs no shell
			}
			if out, err := exec.Command("sh", "-n", "-c", strings.Join(in.CmdLine, " ")).CombinedOutput(); err != nil {
				t.Errorf("beam/Dockerfile line %d: RUN is not valid sh: %v\n%s", line(in), err, out)
			}
		}
	}
}

// TestWorkerImageLibraries: the C++ runtime the image copies into the
// (distroless) SDK image is what the ONNX Runtime library links to
// beyond glibc.
func TestWorkerImageLibraries(t *testing.T) {
	lib := WorkerOrtLibrary()
	if _, err := os.Stat(lib); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("ONNX Runtime is not installed (%s); run make setup", lib)
		}
		t.Skipf("ONNX Runtime is not installed (%s); run make setup", lib)
	}
	e, err := elf.Open(lib)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	needed, err := e.ImportedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	glibc := map[string]bool{"libc.so.6": true, "libm.so.6": true, "libdl.so.2": true, "librt.so.1": true, "libpthread.so.0": true, "ld-linux-x86-64.so.2": true}
	dockerfileText := readFile(t, "beam/Dockerfile")
	for _, n := range needed {
		if glibc[n] {
			continue
		}
		if !strings.Contains(dockerfileText, "/"+n) {
			t.Errorf("%s needs %s, which the worker image does not copy", lib, n)
		}
	}
	t.Logf("%s needs %v", lib, needed)
}

// TestDockerfileReading checks the helpers above, on BuildKit's reading,
// for what the worker image's tests rely on: global ARGs, stages and
// their names, continued lines with comments inside, COPY's flags and
// sources, the shell and JSON forms of RUN, both forms of ENV, ARG
// substitution, and errors that name the file.
func TestDockerfileReading(t *testing.T) {
	src := `ARG V=1.2
ARG IMG=golang:1.26
# a comment

from ${IMG} AS build
ENV A=/x \
    B="/y"
RUN apt-get update \
 # a comment inside the instruction
 && echo ok
COPY --from=build --chmod=755 a b/ /dst/
RUN ["sh", "-c", "echo json"]
RUN [not json
FROM scratch
ENV C 1 2
`
	f, err := parseDockerfile("Dockerfile", src)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(f.args, map[string]string{"V": "1.2", "IMG": "golang:1.26"}) {
		t.Errorf("global args %v", f.args)
	}
	if len(f.stages) != 2 || f.stages[0].BaseName != "${IMG}" || f.stages[0].Name != "build" || f.stages[1].BaseName != "scratch" {
		t.Fatalf("stages %+v", f.stages)
	}
	if img, err := f.baseImage(0); err != nil || img != "golang:1.26" {
		t.Errorf("baseImage(0) = %q, %v", img, err)
	}
	if f.stage("build") != &f.stages[0] || f.stage("nope") != nil {
		t.Error("stage by name")
	}
	// Each command of the first stage: its line, and what it says.
	type cmd struct {
		line int
		what string
	}
	var got []cmd
	for _, c := range f.stages[0].Commands {
		var what string
		switch c := c.(type) {
		case *instructions.EnvCommand:
			var kvs []string
			for _, kv := range c.Env {
				kvs = append(kvs, kv.String())
			}
			what = fmt.Sprint("ENV ", kvs)
		case *instructions.RunCommand:
			what = fmt.Sprintf("RUN shell=%v %q", c.PrependShell, strings.Join(strings.Fields(strings.Join(c.CmdLine, " ")), " "))
			if !c.PrependShell {
				what = fmt.Sprintf("RUN shell=false %q", c.CmdLine)
			}
		case *instructions.CopyCommand:
			what = fmt.Sprintf("COPY from=%s chmod=%s %q -> %s", c.From, c.Chmod, c.SourcePaths, c.DestPath)
		default:
			what = fmt.Sprintf("%T", c)
		}
		got = append(got, cmd{line(c), what})
	}
	want := []cmd{
		{6, `ENV [A=/x B="/y"]`},
		{8, `RUN shell=true "apt-get update && echo ok"`},
		{11, `COPY from=build chmod=755 ["a" "b/"] -> /dst/`},
		{12, `RUN shell=false ["sh" "-c" "echo json"]`},
		{13, `RUN shell=true "[not json"`},
	}
	if !slices.Equal(got, want) {
		t.Errorf("commands\n%v\nwant\n%v", got, want)
	}
	if e := env(t, &f.stages[0]); !maps.Equal(e, map[string]string{"A": "/x", "B": "/y"}) {
		t.Errorf("env %v", e)
	}
	if e := env(t, &f.stages[1]); !maps.Equal(e, map[string]string{"C": "1 2"}) {
		t.Errorf("legacy ENV form: %v", e)
	}
	if r := runs(t, &f.stages[0]); len(r) != 3 || r[1] != "sh -c echo json" {
		t.Errorf("runs %q", r)
	}

	for _, tc := range []struct{ src, want string }{
		{"", "file with no instructions"},
		{"# comment only\n", "file with no instructions"},
		{"ARG A=1\n", "no FROM"},
		{"FROM x\nFETCH y\n", "line 2: unknown instruction: FETCH"},
		{"RUN echo\nFROM x\n", "no build stage"},
		{"FROM x\nCOPY\n", "line 2: COPY requires at least two arguments"},
		{"FROM a b\n", "line 1: FROM requires either one or three arguments"},
	} {
		_, err := parseDockerfile("Dockerfile", tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "Dockerfile: ") {
			t.Errorf("parseDockerfile(%q) = %v; want an error naming the file and %q", tc.src, err, tc.want)
		}
	}

	vars := map[string]string{"A": "1", "B_2": "two"}
	for _, tc := range []struct{ in, want, err string }{
		{"x${A}y", "x1y", ""},
		{"$A/$B_2", "1/two", ""},
		{"no vars $", "no vars $", ""},
		{"${C}", "", "$C is not defined"},
		{"${A", "", `failed to process "${A"`},
	} {
		got, err := expand(tc.in, vars)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("expand(%q) = %q, %v; want error %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("expand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	f.stages[1].BaseName = "img:${NOPE}"
	if _, err := f.baseImage(1); err == nil || !strings.Contains(err.Error(), "Dockerfile: FROM img:${NOPE}: $NOPE is not defined") {
		t.Errorf("baseImage with an undefined ARG: %v", err)
	}
}
