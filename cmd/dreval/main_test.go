package main

import (
	"bytes"
	"flag"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/dreval/dreval/internal/sharedtest"
)

// runCLI runs dreval in-process and returns its exit status and output.
func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &cliEnv{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb}
	code = run(env, args)
	return code, out.String(), errb.String()
}

func TestHelpListsEveryCommand(t *testing.T) {
	code, out, _ := runCLI(t, "", "help")
	if code != 0 {
		t.Fatalf("help exited %d", code)
	}
	for name := range commands {
		if !strings.Contains(out, "  "+name+" ") {
			t.Errorf("help does not list %q:\n%s", name, out)
		}
	}
}

func TestEveryCommandHasHelpFlag(t *testing.T) {
	for name := range commands {
		code, _, errOut := runCLI(t, "", name, "-h")
		if code != 0 {
			t.Errorf("%s -h exited %d", name, code)
		}
		if !strings.Contains(errOut, "usage: dreval "+name) {
			t.Errorf("%s -h does not print usage:\n%s", name, errOut)
		}
	}
}

func TestUnknownCommand(t *testing.T) {
	code, _, errOut := runCLI(t, "", "frobnicate")
	if code != 2 || !strings.Contains(errOut, `unknown command "frobnicate"`) {
		t.Fatalf("got %d %q", code, errOut)
	}
}

func TestNoArgsPrintsHelp(t *testing.T) {
	code, _, errOut := runCLI(t, "")
	if code != 2 || !strings.Contains(errOut, "commands:") {
		t.Fatalf("got %d %q", code, errOut)
	}
}

// TestNoDefaultPointsIntoShared runs every command (and every subcommand)
// with -h, which makes its flag set, and checks each flag's default: none
// may point into ../shared, which only this repository's test machines
// have, so that every command runs on a user's clone with its defaults.
func TestNoDefaultPointsIntoShared(t *testing.T) {
	// Defaults read from the environment are the environment's choice;
	// cleared, the code's own defaults are what is checked.
	for _, v := range []string{"DREVAL_DATA", "DREVAL_MODELS", "DREVAL_ORT_LIB", "DREVAL_ORT_WEB", "HF_ENDPOINT"} {
		t.Setenv(v, "")
	}
	// Commands whose flags belong to their subcommands.
	subcommands := map[string][]string{"dataset": {"get", "info"}}
	for _, s := range modelSubs {
		subcommands["model"] = append(subcommands["model"], s.name)
	}
	var made []*flag.FlagSet
	saved := flagSetMade
	flagSetMade = func(fs *flag.FlagSet) { made = append(made, fs) }
	t.Cleanup(func() { flagSetMade = saved })

	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	var invocations [][]string
	for _, n := range names {
		subs, ok := subcommands[n]
		if !ok {
			invocations = append(invocations, []string{n, "-h"})
		}
		for _, s := range subs {
			invocations = append(invocations, []string{n, s, "-h"})
		}
	}
	flags := 0
	for _, args := range invocations {
		made = nil
		if code, _, errOut := runCLI(t, "", args...); code != 0 {
			t.Errorf("%q: exit %d: %s", args, code, errOut)
		}
		if len(made) == 0 {
			t.Errorf("%q made no flag set: if its flags belong to subcommands, list them in this test's subcommands", args)
		}
		for _, fs := range made {
			fs.VisitAll(func(f *flag.Flag) {
				flags++
				if pointsIntoShared(f.DefValue) {
					t.Errorf("%s -%s defaults to %q, inside ../shared, which a user's clone does not have", fs.Name(), f.Name, f.DefValue)
				}
			})
		}
	}
	if flags < len(invocations) {
		t.Errorf("checked %d flags of %d invocations: the flag sets were not reached", flags, len(invocations))
	}
}

// pointsIntoShared reports whether a flag value, or one of its
// comma-separated parts, is a path into ../shared: relative (../shared,
// ../../shared/data/x) or absolute (below sharedtest.SharedDir()).
func pointsIntoShared(v string) bool {
	shared, err := filepath.Abs(sharedtest.SharedDir())
	if err != nil {
		shared = ""
	}
	for _, p := range strings.Split(v, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		parts := strings.Split(filepath.ToSlash(filepath.Clean(p)), "/")
		up := 0
		for up < len(parts) && parts[up] == ".." {
			up++
		}
		if up > 0 && up < len(parts) && parts[up] == "shared" {
			return true
		}
		if filepath.IsAbs(p) && shared != "" {
			if rel, err := filepath.Rel(shared, p); err == nil && filepath.IsLocal(rel) {
				return true
			}
		}
	}
	return false
}

func TestPointsIntoShared(t *testing.T) {
	shared, _ := filepath.Abs(sharedtest.SharedDir())
	tests := []struct {
		v    string
		want bool
	}{
		{"../shared/data/hotpotqa-dev-100,../shared/data/cranfield", true},
		{"demo,../shared/data/cranfield", true},
		{"../shared", true},
		{"../../shared/tokenizers/gpt2", true},
		{filepath.Join(shared, "data", "cacm"), true},
		{shared, true},
		{"fiqa,hotpotqa,quora", false},
		{"shared/data", false},
		{"../sharedx/data", false},
		{"out/reproduce", false},
		{"", false},
		{"/usr/lib/libonnxruntime.so", false},
	}
	for _, tt := range tests {
		if got := pointsIntoShared(tt.v); got != tt.want {
			t.Errorf("pointsIntoShared(%q) = %v, want %v", tt.v, got, tt.want)
		}
	}
}
