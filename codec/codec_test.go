package codec

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files and fuzz seed corpora")

// allSpecs lists every codec at its default and at its extreme levels.
func allSpecs(t testing.TB) []string {
	t.Helper()
	r := Default()
	var specs []string
	for _, n := range r.Names() {
		f, _ := r.Factory(n)
		specs = append(specs, n)
		if f.HasLevels {
			specs = append(specs, fmt.Sprintf("%s:%d", n, f.MinLevel), fmt.Sprintf("%s:%d", n, f.MaxLevel))
		}
	}
	return specs
}

// slowSpec reports codec levels too slow to run on large inputs in unit tests.
func slowSpec(spec string) bool { return spec == "brotli:11" }

func TestParse(t *testing.T) {
	tests := []struct {
		spec      string
		wantSpec  string
		wantLevel int
		wantErr   string
	}{
		{spec: "none", wantSpec: "none"},
		{spec: "zstd", wantSpec: "zstd", wantLevel: 3},
		{spec: "zstd:19", wantSpec: "zstd:19", wantLevel: 19},
		{spec: "ZSTD:1", wantSpec: "zstd:1", wantLevel: 1},
		{spec: "gzip:9", wantSpec: "gzip:9", wantLevel: 9},
		{spec: "gzip", wantSpec: "gzip", wantLevel: 6},
		{spec: "brotli:11", wantSpec: "brotli:11", wantLevel: 11},
		{spec: "brotli", wantSpec: "brotli", wantLevel: 6},
		{spec: "lz4", wantSpec: "lz4", wantLevel: 0},
		{spec: "lz4:9", wantSpec: "lz4:9", wantLevel: 9},
		{spec: "s2:3", wantSpec: "s2:3", wantLevel: 3},
		{spec: "xz", wantSpec: "xz"},
		{spec: "snappy", wantSpec: "snappy"},
		{spec: "zip", wantErr: "unknown codec \"zip\" (valid: none, gzip, zstd, lz4, brotli, xz, snappy, s2)"},
		{spec: "", wantErr: "unknown codec"},
		{spec: "zstd:23", wantErr: "invalid level \"23\" for zstd (valid: 1..22, default 3)"},
		{spec: "zstd:0", wantErr: "valid: 1..22"},
		{spec: "gzip:x", wantErr: "invalid level \"x\" for gzip (valid: 1..9, default 6)"},
		{spec: "brotli:12", wantErr: "valid: 0..11"},
		{spec: "xz:6", wantErr: "xz takes no level"},
		{spec: "none:1", wantErr: "none takes no level"},
		{spec: "s2:4", wantErr: "valid: 1..3"},
	}
	r := Default()
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			c, err := r.Parse(tt.spec)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse(%q) error = %v, want containing %q", tt.spec, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.spec, err)
			}
			info := c.Info()
			if got := info.Spec(); got != tt.wantSpec {
				t.Errorf("Spec() = %q, want %q", got, tt.wantSpec)
			}
			if info.HasLevels && info.Level != tt.wantLevel {
				t.Errorf("Level = %d, want %d", info.Level, tt.wantLevel)
			}
			if info.Library == "" || info.Version == "" || info.Version == "unknown" {
				t.Errorf("incomplete info %+v", info)
			}
		})
	}
}

func TestRegistriesAreIndependent(t *testing.T) {
	a, b := Default(), Default()
	if a == b {
		t.Fatal("Default returned the same registry twice")
	}
	if _, err := NewRegistry(noneFactory(), noneFactory()); err == nil {
		t.Fatal("duplicate names accepted")
	}
	if got := len(a.Describe()); got != len(a.Names()) {
		t.Fatalf("Describe has %d lines, want %d", got, len(a.Names()))
	}
}

// TestModuleVersions checks the fallback versions against go.mod.
func TestModuleVersions(t *testing.T) {
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatalf("read go.mod: %v", err)
	}
	for path, v := range fallbackVersions {
		if !strings.Contains(string(mod), path+" "+v) {
			t.Errorf("go.mod does not require %s %s; update fallbackVersions", path, v)
		}
	}
}

