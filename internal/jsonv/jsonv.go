// Package jsonv parses one JSON text into a small value tree that keeps the
// exact text of numbers (so an integer stays an integer and 64-bit values are
// not rounded through float64), and appends such values to Arrow builders by
// an Arrow type. The JSON Lines input reader (workload/userdata) infers
// schemas from and reads through it; the schema-driven JSON Lines format
// (format/dynamic) shares its string escaping, date and timestamp layouts
// and time-unit conversions. It is neither a format nor a dataset, so that
// both may import it (a dataset imports no format: internal/arch).
package jsonv

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind is the kind of a JSON value.
type Kind uint8

// The JSON kinds.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// String returns the kind's JSON name.
func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "boolean"
	case Number:
		return "number"
	case String:
		return "string"
	case Array:
		return "array"
	case Object:
		return "object"
	}
	return "invalid"
}

// Value is one parsed JSON value.
type Value struct {
	// Kind is the value's kind.
	Kind Kind
	// Bool is the value of a Bool.
	Bool bool
	// Text is a Number's exact text or a String's decoded text.
	Text string
	// Items are an Array's elements or an Object's member values.
	Items []Value
	// Keys are an Object's member names, parallel to Items.
	Keys []string
}

// IsInt reports whether a Number's text is an integer literal (no fraction,
// no exponent).
func (v *Value) IsInt() bool {
	if v.Kind != Number {
		return false
	}
	for i := 0; i < len(v.Text); i++ {
		switch v.Text[i] {
		case '.', 'e', 'E':
			return false
		}
	}
	return true
}

// Get returns the member named key of an Object, or nil.
func (v *Value) Get(key string) *Value {
	for i, k := range v.Keys {
		if k == key {
			return &v.Items[i]
		}
	}
	return nil
}

// MaxDepth bounds the nesting of arrays and objects.
const MaxDepth = 512

// SyntaxError is a JSON syntax error at a byte offset of the parsed text.
type SyntaxError struct {
	// Offset is the byte offset of the error in the text.
	Offset int
	// Msg says what was wrong.
	Msg string
}

// Error implements error.
func (e *SyntaxError) Error() string { return fmt.Sprintf("byte %d: %s", e.Offset, e.Msg) }

// Parse parses data, which must hold exactly one JSON value surrounded by
// optional whitespace. Strings must be valid UTF-8 (RFC 8259); unpaired
// surrogate escapes are rejected too, so every parsed string can be written
// back as JSON exactly.
func Parse(data []byte) (Value, error) {
	p := parser{data: data}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return Value{}, err
	}
	p.ws()
	if p.i < len(p.data) {
		return Value{}, p.errf("unexpected %q after the value", p.data[p.i])
	}
	return v, nil
}

type parser struct {
	data []byte
	i    int
	buf  []byte
}

