//! The packed layouts: lists and records that cross JNI as one `byte[]` (or direct buffer)
//! instead of one Java object per item. Each is defined here once, big-endian, and read or
//! written in Java by `org.rockcask.Wire` (the pending operations by `org.rockcask.PendingOps`,
//! the drop-in's lists by `tokyocabinet.CasketNative` and `tokyocabinet.internal.PackedPutdups`).
//!
//! Both sides are checked against the same bytes: `golden.rs` writes golden vectors from the
//! functions here into `tests/golden/packed-layouts.tsv` (and fails when the file differs from
//! what they produce), and the JUnit tests of both jars decode each vector, compare the values
//! with the ones written beside it, and encode them again byte for byte.
//!
//! No JNI here: bytes in, bytes out.

mod messages;
mod metrics;
mod pending;
mod queues;

#[cfg(test)]
mod golden;

pub use messages::pack_messages;
pub use metrics::pack_metrics;
pub use pending::{PendingOp, PendingOps, OP_ENQUEUE_EXISTING, OP_ENQUEUE_NEW, OP_PUT};
pub use queues::{pack_dead_letters, pack_queue_config, unpack_queue_codecs};

use rockcask_core::maps::MAX_MAP_KEY_BYTES;
use rockcask_core::options::{MAX_BATCH_ITEMS, MAX_PAYLOAD_BYTES, MAX_RESULT_BYTES};

use crate::error::{BridgeError, BridgeResult};

/// Most bytes one Java array holds (HotSpot refuses `new byte[Integer.MAX_VALUE - 7]` and up).
pub const MAX_JAVA_ARRAY_BYTES: usize = i32::MAX as usize - 8;

/// The most framing a packed result adds per item to the bytes the core bounds it by
/// (`MAX_RESULT_BYTES`): a dead letter's numbers and lengths, the largest (a message's is
/// `PACKED_MESSAGE_BYTES`, a scanned pair's two lengths).
const MAX_ITEM_FRAMING_BYTES: usize = 5 * 8 + 4 + 3 * 4;

// Every result bounded by `MAX_RESULT_BYTES` fits one Java array with its framing, and so does
// the largest single item (returned alone when it is over the bound): a map value with its key.
const _: () = {
    assert!(messages::PACKED_MESSAGE_BYTES <= MAX_ITEM_FRAMING_BYTES);
    let framing = messages::PACKED_HEADER_BYTES + MAX_BATCH_ITEMS * MAX_ITEM_FRAMING_BYTES;
    assert!(MAX_RESULT_BYTES + framing <= MAX_JAVA_ARRAY_BYTES);
    assert!(MAX_PAYLOAD_BYTES + MAX_MAP_KEY_BYTES <= MAX_RESULT_BYTES);
};

/// A packed result of `len` bytes as Java will get it: refused, naming its size and the most
/// one Java array holds, when it does not fit one (the calls that return many items bound them
/// by `MAX_RESULT_BYTES`; this is the guard for the others).
pub fn check_fits_java_array(len: usize) -> BridgeResult<()> {
    if len > MAX_JAVA_ARRAY_BYTES {
        return Err(BridgeError::ResultTooLarge { bytes: len, call: None });
    }
    Ok(())
}

/// The list layout, the one most lists use (names, map keys and values, map scans as key and
/// value alternating (`ScanPacker`), the snapshot summary's strings, the drop-in's lists): an
/// i32 count, then per item an i32 length (-1: absent) and the bytes.
pub fn pack_list<'i>(items: impl IntoIterator<Item = Option<&'i [u8]>>) -> Vec<u8> {
    let mut packed = ListPacker::default();
    for item in items {
        packed.push(item);
    }
    packed.finish()
}

/// A list in the list layout built an item at a time (the count goes in front at the end).
pub struct ListPacker {
    out: Vec<u8>,
    items: i32,
}

impl Default for ListPacker {
    fn default() -> Self {
        ListPacker {
            out: vec![0; 4],
            items: 0,
        }
    }
}

impl ListPacker {
    pub fn push(&mut self, item: Option<&[u8]>) {
        put_optional_bytes(&mut self.out, item);
        self.items += 1;
    }

    pub fn finish(mut self) -> Vec<u8> {
        self.out[..4].copy_from_slice(&self.items.to_be_bytes());
        self.out
    }
}

/// A list of strings (none absent) in the list layout, as their UTF-8 bytes.
pub fn pack_strings<S: AsRef<str>>(strings: &[S]) -> Vec<u8> {
    pack_list(strings.iter().map(|s| Some(s.as_ref().as_bytes())))
}

