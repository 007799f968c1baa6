//! The bytes of a snapshot file around its protobuf records (docs/SNAPSHOT_FORMAT.md):
//!
//! ```text
//! file    := header frame* trailer end
//! header  := MAGIC[8] version:u32 header_len:u32 Header[header_len] crc32c:u32
//! frame   := kind:u8 compression:u8 0:u16 records:u32 raw_len:u32 stored_len:u32 head_crc32c:u32
//!            body[stored_len] crc32c:u32
//! trailer := frame of kind TRAILER whose body is a Trailer message
//! end     := file_crc32c:u32 END_MAGIC[8]
//! ```
//!
//! Integers are little-endian. A frame's head CRC covers the 16 bytes before it and is checked
//! before any of them is used, so a damaged length is caught in its own frame instead of sending
//! the reader to a wrong place; the frame's CRC covers everything before it in the frame; the
//! file CRC covers every byte before it. A records frame's body, once decompressed, is `records`
//! length-delimited `Record` messages. Version 1 frames have no head CRC (and are still read).

use std::io::{self, Read};

use prost::Message;
use rockcask_codec::compress::Compression;
use rockcask_codec::snapshot_pb::{Header, Trailer};

pub const MAGIC: [u8; 8] = *b"\x89RCKSNP\n";
pub const END_MAGIC: [u8; 8] = *b"RCKSNEND";
/// The format this build writes, and the newest it reads. Version 3 adds map records, version 4
/// entries that hold their payload.
pub const FORMAT_VERSION: u32 = 4;
/// The oldest format this build reads: version 1, whose frames have no head CRC.
pub const OLDEST_FORMAT_VERSION: u32 = 1;

pub const FRAME_RECORDS: u8 = 1;
pub const FRAME_TRAILER: u8 = 2;
/// A frame's fields before its head CRC: kind, compression, reserved, records, raw_len, stored_len.
pub const FRAME_FIELDS_BYTES: usize = 16;
/// A frame's fixed part: its fields and their CRC (version 2 on; version 1 has the fields only).
pub const FRAME_FIXED_BYTES: usize = FRAME_FIELDS_BYTES + CRC_BYTES;
pub const CRC_BYTES: usize = 4;
pub const END_BYTES: usize = 4 + END_MAGIC.len();

/// Largest header message accepted (it holds a few short strings).
pub const MAX_HEADER_BYTES: u32 = 1 << 20;
/// Largest frame body, stored or decompressed: one record of the largest payload a store
/// accepts (1 GiB) plus room for its fields. Writers aim for much smaller frames.
pub const MAX_FRAME_BYTES: u32 = (1 << 30) + (1 << 20);
/// Most records in one frame: what a reader holds per frame stays proportional to the bytes,
/// whatever the records.
pub const MAX_FRAME_RECORDS: u32 = 1 << 16;
/// Largest frame size a writer may aim for (a frame holds more only when one record does).
pub const MAX_FRAME_TARGET: usize = 64 << 20;

/// Why a snapshot cannot be read: where (byte offset, frame) and what.
#[derive(Debug)]
pub struct FormatError {
    pub offset: u64,
    pub frame: Option<u64>,
    pub detail: String,
}

impl FormatError {
    pub fn at(offset: u64, frame: Option<u64>, detail: impl Into<String>) -> FormatError {
        FormatError {
            offset,
            frame,
            detail: detail.into(),
        }
    }
}

