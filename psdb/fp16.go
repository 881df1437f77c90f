package psdb

import "math"

// FP16FromFloat32 converts f to IEEE 754 binary16 bits with
// round-to-nearest-even. Values beyond the binary16 range become ±Inf,
// values below half the smallest subnormal become ±0, and NaN stays NaN
// (quiet, keeping the top payload bits).
func FP16FromFloat32(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	a := b & 0x7fffffff
	switch {
	case a > 0x7f800000: // NaN
		return sign | 0x7e00 | uint16(a>>13)&0x3ff
	case a >= 0x477ff000: // ≥ 65520 rounds to infinity (and Inf itself)
		return sign | 0x7c00
	case a >= 0x38800000: // normal: ≥ 2^-14
		r := a + 0xfff + (a>>13)&1
		return sign | uint16((r-112<<23)>>13)
	case a >= 0x33000000: // subnormal result, possibly rounding up to 2^-14
		return sign | uint16(rneShift(a&0x7fffff|0x800000, 126-a>>23))
	}
	return sign
}

// FP16ToFloat32 converts IEEE 754 binary16 bits to float32 exactly.
func FP16ToFloat32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	e := uint32(h>>10) & 0x1f
	m := uint32(h & 0x3ff)
	switch e {
	case 0:
		// ±m × 2^-24, exact in float32.
		return math.Float32frombits(sign | math.Float32bits(float32(m)*(1.0/(1<<24))))
	case 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | m<<13)
	}
	return math.Float32frombits(sign | (e+112)<<23 | m<<13)
}

// rneShift returns m >> s rounded to nearest, ties to even. s is 1…31.
func rneShift(m, s uint32) uint32 {
	q := m >> s
	rem := m & (1<<s - 1)
	half := uint32(1) << (s - 1)
	if rem > half || (rem == half && q&1 == 1) {
		q++
	}
	return q
}
