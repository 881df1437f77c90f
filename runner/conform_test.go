package runner

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/serbench/serbench/digest"
)

// conformRunner is the fake runner Conform drives (SERBENCH_FAKE_RUNNER
// conform-MODE): it follows the protocol ("conform-ok") or breaks it one
// way: a decode that gets row 37 wrong, a crash, a garbled line, a hang.
func conformRunner(mode string, args []string) int {
	out := bufio.NewWriter(os.Stdout)
	emit := func(v any) {
		b, _ := json.Marshal(v)
		out.Write(append(b, '\n'))
		out.Flush()
	}
	emit(map[string]any{"type": "hello", "protocol": Protocol, "runner": "fake", "language": "fake", "runtime": "fake", "runtime_version": "1", "alloc": "none",
		"subjects": []map[string]any{{"name": "plain", "format": "arrow", "library": "fake", "version": "1", "ops": []string{"encode", "decode"}, "codecs": []string{"none"}}}})
	if len(args) == 0 || args[0] == "hello" {
		emit(map[string]any{"type": "end"})
		return 0
	}
	work := os.Getenv("SERBENCH_WORK")
	f, err := os.Open(filepath.Join(work, "cases.jsonl"))
	if err != nil {
		return 1
	}
	defer f.Close()
	var cases []Case
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c Case
		if json.Unmarshal(sc.Bytes(), &c) == nil {
			cases = append(cases, c)
		}
	}
	switch mode {
	case "hang":
		time.Sleep(time.Hour)
	case "garbage":
		fmt.Println("Exception in thread main")
		return 1
	case "crash":
		os.Exit(134)
	}
	for _, c := range cases {
		if c.Op != OpEncode && c.Op != OpDecode && c.Op != OpCopy {
			emit(map[string]any{"type": "error", "case": c.ID, "phase": "setup", "message": "unknown op " + c.Op})
			continue
		}
		var d any
		if c.Op != OpCopy {
			r, err := digestWrongRow(filepath.Join(work, "datasets", c.Dataset, "data.arrows"), mode == "wrong-row" && c.Op == OpDecode)
			if err != nil {
				emit(map[string]any{"type": "error", "case": c.ID, "phase": "verify", "message": err.Error()})
				continue
			}
			d = r
		}
		emit(map[string]any{"type": "verify", "case": c.ID, "ok": true, "encoded_bytes": 100, "digest": d})
		for i := range max(c.MinCount, 1) {
			emit(map[string]any{"type": "sample", "case": c.ID, "round": i + 1, "order": 0, "iters": 10, "ns_per_op": 100, "bytes_per_op": 100})
		}
	}
	emit(map[string]any{"type": "end"})
	return 0
}

// digestWrongRow digests the Arrow stream at path, with the first
// column's value of row 37 (when there is one) one more when wrong.
func digestWrongRow(path string, wrong bool) (digest.Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return digest.Result{}, err
	}
	defer f.Close()
	r, err := ipc.NewReader(f)
	if err != nil {
		return digest.Result{}, err
	}
	defer r.Release()
	d, err := digest.New(r.Schema())
	if err != nil {
		return digest.Result{}, err
	}
	row := 0
	for r.Next() {
		rec := r.RecordBatch()
		n := int(rec.NumRows())
		if wrong && row <= 37 && 37 < row+n {
			ids := rec.Column(0).(*array.Int64)
			b := array.NewInt64Builder(memory.DefaultAllocator)
			for i := range n {
				v := ids.Value(i)
				if row+i == 37 {
					v++
				}
				b.Append(v)
			}
			cols := append([]arrow.Array{b.NewArray()}, rec.Columns()[1:]...)
			rec = array.NewRecordBatch(rec.Schema(), cols, int64(n))
		}
		if err := d.Write(rec); err != nil {
			return digest.Result{}, err
		}
		row += n
	}
	return d.Sum()
}

// TestConform: runner check passes a runner that follows the protocol and
// names, for each way of breaking it, the problem in one line — a wrong
// digest with its first differing column and row.
func TestConform(t *testing.T) {
	ds, rec := testData(t)
	defer rec.Release()
	for _, tc := range []struct {
		mode string
		want []string // each in some problem's line; none: it conforms
	}{
		{"ok", nil},
		{"wrong-row", []string{"check/plain/decode/none: wrong digest", `column "id"`, "first differing row: 37 (0-based, of 100)"}},
		{"crash", []string{"runner crashed"}},
		{"garbage", []string{"not a protocol line"}},
		{"hang", []string{"wrote nothing for 1s and was stopped (a hang)"}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			// Only the hang waits out the silence; the others get room
			// for a loaded machine and the race detector.
			silence := 10 * time.Second
			if tc.mode == "hang" {
				silence = time.Second
			}
			r := &Runner{Name: "fake", Command: []string{os.Args[0]}, Env: []string{"SERBENCH_FAKE_RUNNER=conform-" + tc.mode}, Silence: silence}
			h, probs, err := Conform(context.Background(), r, t.TempDir(), ds)
			if err != nil {
				t.Fatal(err)
			}
			if h == nil {
				t.Fatal("no hello")
			}
			var lines []string
			for _, p := range probs {
				if !p.Refused {
					lines = append(lines, p.String())
				}
			}
			all := strings.Join(lines, "\n")
			if len(tc.want) == 0 && len(lines) > 0 {
				t.Errorf("a conforming runner has problems:\n%s", all)
			}
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("problems lack %q:\n%s", w, all)
				}
			}
		})
	}
}
