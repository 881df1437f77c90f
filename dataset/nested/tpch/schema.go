package tpch

import _ "embed"

//go:embed schema/tpch.avsc
var avroSchema string

// AvroSchema returns the Avro schema of LineItem (schema/tpch.avsc).
func AvroSchema() string { return avroSchema }
