package dynamic

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// gen generates random schemas and batches for property tests.
type gen struct {
	r      *rand.Rand
	nested bool
	// special allows NaN, infinities and negative zero in floats.
	special bool
	n       int
}

var leafTypes = []arrow.DataType{
	arrow.FixedWidthTypes.Boolean,
	arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
	arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
	arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64,
	arrow.BinaryTypes.String, arrow.BinaryTypes.LargeString, arrow.BinaryTypes.Binary, arrow.BinaryTypes.LargeBinary,
	arrow.FixedWidthTypes.Date32,
	&arrow.TimestampType{Unit: arrow.Second}, &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"},
	&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, &arrow.TimestampType{Unit: arrow.Nanosecond},
	arrow.Null,
	arrow.FixedWidthTypes.Time32ms, arrow.FixedWidthTypes.Time32s, arrow.FixedWidthTypes.Time64us, arrow.FixedWidthTypes.Time64ns,
	&arrow.FixedSizeBinaryType{ByteWidth: 3}, &arrow.Decimal128Type{Precision: 38, Scale: 4},
	&arrow.Decimal128Type{Precision: 9, Scale: 0}, &arrow.Decimal128Type{Precision: 5, Scale: 5},
}

func (g *gen) typ(depth int) arrow.DataType {
	if !g.nested || depth >= 3 || g.r.IntN(3) > 0 {
		return leafTypes[g.r.IntN(len(leafTypes))]
	}
	switch g.r.IntN(3) {
	case 0:
		et := g.typ(depth + 1)
		return arrow.ListOfField(arrow.Field{Name: "item", Type: et, Nullable: g.r.IntN(2) == 0 || et.ID() == arrow.NULL})
	case 1:
		return arrow.LargeListOfField(arrow.Field{Name: "item", Type: g.typ(depth + 1), Nullable: true})
	}
	return arrow.StructOf(g.fields(depth+1, 1+g.r.IntN(3))...)
}

func (g *gen) fields(depth, n int) []arrow.Field {
	fs := make([]arrow.Field, n)
	for i := range fs {
		g.n++
		name := fmt.Sprintf("f%d", g.n)
		if g.r.IntN(5) == 0 {
			name = fmt.Sprintf("weird name-%d é", g.n)
		}
		t := g.typ(depth)
		fs[i] = arrow.Field{Name: name, Type: t, Nullable: g.r.IntN(4) > 0 || t.ID() == arrow.NULL}
	}
	return fs
}

func (g *gen) schema() *arrow.Schema { return arrow.NewSchema(g.fields(0, 1+g.r.IntN(6)), nil) }

// batch builds rows random rows of s; non-nullable fields get no nulls.
func (g *gen) batch(s *arrow.Schema, rows int) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.NewGoAllocator(), s)
	defer b.Release()
	for r := 0; r < rows; r++ {
		for i, f := range s.Fields() {
			g.value(b.Field(i), f.Type, f.Nullable)
		}
	}
	return b.NewRecordBatch()
}

var edgeInts = []int64{0, 1, -1, math.MaxInt64, math.MinInt64, math.MaxInt32, math.MinInt32, 127, -128, 255, 65535}

func (g *gen) int64() int64 {
	if g.r.IntN(3) == 0 {
		return edgeInts[g.r.IntN(len(edgeInts))]
	}
	return g.r.Int64() >> g.r.IntN(64)
}

func (g *gen) float() float64 {
	switch g.r.IntN(8) {
	case 0:
		return 0
	case 1:
		if g.special {
			return []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1)}[g.r.IntN(4)]
		}
		return math.SmallestNonzeroFloat64
	case 2:
		return math.MaxFloat64
	}
	return g.r.NormFloat64() * math.Pow(10, float64(g.r.IntN(40)-20))
}

func (g *gen) str() string {
	const chars = "ab ,\"\n\\\t\x01é€😀"
	rs := []rune(chars)
	n := g.r.IntN(8)
	out := make([]rune, n)
	for i := range out {
		out[i] = rs[g.r.IntN(len(rs))]
	}
	return string(out)
}

