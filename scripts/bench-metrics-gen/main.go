// Command bench-metrics-gen writes the synthetic run and qrels of
// scripts/bench-metrics.sh (2,000 queries x 1,000 documents, 100,000
// qrels lines, fixed seed) into a directory.
//
// Usage:
//
//	go run ./scripts/bench-metrics-gen DIR
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/dreval/dreval/metrics/metricstest"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: bench-metrics-gen DIR")
		os.Exit(2)
	}
	if err := write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "bench-metrics-gen:", err)
		os.Exit(1)
	}
}

func write(dir string) error {
	s := metricstest.BenchmarkShape
	for name, w := range map[string]func(*os.File) error{
		"synthetic.run":   func(f *os.File) error { return s.WriteRun(f) },
		"synthetic.qrels": func(f *os.File) error { return s.WriteQrels(f) },
	} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if err := w(f); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}
