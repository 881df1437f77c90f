// Package pb holds the Protocol Buffers schema of the envelope workload and the
// code generated from it by protoc-gen-go and protoc-gen-go-vtproto.
package pb

//go:generate protoc -I . -I /usr/include --go_out=. --go_opt=paths=source_relative --go-vtproto_out=. --go-vtproto_opt=paths=source_relative,features=marshal+unmarshal+size envelope.proto
