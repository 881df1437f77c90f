package psdb

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The files in testdata/reference were written by the reference
// implementation (see testdata/reference/README.md). The input generators
// below must stay identical to the generator's.

func refInt(i int) int32     { return int32((i*i)%97) - 40 }
func refUint(i int) uint32   { return uint32((i*i)%97) + 3 }
func refFloat(i int) float32 { return float32((i*i)%37)*0.25 - 3 }
func refBool(i int) bool     { return i%3 == 0 || i%7 == 0 }
func refString(i int) string { return "feat-" + strconv.Itoa((i*i)%50) }

const refStrMax = 8

// refVecLens splits n values into vectors of lengths 1, 2, 3, 4, 1, …
// (the last one cut short).
func refVecLens(n int) []int {
	var l []int
	for s, k := 0, 0; s < n; k++ {
		v := min(k%4+1, n-s)
		l = append(l, v)
		s += v
	}
	return l
}

func refScalars[T any](n int, f func(int) T) []T {
	v := make([]T, n)
	for i := range v {
		v[i] = f(i)
	}
	return v
}

func refVectors[T any](n int, f func(int) T) [][]T {
	var out [][]T
	i := 0
	for _, l := range refVecLens(n) {
		v := make([]T, l)
		for k := range v {
			v[k] = f(i)
			i++
		}
		out = append(out, v)
	}
	return out
}

func f64of(f func(int) float32) func(int) float64 {
	return func(i int) float64 { return float64(f(i)) }
}
func i64of(f func(int) int32) func(int) int64   { return func(i int) int64 { return int64(f(i)) } }
func u64of(f func(int) uint32) func(int) uint64 { return func(i int) uint64 { return uint64(f(i)) } }

// refBlock writes, uncompressed, the block the reference generator wrote
// for type dt and n values (schema version 7, no expiry).
func refBlock(t testing.TB, dt DataType, n int) []byte {
	t.Helper()
	h := Header{SchemaVersion: 7}
	var s *Schema
	var err error
	if dt.IsVector() {
		var maxStr []int
		vl := refVecLens(n)
		if dt.IsString() {
			maxStr = refScalars(len(vl), func(int) int { return refStrMax })
		}
		s, err = NewSchema(7, dt, len(vl), vl, maxStr)
	} else if dt.IsString() {
		s, err = NewSchema(7, dt, n, nil, refScalars(n, func(int) int { return refStrMax }))
	}
	if err != nil {
		t.Fatal(err)
	}
	var b []byte
	switch dt {
	case TypeFP8E5M2:
		b, err = AppendFP8E5M2s(nil, h, refScalars(n, refFloat))
	case TypeFP8E4M3:
		b, err = AppendFP8E4M3s(nil, h, refScalars(n, refFloat))
	case TypeFP16:
		b, err = AppendFP16s(nil, h, refScalars(n, refFloat))
	case TypeFP32:
		b, err = AppendFloat32s(nil, h, refScalars(n, refFloat))
	case TypeFP64:
		b, err = AppendFloat64s(nil, h, refScalars(n, f64of(refFloat)))
	case TypeInt8:
		b, err = AppendInt8s(nil, h, refScalars(n, refInt))
	case TypeInt16:
		b, err = AppendInt16s(nil, h, refScalars(n, refInt))
	case TypeInt32:
		b, err = AppendInt32s(nil, h, refScalars(n, refInt))
	case TypeInt64:
		b, err = AppendInt64s(nil, h, refScalars(n, i64of(refInt)))
	case TypeUint8:
		b, err = AppendUint8s(nil, h, refScalars(n, refUint))
	case TypeUint16:
		b, err = AppendUint16s(nil, h, refScalars(n, refUint))
	case TypeUint32:
		b, err = AppendUint32s(nil, h, refScalars(n, refUint))
	case TypeUint64:
		b, err = AppendUint64s(nil, h, refScalars(n, u64of(refUint)))
	case TypeString:
		b, err = AppendStrings(nil, h, s, refScalars(n, refString))
	case TypeBool:
		b, err = AppendBools(nil, h, refScalars(n, refBool))
	case TypeFP8E5M2Vector:
		b, err = AppendFP8E5M2Vectors(nil, h, s, refVectors(n, refFloat))
	case TypeFP8E4M3Vector:
		b, err = AppendFP8E4M3Vectors(nil, h, s, refVectors(n, refFloat))
	case TypeFP16Vector:
		b, err = AppendFP16Vectors(nil, h, s, refVectors(n, refFloat))
	case TypeFP32Vector:
		b, err = AppendFloat32Vectors(nil, h, s, refVectors(n, refFloat))
	case TypeFP64Vector:
		b, err = AppendFloat64Vectors(nil, h, s, refVectors(n, f64of(refFloat)))
	case TypeInt8Vector:
		b, err = AppendInt8Vectors(nil, h, s, refVectors(n, refInt))
	case TypeInt16Vector:
		b, err = AppendInt16Vectors(nil, h, s, refVectors(n, refInt))
	case TypeInt32Vector:
		b, err = AppendInt32Vectors(nil, h, s, refVectors(n, refInt))
	case TypeInt64Vector:
		b, err = AppendInt64Vectors(nil, h, s, refVectors(n, i64of(refInt)))
	case TypeUint8Vector:
		b, err = AppendUint8Vectors(nil, h, s, refVectors(n, refUint))
	case TypeUint16Vector:
		b, err = AppendUint16Vectors(nil, h, s, refVectors(n, refUint))
	case TypeUint32Vector:
		b, err = AppendUint32Vectors(nil, h, s, refVectors(n, refUint))
	case TypeUint64Vector:
		b, err = AppendUint64Vectors(nil, h, s, refVectors(n, u64of(refUint)))
	case TypeStringVector:
		b, err = AppendStringVectors(nil, h, s, refVectors(n, refString))
	case TypeBoolVector:
		b, err = AppendBoolVectors(nil, h, s, refVectors(n, refBool))
	default:
		t.Fatalf("no writer for %s", dt)
	}
	if err != nil {
		t.Fatalf("%s n=%d: %v", dt, n, err)
	}
	return b
}

