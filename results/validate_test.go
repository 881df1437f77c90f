package results

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// validEnv is an environment line of the current schema.
const validEnv = `{"kind":"env","schema":5,"cpu":"x","cores":2,"gomaxprocs":2,"count":3,"start":"2026-01-02T03:04:05Z"}`

// caseLine returns a case line of status ok whose only sample is sample
// (a JSON object), and extra fields of the case (`"k":v,` each).
func caseLine(extra, sample string) string {
	return `{"kind":"case","workload":"f","name":"F","labels":[{"k":"subject","v":"x"}],"status":"ok",` + extra +
		`"samples":[{"iters":10,"ns_op":100,"b_op":0,"allocs_op":0},{"iters":10,"ns_op":101,"b_op":0,"allocs_op":0},` + sample + `]}`
}

// TestReadRefusesImpossibleValues: a line that parses but whose values
// cannot be true is refused with the file and line, as malformed lines are.
func TestReadRefusesImpossibleValues(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{
		// The environment's schema: a missing field is version 1, but a
		// field that is there must be a version.
		{"schema null", `{"kind":"env","schema":null}`, "v.jsonl:1: bad environment line: schema is null"},
		{"schema null spaced", `{"kind":"env", "schema" :  null }`, "v.jsonl:1: bad environment line: schema is null"},
		{"schema null after a version", `{"kind":"env","schema":2,"schema":null}`, "v.jsonl:1: bad environment line: schema is null"},
		{"schema null in capitals", `{"kind":"env","Schema":null}`, "v.jsonl:1: bad environment line: schema is null"},
		{"schema zero", `{"kind":"env","schema":0}`, "v.jsonl:1: bad environment line: schema 0 is not a version"},
		{"schema negative", `{"kind":"env","schema":-1}`, "v.jsonl:1: bad environment line: schema -1 is not a version"},
		{"schema string", `{"kind":"env","schema":"2"}`, "v.jsonl:1: bad environment line:"},
		{"schema fraction", `{"kind":"env","schema":1.5}`, "v.jsonl:1: bad environment line:"},
		{"schema with an exponent", `{"kind":"env","schema":4.0e0}`, "v.jsonl:1: bad environment line:"},
		{"schema too new", `{"kind":"env","schema":6}`, "v.jsonl:1: results schema 6 is newer"},
		{"negative count", `{"kind":"env","schema":4,"count":-3}`, "v.jsonl:1: bad environment line: count -3 is negative"},
		{"negative cores", `{"kind":"env","cores":-1}`, "v.jsonl:1: bad environment line: cores -1 is negative"},
		{"negative gomaxprocs", `{"kind":"env","gomaxprocs":-2}`, "v.jsonl:1: bad environment line: gomaxprocs -2 is negative"},
		{"negative benchtime", `{"kind":"env","benchtime_ns":-1}`, "v.jsonl:1: bad environment line: benchtime_ns -1 is negative"},
		{"shard not K/N", `{"kind":"env","run_id":"r","shard":"2"}`, `v.jsonl:1: bad environment line: shard "2" is not K/N with 1 ≤ K ≤ N`},
		{"shard K past N", `{"kind":"env","run_id":"r","shard":"3/2"}`, `shard "3/2" is not K/N`},
		{"shard K zero", `{"kind":"env","run_id":"r","shard":"0/2"}`, `shard "0/2" is not K/N`},
		{"shard auto", `{"kind":"env","run_id":"r","shard":"auto/2"}`, `shard "auto/2" is not K/N`},
		{"shard past int", `{"kind":"env","run_id":"r","shard":"1/99999999999999999999"}`, `shard "1/99999999999999999999" is not K/N`},

		// A sample's ns/op.
		{"ns/op negative", validEnv + "\n" + caseLine("", `{"iters":10,"ns_op":-5}`),
			"v.jsonl:2: bad case line: case F/subject=x: sample 3 ns/op -5 is not positive"},
		{"ns/op zero", validEnv + "\n" + caseLine("", `{"iters":10,"ns_op":0}`), "v.jsonl:2: bad case line: case F/subject=x: sample 3 ns/op 0 is not positive"},
		{"ns/op missing", validEnv + "\n" + caseLine("", `{"iters":10}`), "v.jsonl:2: bad case line: case F/subject=x: sample 3 ns/op 0 is not positive"},
		{"ns/op absurd", validEnv + "\n" + caseLine("", `{"iters":1,"ns_op":1e308}`), "v.jsonl:2: bad case line: case F/subject=x: sample 3 ns/op 1e+308 is more than any sample can take"},
		{"ns/op just past the bound", validEnv + "\n" + caseLine("", `{"iters":1,"ns_op":1.000001e15}`), "sample 3 ns/op 1.000001e+15 is more than any sample can take"},
		{"batch longer than any sample", validEnv + "\n" + caseLine("", `{"iters":1000000,"ns_op":2e12}`),
			"v.jsonl:2: bad case line: case F/subject=x: sample 3 takes 1000000 iters × 2e+12 ns/op = 2e+18 ns, more than any sample can take"},
		{"batch shorter than the clock", validEnv + "\n" + caseLine("", `{"iters":1000,"ns_op":1e-6}`),
			"sample 3 takes 1000 iters × 1e-06 ns/op = 0.001 ns, less than the clock's 1 ns"},
		{"ns/op denormal", validEnv + "\n" + caseLine("", `{"iters":1,"ns_op":5e-324}`), "less than the clock's 1 ns"},
		{"ns/op out of float range", validEnv + "\n" + caseLine("", `{"iters":1,"ns_op":1e309}`), "v.jsonl:2: bad case line: json: cannot unmarshal number 1e309"},
		{"ns/op NaN string", validEnv + "\n" + caseLine("", `{"iters":1,"ns_op":"NaN"}`), "v.jsonl:2: bad case line: json: cannot unmarshal string"},
		{"ns/op NaN bare", validEnv + "\n" + caseLine("", `{"iters":1,"ns_op":NaN}`), "v.jsonl:2: not a serbench results file: invalid character 'N'"},
		{"ns/op null", validEnv + "\n" + caseLine("", `{"iters":10,"ns_op":null}`), "sample 3 ns/op 0 is not positive"},

		// Iterations, B/op, allocs/op, ratios, rounds, forks.
		{"iters zero", validEnv + "\n" + caseLine("", `{"iters":0,"ns_op":100}`), "v.jsonl:2: bad case line: case F/subject=x: sample 3 iters 0 is not positive"},
		{"iters negative", validEnv + "\n" + caseLine("", `{"iters":-7,"ns_op":100}`), "sample 3 iters -7 is not positive"},
		{"iters missing", validEnv + "\n" + caseLine("", `{"ns_op":100}`), "sample 3 iters 0 is not positive"},
		{"B/op negative", validEnv + "\n" + caseLine("", `{"iters":10,"ns_op":100,"b_op":-1}`), "sample 3 B/op -1 is negative"},
		{"allocs/op negative", validEnv + "\n" + caseLine("", `{"iters":10,"ns_op":100,"allocs_op":-0.5}`), "sample 3 allocs/op -0.5 is negative"},
		{"B/op past the runtime's counter", validEnv + "\n" + caseLine("", `{"iters":10,"ns_op":100,"b_op":1e300}`), "sample 3 B/op 1e+300 × 10 iters is more than the Go runtime counts"},
		{"allocs/op past the runtime's counter", validEnv + "\n" + caseLine("", `{"iters":1000,"ns_op":100,"allocs_op":1e17}`), "sample 3 allocs/op 1e+17 × 1000 iters is more than"},
		{"vs_baseline negative", validEnv + "\n" + caseLine("", `{"iters":10,"ns_op":100,"vs_baseline":-2}`), "sample 3 vs_baseline -2 is negative"},
		{"vs_limit negative", validEnv + "\n" + caseLine("", `{"iters":10,"ns_op":100,"vs_limit":-0.1}`), "sample 3 vs_limit -0.1 is negative"},
		{"round negative", validEnv + "\n" + caseLine("", `{"iters":10,"ns_op":100,"round":-1}`), "sample 3 round -1 is negative"},
		{"fork negative", validEnv + "\n" + caseLine("", `{"iters":10,"ns_op":100,"fork":-1}`), "sample 3 fork -1 is negative"},

		// Metrics.
		{"sample metric without unit", validEnv + "\n" + caseLine("", `{"iters":10,"ns_op":100,"metrics":{"":3}}`), `sample 3 metric "" has no unit`},
		{"sample metric named ns/op", validEnv + "\n" + caseLine("", `{"iters":10,"ns_op":100,"metrics":{"ns/op":3}}`), "sample 3 metric ns/op is a unit the sample carries itself"},
		{"sample metric named x-limit", validEnv + "\n" + caseLine("", `{"iters":10,"ns_op":100,"metrics":{"x-limit":3}}`), "sample 3 metric x-limit is a unit the sample carries itself"},
		{"case metric without unit", validEnv + "\n" + caseLine(`"metrics":{" ":1},`, `{"iters":10,"ns_op":100}`), `bad case line: case F/subject=x: metric " " has no unit`},
		{"bytes_per_op negative", validEnv + "\n" + caseLine(`"bytes_per_op":-400,`, `{"iters":10,"ns_op":100}`), "bad case line: case F/subject=x: bytes_per_op -400 is negative"},
		{"elapsed negative", validEnv + "\n" + caseLine(`"elapsed_ns":-1,`, `{"iters":10,"ns_op":100}`), "bad case line: case F/subject=x: elapsed_ns -1 is negative"},

		// A failed case's samples, if it carries any, are checked too.
		{"failed case with a bad sample", validEnv + "\n" + `{"kind":"case","workload":"f","name":"F","status":"failed","samples":[{"iters":1,"ns_op":-1}]}`,
			"v.jsonl:2: bad case line: case F: sample 1 ns/op -1 is not positive"},

		// Probes and the end line.
		{"probe ns absurd", validEnv + "\n" + `{"kind":"probe","ns":1e20}`, "v.jsonl:2: bad probe line: ns 1e+20 is more than any timing can take"},
		{"probe mem_ns absurd", validEnv + "\n" + `{"kind":"probe","ns":1000,"mem_ns":1e16}`, "v.jsonl:2: bad probe line: mem_ns 1e+16 is more than"},
		{"probe fork negative", validEnv + "\n" + `{"kind":"probe","ns":1000,"fork":-1}`, "v.jsonl:2: bad probe line: fork -1 is negative"},
		{"end planned negative", validEnv + "\n" + `{"kind":"end","planned":-1,"done":0}`, "v.jsonl:2: bad end line: planned -1 is negative"},
		{"end done negative", validEnv + "\n" + `{"kind":"end","planned":1,"done":-1}`, "v.jsonl:2: bad end line: done -1 is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// With and without the last newline: a line that is JSON is
			// not "cut short", it is wrong. (One that is not JSON, last
			// and without its newline, is taken for a cut line.)
			inputs := []string{tt.input + "\n"}
			lines := strings.Split(tt.input, "\n")
			if json.Valid([]byte(lines[len(lines)-1])) {
				inputs = append(inputs, tt.input)
			}
			for _, input := range inputs {
				run, err := Read(strings.NewReader(input), "v.jsonl")
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.want)
				}
				if run != nil {
					t.Errorf("a refused file returned a run")
				}
			}
		})
	}
}

