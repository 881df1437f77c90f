package userdata

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// A .json input holds either one top-level array of objects, streamed
// element by element (encoding/json's Decoder.Token and More: the file is
// never loaded whole), or JSON objects one per line (JSON Lines content): the
// first byte other than a byte order mark or white space tells which. One
// top-level object alone is refused (OneObjectError) unless Options.Records
// names its member array of records (records.go).

// utf8BOM is the UTF-8 byte order mark.
var utf8BOM = []byte("\ufeff")

// sniffJSON returns the first byte of r's decompressed input after a byte
// order mark and white space, or 0 for an empty input.
func sniffJSON(r *Reader) (byte, error) {
	in, closeIn, err := openStream(r.path, r.comp)
	if err != nil {
		return 0, err
	}
	defer closeIn()
	br := bufio.NewReader(in)
	c, _, err := firstByte(br)
	if err == io.EOF {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("userdata: %s: %w", r.path, err)
	}
	return c, nil
}

// firstByte skips a byte order mark and white space and returns the next
// byte, left unread, and the count of bytes skipped.
func firstByte(br *bufio.Reader) (byte, int64, error) {
	var n int64
	if b, _ := br.Peek(len(utf8BOM)); bytes.Equal(b, utf8BOM) {
		br.Discard(len(utf8BOM))
		n = int64(len(utf8BOM))
	}
	for ; ; n++ {
		c, err := br.ReadByte()
		if err != nil {
			return 0, n, err
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c, n, br.UnreadByte()
	}
}

// newJSONFileSource reads a .json input: JSON Lines content if it starts
// with '{', else a top-level array of objects.
func newJSONFileSource(r *Reader) (*jsonSource, error) {
	if r.opts.Records != "" {
		segs, err := ParseRecordsPath(r.opts.Records)
		if err != nil {
			return nil, fmt.Errorf("userdata: %s: %w", r.path, err)
		}
		s, err := newObjectSource(r, openMember(segs))
		if err == nil {
			r.notes = append(r.notes, fmt.Sprintf("rows: the elements of the member array %s of the file's top-level object (--records)", FormatRecordsPath(segs)))
		}
		return s, err
	}
	c, err := sniffJSON(r)
	if err != nil {
		return nil, err
	}
	if c == '{' {
		// One object alone is a document, not records (scanOneObject);
		// followed by more, JSON Lines content.
		if err := r.scanOneObject(); err != nil {
			return nil, err
		}
		return newObjectSource(r, openLines)
	}
	return newObjectSource(r, openArray)
}

// arrayValues yields the elements of a top-level JSON array.
type arrayValues struct {
	dec *json.Decoder
	max int
	// skipped is the bytes before the '[' (byte order mark, white space),
	// for byte offsets in messages.
	skipped int64
	n       int64 // elements returned or failed
	done    bool
	raw     json.RawMessage
	// label is the member path of the array for messages, when it is a
	// member of a top-level object (Options.Records), and rest checks what
	// follows its closing ']'; empty and nil for a top-level array.
	label string
	rest  func() error
}

// openArray reads in as a top-level array, checking its opening '['.
func openArray(r *Reader, in io.Reader) (valueReader, error) {
	br := bufio.NewReaderSize(in, 1<<20)
	c, skipped, err := firstByte(br)
	switch {
	case err == io.EOF:
		return nil, fmt.Errorf("userdata: %s: empty file: a .json input holds an array of objects ([{…}, …]) or JSON objects one per line", r.path)
	case err != nil:
		return nil, fmt.Errorf("userdata: %s: %w", r.path, err)
	case c != '[':
		return nil, fmt.Errorf("userdata: %s: the top level is %s, not an array of objects: a .json input holds an array of objects ([{…}, …]) or JSON objects one per line",
			r.path, topLevelKind(c))
	}
	dec := json.NewDecoder(br)
	if _, err := dec.Token(); err != nil { // the '['
		return nil, fmt.Errorf("userdata: %s: %w", r.path, err)
	}
	return &arrayValues{dec: dec, max: r.opts.maxLine(), skipped: skipped}, nil
}

// topLevelKind names the JSON value that starts with c.
func topLevelKind(c byte) string {
	switch {
	case c == '"':
		return "a string"
	case c == '-' || c >= '0' && c <= '9':
		return "a number"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	}
	return fmt.Sprintf("not JSON (it starts with %q)", rune(c))
}

// errTruncated says the input ended inside the array.
var errTruncated = errors.New("truncated: the file ends before the array's closing ]")

func (a *arrayValues) next() ([]byte, error) {
	if a.done {
		return nil, io.EOF
	}
	if !a.dec.More() {
		a.done = true
		tok, err := a.dec.Token()
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			a.n++
			return nil, errTruncated
		}
		if err != nil {
			a.n++
			return nil, a.badJSON(err)
		}
		if tok != json.Delim(']') {
			a.n++
			return nil, fmt.Errorf("malformed JSON: unexpected %v in the array", tok)
		}
		if a.rest != nil {
			if err := a.rest(); err != nil {
				a.n = 0 // not an element's fault
				return nil, err
			}
			return nil, io.EOF
		}
		if _, err := a.dec.Token(); err != io.EOF {
			a.n = 0 // not an element's fault
			return nil, fmt.Errorf("content after the array's closing ] (byte %s): a .json input holds one array", thousands(a.skipped+a.dec.InputOffset()))
		}
		return nil, io.EOF
	}
	a.n++
	a.raw = a.raw[:0]
	if err := a.dec.Decode(&a.raw); err != nil {
		a.done = true
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, errors.New("truncated: the file ends inside this element, before the array's closing ]")
		}
		return nil, a.badJSON(err)
	}
	if len(a.raw) > a.max {
		return nil, fmt.Errorf("element longer than %s, the limit", sizeText(int64(a.max)))
	}
	return a.raw, nil
}

// badJSON describes a syntax error of the array; it ends the read (the
// decoder cannot resynchronise), --skip-bad or not.
func (a *arrayValues) badJSON(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("malformed JSON at byte %s: %v (the array cannot be read past it, even with --skip-bad)", thousands(a.skipped+se.Offset), se)
	}
	return err
}

func (a *arrayValues) pos() int64 { return a.n }

func (a *arrayValues) where(path string, p int64) string {
	switch {
	case p == 0:
		return path
	case a.label != "":
		return fmt.Sprintf("%s: element %s of %s", path, thousands(p), a.label)
	}
	return fmt.Sprintf("%s: element %s", path, thousands(p))
}

// what names the array for messages: "the array", "the array
// objects.land.geometries".
func (a *arrayValues) what() string {
	if a.label != "" {
		return "the array " + a.label
	}
	return "the array"
}

func (a *arrayValues) unit() string { return "elements" }
