package records

import (
	"fmt"
	"iter"
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

// Scale is a named dataset size.
type Scale struct {
	Name    string
	Records int
}

// Scales returns the workload's scales: quick (100,000 records), default and full
// (1,000,000, the seed's size).
func Scales() []Scale {
	return []Scale{{"quick", 100_000}, {"default", 1_000_000}, {"full", 1_000_000}}
}

// ScaleRecords returns the number of records of the named scale.
func ScaleRecords(name string) (int, error) {
	names := make([]string, 0, 3)
	for _, s := range Scales() {
		if s.Name == name {
			return s.Records, nil
		}
		names = append(names, s.Name)
	}
	return 0, fmt.Errorf("records: unknown scale %q (valid: %s)", name, strings.Join(names, ", "))
}

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

// At fills r with record i (0-based). Record i has ID i+1.
func (g *Generator) At(i int, r *Record) {
	var p rand.PCG
	p.Seed(g.seed, splitmix64(uint64(i)))
	person := below(&p, uint64(len(g.names)))
	r.ID = int64(i) + 1
	r.Name = g.names[person]
	var buf [64]byte
	e := append(buf[:0], g.emails[person]...)
	e = strconv.AppendUint(e, below(&p, 10_000), 10)
	e = append(e, '@')
	e = append(e, domains[below(&p, uint64(len(domains)))]...)
	r.Email = string(e)
	r.Age = 18 + int(below(&p, 63))
	r.Score = float64(below(&p, 10_001)) / 100
	r.Active = below(&p, 10) < 7
	r.Category = categories[below(&p, uint64(len(categories)))]
	r.Timestamp = BaseTimestamp + int64(i)*1000 + int64(below(&p, 1000))
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

// Slice materialises records 0..n-1; for tests and small n.
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