func (p *parser) errf(format string, args ...any) error {
	return &SyntaxError{Offset: p.i, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) ws() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) lit(s string) bool {
	if len(p.data)-p.i >= len(s) && string(p.data[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return true
	}
	return false
}

func (p *parser) value(depth int) (Value, error) {
	if p.i >= len(p.data) {
		return Value{}, p.errf("unexpected end of input")
	}
	switch c := p.data[p.i]; {
	case c == '{':
		if depth >= MaxDepth {
			return Value{}, p.errf("nesting deeper than %d", MaxDepth)
		}
		return p.object(depth + 1)
	case c == '[':
		if depth >= MaxDepth {
			return Value{}, p.errf("nesting deeper than %d", MaxDepth)
		}
		return p.array(depth + 1)
	case c == '"':
		s, err := p.str()
		return Value{Kind: String, Text: s}, err
	case c == 't':
		if p.lit("true") {
			return Value{Kind: Bool, Bool: true}, nil
		}
	case c == 'f':
		if p.lit("false") {
			return Value{Kind: Bool}, nil
		}
	case c == 'n':
		if p.lit("null") {
			return Value{Kind: Null}, nil
		}
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return Value{}, p.errf("invalid character %q looking for a value", p.data[p.i])
}

func (p *parser) object(depth int) (Value, error) {
	p.i++ // {
	v := Value{Kind: Object}
	var keys map[string]struct{} // for objects past 16 members
	p.ws()
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		return v, nil
	}
	for {
		p.ws()
		if p.i >= len(p.data) || p.data[p.i] != '"' {
			if p.i >= len(p.data) {
				return v, p.errf("unexpected end of input in object")
			}
			return v, p.errf("invalid character %q looking for an object key", p.data[p.i])
		}
		k, err := p.str()
		if err != nil {
			return v, err
		}
		if len(v.Keys) < 16 {
			for _, seen := range v.Keys {
				if seen == k {
					return v, p.errf("duplicate key %q", k)
				}
			}
		} else {
			if keys == nil {
				keys = make(map[string]struct{}, 2*len(v.Keys))
				for _, seen := range v.Keys {
					keys[seen] = struct{}{}
				}
			}
			if _, dup := keys[k]; dup {
				return v, p.errf("duplicate key %q", k)
			}
			keys[k] = struct{}{}
		}
		p.ws()
		if p.i >= len(p.data) || p.data[p.i] != ':' {
			return v, p.errf("expected ':' after object key %q", k)
		}
		p.i++
		p.ws()
		item, err := p.value(depth)
		if err != nil {
			return v, err
		}
		v.Keys = append(v.Keys, k)
		v.Items = append(v.Items, item)
		p.ws()
		if p.i >= len(p.data) {
			return v, p.errf("unexpected end of input in object")
		}
		switch p.data[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return v, nil
		default:
			return v, p.errf("invalid character %q after object member", p.data[p.i])
		}
	}
}

func (p *parser) array(depth int) (Value, error) {
	p.i++ // [
	v := Value{Kind: Array}
	p.ws()
	if p.i < len(p.data) && p.data[p.i] == ']' {
		p.i++
		v.Items = []Value{}
		return v, nil
	}
	for {
		p.ws()
		item, err := p.value(depth)
		if err != nil {
			return v, err
		}
		v.Items = append(v.Items, item)
		p.ws()
		if p.i >= len(p.data) {
			return v, p.errf("unexpected end of input in array")
		}
		switch p.data[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return v, nil
		default:
			return v, p.errf("invalid character %q after array element", p.data[p.i])
		}
	}
}

func (p *parser) number() (Value, error) {
	start := p.i
	d := p.data
	if d[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(d) && d[p.i] >= '0' && d[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.i < len(d) && d[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return Value{}, p.errf("invalid number")
	}
	if p.i < len(d) && d[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return Value{}, p.errf("invalid number: no digits after '.'")
		}
	}
	if p.i < len(d) && (d[p.i] == 'e' || d[p.i] == 'E') {
		p.i++
		if p.i < len(d) && (d[p.i] == '+' || d[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return Value{}, p.errf("invalid number: no digits in exponent")
		}
	}
	return Value{Kind: Number, Text: string(d[start:p.i])}, nil
}

func (p *parser) str() (string, error) {
	p.i++ // "
	d := p.data
	start := p.i
	// Fast path: no escapes.
	for p.i < len(d) {
		c := d[p.i]
		if c == '"' {
			if !utf8.Valid(d[start:p.i]) {
				return "", p.errf("invalid UTF-8 in string")
			}
			s := string(d[start:p.i])
			p.i++
			return s, nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", p.errf("control character %#x in string", c)
		}
		p.i++
	}
	p.buf = append(p.buf[:0], d[start:p.i]...)
	for p.i < len(d) {
		c := d[p.i]
		switch {
		case c == '"':
			if !utf8.Valid(p.buf) {
				return "", p.errf("invalid UTF-8 in string")
			}
			p.i++
			return string(p.buf), nil
		case c < 0x20:
			return "", p.errf("control character %#x in string", c)
		case c != '\\':
			p.buf = append(p.buf, c)
			p.i++
			continue
		}
		p.i++
		if p.i >= len(d) {
			break
		}
		e := d[p.i]
		p.i++
		switch e {
		case '"', '\\', '/':
			p.buf = append(p.buf, e)
		case 'b':
			p.buf = append(p.buf, '\b')
		case 'f':
			p.buf = append(p.buf, '\f')
		case 'n':
			p.buf = append(p.buf, '\n')
		case 'r':
			p.buf = append(p.buf, '\r')
		case 't':
			p.buf = append(p.buf, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", p.errf("invalid \\u escape")
			}
			if utf16.IsSurrogate(r) {
				save := p.i
				if p.lit("\\u") {
					if r2, ok := p.hex4(); ok {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							p.buf = utf8.AppendRune(p.buf, dec)
							continue
						}
					}
				}
				p.i = save
				return "", p.errf("unpaired surrogate \\u%04x (not representable in a string)", r)
			}
			p.buf = utf8.AppendRune(p.buf, r)
		default:
			return "", p.errf("invalid escape '\\%c'", e)
		}
	}
	return "", p.errf("unexpected end of input in string")
}

func (p *parser) hex4() (rune, bool) {
	if len(p.data)-p.i < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(p.data[p.i:p.i+4]), 16, 16)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(n), true
}

// AppendText appends v as compact JSON text to dst. Strings with invalid
// UTF-8 are an error (JSON cannot hold them).
func AppendText(dst []byte, v *Value) ([]byte, error) {
	switch v.Kind {
	case Null:
		return append(dst, "null"...), nil
	case Bool:
		return strconv.AppendBool(dst, v.Bool), nil
	case Number:
		return append(dst, v.Text...), nil
	case String:
		return AppendString(dst, v.Text)
	case Array:
		dst = append(dst, '[')
		for i := range v.Items {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = AppendText(dst, &v.Items[i]); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case Object:
		dst = append(dst, '{')
		for i := range v.Items {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = AppendString(dst, v.Keys[i]); err != nil {
				return dst, err
			}
			dst = append(dst, ':')
			if dst, err = AppendText(dst, &v.Items[i]); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	}
	return dst, errors.New("jsonv: invalid value kind")
}

// ErrInvalidUTF8 is returned when a string to be written as JSON holds
// invalid UTF-8, which JSON text cannot represent exactly.
var ErrInvalidUTF8 = errors.New("invalid UTF-8 in string (JSON cannot hold it exactly)")

const hexDigits = "0123456789abcdef"

// AppendString appends s as a quoted JSON string to dst.
func AppendString(dst []byte, s string) ([]byte, error) {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return dst, ErrInvalidUTF8
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"'), nil
}
