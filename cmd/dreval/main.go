// Command dreval evaluates dense text retrievers and how they break when
// their tokenizer is tampered with.
//
// Usage:
//
//	dreval <command> [flags] [args]
//
// Run "dreval help" for the list of commands and "dreval <command> -h" for
// the flags of one command.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// command is one dreval subcommand. Each lives in its own file and registers
// itself from an init function, so adding a command touches one file.
type command struct {
	name    string
	summary string // one line for "dreval help"
	// run executes the command. args excludes the command name. A usage
	// problem returns an error wrapping errUsage; flag.ErrHelp means -h.
	run func(env *cliEnv, args []string) error
}

// cliEnv carries the process's streams so commands can be tested in-process.
type cliEnv struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// errUsage marks errors caused by wrong flags or arguments (exit status 2).
var errUsage = errors.New("usage")

// usageErrorf returns an error that makes dreval exit with status 2.
func usageErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, args...))
}

var commands = map[string]*command{}

// register adds c to the command table; called from init functions.
func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("dreval: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

// flagSetMade, when set, is called with each flag set newFlagSet makes;
// tests use it to reach every command's flags.
var flagSetMade func(*flag.FlagSet)

// newFlagSet returns a flag set that writes its usage to env.stderr and
// returns errors instead of exiting.
func newFlagSet(env *cliEnv, name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet("dreval "+name, flag.ContinueOnError)
	if flagSetMade != nil {
		flagSetMade(fs)
	}
	fs.SetOutput(env.stderr)
	fs.Usage = func() {
		fmt.Fprintf(env.stderr, "usage: dreval %s %s\n\n", name, usage)
		if c := commands[name]; c != nil {
			fmt.Fprintf(env.stderr, "%s\n\nflags:\n", c.summary)
		}
		fs.PrintDefaults()
	}
	return fs
}

func main() {
	env := &cliEnv{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}
	os.Exit(run(env, os.Args[1:]))
}

// run executes one dreval invocation and returns the exit status.
func run(env *cliEnv, args []string) int {
	if len(args) == 0 {
		printHelp(env.stderr)
		return 2
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			if c := commands[args[1]]; c != nil {
				return run(env, []string{args[1], "-h"})
			}
			fmt.Fprintf(env.stderr, "dreval: unknown command %q\n", args[1])
			return 2
		}
		printHelp(env.stdout)
		return 0
	}
	c := commands[name]
	if c == nil {
		fmt.Fprintf(env.stderr, "dreval: unknown command %q; run \"dreval help\" for the list\n", name)
		return 2
	}
	err := c.run(env, args[1:])
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(env.stderr, "dreval %s: %s\n", name, strings.TrimPrefix(err.Error(), errUsage.Error()+": "))
		return 2
	default:
		fmt.Fprintf(env.stderr, "dreval %s: %v\n", name, err)
		return 1
	}
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "dreval evaluates dense retrievers and how they break under tokenizer perturbation.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "usage: dreval <command> [flags] [args]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "  help         show this list, or \"dreval help <command>\" for one command")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Every command takes -h for its flags.")
}
