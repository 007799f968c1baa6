//! The protobuf wire format: reading with bounds and offsets, writing.
//!
//! Every read is checked against the end of its buffer; a length prefix larger than what is
//! left is an error before anything is allocated. Lengths are read as protobuf-java reads them
//! (`Reader::len_delimited`). Errors carry the byte offset (from the start
//! of the whole message) where the input stopped making sense.

use crate::CodecError;

pub const VARINT: u32 = 0;
pub const FIXED64: u32 = 1;
pub const LEN: u32 = 2;
pub const START_GROUP: u32 = 3;
pub const END_GROUP: u32 = 4;
pub const FIXED32: u32 = 5;

/// Deepest nesting of groups skipped as unknown fields (protobuf's own default limit is 100).
const MAX_GROUP_DEPTH: u32 = 100;

pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    /// Offset of `buf[0]` in the whole message, for error messages.
    base: usize,
    message: &'static str,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8], message: &'static str) -> Reader<'a> {
        Reader {
            buf,
            pos: 0,
            base: 0,
            message,
        }
    }

    pub fn is_done(&self) -> bool {
        self.pos >= self.buf.len()
    }

    /// The next byte if it is a whole one-byte tag (below 0x80), without consuming it.
    #[inline]
    pub fn peek_byte(&self) -> Option<u8> {
        self.buf.get(self.pos).copied().filter(|&b| b < 0x80)
    }

    /// Consumes the next byte if it equals `byte`.
    #[inline]
    pub fn skip_byte_if(&mut self, byte: Option<u8>) -> bool {
        if byte.is_some() && self.buf.get(self.pos).copied() == byte {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// The bytes not read yet.
    pub fn rest(&self) -> &'a [u8] {
        &self.buf[self.pos..]
    }

    pub fn offset(&self) -> usize {
        self.base + self.pos
    }

    /// Boxed, so that every `Result` on the hot path stays two words wide.
    #[cold]
    pub fn error(&self, at: usize, what: impl Into<String>) -> Box<CodecError> {
        Box::new(CodecError {
            message: self.message,
            offset: at,
            detail: what.into(),
        })
    }

    #[inline]
    pub fn varint(&mut self) -> Result<u64, Box<CodecError>> {
        // Most varints (tags, small lengths, small numbers) are one byte.
        if let Some(&b) = self.buf.get(self.pos) {
            if b < 0x80 {
                self.pos += 1;
                return Ok(u64::from(b));
            }
        }
        self.varint_slow()
    }

    #[cold]
    fn varint_slow(&mut self) -> Result<u64, Box<CodecError>> {
        let start = self.offset();
        let mut value = 0u64;
        for i in 0..10 {
            let Some(&b) = self.buf.get(self.pos) else {
                return Err(self.error(start, "truncated varint"));
            };
            self.pos += 1;
            if i == 9 && b > 1 {
                return Err(self.error(start, "varint longer than 64 bits"));
            }
            value |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(self.error(start, "varint longer than 10 bytes"))
    }

    /// (field number, wire type) of the next field.
    #[inline]
    pub fn tag(&mut self) -> Result<(u32, u32), Box<CodecError>> {
        let at = self.offset();
        let tag = self.varint()?;
        let field = tag >> 3;
        let wire = (tag & 7) as u32;
        if field == 0 || field > (1 << 29) - 1 {
            return Err(self.error(at, format!("invalid field number {field}")));
        }
        if wire > FIXED32 {
            return Err(self.error(at, format!("invalid wire type {wire}")));
        }
        Ok((field as u32, wire))
    }

    pub fn fixed32(&mut self) -> Result<[u8; 4], Box<CodecError>> {
        let at = self.offset();
        let bytes = self
            .buf
            .get(self.pos..self.pos + 4)
            .ok_or_else(|| self.error(at, "truncated 32-bit value"))?;
        self.pos += 4;
        Ok(bytes.try_into().expect("4 bytes"))
    }

    pub fn fixed64(&mut self) -> Result<[u8; 8], Box<CodecError>> {
        let at = self.offset();
        let bytes = self
            .buf
            .get(self.pos..self.pos + 8)
            .ok_or_else(|| self.error(at, "truncated 64-bit value"))?;
        self.pos += 8;
        Ok(bytes.try_into().expect("8 bytes"))
    }

    /// A length-delimited field's contents, as a reader of their own (offsets stay absolute).
    ///
    /// The length is the low 32 bits of its varint taken as a signed 32-bit number, as
    /// protobuf-java reads every length (`CodedInputStream.readRawVarint32`): a prefix of 2^63
    /// is a length of 0 there, and the codec decodes what protobuf-java decodes. A length that
    /// is negative as such a number is refused, as protobuf-java refuses it.
    #[inline]
    pub fn len_delimited(&mut self) -> Result<Reader<'a>, Box<CodecError>> {
        let at = self.offset();
        let prefix = self.varint()?;
        // Truncation to the low 32 bits is the point (see above).
        let Ok(len) = usize::try_from(prefix as u32 as i32) else {
            return Err(self.error(
                at,
                format!("length prefix {prefix} is negative as the 32-bit length protobuf-java reads"),
            ));
        };
        let left = self.buf.len() - self.pos;
        if len > left {
            return Err(self.error(at, format!("length prefix {prefix} exceeds the {left} bytes left")));
        }
        let start = self.pos;
        self.pos += len;
        Ok(Reader {
            buf: &self.buf[start..self.pos],
            pos: 0,
            base: self.base + start,
            message: self.message,
        })
    }

    /// Skips a field this message does not know (or knows with another wire type, which
    /// protobuf treats as unknown too).
    pub fn skip(&mut self, field: u32, wire: u32) -> Result<(), Box<CodecError>> {
        self.skip_nested(field, wire, 0)
    }

    fn skip_nested(&mut self, field: u32, wire: u32, depth: u32) -> Result<(), Box<CodecError>> {
        match wire {
            VARINT => self.varint().map(|_| ()),
            FIXED64 => self.fixed64().map(|_| ()),
            FIXED32 => self.fixed32().map(|_| ()),
            LEN => self.len_delimited().map(|_| ()),
            START_GROUP => {
                if depth >= MAX_GROUP_DEPTH {
                    return Err(self.error(self.offset(), "groups nested too deeply"));
                }
                loop {
                    if self.is_done() {
                        return Err(self.error(self.offset(), format!("group {field} not closed")));
                    }
                    let at = self.offset();
                    let (f, w) = self.tag()?;
                    if w == END_GROUP {
                        if f != field {
                            return Err(self.error(at, format!("group {field} closed as {f}")));
                        }
                        return Ok(());
                    }
                    self.skip_nested(f, w, depth + 1)?;
                }
            }
            _ => Err(self.error(self.offset(), format!("end of group {field} without its start"))),
        }
    }
}

pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub fn put_tag(out: &mut Vec<u8>, field: u32, wire: u32) {
    put_varint(out, u64::from(field << 3 | wire));
}

pub fn varint_len(v: u64) -> usize {
    // 1 byte per started group of 7 bits, at least 1.
    (64 - (v | 1).leading_zeros() as usize).div_ceil(7)
}

pub fn put_len_delimited(out: &mut Vec<u8>, field: u32, bytes: &[u8]) {
    put_tag(out, field, LEN);
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_their_length_is_exact() {
        for v in [0u64, 1, 127, 128, 300, u32::MAX as u64, u64::MAX, (-1i64) as u64] {
            let mut out = Vec::new();
            put_varint(&mut out, v);
            assert_eq!(out.len(), varint_len(v), "{v}");
            assert_eq!(Reader::new(&out, "t").varint().unwrap(), v);
        }
    }

    #[test]
    fn malformed_input_is_refused_with_its_offset() {
        let e = Reader::new(&[0x80, 0x80], "T").varint().unwrap_err();
        assert_eq!((e.offset, e.detail.as_str()), (0, "truncated varint"));
        let e = Reader::new(&[0xff; 11], "T").varint().unwrap_err();
        assert_eq!(e.offset, 0);
        // A length prefix of 2^31 on a 3-byte input: refused before any allocation.
        let mut r = Reader::new(&[0x80, 0x80, 0x80, 0x80, 0x08, 1, 2], "T");
        let e = r.len_delimited().err().expect("too long");
        assert!(e.detail.contains("2147483648"), "{}", e.detail);
        let mut r = Reader::new(&[0x0f], "T");
        assert!(r.tag().unwrap_err().detail.contains("wire type 7"));
        let mut r = Reader::new(&[0x00], "T");
        assert!(r.tag().unwrap_err().detail.contains("field number 0"));
    }

    #[test]
    fn unknown_groups_are_skipped_and_unbalanced_ones_refused() {
        // group 3 { field 1 varint 5 } then end.
        let mut r = Reader::new(&[0x1b, 0x08, 0x05, 0x1c], "T");
        let (f, w) = r.tag().unwrap();
        r.skip(f, w).unwrap();
        assert!(r.is_done());
        let mut r = Reader::new(&[0x1b, 0x08, 0x05, 0x24], "T");
        let (f, w) = r.tag().unwrap();
        assert!(r.skip(f, w).unwrap_err().detail.contains("closed as 4"));
    }
}
