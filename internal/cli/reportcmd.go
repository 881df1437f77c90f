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
		format, metricFlag                                                    string
		threshold                                                             float64
	)
	cmd := &cobra.Command{
		Use:   "compare OLD NEW [OLD2 NEW2 ...]",
		Short: "Compare two results files: deltas with significance, as benchstat prints them",
		Long: "compare matches cases by name and prints, per unit, the old and new medians with their intervals,\n" +
			"the change (or ~ when the samples do not differ significantly: Mann-Whitney U, α = 0.05), the p-value\n" +
			"and a geomean row.\n\n" +
			"Too few samples: with n1 and n2 samples a side the smallest p-value the test can give is 2/C(n1+n2, n1)\n" +
			"(0.33 for 2 against 2, 0.1 for 3 against 3); below 4 samples a side no change can be significant at\n" +
			"α = 0.05. Such rows say \"too few samples to tell\" instead of ~, the summary counts them and says\n" +
			"what --count would do.\n\n" +
			"A row counts as changed (printed under every comparison) when\n" +
			"  1. its samples differ significantly (Mann-Whitney U, α = 0.05; by process where both runs forked),\n" +
			"  2. its median moved by at least --threshold (default 5%), and\n" +
			"  3. the gap between its old and new intervals exceeds the run-to-run noise floor beyond the common shift:\n" +
			"     the floor is 3 × the robust spread (1.4826 × MAD) of the log changes of all time rows of the same\n" +
			"     workload and subject (of the workload, or of all rows, where there are fewer than 10), and the shift\n" +
			"     their median change. Two runs of one build differ from process to process by more than a test of\n" +
			"     one process's samples can see; the floor is what this pair of runs shows that difference to be.\n\n" +
			"The gate (--fail-on-regression exits 1) fails on\n" +
			"  - a subject's operation slower as a whole: the median change of its time rows (6 or more; limit rows\n" +
			"    left out) beyond the machine's shift is at least --threshold and 3 standard errors of that median,\n" +
			"    and a sign test of its rows is significant (α = 0.05) — a change to a library moves all its rows;\n" +
			"  - a row that counts as changed and slower in every pair, given two pairs or more:\n" +
			"    serbench compare OLD NEW OLD2 NEW2 (run old, new, old, new: interleaved, as a shared machine needs).\n" +
			"One row slower in one pair is \"suspected\" and listed, not failed: on a shared machine one row of a run\n" +
			"moves by more than the run's other rows predict (docs/method.md gives the A/A figures).\n" +
			"Rows whose medians slowed past the floor but whose samples are too few to tell (\"cannot tell: too few\n" +
			"samples\") are listed and counted on stderr; --fail-on-unjudged makes them fail the gate too: a gate that\n" +
			"cannot see does not pass.\n\n" +
			"Different data: compare refuses (exit 2) two runs that measured different data — another --scale, or\n" +
			"for the same workload another input file, row or column count, or query, as each run recorded them\n" +
			"in its environment — unless --allow-different-inputs is given; then it compares and says so.",
		Args: func(cmd *cobra.Command, args []string) error {
			if verdicts {
				if len(args) != 2 && len(args) != 3 {
					return usagef("--verdicts takes REF RUN [REF2], got %d files", len(args))
				}
				return nil
			}
			if len(args) < 2 || len(args)%2 != 0 {
				return usagef("compare takes pairs of results files, OLD NEW [OLD2 NEW2 ...], got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "markdown" && format != "json" {
				return usagef("unknown --format %q (valid: text, markdown, json)", format)
			}
			if threshold <= 0 || threshold >= 100 {
				return usagef("--threshold must be a percentage between 0 and 100, got %g", threshold)
			}
			metric, err := run.ParseMetric(metricFlag)
			if err != nil {
				return &workload.UsageError{Err: err}
			}
			runs, err := a.readRuns(args)
			if err != nil {
				return err
			}
			if metric.Instructions && !anyCounted(runs) {
				return usagef("--metric instructions: no case of %s has instruction counts (serbench run --metric instructions makes them)", strings.Join(args, ", "))
			}
			if verdicts {
				unit := results.UnitNsPerOp
				if metric.Instructions && !metric.Time {
					unit = results.UnitInstructions
				}
				v := report.CheckVerdictsBy(runs[0], runs[1], unit)
				if v.Pairs+v.Ratios == 0 {
					return usagef("%s and %s share no comparison group with %s: nothing to check", args[0], args[1], unit)
				}
				if err := v.WriteText(a.stdout); err != nil {
					return err
				}
				if len(runs) == 3 {
					// How two references of this host agree is what a run
					// can be asked to reach here.
					base := report.CheckVerdictsBy(runs[0], runs[2], unit)
					if err := report.WriteVerdictsBaseline(a.stdout, v, base); err != nil {
						return err
					}
				}
				if !v.Held() {
					return exitError{ExitFailure, errors.New("the verdicts of " + args[1] + " differ from the reference " + args[0])}
				}
				return nil
			}
			var cmps []*report.Comparison
			for i := 0; i < len(runs); i += 2 {
				cmp := report.NewComparison(args[i], args[i+1], runs[i], runs[i+1], report.CompareOptions{Normalize: normalize, Threshold: threshold / 100,
					Instructions: metric.Instructions, OnlyInstructions: metric.Instructions && !metric.Time})
				if cmp.Shared() == 0 {
					if cmp.Inputs != "" {
						return usagef("%s and %s share no measured case: nothing to compare (%s)", args[i], args[i+1], cmp.Inputs)
					}
					return usagef("%s and %s share no measured case: nothing to compare (are they runs of the same workloads and scale?)", args[i], args[i+1])
				}
				if cmp.Inputs != "" {
					if !allowDifferent {
						return usagef("%s: these runs measured different data; pass --allow-different-inputs to compare them anyway", cmp.Inputs)
					}
					fmt.Fprintf(a.stderr, "serbench: warning: %s: these runs measured different data; compared anyway (--allow-different-inputs)\n", cmp.Inputs)
				}
				cmps = append(cmps, cmp)
			}
			gate := report.NewGate(cmps)
			cmp := cmps[0]
			switch format {
			case "markdown":
				err = cmp.WriteMarkdown(a.stdout)
			case "json":
				err = report.WriteGateJSON(a.stdout, cmps, gate)
			default:
				err = cmp.WriteText(a.stdout)
			}
			if err != nil {
				return err
			}
			blind := cmp.CannotTells()
			if format != "json" {
				for _, c := range cmps[1:] {
					changed, compared := c.Changes()
					fmt.Fprintf(a.stdout, "\n%s → %s: %d of %d rows changed.\n", c.OldName, c.NewName, changed, compared)
				}
				if err := gate.WriteText(a.stdout, threshold/100); err != nil {
					return err
				}
			}
			if format == "text" && len(blind) > 0 {
				fmt.Fprintf(a.stdout, "\n%d case(s) slower by more than %g%% and past the noise floor by their medians, with too few samples to tell whether that is a change:\n", len(blind), threshold)
				for _, d := range blind {
					fmt.Fprintf(a.stdout, "  %s  %s %s\n", d.Name, table.SignedPct(d.Change), d.Unit)
				}
			}
			if tf := cmp.TooFewNote(); tf != "" {
				fmt.Fprintf(a.stderr, "serbench: warning: %s\n", tf)
			}
			if n := len(gate.Suspected); n > 0 {
				fmt.Fprintf(a.stderr, "serbench: warning: %d row(s) suspected slower, not confirmed by another pair of runs: they do not fail the gate (compare OLD NEW OLD2 NEW2 confirms)\n", n)
			}
			if !failOnRegression {
				return nil
			}
			var why []string
			if n := len(gate.Shifts); n > 0 {
				why = append(why, fmt.Sprintf("%d subject operation(s) slower as a whole past %g%% (first: %s %s)", n, threshold, gate.Shifts[0].Stratum, table.SignedPct(gate.Shifts[0].Change)))
			}
			if n := len(gate.Rows); n > 0 {
				why = append(why, fmt.Sprintf("%d row(s) slower past %g%% in every pair (first: %s)", n, threshold, gate.Rows[0].Case))
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
	fl.BoolVar(&failOnRegression, "fail-on-regression", false, "exit 1 when a subject's operation is slower as a whole, or a row slower past its noise floor in every pair of runs given (the rule above)")
	fl.BoolVar(&failOnUnjudged, "fail-on-unjudged", false, "with --fail-on-regression, also exit 1 when a case slowed past the noise floor by its medians with too few samples to tell (\"cannot tell: too few samples\")")
	fl.BoolVar(&allowDifferent, "allow-different-inputs", false, "compare runs that measured different data (another --scale, input file, row count or query) instead of refusing; the output says so")
	fl.StringVar(&format, "format", "text", "output format: text, markdown or json")
	fl.BoolVar(&verdicts, "verdicts", false, "check that NEW (a budgeted run) reaches the verdicts of the reference OLD (a long run of the same build): every pair of a group's members whose intervals are disjoint in OLD keeps its order, and ≥ 95% of the ratios to the limit row lie inside OLD's interval widened by 5%; exit 1 when not. A third file REF2 (a second reference) says how two references of this host agree, and the run relative to that. With --metric instructions, by instruction counts")
	fl.Float64Var(&threshold, "threshold", results.NoiseThreshold*100, "regression threshold in percent")
	fl.StringVar(&metricFlag, "metric", "time", "what to compare and gate on: time; instructions (the cases' instruction counts from run --metric instructions: a row changes when the two runs' counts do not overlap and the medians differ by 1.5% or more, and one pair of runs is enough for the gate); or time,instructions")
	return cmd
}

// anyCounted reports whether any case of runs has instruction counts.
func anyCounted(runs []*results.Run) bool {
	for _, r := range runs {
		for i := range r.Cases {
			if r.Cases[i].Counted() {
				return true
			}
		}
	}
	return false
}
