package cli

import (
	"slices"

	"github.com/spf13/pflag"

	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/pgscan"
)

// queryFlags are the pgscan workload's --query and --rows.
type queryFlags struct {
	sql  string
	rows int64
}

func addQueryFlags(fl *pflag.FlagSet, f *queryFlags) {
	fl.StringVar(&f.sql, "query", "", "pgscan workload: read the result of this query with every method instead of the generated table (with --pg-dsn, on that server; without, on the throwaway server, which holds the tables performance_test_<rows>)")
	fl.Int64Var(&f.rows, "rows", 0, "pgscan workload: read at most N rows of --query (SELECT * FROM (query) LIMIT N)")
}

// configurePgscan checks --query and --rows and replaces the pgscan
// workload with one that reads the query. They apply to pgscan only, named
// on the command line.
func (a *app) configurePgscan(names []string, f queryFlags) error {
	if f.sql == "" && f.rows == 0 {
		return nil
	}
	if !slices.Contains(names, pgscan.Name) {
		return usagef("--query and --rows apply to the pgscan workload: name it (serbench run pgscan --query 'SELECT …')")
	}
	q := pgscan.Query{SQL: f.sql, Rows: f.rows}
	if err := pgscan.CheckQuery(q); err != nil {
		return &workload.UsageError{Err: err}
	}
	ws := make(workload.Set, len(a.workloads))
	for i, w := range a.workloads {
		if w.Name() == pgscan.Name {
			w = pgscan.NewWith(q)
		}
		ws[i] = w
	}
	a.workloads = ws
	return nil
}
