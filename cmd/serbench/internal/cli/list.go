package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/codec"
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
			tw = tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "WORKLOAD\t"+strings.ToUpper(strings.Join(scales, "\t")))
			for _, w := range a.workloads {
				sc, ok := w.(workload.Scaler)
				if !ok {
					continue
				}
				row := []string{w.Name()}
				for _, s := range workload.Scales() {
					row = append(row, sc.ScaleInfo(s))
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
			e := bench.CollectEnv("", 0, nil)
			rev := e.Revision
			if rev == "" {
				rev = "unknown revision"
			}
			if e.Modified {
				rev += " (modified)"
			}
			fmt.Fprintf(a.stdout, "serbench %s (%s) %s %s/%s\n", e.Version, rev, e.GoVersion, e.GOOS, e.GOARCH)
			return nil
		},
	}
}
