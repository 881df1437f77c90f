package codec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"runtime"
	"testing"

	"github.com/ulikunitz/xz"
)

// xzInput is compressible text of n bytes.
func xzInput(n int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"alpha ", "beta ", "gamma ", "delta\n", "epsilon ", "zeta "}
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(words[rng.IntN(len(words))])
	}
	return b.Bytes()[:n]
}

// writeXZ compresses in with the block writer, writing in uneven pieces.
func writeXZ(t *testing.T, in []byte, blockSize, workers int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := newXZBlockWriter(&buf, blockSize, workers)
	for rest := in; len(rest) > 0; {
		n := min(len(rest), 1+len(rest)/3)
		if _, err := w.Write(rest[:n]); err != nil {
			t.Fatal(err)
		}
		rest = rest[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestXZBlocksRoundTrip: the library's reader (which checks every block
// header, size, check and the index) decodes the blocks written with any
// number of workers, including an empty stream and sizes at a block
// boundary; so does the xz tool when it is installed.
func TestXZBlocksRoundTrip(t *testing.T) {
	const block = 1000
	xzTool, _ := exec.LookPath("xz")
	for _, size := range []int{0, 1, block - 1, block, block + 1, 10*block + 17} {
		in := xzInput(size)
		var first []byte
		for _, workers := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%dB-%dworkers", size, workers), func(t *testing.T) {
				out := writeXZ(t, in, block, workers)
				if first == nil {
					first = out
				} else if !bytes.Equal(out, first) {
					t.Error("output depends on the number of workers")
				}
				r, err := xz.ReaderConfig{SingleStream: true}.NewReader(bytes.NewReader(out))
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(r)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, in) {
					t.Fatalf("round trip: %d bytes, want %d", len(got), len(in))
				}
				if xzTool == "" {
					return
				}
				cmd := exec.Command(xzTool, "-dc")
				cmd.Stdin = bytes.NewReader(out)
				got, err = cmd.Output()
				if err != nil || !bytes.Equal(got, in) {
					t.Fatalf("xz -dc: %d bytes, %v", len(got), err)
				}
			})
		}
	}
}

// TestXZBlocksTruncated: a stream cut anywhere — inside a block, at a block
// boundary, in the index or the footer — is an error, never a shorter
// stream.
func TestXZBlocksTruncated(t *testing.T) {
	in := xzInput(5000)
	out := writeXZ(t, in, 1000, 2)
	for cut := 1; cut < len(out); cut += max(1, cut/3) {
		r, err := xz.NewReader(bytes.NewReader(out[:len(out)-cut]))
		if err == nil {
			_, err = io.ReadAll(r)
		}
		if err == nil {
			t.Fatalf("cut by %d of %d bytes: read without error", cut, len(out))
		}
	}
}

// failingWriter fails every write after the first n bytes.
type failingWriter struct{ n int }

var errDiskFull = errors.New("disk full")

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		k := f.n
		f.n = 0
		return k, errDiskFull
	}
	f.n -= len(p)
	return len(p), nil
}

// TestXZBlocksWriteError: an error of the underlying writer is returned by
// Write or Close, wrapped, and sticks; Close waits for the goroutines.
func TestXZBlocksWriteError(t *testing.T) {
	in := xzInput(20_000)
	for _, limit := range []int{0, 5, 100, 2000} {
		w := newXZBlockWriter(&failingWriter{n: limit}, 1000, 2)
		_, werr := w.Write(in)
		cerr := w.Close()
		if !errors.Is(werr, errDiskFull) && !errors.Is(cerr, errDiskFull) {
			t.Errorf("limit %d: Write %v, Close %v; want the writer's error", limit, werr, cerr)
		}
		if _, err := w.Write([]byte("x")); !errors.Is(err, errXZClosed) {
			t.Errorf("limit %d: write after Close: %v", limit, err)
		}
	}
}

func TestLZMA2DictByte(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want byte
	}{{1, 0}, {4096, 0}, {4097, 1}, {6 << 10, 1}, {8 << 20, 22}, {12 << 20, 23}, {1 << 30, 36}, {3 << 29, 37}, {1<<32 - 1, 40}} {
		if got := lzma2DictByte(tc.n); got != tc.want {
			t.Errorf("lzma2DictByte(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
}

// BenchmarkXZWrite compares the library's own single-stream writer with
// the parallel block writer on the same 24 MiB of text (3 blocks):
// go test ./codec -run '^$' -bench XZWrite.
func BenchmarkXZWrite(b *testing.B) {
	in := xzInput(3 * xzBlockSize)
	for _, tc := range []struct {
		name string
		new  func(w io.Writer) (io.WriteCloser, error)
	}{
		{"library", func(w io.Writer) (io.WriteCloser, error) { return xz.NewWriter(w) }},
		{"blocks", func(w io.Writer) (io.WriteCloser, error) {
			return newXZBlockWriter(w, xzBlockSize, runtime.GOMAXPROCS(0)), nil
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			var out bytes.Buffer
			for b.Loop() {
				out.Reset()
				w, err := tc.new(&out)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := w.Write(in); err != nil {
					b.Fatal(err)
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(out.Len())/float64(len(in)), "ratio")
		})
	}
}
