package records

import _ "embed"

//go:embed schema/record.avsc
var avroSchema string

// AvroSchema returns the Avro schema of Record (schema/record.avsc).
func AvroSchema() string { return avroSchema }
