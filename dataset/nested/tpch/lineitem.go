// Package tpch is the TPC-H dataset of the nested workload (seed 004): TPC-H
// line items fully denormalised, each embedding its order (which embeds its
// customer → nation → region), its part and its supplier (→ nation → region):
// 47 leaves, no repetition, 600,572 records at full scale.
//
// The tables come from github.com/pingcap/go-tpc/tpch/dbgen, a Go port of
// TPC-H dbgen. That generator keeps its state in package variables and a text
// pool of about 300 MiB for the life of the process, so it runs once, in a
// child process (see RunChildIfRequested and Load), which writes the tables to
// a cache file that later runs read back in well under a second.
//
// dbgen accepts integer scale factors only, so the dataset is the first
// 600,572 line items (the seed's count at scale factor 0.1) of scale factor 1.
// The line items, orders, suppliers, nations and regions are drawn exactly as
// at any scale, but part and customer keys range over the scale factor 1
// tables (200,000 parts, 150,000 customers) rather than SF 0.1's 20,000 and
// 15,000, so parts and customers repeat less than in the seed.
package tpch

import "github.com/serbench/serbench/dataset/nested"

// FullRecords is the number of line items at full scale.
const FullRecords = 600_572

// Region is a TPC-H region.
type Region struct {
	Name    string `json:"name" msgpack:"name" cbor:"name" avro:"name" parquet:"name,dict"`
	Comment string `json:"comment" msgpack:"comment" cbor:"comment" avro:"comment" parquet:"comment,dict"`
}

// Nation is a TPC-H nation with its region.
type Nation struct {
	Name    string `json:"name" msgpack:"name" cbor:"name" avro:"name" parquet:"name,dict"`
	Region  Region `json:"region" msgpack:"region" cbor:"region" avro:"region" parquet:"region"`
	Comment string `json:"comment" msgpack:"comment" cbor:"comment" avro:"comment" parquet:"comment,dict"`
}

// Customer is a TPC-H customer with its nation.
type Customer struct {
	Name           string  `json:"name" msgpack:"name" cbor:"name" avro:"name" parquet:"name"`
	Address        string  `json:"address" msgpack:"address" cbor:"address" avro:"address" parquet:"address"`
	Nation         Nation  `json:"nation" msgpack:"nation" cbor:"nation" avro:"nation" parquet:"nation"`
	Phone          string  `json:"phone" msgpack:"phone" cbor:"phone" avro:"phone" parquet:"phone"`
	AccountBalance float64 `json:"account_balance" msgpack:"account_balance" cbor:"account_balance" avro:"account_balance" parquet:"account_balance"`
	MarketSegment  string  `json:"market_segment" msgpack:"market_segment" cbor:"market_segment" avro:"market_segment" parquet:"market_segment,dict"`
	Comment        string  `json:"comment" msgpack:"comment" cbor:"comment" avro:"comment" parquet:"comment"`
}

// Order is a TPC-H order with its customer.
type Order struct {
	Customer      Customer `json:"customer" msgpack:"customer" cbor:"customer" avro:"customer" parquet:"customer"`
	OrderStatus   string   `json:"order_status" msgpack:"order_status" cbor:"order_status" avro:"order_status" parquet:"order_status,dict"`
	TotalPrice    float64  `json:"total_price" msgpack:"total_price" cbor:"total_price" avro:"total_price" parquet:"total_price"`
	OrderDate     string   `json:"order_date" msgpack:"order_date" cbor:"order_date" avro:"order_date" parquet:"order_date,dict"`
	OrderPriority string   `json:"order_priority" msgpack:"order_priority" cbor:"order_priority" avro:"order_priority" parquet:"order_priority,dict"`
	Clerk         string   `json:"clerk" msgpack:"clerk" cbor:"clerk" avro:"clerk" parquet:"clerk,dict"`
	ShipPriority  int32    `json:"ship_priority" msgpack:"ship_priority" cbor:"ship_priority" avro:"ship_priority" parquet:"ship_priority"`
	Comment       string   `json:"comment" msgpack:"comment" cbor:"comment" avro:"comment" parquet:"comment"`
}

// Part is a TPC-H part.
type Part struct {
	Name         string  `json:"name" msgpack:"name" cbor:"name" avro:"name" parquet:"name"`
	Manufacturer string  `json:"manufacturer" msgpack:"manufacturer" cbor:"manufacturer" avro:"manufacturer" parquet:"manufacturer,dict"`
	Brand        string  `json:"brand" msgpack:"brand" cbor:"brand" avro:"brand" parquet:"brand,dict"`
	Type         string  `json:"type" msgpack:"type" cbor:"type" avro:"type" parquet:"type,dict"`
	Size         int32   `json:"size" msgpack:"size" cbor:"size" avro:"size" parquet:"size"`
	Container    string  `json:"container" msgpack:"container" cbor:"container" avro:"container" parquet:"container,dict"`
	RetailPrice  float64 `json:"retail_price" msgpack:"retail_price" cbor:"retail_price" avro:"retail_price" parquet:"retail_price"`
	Comment      string  `json:"comment" msgpack:"comment" cbor:"comment" avro:"comment" parquet:"comment"`
}

