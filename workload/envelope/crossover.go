package envelope

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/serbench/serbench/table"
)

// point is one payload size's median ns/op for a flat and a wrapped
// subject.
type point struct {
	bytes, flat, wrapped float64
	// overlap is set when the two ns/op confidence intervals overlap: at
	// this size the order of flat and wrapped is within the noise.
	overlap bool
}

// crossKind classifies how flat and wrapped compare over a size range.
type crossKind int

const (
	// crossNone: flat is not faster at the largest size measured, so it
	// never overtakes wrapped for good within the range.
	crossNone crossKind = iota
	// crossAlways: flat is faster at every size measured.
	crossAlways
	// crossAt: wrapped is faster (or equal) up to a size, flat is faster
	// from the next size on.
	crossAt
)

// crossing is where flat overtakes wrapped.
type crossing struct {
	kind crossKind
	// lo and hi are the smallest and largest sizes compared.
	lo, hi float64
	// below is the largest size at which wrapped is faster or equal and
	// at the next size measured, from which flat stays faster (crossAt).
	below, at float64
	// estimate is where the log of the time ratio, interpolated linearly
	// in log size between below and at, crosses zero (crossAt).
	estimate float64
	// flatWins counts the sizes at which flat is faster; n the sizes
	// compared and overlaps those whose intervals overlap.
	flatWins, n, overlaps int
}

// findCrossover finds the payload size from which flat stays faster than
// wrapped: the first size after the last one at which flat is not faster.
// Points with a non-positive time are ignored; sizes are sorted.
func findCrossover(pts []point) crossing {
	var ps []point
	for _, p := range pts {
		if p.flat > 0 && p.wrapped > 0 && p.bytes > 0 {
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 {
		return crossing{kind: crossNone}
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].bytes < ps[j].bytes })
	c := crossing{lo: ps[0].bytes, hi: ps[len(ps)-1].bytes, n: len(ps)}
	last := -1
	for i, p := range ps {
		if p.overlap {
			c.overlaps++
		}
		if p.flat >= p.wrapped {
			last = i
		} else {
			c.flatWins++
		}
	}
	switch {
	case last < 0:
		c.kind = crossAlways
	case last == len(ps)-1:
		c.kind = crossNone
	default:
		a, b := ps[last], ps[last+1]
		c.kind, c.below, c.at = crossAt, a.bytes, b.bytes
		ra := math.Log(a.flat / a.wrapped) // ≥ 0
		rb := math.Log(b.flat / b.wrapped) // < 0
		frac := ra / (ra - rb)
		c.estimate = math.Exp(math.Log(a.bytes) + frac*(math.Log(b.bytes)-math.Log(a.bytes)))
	}
	return c
}

// sentence describes c for the comparison what (e.g. "protobuf marshal"),
// with how many sizes were within the noise.
func (c crossing) sentence(what string) string {
	s := c.verdict(what)
	if c.overlaps > 0 {
		s += fmt.Sprintf(" At %d of %d sizes the ns/op intervals overlap (order within the noise).", c.overlaps, c.n)
	}
	return s
}

// verdict is the sentence's first part: where, if anywhere, flat
// overtakes wrapped.
func (c crossing) verdict(what string) string {
	rng := fmt.Sprintf("%s – %s", sizeText(c.lo), sizeText(c.hi))
	switch c.kind {
	case crossAlways:
		return fmt.Sprintf("%s: no crossover in range (%s): flat is faster at every size.", what, rng)
	case crossAt:
		return fmt.Sprintf("%s: flat overtakes wrapped at %s (wrapped faster or equal up to %s; interpolated crossover ≈ %s), and stays faster up to %s.",
			what, sizeText(c.at), sizeText(c.below), table.Bytes(c.estimate), sizeText(c.hi))
	default:
		if c.hi == 0 {
			return what + ": not measured."
		}
		if c.flatWins == 0 {
			return fmt.Sprintf("%s: no crossover in range (%s): wrapped is faster or equal at every size.", what, rng)
		}
		return fmt.Sprintf("%s: no crossover in range (%s): flat is not faster at the largest size.", what, rng)
	}
}

// sizeText formats a measured payload size exactly: "8 B", "16 KiB",
// "4 MiB", "1,468,000 B".
func sizeText(b float64) string {
	n := int64(b)
	switch {
	case float64(n) != b:
		return table.Bytes(b)
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	default:
		return table.Int(b) + " B"
	}
}
