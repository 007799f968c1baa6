//! Payload compression: lz4, zstd or snappy, recorded with each stored value so a reader never
//! guesses, and skipped when it does not pay (below a size threshold, or when the compressed
//! form would not be smaller).
//!
//! A stored form is a codec byte and the body: raw bytes, an lz4 block with its length
//! prepended (lz4_flex), a zstd frame (with its content size), or a raw snappy block (which
//! carries its length). Decompression never allocates more than the codec can produce from the
//! input's size (lz4 and snappy have hard expansion limits; zstd is decoded as a stream).

use std::borrow::Cow;
use std::io::Read;

/// Largest payload a stored value may decompress to (the store's largest payload, 1 GiB).
pub const MAX_DECOMPRESSED: usize = 1 << 30;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Compression {
    #[default]
    None,
    Lz4,
    Zstd,
    Snappy,
}

impl Compression {
    /// Every codec.
    pub const ALL: [Compression; 4] = [
        Compression::None,
        Compression::Lz4,
        Compression::Zstd,
        Compression::Snappy,
    ];

    /// The byte recorded with each value (0 is raw, so values written before compression
    /// existed read as raw). Java's `org.rockcask.Compression` takes these codes from
    /// constants the JNI library checks (`rust/jni/src/contract/rockcask.rs`).
    pub const fn code(self) -> u8 {
        match self {
            Compression::None => 0,
            Compression::Lz4 => 1,
            Compression::Zstd => 2,
            Compression::Snappy => 3,
        }
    }

    pub fn from_code(code: u8) -> Option<Compression> {
        Compression::ALL.into_iter().find(|c| c.code() == code)
    }

    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Lz4 => "lz4",
            Compression::Zstd => "zstd",
            Compression::Snappy => "snappy",
        }
    }
}

/// What a store does with payloads: which codec, from which size on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy {
    pub codec: Compression,
    /// Payloads shorter than this are stored raw (compressing them rarely pays).
    pub threshold: usize,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            codec: Compression::None,
            threshold: 256,
        }
    }
}

impl Policy {
    /// The body to store and the codec it is in: compressed if the policy asks for it and the
    /// result is smaller, the payload itself otherwise.
    pub fn compress<'a>(&self, payload: &'a [u8]) -> (Compression, Cow<'a, [u8]>) {
        if self.codec == Compression::None || payload.len() < self.threshold {
            return (Compression::None, Cow::Borrowed(payload));
        }
        let body = match self.codec {
            Compression::Lz4 => lz4_flex::compress_prepend_size(payload),
            // Level 3: zstd's default, a good speed for data on its way to disk.
            Compression::Zstd => match zstd::bulk::compress(payload, 3) {
                Ok(b) => b,
                Err(_) => return (Compression::None, Cow::Borrowed(payload)),
            },
            Compression::Snappy => match snap::raw::Encoder::new().compress_vec(payload) {
                Ok(b) => b,
                Err(_) => return (Compression::None, Cow::Borrowed(payload)),
            },
            Compression::None => unreachable!("handled above"),
        };
        if body.len() >= payload.len() {
            (Compression::None, Cow::Borrowed(payload))
        } else {
            (self.codec, Cow::Owned(body))
        }
    }

    /// `compress` of a payload the caller owns: the payload itself, not a copy, when it is
    /// stored as it is.
    pub fn compress_owned(&self, payload: Vec<u8>) -> (Compression, Vec<u8>) {
        match self.compress(&payload) {
            (codec, Cow::Owned(body)) => (codec, body),
            (codec, Cow::Borrowed(_)) => (codec, payload),
        }
    }
}

/// The payload of a body stored with `codec` (at most `MAX_DECOMPRESSED` bytes).
pub fn decompress(codec: Compression, body: &[u8]) -> Result<Cow<'_, [u8]>, String> {
    decompress_at_most(codec, body, MAX_DECOMPRESSED)
}

/// The payload of a body stored with `codec`, refused (before anything is allocated, where the
/// codec declares its size) if it would be longer than `limit`.
pub fn decompress_at_most(codec: Compression, body: &[u8], limit: usize) -> Result<Cow<'_, [u8]>, String> {
    if codec != Compression::None {
        if let Some(declared) = declared_len(codec, body)? {
            if declared > limit {
                return Err(format!(
                    "{} body of {} bytes claims {declared} bytes, more than the {limit} allowed",
                    codec.name(),
                    body.len()
                ));
            }
        }
    }
    match codec {
        Compression::None => Ok(Cow::Borrowed(body)),
        Compression::Lz4 => lz4_flex::decompress_size_prepended(body)
            .map(Cow::Owned)
            .map_err(|e| format!("lz4: {e}")),
        Compression::Zstd => {
            let mut out = Vec::new();
            let decoder = zstd::stream::read::Decoder::new(body).map_err(|e| format!("zstd: {e}"))?;
            decoder
                .take(limit as u64 + 1)
                .read_to_end(&mut out)
                .map_err(|e| format!("zstd: {e}"))?;
            if out.len() > limit {
                return Err(format!("zstd body decompresses beyond the {limit} bytes allowed"));
            }
            Ok(Cow::Owned(out))
        }
        Compression::Snappy => snap::raw::Decoder::new()
            .decompress_vec(body)
            .map(Cow::Owned)
            .map_err(|e| format!("snappy: {e}")),
    }
}

