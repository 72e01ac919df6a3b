package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

func init() {
	register(&command{
		name:    "version",
		summary: "print dreval's version and the Go toolchain it was built with",
		run:     runVersion,
	})
}

func runVersion(env *cliEnv, args []string) error {
	fs := newFlagSet(env, "version", "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("unexpected argument %q", fs.Arg(0))
	}
	v := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		v = bi.Main.Version
	}
	fmt.Fprintf(env.stdout, "dreval %s %s %s/%s\n", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}
