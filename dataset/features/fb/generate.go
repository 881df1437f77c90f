// Package fb holds the FlatBuffers tables of the features dataset,
// generated from features.fbs.
package fb

//go:generate flatc --go --go-namespace fb -o .. features.fbs
