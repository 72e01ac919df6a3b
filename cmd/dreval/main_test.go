package main

import (
	"bytes"
	"strings"
	"testing"
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
