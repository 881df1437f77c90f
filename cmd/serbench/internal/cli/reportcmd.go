package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/serbench/serbench/table"

	"github.com/spf13/cobra"

	"github.com/serbench/serbench/report"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/run"
	"github.com/serbench/serbench/workload"
)

func (a *app) reportCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "report RESULTS...",
		Short: "Render Markdown, HTML and SVG plots from results files",
		Long: "report re-renders one or more results.jsonl files (several runs, e.g. from different machines,\n" +
			"appear one after another) into DIR/report.md, DIR/report.html, the SVG plots and DIR/bench.txt.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			runs, err := a.readRuns(args)
			if err != nil {
				return err
			}
			if out == "" {
				out = filepath.Dir(args[0])
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return usagef("output directory: %v", err)
			}
			runs = results.MergeShards(runs)
			if err := run.WriteOutputs(out, runs, a.workloads); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "report: %s\n", filepath.Join(out, "report.html"))
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "output directory (default: the first results file's directory)")
	return cmd
}

func (a *app) readRuns(paths []string) ([]*results.Run, error) {
	var runs []*results.Run
	for _, p := range paths {
		r, err := results.ReadFile(p)
		if err != nil {
			return nil, &workload.UsageError{Err: err}
		}
		for _, w := range r.Warnings {
			fmt.Fprintf(a.stderr, "serbench: warning: %s\n", w)
		}
		runs = append(runs, r)
	}
	return runs, nil
}