// Supplier is a TPC-H supplier with its nation.
type Supplier struct {
	Name           string  `json:"name" msgpack:"name" cbor:"name" avro:"name" parquet:"name"`
	Address        string  `json:"address" msgpack:"address" cbor:"address" avro:"address" parquet:"address"`
	Nation         Nation  `json:"nation" msgpack:"nation" cbor:"nation" avro:"nation" parquet:"nation"`
	Phone          string  `json:"phone" msgpack:"phone" cbor:"phone" avro:"phone" parquet:"phone"`
	AccountBalance float64 `json:"account_balance" msgpack:"account_balance" cbor:"account_balance" avro:"account_balance" parquet:"account_balance"`
	Comment        string  `json:"comment" msgpack:"comment" cbor:"comment" avro:"comment" parquet:"comment"`
}

// LineItem is one record: a TPC-H line item with its order, part and supplier
// embedded. Money and rates are float64 (cents / 100, as dbgen prints them);
// dates are "YYYY-MM-DD" strings.
type LineItem struct {
	Order         Order    `json:"order" msgpack:"order" cbor:"order" avro:"order" parquet:"order"`
	Part          Part     `json:"part" msgpack:"part" cbor:"part" avro:"part" parquet:"part"`
	Supplier      Supplier `json:"supplier" msgpack:"supplier" cbor:"supplier" avro:"supplier" parquet:"supplier"`
	LineNumber    int32    `json:"line_number" msgpack:"line_number" cbor:"line_number" avro:"line_number" parquet:"line_number"`
	Quantity      int32    `json:"quantity" msgpack:"quantity" cbor:"quantity" avro:"quantity" parquet:"quantity"`
	ExtendedPrice float64  `json:"extended_price" msgpack:"extended_price" cbor:"extended_price" avro:"extended_price" parquet:"extended_price"`
	Discount      float64  `json:"discount" msgpack:"discount" cbor:"discount" avro:"discount" parquet:"discount"`
	Tax           float64  `json:"tax" msgpack:"tax" cbor:"tax" avro:"tax" parquet:"tax"`
	ReturnFlag    string   `json:"return_flag" msgpack:"return_flag" cbor:"return_flag" avro:"return_flag" parquet:"return_flag,dict"`
	LineStatus    string   `json:"line_status" msgpack:"line_status" cbor:"line_status" avro:"line_status" parquet:"line_status,dict"`
	ShipDate      string   `json:"ship_date" msgpack:"ship_date" cbor:"ship_date" avro:"ship_date" parquet:"ship_date,dict"`
	CommitDate    string   `json:"commit_date" msgpack:"commit_date" cbor:"commit_date" avro:"commit_date" parquet:"commit_date,dict"`
	ReceiptDate   string   `json:"receipt_date" msgpack:"receipt_date" cbor:"receipt_date" avro:"receipt_date" parquet:"receipt_date,dict"`
	ShipInstruct  string   `json:"ship_instruct" msgpack:"ship_instruct" cbor:"ship_instruct" avro:"ship_instruct" parquet:"ship_instruct,dict"`
	ShipMode      string   `json:"ship_mode" msgpack:"ship_mode" cbor:"ship_mode" avro:"ship_mode" parquet:"ship_mode,dict"`
	Comment       string   `json:"comment" msgpack:"comment" cbor:"comment" avro:"comment" parquet:"comment"`
}

// Leaves returns the 47 leaf paths of LineItem in schema order, e.g.
// "order.customer.nation.region.name".
func Leaves() []string { return nested.Leaves[LineItem]() }

// NewProjector returns a projector of line items onto leaves (see
// nested.Projector); it fails on a path that is not a leaf.
func NewProjector(leaves []string) (*nested.Projector[LineItem], error) {
	return nested.NewProjector[LineItem](leaves)
}

// Project returns rec with only leaves set (see nested.Projector.Project). To
// project many records, build a projector once with NewProjector.
func Project(rec *LineItem, leaves []string) (LineItem, error) {
	return nested.Project(rec, leaves)
}

// Equal reports whether a and b are equal, floats compared bit for bit.
func Equal(a, b *LineItem) bool { return nested.Equal(a, b) }

// Diff returns nil when got equals want, else an error naming the first
// differing leaf.
func Diff(got, want *LineItem) error { return nested.Diff(got, want) }
