package records

import (
	"fmt"
	"iter"
	"math"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"
)

// DefaultSeed is the seed of the workload's dataset.
const DefaultSeed uint64 = 0x5e7b_0001

// BaseTimestamp is the Timestamp of record 0 before jitter: 2024-01-01T00:00:00Z
// in Unix milliseconds. Record i is stamped BaseTimestamp + i s + [0, 1000) ms.
const BaseTimestamp int64 = 1_704_067_200_000

var firstNames = [...]string{
	"Alexander", "Benjamin", "Catherine", "Dominique", "Elizabeth", "Frederick", "Gabriella", "Henrietta",
	"Isabella", "Jonathan", "Katherine", "Leonardo", "Margaret", "Nathaniel", "Octavia", "Penelope",
	"Quentin", "Rosalind", "Sebastian", "Theodore", "Ursula", "Valentina", "Wilhelmina", "Xavier",
	"Yolanda", "Zachariah", "Anastasia", "Bartholomew", "Cornelius", "Desmond", "Evangeline", "Florence",
}

var lastNames = [...]string{
	"Anderson", "Blackwood", "Carrington", "Davenport", "Eastwood", "Fitzgerald", "Goldsmith", "Harrington",
	"Ingram", "Jefferson", "Kensington", "Lancaster", "Montgomery", "Northcott", "Oglethorpe", "Pemberton",
	"Quimby", "Rutherford", "Sinclair", "Thornton", "Underwood", "Vanderbilt", "Whitfield", "Yardley",
	"Ashworth", "Brightman", "Chamberlain", "Drummond", "Ellsworth", "Fairbanks", "Galloway", "Holloway",
}

var domains = [...]string{"example.com", "mail.example", "inbox.test", "post.invalid"}

// Categories are the small set the Category field draws from.
var categories = [...]string{
	"electronic", "homegarden", "sportsgear", "automotive", "healthcare",
	"toysgames", "booksmedia", "groceries",
}

// Categories returns the values the Category field takes.
func Categories() []string { return append([]string(nil), categories[:]...) }

// Generator produces the records of one seed. Record i depends only on the seed
// and i, so any record can be regenerated on its own (to verify a file read
// back) and chunks can be generated independently. A Generator is read-only
// after New and safe for concurrent use.
type Generator struct {
	seed   uint64
	names  []string // firstNames × lastNames, "First Last"
	emails []string // firstNames × lastNames, "first.last"
}

// New returns a generator for seed.
func New(seed uint64) *Generator {
	g := &Generator{seed: seed}
	for _, f := range firstNames {
		for _, l := range lastNames {
			g.names = append(g.names, f+" "+l)
			g.emails = append(g.emails, strings.ToLower(f)+"."+strings.ToLower(l))
		}
	}
	return g
}

// Seed returns the generator's seed.
func (g *Generator) Seed() uint64 { return g.seed }

// splitmix64 scrambles the record index into the PCG stream selector.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// below returns a value in [0, n) from one PCG output (multiply-high reduction;
// its bias, below 2^-50 for these n, is irrelevant here). It is written out
// rather than using rand.Rand so the sequence is fixed by this package alone.
func below(p *rand.PCG, n uint64) uint64 {
	hi, _ := bits.Mul64(p.Uint64(), n)
	return hi
}

// draw is the random part of one record: indexes into the generator's
// tables and small numbers, from which At builds the record.
type draw struct {
	person   uint16 // index into names and emails
	emailNum uint16 // [0, 10000)
	domain   uint8
	age      uint8  // years over 18, [0, 63)
	score    uint16 // hundredths, [0, 10000]
	active   bool
	category uint8
	jitter   uint16 // milliseconds, [0, 1000)
}

// draw returns record i's random choices. Every field is drawn in a fixed
// order from one PCG stream seeded by (seed, i).
func (g *Generator) draw(i int) draw {
	var p rand.PCG
	p.Seed(g.seed, splitmix64(uint64(i)))
	var d draw
	d.person = uint16(below(&p, uint64(len(g.names))))
	d.emailNum = uint16(below(&p, 10_000))
	d.domain = uint8(below(&p, uint64(len(domains))))
	d.age = uint8(below(&p, 63))
	d.score = uint16(below(&p, 10_001))
	d.active = below(&p, 10) < 7
	d.category = uint8(below(&p, uint64(len(categories))))
	d.jitter = uint16(below(&p, 1000))
	return d
}

// appendEmail appends the email of a record with draw d to b.
func (g *Generator) appendEmail(b []byte, d draw) []byte {
	b = append(b, g.emails[d.person]...)
	b = strconv.AppendUint(b, uint64(d.emailNum), 10)
	b = append(b, '@')
	return append(b, domains[d.domain]...)
}

// fill sets r to record i with draw d and the given email.
func (g *Generator) fill(i int, d draw, email string, r *Record) {
	r.ID = int64(i) + 1
	r.Name = g.names[d.person]
	r.Email = email
	r.Age = 18 + int(d.age)
	r.Score = float64(d.score) / 100
	r.Active = d.active
	r.Category = categories[d.category]
	r.Timestamp = BaseTimestamp + int64(i)*1000 + int64(d.jitter)
}

// At fills r with record i (0-based). Record i has ID i+1.
func (g *Generator) At(i int, r *Record) {
	d := g.draw(i)
	var buf [64]byte
	g.fill(i, d, string(g.appendEmail(buf[:0], d)), r)
}

