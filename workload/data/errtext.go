package data

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// MaxErrorText caps the text of an error the workload prints or records
// (a plan's refusal of the input, a case's failure): one line of at most
// this many bytes. A format or reader error can quote a whole schema —
// hundreds of kilobytes for a deep one — and would bury the cause.
const MaxErrorText = 300

// textError is an error with a shortened text that still unwraps to the
// original (errors.Is finds dynamic.ErrCannotHold through it).
type textError struct {
	text string
	err  error
}

func (e *textError) Error() string { return e.text }
func (e *textError) Unwrap() error { return e.err }

// shortError returns err with its text on one line and at most
// MaxErrorText bytes, cause first: when the innermost error's text is
// short and ends the message, it leads, followed by the start of what
// wrapped it; otherwise the message keeps its start and its end around
// " … ". Nil stays nil; a text that fits is returned as it is.
func shortError(err error) error {
	if err == nil {
		return nil
	}
	full := err.Error()
	line := oneLine(full)
	if len(line) <= MaxErrorText {
		if line == full {
			return err
		}
		return &textError{line, err}
	}
	inner := err
	for {
		u := errors.Unwrap(inner)
		if u == nil {
			break
		}
		inner = u
	}
	cause := oneLine(inner.Error())
	const sep = " — in: "
	if inner != err && len(cause) <= MaxErrorText/2 && strings.HasSuffix(line, cause) {
		context := strings.TrimRight(strings.TrimSuffix(line, cause), ": ")
		return &textError{cause + sep + elide(context, MaxErrorText-len(cause)-len(sep)), err}
	}
	return &textError{elide(line, MaxErrorText), err}
}

// oneLine joins s's lines and runs of white space with single spaces.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\r\t") && !strings.Contains(s, "  ") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// elide shortens s to at most max bytes, keeping two thirds from its start
// and the rest from its end around " … ", on rune boundaries.
func elide(s string, max int) string {
	const dots = " … "
	if len(s) <= max {
		return s
	}
	keep := max - len(dots)
	if keep <= 0 {
		return cut(s, max)
	}
	head := cut(s, keep*2/3)
	tail := s[len(s)-(keep-len(head)):]
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	return head + dots + tail
}

// cut returns s's longest prefix of at most n bytes that ends on a rune
// boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
