package userdata

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// A .json input whose top level is one object (a GeoJSON
// FeatureCollection, a TopoJSON Topology, an API response) is a document,
// not records: Open refuses it with a *OneObjectError listing the member
// arrays that could hold the records, unless Options.Records names the
// member array whose elements are the rows. The path is dotted
// ("features", "objects.countries.geometries") or, for a member name that
// holds a dot or a slash or is empty, a JSON Pointer (RFC 6901:
// "/objects/a.b/geometries", "~1" for '/' and "~0" for '~'). The members
// before and after the records are skipped without being held in memory,
// but checked for syntax, as is the rest of the file.

// ParseRecordsPath parses an Options.Records path into its member names:
// dotted ("objects.land.geometries"), or a JSON Pointer when it starts
// with '/' ("/objects/a.b/geometries").
func ParseRecordsPath(path string) ([]string, error) {
	var segs []string
	if rest, ok := strings.CutPrefix(path, "/"); ok {
		for _, s := range strings.Split(rest, "/") {
			if strings.Contains(strings.NewReplacer("~0", "", "~1", "").Replace(s), "~") {
				return nil, fmt.Errorf("--records %q: a JSON Pointer writes '~' as ~0 and '/' as ~1", path)
			}
			segs = append(segs, strings.NewReplacer("~1", "/", "~0", "~").Replace(s))
		}
	} else {
		segs = strings.Split(path, ".")
		if slices.Contains(segs, "") {
			return nil, fmt.Errorf("--records %q: an empty member name; a member name that holds a dot, or an empty one, is written as a JSON Pointer: /a.b/c", path)
		}
	}
	if len(segs) > MaxDepth {
		return nil, fmt.Errorf("--records %q: more than %d levels", shorten(path, 80), MaxDepth)
	}
	return segs, nil
}

// FormatRecordsPath writes member names as a path ParseRecordsPath reads:
// dotted when it can be, else a JSON Pointer.
func FormatRecordsPath(segs []string) string {
	pointer := len(segs) == 0 || strings.HasPrefix(segs[0], "/")
	for _, s := range segs {
		pointer = pointer || s == "" || strings.Contains(s, ".")
	}
	if !pointer {
		return strings.Join(segs, ".")
	}
	esc := strings.NewReplacer("~", "~0", "/", "~1")
	var b strings.Builder
	for _, s := range segs {
		b.WriteByte('/')
		b.WriteString(esc.Replace(s))
	}
	return b.String()
}

// Candidate is a member array of a top-level object: where its records
// could be.
type Candidate struct {
	// Path is the array's path, as Options.Records takes it.
	Path string
	// Len is its number of elements.
	Len int64
	// Elems names its elements' kinds, plural ("objects", "numbers",
	// "arrays and nulls"; "" for an empty array).
	Elems string
}

// Objects reports whether every element of the array is an object: the
// arrays that can be records.
func (c Candidate) Objects() bool { return c.Elems == "objects" }

// String is "objects.land.geometries (241)", or with the kind of the
// elements when they are not objects: "arcs (9,870 arrays)".
func (c Candidate) String() string {
	p := shorten(c.Path, 60)
	if c.Objects() || c.Elems == "" {
		return fmt.Sprintf("%s (%s)", p, thousands(c.Len))
	}
	return fmt.Sprintf("%s (%s %s)", p, thousands(c.Len), c.Elems)
}

// OneObjectError is Open's error for a .json input that holds one JSON
// object rather than records, when Options.Records does not say which
// member array holds them.
type OneObjectError struct {
	// Path is the input file.
	Path string
	// Arrays are the object's member arrays reachable through objects,
	// arrays of objects first, then longest first; at most
	// maxCandidates.
	Arrays []Candidate
	// More counts the member arrays left out of Arrays.
	More int
}

// The member arrays a OneObjectError keeps, and how many its message
// names: the message stays one short line.
const (
	maxCandidates      = 20
	maxCandidatesNamed = 3
)

// Error implements error: one line naming the arrays to choose from.
func (e *OneObjectError) Error() string {
	var objs, other []string
	for _, c := range e.Arrays {
		if c.Objects() {
			objs = append(objs, c.String())
		} else {
			other = append(other, c.String())
		}
	}
	switch {
	case len(e.Arrays) == 0:
		return fmt.Sprintf("userdata: %s: holds one JSON object, not records, and no member of it is an array to take them from: "+
			"records are a JSON array of objects ([{…}, …]) or JSON Lines (one object per line)", e.Path)
	case len(objs) == 0:
		return fmt.Sprintf("userdata: %s: holds one JSON object, not records, and none of its member arrays holds objects (%s): "+
			"records are a JSON array of objects ([{…}, …]) or JSON Lines (one object per line)", e.Path, e.list(nil, other, maxCandidatesNamed))
	}
	// Name fewer arrays rather than let a long path make the line long.
	for named := maxCandidatesNamed; ; named-- {
		msg := fmt.Sprintf("userdata: %s: holds one JSON object, not records; name the member array that holds the records with --records PATH (%s)",
			e.Path, e.list(objs, other, named))
		if len(msg) <= maxMessage || named == 1 {
			return msg
		}
	}
}

