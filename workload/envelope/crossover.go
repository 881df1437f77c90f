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
	// wrappedFaster is the verdict on "wrapped is faster than flat" at
	// this size, from their time ratio's interval: Held and NotHeld
	// settle the order, Inconclusive leaves it open.
	wrappedFaster table.Claim
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
	// wrappedTo is the largest size at which wrapped is established
	// faster (point.wrappedFaster Held), flatFrom the smallest larger one
	// at which flat is (NotHeld); 0 when there is none. The crossover
	// lies above the one and at or below the other, whatever the medians
	// of the sizes between say.
	wrappedTo, flatFrom float64
	// settled counts the sizes at which the order is established.
	settled int
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
	for _, p := range ps {
		switch p.wrappedFaster {
		case table.Held:
			c.wrappedTo, c.flatFrom = p.bytes, 0
		case table.NotHeld:
			if c.flatFrom == 0 {
				c.flatFrom = p.bytes
			}
		}
		if p.wrappedFaster != table.Inconclusive {
			c.settled++
		}
	}
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

// near is the verdict on the seed's claim that flat overtakes wrapped
// within the sizes (lo, hi]: the established sizes bracket the crossover
// in (wrappedTo, flatFrom] (an end without one open), and the verdict is
// Held when that bracket lies inside (lo, hi], NotHeld when it lies
// outside, Inconclusive when it reaches across an edge — as when the
// intervals at the sizes next to the medians' crossover overlap.
func (c crossing) near(lo, hi float64) table.Claim {
	switch {
	case c.wrappedTo > 0 && c.wrappedTo >= hi, c.flatFrom > 0 && c.flatFrom <= lo:
		return table.NotHeld
	case c.wrappedTo >= lo && c.flatFrom > 0 && c.flatFrom <= hi:
		return table.Held
	}
	return table.Inconclusive
}

// bracket says where the established sizes put the crossover.
func (c crossing) bracket() string {
	switch {
	case c.settled == 0:
		return fmt.Sprintf("no size settles which is faster (the intervals overlap at all %d sizes)", c.n)
	case c.wrappedTo > 0 && c.flatFrom > 0:
		return fmt.Sprintf("wrapped is established faster up to %s and flat from %s, so the crossover lies between (%d of %d sizes settled)", sizeText(c.wrappedTo), sizeText(c.flatFrom), c.settled, c.n)
	case c.wrappedTo > 0:
		return fmt.Sprintf("wrapped is established faster up to %s and flat at no larger size (%d of %d sizes settled)", sizeText(c.wrappedTo), c.settled, c.n)
	default:
		return fmt.Sprintf("flat is established faster from %s and wrapped at no size (%d of %d sizes settled)", sizeText(c.flatFrom), c.settled, c.n)
	}
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

// byMedians says where the medians put the crossover, for a seed claim's
// line.
func (c crossing) byMedians() string {
	switch c.kind {
	case crossAlways:
		return "flat is faster at every size"
	case crossAt:
		return fmt.Sprintf("flat overtakes wrapped at %s (interpolated ≈ %s)", sizeText(c.at), table.Bytes(c.estimate))
	case crossNone:
		if c.flatWins == 0 {
			return "wrapped is faster or equal at every size"
		}
	}
	return "flat is not faster at the largest size"
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
