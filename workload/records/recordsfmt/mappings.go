package recordsfmt

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/serbench/serbench/dataset/records"
	"github.com/serbench/serbench/dataset/records/fb"
	"github.com/serbench/serbench/dataset/records/pb"
	"github.com/serbench/serbench/format/arrowipc"
	"github.com/serbench/serbench/format/csv"
	"github.com/serbench/serbench/format/flatbuf"
	"github.com/serbench/serbench/format/protobuf"
)

// age32 narrows Age to the schemas' 32-bit int, refusing values that would not
// round-trip.
func age32(age int) (int32, error) {
	if age < math.MinInt32 || age > math.MaxInt32 {
		return 0, fmt.Errorf("age %d does not fit the schema's 32-bit int", age)
	}
	return int32(age), nil
}

// FlatBuffers returns the build and read functions of the fb.Record table.
func FlatBuffers() flatbuf.Mapping[records.Record] {
	return flatbuf.Mapping[records.Record]{
		Build: func(b *flatbuffers.Builder, v *records.Record) (flatbuffers.UOffsetT, error) {
			age, err := age32(v.Age)
			if err != nil {
				return 0, err
			}
			name := b.CreateString(v.Name)
			email := b.CreateString(v.Email)
			cat := b.CreateString(v.Category)
			fb.RecordStart(b)
			fb.RecordAddId(b, v.ID)
			fb.RecordAddName(b, name)
			fb.RecordAddEmail(b, email)
			fb.RecordAddAge(b, age)
			if v.Score == 0 && math.Signbit(v.Score) {
				// The builder omits fields equal to their default, and -0 == 0:
				// write the slot explicitly (default 1) so -0 survives.
				b.PrependFloat64Slot(4, v.Score, 1)
			} else {
				fb.RecordAddScore(b, v.Score)
			}
			fb.RecordAddActive(b, v.Active)
			fb.RecordAddCategory(b, cat)
			fb.RecordAddTimestamp(b, v.Timestamp)
			return fb.RecordEnd(b), nil
		},
		Read: func(buf []byte, v *records.Record) error {
			if err := fb.VerifyRecord(buf); err != nil {
				return err
			}
			var t fb.Record
			t.Init(buf, flatbuffers.GetUOffsetT(buf))
			*v = records.Record{
				ID: t.Id(), Name: string(t.Name()), Email: string(t.Email()), Age: int(t.Age()),
				Score: t.Score(), Active: t.Active(), Category: string(t.Category()), Timestamp: t.Timestamp(),
			}
			return nil
		},
	}
}

// Protobuf returns the conversions between records.Record and pb.Record.
func Protobuf() protobuf.Mapping[records.Record, *pb.Record] {
	return protobuf.Mapping[records.Record, *pb.Record]{
		New: func() *pb.Record { return new(pb.Record) },
		ToMsg: func(v *records.Record, m *pb.Record) error {
			age, err := age32(v.Age)
			if err != nil {
				return err
			}
			m.Id, m.Name, m.Email, m.Age = v.ID, v.Name, v.Email, age
			m.Score, m.Active, m.Category, m.Timestamp = v.Score, v.Active, v.Category, v.Timestamp
			return nil
		},
		FromMsg: func(m *pb.Record, v *records.Record) error {
			*v = records.Record{ID: m.Id, Name: m.Name, Email: m.Email, Age: int(m.Age),
				Score: m.Score, Active: m.Active, Category: m.Category, Timestamp: m.Timestamp}
			return nil
		},
	}
}

// csvHeader is the CSV column order.
var csvHeader = []string{"id", "name", "email", "age", "score", "active", "category", "timestamp"}

// CSV returns the row conversions of the CSV baseline. Score is written with
// strconv 'g' -1, the shortest text that parses back to the same float64.
func CSV() csv.Mapping[records.Record] {
	return csv.Mapping[records.Record]{
		Header: append([]string(nil), csvHeader...),
		Marshal: func(v *records.Record, row []string) ([]string, error) {
			return append(row,
				strconv.FormatInt(v.ID, 10), v.Name, v.Email, strconv.Itoa(v.Age),
				strconv.FormatFloat(v.Score, 'g', -1, 64), strconv.FormatBool(v.Active),
				v.Category, strconv.FormatInt(v.Timestamp, 10)), nil
		},
		Unmarshal: func(row []string, v *records.Record) error {
			var errs [5]error
			v.ID, errs[0] = strconv.ParseInt(row[0], 10, 64)
			v.Name, v.Email = row[1], row[2]
			v.Age, errs[1] = strconv.Atoi(row[3])
			v.Score, errs[2] = strconv.ParseFloat(row[4], 64)
			v.Active, errs[3] = strconv.ParseBool(row[5])
			v.Category = row[6]
			v.Timestamp, errs[4] = strconv.ParseInt(row[7], 10, 64)
			return errors.Join(errs[:]...)
		},
	}
}

// arrowSchema is the Arrow schema of records.Record.
func arrowSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String},
		{Name: "email", Type: arrow.BinaryTypes.String},
		{Name: "age", Type: arrow.PrimitiveTypes.Int64},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64},
		{Name: "active", Type: arrow.FixedWidthTypes.Boolean},
		{Name: "category", Type: arrow.BinaryTypes.String},
		{Name: "timestamp", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
}

// Arrow returns the record-batch mapping of records.Record (no nulls).
func Arrow() arrowipc.Mapping[records.Record] {
	return arrowipc.Mapping[records.Record]{
		Schema: arrowSchema(),
		Append: func(b *array.RecordBuilder, v *records.Record) error {
			b.Field(0).(*array.Int64Builder).Append(v.ID)
			b.Field(1).(*array.StringBuilder).Append(v.Name)
			b.Field(2).(*array.StringBuilder).Append(v.Email)
			b.Field(3).(*array.Int64Builder).Append(int64(v.Age))
			b.Field(4).(*array.Float64Builder).Append(v.Score)
			b.Field(5).(*array.BooleanBuilder).Append(v.Active)
			b.Field(6).(*array.StringBuilder).Append(v.Category)
			b.Field(7).(*array.Int64Builder).Append(v.Timestamp)
			return nil
		},
		Bind: func(rec arrow.RecordBatch) (func(int, *records.Record) error, error) {
			if rec.NumCols() != 8 {
				return nil, fmt.Errorf("batch has %d columns, want 8", rec.NumCols())
			}
			id, ok0 := rec.Column(0).(*array.Int64)
			name, ok1 := rec.Column(1).(*array.String)
			email, ok2 := rec.Column(2).(*array.String)
			age, ok3 := rec.Column(3).(*array.Int64)
			score, ok4 := rec.Column(4).(*array.Float64)
			active, ok5 := rec.Column(5).(*array.Boolean)
			cat, ok6 := rec.Column(6).(*array.String)
			ts, ok7 := rec.Column(7).(*array.Int64)
			if !(ok0 && ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) {
				return nil, errors.New("batch column types do not match the schema")
			}
			for i := 0; i < 8; i++ {
				if rec.Column(i).NullN() != 0 {
					return nil, fmt.Errorf("column %s has nulls", rec.ColumnName(i))
				}
			}
			return func(i int, v *records.Record) error {
				*v = records.Record{ID: id.Value(i), Name: name.Value(i), Email: email.Value(i),
					Age: int(age.Value(i)), Score: score.Value(i), Active: active.Value(i),
					Category: cat.Value(i), Timestamp: ts.Value(i)}
				return nil
			}, nil
		},
	}
}
