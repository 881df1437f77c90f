package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload"
)

// workloadFlags are the options of one workload that has some
// (workload.Options), registered on `serbench run`.
type workloadFlags struct {
	name string
	opts workload.Options
	fs   *pflag.FlagSet
}

// addWorkloadFlags registers, on the run command, the options of every
// workload of a.workloads that has some, each workload's in a flag set of
// its own (kept in registration order for the help and the messages).
func (a *app) addWorkloadFlags(cmd *cobra.Command) []workloadFlags {
	var out []workloadFlags
	for _, w := range a.workloads {
		o, ok := w.(workload.Options)
		if !ok {
			continue
		}
		fs := pflag.NewFlagSet(w.Name(), pflag.ContinueOnError)
		fs.SortFlags = false
		o.AddFlags(fs)
		cmd.Flags().AddFlagSet(fs)
		out = append(out, workloadFlags{name: w.Name(), opts: o, fs: fs})
	}
	return out
}

// checkWorkloadFlags lets every workload with options check them (named:
// the command line names it; set: one of its flags was given), then
// refuses a workload's flag given while other workloads are named and it is
// not: the flag would silently do nothing.
func checkWorkloadFlags(names []string, own []workloadFlags) error {
	for _, wf := range own {
		named := slices.Contains(names, wf.name)
		var first *pflag.Flag
		wf.fs.VisitAll(func(f *pflag.Flag) {
			if f.Changed && first == nil {
				first = f
			}
		})
		if err := wf.opts.CheckFlags(named, first != nil); err != nil {
			return err
		}
		if first != nil && len(names) > 0 && !named {
			return usagef("--%s applies to the %s workload: name it (serbench run %s %s %s)",
				first.Name, wf.name, strings.Join(names, " "), wf.name, flagArg(first))
		}
	}
	return nil
}

// flagArg is f as given on a command line, its value redacted and quoted
// for a shell when needed.
func flagArg(f *pflag.Flag) string {
	if f.Value.Type() == "bool" {
		return "--" + f.Name
	}
	v := f.Value.String()
	if sv, ok := f.Value.(pflag.SliceValue); ok {
		v = strings.Join(sv.GetSlice(), ",")
	}
	v = results.Redact(v)
	if v == "" || strings.ContainsAny(v, " \t\n'\"\\$`;&|<>()*?![]{}~#") {
		v = "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
	}
	return "--" + f.Name + " " + v
}

// runHelp is the help of `serbench run`: with workloads named (`serbench
// run data --help`, `serbench help run data`), their own options first,
// then the flags every workload shares; with none, the shared flags, then
// every workload's options under its name.
func (a *app) runHelp(own []workloadFlags) func(*cobra.Command, []string) {
	return func(cmd *cobra.Command, args []string) {
		names := a.helpNames(cmd, args)
		w := cmd.OutOrStdout()
		fmt.Fprintf(w, "%s\n\nUsage:\n  %s\n\n", strings.TrimSpace(cmd.Long), cmd.UseLine())
		ownFlag := map[string]bool{}
		for _, wf := range own {
			wf.fs.VisitAll(func(f *pflag.Flag) { ownFlag[f.Name] = true })
		}
		shared := pflag.NewFlagSet("run", pflag.ContinueOnError)
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if !ownFlag[f.Name] {
				shared.AddFlag(f)
			}
		})
		printOwn := func(only []string) {
			for _, wf := range own {
				if only == nil || slices.Contains(only, wf.name) {
					fmt.Fprintf(w, "Options of the %s workload:\n%s\n", wf.name, wf.fs.FlagUsages())
				}
			}
		}
		if len(names) == 0 {
			fmt.Fprintf(w, "Flags shared by all workloads:\n%s\n", shared.FlagUsages())
			printOwn(nil)
			printInherited(w, cmd)
			return
		}
		for _, n := range names {
			if !slices.ContainsFunc(own, func(wf workloadFlags) bool { return wf.name == n }) {
				fmt.Fprintf(w, "The %s workload has no options of its own.\n\n", n)
			}
		}
		printOwn(names)
		fmt.Fprintf(w, "Flags shared by all workloads:\n%s", shared.FlagUsages())
		printInherited(w, cmd)
	}
}

// printInherited lists the flags the run command inherits (none today).
func printInherited(w io.Writer, cmd *cobra.Command) {
	if fs := cmd.InheritedFlags(); fs.HasAvailableFlags() {
		fmt.Fprintf(w, "\nGlobal flags:\n%s", fs.FlagUsages())
	}
}

// helpNames are the known workloads the help of `serbench run` was asked
// for. Cobra hands a --help the whole command line ("run", "data",
// "--help"), whose positional arguments the run command's flags have
// parsed; `serbench help run data` hands none, so they are read from the
// program's arguments.
func (a *app) helpNames(cmd *cobra.Command, args []string) []string {
	cand := cmd.Flags().Args()
	if len(cand) == 0 && len(args) == 0 && len(a.args) > 3 && a.args[1] == "help" && a.args[2] == cmd.Name() {
		cand = a.args[3:]
	}
	var names []string
	for _, c := range cand {
		if _, err := a.workloads.Lookup(c); err == nil && !slices.Contains(names, c) {
			names = append(names, c)
		}
	}
	return names
}
