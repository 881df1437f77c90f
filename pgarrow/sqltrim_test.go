package pgarrow

import "testing"

func TestTrimStatement(t *testing.T) {
	tests := []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"SELECT 1;", "SELECT 1"},
		{"SELECT 1 ;; \n", "SELECT 1"},
		{"SELECT 1 -- comment", "SELECT 1"},
		{"SELECT 1; -- comment\n", "SELECT 1"},
		{"SELECT 1 /* a /* nested */ comment */;", "SELECT 1"},
		{"SELECT ';' AS x;", "SELECT ';' AS x"},
		{"SELECT '--' AS x -- c", "SELECT '--' AS x"},
		{"SELECT 'it''s' -- c", "SELECT 'it''s'"},
		{`SELECT E'\';' -- c`, `SELECT E'\';'`},
		{`SELECT "a;--" FROM t;`, `SELECT "a;--" FROM t`},
		{"SELECT $$;--$$;", "SELECT $$;--$$"},
		{"SELECT $tag$ $$ ; $tag$ ; -- x", "SELECT $tag$ $$ ; $tag$"},
		{"SELECT $1::int;", "SELECT $1::int"},
		{"SELECT 1; SELECT 2;", "SELECT 1; SELECT 2"},
		{"SELECT 'unterminated", "SELECT 'unterminated"},
		{"SELECT 1 /* unterminated", "SELECT 1 /* unterminated"},
		{"", ""},
		{"-- only a comment", ""},
	}
	for _, tt := range tests {
		if got := trimStatement(tt.in); got != tt.want {
			t.Errorf("trimStatement(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzTrimStatement checks that trimming never panics and only removes a
// suffix.
func FuzzTrimStatement(f *testing.F) {
	for _, s := range []string{"SELECT 1;", "SELECT $a$x$a$ -- c", "SELECT E'\\'' /* */"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := trimStatement(s)
		if len(got) > len(s) || s[:len(got)] != got {
			t.Fatalf("trimStatement(%q) = %q, not a prefix", s, got)
		}
	})
}
