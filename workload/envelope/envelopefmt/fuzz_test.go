package envelopefmt

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	ds "github.com/serbench/serbench/dataset/envelope"

	"google.golang.org/protobuf/proto"

	"github.com/serbench/serbench/dataset/envelope/fb"
	"github.com/serbench/serbench/dataset/envelope/mp"
	"github.com/serbench/serbench/dataset/envelope/pb"
)

var updateCorpus = flag.Bool("update-corpus", false, "rewrite the committed fuzz seed corpora under testdata/fuzz")

// corpusSeeds returns the seed inputs of each fuzz target: small valid
// encodings of the subject's format and cut or corrupted variants of them.
func corpusSeeds(t testing.TB) map[string][][]byte {
	e, err := ds.New(21, 40)
	if err != nil {
		t.Fatal(err)
	}
	ps := prepareAll(t, e)
	variants := func(enc []byte) [][]byte {
		flip := append([]byte(nil), enc...)
		flip[len(flip)/3] ^= 0x80
		return [][]byte{enc, enc[:len(enc)/2], enc[:len(enc)-1], flip, {}}
	}
	return map[string][][]byte{
		"FuzzReadFlatHeaderPB": append(variants(ps["protobuf-flat"].Encoded()), ps["protobuf-wrapped"].Encoded()),
		"FuzzFlatBuffers":      variants(ps["flatbuffers-flat"].Encoded()),
		"FuzzReadHeaderMP":     append(variants(ps["msgp-flat"].Encoded()), ps["msgp-wrapped"].Encoded()),
	}
}

func corpusFile(b []byte) string { return fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b) }

// TestFuzzCorpus checks that the committed seed corpora are the current
// encodings (run with -update-corpus to rewrite them).
func TestFuzzCorpus(t *testing.T) {
	for target, seeds := range corpusSeeds(t) {
		dir := filepath.Join("testdata", "fuzz", target)
		for i, seed := range seeds {
			path := filepath.Join(dir, fmt.Sprintf("seed-%02d", i))
			if *updateCorpus {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(corpusFile(seed)), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("%v (run go test -run TestFuzzCorpus -update-corpus)", err)
				continue
			}
			if string(got) != corpusFile(seed) {
				t.Errorf("%s is stale (run go test -run TestFuzzCorpus -update-corpus)", path)
			}
		}
	}
}

// FuzzReadFlatHeaderPB checks the protowire header scanner against
// proto.Unmarshal: it never panics, and whenever proto.Unmarshal accepts the
// input the scanner does too and returns the same header.
func FuzzReadFlatHeaderPB(f *testing.F) {
	for _, s := range corpusSeeds(f)["FuzzReadFlatHeaderPB"] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h, herr := ReadFlatHeaderPB(data)
		var m pb.Flat
		if err := proto.Unmarshal(data, &m); err != nil {
			return
		}
		if herr != nil {
			t.Fatalf("proto.Unmarshal accepts the input, ReadFlatHeaderPB does not: %v", herr)
		}
		want := FromFlatPB(&m).Header()
		if err := want.Compare(h); err != nil {
			t.Fatalf("header differs from proto.Unmarshal's: %v", err)
		}
	})
}

// FuzzFlatBuffers checks the FlatBuffers verifier: whatever it accepts can be
// read by the generated accessors without panicking, and a buffer accepted as
// a whole has readable header fields.
func FuzzFlatBuffers(f *testing.F) {
	for _, s := range corpusSeeds(f)["FuzzFlatBuffers"] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		full := fb.VerifyFlat(data)
		_, herr := ReadFlatHeaderFB(data)
		if full == nil {
			if herr != nil {
				t.Fatalf("VerifyFlat accepts the buffer, the header read fails: %v", herr)
			}
			var root fb.Flat
			root.Init(data, uoffset(data))
			x := root.UnPack()
			_ = FromFlatFB(x)
		}
	})
}

// FuzzReadHeaderMP checks the MessagePack header scanner against msgp's
// generated decoder: it never panics, and whenever the decoder accepts the
// input (with no trailing bytes) the scanner returns the same header.
func FuzzReadHeaderMP(f *testing.F) {
	for _, s := range corpusSeeds(f)["FuzzReadHeaderMP"] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h, herr := ReadHeaderMP(data)
		var m mp.Flat
		rest, err := m.UnmarshalMsg(data)
		if err != nil || len(rest) != 0 {
			return
		}
		if herr != nil {
			t.Fatalf("msgp decoder accepts the input, ReadHeaderMP does not: %v", herr)
		}
		if err := FromFlatMP(&m).Header().Compare(h); err != nil {
			t.Fatalf("header differs from the msgp decoder's: %v", err)
		}
	})
}
