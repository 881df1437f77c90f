package filecase

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/subject"
)

// Subject is the shape of a file workload's subject (records, data):
// bound to the Arrow schema of the records the workload writes, it returns
// the streaming format the file pipeline times. A format compiled for one
// Go type (records) ignores the schema; a schema-driven one (package
// format/dynamic, for the data workload) is built for it, or refuses it
// with an error wrapping results.ErrCannotHold.
type Subject[T any] = subject.Subject[*arrow.Schema, format.Format[T]]

// FormatSubject is f as a Subject: described by its descriptor
// (Describe), bound to any schema as f itself.
func FormatSubject[T any](f format.Format[T]) Subject[T] {
	return Subject[T]{Desc: Describe(f.Descriptor(), nil),
		Bind: func(*arrow.Schema) (format.Format[T], error) { return f, nil }}
}
