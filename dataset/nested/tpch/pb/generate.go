// Package pb holds the Protocol Buffers schema of the TPC-H dataset, the code
// protoc-gen-go generates from it, and the conversions between tpch.LineItem
// and LineItem.
package pb

//go:generate protoc --go_out=. --go_opt=paths=source_relative tpch.proto
