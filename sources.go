// Package serbench carries the sources serbench builds while it runs: the
// runners that measure subjects in other languages (runners/, see
// docs/runner-protocol.md) and the schema files they share with the Go
// side, laid out as in the repository. A serbench binary builds a runner
// from them into its cache on first use, so an installed binary needs no
// checkout.
package serbench

import "embed"

// RunnerSources are the JVM runner's sources and the schemas it compiles
// (the nested datasets' .proto files it generates its classes from), at
// their repository paths.
//
//go:embed runners/jvm/pom.xml runners/jvm/src dataset/nested/tpch/pb/tpch.proto dataset/nested/media/pb/media.proto dataset/nested/userevents/pb/userevents.proto
var RunnerSources embed.FS

// PythonRunnerSources are the Python runner's package and lock file.
//
//go:embed runners/python/pyproject.toml runners/python/requirements.lock all:runners/python/serbench_runner
var PythonRunnerSources embed.FS

// RustRunnerSources are the Rust runner's Cargo project: the manifest, the
// lock file, the build script, the sources and the criterion check the
// manifest names (never the target directory).
//
//go:embed runners/rust/Cargo.toml runners/rust/Cargo.lock runners/rust/build.rs runners/rust/src runners/rust/benches
var RustRunnerSources embed.FS
