package pgarrow_test

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// pgText formats value i of arr the way PostgreSQL's output function for
// the field's type prints it (DateStyle ISO, IntervalStyle postgres,
// TimeZone UTC, extra_float_digits 1). ok is false for null.
func pgText(arr arrow.Array, i int) (s string, ok bool) {
	if arr.IsNull(i) {
		return "", false
	}
	switch a := arr.(type) {
	case *array.Boolean:
		if a.Value(i) {
			return "t", true
		}
		return "f", true
	case *array.Int16:
		return strconv.FormatInt(int64(a.Value(i)), 10), true
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(i)), 10), true
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10), true
	case *array.Uint32:
		return strconv.FormatUint(uint64(a.Value(i)), 10), true
	case *array.Float32:
		return pgFloat(float64(a.Value(i)), 32), true
	case *array.Float64:
		return pgFloat(a.Value(i), 64), true
	case *array.Decimal128:
		return a.Value(i).ToString(a.DataType().(*arrow.Decimal128Type).Scale), true
	case *array.String:
		return a.Value(i), true
	case *array.Binary:
		return `\x` + hex.EncodeToString(a.Value(i)), true
	case *array.FixedSizeBinary:
		h := hex.EncodeToString(a.Value(i))
		return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], true
	case *array.Date32:
		t := time.Unix(int64(a.Value(i))*86400, 0).UTC()
		return pgDate(t), true
	case *array.Time64:
		us := int64(a.Value(i))
		return fmt.Sprintf("%02d:%02d:", us/3600e6, us/60e6%60) + pgSeconds(us%60e6), true
	case *array.Timestamp:
		us := int64(a.Value(i))
		t := time.UnixMicro(us).UTC()
		s := pgDateNoEra(t) + " " + fmt.Sprintf("%02d:%02d:", t.Hour(), t.Minute()) + pgSeconds(int64(t.Second())*1e6+int64(t.Nanosecond()/1000))
		if a.DataType().(*arrow.TimestampType).TimeZone != "" {
			s += "+00"
		}
		if t.Year() <= 0 {
			s += " BC"
		}
		return s, true
	case *array.MonthDayNanoInterval:
		return pgInterval(a.Value(i)), true
	case *array.List:
		start, end := a.ValueOffsets(i)
		vals := a.ListValues()
		parts := make([]string, 0, end-start)
		for j := int(start); j < int(end); j++ {
			s, ok := pgText(vals, j)
			if !ok {
				parts = append(parts, "NULL")
				continue
			}
			parts = append(parts, quoteArrayElem(s))
		}
		return "{" + strings.Join(parts, ",") + "}", true
	}
	return fmt.Sprintf("<unsupported %T>", arr), true
}

func pgFloat(f float64, bitSize int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	e := strconv.FormatFloat(f, 'e', -1, bitSize)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	maxExp := 15
	if bitSize == 32 {
		maxExp = 6
	}
	if exp < -4 || exp >= maxExp {
		return e
	}
	return strconv.FormatFloat(f, 'f', -1, bitSize)
}

func pgDateNoEra(t time.Time) string {
	y := t.Year()
	if y <= 0 {
		y = 1 - y
	}
	return fmt.Sprintf("%04d-%02d-%02d", y, t.Month(), t.Day())
}

func pgDate(t time.Time) string {
	s := pgDateNoEra(t)
	if t.Year() <= 0 {
		s += " BC"
	}
	return s
}

// pgSeconds formats seconds+fraction given in microseconds: "SS[.ffffff]"
// with trailing zeros trimmed.
func pgSeconds(us int64) string {
	s := fmt.Sprintf("%02d", us/1e6)
	if f := us % 1e6; f != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%06d", f), "0")
	}
	return s
}

func pgInterval(v arrow.MonthDayNanoInterval) string {
	var b strings.Builder
	isZero, isBefore := true, false
	part := func(n int64, unit string) {
		if n == 0 {
			return
		}
		if !isZero {
			b.WriteByte(' ')
		}
		if isBefore && n > 0 {
			b.WriteByte('+')
		}
		fmt.Fprintf(&b, "%d %s", n, unit)
		if n != 1 {
			b.WriteByte('s')
		}
		isBefore, isZero = n < 0, false
	}
	part(int64(v.Months/12), "year")
	part(int64(v.Months%12), "mon")
	part(int64(v.Days), "day")
	us := v.Nanoseconds / 1000
	if isZero || us != 0 {
		if !isZero {
			b.WriteByte(' ')
		}
		switch {
		case us < 0:
			b.WriteByte('-')
			us = -us
		case isBefore:
			b.WriteByte('+')
		}
		fmt.Fprintf(&b, "%02d:%02d:%s", us/3600e6, us/60e6%60, pgSeconds(us%60e6))
	}
	return b.String()
}

// quoteArrayElem quotes an array element as array_out does.
func quoteArrayElem(s string) string {
	need := s == "" || strings.EqualFold(s, "NULL")
	for _, r := range s {
		if strings.ContainsRune("{},\"\\ \t\n\r\v\f", r) {
			need = true
		}
	}
	if !need {
		return s
	}
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, `"`, `\"`)
	return `"` + s + `"`
}
