package runner

import (
	"bytes"
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// protocolSchema is the protocol's messages and files as a JSON Schema
// (protocol.schema.json): what docs/runner-protocol.md says, checkable.
//
//go:embed protocol.schema.json
var protocolSchema []byte

// ProtocolSchema returns the JSON Schema of the protocol's messages and
// files ($defs line, run, case).
func ProtocolSchema() []byte { return bytes.Clone(protocolSchema) }

// schemas compiles each $defs entry of the protocol's schema once.
var schemas = sync.OnceValues(func() (map[string]*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(protocolSchema))
	if err != nil {
		return nil, fmt.Errorf("protocol schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	const url = "protocol.schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("protocol schema: %w", err)
	}
	out := map[string]*jsonschema.Schema{}
	for _, def := range []string{"line", "run", "case", "given", "hello", "verify", "sample", "error", "end"} {
		s, err := c.Compile(url + "#/$defs/" + def)
		if err != nil {
			return nil, fmt.Errorf("protocol schema %s: %w", def, err)
		}
		out[def] = s
	}
	return out, nil
})

// Validate checks one JSON value against the protocol schema's def: "line"
// (a runner's output line), "run" (run.json), "case" (a line of
// cases.jsonl) or "given" (a dataset's given.json). The error says, in one line, where the value breaks it.
func Validate(def string, b []byte) error {
	all, err := schemas()
	if err != nil {
		return err
	}
	s, ok := all[def]
	if !ok {
		return fmt.Errorf("protocol schema: no definition %q (valid: line, run, case, given)", def)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	// A line is judged by the message its type names, so that the error
	// is that message's, not the first of the others it is not.
	if m, ok := v.(map[string]any); ok && def == "line" {
		if t, ok := m["type"].(string); ok && all[t] != nil {
			s = all[t]
		}
	}
	if err := s.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if e, ok := err.(*jsonschema.ValidationError); ok {
			ve = e
			return fmt.Errorf("breaks the protocol schema: %s", oneLine(ve))
		}
		return err
	}
	return nil
}

// oneLine is the first deepest cause of a validation error, on one line:
// "at '/round': minimum: got 0, want 1".
func oneLine(e *jsonschema.ValidationError) string {
	for len(e.Causes) > 0 {
		e = e.Causes[0]
	}
	lines := strings.Split(strings.TrimSpace(e.Error()), "\n")
	return strings.TrimPrefix(strings.TrimSpace(lines[len(lines)-1]), "- ")
}
