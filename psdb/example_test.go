package psdb_test

import (
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/serbench/serbench/psdb"
)

// Encode an int32 feature group into a reused buffer and read it back.
func Example() {
	var buf []byte // reuse across calls: no allocation once it is large enough
	buf, err := psdb.AppendInt32s(buf[:0], psdb.Header{SchemaVersion: 3}, []int32{7, -1, 42})
	if err != nil {
		log.Fatal(err)
	}
	blk, err := psdb.Parse(buf, nil)
	if err != nil {
		log.Fatal(err)
	}
	vals, err := blk.AppendInt32s(nil)
	if err != nil {
		log.Fatal(err)
	}
	v, _ := blk.Int32(2)
	fmt.Println(len(buf), vals, v, blk.Header().HasExpiry())
	// Output: 21 [7 -1 42] 42 false
}

// Without a schema Parse cannot tell a truncated block from a short one:
// a block stores no value count. With the schema the damage is an error.
func ExampleParse_schema() {
	s, err := psdb.NewSchema(3, psdb.TypeInt32, 3, nil, nil)
	if err != nil {
		log.Fatal(err)
	}
	b, err := psdb.AppendInt32s(nil, s.Header(psdb.NoExpiry), []int32{7, -1, 42})
	if err != nil {
		log.Fatal(err)
	}
	truncated := b[:len(b)-4] // the last value lost

	blk, err := psdb.Parse(truncated, nil) // no schema: accepted!
	n, _ := blk.Len()
	fmt.Println(n, err)

	_, err = psdb.Parse(truncated, s) // schema: detected
	fmt.Println(errors.Is(err, psdb.ErrDataLength))
	// Output:
	// 2 <nil>
	// true
}

// Expiries are validated against an explicit "now".
func ExampleNewExpiry() {
	now := time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)
	e, err := psdb.NewExpiry(now.Add(48*time.Hour), now)
	if err != nil {
		log.Fatal(err)
	}
	h := psdb.Header{Expiry: e}
	fmt.Println(e.Time(), h.Expired(now), h.Expired(now.Add(72*time.Hour)))
	_, err = psdb.NewExpiry(now.Add(-time.Hour), now)
	fmt.Println(err != nil)
	// Output:
	// 2025-03-12 12:00:00 +0000 UTC false true
	// true
}

// FP16 blocks are written from float32 and read back as float32.
func ExampleAppendFP16s() {
	b, err := psdb.AppendFP16s(nil, psdb.Header{}, []float32{1, 0.1, 70000})
	if err != nil {
		log.Fatal(err)
	}
	blk, _ := psdb.Parse(b, nil)
	vals, _ := blk.AppendFloat32s(nil)
	fmt.Println(len(b), vals)
	// Output: 15 [1 0.099975586 +Inf]
}

// Strings need the feature group's schema to write and to read.
func ExampleAppendStrings() {
	s, err := psdb.NewSchema(1, psdb.TypeString, 2, nil, []int{8, 8})
	if err != nil {
		log.Fatal(err)
	}
	b, err := psdb.AppendStrings(nil, s.Header(psdb.NoExpiry), s, []string{"red", "blue"})
	if err != nil {
		log.Fatal(err)
	}
	blk, err := psdb.Parse(b, s)
	if err != nil {
		log.Fatal(err)
	}
	second, _ := blk.String(1)
	all, _ := blk.AppendStrings(nil)
	fmt.Println(second, all)
	_, err = psdb.AppendStrings(nil, s.Header(psdb.NoExpiry), s, []string{"too long!", ""})
	fmt.Println(err)
	// Output:
	// blue [red blue]
	// psdb: string too long: string 0 of feature 0 has 9 bytes, booked 8
}

// Bools take one bit each; vectors come from the schema.
func ExampleAppendBoolVectors() {
	s, _ := psdb.NewSchema(1, psdb.TypeBoolVector, 2, []int{3, 2}, nil)
	b, err := psdb.AppendBoolVectors(nil, s.Header(0), s, [][]bool{{true, false, true}, {true, true}})
	if err != nil {
		log.Fatal(err)
	}
	blk, _ := psdb.Parse(b, s)
	second, _ := blk.AppendBoolVector(nil, 1)
	fmt.Printf("%d bytes, padding %d, %08b, %v\n", len(b), blk.Header().BoolPadding, blk.Data()[0], second)
	// Output: 10 bytes, padding 3, 10111000, [true true]
}

// A Codec compresses data sections opportunistically and reads them back.
func ExampleCodec() {
	c, err := psdb.NewCodec()
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	vals := make([]int32, 1000) // all zero: very compressible
	b, _ := psdb.AppendInt32s(nil, psdb.Header{}, vals)
	b, err = c.Compress(b)
	if err != nil {
		log.Fatal(err)
	}
	blk, err := c.Parse(b, nil)
	if err != nil {
		log.Fatal(err)
	}
	n, _ := blk.Len()
	fmt.Println(blk.Header().Compression, len(b) < 100, n)
	// Output: zstd true 1000
}

// A CSDB value bundles several feature groups; length 0 is a negative entry.
func ExampleParseCache() {
	blk, _ := psdb.AppendInt64s(nil, psdb.Header{}, []int64{5})
	v, err := psdb.AppendCache(nil, psdb.CacheLayout1, []psdb.CacheEntry{{GroupID: 4, Block: blk}, {GroupID: 9}})
	if err != nil {
		log.Fatal(err)
	}
	it, _ := psdb.ParseCache(v)
	for it.Next() {
		e := it.Entry()
		fmt.Println(e.GroupID, len(e.Block), e.Negative())
	}
	fmt.Println(it.Err())
	// Output:
	// 4 17 false
	// 9 0 true
	// <nil>
}
