package replay

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/serbench/serbench/pgserver"
)

// startServer starts a throwaway server, or skips without binaries (fails
// in CI).
func startServer(t *testing.T) *pgserver.Server {
	t.Helper()
	if _, err := pgserver.FindBinaries(""); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	s, err := pgserver.Start(context.Background(), pgserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop() })
	return s
}

const query = "SELECT i, 'name_' || i, i * 1.5::float8 FROM generate_series(1, 5000) i"

// rows runs query in binary format on pg and returns its rows.
func rows(t *testing.T, pg *pgconn.PgConn) [][][]byte {
	t.Helper()
	res := pg.ExecParams(context.Background(), query, nil, nil, nil, []int16{1}).Read()
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	return res.Rows
}

// TestRecordReplay records a query from a real server and replays it: the
// client gets the same rows, again and again with loop.
func TestRecordReplay(t *testing.T) {
	s := startServer(t)
	ctx := context.Background()
	for _, ssl := range []string{"disable", "prefer"} {
		t.Run(ssl, func(t *testing.T) {
			rec, err := Record(s.SocketPath())
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Close()
			dsn := strings.Replace(rec.ConnString(s.Superuser(), "postgres"), "sslmode=disable", "sslmode="+ssl, 1)
			pg, err := pgconn.Connect(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			// The Recorder lets in one session, its owner's: a second
			// connection finds nobody listening.
			if c2, err := pgconn.Connect(ctx, dsn); err == nil {
				_ = c2.Close(ctx)
				t.Fatal("a second connection through the recorder was accepted")
			}
			want := rows(t, pg)
			if len(want) != 5000 {
				t.Fatalf("%d rows", len(want))
			}
			_ = pg.Close(ctx)
			if err := rec.Close(); err != nil {
				t.Fatal(err)
			}
			tr, err := rec.Transcript()
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Responses) != 1 || tr.Size() < 5000*20 {
				t.Fatalf("%d responses, %d bytes", len(tr.Responses), tr.Size())
			}
			// Marshalling round trip.
			b, err := tr.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var tr2 Transcript
			if err := tr2.UnmarshalBinary(b); err != nil || !reflect.DeepEqual(tr, &tr2) {
				t.Fatalf("unmarshal: %v", err)
			}

			for _, loop := range []bool{true, false} {
				srv, err := Serve(&tr2, loop)
				if err != nil {
					t.Fatal(err)
				}
				pg, err := pgconn.Connect(ctx, srv.DSN())
				if err != nil {
					t.Fatal(err)
				}
				if got := rows(t, pg); !reflect.DeepEqual(got, want) {
					t.Fatal("replayed rows differ")
				}
				res := pg.ExecParams(ctx, query, nil, nil, nil, []int16{1}).Read()
				if loop && (res.Err != nil || !reflect.DeepEqual(res.Rows, want)) {
					t.Fatalf("second replay: %v", res.Err)
				}
				if !loop && res.Err == nil {
					t.Fatal("replay without loop answered twice")
				}
				_ = pg.Close(ctx)
				if err := srv.Close(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func TestUnmarshalBad(t *testing.T) {
	for _, b := range []string{"", "PGREPLAY1\n", "PGREPLAY1\n\x00\x00\x00\x05ab", "nope"} {
		var tr Transcript
		if err := tr.UnmarshalBinary([]byte(b)); err == nil {
			t.Errorf("UnmarshalBinary(%q) accepted", b)
		}
	}
}

// FuzzUnmarshal checks that a malformed transcript is an error, not a
// panic.
func FuzzUnmarshal(f *testing.F) {
	f.Add([]byte("PGREPLAY1\n\x00\x00\x00\x01Z"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var tr Transcript
		_ = tr.UnmarshalBinary(b)
	})
}
