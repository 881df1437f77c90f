// Package nestedarrow maps the nested workload's record types to Apache Arrow
// by reflection, for format/arrowipc: structs become struct columns, slices
// list columns, pointers nullable columns, and the leaves Int32, Int64,
// Float64, Boolean and String columns. The mapping is planned once per type
// (NewMapping) and then runs as a tree of closures, with no per-value type
// switches; it is still reflection, so label results accordingly when
// comparing with hand-written mappings.
package nestedarrow

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/serbench/serbench/format/arrowipc"
)

// appender appends one Go value to a builder of the planned type.
type appender func(b array.Builder, v reflect.Value)

// binder checks an array against the planned type and returns a function
// setting a Go value from one of its elements.
type binder func(arr arrow.Array) (func(i int, v reflect.Value), error)

// plan is how one Go type maps to Arrow.
type plan struct {
	typ    arrow.DataType
	null   bool // the Go type is a pointer: nil is null
	append appender
	bind   binder
}

// name returns the field name of f: its json tag name, else its Go name; ok
// is false for unexported fields and fields tagged "-".
func name(f reflect.StructField) (string, bool) {
	if !f.IsExported() {
		return "", false
	}
	n, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	switch n {
	case "-":
		return "", false
	case "":
		return f.Name, true
	}
	return n, true
}

// leaf builds the plan of a scalar type from its typed accessors.
func leaf[B array.Builder, A arrow.Array](typ arrow.DataType, put func(B, reflect.Value), get func(A, int, reflect.Value)) plan {
	return plan{
		typ:    typ,
		append: func(b array.Builder, v reflect.Value) { put(b.(B), v) },
		bind: func(arr arrow.Array) (func(int, reflect.Value), error) {
			a, ok := arr.(A)
			if !ok {
				return nil, fmt.Errorf("array is %s, want %s", arr.DataType(), typ)
			}
			return func(i int, v reflect.Value) { get(a, i, v) }, nil
		},
	}
}

// planFor returns the plan of Go type t.
func planFor(t reflect.Type) (plan, error) {
	switch t.Kind() {
	case reflect.Int32:
		return leaf(arrow.PrimitiveTypes.Int32,
			func(b *array.Int32Builder, v reflect.Value) { b.Append(int32(v.Int())) },
			func(a *array.Int32, i int, v reflect.Value) { v.SetInt(int64(a.Value(i))) }), nil
	case reflect.Int64:
		return leaf(arrow.PrimitiveTypes.Int64,
			func(b *array.Int64Builder, v reflect.Value) { b.Append(v.Int()) },
			func(a *array.Int64, i int, v reflect.Value) { v.SetInt(a.Value(i)) }), nil
	case reflect.Float64:
		return leaf(arrow.PrimitiveTypes.Float64,
			func(b *array.Float64Builder, v reflect.Value) { b.Append(v.Float()) },
			func(a *array.Float64, i int, v reflect.Value) { v.SetFloat(a.Value(i)) }), nil
	case reflect.Bool:
		return leaf(arrow.FixedWidthTypes.Boolean,
			func(b *array.BooleanBuilder, v reflect.Value) { b.Append(v.Bool()) },
			func(a *array.Boolean, i int, v reflect.Value) { v.SetBool(a.Value(i)) }), nil
	case reflect.String:
		return leaf(arrow.BinaryTypes.String,
			func(b *array.StringBuilder, v reflect.Value) { b.Append(v.String()) },
			func(a *array.String, i int, v reflect.Value) { v.SetString(a.Value(i)) }), nil
	case reflect.Pointer:
		return pointerPlan(t)
	case reflect.Slice:
		return listPlan(t)
	case reflect.Struct:
		return structPlan(t)
	}
	return plan{}, fmt.Errorf("nestedarrow: unsupported type %s", t)
}

// pointerPlan maps *E to a nullable column of E.
func pointerPlan(t reflect.Type) (plan, error) {
	if t.Elem().Kind() == reflect.Pointer {
		return plan{}, fmt.Errorf("nestedarrow: unsupported type %s", t)
	}
	e, err := planFor(t.Elem())
	if err != nil {
		return plan{}, err
	}
	elem := t.Elem()
	return plan{
		typ:  e.typ,
		null: true,
		append: func(b array.Builder, v reflect.Value) {
			if v.IsNil() {
				b.AppendNull()
				return
			}
			e.append(b, v.Elem())
		},
		bind: func(arr arrow.Array) (func(int, reflect.Value), error) {
			get, err := e.bind(arr)
			if err != nil {
				return nil, err
			}
			return func(i int, v reflect.Value) {
				if arr.IsNull(i) {
					v.SetZero()
					return
				}
				p := reflect.New(elem)
				get(i, p.Elem())
				v.Set(p)
			}, nil
		},
	}, nil
}

