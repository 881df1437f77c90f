package pgscan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/serbench/serbench/table"

	"github.com/jackc/pgx/v5"
)

// The generated tables live in a schema of serbench's own, SchemaName, on
// every server: on the throwaway server because it is the same everywhere,
// on a server named by --pg-dsn (the user's) because serbench must not
// read, write or drop anything there that it did not create. There:
//
//   - the schema is created in one transaction with its mark, the comment
//     SchemaMark, and nothing else is created outside it (no extension:
//     pg_prewarm is used when the database has it, else each table is
//     warmed by one full read);
//   - a schema of that name without the mark is the user's: the plan
//     refuses to run and touches nothing; one with the mark was left by a
//     run that did not finish, and is dropped (said so first);
//   - a session-level advisory lock (schemaLockKey), held by one
//     connection for the whole run, keeps two runs on one database from
//     taking each other's schema for a leftover;
//   - before creating anything the plan says on its log what it creates
//     and drops, and the plan's Close drops the schema: its generated
//     tables one by one, then the schema itself, both without CASCADE, so
//     that anything else found in it, or depending on its tables, makes
//     the drop fail and stays as it is.
//
// With --query nothing is created on the --pg-dsn server: serbench runs
// only the query, on connections whose transactions are read-only.

// SchemaName is the schema serbench creates for its generated tables.
const SchemaName = "serbench_pgscan"

// SchemaMark is the comment that marks SchemaName as serbench's own.
const SchemaMark = "serbench pgscan: generated tables; dropped when the run ends"

// schemaLockKey is the advisory lock a run holds while it owns the schema
// on an external server ("serbench" in ASCII).
const schemaLockKey int64 = 0x73657262656e6368

// tablePattern matches the names of the generated tables (a regular
// expression for the server).
const tablePattern = `^performance_test_[0-9]+$`

// dropTimeout bounds the drop of the schema when the plan closes, which
// may run after an interrupt, when the run's context is done.
const dropTimeout = 2 * time.Minute

// pgDSNLog prefixes what the workload tells about the --pg-dsn server.
const pgDSNLog = "serbench: pgscan: --pg-dsn: "

// schemaIdent is SchemaName quoted as an identifier.
func schemaIdent() string { return pgx.Identifier{SchemaName}.Sanitize() }

// ensureSchema creates the schema on the throwaway server (once), and
// pg_prewarm with it; on an external server it only checks that the plan
// claimed the schema, so that no table is ever built outside it.
func (db *database) ensureSchema(ctx context.Context, conn *pgx.Conn) error {
	if db.srv == nil {
		if !db.claimed {
			return fmt.Errorf("pgscan: no schema %s claimed on the --pg-dsn server: serbench builds no table there outside it", SchemaName)
		}
		return nil
	}
	db.schemaOnce.Do(func() {
		for _, s := range []string{
			"CREATE SCHEMA IF NOT EXISTS " + schemaIdent(),
			"COMMENT ON SCHEMA " + schemaIdent() + " IS '" + SchemaMark + "'",
			"CREATE EXTENSION IF NOT EXISTS pg_prewarm",
		} {
			if _, err := conn.Exec(ctx, s); err != nil {
				db.schemaErr = fmt.Errorf("pgscan: throwaway server: %s (pg_prewarm is in PostgreSQL's contrib modules): %w", s, err)
				return
			}
		}
		db.prewarmFn = "pg_prewarm"
	})
	return db.schemaErr
}

// serverInfo is what the messages say about the external server.
type serverInfo struct {
	database, user string
}

