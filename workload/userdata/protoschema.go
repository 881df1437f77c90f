package userdata

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/bufbuild/protocompile"
	"github.com/serbench/serbench/internal/jsonv"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// ProtoSchema compiles the Protocol Buffers file at path (its imports
// resolved beside it, the well-known types built in) and returns the
// schema of its message named message (a full name, "shop.Order", or a
// name unique among the file's messages, "Order"). The message's fields
// are the columns, as protojson writes a message: every field nullable (an
// absent field is null; protojson omits fields at their default values),
// a member under the field's name or its JSON name (user_id or userId),
// 64-bit integers as numbers or strings, enums as their value names,
// bytes as base64, google.protobuf.Timestamp in RFC 3339, the wrapper
// types as their nullable value, maps as lists of key/value entries (the
// keys as strings), nested messages as structs and repeated fields as
// lists.
func ProtoSchema(path, message string) (*Schema, error) {
	if _, err := readSchemaFile(path); err != nil {
		return nil, fmt.Errorf("userdata: --proto: %w", err)
	}
	if message == "" {
		return nil, fmt.Errorf("userdata: --proto %s: --message names the message of the rows", path)
	}
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{ImportPaths: []string{filepath.Dir(path)}})}
	files, err := c.Compile(context.Background(), filepath.Base(path))
	if err != nil {
		return nil, fmt.Errorf("userdata: --proto %s: %s", path, firstLine(err.Error()))
	}
	var all []protoreflect.MessageDescriptor
	var walk func(ms protoreflect.MessageDescriptors)
	walk = func(ms protoreflect.MessageDescriptors) {
		for i := 0; i < ms.Len(); i++ {
			if m := ms.Get(i); !m.IsMapEntry() {
				all = append(all, m)
				walk(m.Messages())
			}
		}
	}
	walk(files[0].Messages())
	var found []protoreflect.MessageDescriptor
	for _, m := range all {
		if string(m.FullName()) == message || string(m.Name()) == message && !strings.Contains(message, ".") {
			found = append(found, m)
		}
	}
	if len(found) != 1 {
		names := make([]string, len(all))
		for i, m := range all {
			names[i] = string(m.FullName())
		}
		what := "no message"
		if len(found) > 1 {
			what = "more than one message"
		}
		return nil, fmt.Errorf("userdata: --proto %s: %s named %q (valid: %s)", path, what, message, listSome(names, 12))
	}
	md := found[0]
	if n := md.Fields().Len(); n > MaxColumns {
		return nil, fmt.Errorf("userdata: --proto %s: %s has %s fields, more than the limit of %s columns", path, md.FullName(), thousands(int64(n)), thousands(MaxColumns))
	} else if n == 0 {
		return nil, fmt.Errorf("userdata: --proto %s: %s has no fields", path, md.FullName())
	}
	pm := &protoMapper{g: &Schema{entries: map[string]bool{}, lenient: map[string]bool{}, aliases: map[string]string{},
		defaults: map[string]*jsonv.Value{}, enums: map[string][]string{}, quoted: true, sortedMaps: true, Message: md}}
	fields, err := pm.fields(md, "", 0, nil)
	if err != nil {
		return nil, fmt.Errorf("userdata: --proto %s: %s: %w", path, md.FullName(), err)
	}
	g := pm.g
	g.Arrow = arrow.NewSchema(fields, nil)
	g.Source = filepath.Base(path) + " (message " + string(md.FullName()) + ")"
	g.Notes = append([]string{"fields with presence (messages, optional, wrappers, oneof members) nullable; the others (proto3 scalars, enums, repeated fields, maps) not: an absent or null member is the field's default, as protojson reads it"}, g.Notes...)
	return g, nil
}

// firstLine is the first line of s.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// protoMapper maps a message's fields to Arrow, filling g's paths.
type protoMapper struct{ g *Schema }

func (p *protoMapper) note(format string, args ...any) {
	if n := fmt.Sprintf(format, args...); !slices.Contains(p.g.Notes, n) {
		p.g.Notes = append(p.g.Notes, n)
	}
}

// fields maps md's fields at path (in is the messages being mapped, to
// refuse a recursive message).
func (p *protoMapper) fields(md protoreflect.MessageDescriptor, path string, depth int, in []protoreflect.FullName) ([]arrow.Field, error) {
	if slices.Contains(in, md.FullName()) {
		return nil, fmt.Errorf("field %s: message %s contains itself: a recursive message has no fixed columns", path, md.FullName())
	}
	if depth > MaxDepth {
		return nil, fmt.Errorf("field %s nests deeper than %d levels, the limit", shorten(path, 80), MaxDepth)
	}
	in = append(in, md.FullName())
	var out []arrow.Field
	for i := 0; i < md.Fields().Len(); i++ {
		fd := md.Fields().Get(i)
		fp := string(fd.Name())
		if path != "" {
			fp = path + "." + fp
		}
		if fd.JSONName() != string(fd.Name()) {
			p.g.aliases[fp] = fd.JSONName()
		}
		dt, err := p.field(fd, fp, depth, in)
		if err != nil {
			return nil, err
		}
		if !fd.HasPresence() {
			p.g.defaults[fp] = protoDefault(fd)
		}
		out = append(out, arrow.Field{Name: string(fd.Name()), Type: dt, Nullable: fd.HasPresence()})
	}
	return out, nil
}

