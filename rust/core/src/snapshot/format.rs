//! The bytes of a snapshot file around its protobuf records (docs/SNAPSHOT_FORMAT.md):
//!
//! ```text
//! file    := header frame* trailer end
//! header  := MAGIC[8] version:u32 header_len:u32 Header[header_len] crc32c:u32
//! frame   := kind:u8 compression:u8 0:u16 records:u32 raw_len:u32 stored_len:u32 body[stored_len] crc32c:u32
//! trailer := frame of kind TRAILER whose body is a Trailer message
//! end     := file_crc32c:u32 END_MAGIC[8]
//! ```
//!
//! Integers are little-endian. A frame's CRC covers its fixed part and body; the file CRC covers
//! every byte before it. A records frame's body, once decompressed, is `records`
//! length-delimited `Record` messages.

use std::io::{self, Read};

use prost::Message;

use crate::codec::snapshot_pb::{Header, Trailer};
use crate::compress::Compression;

pub const MAGIC: [u8; 8] = *b"\x89RCKSNP\n";
pub const END_MAGIC: [u8; 8] = *b"RCKSNEND";
/// The format this build writes, and the newest it reads.
pub const FORMAT_VERSION: u32 = 1;

pub const FRAME_RECORDS: u8 = 1;
pub const FRAME_TRAILER: u8 = 2;
pub const FRAME_FIXED_BYTES: usize = 16;
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
        FormatError { offset, frame, detail: detail.into() }
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

/// Appends one frame: fixed part, `body` (already compressed with `compression`), CRC.
pub fn encode_frame(out: &mut Vec<u8>, kind: u8, compression: Compression, records: u32, raw_len: u32, body: &[u8]) {
    let start = out.len();
    out.push(kind);
    out.push(compression.code());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&records.to_le_bytes());
    out.extend_from_slice(&raw_len.to_le_bytes());
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
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

/// A frame as read from the file, CRC not yet checked (workers check it).
pub struct RawFrame {
    pub index: u64,
    /// Offset of the frame's first byte in the file.
    pub offset: u64,
    pub kind: u8,
    pub compression: u8,
    pub records: u32,
    pub raw_len: u32,
    /// Fixed part, body and CRC, exactly as in the file.
    pub bytes: Vec<u8>,
}

impl RawFrame {
    pub fn body(&self) -> &[u8] {
        &self.bytes[FRAME_FIXED_BYTES..self.bytes.len() - CRC_BYTES]
    }

    pub fn check_crc(&self) -> Result<(), FormatError> {
        let split = self.bytes.len() - CRC_BYTES;
        let stored = u32::from_le_bytes(self.bytes[split..].try_into().expect("4 bytes"));
        let actual = crc32c::crc32c(&self.bytes[..split]);
        if stored != actual {
            return Err(self.error(format!("frame checksum mismatch (stored {stored:08x}, computed {actual:08x})")));
        }
        Ok(())
    }

    pub fn error(&self, detail: impl Into<String>) -> FormatError {
        FormatError::at(self.offset, Some(self.index), detail)
    }

    /// The decompressed body, at most `raw_len` bytes (checked against MAX_FRAME_BYTES on read).
    pub fn decompressed(&self) -> Result<std::borrow::Cow<'_, [u8]>, FormatError> {
        let codec = Compression::from_code(self.compression).ok_or_else(|| self.error(format!("unknown frame compression code {}", self.compression)))?;
        let body = crate::compress::decompress_at_most(codec, self.body(), self.raw_len as usize)
            .map_err(|e| self.error(format!("frame body does not decompress: {e}")))?;
        if body.len() != self.raw_len as usize {
            return Err(self.error(format!("frame body is {} bytes once decompressed; its header says {}", body.len(), self.raw_len)));
        }
        Ok(body)
    }
}

/// Reads a snapshot front to back, checking every bound before allocating and keeping the
/// running whole-file CRC.
pub struct FrameReader<R> {
    input: R,
    /// Bytes of the file, when known: lengths reaching past it are refused before allocating.
    file_len: Option<u64>,
    pub offset: u64,
    pub crc: u32,
    next_index: u64,
}

