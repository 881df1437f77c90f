package pgscan

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/serbench/serbench/pgarrow"
	"github.com/serbench/serbench/pgserver/replay"
)

// The replay is the client-only ceiling: the server's answer to one read
// of a table, recorded once through a proxy (pgserver/replay's Recorder)
// and played back in a loop by an in-process fake server on loopback at
// memory speed, so that a method's time is its own decoding and protocol
// handling, with no backend competing for the CPU.

// Replay kinds: the message sequences the methods send. pgx scan and the
// raw loop send the same one, so they share a transcript.
const (
	replaySelect = "select"
	replayCopy   = "copy"
	replayPgx    = "pgx"
)

// replayKind returns the transcript method m reads.
func replayKind(m string) string {
	switch m {
	case MethodSelect:
		return replaySelect
	case MethodCopy:
		return replayCopy
	default:
		return replayPgx
	}
}

// replayBytesPerRow bounds a recorded answer's size per row (a DataRow of
// the table is about 60 bytes); three transcripts are held per table.
const replayBytesPerRow = 64

// replayFits reports whether the transcripts of a table of n rows fit in a
// third of the memory available now (avail bytes, 0 if unknown).
func replayFits(n, avail int64) bool {
	return avail == 0 || 3*replayBytesPerRow*n <= avail/3
}

// replayState is the replay servers of one table size, one per kind, and
// how many cases hold them: the last to let go closes them, freeing the
// recordings (about 60 bytes a row each).
type replayState struct {
	err     error
	servers map[string]*replay.Server
	users   int
}

// replayConfig returns the pgx configuration a replayed session (and its
// recording) uses: the statement described on every read
// (QueryExecModeDescribeExec), as pgarrow does, so that every read sends
// the same messages and a looped transcript answers each of them. pgx's
// default caches the prepared statement after the first read, whose
// answer then differs from the later ones'. It makes the session settings
// (sessionSettings) of every other connection, so that the recorded
// answer is the rows the other methods read.
func replayConfig(dsn string) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("pgscan: replay: parse connection string: %w", err)
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeDescribeExec
	for k, v := range sessionSettings {
		cfg.RuntimeParams[k] = v
	}
	return cfg, nil
}

// replayServer returns the replay server of kind for the table of n rows,
// recording the transcripts of that table on first use. It needs the
// throwaway server: recording passes authentication through, and only a
// trust-authenticated server can be replayed.
func (db *database) replayServer(ctx context.Context, n int64, kind string) (*replay.Server, error) {
	if db.srv == nil {
		return nil, fmt.Errorf("pgscan: the replay needs the throwaway server (trust authentication), not --pg-dsn")
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.replays == nil {
		db.replays = map[int64]*replayState{}
	}
	st, ok := db.replays[n]
	if !ok {
		st = &replayState{servers: map[string]*replay.Server{}}
		db.replays[n] = st
		for _, k := range []string{replaySelect, replayCopy, replayPgx} {
			srv, err := db.record(ctx, n, k)
			if err != nil {
				st.err = err
				break
			}
			st.servers[k] = srv
		}
	}
	if st.err != nil {
		return nil, st.err
	}
	st.users++
	return st.servers[kind], nil
}

// releaseReplay lets go of the replay servers of the table of n rows that
// replayServer returned; the last user closes them.
func (db *database) releaseReplay(n int64) {
	db.mu.Lock()
	defer db.mu.Unlock()
	st, ok := db.replays[n]
	if !ok {
		return
	}
	if st.users--; st.users > 0 {
		return
	}
	for _, srv := range st.servers {
		_ = srv.Close()
	}
	delete(db.replays, n)
}

// record reads the table of n rows once the way kind does, through a
// recording proxy, and serves the recorded answer in a loop.
func (db *database) record(ctx context.Context, n int64, kind string) (*replay.Server, error) {
	// Recorded over the server's private unix socket, which needs no
	// password: a password exchange (SCRAM, over TCP) differs on every
	// connection and could not be replayed.
	rec, err := replay.Record(db.srv.SocketPath())
	if err != nil {
		return nil, fmt.Errorf("pgscan: replay: %w", err)
	}
	defer rec.Close()
	cfg, err := replayConfig(rec.ConnString(db.srv.Superuser(), "postgres"))
	if err != nil {
		return nil, err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgscan: replay: connect through the recorder: %w", err)
	}
	s := &Session{conn: conn, rows: n, sql: selectSQL(n), q: db.query}
	if s.pa, err = pgarrow.NewConn(conn.PgConn(), pgarrow.Options{}); err != nil {
		conn.Close(ctx)
		return nil, fmt.Errorf("pgscan: replay: %w", err)
	}
	run := runRaw
	switch kind {
	case replaySelect:
		run = runSelect
	case replayCopy:
		run = runCopy
	}
	if db.query != nil {
		s.sql = db.query.sql
		name := map[string]string{replaySelect: MethodSelect, replayCopy: MethodCopy, replayPgx: MethodRaw}[kind]
		run = queryRun(method{name: name})
	}
	got, err := run(ctx, s, false)
	conn.Close(ctx)
	if err != nil {
		return nil, fmt.Errorf("pgscan: replay: record %s: %w", kind, err)
	}
	if got != n {
		return nil, fmt.Errorf("pgscan: replay: record %s: %d rows, want %d", kind, got, n)
	}
	if err := rec.Close(); err != nil {
		return nil, fmt.Errorf("pgscan: replay: %w", err)
	}
	t, err := rec.Transcript()
	if err != nil {
		return nil, fmt.Errorf("pgscan: replay: %w", err)
	}
	srv, err := replay.Serve(t, true)
	if err != nil {
		return nil, fmt.Errorf("pgscan: replay: %w", err)
	}
	return srv, nil
}

// closeReplays stops the replay servers.
func (db *database) closeReplays() {
	db.mu.Lock()
	defer db.mu.Unlock()
	for _, st := range db.replays {
		for _, srv := range st.servers {
			_ = srv.Close()
		}
	}
	db.replays = nil
}
