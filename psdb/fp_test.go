package psdb

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/x448/float16"
)

// randFloat32 returns a float32 with random bits, biased towards the
// ranges where narrow formats are interesting.
func randFloat32(r *rand.Rand) float32 {
	switch r.IntN(4) {
	case 0:
		return math.Float32frombits(r.Uint32())
	case 1: // around FP16 range
		return float32(r.NormFloat64() * math.Pow(2, float64(r.IntN(40)-25)))
	default: // around FP8 range
		return float32(r.NormFloat64() * math.Pow(2, float64(r.IntN(30)-18)))
	}
}

func TestFP16MatchesX448(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2_000_000; i++ {
		f := randFloat32(r)
		got := FP16FromFloat32(f)
		want := float16.Fromfloat32(f)
		if f != f {
			if !want.IsNaN() || got&0x7c00 != 0x7c00 || got&0x3ff == 0 || got&0x8000 != uint16(math.Float32bits(f)>>16)&0x8000 {
				t.Fatalf("NaN %#x -> %#x", math.Float32bits(f), got)
			}
			continue
		}
		if got != want.Bits() {
			t.Fatalf("FP16FromFloat32(%g [%#x]) = %#x, x448 says %#x", f, math.Float32bits(f), got, want.Bits())
		}
	}
}

func TestFP16Exhaustive(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		f := FP16ToFloat32(uint16(h))
		if want := float16.Frombits(uint16(h)).Float32(); math.Float32bits(f) != math.Float32bits(want) && !(f != f && want != want) {
			t.Fatalf("FP16ToFloat32(%#x) = %g, x448 says %g", h, f, want)
		}
		if f != f {
			continue
		}
		if back := FP16FromFloat32(f); back != uint16(h) {
			t.Fatalf("round trip %#x -> %g -> %#x", h, f, back)
		}
	}
}

// nearestFP8 finds, by brute force over all codes, the round-to-nearest-even
// encoding of f (f finite, within range).
func nearestFP8(f float32, dec func(uint8) float32) uint8 {
	best, bestDist := -1, math.Inf(1)
	for c := 0; c < 256; c++ {
		v := float64(dec(uint8(c)))
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Signbit(v) != math.Signbit(float64(f)) {
			continue
		}
		d := math.Abs(v - float64(f))
		if d < bestDist || (d == bestDist && c&1 == 0) {
			best, bestDist = c, d
		}
	}
	return uint8(best)
}

func TestFP8RoundToNearestEven(t *testing.T) {
	formats := []struct {
		name string
		enc  func(float32) uint8
		dec  func(uint8) float32
		max  float32
	}{
		{"E4M3", FP8E4M3FromFloat32, FP8E4M3ToFloat32, 448},
		{"E4M3 saturating", FP8E4M3FromFloat32Saturating, FP8E4M3ToFloat32, 448},
		{"E5M2", FP8E5M2FromFloat32, FP8E5M2ToFloat32, 57344},
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, fm := range formats {
		t.Run(fm.name, func(t *testing.T) {
			// Exhaustive: every code round-trips, and every midpoint between
			// neighbouring codes rounds to the even one.
			for c := 0; c < 256; c++ {
				f := fm.dec(uint8(c))
				if f != f {
					continue
				}
				if got := fm.enc(f); got != uint8(c) {
					t.Fatalf("round trip %#x -> %g -> %#x", c, f, got)
				}
			}
			for i := 0; i < 300_000; i++ {
				f := randFloat32(r)
				if f != f || math.Abs(float64(f)) > float64(fm.max) {
					continue
				}
				if got, want := fm.enc(f), nearestFP8(f, fm.dec); got != want {
					t.Fatalf("%s(%g) = %#x (%g), nearest-even is %#x (%g)", fm.name, f, got, fm.dec(got), want, fm.dec(want))
				}
			}
		})
	}
}

func TestFP8Specials(t *testing.T) {
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	tests := []struct {
		name string
		got  uint8
		want uint8
	}{
		{"E4M3 448", FP8E4M3FromFloat32(448), 0x7E},
		{"E4M3 464 ties to 448", FP8E4M3FromFloat32(464), 0x7E},
		{"E4M3 465 is NaN", FP8E4M3FromFloat32(465), 0x7F},
		{"E4M3 -465 is NaN", FP8E4M3FromFloat32(-465), 0xFF},
		{"E4M3 1e9 is NaN", FP8E4M3FromFloat32(1e9), 0x7F},
		{"E4M3 +Inf is NaN", FP8E4M3FromFloat32(inf), 0x7F},
		{"E4M3 -Inf is NaN", FP8E4M3FromFloat32(-inf), 0xFF},
		{"E4M3 NaN", FP8E4M3FromFloat32(nan), 0x7F},
		{"E4M3 -NaN", FP8E4M3FromFloat32(-nan), 0xFF},
		{"E4M3 sat 448", FP8E4M3FromFloat32Saturating(448), 0x7E},
		{"E4M3 sat 464 ties to 448", FP8E4M3FromFloat32Saturating(464), 0x7E},
		{"E4M3 sat 465 saturates", FP8E4M3FromFloat32Saturating(465), 0x7E},
		{"E4M3 sat 1e9 saturates", FP8E4M3FromFloat32Saturating(1e9), 0x7E},
		{"E4M3 sat +Inf saturates", FP8E4M3FromFloat32Saturating(inf), 0x7E},
		{"E4M3 sat -Inf saturates", FP8E4M3FromFloat32Saturating(-inf), 0xFE},
		{"E4M3 sat NaN", FP8E4M3FromFloat32Saturating(nan), 0x7F},
		{"E4M3 sat 1.0", FP8E4M3FromFloat32Saturating(1), 0x38},
		{"E4M3 -0", FP8E4M3FromFloat32(float32(math.Copysign(0, -1))), 0x80},
		{"E4M3 min subnormal", FP8E4M3FromFloat32(1.0 / 512), 0x01},
		{"E4M3 half min subnormal ties to 0", FP8E4M3FromFloat32(1.0 / 1024), 0x00},
		{"E4M3 just above half min subnormal", FP8E4M3FromFloat32(1.0/1024 + 1.0/65536), 0x01},
		{"E4M3 1.0", FP8E4M3FromFloat32(1), 0x38},
		{"E5M2 max", FP8E5M2FromFloat32(57344), 0x7B},
		{"E5M2 61440 ties to inf", FP8E5M2FromFloat32(61440), 0x7C},
		{"E5M2 overflow", FP8E5M2FromFloat32(1e6), 0x7C},
		{"E5M2 -Inf", FP8E5M2FromFloat32(-inf), 0xFC},
		{"E5M2 NaN", FP8E5M2FromFloat32(nan), 0x7F},
		{"E5M2 -NaN", FP8E5M2FromFloat32(-nan), 0xFF},
		{"E5M2 1.0", FP8E5M2FromFloat32(1), 0x3C},
		{"E5M2 min subnormal", FP8E5M2FromFloat32(1.0 / 65536), 0x01},
		{"E5M2 float32 subnormal", FP8E5M2FromFloat32(1e-40), 0x00},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: got %#x, want %#x", tc.name, tc.got, tc.want)
		}
	}
	if v := FP8E4M3ToFloat32(0x7F); v == v {
		t.Error("E4M3 0x7F must decode to NaN")
	}
	if v := FP8E5M2ToFloat32(0x7C); !math.IsInf(float64(v), 1) {
		t.Error("E5M2 0x7C must decode to +Inf")
	}
}