// maxMessage is the length a OneObjectError's text keeps to, naming fewer
// arrays if need be.
const maxMessage = 280

// list names the first named arrays of objs (arrays of objects) and other,
// and how many more there are.
func (e *OneObjectError) list(objs, other []string, named int) string {
	var parts []string
	n := min(len(objs), named)
	if n > 0 {
		parts = append(parts, "arrays of objects: "+strings.Join(objs[:n], ", "))
	}
	m := min(len(other), named-n)
	if m > 0 {
		parts = append(parts, "other arrays: "+strings.Join(other[:m], ", "))
	}
	s := strings.Join(parts, "; ")
	if more := len(e.Arrays) - n - m + e.More; more > 0 {
		s += fmt.Sprintf("; %s more", thousands(int64(more)))
	}
	return s
}

// candidates collects the member arrays of an object, best first, bounded.
type candidates struct {
	list []Candidate
	more int
}

func (cs *candidates) add(c Candidate) {
	cs.list = append(cs.list, c)
	if len(cs.list) > 4*maxCandidates {
		cs.sort()
		cs.more += len(cs.list) - maxCandidates
		cs.list = cs.list[:maxCandidates]
	}
}

// sort orders the arrays of objects first, then the longest first, then by
// path.
func (cs *candidates) sort() {
	slices.SortStableFunc(cs.list, func(a, b Candidate) int {
		switch {
		case a.Objects() != b.Objects():
			if a.Objects() {
				return -1
			}
			return 1
		case a.Len != b.Len:
			if a.Len > b.Len {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Path, b.Path)
	})
}

// done sorts and trims the list.
func (cs *candidates) done() {
	cs.sort()
	if len(cs.list) > maxCandidates {
		cs.more += len(cs.list) - maxCandidates
		cs.list = cs.list[:maxCandidates]
	}
}

// object walks the object whose '{' is next, listing its member arrays
// (through member objects, not through arrays) in cs.
func (s *scanner) object(path []string, depth int, cs *candidates) error {
	if err := s.expect('{', "an object"); err != nil {
		return err
	}
	return s.members(func(key string) error {
		c, err := s.peek()
		if err != nil {
			return s.eof(err)
		}
		p := append(path[:len(path):len(path)], key)
		switch {
		case c == '{' && depth < MaxDepth:
			return s.object(p, depth+1, cs)
		case c == '[':
			s.take()
			kinds := map[string]bool{}
			n, err := s.elements(func(first byte) error {
				kinds[kindOfFirst(first)] = true
				return s.skip(depth + 2)
			})
			if err != nil {
				return err
			}
			cs.add(Candidate{Path: FormatRecordsPath(p), Len: n, Elems: kindsText(kinds)})
			return nil
		}
		return s.skip(depth + 1)
	})
}

// kindOfFirst names, plural, the kind of the JSON value starting with c.
func kindOfFirst(c byte) string {
	switch c {
	case '{':
		return "objects"
	case '[':
		return "arrays"
	case '"':
		return "strings"
	case 't', 'f':
		return "booleans"
	case 'n':
		return "nulls"
	}
	return "numbers"
}

// kindsText joins the element kinds in a fixed order: "arrays and nulls".
func kindsText(kinds map[string]bool) string {
	var out []string
	for _, k := range []string{"objects", "arrays", "strings", "numbers", "booleans", "nulls"} {
		if kinds[k] {
			out = append(out, k)
		}
	}
	return strings.Join(out, " and ")
}

// scanOneObject reads r's input, which starts with '{', and returns a
// *OneObjectError if it is one object and nothing else; nil if something
// follows the first object (JSON Lines content) or it cannot be walked (the
// JSON Lines reader then names the line that is wrong).
func (r *Reader) scanOneObject() error {
	s, closeIn, err := r.scanInput()
	if err != nil {
		return err
	}
	defer closeIn()
	var cs candidates
	if err := s.object(nil, 0, &cs); err != nil {
		if isReadError(err) {
			return fmt.Errorf("userdata: %s: %w", r.path, err)
		}
		return nil
	}
	if _, err := s.peek(); err != io.EOF {
		if err != nil {
			return fmt.Errorf("userdata: %s: %w", r.path, err)
		}
		return nil
	}
	cs.done()
	return &OneObjectError{Path: r.path, Arrays: cs.list, More: cs.more}
}

// isReadError reports whether err came from reading the input (a
// decompressor's error) rather than from the scanner's checks.
func isReadError(err error) bool {
	return !errors.Is(err, errScanEOF) && !strings.HasPrefix(err.Error(), "malformed JSON at byte ")
}

// scanInput opens r's decompressed input for a scanner, past a byte order
// mark.
func (r *Reader) scanInput() (*scanner, func() error, error) {
	in, closeIn, err := openStream(r.path, r.comp)
	if err != nil {
		return nil, nil, err
	}
	br := bufio.NewReaderSize(in, 1<<20)
	_, skipped, err := firstByte(br)
	if err != nil && err != io.EOF {
		closeIn()
		return nil, nil, fmt.Errorf("userdata: %s: %w", r.path, err)
	}
	return &scanner{br: br, off: skipped, maxKey: r.opts.maxLine()}, closeIn, nil
}

// arraysHint lists r's top-level member arrays for an error about
// --records ("" if there are none or the file cannot be walked).
func (r *Reader) arraysHint() string {
	s, closeIn, err := r.scanInput()
	if err != nil {
		return ""
	}
	defer closeIn()
	var cs candidates
	if s.object(nil, 0, &cs) != nil && len(cs.list) == 0 {
		return ""
	}
	cs.done()
	e := &OneObjectError{Arrays: cs.list, More: cs.more}
	var objs, other []string
	for _, c := range e.Arrays {
		if c.Objects() {
			objs = append(objs, c.String())
		} else {
			other = append(other, c.String())
		}
	}
	if len(objs)+len(other) == 0 {
		return " (it has no member arrays)"
	}
	return " (" + e.list(objs, other, maxCandidatesNamed) + ")"
}

// openMember returns the opener of the elements of the member array at
// segs of a top-level object, for newObjectSource.
func openMember(segs []string) func(*Reader, io.Reader) (valueReader, error) {
	label := FormatRecordsPath(segs)
	return func(r *Reader, in io.Reader) (valueReader, error) {
		br := bufio.NewReaderSize(in, 1<<20)
		c, skipped, err := firstByte(br)
		switch {
		case err == io.EOF:
			return nil, fmt.Errorf("userdata: %s: empty file: --records %s reads a member array of one JSON object", r.path, label)
		case err != nil:
			return nil, fmt.Errorf("userdata: %s: %w", r.path, err)
		case c == '[':
			return nil, fmt.Errorf("userdata: %s: --records %s: the top level is an array, not an object: an array of objects is read as it is, without --records", r.path, label)
		case c != '{':
			return nil, fmt.Errorf("userdata: %s: --records %s: the top level is %s, not an object", r.path, label, topLevelKind(c))
		}
		s := &scanner{br: br, off: skipped, maxKey: r.opts.maxLine()}
		for i, seg := range segs {
			if err := s.expect('{', "an object"); err != nil {
				return nil, fmt.Errorf("userdata: %s: --records %s: %w", r.path, label, err)
			}
			found, err := s.find(seg)
			if err != nil {
				return nil, fmt.Errorf("userdata: %s: --records %s: %w", r.path, label, err)
			}
			where := "the top-level object"
			if i > 0 {
				where = FormatRecordsPath(segs[:i])
			}
			if !found {
				return nil, fmt.Errorf("userdata: %s: --records %s: %s has no member %q%s", r.path, label, where, seg, r.arraysHint())
			}
			c, err := s.peek()
			if err != nil {
				return nil, fmt.Errorf("userdata: %s: --records %s: %w", r.path, label, s.eof(err))
			}
			want, what := byte('{'), "an object"
			if i == len(segs)-1 {
				want, what = '[', "an array"
			}
			if c != want {
				return nil, fmt.Errorf("userdata: %s: --records %s: %s is %s, not %s%s", r.path, label,
					FormatRecordsPath(segs[:i+1]), topLevelKind(c), what, r.arraysHint())
			}
		}
		dec := json.NewDecoder(br)
		if _, err := dec.Token(); err != nil { // the '['
			return nil, fmt.Errorf("userdata: %s: %w", r.path, err)
		}
		a := &arrayValues{dec: dec, max: r.opts.maxLine(), skipped: s.off, label: label}
		a.rest = func() error {
			rest := &scanner{br: bufio.NewReader(io.MultiReader(dec.Buffered(), br)), off: s.off + dec.InputOffset(), maxKey: s.maxKey}
			for range segs {
				if err := rest.finish(); err != nil {
					return fmt.Errorf("after the records array: %w", err)
				}
			}
			return rest.end()
		}
		return a, nil
	}
}

// finish reads the rest of an object after one of its member values, up
// to its closing '}'.
func (s *scanner) finish() error {
	for {
		done, err := s.after('}', "an object member")
		if done || err != nil {
			return err
		}
		if _, err := s.str(false); err != nil {
			return err
		}
		if err := s.expect(':', "':' after a member name"); err != nil {
			return err
		}
		if err := s.skip(1); err != nil {
			return err
		}
	}
}

// find reads the members of the object whose '{' was consumed until the one
// named key, leaving the scanner at its value; false if the object ends
// without it.
func (s *scanner) find(key string) (bool, error) {
	c, err := s.peek()
	if err != nil {
		return false, s.eof(err)
	}
	if c == '}' {
		s.take()
		return false, nil
	}
	for {
		k, err := s.str(true)
		if err != nil {
			return false, err
		}
		if err := s.expect(':', "':' after a member name"); err != nil {
			return false, err
		}
		if k == key {
			return true, nil
		}
		if err := s.skip(1); err != nil {
			return false, err
		}
		if done, err := s.after('}', "an object member"); done || err != nil {
			return false, err
		}
	}
}
