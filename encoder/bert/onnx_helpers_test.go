package bert

import (
	"os"
	"testing"

	"github.com/dreval/dreval/modelfiles"
)

func readConfig(t testing.TB, path string) modelfiles.Config {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := modelfiles.ReadConfig(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