pub fn encode_header(header: &Header) -> Vec<u8> {
    let body = header.encode_to_vec();
    let mut out = Vec::with_capacity(MAGIC.len() + 8 + body.len() + CRC_BYTES);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(&body);
    let crc = crc32c::crc32c(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// Appends one frame: fields, their CRC, `body` (already compressed with `compression`), CRC.
pub fn encode_frame(out: &mut Vec<u8>, kind: u8, compression: Compression, records: u32, raw_len: u32, body: &[u8]) {
    let start = out.len();
    out.push(kind);
    out.push(compression.code());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&records.to_le_bytes());
    out.extend_from_slice(&raw_len.to_le_bytes());
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    let head_crc = crc32c::crc32c(&out[start..]);
    out.extend_from_slice(&head_crc.to_le_bytes());
    out.extend_from_slice(body);
    let crc = crc32c::crc32c(&out[start..]);
    out.extend_from_slice(&crc.to_le_bytes());
}

pub fn encode_trailer_and_end(trailer: &Trailer, file_crc_before: u32) -> Vec<u8> {
    let body = trailer.encode_to_vec();
    let mut out = Vec::with_capacity(FRAME_FIXED_BYTES + body.len() + CRC_BYTES + END_BYTES);
    encode_frame(&mut out, FRAME_TRAILER, Compression::None, 0, body.len() as u32, &body);
    let file_crc = crc32c::crc32c_append(file_crc_before, &out);
    out.extend_from_slice(&file_crc.to_le_bytes());
    out.extend_from_slice(&END_MAGIC);
    out
}

/// A frame as read from the file, its fields checked (and, from version 2, their CRC), the
/// CRC of the whole frame not yet (workers check it).
pub struct RawFrame {
    pub index: u64,
    /// Offset of the frame's first byte in the file.
    pub offset: u64,
    pub kind: u8,
    pub compression: u8,
    pub records: u32,
    pub raw_len: u32,
    /// Bytes of the fixed part: FRAME_FIXED_BYTES, or FRAME_FIELDS_BYTES in version 1.
    pub fixed_len: usize,
    /// Fixed part, body and CRC, exactly as in the file.
    pub bytes: Vec<u8>,
}

impl RawFrame {
    pub fn body(&self) -> &[u8] {
        &self.bytes[self.fixed_len..self.bytes.len() - CRC_BYTES]
    }

    /// Offset of the byte after the frame.
    pub fn end(&self) -> u64 {
        self.offset + self.bytes.len() as u64
    }

    pub fn check_crc(&self) -> Result<(), FormatError> {
        let split = self.bytes.len() - CRC_BYTES;
        let stored = u32::from_le_bytes(self.bytes[split..].try_into().expect("4 bytes"));
        let actual = crc32c::crc32c(&self.bytes[..split]);
        if stored != actual {
            return Err(self.error(format!(
                "frame checksum mismatch (stored {stored:08x}, computed {actual:08x})"
            )));
        }
        Ok(())
    }

    pub fn error(&self, detail: impl Into<String>) -> FormatError {
        FormatError::at(self.offset, Some(self.index), detail)
    }

    /// The decompressed body, at most `raw_len` bytes (checked against MAX_FRAME_BYTES on read).
    pub fn decompressed(&self) -> Result<std::borrow::Cow<'_, [u8]>, FormatError> {
        let codec = Compression::from_code(self.compression)
            .ok_or_else(|| self.error(format!("unknown frame compression code {}", self.compression)))?;
        let body = rockcask_codec::compress::decompress_at_most(codec, self.body(), self.raw_len as usize)
            .map_err(|e| self.error(format!("frame body does not decompress: {e}")))?;
        if body.len() != self.raw_len as usize {
            return Err(self.error(format!(
                "frame body is {} bytes once decompressed; its header says {}",
                body.len(),
                self.raw_len
            )));
        }
        Ok(body)
    }
}

/// Reads a snapshot front to back, checking every bound before allocating and keeping the
/// running whole-file CRC.
///
/// Every error names the byte offset where the part that failed its check starts (the header
/// at 0, a frame at its first byte, the end at its file CRC) or, for a field refused on its
/// own (a version, a length past the end of the file, the end magic), that field's offset:
/// never a byte after the damage, and always inside the part holding it.
pub struct FrameReader<R> {
    input: R,
    /// Bytes of the file, when known: lengths reaching past it are refused before allocating.
    file_len: Option<u64>,
    /// The file's format version (from its header).
    pub version: u32,
    pub offset: u64,
    pub crc: u32,
    next_index: u64,
}

