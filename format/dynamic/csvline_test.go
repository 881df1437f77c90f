package dynamic

import (
	"bufio"
	"io"
	"strings"
	"testing"
)

// TestCSVLine checks the record splitter's fast path (a line without a
// quote) and its cell-by-cell path (quotes, quoted newlines, errors).
func TestCSVLine(t *testing.T) {
	long := strings.Repeat("x", 200_000)
	for _, tc := range []struct {
		in      string
		want    [][]string // records' cells
		quoted  [][]bool
		wantErr string
	}{
		{in: "a,b,c\n,2,\n", want: [][]string{{"a", "b", "c"}, {"", "2", ""}}},
		{in: "\"a,b\",\"x\"\"y\",z\n", want: [][]string{{"a,b", "x\"y", "z"}}, quoted: [][]bool{{true, true, false}}},
		{in: "\"multi\nline\",2\n3,4\n", want: [][]string{{"multi\nline", "2"}, {"3", "4"}}},
		{in: long + "," + long + "\n", want: [][]string{{long, long}}},
		{in: "\"" + long + "\"\n", want: [][]string{{long}}},
		{in: "a\r,b\n", want: [][]string{{"a\r", "b"}}},
		{in: "a,b", wantErr: "without final newline"},
		{in: "\"a,b\n", wantErr: "not closed"},
		{in: "a\"b,c\n", wantErr: "quote inside"},
		{in: "\"a\"b,c\n", wantErr: "after a quoted cell"},
	} {
		l := &csvLine{r: bufio.NewReaderSize(strings.NewReader(tc.in), 64<<10)}
		var got [][]string
		var err error
		for {
			if err = l.read(); err != nil {
				break
			}
			var rec []string
			for i, c := range l.cells {
				rec = append(rec, string(c))
				if tc.quoted != nil && l.quoted[i] != tc.quoted[len(got)][i] {
					t.Errorf("%.40q: record %d cell %d quoted %v", tc.in, len(got), i, l.quoted[i])
				}
			}
			got = append(got, rec)
		}
		if tc.wantErr != "" {
			if err == nil || err == io.EOF || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%.40q: err %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != io.EOF {
			t.Errorf("%.40q: err %v", tc.in, err)
		}
		if len(got) != len(tc.want) {
			t.Errorf("%.40q: %d records, want %d", tc.in, len(got), len(tc.want))
			continue
		}
		for i := range got {
			if strings.Join(got[i], "|") != strings.Join(tc.want[i], "|") {
				t.Errorf("%.40q: record %d = %.60q, want %.60q", tc.in, i, got[i], tc.want[i])
			}
		}
	}
}
