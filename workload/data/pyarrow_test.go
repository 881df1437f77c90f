package data

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/serbench/serbench/codec"
	"github.com/serbench/serbench/filebench"
	"github.com/serbench/serbench/format/dynamic"
	"github.com/serbench/serbench/workload/userdata"
)

// flightsCSV writes n rows shaped like the flights data of issue 26 (the
// nycflights13 columns: small integers, times as hhmm, delays with NA,
// a dozen carriers, a few thousand tail numbers, twenty airports, an
// hourly timestamp) to path, the same rows for the same n.
func flightsCSV(t *testing.T, path string, n int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	r := rand.New(rand.NewPCG(26, 2013))
	carriers := []string{"AA", "AS", "B6", "DL", "EV", "F9", "HA", "MQ", "NK", "OO", "UA", "WN"}
	airports := []string{"ATL", "BOS", "CLT", "DEN", "DFW", "DTW", "EWR", "IAH", "JFK", "LAS", "LAX", "LGA", "MCO", "MIA", "MSP", "ORD", "PHL", "PHX", "SEA", "SFO"}
	tails := make([]string, 4000)
	for i := range tails {
		tails[i] = fmt.Sprintf("N%03d%s", r.IntN(1000), []string{"JB", "UA", "DL", "AA", "WN"}[r.IntN(5)])
	}
	minutes := []int{0, 0, 0, 15, 30, 45, 59, 5, 10}
	na := func(v int) string {
		if r.IntN(100) < 3 {
			return "NA"
		}
		return fmt.Sprint(v)
	}
	fmt.Fprintln(w, "year,month,day,dep_time,sched_dep_time,dep_delay,arr_time,sched_arr_time,arr_delay,carrier,flight,tailnum,origin,dest,air_time,distance,hour,minute,time_hour")
	for range n {
		month, day := 1+r.IntN(12), 1+r.IntN(28)
		hour, minute := 5+r.IntN(18), minutes[r.IntN(len(minutes))]
		sched := hour*100 + minute
		delay := int(r.ExpFloat64()*15) - 8
		airTime := 20 + r.IntN(580)
		schedArr := (sched + airTime/60*100 + airTime%60) % 2400
		arrDelay := delay + r.IntN(31) - 15
		fmt.Fprintf(w, "2013,%d,%d,%s,%d,%s,%s,%d,%s,%s,%d,%s,%s,%s,%s,%d,%d,%d,2013-%02d-%02d %02d:00:00\n",
			month, day, na(sched+delay), sched, na(delay), na(schedArr+arrDelay), schedArr, na(arrDelay),
			carriers[r.IntN(len(carriers))], 1+r.IntN(6000), tails[r.IntN(len(tails))], airports[r.IntN(len(airports))], airports[r.IntN(len(airports))],
			na(airTime), 100+r.IntN(4900), hour, minute, month, day, hour)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// pyarrowFile is what testdata/pyarrow_parquet.py prints.
type pyarrowFile struct {
	Version   string              `json:"pyarrow"`
	Bytes     int64               `json:"bytes"`
	Rows      int64               `json:"rows"`
	RowGroups int                 `json:"row_groups"`
	Encodings map[string][]string `json:"encodings"`
}

// TestParquetSizeVsPyarrow (issue 26: "its smallest Parquet file is within
// 5% of what pyarrow writes with the same codec and level") writes a
// flights-like CSV as parquet-zstd and parquet-snappy, as `run data` does,
// and with pyarrow's write_table at its defaults with the same codec and
// level, and compares the files' sizes. It needs pyarrow, so it runs only
// with SERBENCH_PYARROW naming a Python that has it (e.g. a venv's:
// python3 -m venv /tmp/pa && /tmp/pa/bin/pip install pyarrow==26.0.1;
// SERBENCH_PYARROW=/tmp/pa/bin/python); SERBENCH_PYARROW_CSV names another
// CSV than the generated 100,000 rows.
func TestParquetSizeVsPyarrow(t *testing.T) {
	py := os.Getenv("SERBENCH_PYARROW")
	if py == "" {
		t.Skip("set SERBENCH_PYARROW to a Python with pyarrow to compare Parquet sizes with pyarrow's")
	}
	dir := t.TempDir()
	csv := os.Getenv("SERBENCH_PYARROW_CSV")
	if csv == "" {
		csv = filepath.Join(dir, "flights.csv")
		flightsCSV(t, csv, 100_000)
	}
	d, err := userdata.ReadAll(csv, userdata.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	t.Logf("%s: %d rows in %d batches, schema %s", csv, d.Rows, len(d.Batches), d.Schema)
	for _, tc := range []struct {
		format string
		codec  string
		level  string
		limit  float64 // our file over pyarrow's at most
	}{
		{"parquet-zstd", "zstd", "3", 1.05},
		{"parquet-snappy", "snappy", "", 1.05},
	} {
		var ctor dynamic.Constructor
		for _, e := range dynamic.Constructors() {
			if e.Name == tc.format {
				ctor = e.New
			}
		}
		f, err := ctor(d.Schema, dynamic.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ours := filepath.Join(dir, tc.format+".parquet")
		st, err := filebench.Write(context.Background(), ours, f, codec.Default().MustParse("none"), seq(d.Batches), filebench.Options{})
		if err != nil {
			t.Fatal(err)
		}
		theirs := filepath.Join(dir, "pyarrow-"+tc.codec+".parquet")
		args := []string{filepath.Join("testdata", "pyarrow_parquet.py"), csv, theirs, tc.codec}
		if tc.level != "" {
			args = append(args, tc.level)
		}
		out, err := exec.Command(py, args...).Output()
		if err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				t.Fatalf("%s %s: %v\n%s", py, strings.Join(args, " "), err, ee.Stderr)
			}
			t.Fatal(err)
		}
		var pa pyarrowFile
		if err := json.Unmarshal(out, &pa); err != nil {
			t.Fatalf("pyarrow_parquet.py printed %q: %v", out, err)
		}
		groups, encs := parquetLayout(t, ours)
		ratio := float64(st.FileBytes) / float64(pa.Bytes)
		t.Logf("%s: ours (arrow-go %s) %d bytes, %d row groups; pyarrow %s %s level %q: %d bytes, %d row groups; ours/pyarrow = %.3f",
			tc.format, f.Descriptor().Version, st.FileBytes, groups, pa.Version, tc.codec, tc.level, pa.Bytes, pa.RowGroups, ratio)
		var cols []string
		for c := range encs {
			cols = append(cols, c)
		}
		sort.Strings(cols)
		for _, c := range cols {
			if p := strings.Join(pa.Encodings[c], ","); p != encs[c] {
				t.Logf("  %s: ours %s, pyarrow %s", c, encs[c], p)
			}
		}
		if ratio > tc.limit {
			t.Errorf("%s: %d bytes, %.1f%% larger than pyarrow %s's %d (limit %.0f%%)", tc.format, st.FileBytes, 100*(ratio-1), pa.Version, pa.Bytes, 100*(tc.limit-1))
		}
	}
}

// parquetLayout returns a Parquet file's row groups and each column's
// encodings (as pyarrow names them, sorted, over the row groups).
func parquetLayout(t *testing.T, path string) (int, map[string]string) {
	t.Helper()
	r, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	md := r.MetaData()
	encs := map[string]map[string]bool{}
	for g := range md.NumRowGroups() {
		rg := md.RowGroup(g)
		for c := range rg.NumColumns() {
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			p := cc.PathInSchema().String()
			if encs[p] == nil {
				encs[p] = map[string]bool{}
			}
			for _, e := range cc.Encodings() {
				encs[p][e.String()] = true
			}
		}
	}
	out := map[string]string{}
	for p, set := range encs {
		var names []string
		for e := range set {
			names = append(names, e)
		}
		sort.Strings(names)
		out[p] = strings.Join(names, ",")
	}
	return md.NumRowGroups(), out
}