// field maps one field, its cardinality included.
func (p *protoMapper) field(fd protoreflect.FieldDescriptor, path string, depth int, in []protoreflect.FullName) (arrow.DataType, error) {
	switch {
	case fd.IsMap():
		val, err := p.kind(fd.MapValue(), mapValuePath(path), depth+2, in)
		if err != nil {
			return nil, err
		}
		p.g.entries[path] = true
		p.note("maps stored as lists of key/value structs sorted by key, keys as strings (a JSON object's member names)")
		// A protobuf map's entries and values are never null.
		return arrow.ListOfField(arrow.Field{Name: "item", Type: arrow.StructOf(
			arrow.Field{Name: "key", Type: arrow.BinaryTypes.String},
			arrow.Field{Name: "value", Type: val},
		)}), nil
	case fd.IsList():
		elem, err := p.kind(fd, path+"[]", depth+1, in)
		if err != nil {
			return nil, err
		}
		return arrow.ListOfField(arrow.Field{Name: "item", Type: elem, Nullable: false}), nil
	}
	return p.kind(fd, path, depth, in)
}

// kind maps the type of one value of fd.
func (p *protoMapper) kind(fd protoreflect.FieldDescriptor, path string, depth int, in []protoreflect.FullName) (arrow.DataType, error) {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return arrow.FixedWidthTypes.Boolean, nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return arrow.PrimitiveTypes.Int32, nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return arrow.PrimitiveTypes.Int64, nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return arrow.PrimitiveTypes.Uint32, nil
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return arrow.PrimitiveTypes.Uint64, nil
	case protoreflect.FloatKind:
		return arrow.PrimitiveTypes.Float32, nil
	case protoreflect.DoubleKind:
		return arrow.PrimitiveTypes.Float64, nil
	case protoreflect.StringKind:
		return arrow.BinaryTypes.String, nil
	case protoreflect.BytesKind:
		return arrow.BinaryTypes.Binary, nil
	case protoreflect.EnumKind:
		p.note("enums stored as their value names (strings); another name is an error")
		vs := fd.Enum().Values()
		names := make([]string, vs.Len())
		for i := range names {
			names[i] = string(vs.Get(i).Name())
		}
		p.g.enums[path] = names
		return arrow.BinaryTypes.String, nil
	case protoreflect.MessageKind, protoreflect.GroupKind:
		md := fd.Message()
		switch md.FullName() {
		case "google.protobuf.Timestamp":
			return &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, nil
		case "google.protobuf.DoubleValue":
			return arrow.PrimitiveTypes.Float64, nil
		case "google.protobuf.FloatValue":
			return arrow.PrimitiveTypes.Float32, nil
		case "google.protobuf.Int64Value":
			return arrow.PrimitiveTypes.Int64, nil
		case "google.protobuf.UInt64Value":
			return arrow.PrimitiveTypes.Uint64, nil
		case "google.protobuf.Int32Value":
			return arrow.PrimitiveTypes.Int32, nil
		case "google.protobuf.UInt32Value":
			return arrow.PrimitiveTypes.Uint32, nil
		case "google.protobuf.BoolValue":
			return arrow.FixedWidthTypes.Boolean, nil
		case "google.protobuf.StringValue":
			return arrow.BinaryTypes.String, nil
		case "google.protobuf.BytesValue":
			return arrow.BinaryTypes.Binary, nil
		}
		if strings.HasPrefix(string(md.FullName()), "google.protobuf.") {
			return nil, fmt.Errorf("field %s: %s has no fixed columns (supported well-known types: Timestamp and the wrappers)", path, md.FullName())
		}
		fs, err := p.fields(md, path, depth+1, in)
		if err != nil {
			return nil, err
		}
		if len(fs) == 0 {
			return nil, fmt.Errorf("field %s: message %s has no fields", path, md.FullName())
		}
		return arrow.StructOf(fs...), nil
	}
	return nil, fmt.Errorf("field %s: protobuf kind %s has no mapping", path, fd.Kind())
}

// protoDefault is the value of a field without presence that protojson
// leaves out: its kind's zero (an enum's default value by name), an empty
// list for a repeated field or a map.
func protoDefault(fd protoreflect.FieldDescriptor) *jsonv.Value {
	if fd.IsList() || fd.IsMap() {
		return &jsonv.Value{Kind: jsonv.Array}
	}
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return &jsonv.Value{Kind: jsonv.Bool}
	case protoreflect.StringKind, protoreflect.BytesKind:
		return &jsonv.Value{Kind: jsonv.String}
	case protoreflect.EnumKind:
		name := ""
		if v := fd.Enum().Values().ByNumber(fd.Default().Enum()); v != nil {
			name = string(v.Name())
		}
		return &jsonv.Value{Kind: jsonv.String, Text: name}
	}
	return &jsonv.Value{Kind: jsonv.Number, Text: "0"}
}
