package psdb

import "math"

// roundMagnitude returns the round-to-nearest-even encoding of the finite,
// non-negative float32 whose bits are a, in a binary format with the given
// exponent bias and mantissa bits. The result may exceed the format's
// largest finite encoding; callers handle overflow.
func roundMagnitude(a, bias, mbits uint32) uint32 {
	e := a >> 23
	if e >= 128-bias { // normal in the target format
		s := 23 - mbits
		r := a + (1<<(s-1) - 1) + (a>>s)&1
		return r>>s - (127-bias)<<mbits
	}
	if e == 0 { // float32 subnormal: far below any FP8 subnormal
		return 0
	}
	s := 151 - bias - mbits - e
	if s > 24 {
		return 0
	}
	return rneShift(a&0x7fffff|0x800000, s)
}

// FP8E4M3FromFloat32 converts f to FP8 E4M3 ("E4M3FN": bias 7, no
// infinities, NaN = S.1111.111) with round-to-nearest-even, as the
// reference implementation does.
//
// E4M3 has no infinity: finite values whose rounded magnitude exceeds 448
// (that is, |f| > 464), ±Inf and NaN all become NaN (0x7F, or 0xFF with a
// negative sign). Values below half the smallest subnormal (2^-10) become
// ±0. [FP8E4M3FromFloat32Saturating] clamps to ±448 instead.
func FP8E4M3FromFloat32(f float32) uint8 {
	b := math.Float32bits(f)
	a := b & 0x7fffffff
	if a-0x3c800000 < 0x43e80000-0x3c800000 { // 2^-6 ≤ |f| < 464: normal result
		// Rebias the exponent (-120<<23) and round to nearest even.
		return uint8((a+0xc407ffff+(a>>20)&1)>>20) | uint8(b>>24)&0x80
	}
	return fp8E4M3Special(b)
}

// fp8E4M3Special is FP8E4M3FromFloat32 for results that are zero,
// subnormal or NaN.
func fp8E4M3Special(b uint32) uint8 {
	sign := uint8(b>>24) & 0x80
	a := b & 0x7fffffff
	if a >= 0x7f800000 { // Inf, NaN
		return sign | 0x7f
	}
	r := roundMagnitude(a, 7, 3)
	if r > 0x7e {
		r = 0x7f
	}
	return sign | uint8(r)
}

// FP8E4M3FromFloat32Saturating is FP8E4M3FromFloat32 with saturation:
// finite values whose rounded magnitude exceeds 448, and ±Inf, become
// ±448 (0x7E/0xFE); NaN still becomes NaN (0x7F/0xFF). This is not what
// the reference implementation writes.
func FP8E4M3FromFloat32Saturating(f float32) uint8 {
	b := math.Float32bits(f)
	if a := b & 0x7fffffff; a-0x3c800000 < 0x43e80000-0x3c800000 { // normal result
		return uint8((a+0xc407ffff+(a>>20)&1)>>20) | uint8(b>>24)&0x80
	}
	sign := uint8(b>>24) & 0x80
	a := b & 0x7fffffff
	if a > 0x7f800000 {
		return sign | 0x7f
	}
	if a == 0x7f800000 {
		return sign | 0x7e
	}
	r := roundMagnitude(a, 7, 3)
	if r > 0x7e {
		r = 0x7e
	}
	return sign | uint8(r)
}

// FP8E4M3ToFloat32 converts FP8 E4M3 bits to float32 exactly; 0x7F and
// 0xFF are NaN. It reads a 256-entry constant table.
func FP8E4M3ToFloat32(v uint8) float32 { return tab32(e4m3Tab, v) }

// FP8E5M2ToFloat32 converts FP8 E5M2 bits to float32 exactly. It reads a
// 256-entry constant table.
func FP8E5M2ToFloat32(v uint8) float32 { return tab32(e5m2Tab, v) }

// tab32 returns entry c of a table of 256 little-endian float32s.
func tab32(tab string, c uint8) float32 {
	i := 4 * int(c)
	return math.Float32frombits(uint32(tab[i]) | uint32(tab[i+1])<<8 | uint32(tab[i+2])<<16 | uint32(tab[i+3])<<24)
}

// fp8E4M3ToFloat32Arith computes FP8E4M3ToFloat32 (it generates the table).
func fp8E4M3ToFloat32Arith(v uint8) float32 {
	if m := uint32(v & 0x7f); m-0x08 < 0x7f-0x08 { // normal: rebias by +120
		return math.Float32frombits((m<<20 + 120<<23) | uint32(v&0x80)<<24)
	}
	return fp8E4M3ToFloat32Special(v)
}

// fp8E4M3ToFloat32Special converts zero, subnormal and NaN E4M3 codes.
func fp8E4M3ToFloat32Special(v uint8) float32 {
	sign := uint32(v&0x80) << 24
	e := uint32(v>>3) & 0xf
	m := uint32(v & 7)
	switch {
	case e == 0xf && m == 7:
		return math.Float32frombits(sign | 0x7fc00000)
	case e == 0:
		return math.Float32frombits(sign | math.Float32bits(float32(m)*(1.0/(1<<9))))
	}
	return math.Float32frombits(sign | (e+120)<<23 | m<<20)
}

// FP8E5M2FromFloat32 converts f to FP8 E5M2 (IEEE-style: bias 15,
// infinities and NaN as in binary16) with round-to-nearest-even. Values
// whose rounded magnitude exceeds 57,344 become ±Inf, NaN becomes 0x7F
// with f's sign bit (as in the reference implementation), and values below
// half the smallest subnormal (2^-17) become ±0.
func FP8E5M2FromFloat32(f float32) uint8 {
	b := math.Float32bits(f)
	a := b & 0x7fffffff
	if a-0x38800000 < 0x47700000-0x38800000 { // 2^-14 ≤ |f| < 61440: normal result
		// Rebias the exponent (-112<<23) and round to nearest even.
		return uint8((a+0xc80fffff+(a>>21)&1)>>21) | uint8(b>>24)&0x80
	}
	return fp8E5M2Special(b)
}

// fp8E5M2Special is FP8E5M2FromFloat32 for results that are zero,
// subnormal, infinite or NaN.
func fp8E5M2Special(b uint32) uint8 {
	sign := uint8(b>>24) & 0x80
	a := b & 0x7fffffff
	if a > 0x7f800000 {
		return sign | 0x7f
	}
	if a == 0x7f800000 {
		return sign | 0x7c
	}
	r := roundMagnitude(a, 15, 2)
	if r > 0x7b {
		r = 0x7c
	}
	return sign | uint8(r)
}

// fp8E5M2ToFloat32Arith computes FP8E5M2ToFloat32 (it generates the table).
func fp8E5M2ToFloat32Arith(v uint8) float32 {
	if m := uint32(v & 0x7f); m-0x04 < 0x7c-0x04 { // normal: rebias by +112
		return math.Float32frombits((m<<21 + 112<<23) | uint32(v&0x80)<<24)
	}
	return fp8E5M2ToFloat32Special(v)
}

// fp8E5M2ToFloat32Special converts zero, subnormal, infinite and NaN E5M2
// codes.
func fp8E5M2ToFloat32Special(v uint8) float32 {
	sign := uint32(v&0x80) << 24
	e := uint32(v>>2) & 0x1f
	m := uint32(v & 3)
	switch e {
	case 0:
		return math.Float32frombits(sign | math.Float32bits(float32(m)*(1.0/(1<<16))))
	case 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | m<<21)
	}
	return math.Float32frombits(sign | (e+112)<<23 | m<<21)
}
