package results

import (
	"net/url"
	"regexp"
	"strings"
)

// Redacted replaces a secret in recorded text.
const Redacted = "xxxxx"

var (
	// scheme://user:password@host — any URL with a password.
	urlPassword = regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^:/@\s]*:)([^@\s]*)(@)`)
	// key=value connection strings: password=..., password='...'.
	kvPassword = regexp.MustCompile(`(?i)(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&]*)`)
)

// Redact hides passwords in s: the password of any URL
// ("postgres://u:secret@h/db" → "postgres://u:xxxxx@h/db"), the value of a
// password keyword ("password=secret", "password='a b'") and a password
// query parameter. Results, reports and command lines pass through it
// before they are written, because people share them.
func Redact(s string) string {
	s = urlPassword.ReplaceAllString(s, "${1}"+Redacted+"${3}")
	s = kvPassword.ReplaceAllString(s, "${1}"+Redacted)
	return s
}

// RedactArgs returns args with Redact applied to each.
func RedactArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = Redact(a)
	}
	return out
}

// DSNPassword returns the password a PostgreSQL connection string carries
// (URL or keyword form), or "" when it has none: callers use it to check
// that no output contains it.
func DSNPassword(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		if p, ok := u.User.Password(); ok {
			return p
		}
		if p := u.Query().Get("password"); p != "" {
			return p
		}
	}
	if m := kvPassword.FindStringSubmatch(dsn); m != nil {
		return strings.Trim(m[2], "'")
	}
	return ""
}
