package psdb

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func newCodec(t testing.TB, opts ...CodecOption) *Codec {
	t.Helper()
	c, err := NewCodec(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestCodecCompressible(t *testing.T) {
	c := newCodec(t)
	vals := make([]int32, 10000)
	for i := range vals {
		vals[i] = int32(i % 10)
	}
	raw, err := AppendInt32s(nil, Header{SchemaVersion: 5}, vals)
	if err != nil {
		t.Fatal(err)
	}
	block, err := c.Compress(slices.Clone(raw))
	if err != nil {
		t.Fatal(err)
	}
	h, err := ParseHeader(block)
	if err != nil {
		t.Fatal(err)
	}
	if h.Compression != CompressionZstd || len(block) >= len(raw) {
		t.Fatalf("compression %s, %d bytes (raw %d)", h.Compression, len(block), len(raw))
	}
	if !bytes.Equal(block[:7], raw[:7]) || block[8] != raw[8] {
		t.Fatal("compression must only touch the compression bits of the header")
	}
	if _, err := Parse(block, nil); !errors.Is(err, ErrCompressed) {
		t.Fatalf("package Parse on compressed block: %v", err)
	}
	blk, err := c.Parse(block, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := blk.AppendInt32s(nil)
	if err != nil || !slices.Equal(got, vals) {
		t.Fatalf("decoded mismatch: %v", err)
	}
	back, err := c.AppendDecompressed(nil, block)
	if err != nil || !bytes.Equal(back, raw) {
		t.Fatalf("AppendDecompressed: %v", err)
	}
	if _, err := c.Compress(block); !errors.Is(err, ErrCompression) {
		t.Fatalf("double compression: %v", err)
	}
}

func TestCodecIncompressibleStaysRaw(t *testing.T) {
	c := newCodec(t)
	r := rand.New(rand.NewPCG(1, 1))
	vals := make([]uint64, 512)
	for i := range vals {
		vals[i] = r.Uint64()
	}
	raw, _ := AppendUint64s(nil, Header{}, vals)
	block, err := c.Compress(slices.Clone(raw))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(block, raw) {
		t.Fatal("incompressible data must be stored raw with compression 0")
	}
	// Tiny and empty blocks also stay raw.
	for _, n := range []int{0, 1, 3} {
		raw, _ := AppendInt32s(nil, Header{}, make([]int32, n))
		if block, err := c.Compress(slices.Clone(raw)); err != nil || !bytes.Equal(block, raw) {
			t.Fatalf("n=%d: %v", n, err)
		}
	}
}

func TestCodecDecompressionLimit(t *testing.T) {
	big := newCodec(t)
	raw, _ := AppendInt32s(nil, Header{}, make([]int32, 100_000))
	block, err := big.Compress(raw)
	if err != nil {
		t.Fatal(err)
	}
	small := newCodec(t, WithMaxDecodedSize(100_000))
	if _, err := small.Parse(block, nil); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("400 KB bomb under a 100 KB limit: %v", err)
	}
	if _, err := big.Parse(block, nil); err != nil {
		t.Fatal(err)
	}
}

func TestCodecCorrupt(t *testing.T) {
	c := newCodec(t)
	b := []byte{0, 0, 0, 0, 0, 0, 0, 1<<4 | 1<<1, byte(TypeInt32) << 4, 1, 2, 3, 4}
	if _, err := c.Parse(b, nil); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("err = %v", err)
	}
	// A valid zstd frame whose content has a bad length for the type.
	enc, _ := zstd.NewWriter(nil)
	defer enc.Close()
	b = append(b[:HeaderLen], enc.EncodeAll([]byte{1, 2, 3}, nil)...)
	if _, err := c.Parse(b, nil); !errors.Is(err, ErrDataLength) {
		t.Fatalf("err = %v", err)
	}
}

func TestCodecAllocs(t *testing.T) {
	c := newCodec(t)
	vals := make([]int32, 4096)
	for i := range vals {
		vals[i] = int32(i & 63)
	}
	buf := make([]byte, 0, 1<<16)
	out := make([]int32, 0, len(vals))
	run := func() {
		b, err := AppendInt32s(buf[:0], Header{}, vals)
		if err != nil {
			t.Fatal(err)
		}
		if b, err = c.Compress(b); err != nil {
			t.Fatal(err)
		}
		blk, err := c.Parse(b, nil)
		if err != nil {
			t.Fatal(err)
		}
		if out, err = blk.AppendInt32s(out[:0]); err != nil {
			t.Fatal(err)
		}
	}
	run() // warm up scratch buffers
	if a := testing.AllocsPerRun(20, run); a != 0 {
		t.Fatalf("%v allocs per compress+decompress round trip, want 0", a)
	}
}
