package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/serbench/serbench/report"
	"github.com/serbench/serbench/results"
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
			runs, err := readRuns(args)
			if err != nil {
				return err
			}
			if out == "" {
				out = filepath.Dir(args[0])
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return usagef("output directory: %v", err)
			}
			doc, err := report.Build(runs, a.workloads.Sections())
			if err != nil {
				return err
			}
			if err := doc.WriteDir(out); err != nil {
				return err
			}
			if len(runs) == 1 {
				f, err := os.Create(filepath.Join(out, "bench.txt"))
				if err != nil {
					return fmt.Errorf("bench.txt: %w", err)
				}
				if err := results.WriteBenchfmt(f, runs[0]); err != nil {
					f.Close()
					return err
				}
				if err := f.Close(); err != nil {
					return fmt.Errorf("bench.txt: %w", err)
				}
			}
			fmt.Fprintf(a.stdout, "report: %s\n", filepath.Join(out, "report.html"))
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "output directory (default: the first results file's directory)")
	return cmd
}

func readRuns(paths []string) ([]*results.Run, error) {
	var runs []*results.Run
	for _, p := range paths {
		r, err := results.ReadFile(p)
		if err != nil {
			return nil, usageError{err}
		}
		runs = append(runs, r)
	}
	return runs, nil
}

func (a *app) compareCmd() *cobra.Command {
	var failOnRegression bool
	cmd := &cobra.Command{
		Use:   "compare OLD NEW",
		Short: "Compare two results files: deltas with significance, as benchstat prints them",
		Long: "compare matches cases by name and prints, per unit, the old and new medians with their intervals,\n" +
			"the change (or ~ when the samples do not differ significantly: Mann-Whitney U, α = 0.05) and the p-value.\n" +
			"With --fail-on-regression it exits 1 when any case got significantly slower by more than 5%.",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			runs, err := readRuns(args)
			if err != nil {
				return err
			}
			ds := report.Compare(runs[0], runs[1])
			if len(ds) == 0 {
				return usagef("%s and %s have no cases", args[0], args[1])
			}
			reg, err := report.WriteCompare(a.stdout, "old", "new", ds)
			if err != nil {
				return err
			}
			if reg > 0 {
				fmt.Fprintf(a.stdout, "\n%d case(s) significantly slower by more than %.0f%%\n", reg, results.NoiseThreshold*100)
				if failOnRegression {
					return exitError{ExitFailure, fmt.Errorf("%d regression(s)", reg)}
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&failOnRegression, "fail-on-regression", false, "exit 1 when a case is significantly slower by more than 5%")
	return cmd
}