// inputs returns a deterministic spread of inputs: empty, tiny, random
// (incompressible), repetitive text, and larger mixed data.
func inputs(seed uint64) [][]byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	text := func(n int) []byte {
		words := []string{"alpha", "beta", "gamma", "delta", "\n", "{\"id\":", "}"}
		var b bytes.Buffer
		for b.Len() < n {
			b.WriteString(words[rng.IntN(len(words))])
		}
		return b.Bytes()[:n]
	}
	return [][]byte{nil, {0}, []byte("a"), random(100), text(1000), random(70_000),
		text(120_000), append(text(50_000), random(50_000)...)}
}

func TestBlockRoundTrip(t *testing.T) {
	r := Default()
	for _, spec := range allSpecs(t) {
		c := r.MustParse(spec)
		t.Run(spec, func(t *testing.T) {
			for seed := uint64(1); seed <= 3; seed++ {
				for i, in := range inputs(seed) {
					if slowSpec(spec) && len(in) > 2000 {
						continue
					}
					prefix := []byte("prefix")
					enc, err := c.Encode(append([]byte(nil), prefix...), in)
					if err != nil {
						t.Fatalf("input %d: Encode: %v", i, err)
					}
					if !bytes.HasPrefix(enc, prefix) {
						t.Fatalf("input %d: Encode did not append to dst", i)
					}
					dec, err := c.Decode([]byte("x"), enc[len(prefix):])
					if err != nil {
						t.Fatalf("input %d: Decode: %v", i, err)
					}
					if !bytes.Equal(dec[1:], in) || dec[0] != 'x' {
						t.Fatalf("input %d (%d bytes): round trip mismatch (got %d bytes)", i, len(in), len(dec)-1)
					}
				}
			}
		})
	}
}

func TestStreamRoundTrip(t *testing.T) {
	r := Default()
	for _, spec := range allSpecs(t) {
		c := r.MustParse(spec)
		t.Run(spec, func(t *testing.T) {
			for i, in := range inputs(9) {
				if slowSpec(spec) && len(in) > 2000 {
					continue
				}
				// Two passes so pooled encoders are reused.
				for pass := 0; pass < 2; pass++ {
					var buf bytes.Buffer
					w, err := c.NewWriter(&buf)
					if err != nil {
						t.Fatal(err)
					}
					// Write in uneven pieces.
					for rest := in; len(rest) > 0; {
						n := min(len(rest), 1+len(rest)/3)
						if _, err := w.Write(rest[:n]); err != nil {
							t.Fatalf("input %d: Write: %v", i, err)
						}
						rest = rest[n:]
					}
					if err := w.Close(); err != nil {
						t.Fatalf("input %d: Close: %v", i, err)
					}
					rd, err := c.NewReader(&buf)
					if err != nil {
						t.Fatalf("input %d: NewReader: %v", i, err)
					}
					got, err := io.ReadAll(rd)
					if err != nil {
						t.Fatalf("input %d: ReadAll: %v", i, err)
					}
					if err := rd.Close(); err != nil {
						t.Fatalf("input %d: reader Close: %v", i, err)
					}
					if !bytes.Equal(got, in) {
						t.Fatalf("input %d: round trip mismatch: %d bytes, want %d", i, len(got), len(in))
					}
				}
			}
		})
	}
}

// TestStreamTruncation cuts compressed streams and expects an error from every
// codec whose format can detect it.
func TestStreamTruncation(t *testing.T) {
	r := Default()
	in := inputs(4)[6]
	for _, name := range r.Names() {
		c := r.MustParse(name)
		if !c.Info().DetectsTruncation {
			continue
		}
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			w, _ := c.NewWriter(&buf)
			w.Write(in)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			full := buf.Bytes()
			for _, cut := range []int{1, 4, 8, len(full) / 2} {
				rd, err := c.NewReader(bytes.NewReader(full[:len(full)-cut]))
				if err == nil {
					_, err = io.ReadAll(rd)
					rd.Close()
				}
				if err == nil {
					t.Errorf("stream cut by %d bytes read without error", cut)
				}
			}
		})
	}
}