// listPlan maps []E to a list column of E; nil and empty slices are both
// written as empty lists and read back as nil.
func listPlan(t reflect.Type) (plan, error) {
	e, err := planFor(t.Elem())
	if err != nil {
		return plan{}, err
	}
	return plan{
		typ: arrow.ListOfField(arrow.Field{Name: "element", Type: e.typ, Nullable: e.null}),
		append: func(b array.Builder, v reflect.Value) {
			lb := b.(*array.ListBuilder)
			lb.Append(true)
			vb := lb.ValueBuilder()
			for j := range v.Len() {
				e.append(vb, v.Index(j))
			}
		},
		bind: func(arr arrow.Array) (func(int, reflect.Value), error) {
			a, ok := arr.(*array.List)
			if !ok {
				return nil, fmt.Errorf("array is %s, want a list", arr.DataType())
			}
			get, err := e.bind(a.ListValues())
			if err != nil {
				return nil, fmt.Errorf("list element: %w", err)
			}
			return func(i int, v reflect.Value) {
				start, end := a.ValueOffsets(i)
				if start == end {
					v.SetZero()
					return
				}
				s := reflect.MakeSlice(t, int(end-start), int(end-start))
				for j := range s.Len() {
					get(int(start)+j, s.Index(j))
				}
				v.Set(s)
			}, nil
		},
	}, nil
}

// structFields plans the named fields of struct type t.
func structFields(t reflect.Type) (fields []arrow.Field, index []int, plans []plan, err error) {
	for i := range t.NumField() {
		n, ok := name(t.Field(i))
		if !ok {
			continue
		}
		p, err := planFor(t.Field(i).Type)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s.%s: %w", t, n, err)
		}
		fields = append(fields, arrow.Field{Name: n, Type: p.typ, Nullable: p.null})
		index = append(index, i)
		plans = append(plans, p)
	}
	return fields, index, plans, nil
}

// bindFields binds the children of a struct array or record batch.
func bindFields(plans []plan, index []int, child func(k int) arrow.Array) (func(int, reflect.Value), error) {
	gets := make([]func(int, reflect.Value), len(plans))
	for k, p := range plans {
		var err error
		if gets[k], err = p.bind(child(k)); err != nil {
			return nil, fmt.Errorf("field %d: %w", k, err)
		}
	}
	return func(i int, v reflect.Value) {
		for k, get := range gets {
			get(i, v.Field(index[k]))
		}
	}, nil
}

// structPlan maps a struct to a struct column of its named fields.
func structPlan(t reflect.Type) (plan, error) {
	fields, index, plans, err := structFields(t)
	if err != nil {
		return plan{}, err
	}
	typ := arrow.StructOf(fields...)
	return plan{
		typ: typ,
		append: func(b array.Builder, v reflect.Value) {
			sb := b.(*array.StructBuilder)
			sb.Append(true)
			for k, p := range plans {
				p.append(sb.FieldBuilder(k), v.Field(index[k]))
			}
		},
		bind: func(arr arrow.Array) (func(int, reflect.Value), error) {
			a, ok := arr.(*array.Struct)
			if !ok || a.NumField() != len(plans) {
				return nil, fmt.Errorf("array is %s, want %s", arr.DataType(), typ)
			}
			return bindFields(plans, index, a.Field)
		},
	}, nil
}

// NewMapping returns the arrowipc mapping of T, a struct type: one column per
// top-level field of T, named as the datasets name fields (json tags).
func NewMapping[T any]() (arrowipc.Mapping[T], error) {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		return arrowipc.Mapping[T]{}, fmt.Errorf("nestedarrow: %s is not a struct type", t)
	}
	fields, index, plans, err := structFields(t)
	if err != nil {
		return arrowipc.Mapping[T]{}, err
	}
	schema := arrow.NewSchema(fields, nil)
	return arrowipc.Mapping[T]{
		Schema: schema,
		Append: func(b *array.RecordBuilder, v *T) error {
			rv := reflect.ValueOf(v).Elem()
			for k, p := range plans {
				p.append(b.Field(k), rv.Field(index[k]))
			}
			return nil
		},
		Bind: func(rec arrow.RecordBatch) (func(int, *T) error, error) {
			if !rec.Schema().Equal(schema) {
				return nil, fmt.Errorf("nestedarrow: batch schema %s, want %s", rec.Schema(), schema)
			}
			get, err := bindFields(plans, index, func(k int) arrow.Array { return rec.Column(k) })
			if err != nil {
				return nil, fmt.Errorf("nestedarrow: %w", err)
			}
			return func(i int, v *T) error {
				var zero T
				*v = zero
				get(i, reflect.ValueOf(v).Elem())
				return nil
			}, nil
		},
	}, nil
}
