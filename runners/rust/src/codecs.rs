//! Compression applied to a subject's encoded bytes (the case's `codec`):
//! `none`, `zstd:N` (zstd crate, one frame with the content size),
//! `lz4` (lz4_flex frame format), `gzip:N` (flate2, miniz_oxide backend,
//! mtime 0), `snappy` (snap, raw/block format), `xz:N` or `lzma:N`
//! (liblzma, XZ container), `brotli:N` (brotli, window 22).

use std::borrow::Cow;
use std::io::{Read, Write};

/// The codecs announced in `hello` (any level of these families works).
pub const ANNOUNCED: &[&str] = &[
    "none",
    "gzip:1",
    "gzip:6",
    "gzip:9",
    "zstd:1",
    "zstd:3",
    "zstd:9",
    "zstd:19",
    "lz4",
    "snappy",
    "brotli:5",
    "brotli:11",
    "xz:6",
];

/// The libraries behind the codecs, for `hello`'s `codec_library`.
pub fn library() -> String {
    use crate::versions::version;
    format!(
        "zstd {}, lz4_flex {}, flate2 {}, snap {}, liblzma {}, brotli {}",
        version("zstd"),
        version("lz4_flex"),
        version("flate2"),
        version("snap"),
        version("liblzma"),
        version("brotli")
    )
}

/// A parsed codec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Codec {
    None,
    Zstd(i32),
    Lz4,
    Gzip(u32),
    Snappy,
    Xz(u32),
    Brotli(u32),
}

type Res<T> = Result<T, String>;

fn level(name: &str, lv: Option<&str>, lo: i64, hi: i64) -> Res<i64> {
    let l: i64 = lv
        .ok_or_else(|| format!("codec {name} needs a level ({name}:N)"))?
        .parse()
        .map_err(|_| format!("codec {name}: bad level {:?}", lv.unwrap_or("")))?;
    if l < lo || l > hi {
        return Err(format!("codec {name}: level {l} outside {lo}..{hi}"));
    }
    Ok(l)
}

impl Codec {
    /// Parses a case's codec field.
    pub fn parse(s: &str) -> Res<Codec> {
        let s = s.trim();
        if s.is_empty() || s == "none" {
            return Ok(Codec::None);
        }
        let (name, lv) = match s.split_once(':') {
            Some((n, l)) => (n, Some(l)),
            None => (s, None),
        };
        Ok(match name {
            "zstd" => Codec::Zstd(level(name, lv, 1, 22)? as i32),
            "gzip" => Codec::Gzip(level(name, lv, 0, 9)? as u32),
            "xz" | "lzma" => Codec::Xz(level(name, lv, 0, 9)? as u32),
            "brotli" => Codec::Brotli(level(name, lv, 0, 11)? as u32),
            "lz4" | "snappy" if lv.is_some() => return Err(format!("codec {name} takes no level")),
            "lz4" => Codec::Lz4,
            "snappy" => Codec::Snappy,
            _ => return Err(format!("unknown codec {s}")),
        })
    }

    /// Compresses b (b itself for none).
    pub fn compress(self, b: &[u8]) -> Res<Vec<u8>> {
        let e = |e: std::io::Error| e.to_string();
        Ok(match self {
            Codec::None => b.to_vec(),
            Codec::Zstd(l) => zstd::bulk::compress(b, l).map_err(e)?,
            Codec::Lz4 => {
                let mut w = lz4_flex::frame::FrameEncoder::new(Vec::with_capacity(b.len() / 2));
                w.write_all(b).map_err(e)?;
                w.finish().map_err(|x| x.to_string())?
            }
            Codec::Gzip(l) => {
                let mut w = flate2::write::GzEncoder::new(Vec::with_capacity(b.len() / 2), flate2::Compression::new(l));
                w.write_all(b).map_err(e)?;
                w.finish().map_err(e)?
            }
            Codec::Snappy => snap::raw::Encoder::new().compress_vec(b).map_err(|x| x.to_string())?,
            Codec::Xz(l) => {
                let mut w = liblzma::write::XzEncoder::new(Vec::with_capacity(b.len() / 2), l);
                w.write_all(b).map_err(e)?;
                w.finish().map_err(e)?
            }
            Codec::Brotli(l) => {
                let mut out = Vec::with_capacity(b.len() / 2);
                {
                    let mut w = brotli::CompressorWriter::new(&mut out, 4096, l, 22);
                    w.write_all(b).map_err(e)?;
                }
                out
            }
        })
    }

    /// Decompresses b (borrowed as is for none).
    pub fn decompress(self, b: &[u8]) -> Res<Cow<'_, [u8]>> {
        let e = |e: std::io::Error| e.to_string();
        let mut out = Vec::new();
        match self {
            Codec::None => return Ok(Cow::Borrowed(b)),
            Codec::Zstd(_) => {
                let n = zstd::zstd_safe::get_frame_content_size(b)
                    .ok()
                    .flatten()
                    .ok_or("zstd frame without content size")?;
                return Ok(Cow::Owned(zstd::bulk::decompress(b, n as usize).map_err(e)?));
            }
            Codec::Lz4 => {
                lz4_flex::frame::FrameDecoder::new(b).read_to_end(&mut out).map_err(e)?;
            }
            Codec::Gzip(_) => {
                flate2::read::GzDecoder::new(b).read_to_end(&mut out).map_err(e)?;
            }
            Codec::Snappy => {
                return snap::raw::Decoder::new()
                    .decompress_vec(b)
                    .map(Cow::Owned)
                    .map_err(|x| x.to_string())
            }
            Codec::Xz(_) => {
                liblzma::read::XzDecoder::new(b).read_to_end(&mut out).map_err(e)?;
            }
            Codec::Brotli(_) => {
                brotli::Decompressor::new(b, 4096).read_to_end(&mut out).map_err(e)?;
            }
        }
        Ok(Cow::Owned(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let data: Vec<u8> = (0..100_000u32).flat_map(|i| (i % 251).to_le_bytes()).collect();
        for c in ANNOUNCED.iter().chain(&["lzma:1", "zstd:22", "gzip:0"]) {
            let k = Codec::parse(c).unwrap();
            let z = k.compress(&data).unwrap();
            assert_eq!(k.decompress(&z).unwrap().as_ref(), &data[..], "{c}");
        }
        for bad in ["zstd", "zstd:0", "lz4:3", "foo:1", "gzip:x"] {
            assert!(Codec::parse(bad).is_err(), "{bad}");
        }
    }
}
