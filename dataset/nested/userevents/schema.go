package userevents

import _ "embed"

//go:embed schema/userevents.avsc
var avroSchema string

// AvroSchema returns the Avro schema of Record (schema/userevents.avsc).
// Optional fields are unions with null; Device.Family is an Avro enum, read
// into and written from the Go string.
func AvroSchema() string { return avroSchema }
