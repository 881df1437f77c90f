package media

import _ "embed"

//go:embed schema/media.avsc
var avroSchema string

// AvroSchema returns the Avro schema of Record (schema/media.avsc). Player and
// Image.Size are Avro enums, read into and written from the Go strings.
func AvroSchema() string { return avroSchema }
