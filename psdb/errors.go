package psdb

import "errors"

// Sentinel errors. Every error returned by this package wraps one of these,
// so callers can test the cause with errors.Is.
var (
	// ErrShortBlock: the input is shorter than the 9-byte header.
	ErrShortBlock = errors.New("psdb: block shorter than header")
	// ErrLayout: the header names a layout this package does not read.
	ErrLayout = errors.New("psdb: unsupported layout")
	// ErrCompression: the header names an unknown compression type.
	ErrCompression = errors.New("psdb: unsupported compression")
	// ErrCompressed: a compressed block was given to a function that cannot
	// decompress (use a Codec).
	ErrCompressed = errors.New("psdb: block is compressed; use a Codec")
	// ErrDataType: the data type is not one of 1–30.
	ErrDataType = errors.New("psdb: invalid data type")
	// ErrTypeMismatch: the operation does not apply to the block's data type.
	ErrTypeMismatch = errors.New("psdb: data type mismatch")
	// ErrBoolPadding: the bool padding nibble is invalid.
	ErrBoolPadding = errors.New("psdb: invalid bool padding")
	// ErrDataLength: the data section's length is inconsistent with its type
	// or schema (truncated, or not a multiple of the element width).
	ErrDataLength = errors.New("psdb: invalid data length")
	// ErrIndex: a position past the data was requested.
	ErrIndex = errors.New("psdb: index out of range")
	// ErrValueRange: a value does not fit the narrower stored type.
	ErrValueRange = errors.New("psdb: value out of range for data type")
	// ErrStringTooLong: a string is longer than 65,535 bytes or than the
	// schema's booked maximum.
	ErrStringTooLong = errors.New("psdb: string too long")
	// ErrVectorLength: a vector's length differs from the schema's.
	ErrVectorLength = errors.New("psdb: vector length mismatch")
	// ErrSchema: the schema is invalid, missing, or does not match the block.
	ErrSchema = errors.New("psdb: schema error")
	// ErrExpiry: the expiry is in the past, too far ahead, or unrepresentable.
	ErrExpiry = errors.New("psdb: invalid expiry")
	// ErrTooLarge: decompressed data exceeds the configured limit.
	ErrTooLarge = errors.New("psdb: decompressed data too large")
	// ErrCorrupt: compressed data could not be decompressed.
	ErrCorrupt = errors.New("psdb: corrupt compressed data")
	// ErrCacheBlockTooLarge: a block does not fit the cache layout's length
	// field (65,535 bytes in CSDB layout 1).
	ErrCacheBlockTooLarge = errors.New("psdb: block too large for cache layout")
	// ErrMalformedCache: a CSDB value is truncated or has an unknown layout.
	ErrMalformedCache = errors.New("psdb: malformed cache block")
)