func (g *gen) value(b array.Builder, dt arrow.DataType, nullable bool) {
	if nullable && g.r.IntN(5) == 0 {
		b.AppendNull()
		return
	}
	switch bb := b.(type) {
	case *array.NullBuilder:
		bb.AppendNull()
	case *array.Time32Builder:
		bb.Append(arrow.Time32(g.r.IntN(86400)))
	case *array.Time64Builder:
		bb.Append(arrow.Time64(g.r.Int64N(86400e9)))
	case *array.FixedSizeBinaryBuilder:
		bb.Append([]byte{byte(g.r.IntN(256)), 0x80, byte(g.r.IntN(256))})
	case *array.Decimal128Builder:
		prec := dt.(*arrow.Decimal128Type).Precision
		digits := 1 + g.r.IntN(int(prec))
		var v big.Int
		for k := 0; k < digits; k++ {
			v.Mul(&v, big.NewInt(10))
			v.Add(&v, big.NewInt(int64(g.r.IntN(10))))
		}
		if g.r.IntN(2) == 0 {
			v.Neg(&v)
		}
		bb.Append(decimal128.FromBigInt(&v))
	case *array.BooleanBuilder:
		bb.Append(g.r.IntN(2) == 0)
	case *array.Int8Builder:
		bb.Append(int8(g.int64()))
	case *array.Int16Builder:
		bb.Append(int16(g.int64()))
	case *array.Int32Builder:
		bb.Append(int32(g.int64()))
	case *array.Int64Builder:
		bb.Append(g.int64())
	case *array.Uint8Builder:
		bb.Append(uint8(g.int64()))
	case *array.Uint16Builder:
		bb.Append(uint16(g.int64()))
	case *array.Uint32Builder:
		bb.Append(uint32(g.int64()))
	case *array.Uint64Builder:
		bb.Append(uint64(g.int64()))
	case *array.Float32Builder:
		v := g.float()
		if !g.special && math.Abs(v) > math.MaxFloat32 {
			v = math.MaxFloat32
		}
		bb.Append(float32(v))
	case *array.Float64Builder:
		bb.Append(g.float())
	case *array.StringBuilder:
		bb.Append(g.str())
	case *array.LargeStringBuilder:
		bb.Append(g.str())
	case *array.BinaryBuilder:
		v := make([]byte, g.r.IntN(6))
		for i := range v {
			v[i] = byte(g.r.IntN(256))
		}
		bb.Append(v)
	case *array.Date32Builder:
		bb.Append(arrow.Date32(g.r.IntN(3600000) - 700000))
	case *array.TimestampBuilder:
		sec := g.r.Int64N(9e9) - 2e9 // years ~1906..2255: within every unit's range
		var v int64
		switch dt.(*arrow.TimestampType).Unit {
		case arrow.Second:
			v = sec
		case arrow.Millisecond:
			v = sec*1e3 + g.r.Int64N(1e3)
		case arrow.Microsecond:
			v = sec*1e6 + g.r.Int64N(1e6)
		default:
			v = (sec/4)*1e9 + g.r.Int64N(1e9)
		}
		bb.Append(arrow.Timestamp(v))
	case *array.StructBuilder:
		bb.Append(true)
		for k, f := range dt.(*arrow.StructType).Fields() {
			g.value(bb.FieldBuilder(k), f.Type, f.Nullable)
		}
	case *array.ListBuilder:
		bb.Append(true)
		ef := dt.(arrow.ListLikeType).ElemField()
		for k := g.r.IntN(4); k > 0; k-- {
			g.value(bb.ValueBuilder(), ef.Type, ef.Nullable)
		}
	case *array.LargeListBuilder:
		bb.Append(true)
		ef := dt.(arrow.ListLikeType).ElemField()
		for k := g.r.IntN(4); k > 0; k-- {
			g.value(bb.ValueBuilder(), ef.Type, ef.Nullable)
		}
	default:
		panic(fmt.Sprintf("gen: no generator for %T", b))
	}
}

func nanValue() float64 { return math.NaN() }
func negZero() float64  { return math.Copysign(0, -1) }
