// Package pb holds the Protocol Buffers schema of the records workload and the
// code generated from it by protoc-gen-go.
package pb

//go:generate protoc --go_out=. --go_opt=paths=source_relative record.proto
