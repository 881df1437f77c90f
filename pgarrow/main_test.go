package pgarrow_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/serbench/serbench/pgserver"
)

// server is the throwaway PostgreSQL server shared by the tests, or nil
// when the binaries are missing (see needServer).
var (
	server    *pgserver.Server
	serverErr error
)

func TestMain(m *testing.M) {
	if _, err := pgserver.FindBinaries(""); err == nil {
		server, serverErr = pgserver.Start(context.Background(), pgserver.Options{})
	} else {
		serverErr = err
	}
	code := m.Run()
	if server != nil {
		if err := server.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	os.Exit(code)
}

// needServer returns the shared server. It skips the test when the
// PostgreSQL binaries are missing, unless CI=true, where that fails.
func needServer(tb testing.TB) *pgserver.Server {
	tb.Helper()
	if server == nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("CI=true and no PostgreSQL server: %v", serverErr)
		}
		tb.Skipf("skipping: no PostgreSQL server: %v", serverErr)
	}
	return server
}

// connect opens a connection to the shared server, closed at test end.
func connect(tb testing.TB) *pgx.Conn {
	tb.Helper()
	s := needServer(tb)
	conn, err := s.Connect(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

// pgxConnectDefault connects with pgx's default configuration, whose
// context handling only closes the connection on cancellation.
func pgxConnectDefault(ctx context.Context, s *pgserver.Server) (*pgx.Conn, error) {
	return pgx.Connect(ctx, s.DSN())
}