// All yields records 0..n-1 one at a time. The yielded pointer refers to one
// reused Record, valid only until the next iteration; memory use does not grow
// with n. The int is the record's index.
func (g *Generator) All(n int) iter.Seq2[int, *Record] {
	return func(yield func(int, *Record) bool) {
		var r Record
		for i := 0; i < n; i++ {
			g.At(i, &r)
			if !yield(i, &r) {
				return
			}
		}
	}
}

// Records yields records 0..n-1 like All, without the index.
func (g *Generator) Records(n int) iter.Seq[*Record] {
	return func(yield func(*Record) bool) {
		var r Record
		for i := 0; i < n; i++ {
			g.At(i, &r)
			if !yield(&r) {
				return
			}
		}
	}
}

// Chunks yields records 0..n-1 in slices of up to size records. The slice is
// reused between iterations; copy records that must outlive one.
func (g *Generator) Chunks(n, size int) iter.Seq[[]Record] {
	return func(yield func([]Record) bool) {
		if size <= 0 {
			size = 1
		}
		chunk := make([]Record, size)
		for start := 0; start < n; start += size {
			c := chunk[:min(size, n-start)]
			for j := range c {
				g.At(start+j, &c[j])
			}
			if !yield(c) {
				return
			}
		}
	}
}

// Slice materialises records 0..n-1 as Go values: about 120 bytes and one
// pointer-holding object per record. For many records, Table holds the same
// records in a third of the memory, with nothing for the GC to scan.
func (g *Generator) Slice(n int) []Record {
	out := make([]Record, n)
	for i := range out {
		g.At(i, &out[i])
	}
	return out
}

// Verify returns a function that checks that got is record i, regenerating the
// expected record rather than holding the dataset in memory. The function is
// not safe for concurrent use.
func (g *Generator) Verify() func(i int, got *Record) error {
	var want Record
	return func(i int, got *Record) error {
		if i < 0 {
			return fmt.Errorf("records: negative index %d", i)
		}
		g.At(i, &want)
		if d := Diff(got, &want); d != "" {
			return fmt.Errorf("records: record %d: %s", i, d)
		}
		return nil
	}
}

// Table holds records 0..n-1 of a generator in memory without pointers:
// 16 bytes per record plus every email in one shared string, about 46 MB
// for 1M records, and nothing the garbage collector has to mark record by
// record. At fills a Record from it without allocating: the strings refer to
// the generator's tables and to the shared email string. A Table is
// read-only after NewTable and safe for concurrent use.
type Table struct {
	g      *Generator
	rows   []packedRecord
	emails string
}

// packedRecord is one record of a Table; ID and the whole-second part of
// Timestamp follow from the index.
type packedRecord struct {
	emailOff uint32
	person   uint16
	score    uint16
	jitter   uint16
	emailLen uint8
	age      uint8
	category uint8
	active   bool
}

// maxTableRecords bounds NewTable: the emails of a Table are addressed
// with 32-bit offsets, and each is at most 40 bytes.
const maxTableRecords = math.MaxUint32 / 40

// NewTable generates records 0..n-1 of g into a Table.
func NewTable(g *Generator, n int) (*Table, error) {
	if n < 0 || n > maxTableRecords {
		return nil, fmt.Errorf("records: table of %d records: want 0..%d", n, maxTableRecords)
	}
	t := &Table{g: g, rows: make([]packedRecord, n)}
	emails := make([]byte, 0, n*32)
	for i := range t.rows {
		d := g.draw(i)
		off := len(emails)
		emails = g.appendEmail(emails, d)
		t.rows[i] = packedRecord{emailOff: uint32(off), emailLen: uint8(len(emails) - off),
			person: d.person, age: d.age, score: d.score, active: d.active, category: d.category, jitter: d.jitter}
	}
	t.emails = string(emails)
	return t, nil
}

// Len returns the number of records.
func (t *Table) Len() int { return len(t.rows) }

// At fills r with record i, 0 <= i < Len(), without allocating.
func (t *Table) At(i int, r *Record) {
	p := &t.rows[i]
	d := draw{person: p.person, age: p.age, score: p.score, active: p.active, category: p.category, jitter: p.jitter}
	t.g.fill(i, d, t.emails[p.emailOff:p.emailOff+uint32(p.emailLen)], r)
}

// Records yields the first n records (at most Len()) one at a time. The
// yielded pointer refers to one reused Record, valid only until the next
// iteration.
func (t *Table) Records(n int) iter.Seq[*Record] {
	n = min(n, len(t.rows))
	return func(yield func(*Record) bool) {
		var r Record
		for i := 0; i < n; i++ {
			t.At(i, &r)
			if !yield(&r) {
				return
			}
		}
	}
}

// Verify returns a function that checks that got is record i of the table.
// The function is not safe for concurrent use.
func (t *Table) Verify() func(i int, got *Record) error {
	var want Record
	return func(i int, got *Record) error {
		if i < 0 || i >= len(t.rows) {
			return fmt.Errorf("records: record index %d outside 0..%d", i, len(t.rows)-1)
		}
		t.At(i, &want)
		if !Equal(got, &want) {
			return fmt.Errorf("records: record %d: %s", i, Diff(got, &want))
		}
		return nil
	}
}