type refZstdCase struct {
	dt    DataType
	n     int
	block []byte
}

func readRefZstdCases(t *testing.T) []refZstdCase {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "reference", "zstd_blocks.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []refZstdCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var dt, n int
		var hx string
		if _, err := fmt.Sscan(line, &dt, &n, &hx); err != nil {
			t.Fatalf("bad line %q: %v", line, err)
		}
		b, err := hex.DecodeString(hx)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, refZstdCase{DataType(dt), n, b})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestReferenceZstdBlocks checks byte-for-byte equality with blocks the
// reference wrote with zstd enabled (compressed where that was smaller),
// and that ours decompress to the same raw block.
func TestReferenceZstdBlocks(t *testing.T) {
	cases := readRefZstdCases(t)
	if len(cases) != 90 {
		t.Fatalf("%d reference cases, want 90", len(cases))
	}
	c := newCodec(t)
	compressed := 0
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/n=%d", tc.dt, tc.n), func(t *testing.T) {
			raw := refBlock(t, tc.dt, tc.n)
			got, err := c.Compress(bytes.Clone(raw))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tc.block) {
				t.Errorf("compressed block differs from the reference's\ngot  %x\nwant %x", got, tc.block)
			}
			back, err := c.AppendDecompressed(nil, tc.block)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(back, raw) {
				t.Errorf("reference block decompresses to\n%x\nwant %x", back, raw)
			}
		})
		if tc.block[7]>>compressionShift&compressionMask == uint8(CompressionZstd) {
			compressed++
		}
	}
	if compressed < 60 {
		t.Errorf("only %d of %d reference blocks are compressed; the test data no longer exercises zstd", compressed, len(cases))
	}
}

// fp8RefSample is sample j of float32 exponent field e and sign s in the
// reference conversion tables: the top 8 mantissa bits enumerate all
// values, the low 15 bits take one of five patterns (0, 1, just below
// half, half, all ones), so every rounding case of every exponent
// (zero, subnormal, normal, Inf, NaN) is covered.
func fp8RefSample(s, e, j uint32) float32 {
	low := [...]uint32{0, 1, 0x3fff, 0x4000, 0x7fff}
	m := (j/5)<<15 | low[j%5]
	return math.Float32frombits(s<<31 | e<<23 | m)
}

const fp8RefPerExp = 256 * 5

