package pipeline

import (
	"debug/elf"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/dreval/dreval/beam/dockerfile"
	"github.com/dreval/dreval/internal/sharedtest"
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

func parseWorker(t *testing.T) *dockerfile.File {
	t.Helper()
	f, err := dockerfile.Parse(strings.NewReader(readFile(t, "beam/Dockerfile")), "beam/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// runs returns a stage's RUN command lines with the stage's ENV values
// substituted.
func runs(t *testing.T, st *dockerfile.Stage) []string {
	t.Helper()
	env := st.Env()
	var out []string
	for _, in := range st.Instructions {
		if in.Cmd != "RUN" {
			continue
		}
		cmd := strings.Join(in.Args, " ")
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
	if f.Args["BEAM_VERSION"] != m[1] {
		t.Errorf("ARG BEAM_VERSION=%s, beam/go.mod requires Beam %s", f.Args["BEAM_VERSION"], m[1])
	}
	goVer := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindStringSubmatch(gomod)
	if goVer == nil || !strings.HasPrefix(f.Args["GO_IMAGE"], "golang:"+goVer[1]+"-") {
		t.Errorf("ARG GO_IMAGE=%s; beam/go.mod says %v", f.Args["GO_IMAGE"], goVer)
	}
	if len(f.Stages) != 2 || f.Stages[0].Name != "build" {
		t.Fatalf("want two stages, build and the worker image; got %+v", f.Stages)
	}
	img, err := dockerfile.Expand(f.Stages[1].Image, f.Args)
	if err != nil || img != "apache/beam_go_sdk:"+m[1] {
		t.Errorf("the worker image is based on %q (%v), want apache/beam_go_sdk:%s", img, err, m[1])
	}
	// glibc: the build stage and the SDK image are both Debian 12.
	if !strings.HasSuffix(f.Args["GO_IMAGE"], "-bookworm") {
		t.Errorf("GO_IMAGE %s: the binary must be built on the SDK image's Debian (bookworm)", f.Args["GO_IMAGE"])
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
	for _, st := range f.Stages {
		for _, in := range st.Instructions {
			if in.Cmd != "COPY" || in.Flags["from"] != "" {
				continue
			}
			for _, src := range in.Args[:len(in.Args)-1] {
				n++
				if _, err := os.Stat(filepath.Join(sharedtest.Root(), src)); err != nil {
					t.Errorf("beam/Dockerfile line %d: COPY %s: not in the repository: %v", in.Line, src, err)
				}
				if src != "." {
					if pat := ignored(path.Clean(src)); pat != "" {
						t.Errorf("beam/Dockerfile line %d: COPY %s: left out of the context by %q", in.Line, src, pat)
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
	build := f.Stage("build")
	worker := &f.Stages[len(f.Stages)-1]
	cmds := runs(t, build)
	all := strings.Join(cmds, "\n")
	ortScript := readFile(t, "scripts/setup-ort.sh")
	if slices.Contains(cmds, "scripts/setup-ort.sh") && strings.Contains(ortScript, `"${DREVAL_ORT_LIB:-`) {
		all += "\n" + build.Env()["DREVAL_ORT_LIB"] // where the script installs the library
	}

	// Each COPY --from=build source is written by a build-stage RUN.
	for _, in := range worker.Instructions {
		if in.Cmd != "COPY" {
			continue
		}
		if in.Flags["from"] != "build" {
			t.Errorf("beam/Dockerfile line %d: the worker stage copies from %q, not the build stage", in.Line, in.Flags["from"])
			continue
		}
		for _, src := range in.Args[:len(in.Args)-1] {
			if !strings.Contains(all, strings.TrimSuffix(src, "/")) {
				t.Errorf("beam/Dockerfile line %d: COPY --from=build %s: no RUN of the build stage writes there", in.Line, src)
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
	if build.Env()["CGO_ENABLED"] != "1" {
		t.Error("the build stage builds without cgo: the worker binary would have no ONNX Runtime engine")
	}
	bin := img[2]
	if !slices.ContainsFunc(worker.Instructions, func(in dockerfile.Instruction) bool {
		return in.Cmd == "COPY" && slices.ContainsFunc(in.Args[:len(in.Args)-1], func(s string) bool { return strings.HasPrefix(bin, s) })
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
	env := worker.Env()
	for k, v := range build.Env() {
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
	for _, st := range f.Stages {
		for _, in := range st.Instructions {
			if in.Cmd != "RUN" || in.JSON {
				continue
			}
			if out, err := exec.Command("sh", "-n", "-c", in.Args[0]).CombinedOutput(); err != nil {
				t.Errorf("beam/Dockerfile line %d: RUN is not valid sh: %v\n%s", in.Line, err, out)
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
