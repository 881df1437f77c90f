//! serbench's Rust runner: measures Rust serialization libraries with
//! serbench's method, speaking the runner protocol version 1
//! (docs/runner-protocol.md). The binary is `serbench-runner`; the library
//! holds everything so the tests and the criterion check use the same code.
//!
//! [`kit`] is the library's public face for a runner of one's own: a
//! [`kit::Subject`] (an encode and a decode of the kit's rows) and
//! [`kit::main`], which serves the protocol through the same code as the
//! built-in runner. The other modules are that code; the built-in subjects
//! (`subjects` and the modules it lists, `files`, `rowfiles`) and their
//! libraries are the default feature `subjects`, which a kit runner turns
//! off (`default-features = false`).

pub mod alloc;
#[cfg(feature = "subjects")]
pub mod archived;
pub mod arrowconv;
#[cfg(feature = "subjects")]
pub mod avro;
pub mod bound;
pub mod callgrind;
pub mod codecs;
#[cfg(feature = "subjects")]
pub mod columnar;
pub mod digest;
#[cfg(feature = "subjects")]
pub mod files;
#[deny(missing_docs)]
pub mod kit;
pub mod measure;
pub mod out;
pub mod projection;
#[cfg(feature = "subjects")]
pub mod protobuf;
#[cfg(feature = "subjects")]
pub mod rowfiles;
pub mod run;
#[cfg(feature = "subjects")]
pub mod serde_formats;
pub mod serde_rows;
pub mod serve;
#[cfg(feature = "subjects")]
pub mod subjects;
pub mod value;

/// The resolved versions of the locked crates (from Cargo.lock at build).
pub mod versions {
    include!(concat!(env!("OUT_DIR"), "/versions.rs"));
}

/// Counts every allocation of the process, for `alloc_bytes_per_op` and
/// `allocs_per_op` (`hello`'s `alloc: process`): a binary linking this
/// library (a kit runner) gets it too, and so cannot declare a global
/// allocator of its own.
#[global_allocator]
static GLOBAL: alloc::Counting = alloc::Counting;

/// The protocol version this runner speaks.
pub const PROTOCOL: i64 = 1;
