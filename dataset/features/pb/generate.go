// Package pb holds the protobuf messages of the features dataset,
// generated from features.proto.
package pb

//go:generate protoc --go_out=. --go_opt=paths=source_relative features.proto