impl<R: Read> FrameReader<R> {
    /// Reads and checks the header; returns the reader positioned at the first frame.
    pub fn open(input: R, file_len: Option<u64>) -> Result<(FrameReader<R>, Header), FormatError> {
        let mut r = FrameReader {
            input,
            file_len,
            version: 0,
            offset: 0,
            crc: 0,
            next_index: 0,
        };
        let mut fixed = [0u8; 16];
        r.read_exact_or(&mut fixed, "the file is shorter than a snapshot header")?;
        if fixed[..8] != MAGIC {
            return Err(FormatError::at(0, None, "not a RockCask snapshot (wrong magic bytes)"));
        }
        let version = u32::from_le_bytes(fixed[8..12].try_into().expect("4 bytes"));
        if version > FORMAT_VERSION {
            return Err(FormatError::at(
                8,
                None,
                format!("snapshot format version {version} is newer than this build reads (versions {OLDEST_FORMAT_VERSION} to {FORMAT_VERSION}); use a newer RockCask"),
            ));
        }
        if version < OLDEST_FORMAT_VERSION {
            return Err(FormatError::at(8, None, format!("snapshot format version {version} does not exist (this build reads versions {OLDEST_FORMAT_VERSION} to {FORMAT_VERSION})")));
        }
        r.version = version;
        let len = u32::from_le_bytes(fixed[12..16].try_into().expect("4 bytes"));
        if len > MAX_HEADER_BYTES {
            return Err(FormatError::at(
                12,
                None,
                format!("header length {len} exceeds the limit of {MAX_HEADER_BYTES}"),
            ));
        }
        r.check_fits(12, None, len as u64 + CRC_BYTES as u64, "header")?;
        let mut body = vec![0u8; len as usize];
        r.read_exact_or(&mut body, "the file ends inside the header")?;
        let computed = r.crc;
        let mut crc = [0u8; 4];
        r.read_exact_or(&mut crc, "the file ends inside the header")?;
        // Named at the header's start: the damage may lie anywhere in the bytes the CRC covers.
        let stored = u32::from_le_bytes(crc);
        if stored != computed {
            return Err(FormatError::at(
                0,
                None,
                format!("header checksum mismatch (stored {stored:08x}, computed {computed:08x})"),
            ));
        }
        let header =
            Header::decode(&body[..]).map_err(|e| FormatError::at(16, None, format!("header does not decode: {e}")))?;
        Ok((r, header))
    }