/// The length a compressed body declares, checked against what its codec can expand it to
/// (None: zstd without a declared size, or a raw body).
fn declared_len(codec: Compression, body: &[u8]) -> Result<Option<usize>, String> {
    match codec {
        Compression::None => Ok(None),
        Compression::Lz4 => {
            let declared = body
                .get(..4)
                .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize)
                .ok_or("lz4 body shorter than its length")?;
            // An lz4 block expands at most 255 times.
            if declared > (body.len() - 4).saturating_mul(255).saturating_add(16) {
                return Err(format!("lz4 body of {} bytes claims {declared} bytes", body.len()));
            }
            Ok(Some(declared))
        }
        // A frame that declares its size (RockCask's do) is checked before anything is read.
        Compression::Zstd => Ok(match zstd::zstd_safe::get_frame_content_size(body) {
            Ok(Some(declared)) => Some(usize::try_from(declared).unwrap_or(usize::MAX)),
            _ => None,
        }),
        Compression::Snappy => {
            let declared = snap::raw::decompress_len(body).map_err(|e| format!("snappy: {e}"))?;
            // A snappy block expands at most about 21 times (a 3-byte tag copies 64 bytes).
            if declared > body.len().saturating_mul(32).saturating_add(64) {
                return Err(format!("snappy body of {} bytes claims {declared} bytes", body.len()));
            }
            Ok(Some(declared))
        }
    }
}

/// The length of the payload a well-formed body stored with `codec` holds, read from the body's
/// own header without decompressing (the body length when that is not declared).
pub fn payload_len(codec: Compression, body: &[u8]) -> usize {
    declared_len(codec, body).ok().flatten().unwrap_or(body.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(n: usize) -> Vec<u8> {
        b"Dummy text ".iter().copied().cycle().take(n).collect()
    }

    #[test]
    fn every_codec_round_trips_and_compresses_repetitive_data() {
        for codec in [Compression::Lz4, Compression::Zstd, Compression::Snappy] {
            let p = Policy { codec, threshold: 64 };
            let payload = text(10_000);
            let (used, body) = p.compress(&payload);
            assert_eq!(used, codec);
            assert!(body.len() < payload.len() / 5, "{codec:?}: {}", body.len());
            assert_eq!(decompress(used, &body).unwrap(), &payload[..]);
            assert_eq!(Compression::from_code(codec.code()), Some(codec));
        }
    }

    #[test]
    fn small_and_incompressible_payloads_are_stored_raw() {
        let p = Policy {
            codec: Compression::Zstd,
            threshold: 256,
        };
        let small = text(100);
        assert_eq!(p.compress(&small).0, Compression::None);
        let mut noise = vec![0u8; 4096];
        let mut x = 0x2545F4914F6CDD1Du64;
        for b in noise.iter_mut() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *b = x as u8;
        }
        for codec in [Compression::Lz4, Compression::Zstd, Compression::Snappy] {
            let (used, body) = Policy { codec, threshold: 0 }.compress(&noise);
            assert_eq!((used, body.len()), (Compression::None, noise.len()), "{codec:?}");
        }
    }

    #[test]
    fn an_owned_payload_stored_raw_is_handed_back_not_copied() {
        let p = Policy {
            codec: Compression::Lz4,
            threshold: 256,
        };
        let small = text(100);
        let at = small.as_ptr();
        let (used, body) = p.compress_owned(small);
        assert_eq!((used, body.as_ptr()), (Compression::None, at));
        let (used, body) = p.compress_owned(text(10_000));
        assert_eq!(used, Compression::Lz4);
        assert_eq!(decompress(used, &body).unwrap(), &text(10_000)[..]);
    }

    #[test]
    fn damaged_or_absurd_bodies_are_refused_without_large_allocations() {
        // lz4 claiming 2 GiB from 5 bytes; snappy claiming about 2^31.
        assert!(decompress(Compression::Lz4, &[0xff, 0xff, 0xff, 0x7f, 0x00]).is_err());
        assert!(decompress(Compression::Snappy, &[0xff, 0xff, 0xff, 0xff, 0x07, 0x00]).is_err());
        assert!(decompress(Compression::Zstd, b"not a zstd frame").is_err());
        let payload = text(5000);
        let (_, body) = Policy {
            codec: Compression::Lz4,
            threshold: 0,
        }
        .compress(&payload);
        assert!(decompress(Compression::Lz4, &body[..body.len() / 2]).is_err());
    }
}