func readGzip(t *testing.T, name string) []byte {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "reference", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// forRefSamples calls fn for every sample of the reference tables, with
// its index.
func forRefSamples(fn func(k int, f float32)) {
	k := 0
	for s := uint32(0); s < 2; s++ {
		for e := uint32(0); e < 256; e++ {
			for j := uint32(0); j < fp8RefPerExp; j++ {
				fn(k, fp8RefSample(s, e, j))
				k++
			}
		}
	}
}

func TestReferenceFP8FromFloat32(t *testing.T) {
	for _, tc := range []struct {
		file string
		conv func(float32) uint8
	}{
		{"fp8e4m3_from_fp32.bin.gz", FP8E4M3FromFloat32},
		{"fp8e5m2_from_fp32.bin.gz", FP8E5M2FromFloat32},
	} {
		t.Run(tc.file, func(t *testing.T) {
			want := readGzip(t, tc.file)
			if len(want) != 2*256*fp8RefPerExp {
				t.Fatalf("%d samples", len(want))
			}
			bad := 0
			forRefSamples(func(k int, f float32) {
				if got := tc.conv(f); got != want[k] && bad < 10 {
					bad++
					t.Errorf("%g (%#08x): got %#02x, reference %#02x", f, math.Float32bits(f), got, want[k])
				}
			})
		})
	}
}

// TestReferenceFP16FromFloat32 compares FP16FromFloat32 with the
// reference's conversion over the same samples; the 1.3 MB table is
// recorded as its SHA-256.
func TestReferenceFP16FromFloat32(t *testing.T) {
	const want = "15b9cd4f81fb9f126d4097d4cb832753f971767ad3492faef11f870744b6763a"
	out := make([]byte, 0, 4*256*fp8RefPerExp)
	forRefSamples(func(_ int, f float32) { out = binary.LittleEndian.AppendUint16(out, FP16FromFloat32(f)) })
	if got := fmt.Sprintf("%x", sha256.Sum256(out)); got != want {
		t.Fatalf("SHA-256 of FP16 conversions %s, reference %s", got, want)
	}
}

func TestReferenceFP8ToFloat32(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "reference", "fp8_to_fp32.hex"))
	if err != nil {
		t.Fatal(err)
	}
	tab, err := hex.DecodeString(strings.TrimSpace(string(raw)))
	if err != nil || len(tab) != 256*8 {
		t.Fatalf("bad table: %d bytes, %v", len(tab), err)
	}
	for c := 0; c < 256; c++ {
		for k, conv := range []func(uint8) float32{FP8E4M3ToFloat32, FP8E5M2ToFloat32} {
			want := math.Float32frombits(binary.LittleEndian.Uint32(tab[8*c+4*k:]))
			got := conv(uint8(c))
			if want != want && got != got {
				continue
			}
			if math.Float32bits(got) != math.Float32bits(want) {
				t.Errorf("format %d code %#02x: got %g, reference %g", k, c, got, want)
			}
		}
	}
}

// TestReferenceStalePadding reads a block the reference wrote from a
// pooled buffer last used for a bool block: its padding nibble is stale.
func TestReferenceStalePadding(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "reference", "stale_padding.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var stale []byte
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		name, hx, _ := strings.Cut(line, " ")
		if name == "int32" {
			stale, err = hex.DecodeString(hx)
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(stale) < HeaderLen || stale[8]&boolPaddingMask == 0 {
		t.Fatalf("test data has no stale padding: %x", stale)
	}
	blk, err := Parse(stale, nil)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if p := blk.Header().BoolPadding; p != 0 {
		t.Errorf("BoolPadding %d for an Int32 block, want 0", p)
	}
	got, err := blk.AppendInt32s(nil)
	if err != nil || len(got) != 2 || got[0] != 70 || got[1] != -3 {
		t.Fatalf("values %v, %v", got, err)
	}
	// Re-encoding writes a zero nibble.
	again, err := AppendInt32s(nil, blk.Header(), got)
	if err != nil {
		t.Fatal(err)
	}
	if again[8]&boolPaddingMask != 0 || !bytes.Equal(again[:8], stale[:8]) || !bytes.Equal(again[9:], stale[9:]) {
		t.Errorf("re-encoded %x from %x", again, stale)
	}
	if _, err := Parse([]byte{0x09, 0, 0, 0, 0, 0, 0, 0x10, 0xf8}, nil); !errors.Is(err, ErrBoolPadding) {
		t.Errorf("bool padding 8: %v", err)
	}
}