// claimSchema makes SchemaName this run's on the external server: it takes
// the advisory lock, refuses a schema of that name serbench did not
// create, drops one an unfinished run left, says on log what it creates
// and drops, and creates the schema with its mark. It records the facts
// in env. The connection holding the lock stays open until close.
func (db *database) claimSchema(ctx context.Context, log io.Writer, sizes []int64, env map[string]string) error {
	conn, err := db.connect(ctx)
	if err != nil {
		return err
	}
	keep := false
	defer func() {
		if !keep {
			// Closing the session releases the advisory lock.
			conn.Close(context.Background())
		}
	}()
	var info serverInfo
	if err := conn.QueryRow(ctx, "SELECT current_database(), current_user").Scan(&info.database, &info.user); err != nil {
		return fmt.Errorf("pgscan: --pg-dsn: database and user: %w", err)
	}
	var locked bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", schemaLockKey).Scan(&locked); err != nil {
		return fmt.Errorf("pgscan: --pg-dsn: advisory lock: %w", err)
	}
	if !locked {
		return fmt.Errorf("pgscan: --pg-dsn: another serbench run is using schema %s in database %q (it holds serbench's advisory lock %d): wait for it to finish, or point --pg-dsn at another database", SchemaName, info.database, schemaLockKey)
	}
	exists, marked, err := schemaState(ctx, conn)
	if err != nil {
		return err
	}
	leftover := ""
	if exists {
		if !marked {
			return fmt.Errorf("pgscan: --pg-dsn: database %q already has a schema %s that serbench did not create (its comment is not serbench's mark %q), and serbench touches nothing it did not create: rename that schema (ALTER SCHEMA %s RENAME TO …) or point --pg-dsn at another database", info.database, SchemaName, SchemaMark, SchemaName)
		}
		tables, err := generatedTables(ctx, conn)
		if err != nil {
			return err
		}
		leftover = fmt.Sprintf("schema %s in database %q carries serbench's mark: a run that did not finish left it behind; dropping it", SchemaName, info.database)
		if len(tables) > 0 {
			leftover += " with its tables " + strings.Join(tables, ", ")
		}
		fmt.Fprintln(log, pgDSNLog+leftover)
		if err := dropSchema(ctx, conn); err != nil {
			return err
		}
	}
	db.prewarmFn, err = prewarmFunction(ctx, conn)
	if err != nil {
		return err
	}
	fmt.Fprintln(log, pgDSNLog+createMessage(info, sizes))
	fmt.Fprintln(log, pgDSNLog+prewarmMessage(info, db.prewarmFn))
	if err := createSchema(ctx, conn); err != nil {
		return err
	}
	db.owner, db.claimed, db.info, keep = conn, true, info, true

	schema := fmt.Sprintf("%s, created by serbench in database %q (user %q) for the generated tables, marked as serbench's by its comment, and dropped with them when the run ends; nothing outside it is created, changed or dropped", SchemaName, info.database, info.user)
	if leftover != "" {
		schema += fmt.Sprintf("; a %s left by an unfinished run was dropped first", SchemaName)
	}
	env["schema"] = schema
	cache := "the server's own shared_buffers (serbench changes no setting there); "
	if db.prewarmFn != "" {
		cache += "every table is loaded with pg_prewarm (already installed in the database) before its first read"
	} else {
		cache += "every table is warmed by one full read (the binary COPY that measures its size) before its first measured read; pg_prewarm not installed on the server and serbench installs no extension there"
	}
	env["table_cache"] = cache
	return nil
}

// createMessage says what serbench creates and drops on the server.
func createMessage(info serverInfo, sizes []int64) string {
	parts := make([]string, len(sizes))
	for i, n := range sizes {
		parts[i] = fmt.Sprintf("%s (%s rows, about %s)", strings.TrimPrefix(tableName(n), SchemaName+"."), table.Compact(float64(n)), table.Bytes(float64(heapBytesPerRow*n)))
	}
	return fmt.Sprintf("serbench will create schema %s in database %q (as user %q) holding the generated tables %s, built when first read, and drop the schema with its tables when the run ends; it creates, changes and drops nothing outside that schema",
		SchemaName, info.database, info.user, strings.Join(parts, ", "))
}

// prewarmMessage says how the tables are warmed: with the server's
// pg_prewarm (fn), or by a read, since serbench installs no extension.
func prewarmMessage(info serverInfo, fn string) string {
	if fn != "" {
		return fmt.Sprintf("pg_prewarm is installed in database %q: serbench uses it (%s) to load each table into shared buffers", info.database, fn)
	}
	return fmt.Sprintf("pg_prewarm is not installed in database %q and serbench installs no extension there: each table is warmed by one full read before it is measured", info.database)
}

// schemaState reports whether SchemaName exists and carries the mark.
func schemaState(ctx context.Context, conn *pgx.Conn) (exists, marked bool, err error) {
	var comment *string
	err = conn.QueryRow(ctx, "SELECT obj_description(oid, 'pg_namespace') FROM pg_namespace WHERE nspname = $1", SchemaName).Scan(&comment)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, false, nil
	}
	if err != nil {
		return false, false, fmt.Errorf("pgscan: --pg-dsn: look for schema %s: %w", SchemaName, err)
	}
	return true, comment != nil && *comment == SchemaMark, nil
}