    /// The next frame (records or trailer). The trailer is the last thing this returns; call
    /// `finish` after it. From version 2 the frame's fields are trusted only once their CRC
    /// has checked out: a damaged length is reported in its own frame, at the frame's offset.
    pub fn next_frame(&mut self) -> Result<RawFrame, FormatError> {
        let offset = self.offset;
        let index = self.next_index;
        let err = |detail: String| FormatError::at(offset, Some(index), detail);
        let fixed_len = if self.version >= 2 {
            FRAME_FIXED_BYTES
        } else {
            FRAME_FIELDS_BYTES
        };
        let mut fixed = [0u8; FRAME_FIXED_BYTES];
        self.read_exact_or(
            &mut fixed[..fixed_len],
            "the file ends where a frame or the trailer should start (truncated)",
        )
        .map_err(|e| FormatError {
            offset,
            frame: Some(index),
            ..e
        })?;
        if fixed_len == FRAME_FIXED_BYTES {
            let stored = u32::from_le_bytes(fixed[FRAME_FIELDS_BYTES..].try_into().expect("4 bytes"));
            let computed = crc32c::crc32c(&fixed[..FRAME_FIELDS_BYTES]);
            if stored != computed {
                return Err(err(format!(
                    "frame header checksum mismatch (stored {stored:08x}, computed {computed:08x})"
                )));
            }
        }
        let kind = fixed[0];
        let compression = fixed[1];
        let word = |at: usize| u32::from_le_bytes(fixed[at..at + 4].try_into().expect("4 bytes"));
        let (records, raw_len, stored_len) = (word(4), word(8), word(12));
        if kind != FRAME_RECORDS && kind != FRAME_TRAILER {
            return Err(err(format!("unknown frame kind {kind}")));
        }
        if fixed[2] != 0 || fixed[3] != 0 {
            return Err(err("reserved frame bytes are not zero".into()));
        }
        if stored_len > MAX_FRAME_BYTES || raw_len > MAX_FRAME_BYTES {
            return Err(err(format!(
                "frame length {} exceeds the limit of {MAX_FRAME_BYTES} bytes",
                stored_len.max(raw_len)
            )));
        }
        // A record takes at least one byte (its length), so a count beyond the body size is a lie.
        if records as u64 > raw_len as u64 || records > MAX_FRAME_RECORDS {
            return Err(err(format!(
                "frame claims {records} records in {raw_len} bytes (at most {MAX_FRAME_RECORDS} per frame)"
            )));
        }
        if kind == FRAME_TRAILER && (records != 0 || compression != 0) {
            return Err(err("the trailer frame must hold no records and be stored raw".into()));
        }
        self.check_fits(offset + 12, Some(index), stored_len as u64 + CRC_BYTES as u64, "frame")?;
        let total = fixed_len + stored_len as usize + CRC_BYTES;
        let mut bytes = Vec::with_capacity(total);
        bytes.extend_from_slice(&fixed[..fixed_len]);
        bytes.resize(total, 0);
        self.read_exact_or(&mut bytes[fixed_len..], "the file ends inside a frame (truncated)")
            .map_err(|e| FormatError {
                offset,
                frame: Some(index),
                ..e
            })?;
        self.next_index += 1;
        Ok(RawFrame {
            index,
            offset,
            kind,
            compression,
            records,
            raw_len,
            fixed_len,
            bytes,
        })
    }

    /// After the trailer frame: the file CRC, the end magic, and nothing else.
    pub fn finish(&mut self) -> Result<(), FormatError> {
        let computed = self.crc;
        let at = self.offset;
        let mut end = [0u8; END_BYTES];
        self.read_exact_or(&mut end, "the file ends inside its final checksum (truncated)")?;
        if end[4..] != END_MAGIC {
            return Err(FormatError::at(at + 4, None, "wrong end marker after the trailer"));
        }
        let stored = u32::from_le_bytes(end[..4].try_into().expect("4 bytes"));
        if stored != computed {
            return Err(FormatError::at(
                at,
                None,
                format!("whole-file checksum mismatch (stored {stored:08x}, computed {computed:08x})"),
            ));
        }
        let mut extra = [0u8; 1];
        match self.input.read(&mut extra) {
            Ok(0) => Ok(()),
            Ok(_) => Err(FormatError::at(
                self.offset,
                None,
                "bytes follow the end of the snapshot",
            )),
            Err(e) => Err(FormatError::at(self.offset, None, format!("reading: {e}"))),
        }
    }

    pub fn frames_read(&self) -> u64 {
        self.next_index
    }

    fn check_fits(&self, at: u64, frame: Option<u64>, len: u64, what: &str) -> Result<(), FormatError> {
        if let Some(file_len) = self.file_len {
            if self.offset + len > file_len {
                return Err(FormatError::at(
                    at,
                    frame,
                    format!(
                        "{what} length reaches {} bytes past the end of the file (truncated, or a damaged length)",
                        self.offset + len - file_len
                    ),
                ));
            }
        }
        Ok(())
    }

    fn read_exact_or(&mut self, buf: &mut [u8], eof: &str) -> Result<(), FormatError> {
        match self.input.read_exact(buf) {
            Ok(()) => {
                self.crc = crc32c::crc32c_append(self.crc, buf);
                self.offset += buf.len() as u64;
                Ok(())
            }
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Err(FormatError::at(self.offset, None, eof)),
            Err(e) => Err(FormatError::at(self.offset, None, format!("reading: {e}"))),
        }
    }
}

#[cfg(test)]
mod tests;
