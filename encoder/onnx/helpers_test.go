package onnx

import (
	"os"
	"testing"

	"github.com/dreval/dreval/encoder/bert"
)

func readConfig(t testing.TB, path string) bert.Config {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := bert.ReadConfig(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