// generatedTables lists the generated tables in SchemaName.
func generatedTables(ctx context.Context, conn *pgx.Conn) ([]string, error) {
	rows, err := conn.Query(ctx, `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relname ~ $2 ORDER BY c.relname`, SchemaName, tablePattern)
	if err != nil {
		return nil, fmt.Errorf("pgscan: --pg-dsn: tables of schema %s: %w", SchemaName, err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("pgscan: --pg-dsn: tables of schema %s: %w", SchemaName, err)
	}
	return names, nil
}

// createSchema creates SchemaName with its mark, in one transaction: the
// schema never exists without the mark.
func createSchema(ctx context.Context, conn *pgx.Conn) error {
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "CREATE SCHEMA "+schemaIdent()); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "COMMENT ON SCHEMA "+schemaIdent()+" IS '"+SchemaMark+"'")
		return err
	})
	if err != nil {
		return fmt.Errorf("pgscan: --pg-dsn: create schema %s (needs the CREATE privilege on the database): %w", SchemaName, err)
	}
	return nil
}

// dropSchema drops SchemaName, if it carries the mark, in one transaction:
// its generated tables, then the schema, both without CASCADE, so that
// anything else in it or depending on its tables stops the drop.
func dropSchema(ctx context.Context, conn *pgx.Conn) error {
	exists, marked, err := schemaState(ctx, conn)
	if err != nil || !exists {
		return err
	}
	if !marked {
		return fmt.Errorf("pgscan: --pg-dsn: schema %s no longer carries serbench's mark: left as it is", SchemaName)
	}
	tables, err := generatedTables(ctx, conn)
	if err != nil {
		return err
	}
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		for _, t := range tables {
			if _, err := tx.Exec(ctx, "DROP TABLE "+pgx.Identifier{SchemaName, t}.Sanitize()); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, "DROP SCHEMA "+schemaIdent())
		return err
	})
	if err != nil {
		return fmt.Errorf("pgscan: --pg-dsn: drop schema %s: %w; serbench drops only its own tables and an empty schema, and left it as it was: look inside and, if nothing in it is needed, drop it with DROP SCHEMA %s CASCADE", SchemaName, err, SchemaName)
	}
	return nil
}

// prewarmFunction returns the database's pg_prewarm function, qualified
// with the schema its extension is installed in, or "" when the extension
// is not installed.
func prewarmFunction(ctx context.Context, conn *pgx.Conn) (string, error) {
	var schema string
	err := conn.QueryRow(ctx, `SELECT quote_ident(n.nspname) FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
		WHERE e.extname = 'pg_prewarm'`).Scan(&schema)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("pgscan: --pg-dsn: look for pg_prewarm: %w", err)
	}
	return schema + ".pg_prewarm", nil
}

// releaseSchema drops the schema this run claimed on the external server
// (see dropSchema) and ends the session holding the advisory lock. It
// runs when the plan closes, after an interrupt too, so it uses a context
// of its own. It is idempotent.
func (db *database) releaseSchema() error {
	db.mu.Lock()
	owner, claimed := db.owner, db.claimed
	db.owner, db.claimed = nil, false
	db.mu.Unlock()
	if !claimed {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), dropTimeout)
	defer cancel()
	conn := owner
	if conn == nil || conn.IsClosed() || conn.Ping(ctx) != nil {
		// The session that held the lock is gone (the server restarted,
		// or the network dropped it): the schema is still marked.
		if conn != nil {
			conn.Close(ctx)
		}
		var err error
		if conn, err = db.connect(ctx); err != nil {
			return db.redact(fmt.Errorf("pgscan: --pg-dsn: drop schema %s: %w; drop it with DROP SCHEMA %s CASCADE", SchemaName, err, SchemaName))
		}
	}
	defer conn.Close(context.Background())
	// A read interrupted a moment ago may still hold its table.
	if _, err := conn.Exec(ctx, "SET lock_timeout = '60s'"); err != nil {
		return db.redact(fmt.Errorf("pgscan: --pg-dsn: drop schema %s: %w", SchemaName, err))
	}
	if err := dropSchema(ctx, conn); err != nil {
		return db.redact(err)
	}
	fmt.Fprintf(db.logw(), "%sdropped schema %s and its tables from database %q\n", pgDSNLog, SchemaName, db.info.database)
	return nil
}
