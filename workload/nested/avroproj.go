package nested

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hamba/avro/v2"

	"github.com/serbench/serbench/format"
)

// Avro's native skipping: a reader schema with only the queried fields,
// resolved against the writer schema, makes hamba/avro skip the other
// fields' bytes instead of decoding them into the struct.

// avroPruner prunes one writer schema to the leaves of a query.
type avroPruner struct {
	defs map[string]any             // named types by name
	need map[string]map[string]bool // per record name: relative leaf paths wanted
	seen map[string]map[string]bool // per record name: the first occurrence's wants
	// mixed is set when a named record occurs at several places that want
	// different fields: its reader schema keeps the union, and the
	// records are projected after decoding.
	mixed bool
}

func fieldsOf(t map[string]any) []map[string]any {
	fs, _ := t["fields"].([]any)
	out := make([]map[string]any, 0, len(fs))
	for _, f := range fs {
		if m, ok := f.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func joinPath(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// collect walks the writer schema noting, per record name, which leaves
// under each of its occurrences the query wants.
func (p *avroPruner) collect(t any, prefix string, leaves []string) {
	switch v := t.(type) {
	case string:
		if d, ok := p.defs[v]; ok {
			p.collect(d, prefix, leaves)
		}
	case []any:
		for _, e := range v {
			p.collect(e, prefix, leaves)
		}
	case map[string]any:
		switch v["type"] {
		case "record":
			name, _ := v["name"].(string)
			p.defs[name] = v
			want := map[string]bool{}
			for _, l := range leaves {
				if prefix == "" {
					want[l] = true
				} else if rel, ok := strings.CutPrefix(l, prefix+"."); ok {
					want[rel] = true
				}
			}
			if prev, ok := p.seen[name]; ok {
				if len(prev) != len(want) {
					p.mixed = true
				}
				for k := range want {
					if !prev[k] {
						p.mixed = true
					}
				}
			} else {
				p.seen[name] = want
			}
			if p.need[name] == nil {
				p.need[name] = map[string]bool{}
			}
			for k := range want {
				p.need[name][k] = true
			}
			for _, f := range fieldsOf(v) {
				fn, _ := f["name"].(string)
				p.collect(f["type"], joinPath(prefix, fn), leaves)
			}
		case "array":
			p.collect(v["items"], prefix, leaves)
		case "enum":
			if name, ok := v["name"].(string); ok {
				p.defs[name] = v
			}
		}
	}
}

// emit writes the pruned schema: every record keeps the fields some
// wanted leaf runs through; a named type is defined once, then referenced.
func (p *avroPruner) emit(t any, emitted map[string]bool) any {
	switch v := t.(type) {
	case string:
		if d, ok := p.defs[v]; ok && !emitted[v] {
			return p.emit(d, emitted)
		}
		return v
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = p.emit(e, emitted)
		}
		return out
	case map[string]any:
		name, _ := v["name"].(string)
		switch v["type"] {
		case "record":
			if emitted[name] {
				return name
			}
			emitted[name] = true
			out := map[string]any{}
			for k, x := range v {
				out[k] = x
			}
			var fields []any
			for _, f := range fieldsOf(v) {
				fn, _ := f["name"].(string)
				keep := false
				for rel := range p.need[name] {
					if rel == fn || strings.HasPrefix(rel, fn+".") {
						keep = true
						break
					}
				}
				if !keep {
					continue
				}
				nf := map[string]any{}
				for k, x := range f {
					nf[k] = x
				}
				nf["type"] = p.emit(f["type"], emitted)
				fields = append(fields, nf)
			}
			if fields == nil {
				fields = []any{}
			}
			out["fields"] = fields
			return out
		case "array":
			out := map[string]any{}
			for k, x := range v {
				out[k] = x
			}
			out["items"] = p.emit(v["items"], emitted)
			return out
		case "enum":
			if emitted[name] {
				return name
			}
			emitted[name] = true
		}
		return v
	}
	return t
}

// avroReaderSchema returns the writer schema pruned to leaves, and whether
// the decoded records still need projecting (a named record wanted with
// different fields at different places).
func avroReaderSchema(writer string, leaves []string) (string, bool, error) {
	var root any
	if err := json.Unmarshal([]byte(writer), &root); err != nil {
		return "", false, fmt.Errorf("avro schema: %w", err)
	}
	p := &avroPruner{defs: map[string]any{}, need: map[string]map[string]bool{}, seen: map[string]map[string]bool{}}
	p.collect(root, "", leaves)
	out, err := json.Marshal(p.emit(root, map[string]bool{}))
	if err != nil {
		return "", false, err
	}
	return string(out), p.mixed, nil
}

// avroProjected returns Avro whose reader decodes only leaves, by schema
// resolution, plus the projection still to apply (nil when the reader
// schema is exact).
func avroProjected[T any](writer string, leaves []string) (rowFormat[T], bool, error) {
	ws, err := avro.Parse(writer)
	if err != nil {
		return rowFormat[T]{}, false, fmt.Errorf("avro writer schema: %w", err)
	}
	rtext, mixed, err := avroReaderSchema(writer, leaves)
	if err != nil {
		return rowFormat[T]{}, false, err
	}
	rs, err := avro.ParseWithCache(rtext, "", &avro.SchemaCache{})
	if err != nil {
		return rowFormat[T]{}, false, fmt.Errorf("avro reader schema: %w", err)
	}
	resolved, err := avro.NewSchemaCompatibility().Resolve(rs, ws)
	if err != nil {
		return rowFormat[T]{}, false, fmt.Errorf("avro resolve: %w", err)
	}
	// hamba/avro caches decoders by schema fingerprint and type, and a
	// resolved schema shares its writer's fingerprint: each query gets its
	// own API (and cache) or it would reuse another query's decoder.
	api := avro.Config{}.Freeze()
	rf := typedRows[T](newRowSubject("avro-reader-schema", false, "github.com/hamba/avro/v2",
		format.ModuleVersion("github.com/hamba/avro/v2", "v2.31.0"),
		"Avro datums decoded with a reader schema of only the queried fields (schema resolution skips the rest)",
		func(Dataset) (RowCodec, error) {
			return RowCodec{
				Marshal: func(dst []byte, _ any) ([]byte, error) {
					return dst, errors.New("avro-reader-schema: a reader only")
				},
				Unmarshal: func(b []byte, rec any) error { return api.Unmarshal(resolved, b, rec) },
			}, nil
		}), Dataset{})
	return rf, mixed, nil
}
