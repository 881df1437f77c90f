package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGivenFiles: a given schema is written beside the dataset as its file
// and given.json, which the protocol schema accepts; a kind the protocol
// lacks, or a protobuf schema without its message, is an error.
func TestGivenFiles(t *testing.T) {
	for _, tc := range []struct {
		g          Given
		file, want string
	}{
		{Given{Kind: GivenAvro, Data: []byte(`{"type":"record","name":"R","fields":[]}`)}, "given.avsc", `{"kind":"avro","file":"given.avsc"}`},
		{Given{Kind: GivenProtobuf, Data: []byte{0x0a, 0x00}, Message: "shop.Order"}, "given.binpb", `{"kind":"protobuf","file":"given.binpb","message":"shop.Order"}`},
	} {
		dir := t.TempDir()
		if err := tc.g.write(dir); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "given.json"))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(b)); got != tc.want {
			t.Errorf("given.json %s, want %s", got, tc.want)
		}
		if err := Validate("given", b); err != nil {
			t.Errorf("%s: %v", b, err)
		}
		if data, err := os.ReadFile(filepath.Join(dir, tc.file)); err != nil || string(data) != string(tc.g.Data) {
			t.Errorf("%s: %q, %v; want the schema's bytes", tc.file, data, err)
		}
	}
	for _, tc := range []struct {
		g    Given
		want string
	}{
		{Given{Kind: "xml"}, `given schema of kind "xml" (valid: avro, protobuf)`},
		{Given{Kind: GivenProtobuf}, "without its message"},
	} {
		if err := tc.g.write(t.TempDir()); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.g, err, tc.want)
		}
	}
	for _, bad := range []string{`{"kind":"protobuf","file":"given.binpb"}`, `{"kind":"avro","file":"../x"}`, `{"kind":"avro"}`} {
		if err := Validate("given", []byte(bad)); err == nil {
			t.Errorf("%s: the protocol schema accepts it", bad)
		}
	}
}
