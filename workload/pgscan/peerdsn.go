package pgscan

import (
	"fmt"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The Python peers get the connection as one postgres:// URL, on stdin
// only (adbc.go): a URL because ConnectorX reads no other form (a keyword
// connection string fails in it with "not enough values to unpack"), and
// with the password in it because ConnectorX reads neither PGPASSWORD nor
// a password file ("password missing"). The URL is built from the
// connection string as pgx resolves it — keyword or URL form, with
// PGPASSWORD, PGPASSFILE or ~/.pgpass and the other PG* variables applied
// — so that the password can stay out of serbench's own command line.

// peerURL resolves dsn as pgx does and returns it as a postgres:// URL:
// user, password, host, port, database and sslmode, a unix-socket
// directory percent-encoded as the host, the client certificate files
// (sslrootcert, sslcert, sslkey) the connection string or the environment
// names, and the workload's session settings as options (peerOptions).
// Only the first host is kept.
func peerURL(dsn string) (string, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return "", fmt.Errorf("pgscan: python peers: parse the connection string: %w", err)
	}
	return configURL(&cfg.Config, sslFiles(dsn)), nil
}

// configURL renders a parsed configuration as a postgres:// URL, every
// part percent-encoded but the unreserved characters, which every URL
// parser (libpq's, Rust's url and tokio-postgres') reads back the same.
func configURL(cfg *pgconn.Config, extra map[string]string) string {
	var b strings.Builder
	b.WriteString("postgres://")
	b.WriteString(escapeAll(cfg.User))
	if cfg.Password != "" {
		b.WriteString(":" + escapeAll(cfg.Password))
	}
	b.WriteString("@")
	// The session settings every connection of the workload makes
	// (sessionSettings), which libpq and ConnectorX send to the server.
	q := map[string]string{"options": peerOptions}
	port := strconv.Itoa(int(cfg.Port))
	if isSocket(cfg.Host) {
		// A socket directory percent-encoded as the host, which libpq
		// and ConnectorX read as a socket (ConnectorX rejects an empty
		// host with the directory in the query, libpq's other form);
		// no TLS over a socket.
		b.WriteString(escapeAll(cfg.Host) + ":" + port)
	} else {
		host := cfg.Host
		if strings.Contains(host, ":") {
			host = "[" + host + "]" // IPv6
		} else {
			host = escapeAll(host)
		}
		b.WriteString(host + ":" + port)
		q["sslmode"] = sslMode(cfg)
		for k, v := range extra {
			q[k] = v
		}
	}
	b.WriteString("/" + escapeAll(cfg.Database))
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		sep := "&"
		if i == 0 {
			sep = "?"
		}
		b.WriteString(sep + k + "=" + escapeAll(q[k]))
	}
	return b.String()
}

// isSocket reports whether host is a unix-socket directory.
func isSocket(host string) bool {
	network, _ := pgconn.NetworkAddress(host, 5432)
	return network == "unix"
}

// sslMode recovers the sslmode pgx resolved (from the connection string
// or PGSSLMODE) from the TLS configurations it made: allow and prefer are
// a main configuration and a fallback to the same host, one without TLS
// and one with; verify-ca verifies the chain itself; verify-full lets Go
// verify the host name too. ConnectorX rejects allow ("invalid value for
// option sslmode"): it becomes disable, which connects as allow does
// first, without TLS (prefer would give the peers TLS where pgx has
// none), and fails plainly on a server that demands TLS.
func sslMode(cfg *pgconn.Config) string {
	var fallbackTLS, fallbackPlain bool
	for _, f := range cfg.Fallbacks {
		if f.Host != cfg.Host || f.Port != cfg.Port {
			continue
		}
		if f.TLSConfig != nil {
			fallbackTLS = true
		} else {
			fallbackPlain = true
		}
	}
	t := cfg.TLSConfig
	switch {
	case t == nil && fallbackTLS:
		return "disable" // allow
	case t == nil:
		return "disable"
	case fallbackPlain:
		return "prefer"
	case !t.InsecureSkipVerify:
		return "verify-full"
	case t.VerifyPeerCertificate != nil:
		return "verify-ca"
	default:
		return "require"
	}
}

// sslFiles returns the certificate files the connection string names
// (URL query or keyword form), else those of PGSSLROOTCERT, PGSSLCERT and
// PGSSLKEY, as pgx reads them.
func sslFiles(dsn string) map[string]string {
	var settings map[string]string
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		settings = map[string]string{}
		if u, err := url.Parse(dsn); err == nil {
			for k, v := range u.Query() {
				if len(v) > 0 {
					settings[k] = v[len(v)-1]
				}
			}
		}
	} else {
		settings = keywordSettings(dsn)
	}
	out := map[string]string{}
	for k, env := range map[string]string{"sslrootcert": "PGSSLROOTCERT", "sslcert": "PGSSLCERT", "sslkey": "PGSSLKEY"} {
		if v := settings[k]; v != "" {
			out[k] = v
		} else if v := os.Getenv(env); v != "" {
			out[k] = v
		}
	}
	return out
}

// keywordSettings parses a keyword/value connection string (key = value,
// values single-quoted or not, with backslash escapes), as libpq does.
func keywordSettings(s string) map[string]string {
	out := map[string]string{}
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' }
	for {
		s = strings.TrimLeft(s, " \t\n\r\f\v")
		eq := strings.IndexByte(s, '=')
		if eq < 0 {
			return out
		}
		key := strings.TrimSpace(s[:eq])
		s = strings.TrimLeft(s[eq+1:], " \t\n\r\f\v")
		var v strings.Builder
		quoted := strings.HasPrefix(s, "'")
		if quoted {
			s = s[1:]
		}
		for len(s) > 0 {
			c := s[0]
			if quoted && c == '\'' {
				s = s[1:]
				break
			}
			if !quoted && isSpace(c) {
				break
			}
			if c == '\\' && len(s) > 1 {
				s = s[1:]
				c = s[0]
			}
			v.WriteByte(c)
			s = s[1:]
		}
		out[key] = v.String()
	}
}

// escapeAll percent-encodes every byte of s but the unreserved characters
// of RFC 3986 (letters, digits, '-', '.', '_', '~').
func escapeAll(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '.', c == '_', c == '~':
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// passwordForms returns the forms a password may take in a driver's
// error: as is, and percent-encoded as in the peers' URL or by Go's url
// package, longest first (so that replacing one does not break another);
// none for an empty password.
func passwordForms(pw string) []string {
	if pw == "" {
		return nil
	}
	out := []string{pw}
	for _, f := range []string{escapeAll(pw), url.QueryEscape(pw), url.PathEscape(pw), url.UserPassword("u", pw).String()[2:]} {
		dup := false
		for _, o := range out {
			dup = dup || o == f
		}
		if !dup {
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}
