package cli

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/serbench/serbench/runner"
	"github.com/serbench/serbench/workload/records"
)

func (a *app) runnerCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "runner",
		Short: "Work with runners for other languages (docs/runner-protocol.md)",
	}
	cmd.AddCommand(a.runnerCheckCmd())
	return cmd
}

func (a *app) runnerCheckCmd() *cobra.Command {
	var (
		rows    int
		silence time.Duration
	)
	cmd := &cobra.Command{
		Use:   "check COMMAND...",
		Short: "Drive a runner through every message of the protocol and print one line per problem",
		Long: "check starts COMMAND (one quoted string, or its words after --; or the name of a runner serbench\n" +
			"ships: jvm, python, rust) as serbench would and drives it through the protocol on the records workload's\n" +
			"first --rows records: its hello, then one run with an encode and a decode of every subject it announces,\n" +
			"without a codec and with each codec it names, a copy limit row, and a case of an op no runner knows.\n" +
			"It prints one line per problem — a malformed or missing line, a wrong digest with the first column and\n" +
			"row that differ, an error line, too few or too many samples, a crash, a hang past --timeout, an unknown op\n" +
			"that got no error line — and exits 0 only when the runner conforms, 1 when it does not.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if rows < 1 {
				return usagef("--rows must be at least 1, got %d", rows)
			}
			var r *runner.Runner
			srcs, err := a.runnerSources()
			if err != nil {
				return err
			}
			if i := slices.IndexFunc(srcs, func(s runner.Source) bool { return len(args) == 1 && s.Name == args[0] }); i >= 0 {
				if r, err = srcs[i].Make(cmd.Context(), cacheDir(), a.stderr); err != nil {
					return exitError{ExitFailure, err}
				}
			} else {
				words := args
				if len(args) == 1 {
					var err error
					if words, err = runner.SplitCommand(args[0]); err != nil {
						return usagef("%v", err)
					}
				}
				wd, err := os.Getwd()
				if err != nil {
					return err
				}
				if len(words) == 0 {
					return usagef("runner check: empty command")
				}
				r = &runner.Runner{Name: "check", Command: absWords(words, wd)}
			}
			r.Silence = silence
			dir, err := os.MkdirTemp("", "serbench-runner-check-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			h, probs, err := runner.Conform(cmd.Context(), r, dir, records.CheckDataset(rows))
			if err != nil {
				return err
			}
			bad := 0
			for _, p := range probs {
				if p.Refused {
					fmt.Fprintf(a.stdout, "refused (allowed): %s\n", p)
					continue
				}
				bad++
				fmt.Fprintf(a.stdout, "%s\n", p)
			}
			if bad > 0 {
				return exitError{ExitFailure, fmt.Errorf("%s does not conform: %d problem(s)", strings.Join(r.Command, " "), bad)}
			}
			if h == nil {
				return exitError{ExitFailure, errors.New("no hello")}
			}
			var names []string
			for _, s := range h.Subjects {
				names = append(names, s.Name)
			}
			fmt.Fprintf(a.stdout, "%s (%s, %s %s) conforms to protocol %d: %d subject(s): %s\n", h.Runner, h.Language, h.Runtime, h.RuntimeVersion, runner.Protocol, len(names), strings.Join(names, ", "))
			return nil
		},
	}
	cmd.Flags().IntVar(&rows, "rows", 200, "records in the check's dataset")
	cmd.Flags().DurationVar(&silence, "timeout", time.Minute, "how long the runner may write nothing before it is taken to hang")
	return cmd
}
