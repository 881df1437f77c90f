package pgarrow

import "strings"

// trimStatement removes what follows the last token of sql other than a
// semicolon: trailing semicolons, whitespace and comments, so that sql can
// be wrapped in COPY (…). It follows PostgreSQL's lexical rules for
// strings ('…', E'…' with backslash escapes), quoted identifiers, dollar
// quoting and nested block comments. Malformed input is returned unchanged
// for the server to report.
func trimStatement(sql string) string {
	end := 0 // end of the last significant token other than ';'
	i := 0
	for i < len(sql) {
		ch := sql[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v':
			i++
		case ch == ';':
			i++
		case ch == '-' && i+1 < len(sql) && sql[i+1] == '-':
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				i = len(sql)
			} else {
				i += j + 1
			}
		case ch == '/' && i+1 < len(sql) && sql[i+1] == '*':
			depth := 1
			i += 2
			for depth > 0 {
				if i+1 >= len(sql) {
					return sql // unterminated comment
				}
				switch {
				case sql[i] == '/' && sql[i+1] == '*':
					depth++
					i += 2
				case sql[i] == '*' && sql[i+1] == '/':
					depth--
					i += 2
				default:
					i++
				}
			}
		case ch == '\'':
			escapes := i > 0 && (sql[i-1] == 'E' || sql[i-1] == 'e') && (i < 2 || !isIdentChar(sql[i-2]))
			j, ok := skipQuoted(sql, i, '\'', escapes)
			if !ok {
				return sql
			}
			i, end = j, j
		case ch == '"':
			j, ok := skipQuoted(sql, i, '"', false)
			if !ok {
				return sql
			}
			i, end = j, j
		case ch == '$' && (i == 0 || !isIdentChar(sql[i-1])):
			// $tag$ … $tag$ (tag empty or an identifier); $1 is a parameter.
			k := i + 1
			for k < len(sql) && isIdentChar(sql[k]) && !(k == i+1 && sql[k] >= '0' && sql[k] <= '9') {
				k++
			}
			if k < len(sql) && sql[k] == '$' {
				tag := sql[i : k+1]
				j := strings.Index(sql[k+1:], tag)
				if j < 0 {
					return sql // unterminated
				}
				i = k + 1 + j + len(tag)
				end = i
				continue
			}
			i++
			end = i
		default:
			i++
			end = i
		}
	}
	return sql[:end]
}

// skipQuoted returns the index after the quoted token starting at sql[i]
// (a doubled quote is an escaped quote; with escapes, so is a backslash
// followed by any byte).
func skipQuoted(sql string, i int, q byte, escapes bool) (int, bool) {
	for j := i + 1; j < len(sql); j++ {
		switch sql[j] {
		case '\\':
			if escapes {
				j++
			}
		case q:
			if j+1 < len(sql) && sql[j+1] == q {
				j++
				continue
			}
			return j + 1, true
		}
	}
	return 0, false
}

func isIdentChar(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}