func TestBlockDecodeRejectsGarbage(t *testing.T) {
	r := Default()
	garbage := [][]byte{{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, []byte("not compressed at all")}
	for _, name := range r.Names() {
		if name == "none" {
			continue
		}
		c := r.MustParse(name)
		for i, g := range garbage {
			if _, err := c.Decode(nil, g); err == nil {
				t.Errorf("%s: garbage %d decoded without error", name, i)
			}
		}
	}
}

func TestBlockDecodeSizeLimit(t *testing.T) {
	r := Default()
	big := bytes.Repeat([]byte("abcd"), 10_000)
	for _, name := range r.Names() {
		if name == "none" {
			continue
		}
		c := r.MustParse(name)
		enc, err := c.Encode(nil, big)
		if err != nil {
			t.Fatal(err)
		}
		setMaxDecoded(c, 1000)
		if _, err := c.Decode(nil, enc); !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: Decode over limit: err = %v, want ErrTooLarge", name, err)
		}
	}
}

// goldenText is the plain text of the golden compressed files.
var goldenText = bytes.Repeat([]byte("serbench golden block 0123456789\n"), 40)

// TestGoldenDecode decodes checked-in blocks made by each codec, so a library
// upgrade that breaks compatibility with existing data is caught.
func TestGoldenDecode(t *testing.T) {
	r := Default()
	for _, name := range r.Names() {
		c := r.MustParse(name)
		path := filepath.Join("testdata", "golden", name+".bin")
		if *update {
			enc, err := c.Encode(nil, goldenText)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, enc, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		enc, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v (run go test -update)", name, err)
		}
		got, err := c.Decode(nil, enc)
		if err != nil {
			t.Fatalf("%s: decode golden: %v", name, err)
		}
		if !bytes.Equal(got, goldenText) {
			t.Errorf("%s: golden decoded to different bytes", name)
		}
	}
}

// fuzzCodecs are the block decoders under fuzzing, indexed by the fuzz input's
// first byte.
func fuzzCodecs() []Codec {
	r := Default()
	var cs []Codec
	for _, n := range r.Names() {
		c := r.MustParse(n)
		setMaxDecoded(c, 1<<20)
		cs = append(cs, c)
	}
	return cs
}

// TestWriteFuzzCorpus writes the seed corpus for FuzzBlockDecode with -update.
func TestWriteFuzzCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzBlockDecode")
	cs := fuzzCodecs()
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, c := range cs {
			enc, err := c.Encode(nil, []byte("hello, hello, hello fuzz corpus"))
			if err != nil {
				t.Fatal(err)
			}
			body := fmt.Sprintf("go test fuzz v1\nbyte(%q)\n[]byte(%q)\n", byte(i), enc)
			if err := os.WriteFile(filepath.Join(dir, c.Info().Name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("seed corpus: %v (run go test -update)", err)
	}
	if len(entries) != len(cs) {
		t.Fatalf("seed corpus has %d files, want %d", len(entries), len(cs))
	}
}

// FuzzBlockDecode feeds arbitrary blocks to every block decoder: none may panic
// or exceed the size limit, and anything that decodes must re-encode and decode
// to the same bytes.
func FuzzBlockDecode(f *testing.F) {
	cs := fuzzCodecs()
	f.Fuzz(func(t *testing.T, which byte, data []byte) {
		c := cs[int(which)%len(cs)]
		out, err := c.Decode(nil, data)
		if err != nil {
			return
		}
		if len(out) > 1<<20 && c.Info().Name != "none" {
			t.Fatalf("%s: decoded %d bytes past the limit", c.Info().Name, len(out))
		}
		enc, err := c.Encode(nil, out)
		if err != nil {
			t.Fatalf("%s: re-encode: %v", c.Info().Name, err)
		}
		back, err := c.Decode(nil, enc)
		if err != nil || !bytes.Equal(back, out) {
			t.Fatalf("%s: re-encoded block does not round trip: %v", c.Info().Name, err)
		}
	})
}

// FuzzStreamDecode feeds arbitrary bytes to every stream decoder; none may panic.
func FuzzStreamDecode(f *testing.F) {
	cs := fuzzCodecs()
	for i, c := range cs {
		var buf bytes.Buffer
		w, _ := c.NewWriter(&buf)
		w.Write([]byte("stream seed stream seed"))
		w.Close()
		f.Add(byte(i), buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, which byte, data []byte) {
		c := cs[int(which)%len(cs)]
		rd, err := c.NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		defer rd.Close()
		io.Copy(io.Discard, io.LimitReader(rd, 1<<22))
	})
}
