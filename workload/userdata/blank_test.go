package userdata

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBlankLinesStopEarly (issue 26): a JSON Lines input of nothing but
// newlines — 10 GB of them took 3 minutes to be told "no JSON object in
// the first 0 lines" — is refused after a million blank lines in a row,
// with --skip-bad too; blank lines between objects are still skipped.
func TestBlankLinesStopEarly(t *testing.T) {
	dir := t.TempDir()
	blank := filepath.Join(dir, "blank.jsonl")
	if err := os.WriteFile(blank, bytes.Repeat([]byte("\n"), 3*maxBlankRun), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, skip := range []bool{false, true} {
		t0 := time.Now()
		r, err := Open(blank, Options{SkipBad: skip})
		if err == nil {
			r.Close()
			t.Fatalf("skip-bad %v: a file of blank lines was accepted", skip)
		}
		if want := "1,000,000 blank lines in a row (lines 1 to 1,000,000): not JSON Lines"; !strings.Contains(err.Error(), want) {
			t.Errorf("skip-bad %v: %v, want %q", skip, err, want)
		}
		if d := time.Since(t0); d > 10*time.Second {
			t.Errorf("skip-bad %v: %v to refuse", skip, d)
		}
	}
	sparse := filepath.Join(dir, "sparse.jsonl")
	body := "{\"a\":1}\n" + strings.Repeat("\n", 1000) + "{\"a\":2}\n\n"
	if err := os.WriteFile(sparse, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(sparse, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rows := int64(0)
	for r.Next() {
		rows += r.RecordBatch().NumRows()
	}
	if err := r.Err(); err != nil || rows != 2 {
		t.Errorf("sparse: %d rows, %v", rows, err)
	}
}