func (a *app) compareCmd() *cobra.Command {
	var (
		failOnRegression, failOnUnjudged, normalize, allowDifferent, verdicts bool
		format                                                                string
		threshold                                                             float64
	)
	cmd := &cobra.Command{
		Use:   "compare OLD NEW",
		Short: "Compare two results files: deltas with significance, as benchstat prints them",
		Long: "compare matches cases by name and prints, per unit, the old and new medians with their intervals,\n" +
			"the change (or ~ when the samples do not differ significantly: Mann-Whitney U, α = 0.05), the p-value\n" +
			"and a geomean row.\n\n" +
			"Too few samples: with n1 and n2 samples a side the smallest p-value the test can give is 2/C(n1+n2, n1)\n" +
			"(0.33 for 2 against 2, 0.1 for 3 against 3); below 4 samples a side no change can be significant at\n" +
			"α = 0.05. Such rows say \"too few samples to tell\" instead of ~, the summary counts them and says\n" +
			"what --count would do.\n\n" +
			"A row counts as changed (the rule the gate applies, printed under every comparison) when\n" +
			"  1. its samples differ significantly (Mann-Whitney U, α = 0.05; by process where both runs forked),\n" +
			"  2. its median moved by at least --threshold (default 5%), and\n" +
			"  3. the gap between its old and new intervals exceeds the run-to-run noise floor beyond the common shift:\n" +
			"     the floor is 4 × the robust spread (1.4826 × MAD) of the log changes of all time rows of the same\n" +
			"     workload and subject (of the workload, or of all rows, where there are fewer than 10), and the shift\n" +
			"     their median change. Two runs of one build differ from process to process by more than a test of\n" +
			"     one process's samples can see; the floor is what this pair of runs shows that difference to be.\n" +
			"With --fail-on-regression compare exits 1 when any time row is a slowdown by that rule.\n" +
			"Rows whose medians slowed past the floor but whose samples are too few to tell (\"cannot tell: too few\n" +
			"samples\") are listed and counted on stderr; --fail-on-unjudged makes them fail the gate too: a gate that\n" +
			"cannot see does not pass.\n\n" +
			"Different data: compare refuses (exit 2) two runs that measured different data — another --scale, or\n" +
			"for the same workload another input file, row or column count, or query, as each run recorded them\n" +
			"in its environment — unless --allow-different-inputs is given; then it compares and says so.",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "markdown" && format != "json" {
				return usagef("unknown --format %q (valid: text, markdown, json)", format)
			}
			if threshold <= 0 || threshold >= 100 {
				return usagef("--threshold must be a percentage between 0 and 100, got %g", threshold)
			}
			runs, err := a.readRuns(args)
			if err != nil {
				return err
			}
			if verdicts {
				v := report.CheckVerdicts(runs[0], runs[1])
				if v.Pairs+v.Ratios == 0 {
					return usagef("%s and %s share no comparison group: nothing to check", args[0], args[1])
				}
				if err := v.WriteText(a.stdout); err != nil {
					return err
				}
				if !v.Held() {
					return exitError{ExitFailure, errors.New("the verdicts of " + args[1] + " differ from the reference " + args[0])}
				}
				return nil
			}
			cmp := report.NewComparison(args[0], args[1], runs[0], runs[1], report.CompareOptions{Normalize: normalize, Threshold: threshold / 100})
			if cmp.Shared() == 0 {
				if cmp.Inputs != "" {
					return usagef("%s and %s share no measured case: nothing to compare (%s)", args[0], args[1], cmp.Inputs)
				}
				return usagef("%s and %s share no measured case: nothing to compare (are they runs of the same workloads and scale?)", args[0], args[1])
			}
			if cmp.Inputs != "" {
				if !allowDifferent {
					return usagef("%s: these runs measured different data; pass --allow-different-inputs to compare them anyway", cmp.Inputs)
				}
				fmt.Fprintf(a.stderr, "serbench: warning: %s: these runs measured different data; compared anyway (--allow-different-inputs)\n", cmp.Inputs)
			}
			switch format {
			case "markdown":
				err = cmp.WriteMarkdown(a.stdout)
			case "json":
				err = cmp.WriteJSON(a.stdout)
			default:
				err = cmp.WriteText(a.stdout)
			}
			if err != nil {
				return err
			}
			reg, blind := cmp.Regressions(), cmp.CannotTells()
			if format == "text" {
				if reg > 0 {
					fmt.Fprintf(a.stdout, "\n%d case(s) significantly slower by more than %g%% and past the noise floor\n", reg, threshold)
				}
				if len(blind) > 0 {
					fmt.Fprintf(a.stdout, "\n%d case(s) slower by more than %g%% and past the noise floor by their medians, with too few samples to tell whether that is a change:\n", len(blind), threshold)
					for _, d := range blind {
						fmt.Fprintf(a.stdout, "  %s  %s %s\n", d.Name, table.SignedPct(d.Change), d.Unit)
					}
				}
			}
			if tf := cmp.TooFewNote(); tf != "" {
				fmt.Fprintf(a.stderr, "serbench: warning: %s\n", tf)
			}
			if !failOnRegression {
				return nil
			}
			var why []string
			if reg > 0 {
				why = append(why, fmt.Sprintf("%d regression(s) past %g%%", reg, threshold))
			}
			switch {
			case len(blind) > 0 && failOnUnjudged:
				why = append(why, fmt.Sprintf("cannot tell: too few samples: %d case(s) slower by more than %g%% by their medians could not be judged (%s)",
					len(blind), threshold, cmp.Rerun()))
			case len(blind) > 0:
				fmt.Fprintf(a.stderr, "serbench: warning: cannot tell: too few samples: %d case(s) slower past the noise floor by their medians could not be judged and do not fail the gate (--fail-on-unjudged: they do; %s)\n",
					len(blind), cmp.Rerun())
			}
			if len(why) > 0 {
				return exitError{ExitFailure, errors.New(strings.Join(why, "; "))}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&normalize, "normalize", false, "compare each case's time as its ratio to its group's baseline (the baseline's to the limit row) in the same sampling round, so a machine slower in one run shows no change")
	fl.BoolVar(&failOnRegression, "fail-on-regression", false, "exit 1 when a case is significantly slower by more than --threshold and past the run-to-run noise floor (the rule above)")
	fl.BoolVar(&failOnUnjudged, "fail-on-unjudged", false, "with --fail-on-regression, also exit 1 when a case slowed past the noise floor by its medians with too few samples to tell (\"cannot tell: too few samples\")")
	fl.BoolVar(&allowDifferent, "allow-different-inputs", false, "compare runs that measured different data (another --scale, input file, row count or query) instead of refusing; the output says so")
	fl.StringVar(&format, "format", "text", "output format: text, markdown or json")
	fl.BoolVar(&verdicts, "verdicts", false, "check that NEW (a budgeted run) reaches the verdicts of the reference OLD (a long run of the same build): every pair of a group's members whose intervals are disjoint in OLD keeps its order, and ≥ 95% of the ratios to the limit row lie inside OLD's interval widened by 5%; exit 1 when not")
	fl.Float64Var(&threshold, "threshold", results.NoiseThreshold*100, "regression threshold in percent")
	return cmd
}
