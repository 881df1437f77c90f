package pgscan

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/serbench/serbench/runner"
)

// isolatePGEnv clears the PG* variables pgx reads and points the password
// file at one that does not exist, so that the machine's set-up does not
// leak into a test.
func isolatePGEnv(t *testing.T) {
	t.Helper()
	for _, k := range []string{"PGHOST", "PGPORT", "PGUSER", "PGDATABASE", "PGPASSWORD", "PGSSLMODE", "PGSSLROOTCERT",
		"PGSSLCERT", "PGSSLKEY", "PGSERVICE", "PGSERVICEFILE", "PGAPPNAME", "PGCONNECT_TIMEOUT", "PGTARGETSESSIONATTRS", "PGSSLNEGOTIATION"} {
		t.Setenv(k, "") // restored when the test ends
		os.Unsetenv(k)  // unset, not empty: libpq takes PGSERVICE="" for a service
	}
	t.Setenv("PGPASSFILE", filepath.Join(t.TempDir(), "no-such-pgpass"))
}

// peerOpts is the URL parameter of the peers' session settings.
const peerOpts = "options=--synchronize_seqscans%3Doff"

// TestPeerURL checks the URL the Python peers get: every form of
// connection string and source of the password pgx accepts becomes one
// postgres:// URL that carries the password (ConnectorX reads neither
// PGPASSWORD nor a password file, nor a keyword string), escaped so that
// it reads back the same, with the workload's session settings as options.
func TestPeerURL(t *testing.T) {
	const special = `p@ss:w/rd?#%& 'x" é`
	tests := []struct {
		name    string
		dsn     string
		env     map[string]string
		pgpass  string
		want    string
		wantPwd string
	}{
		{name: "keyword", dsn: "host=db.example port=5433 user=alice password=s3cret dbname=bench sslmode=require",
			want: "postgres://alice:s3cret@db.example:5433/bench?" + peerOpts + "&sslmode=require", wantPwd: "s3cret"},
		{name: "url", dsn: "postgres://alice:s3cret@db.example/bench?sslmode=disable",
			want: "postgres://alice:s3cret@db.example:5432/bench?" + peerOpts + "&sslmode=disable", wantPwd: "s3cret"},
		{name: "url default sslmode", dsn: "postgresql://alice:s3cret@db.example/bench",
			want: "postgres://alice:s3cret@db.example:5432/bench?" + peerOpts + "&sslmode=prefer", wantPwd: "s3cret"},
		{name: "sslmode from PGSSLMODE", dsn: "postgres://alice:s3cret@db.example/bench", env: map[string]string{"PGSSLMODE": "require"},
			want: "postgres://alice:s3cret@db.example:5432/bench?" + peerOpts + "&sslmode=require", wantPwd: "s3cret"},
		{name: "password from PGPASSWORD", dsn: "postgres://alice@db.example/bench?sslmode=disable", env: map[string]string{"PGPASSWORD": "from-env"},
			want: "postgres://alice:from-env@db.example:5432/bench?" + peerOpts + "&sslmode=disable", wantPwd: "from-env"},
		{name: "password from PGPASSWORD, keyword", dsn: "host=db.example user=alice dbname=bench sslmode=disable", env: map[string]string{"PGPASSWORD": "from-env"},
			want: "postgres://alice:from-env@db.example:5432/bench?" + peerOpts + "&sslmode=disable", wantPwd: "from-env"},
		{name: "password from PGPASSFILE", dsn: "host=db.example user=alice dbname=bench sslmode=disable",
			pgpass: "other.example:5432:bench:alice:wrong\ndb.example:5432:bench:alice:from-file\n",
			want:   "postgres://alice:from-file@db.example:5432/bench?" + peerOpts + "&sslmode=disable", wantPwd: "from-file"},
		{name: "special characters, keyword", dsn: `host=db.example user=alice dbname=bench sslmode=disable password='p@ss:w/rd?#%& \'x" é'`,
			want: "postgres://alice:p%40ss%3Aw%2Frd%3F%23%25%26%20%27x%22%20%C3%A9@db.example:5432/bench?" + peerOpts + "&sslmode=disable", wantPwd: special},
		{name: "special characters, PGPASSWORD", dsn: "postgres://alice@db.example/bench?sslmode=disable", env: map[string]string{"PGPASSWORD": special},
			want: "postgres://alice:p%40ss%3Aw%2Frd%3F%23%25%26%20%27x%22%20%C3%A9@db.example:5432/bench?" + peerOpts + "&sslmode=disable", wantPwd: special},
		{name: "unix socket", dsn: "host=/var/run/postgresql user=alice dbname=bench",
			want: "postgres://alice@%2Fvar%2Frun%2Fpostgresql:5432/bench?" + peerOpts},
		{name: "unix socket, url", dsn: "postgres://alice:s3cret@/bench?host=/tmp/pg&port=5499",
			want: "postgres://alice:s3cret@%2Ftmp%2Fpg:5499/bench?" + peerOpts, wantPwd: "s3cret"},
		{name: "sslmode allow", dsn: "postgres://alice:s3cret@db.example/bench?sslmode=allow",
			want: "postgres://alice:s3cret@db.example:5432/bench?" + peerOpts + "&sslmode=disable", wantPwd: "s3cret"},
		{name: "ipv6", dsn: "postgres://alice:s3cret@[::1]:5433/bench?sslmode=disable",
			want: "postgres://alice:s3cret@[::1]:5433/bench?" + peerOpts + "&sslmode=disable", wantPwd: "s3cret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			isolatePGEnv(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			if tt.pgpass != "" {
				f := filepath.Join(t.TempDir(), "pgpass")
				if err := os.WriteFile(f, []byte(tt.pgpass), 0o600); err != nil {
					t.Fatal(err)
				}
				t.Setenv("PGPASSFILE", f)
			}
			got, err := peerURL(tt.dsn)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("peerURL(%q)\n got %s\nwant %s", tt.dsn, got, tt.want)
			}
			// The URL reads back (as libpq's rules do, which pgx follows)
			// to the same connection, without the environment's help. (A
			// socket directory as the URL's host is libpq's and
			// ConnectorX's form, which Go's URL parser rejects: it reads
			// back from the query's host parameter, libpq's other form.)
			want, err := pgx.ParseConfig(tt.dsn)
			if err != nil {
				t.Fatal(err)
			}
			isolatePGEnv(t)
			read := got
			if isSocket(want.Host) {
				read = "postgres://" + got[len("postgres://"):strings.Index(got, "@")+1] + "/" + want.Database +
					"?host=" + url.QueryEscape(want.Host) + "&port=" + strconv.Itoa(int(want.Port))
			}
			back, err := pgx.ParseConfig(read)
			if err != nil {
				t.Fatalf("the URL does not parse: %v", err)
			}
			if back.User != want.User || back.Password != tt.wantPwd || back.Host != want.Host || back.Port != want.Port || back.Database != want.Database {
				t.Errorf("read back as user %q password %q host %q port %d database %q; want %q %q %q %d %q",
					back.User, back.Password, back.Host, back.Port, back.Database, want.User, tt.wantPwd, want.Host, want.Port, want.Database)
			}
			if !isSocket(want.Host) && back.RuntimeParams["options"] != peerOptions {
				t.Errorf("options read back %q, want %q", back.RuntimeParams["options"], peerOptions)
			}
			if sslMode(&back.Config) != sslMode(&want.Config) {
				t.Errorf("sslmode read back %q, want %q", sslMode(&back.Config), sslMode(&want.Config))
			}
			// No form of the password survives redaction.
			if tt.wantPwd != "" {
				db := &database{password: tt.wantPwd}
				msg := db.redact(errors.New("connect to " + got + " failed")).Error()
				for _, f := range passwordForms(tt.wantPwd) {
					if strings.Contains(msg, f) {
						t.Errorf("redacted %q still carries %q", msg, f)
					}
				}
			}
		})
	}
	isolatePGEnv(t)
	if _, err := peerURL("postgres://alice:" + secretPassword + "@db.example:notaport/bench"); err == nil || strings.Contains(err.Error(), secretPassword) {
		t.Errorf("bad connection string: err %v; want an error without the password", err)
	}
}