// TestReadCutLastLineIsNotJSON: only a last line that is not JSON is
// taken for one cut short; a last line that is JSON but wrong is refused.
func TestReadCutLastLineIsNotJSON(t *testing.T) {
	cut := validEnv + "\n" + `{"kind":"case","workload":"f","name":"F","status":"ok","samples":[{"iters":1,"ns_op":-`
	r, err := Read(strings.NewReader(cut), "v.jsonl")
	if err != nil || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "v.jsonl:2: last line cut short") {
		t.Fatalf("cut line: err %v, run %+v", err, r)
	}
	_, err = Read(strings.NewReader(cut+"5}]}"), "v.jsonl")
	if err == nil || !strings.Contains(err.Error(), "v.jsonl:2: bad case line: case F: sample 1 ns/op -5 is not positive") {
		t.Fatalf("complete last line without newline: err %v", err)
	}
}

// TestReadAcceptsPossibleValues: the shapes of real files stay readable,
// including the edges of the bounds.
func TestReadAcceptsPossibleValues(t *testing.T) {
	tests := []struct {
		name, input string
		schema      int
		check       func(t *testing.T, r *Run)
	}{
		{"no schema field is version 1", `{"kind":"env","cpu":"x"}`, 1, nil},
		{"every version this build reads", `{"kind":"env","schema":1}`, 1, nil},
		{"version 2", `{"kind":"env","schema":2}`, 2, nil},
		{"version 3", `{"kind":"env","schema":3}`, 3, nil},
		{"the current version", `{"kind":"env","schema":5}`, SchemaVersion, nil},
		{"version 4", `{"kind":"env","schema":4}`, 4, nil},
		{"a shard", `{"kind":"env","schema":5,"run_id":"r","shard":"2/3"}`, SchemaVersion, nil},
		{"a schema field in capitals", `{"kind":"env","SCHEMA":3}`, 3, nil},
		{"a sample at the upper bound", validEnv + "\n" + caseLine("", `{"iters":1,"ns_op":1e15}`), SchemaVersion, func(t *testing.T, r *Run) {
			if s, _ := r.Cases[0].Stat(UnitNsPerOp); s.N != 3 {
				t.Errorf("ns/op summary %+v", s)
			}
		}},
		{"a sub-nanosecond op in a long batch", validEnv + "\n" + caseLine("", `{"iters":1000000000,"ns_op":0.25}`), SchemaVersion, nil},
		{"one iteration of 1 ns", validEnv + "\n" + caseLine("", `{"iters":1,"ns_op":1}`), SchemaVersion, nil},
		{"zero B/op and allocs/op, no ratios", validEnv + "\n" + caseLine("", `{"iters":10,"ns_op":100,"b_op":0,"allocs_op":0,"vs_baseline":0,"vs_limit":0}`), SchemaVersion, nil},
		{"fractional allocs/op, ratios, rounds and forks", validEnv + "\n" + caseLine(`"bytes_per_op":400,"elapsed_ns":0,`, `{"iters":10,"ns_op":100,"b_op":12.5,"allocs_op":0.1,"vs_baseline":0.5,"vs_limit":30,"round":3,"fork":2}`), SchemaVersion, nil},
		{"negative and zero custom metrics", validEnv + "\n" + caseLine(`"metrics":{"serialized-B":409,"delta":-3},`, `{"iters":10,"ns_op":100,"metrics":{"pipeline/bare":-0.5,"peak-heap-B":0}}`), SchemaVersion, func(t *testing.T, r *Run) {
			if v, ok := r.Cases[0].Median("delta"); !ok || v != -3 {
				t.Errorf("delta = %v, %v", v, ok)
			}
		}},
		{"failed and skipped cases have no samples", validEnv + "\n" + `{"kind":"case","workload":"f","name":"F","status":"failed","error":"x"}` + "\n" +
			`{"kind":"case","workload":"f","name":"G","status":"skipped","error":"y"}`, SchemaVersion, nil},
		{"probes without memory time, an end line", validEnv + "\n" + `{"kind":"probe","ns":812000}` + "\n" + `{"kind":"probe","ns":812000,"mem_ns":0,"fork":1}` + "\n" +
			`{"kind":"end","planned":0,"done":0}`, SchemaVersion, nil},
		{"an old file: no schema, a v1 case", `{"kind":"env","cpu":"x"}` + "\n" + `{"kind":"case","workload":"f","name":"F","labels":[{"k":"format","v":"x"}],"status":"ok","notes":["limit row"],"samples":[{"iters":3,"ns_op":7}]}`, 1,
			func(t *testing.T, r *Run) {
				if c := r.Cases[0]; c.Labels.Get("subject") != "x" || c.Role != RoleLimit {
					t.Errorf("not migrated: %+v", c)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Read(strings.NewReader(tt.input+"\n"), "v.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			if r.Env.Schema != tt.schema {
				t.Errorf("schema %d, want %d", r.Env.Schema, tt.schema)
			}
			if tt.check != nil {
				tt.check(t, r)
			}
		})
	}
}

// TestWriteCaseRefusesImpossibleValues: the writer refuses what the reader
// would refuse, so that a run never writes a file it cannot read back.
func TestWriteCaseRefusesImpossibleValues(t *testing.T) {
	ok := Sample{Iters: 10, NsPerOp: 100}
	tests := []struct {
		name string
		s    Sample
		want string
	}{
		{"negative", Sample{Iters: 10, NsPerOp: -5}, "results: case F: sample 2 ns/op -5 is not positive"},
		{"NaN", Sample{Iters: 10, NsPerOp: math.NaN()}, "sample 2 ns/op NaN is not a number"},
		{"+Inf", Sample{Iters: 10, NsPerOp: math.Inf(1)}, "sample 2 ns/op +Inf is not a number"},
		{"B/op NaN", Sample{Iters: 10, NsPerOp: 100, BytesPerOp: math.NaN()}, "sample 2 B/op NaN is not a number"},
		{"allocs/op -Inf", Sample{Iters: 10, NsPerOp: 100, AllocsPerOp: math.Inf(-1)}, "sample 2 allocs/op -Inf is not a number"},
		{"vs_limit NaN", Sample{Iters: 10, NsPerOp: 100, VsLimit: math.NaN()}, "sample 2 vs_limit NaN is not a number"},
		{"metric Inf", Sample{Iters: 10, NsPerOp: 100, Metrics: map[string]float64{"peak-heap-B": math.Inf(1)}}, "sample 2 metric peak-heap-B +Inf is not a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := NewWriter(&buf)
			err := w.WriteCase(Case{Workload: "f", Name: "F", Status: StatusOK, Samples: []Sample{ok, tt.s}})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
			if buf.Len() != 0 {
				t.Errorf("wrote %q", buf.String())
			}
		})
	}
}
