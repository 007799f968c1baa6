//! The flat form in which a message's content crosses JNI: one buffer, numbers in native byte
//! order (Java fills and reads it with bulk `IntBuffer.put/get` and the like), every section
//! padded to 8 bytes. Written by `org.rockcask.codec.Flat` for encoding, by `write` for
//! decoding:
//!
//! ```text
//! u32 name count, u32 name bytes, u32 end[name count], name bytes, pad
//! u32 column count, u32 0
//! per column: u32 kind (0 int32, 1 int64, 2 float, 3 double, 4 strings/bytes), u32 count,
//!   numbers: count values, pad
//!   blobs:   u32 data bytes, u32 0, u32 end[count], data bytes, pad
//! ```
//!
//! The numbers of this layout are defined below; Java's `org.rockcask.codec.Flat` repeats them
//! as constants the JNI library checks (`rust/jni/src/contract/rockcask.rs`).

use crate::message::{Blobs, BlobsRef, Column, ColumnRef, Decoded};

/// Every section starts at a multiple of this many bytes.
pub const ALIGN: usize = 8;
/// Bytes of each header: two u32 (names: count and data bytes; the columns: count and 0; a
/// column: kind and count; a blobs column's data: data bytes and 0).
pub const HEADER_BYTES: usize = 8;

/// Column kinds.
pub const KIND_INT32: u32 = 0;
pub const KIND_INT64: u32 = 1;
pub const KIND_FLOAT: u32 = 2;
pub const KIND_DOUBLE: u32 = 3;
pub const KIND_BLOBS: u32 = 4;

/// Bytes that pad a section ending at `pos`.
fn padding(pos: usize) -> usize {
    (ALIGN - pos % ALIGN) % ALIGN
}

struct In<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> In<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or_else(|| format!("flat input ends at {} of {}", self.pos, self.buf.len()))?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_ne_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }
    fn pad(&mut self) -> Result<(), String> {
        self.take(padding(self.pos)).map(|_| ())
    }
}

/// Reads the flat form written by Java into owned columns (from any buffer: an aligned copy
/// is read in place).
pub fn read(buf: &[u8]) -> Result<(Blobs, Vec<Column>), String> {
    let mut words = vec![0u64; buf.len().div_ceil(8)];
    // SAFETY: `words` holds at least `buf.len()` bytes; u8 has no alignment or validity needs.
    let aligned = unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr() as *mut u8, buf.len()) };
    aligned.copy_from_slice(buf);
    let (names, columns) = read_borrowed(aligned)?.expect("a Vec<u64> is 8-byte aligned");
    Ok((names.to_owned(), columns.iter().map(ColumnRef::to_owned).collect()))
}

/// Numbers of a plain type (every bit pattern valid) viewed in place; `None` if misaligned.
fn view<T: Copy>(bytes: &[u8]) -> Option<&[T]> {
    // SAFETY: only instantiated below with i32, i64, u32, f32 and f64, for which every bit
    // pattern is a valid value; `align_to` itself respects alignment and length.
    let (pre, mid, post) = unsafe { bytes.align_to::<T>() };
    (pre.is_empty() && post.is_empty()).then_some(mid)
}

fn blobs_in_place<'a>(input: &mut In<'a>, count: usize, data_len: usize) -> Result<Option<BlobsRef<'a>>, String> {
    let ends = input.take(count.checked_mul(4).ok_or("count too large")?)?;
    let data = input.take(data_len)?;
    input.pad()?;
    let Some(ends) = view::<u32>(ends) else { return Ok(None) };
    let b = BlobsRef { data, ends };
    b.check()?;
    if ends.last().map_or(0, |&e| e as usize) != data.len() {
        return Err("blob ends do not cover the data".into());
    }
    Ok(Some(b))
}

/// `read` without copying: numbers and strings are viewed where Java put them. `Ok(None)` if
/// the buffer is not `ALIGN`-byte aligned (a direct buffer always is); use `read` then.
pub fn read_borrowed(buf: &[u8]) -> Result<Option<(BlobsRef<'_>, Vec<ColumnRef<'_>>)>, String> {
    if !(buf.as_ptr() as usize).is_multiple_of(ALIGN) {
        return Ok(None);
    }
    let mut input = In { buf, pos: 0 };
    let name_count = input.u32()? as usize;
    let name_bytes = input.u32()? as usize;
    let Some(names) = blobs_in_place(&mut input, name_count, name_bytes)? else {
        return Ok(None);
    };
    let column_count = input.u32()? as usize;
    input.u32()?;
    let mut columns = Vec::with_capacity(column_count.min(buf.len() / HEADER_BYTES));
    for _ in 0..column_count {
        let kind = input.u32()?;
        let count = input.u32()? as usize;
        let mut numbers = |size: usize| -> Result<&[u8], String> {
            let b = input.take(count.checked_mul(size).ok_or("count too large")?)?;
            input.pad()?;
            Ok(b)
        };
        let column = match kind {
            KIND_INT32 => view::<i32>(numbers(4)?).map(ColumnRef::I32),
            KIND_INT64 => view::<i64>(numbers(8)?).map(ColumnRef::I64),
            KIND_FLOAT => view::<f32>(numbers(4)?).map(ColumnRef::F32),
            KIND_DOUBLE => view::<f64>(numbers(8)?).map(ColumnRef::F64),
            KIND_BLOBS => {
                let data_len = input.u32()? as usize;
                input.u32()?;
                blobs_in_place(&mut input, count, data_len)?.map(ColumnRef::Blobs)
            }
            other => return Err(format!("unknown column kind {other}")),
        };
        let Some(column) = column else { return Ok(None) };
        columns.push(column);
    }
    Ok(Some((names, columns)))
}

