package runner

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// LabelGiven is the subject label saying the subject measures the schema
// the user gave (datasets/<dataset>/given.json): its value is the kind,
// GivenAvro or GivenProtobuf. serbench sends such a subject only a dataset
// with a given schema of that kind, and every other subject is sent every
// dataset as before.
const LabelGiven = "given"

// The kinds of a given schema.
const (
	// GivenAvro is an Avro record schema (.avsc, JSON text).
	GivenAvro = "avro"
	// GivenProtobuf is a protobuf message: a serialized
	// google.protobuf.FileDescriptorSet holding its file and every import,
	// and the message's full name.
	GivenProtobuf = "protobuf"
)

// Given is a schema the user gave for a dataset's rows.
type Given struct {
	// Kind is GivenAvro or GivenProtobuf.
	Kind string
	// Data is the schema file's bytes: the .avsc's JSON, or the
	// FileDescriptorSet.
	Data []byte
	// Message is the protobuf message of the rows (GivenProtobuf).
	Message string
}

// GivenFile is given.json, the description of a given schema beside a
// dataset (§1 of the protocol).
type GivenFile struct {
	Kind    string `json:"kind"`
	File    string `json:"file"`
	Message string `json:"message,omitempty"`
}

// file is the name of the schema file of g's kind.
func (g *Given) file() (string, error) {
	switch g.Kind {
	case GivenAvro:
		return "given.avsc", nil
	case GivenProtobuf:
		if g.Message == "" {
			return "", fmt.Errorf("runner: a given protobuf schema without its message")
		}
		return "given.binpb", nil
	}
	return "", fmt.Errorf("runner: given schema of kind %q (valid: %s, %s)", g.Kind, GivenAvro, GivenProtobuf)
}

// write writes the schema file and given.json into the dataset's
// directory.
func (g *Given) write(dir string) error {
	name, err := g.file()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, name), g.Data, 0o644); err != nil {
		return fmt.Errorf("runner: given schema: %w", err)
	}
	b, err := json.Marshal(GivenFile{Kind: g.Kind, File: name, Message: g.Message})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "given.json"), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("runner: given schema: %w", err)
	}
	return nil
}
