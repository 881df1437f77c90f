// Package corpus is the public datasets serbench checks itself against:
// real files nobody here made, from packages the registries serve (npm's
// vega-datasets, the Parquet test files parquet-go's module ships, the
// test data of frictionless on PyPI and of Spark's test jar on Maven
// Central), each
// named with what it exercises — names with spaces, nulls, mixed types,
// nesting, float32, decimals, timestamps, binary. The files are fetched on
// first use into serbench's cache and checked against the registry's
// integrity record (npm's sha512; the Go checksum database for modules; a
// pinned sha256 for a PyPI or Maven file, which for PyPI must also be the
// index's); nothing large is committed.
//
// `serbench run data --input corpus:NAME` measures one of them, and the
// corpus tests run a slice of them through every language.
package corpus

import (
	"fmt"
	"slices"
	"strings"
)

// Registries a Source comes from.
const (
	// NPM is the npm registry: a package's tarball.
	NPM = "npm"
	// GoModule is the Go module proxy: a module's zip, through the go
	// command (which verifies it against the checksum database).
	GoModule = "go"
	// PyPI is the Python package index: one distribution file (an sdist's
	// .tar.gz), found through the simple index.
	PyPI = "pypi"
	// Maven is Maven Central: one jar (with its classifier), of which the
	// files other than classes are kept.
	Maven = "maven"
)

// Source is a published package holding corpus files.
type Source struct {
	// Registry is NPM, GoModule, PyPI or Maven.
	Registry string
	// Package and Version name it ("vega-datasets", "3.2.1"); a Maven
	// package is "group:artifact".
	Package, Version string
	// Integrity is npm's dist.integrity of the tarball ("sha512-…"); the
	// download must match it. Empty for a Go module.
	Integrity string
	// File is the PyPI distribution file ("frictionless-5.21.0.tar.gz"),
	// Classifier the Maven jar's classifier ("tests", or "").
	File, Classifier string
	// SHA256 is the hex sha256 a PyPI or Maven download must have.
	SHA256 string
}

// String is the package as its registry names it.
func (s Source) String() string {
	if s.Classifier != "" {
		return s.Registry + ":" + s.Package + "@" + s.Version + ":" + s.Classifier
	}
	return s.Registry + ":" + s.Package + "@" + s.Version
}

// Entry is one corpus file.
type Entry struct {
	// Name is how --input corpus:NAME names it.
	Name string
	// Source is the package holding it, Path its path in the package.
	Source Source
	Path   string
	// Records is the member array of a .json file holding one object
	// (the data workload's --records), "" for rows.
	Records string
	// Limit caps the rows the corpus tests read (0: the scale's).
	Limit int64
	// Covers says what the file exercises.
	Covers []string
}

// What entries cover, the list of what real data holds.
const (
	NamesSpaces    = "names with spaces"
	NamesPunct     = "names with dots, quotes or parentheses"
	NamesUnicode   = "unicode names"
	NamesDigits    = "names with a leading digit"
	Nulls          = "nulls"
	MixedTypes     = "mixed types in one column"
	NestedLists    = "nested lists"
	NestedStructs  = "nested structs"
	Maps           = "maps"
	Float32        = "float32"
	Float64        = "float64"
	Decimals       = "decimals"
	Dates          = "dates"
	TimestampsZone = "timestamps with a zone"
	TimestampsNone = "timestamps without a zone"
	TimestampsNS   = "nanosecond timestamps"
	SubMicro       = "timestamps with sub-microsecond digits"
	Ancient        = "dates and times before 1582 (proleptic Gregorian)"
	Unicode        = "non-ASCII text"
	SmallInts      = "8- and 16-bit integers"
	OwnLayout      = "times in a layout of their own (2015/01/01 01:00:00)"
	Unsigned       = "unsigned integers"
	BigInts        = "integers beyond 2^53"
	Binary         = "binary"
	EmptyValues    = "empty strings and empty lists"
	NaN            = "NaN"
	OneObject      = "a JSON file of one object (--records)"
)

var (
	vega = Source{Registry: NPM, Package: "vega-datasets", Version: "3.2.1",
		Integrity: "sha512-lTSwZA6yq6qSU2YZm+6bqILiIvTPPxn4itir7jPGFmHIdPvUfQ9pCzzcrklYywMJgLUbaIeSkZQdiJd6wBxPug=="}
	parquetGo = Source{Registry: GoModule, Package: "github.com/parquet-go/parquet-go", Version: "v0.32.1"}
	// sonic's testdata holds the JSON parsers' benchmark files (simdjson's
	// twitter.json and citm_catalog.json).
	sonic = Source{Registry: GoModule, Package: "github.com/bytedance/sonic", Version: "v1.15.5"}
	// frictionless's sdist carries the CSV files its tests read: headers
	// in Spanish, Chinese and with units (°C).
	frictionless = Source{Registry: PyPI, Package: "frictionless", Version: "5.21.0", File: "frictionless-5.21.0.tar.gz",
		SHA256: "4d9848570bc682943375824a4be7633e8bbdeff228affee763cab346e48000b4"}
	// Spark SQL's test jar carries the Parquet files its readers are
	// tested on: nanosecond timestamps, dates and times before 1582.
	sparkTests = Source{Registry: Maven, Package: "org.apache.spark:spark-sql_2.13", Version: "3.5.7", Classifier: "tests",
		SHA256: "f27a56a5824d92efb56f3582aadd6d59d0aed2e69e972cddedc8b126f3c227d6"}
)