impl<R: Read> FrameReader<R> {
    /// Reads and checks the header; returns the reader positioned at the first frame.
    pub fn open(input: R, file_len: Option<u64>) -> Result<(FrameReader<R>, Header), FormatError> {
        let mut r = FrameReader { input, file_len, offset: 0, crc: 0, next_index: 0 };
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
                format!("snapshot format version {version} is newer than this build reads (up to {FORMAT_VERSION}); use a newer RockCask"),
            ));
        }
        if version == 0 {
            return Err(FormatError::at(8, None, "snapshot format version 0 does not exist"));
        }
        let len = u32::from_le_bytes(fixed[12..16].try_into().expect("4 bytes"));
        if len > MAX_HEADER_BYTES {
            return Err(FormatError::at(12, None, format!("header length {len} exceeds the limit of {MAX_HEADER_BYTES}")));
        }
        r.check_fits(12, None, len as u64 + CRC_BYTES as u64, "header")?;
        let mut body = vec![0u8; len as usize];
        r.read_exact_or(&mut body, "the file ends inside the header")?;
        let computed = r.crc;
        let mut crc = [0u8; 4];
        r.read_exact_or(&mut crc, "the file ends inside the header")?;
        if u32::from_le_bytes(crc) != computed {
            return Err(FormatError::at(16 + len as u64, None, "header checksum mismatch"));
        }
        let header = Header::decode(&body[..]).map_err(|e| FormatError::at(16, None, format!("header does not decode: {e}")))?;
        Ok((r, header))
    }

    /// The next frame (records or trailer). The trailer is the last thing this returns; call
    /// `finish` after it.
    pub fn next_frame(&mut self) -> Result<RawFrame, FormatError> {
        let offset = self.offset;
        let index = self.next_index;
        let mut fixed = [0u8; FRAME_FIXED_BYTES];
        self.read_exact_or(&mut fixed, "the file ends where a frame or the trailer should start (truncated)")
            .map_err(|e| FormatError { frame: Some(index), ..e })?;
        let kind = fixed[0];
        let compression = fixed[1];
        let word = |at: usize| u32::from_le_bytes(fixed[at..at + 4].try_into().expect("4 bytes"));
        let (records, raw_len, stored_len) = (word(4), word(8), word(12));
        let err = |detail: String| FormatError::at(offset, Some(index), detail);
        if kind != FRAME_RECORDS && kind != FRAME_TRAILER {
            return Err(err(format!("unknown frame kind {kind}")));
        }
        if fixed[2] != 0 || fixed[3] != 0 {
            return Err(err("reserved frame bytes are not zero".into()));
        }
        if stored_len > MAX_FRAME_BYTES || raw_len > MAX_FRAME_BYTES {
            return Err(err(format!("frame length {} exceeds the limit of {MAX_FRAME_BYTES} bytes", stored_len.max(raw_len))));
        }
        // A record takes at least one byte (its length), so a count beyond the body size is a lie.
        if records as u64 > raw_len as u64 || records > MAX_FRAME_RECORDS {
            return Err(err(format!("frame claims {records} records in {raw_len} bytes (at most {MAX_FRAME_RECORDS} per frame)")));
        }
        if kind == FRAME_TRAILER && (records != 0 || compression != 0) {
            return Err(err("the trailer frame must hold no records and be stored raw".into()));
        }
        self.check_fits(offset + 12, Some(index), stored_len as u64 + CRC_BYTES as u64, "frame")?;
        let mut bytes = Vec::with_capacity(FRAME_FIXED_BYTES + stored_len as usize + CRC_BYTES);
        bytes.extend_from_slice(&fixed);
        bytes.resize(FRAME_FIXED_BYTES + stored_len as usize + CRC_BYTES, 0);
        self.read_exact_or(&mut bytes[FRAME_FIXED_BYTES..], "the file ends inside a frame (truncated)")
            .map_err(|e| FormatError { frame: Some(index), ..e })?;
        self.next_index += 1;
        Ok(RawFrame { index, offset, kind, compression, records, raw_len, bytes })
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
            return Err(FormatError::at(at, None, format!("whole-file checksum mismatch (stored {stored:08x}, computed {computed:08x})")));
        }
        let mut extra = [0u8; 1];
        match self.input.read(&mut extra) {
            Ok(0) => Ok(()),
            Ok(_) => Err(FormatError::at(self.offset, None, "bytes follow the end of the snapshot")),
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
                    format!("{what} length reaches {} bytes past the end of the file (truncated, or a damaged length)", self.offset + len - file_len),
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
mod tests {
    use super::*;

    fn tiny_file() -> Vec<u8> {
        let mut file = encode_header(&Header { created_by: "test".into(), ..Default::default() });
        encode_frame(&mut file, FRAME_RECORDS, Compression::None, 1, 3, b"\x02\x0a\x00");
        let crc = crc32c::crc32c(&file);
        file.extend(encode_trailer_and_end(&Trailer { frames: 1, records: 1, ..Default::default() }, crc));
        file
    }

    fn read_all(file: &[u8]) -> Result<u64, FormatError> {
        let (mut r, _) = FrameReader::open(file, Some(file.len() as u64))?;
        loop {
            let f = r.next_frame()?;
            f.check_crc()?;
            f.decompressed()?;
            if f.kind == FRAME_TRAILER {
                r.finish()?;
                return Ok(r.frames_read());
            }
        }
    }

    #[test]
    fn a_written_file_reads_back_frame_by_frame() {
        assert_eq!(read_all(&tiny_file()).unwrap(), 2);
    }

    #[test]
    fn every_truncation_and_every_byte_flip_is_refused() {
        let file = tiny_file();
        for cut in 0..file.len() {
            assert!(read_all(&file[..cut]).is_err(), "truncated at {cut}");
        }
        for at in 0..file.len() {
            let mut bad = file.clone();
            bad[at] ^= 0x5A;
            assert!(read_all(&bad).is_err(), "flipped at {at}");
        }
        let mut longer = file.clone();
        longer.push(0);
        assert!(read_all(&longer).unwrap_err().detail.contains("follow the end"));
    }

    #[test]
    fn a_compressed_body_is_never_inflated_beyond_its_declared_length() {
        // 1 MiB of zeros compresses to a few hundred bytes; the frame says 1,000 bytes.
        let zeros = vec![0u8; 1 << 20];
        let (codec, body) = crate::compress::Policy { codec: Compression::Zstd, threshold: 0 }.compress(&zeros);
        assert_eq!(codec, Compression::Zstd);
        let mut file = encode_header(&Header::default());
        encode_frame(&mut file, FRAME_RECORDS, codec, 1, 1000, &body);
        let (mut r, _) = FrameReader::open(&file[..], Some(file.len() as u64)).unwrap();
        let frame = r.next_frame().unwrap();
        frame.check_crc().unwrap();
        let e = frame.decompressed().unwrap_err();
        assert!(e.detail.contains("1000"), "{}", e.detail);
    }

    #[test]
    fn newer_versions_and_huge_lengths_are_refused_before_reading_on() {
        let mut file = tiny_file();
        file[8] = 2;
        assert!(read_all(&file).unwrap_err().detail.contains("newer"));
        let mut file = tiny_file();
        let frame = 16 + u32::from_le_bytes(file[12..16].try_into().unwrap()) as usize + 4;
        file[frame + 12..frame + 16].copy_from_slice(&(1u32 << 31).to_le_bytes());
        let e = read_all(&file).unwrap_err();
        assert_eq!((e.offset, e.frame), (frame as u64, Some(0)));
        assert!(e.detail.contains("exceeds the limit"), "{}", e.detail);
        // Many more records than a frame may hold: refused from the frame's fixed part.
        let mut many = tiny_file();
        many[frame + 4..frame + 8].copy_from_slice(&(MAX_FRAME_RECORDS + 1).to_le_bytes());
        many[frame + 8..frame + 12].copy_from_slice(&(1u32 << 30).to_le_bytes());
        assert!(read_all(&many).unwrap_err().detail.contains("records"));
        // Within the limit but past the end of the file: refused before allocating.
        file[frame + 12..frame + 16].copy_from_slice(&(1u32 << 29).to_le_bytes());
        assert!(read_all(&file).unwrap_err().detail.contains("past the end"));
    }
}
