// Package fb holds the FlatBuffers schema of the envelope workload and the code
// generated from it by flatc (with the object API), plus a bounds verifier,
// because the generated accessors index the buffer without checks.
package fb

//go:generate flatc --go --gen-object-api -o .. envelope.fbs
//go:generate gofmt -w .