// Entries returns the corpus, in order.
func Entries() []Entry {
	pq := func(name, file string, covers ...string) Entry {
		return Entry{Name: name, Source: parquetGo, Path: "testdata/" + file, Covers: covers}
	}
	vg := func(name, file string, covers ...string) Entry {
		return Entry{Name: name, Source: vega, Path: "package/data/" + file, Covers: covers}
	}
	return []Entry{
		vg("movies", "movies.json", NamesSpaces, Nulls, MixedTypes, Float64),
		vg("penguins", "penguins.json", NamesSpaces, NamesPunct, Nulls, Float64),
		vg("cars", "cars.json", Nulls, Dates, Float64),
		vg("airports", "airports.csv", Float64),
		vg("github", "github.csv", OwnLayout),
		vg("budget", "budget.json", NamesDigits, NamesSpaces, NamesPunct, MixedTypes),
		{Name: "flights-arrow", Source: vega, Path: "package/data/flights-200k.arrow", Limit: 50_000, Covers: []string{Float32, SmallInts}},
		{Name: "flights-parquet", Source: vega, Path: "package/data/flights-3m.parquet", Limit: 50_000, Covers: []string{TimestampsNone}},
		{Name: "earthquakes", Source: vega, Path: "package/data/earthquakes.json", Records: "features", Covers: []string{OneObject, NestedStructs, NestedLists, Nulls, Float64}},
		pq("alltypes", "alltypes_plain.parquet", Binary, TimestampsZone, TimestampsNS, Float32, Float64),
		pq("decimal-bytes", "byte_array_decimal.parquet", Decimals),
		pq("decimal-fixed", "fixed_length_decimal.parquet", Decimals),
		pq("decimal-int64", "int64_decimal.parquet", Decimals),
		pq("nested-lists", "nested_lists.snappy.parquet", NestedLists, Nulls),
		pq("nested-maps", "nested_maps.snappy.parquet", Maps, EmptyValues, Nulls),
		pq("nested-structs", "nested_structs.rust.parquet", NestedStructs, Unsigned, TimestampsZone),
		pq("nullable-impala", "nullable.impala.parquet", NestedStructs, NestedLists, Maps, Nulls, EmptyValues),
		pq("nonnullable-impala", "nonnullable.impala.parquet", NestedStructs, NestedLists, Maps),
		pq("null-list", "null_list.parquet", NestedLists, EmptyValues),
		pq("single-nan", "single_nan.parquet", NaN),
		pq("binary", "binary.parquet", Binary),
		// Tempo's OpenTelemetry spans: uint64 nanosecond times beyond 2^53 beside nested resources.
		pq("traces", "issue229.parquet", BigInts, Unsigned, NestedStructs),
		pq("int64-extremes", "delta_binary_packed.parquet", BigInts),
		{Name: "uruguay-budget", Source: frictionless, Path: "frictionless-5.21.0/data/doublequote.csv", Covers: []string{NamesUnicode, EmptyValues, Unicode}},
		{Name: "unicode-headers", Source: frictionless, Path: "frictionless-5.21.0/data/table-unicode-headers.csv", Covers: []string{NamesUnicode, Unicode}},
		{Name: "units-headers", Source: frictionless, Path: "frictionless-5.21.0/data/issue-991.csv", Covers: []string{NamesUnicode, NamesSpaces, NamesPunct}},
		{Name: "timestamp-nanos", Source: sparkTests, Path: "test-data/timestamp-nanos.parquet", Covers: []string{TimestampsNS, SubMicro, TimestampsZone}},
		{Name: "before-1582-times", Source: sparkTests, Path: "test-data/before_1582_timestamp_micros_v3_2_0.snappy.parquet", Covers: []string{TimestampsZone, Ancient}},
		{Name: "before-1582-dates", Source: sparkTests, Path: "test-data/before_1582_date_v3_2_0.snappy.parquet", Covers: []string{Dates, Ancient}},
		{Name: "twitter", Source: sonic, Path: "testdata/twitter.json", Records: "statuses", Covers: []string{OneObject, BigInts, NestedStructs, NestedLists, Nulls, EmptyValues}},
		{Name: "citm", Source: sonic, Path: "testdata/citm_catalog.json.gz", Records: "performances", Covers: []string{OneObject, NestedStructs, NestedLists, Nulls, EmptyValues}},
	}
}

// Lookup returns the entry named name, or an error naming the valid ones.
func Lookup(name string) (Entry, error) {
	es := Entries()
	if i := slices.IndexFunc(es, func(e Entry) bool { return e.Name == name }); i >= 0 {
		return es[i], nil
	}
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = e.Name
	}
	return Entry{}, fmt.Errorf("corpus: no file named %q (valid: %s)", name, strings.Join(names, ", "))
}

// Prefix marks an --input that names a corpus file ("corpus:movies").
const Prefix = "corpus:"

// Covered returns what the entries cover, each with the entries covering
// it, in the order of first appearance.
func Covered(es []Entry) ([]string, map[string][]string) {
	var order []string
	by := map[string][]string{}
	for _, e := range es {
		for _, c := range e.Covers {
			if _, ok := by[c]; !ok {
				order = append(order, c)
			}
			by[c] = append(by[c], e.Name)
		}
	}
	return order, by
}