/// A map scan's answer (read by `Wire.pairs` and `Wire.cut`): its pairs in the list layout,
/// key and value alternating, then one absent item when the scan stopped at its byte bound
/// before a pair of its range (an odd count says so: more pairs follow the last key). Scans
/// build it with `ScanPacker` as they go; the golden vectors check it from a whole page.
#[cfg(test)]
pub fn pack_scan_page(page: &rockcask_core::maps::ScanPage) -> Vec<u8> {
    let mut packed = ScanPacker::default();
    for (k, v) in &page.pairs {
        packed.pair(k, v);
    }
    packed.finish(page.cut)
}

/// `pack_scan_page` built a pair at a time, as a scan hands them over
/// (`Transaction::map_scan_visit`): each key and value copied once, into the packed page.
#[derive(Default)]
pub struct ScanPacker(ListPacker);

impl ScanPacker {
    pub fn pair(&mut self, key: &[u8], value: &[u8]) {
        self.0.push(Some(key));
        self.0.push(Some(value));
    }

    /// The packed page; `cut`: the scan stopped at its byte bound.
    pub fn finish(mut self, cut: bool) -> Vec<u8> {
        if cut {
            self.0.push(None);
        }
        self.0.finish()
    }
}

/// The items of a list in the list layout; an absent item is `None`. Every length is checked
/// against the bytes there: nothing is allocated by what the list says.
pub fn unpack_list(packed: &[u8]) -> BridgeResult<Vec<Option<&[u8]>>> {
    unpack_list_with(packed, Ok)
}

/// `item` of each item of a list in the list layout, in order, as `unpack_list` reads them.
pub fn unpack_list_with<'p, T>(
    packed: &'p [u8],
    mut item: impl FnMut(Option<&'p [u8]>) -> BridgeResult<T>,
) -> BridgeResult<Vec<T>> {
    let bad = |what: &str| BridgeError::InvalidArgument(format!("packed list of {} bytes: {what}", packed.len()));
    let word = |at: usize| {
        packed
            .get(at..at + 4)
            .map(|b| i32::from_be_bytes(b.try_into().expect("4 bytes")))
    };
    let count = word(0).ok_or_else(|| bad("no count"))?;
    let count = usize::try_from(count).map_err(|_| bad("negative count"))?;
    let mut items = Vec::with_capacity(count.min(packed.len() / 4));
    let mut at = 4;
    for _ in 0..count {
        let len = word(at).ok_or_else(|| bad("an item's length is cut off"))?;
        at += 4;
        if len < 0 {
            items.push(item(None)?);
            continue;
        }
        let bytes = packed
            .get(at..at + len as usize)
            .ok_or_else(|| bad("an item is cut off"))?;
        at += len as usize;
        items.push(item(Some(bytes))?);
    }
    if at != packed.len() {
        return Err(bad("bytes after the last item"));
    }
    Ok(items)
}

/// i32 length (-1 for none), then the bytes.
fn put_optional_bytes(out: &mut Vec<u8>, bytes: Option<&[u8]>) {
    match bytes {
        Some(b) => {
            out.extend_from_slice(&(b.len() as i32).to_be_bytes());
            out.extend_from_slice(b);
        }
        None => out.extend_from_slice(&(-1i32).to_be_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_lists_carry_count_lengths_and_absent_items() {
        let p = pack_list([Some(&b"ab"[..]), None]);
        assert_eq!(p, [0, 0, 0, 2, 0, 0, 0, 2, b'a', b'b', 0xff, 0xff, 0xff, 0xff]);
        assert_eq!(unpack_list(&p).unwrap(), vec![Some(&b"ab"[..]), None]);
        assert_eq!(pack_strings(&["ab"]), pack_list([Some(&b"ab"[..])]));
    }

    #[test]
    fn unpacking_refuses_lists_whose_counts_or_lengths_do_not_match_their_bytes() {
        let p = pack_list([Some(&b"ab"[..]), Some(&b""[..])]);
        assert_eq!(unpack_list(&p).unwrap(), vec![Some(&b"ab"[..]), Some(&b""[..])]);
        for bad in [
            &p[..p.len() - 1],
            &p[..3],
            &[&p[..], &[0][..]].concat()[..],
            &[0x7f, 0xff, 0xff, 0xff][..],
            &[0xff, 0, 0, 0][..],
        ] {
            assert!(unpack_list(bad).is_err(), "{bad:?}");
        }
        let too_long = [&[0, 0, 0, 1][..], &[0x7f, 0xff, 0xff, 0xff][..], b"x"].concat();
        assert!(unpack_list(&too_long).is_err());
    }
}
