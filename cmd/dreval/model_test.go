package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dreval/dreval/internal/sharedtest"
)

func TestModelGetAlreadyInstalled(t *testing.T) {
	models := filepath.Dir(sharedtest.ModelDir(t, "minilm"))
	code, out, errOut := runCLI(t, "", "model", "get", "-models", models, "minilm")
	if code != 0 || !strings.Contains(out, "minilm is already installed") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, _ = runCLI(t, "", "model", "list", "-models", models)
	if code != 0 || !strings.Contains(out, "installed in "+filepath.Join(models, "minilm")) {
		t.Errorf("list: exit %d, %q", code, out)
	}
}

func TestModelUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"model"}, 2, "missing subcommand"},
		{[]string{"model", "-h"}, 0, "subcommands:"},
		{[]string{"model", "frob"}, 2, `unknown subcommand "frob" (known: get, list, export-onnx, distill)`},
		{[]string{"model", "get"}, 2, "name a model to get (known: minilm)"},
		{[]string{"model", "get", "gpt"}, 2, `unknown model "gpt"`},
		{[]string{"model", "get", "-h"}, 0, "usage: dreval model get"},
	} {
		code, _, errOut := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
}
