// Package pb holds the Protocol Buffers schema of the user-events dataset,
// the code protoc-gen-go generates from it, and the conversions between
// userevents.Record and Record.
package pb

//go:generate protoc --go_out=. --go_opt=paths=source_relative userevents.proto
