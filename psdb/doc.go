// Package psdb implements PSDB (Permanent Storage Data Block) layout 1, the
// block format of an online feature store, and CSDB, the cache value that
// bundles several PSDB blocks of one entity key.
//
// A PSDB block holds the values of one feature group — all features of one
// data type — behind a 9-byte header (schema version, 40-bit expiry, layout,
// compression, data type and bool padding). The block stores no feature
// names, counts or offsets: those come from the feature group's [Schema].
//
// # Writing
//
// The package-level Append functions (for example [AppendInt32s],
// [AppendFP16s], [AppendBools], [AppendStrings], [AppendFloat32Vectors])
// append one complete, uncompressed block to a caller's buffer. They allocate
// nothing when the buffer has enough spare capacity, and on little-endian
// hosts the 32- and 64-bit types are written with a single memory copy.
// A vector block can also be written from the values of all its vectors
// in one flattened slice ([AppendFlatVectors]), the block's own layout.
// A [Codec] adds opportunistic zstd compression of the data section
// ([Codec.Compress]) and decompression ([Codec.Parse]); it owns the zstd
// state so that it is reused across calls.
//
// # Reading
//
// [Parse] validates a block and returns a [Block] that refers to the input
// bytes without copying them. Typed accessors read one value
// ([Block.Int32], [Block.Float32], [Block.Bool], [Block.String], …) and bulk
// decoders append all values to a caller's slice ([Block.AppendInt32s],
// [Block.AppendFloat32s], [Block.AppendBools], [Block.AppendStrings], …).
// Narrow types are widened: an Int8 or Int16 block reads as int32, FP8 and
// FP16 blocks read as float32.
//
// Strings are read without copying: [Block.ReadStrings] (or [ParseStrings],
// which parses and reads in one pass) fills a reusable [Strings] with
// offsets into the block's bytes. Bools can also be written and read as
// packed bits with one copy ([AppendBoolBits], [Block.AppendBoolBits]).
//
// A block stores no value count, so pass the feature group's [Schema] to
// Parse: without it a block truncated at an element boundary parses as a
// shorter block (see [Parse]).
//
// # Compatibility
//
// Blocks are byte-for-byte those of the reference implementation
// (BharatMLStack's online-feature-store), compressed ones included when the
// Codec uses its default level, zstd.SpeedBetterCompression; FP8 E4M3
// values beyond ±464 and ±Inf are written as NaN as the reference writes
// them ([AppendFP8E4M3sSaturating] clamps to ±448 instead). The reader
// accepts the reference's stale bool-padding nibble on non-bool types.
//
// # Byte order
//
// Every multi-byte field (header, data, string lengths, cache lengths) is
// little-endian on every host.
//
// # Expiry
//
// The expiry is a 40-bit value year<<26 | day<<17 | second (UTC calendar
// year of the expiry instant, 0-based day of that year, second of that day).
// All-zero means the block never expires; this is reported explicitly by
// [Header.HasExpiry] rather than as a timestamp.
package psdb