// TestSSLFiles checks that the certificate files a connection string names
// (or the environment, failing that) reach the peers.
func TestSSLFiles(t *testing.T) {
	isolatePGEnv(t)
	for _, dsn := range []string{
		"postgres://alice@db.example/bench?sslmode=verify-full&sslrootcert=/etc/ca.pem&sslcert=/c.pem",
		`host=db.example sslmode=verify-full sslrootcert='/etc/ca.pem' sslcert = /c.pem`,
	} {
		got := sslFiles(dsn)
		if got["sslrootcert"] != "/etc/ca.pem" || got["sslcert"] != "/c.pem" || got["sslkey"] != "" {
			t.Errorf("sslFiles(%q) = %v", dsn, got)
		}
	}
	t.Setenv("PGSSLROOTCERT", "/env/ca.pem")
	if got := sslFiles("host=db.example"); got["sslrootcert"] != "/env/ca.pem" {
		t.Errorf("PGSSLROOTCERT: %v", got)
	}
	kv := keywordSettings(`a=1 b = 'two words' c='it\'s' d=x\ y`)
	if kv["a"] != "1" || kv["b"] != "two words" || kv["c"] != "it's" || kv["d"] != "x y" {
		t.Errorf("keywordSettings: %v", kv)
	}
}

// TestPeerPython: the Python peers run in the Python runner's interpreter
// when the run has that runner, else in python3 from PATH ("").
func TestPeerPython(t *testing.T) {
	py := &runner.Runner{Name: "python", Command: []string{"/cache/python-1/venv/bin/python", "-m", "serbench_runner"}}
	jvm := &runner.Runner{Name: "jvm", Command: []string{"java", "-jar", "r.jar"}}
	for _, tc := range []struct {
		name  string
		ready []runner.Ready
		want  string
	}{
		{"none", nil, ""},
		{"jvm only", []runner.Ready{{Runner: jvm}}, ""},
		{"python", []runner.Ready{{Runner: jvm}, {Runner: py}}, "/cache/python-1/venv/bin/python"},
	} {
		if got := peerPython(tc.ready); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