struct Out<'a> {
    buf: &'a mut [u8],
    pos: usize,
}

impl Out<'_> {
    fn put(&mut self, bytes: &[u8]) -> Result<(), String> {
        let end = self.pos + bytes.len();
        if end > self.buf.len() {
            return Err(format!(
                "decoded form needs more than the {} bytes given",
                self.buf.len()
            ));
        }
        self.buf[self.pos..end].copy_from_slice(bytes);
        self.pos = end;
        Ok(())
    }
    fn u32(&mut self, v: usize) -> Result<(), String> {
        self.put(&(v as u32).to_ne_bytes())
    }
    fn pad(&mut self) -> Result<(), String> {
        self.put(&[0u8; ALIGN][..padding(self.pos)])
    }
    fn blobs(&mut self, b: &Blobs) -> Result<(), String> {
        for &e in &b.ends {
            self.put(&e.to_ne_bytes())?;
        }
        self.put(&b.data)?;
        self.pad()
    }
}

/// Bytes `write` writes for `d`.
pub fn len(d: &Decoded) -> usize {
    let pad = |n: usize| n + padding(n);
    let blobs = |b: &Blobs| pad(4 * b.len() + b.data.len());
    let columns: usize = d
        .columns
        .iter()
        .map(|c| {
            HEADER_BYTES
                + match c {
                    Column::I32(v) => pad(4 * v.len()),
                    Column::I64(v) => pad(8 * v.len()),
                    Column::F32(v) => pad(4 * v.len()),
                    Column::F64(v) => pad(8 * v.len()),
                    Column::Blobs(b) => HEADER_BYTES + blobs(b),
                }
        })
        .sum();
    HEADER_BYTES + blobs(&d.names) + HEADER_BYTES + columns
}

/// Writes a decoded message in the flat form into `buf`; returns the bytes written.
pub fn write(d: &Decoded, buf: &mut [u8]) -> Result<usize, String> {
    let mut out = Out { buf, pos: 0 };
    out.u32(d.names.len())?;
    out.u32(d.names.data.len())?;
    out.blobs(&d.names)?;
    out.u32(d.columns.len())?;
    out.u32(0)?;
    for c in &d.columns {
        match c {
            Column::I32(v) => {
                out.put(&KIND_INT32.to_ne_bytes())?;
                out.u32(v.len())?;
                v.iter().try_for_each(|x| out.put(&x.to_ne_bytes()))?;
            }
            Column::I64(v) => {
                out.put(&KIND_INT64.to_ne_bytes())?;
                out.u32(v.len())?;
                v.iter().try_for_each(|x| out.put(&x.to_ne_bytes()))?;
            }
            Column::F32(v) => {
                out.put(&KIND_FLOAT.to_ne_bytes())?;
                out.u32(v.len())?;
                v.iter().try_for_each(|x| out.put(&x.to_bits().to_ne_bytes()))?;
            }
            Column::F64(v) => {
                out.put(&KIND_DOUBLE.to_ne_bytes())?;
                out.u32(v.len())?;
                v.iter().try_for_each(|x| out.put(&x.to_bits().to_ne_bytes()))?;
            }
            Column::Blobs(b) => {
                out.put(&KIND_BLOBS.to_ne_bytes())?;
                out.u32(b.len())?;
                out.u32(b.data.len())?;
                out.u32(0)?;
                out.blobs(b)?;
                continue;
            }
        }
        out.pad()?;
    }
    Ok(out.pos)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flat_form_round_trips_every_column_kind() {
        let mut names = Blobs::default();
        names.push(b"a");
        names.push(b"");
        let mut strings = Blobs::default();
        strings.push("é\0".as_bytes());
        let d = Decoded {
            names,
            columns: vec![
                Column::I32(vec![1, -2, i32::MIN]),
                Column::I64(vec![i64::MAX]),
                Column::F32(vec![-0.0, 1.5]),
                Column::F64(vec![]),
                Column::Blobs(strings),
            ],
        };
        let mut buf = vec![0u8; 512];
        let n = write(&d, &mut buf).unwrap();
        assert_eq!(n % 8, 0);
        assert_eq!(n, len(&d));
        let (names, columns) = read(&buf[..n]).unwrap();
        assert_eq!(Decoded { names, columns }, d);
        assert!(write(&d, &mut buf[..n - 1]).is_err());
        // The same, viewed in place (a Vec<u64> gives the 8-byte alignment a direct buffer has).
        let mut aligned = vec![0u64; n / 8];
        // SAFETY: u64 to bytes, same memory, length n.
        let bytes = unsafe { std::slice::from_raw_parts_mut(aligned.as_mut_ptr() as *mut u8, n) };
        bytes.copy_from_slice(&buf[..n]);
        let (names, columns) = read_borrowed(bytes).unwrap().expect("aligned");
        assert_eq!(names.ends, d.names.ends.as_slice());
        let owned: Vec<ColumnRef<'_>> = d.columns.iter().map(Column::as_ref).collect();
        assert_eq!(format!("{columns:?}"), format!("{owned:?}"));
        assert!(read_borrowed(&bytes[..n - 8]).is_err());
        assert!(read_borrowed(&buf[1..n + 1]).unwrap().is_none() || (buf.as_ptr() as usize + 1).is_multiple_of(8));
        assert!(read(&buf[..n - 8]).is_err());
    }
}
