package userdata

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// scanner walks the structure of a JSON text from a stream without building
// its values, in bounded memory: it skips the members of a top-level object
// that are not the records (--records), and lists the member arrays of one
// that is not records. It checks what it skips for syntax (strings,
// nesting, punctuation; numbers and literals only by their first byte), so
// that a truncated or corrupt file is still an error.
type scanner struct {
	br *bufio.Reader
	// off is the bytes read, for the offsets of messages.
	off int64
	// maxKey bounds a member name read as text.
	maxKey int
}

// maxScanDepth bounds the nesting of skipped values: far deeper than data
// (MaxDepth bounds what becomes columns), shallow enough for the stack.
const maxScanDepth = 10_000

// errScanEOF is the input's end inside a value.
var errScanEOF = errors.New("truncated: the file ends inside the top-level object")

// eof returns what a read error means inside a value.
func (s *scanner) eof(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return errScanEOF
	}
	return err
}

func (s *scanner) errf(format string, args ...any) error {
	return fmt.Errorf("malformed JSON at byte %s: %s", thousands(s.off), fmt.Sprintf(format, args...))
}

// peek skips white space and returns the next byte, left unread; io.EOF at
// the end.
func (s *scanner) peek() (byte, error) {
	for {
		c, err := s.br.ReadByte()
		if err != nil {
			return 0, err
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			s.off++
			continue
		}
		return c, s.br.UnreadByte()
	}
}

// take consumes the byte peek returned.
func (s *scanner) take() {
	s.br.ReadByte()
	s.off++
}

// expect consumes the byte want (after white space), described by what.
func (s *scanner) expect(want byte, what string) error {
	c, err := s.peek()
	if err != nil {
		return s.eof(err)
	}
	if c != want {
		return s.errf("expected %s, found %q", what, rune(c))
	}
	s.take()
	return nil
}

// str reads a string: its decoded text if keep (a member name, at most
// maxKey bytes), else it is skipped.
func (s *scanner) str(keep bool) (string, error) {
	if err := s.expect('"', "a string"); err != nil {
		return "", err
	}
	var raw []byte
	if keep {
		raw = append(raw, '"')
	}
	for {
		if !keep {
			// Skip the plain bytes in the buffer at once.
			buf, _ := s.br.Peek(s.br.Buffered())
			i := 0
			for i < len(buf) && buf[i] != '"' && buf[i] != '\\' && buf[i] >= 0x20 {
				i++
			}
			s.br.Discard(i)
			s.off += int64(i)
		}
		c, err := s.br.ReadByte()
		if err != nil {
			return "", s.eof(err)
		}
		s.off++
		switch {
		case c == '"':
			if !keep {
				return "", nil
			}
			var out string
			if err := json.Unmarshal(append(raw, '"'), &out); err != nil {
				return "", s.errf("invalid string: %v", err)
			}
			return out, nil
		case c == '\\':
			e, err := s.br.ReadByte()
			if err != nil {
				return "", s.eof(err)
			}
			s.off++
			switch e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't', 'u':
			default:
				return "", s.errf("invalid escape \\%c in a string", rune(e))
			}
			if keep {
				raw = append(raw, c, e)
			}
		case c < 0x20:
			return "", s.errf("control character %#02x in a string", c)
		case keep:
			raw = append(raw, c)
		}
		if keep && len(raw) > s.maxKey {
			return "", s.errf("a member name longer than %s", sizeText(int64(s.maxKey)))
		}
	}
}

// skip skips one value, depth levels deep.
func (s *scanner) skip(depth int) error {
	if depth > maxScanDepth {
		return s.errf("nested deeper than %s levels", thousands(maxScanDepth))
	}
	c, err := s.peek()
	if err != nil {
		return s.eof(err)
	}
	switch c {
	case '{':
		s.take()
		return s.members(func(string) error { return s.skip(depth + 1) })
	case '[':
		s.take()
		_, err := s.elements(func(byte) error { return s.skip(depth + 1) })
		return err
	case '"':
		_, err := s.str(false)
		return err
	case 't', 'f', 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if lit[0] == c {
				return s.literal(lit)
			}
		}
	}
	if c != '-' && (c < '0' || c > '9') {
		return s.errf("unexpected %q", rune(c))
	}
	for {
		c, err := s.br.ReadByte()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return s.br.UnreadByte()
		}
		s.off++
	}
}

// literal consumes lit.
func (s *scanner) literal(lit string) error {
	for i := 0; i < len(lit); i++ {
		c, err := s.br.ReadByte()
		if err != nil {
			return s.eof(err)
		}
		s.off++
		if c != lit[i] {
			return s.errf("unexpected %q in %s", rune(c), lit)
		}
	}
	return nil
}

// members reads an object's members after its '{' up to its '}', calling
// value for each with the scanner at the member's value, which it must
// consume.
func (s *scanner) members(value func(key string) error) error {
	c, err := s.peek()
	if err != nil {
		return s.eof(err)
	}
	if c == '}' {
		s.take()
		return nil
	}
	for {
		key, err := s.str(true)
		if err != nil {
			return err
		}
		if err := s.expect(':', "':' after a member name"); err != nil {
			return err
		}
		if err := value(key); err != nil {
			return err
		}
		if done, err := s.after('}', "an object member"); done || err != nil {
			return err
		}
	}
}

// elements reads an array's elements after its '[' up to its ']', calling
// value for each with the scanner at the element (its first byte given),
// which it must consume; it returns the number of elements.
func (s *scanner) elements(value func(first byte) error) (int64, error) {
	c, err := s.peek()
	if err != nil {
		return 0, s.eof(err)
	}
	if c == ']' {
		s.take()
		return 0, nil
	}
	var n int64
	for {
		c, err := s.peek()
		if err != nil {
			return n, s.eof(err)
		}
		if err := value(c); err != nil {
			return n, err
		}
		n++
		if done, err := s.after(']', "an array element"); done || err != nil {
			return n, err
		}
	}
}

// after consumes the ',' or the closing byte that follows a member or an
// element (what) and reports whether it was the closing one.
func (s *scanner) after(closing byte, what string) (bool, error) {
	c, err := s.peek()
	if err != nil {
		return false, s.eof(err)
	}
	s.take()
	switch c {
	case ',':
		return false, nil
	case closing:
		return true, nil
	}
	return false, s.errf("expected ',' or '%c' after %s, found %q", closing, what, rune(c))
}

// end checks that nothing but white space follows.
func (s *scanner) end() error {
	_, err := s.peek()
	switch {
	case err == io.EOF:
		return nil
	case err != nil:
		return err
	}
	return fmt.Errorf("content after the top-level object (byte %s): a .json input holds one object or one array", thousands(s.off))
}
