package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/codec"
	"github.com/serbench/serbench/run"
	"github.com/serbench/serbench/workload"
)

func (a *app) listCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List workloads, their subjects, and the scales",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "WORKLOAD\tDESCRIPTION")
			for _, w := range a.workloads {
				fmt.Fprintf(tw, "%s\t%s\n", w.Name(), w.Description())
			}
			tw.Flush()
			fmt.Fprintln(a.stdout)
			for _, w := range a.workloads {
				fmt.Fprintf(a.stdout, "%s subjects: %s\n", w.Name(), strings.Join(w.Subjects(), ", "))
			}
			fmt.Fprintf(a.stdout, "\ncodecs (NAME or NAME:LEVEL): ")
			var cs []string
			for _, name := range codec.Default().Names() {
				c, err := codec.Default().Parse(name)
				if err != nil {
					return err
				}
				if lib := c.Info().Library; lib != "" && !strings.HasPrefix(lib, "(") {
					cs = append(cs, c.Info().Name+" ("+lib+")")
				} else {
					cs = append(cs, c.Info().Name)
				}
			}
			fmt.Fprintln(a.stdout, strings.Join(cs, ", "))
			var scales []string
			for _, s := range workload.Scales() {
				scales = append(scales, string(s))
			}
			fmt.Fprintf(a.stdout, "\nscales: %s (default: default)\n", strings.Join(scales, ", "))
			// What each scale measures, its cases and their estimated
			// time at the default --count and --benchtime.
			perScale := map[workload.Scale]map[string]run.Planned{}
			for _, sc := range workload.Scales() {
				planned, err := run.DryRun(cmd.Context(), run.Options{Workloads: a.workloads, Scale: sc, Count: defaultCount, Benchtime: defaultBenchtime})
				if err != nil {
					return err
				}
				perScale[sc] = map[string]run.Planned{}
				for _, p := range planned {
					perScale[sc][p.Workload] = p
				}
			}
			tw = tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "WORKLOAD\t"+strings.ToUpper(strings.Join(scales, "\t")))
			for _, w := range a.workloads {
				row := []string{w.Name()}
				for _, sc := range workload.Scales() {
					cell := ""
					if s, ok := w.(workload.Scaler); ok {
						cell = s.ScaleInfo(sc) + ": "
					}
					if p := perScale[sc][w.Name()]; p.Err == nil {
						cell += fmt.Sprintf("%s, ~%s", plural(len(p.Cases), "case"), roundEstimate(p.Estimate))
					}
					row = append(row, cell)
				}
				fmt.Fprintln(tw, strings.Join(row, "\t"))
			}
			tw.Flush()
			return nil
		},
	}
}

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the serbench version, revision and Go version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(a.stdout, "serbench %s\n", versionLine())
			return nil
		},
	}
}

// versionLine is "0.1.0-dev (abc123 (modified)) go1.26 linux/amd64": the
// revision from the build's VCS stamp, the module version when installed
// with go install, or the checkout's git HEAD.
func versionLine() string {
	e := bench.CollectEnv("", 0, nil)
	rev := e.Revision
	if rev == "" {
		rev = "unknown revision"
	}
	if e.Modified {
		rev += " (modified)"
	}
	return fmt.Sprintf("%s (%s) %s %s/%s", e.Version, rev, e.GoVersion, e.GOOS, e.GOARCH)
}
