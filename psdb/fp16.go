package psdb

import "math"

// FP16FromFloat32 converts f to IEEE 754 binary16 bits with
// round-to-nearest-even. Values beyond the binary16 range become ±Inf,
// values below half the smallest subnormal become ±0, and NaN stays NaN
// (quiet, keeping the top payload bits). The results equal those of
// github.com/x448/float16, which the reference implementation uses.
//
// Values that convert to a normal binary16 take an inlined path of a few
// integer operations (rounding as in F. Giesen's float_to_half_fast3_rtne);
// the rest take fp16Special.
func FP16FromFloat32(f float32) uint16 {
	u := math.Float32bits(f)
	a := u & 0x7fffffff
	if a-0x38800000 < 0x477ff000-0x38800000 { // 2^-14 ≤ |f| < 65520: normal result
		// Rebias the exponent (-112<<23) and round to nearest even.
		return uint16((a+0xc8000fff+(a>>13)&1)>>13) | uint16(u>>16)&0x8000
	}
	return fp16Special(u)
}

// fp16Special converts the float32 bits u whose result is zero,
// subnormal, infinite or NaN.
func fp16Special(u uint32) uint16 {
	sign := uint16(u>>16) & 0x8000
	a := u & 0x7fffffff
	switch {
	case a > 0x7f800000: // NaN
		return sign | 0x7e00 | uint16(a>>13)&0x3ff
	case a >= 0x477ff000: // ≥ 65520 rounds to infinity (and Inf itself)
		return sign | 0x7c00
	case a >= 0x38800000: // normal (not reached from FP16FromFloat32)
		r := a + 0xfff + (a>>13)&1
		return sign | uint16((r-112<<23)>>13)
	case a >= 0x33000000: // subnormal result, possibly rounding up to 2^-14
		return sign | uint16(rneShift(a&0x7fffff|0x800000, 126-a>>23))
	}
	return sign
}

// FP16ToFloat32 converts IEEE 754 binary16 bits to float32 exactly.
// Normal values take an inlined path of a few integer operations.
func FP16ToFloat32(h uint16) float32 {
	m := uint32(h & 0x7fff)
	if m-0x400 < 0x7c00-0x400 { // normal: rebias the exponent by +112
		return math.Float32frombits((m<<13 + 112<<23) | uint32(h&0x8000)<<16)
	}
	return fp16ToFloat32Special(h)
}

// fp16ToFloat32Special converts zero, subnormal, infinite and NaN halves.
func fp16ToFloat32Special(h uint16) float32 {
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
