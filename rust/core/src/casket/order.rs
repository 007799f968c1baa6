//! Key order of a casket and the encoding of (user key, duplicate position) as RocksDB keys.
//!
//! Every value of a casket is one RocksDB entry. Its key is the user key followed by a 64-bit
//! duplicate sequence, so a key's duplicates sort together and in insertion order.
//!
//! The built-in orders are encoded so that RocksDB's own bytewise comparator sorts them right
//! (no callback per comparison): an order prefix (the key's numeric value, order-preserving),
//! then the user key with 0x00 escaped as 0x00 0xFF, then the terminator 0x00 0x00, then the
//! sequence (big-endian). The escaping makes the key part prefix-free, so the sequence never
//! decides between two different user keys. A caller-supplied order (a Java `BDBCMP`) cannot be
//! encoded; its keys are the raw user key plus the sequence, sorted by a RocksDB comparator that
//! splits the sequence off and calls the caller's function.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::sync::Arc;

use super::error::{CasketError, CasketResult, Ecode};

/// A caller-supplied comparison of two user keys.
pub type ExternalCompare = Arc<dyn Fn(&[u8], &[u8]) -> Ordering + Send + Sync>;

#[derive(Clone)]
pub enum KeyOrder {
    /// Bytewise, shorter first on a common prefix (Tokyo Cabinet's CMPLEXICAL).
    Lexical,
    /// Keys read as decimal real numbers, then bytewise (CMPDECIMAL).
    Decimal,
    /// Keys read as native-order 32-bit integers, then bytewise (CMPINT32).
    Int32,
    /// Keys read as native-order 64-bit integers, then bytewise (CMPINT64).
    Int64,
    /// A caller's function; `name` identifies it in the casket's metadata.
    External { name: String, compare: ExternalCompare },
}

impl std::fmt::Debug for KeyOrder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.id())
    }
}

/// Bytes after the user key part: the 8-byte sequence (and before it, for built-in orders,
/// the 2-byte terminator).
const SEQ_LEN: usize = 8;
const TERMINATOR: [u8; 2] = [0, 0];

/// A comparator as RocksDB takes it.
pub type RocksComparator = Box<dyn Fn(&[u8], &[u8]) -> Ordering>;

impl KeyOrder {
    /// The name recorded in the casket, compared at every open.
    pub fn id(&self) -> String {
        match self {
            KeyOrder::Lexical => "lexical".into(),
            KeyOrder::Decimal => "decimal".into(),
            KeyOrder::Int32 => "int32".into(),
            KeyOrder::Int64 => "int64".into(),
            KeyOrder::External { name, .. } => format!("external:{name}"),
        }
    }

    pub fn is_external(&self) -> bool {
        matches!(self, KeyOrder::External { .. })
    }

    fn prefix_len(&self) -> usize {
        match self {
            KeyOrder::Lexical | KeyOrder::External { .. } => 0,
            KeyOrder::Int32 => 4,
            KeyOrder::Int64 => 8,
            KeyOrder::Decimal => 16,
        }
    }

    /// The RocksDB key of `user_key`'s value at duplicate sequence `seq`.
    pub fn encode(&self, user_key: &[u8], seq: u64) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.prefix_len() + user_key.len() + 2 + SEQ_LEN + 4);
        self.encode_into(user_key, seq, &mut out);
        out
    }

    /// `encode`, appended to `out`.
    pub fn encode_into(&self, user_key: &[u8], seq: u64, out: &mut Vec<u8>) {
        match self {
            KeyOrder::External { .. } => out.extend_from_slice(user_key),
            _ => {
                self.push_prefix(user_key, out);
                push_escaped(user_key, out);
                out.extend_from_slice(&TERMINATOR);
            }
        }
        out.extend_from_slice(&seq.to_be_bytes());
    }

    fn push_prefix(&self, key: &[u8], out: &mut Vec<u8>) {
        match self {
            KeyOrder::Int32 => out.extend_from_slice(&flip_i32(native_i32(key))),
            KeyOrder::Int64 => out.extend_from_slice(&flip_i64(native_i64(key))),
            KeyOrder::Decimal => {
                let (whole, fraction) = decimal_parts(key);
                out.extend_from_slice(&flip_i64(whole));
                out.extend_from_slice(&ordered_f64(fraction));
            }
            KeyOrder::Lexical | KeyOrder::External { .. } => {}
        }
    }

    /// Splits a RocksDB key into (user key, sequence). `None` if it is not a key this order
    /// writes (a damaged store).
    pub fn decode<'a>(&self, raw: &'a [u8]) -> Option<(Cow<'a, [u8]>, u64)> {
        let split = raw.len().checked_sub(SEQ_LEN)?;
        let seq = u64::from_be_bytes(raw[split..].try_into().ok()?);
        match self {
            KeyOrder::External { .. } => Some((Cow::Borrowed(&raw[..split]), seq)),
            _ => {
                let body = raw.get(self.prefix_len()..split.checked_sub(2)?)?;
                if raw[split - 2..split] != TERMINATOR {
                    return None;
                }
                Some((unescape(body)?, seq))
            }
        }
    }

    /// The length of the user key that `raw` (a key this order writes) encodes, without
    /// decoding it.
    pub fn user_key_len(&self, raw: &[u8]) -> usize {
        let body = raw.len().saturating_sub(SEQ_LEN);
        match self {
            KeyOrder::External { .. } => body,
            _ => {
                let escaped = raw
                    .get(self.prefix_len().min(body)..body.saturating_sub(TERMINATOR.len()))
                    .unwrap_or_default();
                // Every 0x00 of the key is written as 0x00 0xFF.
                escaped.len() - escaped.iter().filter(|&&b| b == 0).count()
            }
        }
    }

    /// The part of an encoded key that identifies the user key (everything but the sequence).
    pub fn key_part<'a>(&self, raw: &'a [u8]) -> &'a [u8] {
        &raw[..raw.len().saturating_sub(SEQ_LEN)]
    }

    /// Compares two user keys in this order.
    pub fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
        match self {
            KeyOrder::External { compare, .. } => compare(a, b),
            _ => self.encode(a, 0).cmp(&self.encode(b, 0)),
        }
    }

    /// The RocksDB comparator for external orders: user keys by the caller's function, then
    /// the sequence. Keys shorter than a sequence (never written) sort first, bytewise.
    pub fn rocks_comparator(compare: ExternalCompare) -> RocksComparator {
        Box::new(move |a: &[u8], b: &[u8]| {
            if a.len() < SEQ_LEN || b.len() < SEQ_LEN {
                return a.cmp(b);
            }
            let (ka, sa) = a.split_at(a.len() - SEQ_LEN);
            let (kb, sb) = b.split_at(b.len() - SEQ_LEN);
            compare(ka, kb).then_with(|| sa.cmp(sb))
        })
    }
}

/// What a casket call learns about the caller-supplied order while it runs on this thread.
#[derive(Default)]
struct CallState {
    /// Why a comparison could not be made as the order asked, if one could not.
    failure: Option<String>,
    /// Whether the call has started writing.
    wrote: bool,
}

thread_local! {
    static CALL: std::cell::RefCell<Option<CallState>> = const { std::cell::RefCell::new(None) };
}

/// Reports, from inside an [`ExternalCompare`], that the comparison it returns is not the
/// order's answer (the caller's comparator failed, e.g. it called back into a database). The
/// casket call running on this thread then fails with EINVALID before it writes anything (see
/// `Casket::call`). Outside such a call (RocksDB's background work) the report is dropped.
pub fn report_comparison_failure(why: &str) {
    CALL.with(|c| {
        if let Some(state) = c.borrow_mut().as_mut() {
            state.failure.get_or_insert_with(|| why.to_owned());
        }
    });
}

fn comparison_error(why: &str) -> CasketError {
    CasketError::new(
        Ecode::Invalid,
        format!("the key comparator failed: {why}; nothing was written"),
    )
}

/// Runs one casket call with comparison failures tracked (nested calls each have their own).
/// A failure before the call wrote anything makes the call fail; once it writes, its writes
/// stand and so does its result.
pub(super) fn tracked<T, E: From<CasketError>>(f: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
    let outer = CALL.with(|c| c.replace(Some(CallState::default())));
    let result = f();
    let state = CALL.with(|c| c.replace(outer)).unwrap_or_default();
    match state.failure {
        Some(why) if !state.wrote => Err(comparison_error(&why).into()),
        _ => result,
    }
}

/// Called before a call's first write: fails if a comparison has failed in this call so far.
pub(super) fn before_write() -> CasketResult<()> {
    CALL.with(|c| match c.borrow_mut().as_mut() {
        Some(CallState {
            failure: Some(why),
            wrote: false,
        }) => Err(comparison_error(why)),
        Some(state) => {
            state.wrote = true;
            Ok(())
        }
        None => Ok(()),
    })
}

fn push_escaped(key: &[u8], out: &mut Vec<u8>) {
    let mut rest = key;
    while let Some(i) = rest.iter().position(|&b| b == 0) {
        out.extend_from_slice(&rest[..=i]);
        out.push(0xFF);
        rest = &rest[i + 1..];
    }
    out.extend_from_slice(rest);
}

fn unescape(body: &[u8]) -> Option<Cow<'_, [u8]>> {
    if !body.contains(&0) {
        return Some(Cow::Borrowed(body));
    }
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        out.push(body[i]);
        if body[i] == 0 {
            if body.get(i + 1) != Some(&0xFF) {
                return None;
            }
            i += 1;
        }
        i += 1;
    }
    Some(Cow::Owned(out))
}

/// Tokyo Cabinet reads an integer key from its first bytes in native order; a shorter key is
/// zero-filled (its bytes land at the lowest addresses).
fn native_i32(key: &[u8]) -> i32 {
    let mut buf = [0u8; 4];
    let n = key.len().min(4);
    buf[..n].copy_from_slice(&key[..n]);
    i32::from_ne_bytes(buf)
}

fn native_i64(key: &[u8]) -> i64 {
    let mut buf = [0u8; 8];
    let n = key.len().min(8);
    buf[..n].copy_from_slice(&key[..n]);
    i64::from_ne_bytes(buf)
}

/// Big-endian with the sign bit flipped: bytewise order equals numeric order.
fn flip_i32(v: i32) -> [u8; 4] {
    ((v as u32) ^ 0x8000_0000).to_be_bytes()
}

fn flip_i64(v: i64) -> [u8; 8] {
    ((v as u64) ^ 0x8000_0000_0000_0000).to_be_bytes()
}

/// IEEE-754 bits made bytewise-ordered (negative numbers reversed); -0.0 is 0.0.
fn ordered_f64(v: f64) -> [u8; 8] {
    let v = if v == 0.0 { 0.0 } else { v };
    let bits = v.to_bits();
    let ordered = if bits >> 63 == 1 { !bits } else { bits | (1 << 63) };
    ordered.to_be_bytes()
}

/// Tokyo Cabinet's decimal reading: skip leading blanks and control characters, an optional
/// '-', the integer digits (wrapping like the C code), then, after a '.', up to 16 fraction
/// digits. Returns (signed integer part, signed fraction).
fn decimal_parts(key: &[u8]) -> (i64, f64) {
    let mut p = key.iter().position(|&c| !(c <= b' ' || c == 0x7f)).unwrap_or(key.len());
    let mut sign = 1i64;
    if key.get(p) == Some(&b'-') {
        sign = -1;
        p += 1;
    }
    let mut whole: i64 = 0;
    while let Some(&c) = key.get(p) {
        if !c.is_ascii_digit() {
            break;
        }
        whole = whole.wrapping_mul(10).wrapping_add(i64::from(c - b'0'));
        p += 1;
    }
    let mut fraction = 0.0f64;
    // The original only reads a fraction when at least one character follows the '.'.
    if key.get(p) == Some(&b'.') && key.len() - p > 1 {
        let mut base = 10.0f64;
        for &c in key[p + 1..].iter().take(16) {
            if !c.is_ascii_digit() {
                break;
            }
            fraction += f64::from(c - b'0') / base;
            base *= 10.0;
        }
    }
    (whole.wrapping_mul(sign), fraction * sign as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(order: &KeyOrder, keys: &[&[u8]]) -> Vec<Vec<u8>> {
        let mut v: Vec<Vec<u8>> = keys.iter().map(|k| k.to_vec()).collect();
        v.sort_by(|a, b| order.compare(a, b));
        v
    }

    #[test]
    fn lexical_order_is_bytewise_with_shorter_first_even_with_zero_bytes() {
        let keys: &[&[u8]] = &[b"b", b"a\0", b"a", b"", b"ab", b"a\0\0", b"\xff"];
        let got = sorted(&KeyOrder::Lexical, keys);
        let mut want: Vec<Vec<u8>> = keys.iter().map(|k| k.to_vec()).collect();
        want.sort();
        assert_eq!(got, want);
    }

    #[test]
    fn sequence_orders_duplicates_within_a_key_but_never_across_keys() {
        let o = KeyOrder::Lexical;
        assert!(o.encode(b"a", u64::MAX) < o.encode(b"a\0", 0));
        assert!(o.encode(b"a", 1) < o.encode(b"a", 2));
        assert!(o.encode(b"a", u64::MAX) < o.encode(b"ab", 0));
    }

    #[test]
    fn decode_returns_the_user_key_and_sequence_for_every_order() {
        let ext: ExternalCompare = Arc::new(|a: &[u8], b: &[u8]| a.cmp(b));
        for order in [
            KeyOrder::Lexical,
            KeyOrder::Decimal,
            KeyOrder::Int32,
            KeyOrder::Int64,
            KeyOrder::External {
                name: "x".into(),
                compare: ext.clone(),
            },
        ] {
            for key in [&b""[..], b"\0", b"a\0b\0", b"12.5", b"\xff\0\xff"] {
                let raw = order.encode(key, 77);
                let (k, s) = order.decode(&raw).expect("decodes");
                assert_eq!((&*k, s), (key, 77), "{order:?}");
            }
        }
        assert!(KeyOrder::Lexical.decode(b"abc").is_none());
        assert!(KeyOrder::Lexical.decode(b"a\0b\0\0\0\0\0\0\0\0\0\0").is_none());
    }

    #[test]
    fn decimal_order_reads_numbers_like_the_original() {
        let got = sorted(
            &KeyOrder::Decimal,
            &[
                b"10", b"9", b"-1.5", b"-1.2", b" 3", b"0.5", b"-0.5", b"abc", b"2.25", b"2.3",
            ],
        );
        let want: Vec<&[u8]> = vec![
            b"-1.5", b"-1.2", b"-0.5", b"abc", b"0.5", b"2.25", b"2.3", b" 3", b"9", b"10",
        ];
        assert_eq!(got, want.iter().map(|k| k.to_vec()).collect::<Vec<_>>());
        // Equal numbers fall back to bytewise order, so different keys never collide.
        assert_eq!(KeyOrder::Decimal.compare(b"1.0", b"1.00"), Ordering::Less);
    }

    #[test]
    fn integer_orders_read_native_order_values_and_signs() {
        let k = |v: i32| v.to_ne_bytes().to_vec();
        let got = sorted(&KeyOrder::Int32, &[&k(5), &k(-7), &k(300), &k(i32::MIN), &k(0)]);
        assert_eq!(got, vec![k(i32::MIN), k(-7), k(0), k(5), k(300)]);
        let l = |v: i64| v.to_ne_bytes().to_vec();
        let got = sorted(&KeyOrder::Int64, &[&l(1 << 40), &l(-1), &l(2)]);
        assert_eq!(got, vec![l(-1), l(2), l(1 << 40)]);
    }

    #[test]
    fn user_key_len_counts_the_key_without_its_encoding() {
        let ext: ExternalCompare = Arc::new(|a: &[u8], b: &[u8]| a.cmp(b));
        for order in [
            KeyOrder::Lexical,
            KeyOrder::Decimal,
            KeyOrder::Int32,
            KeyOrder::Int64,
            KeyOrder::External {
                name: "x".into(),
                compare: ext.clone(),
            },
        ] {
            for key in [&b""[..], b"\0", b"a\0b\0", b"12.5", b"\xff\0\xff", b"\0\0\0"] {
                assert_eq!(
                    order.user_key_len(&order.encode(key, 9)),
                    key.len(),
                    "{order:?} {key:?}"
                );
            }
        }
    }

    #[test]
    fn a_comparison_failure_fails_the_call_only_before_it_writes() {
        let failing = || -> CasketResult<u32> {
            report_comparison_failure("it called a database");
            Ok(7)
        };
        let e = tracked(failing).unwrap_err();
        assert_eq!(e.code, Ecode::Invalid);
        assert!(e.detail.contains("it called a database"), "{}", e.detail);
        // Failing before the first write refuses the write.
        let refused = tracked(|| {
            report_comparison_failure("x");
            before_write()
        });
        assert_eq!(refused.unwrap_err().code, Ecode::Invalid);
        // After the first write the call's result stands.
        let wrote = tracked(|| -> CasketResult<u32> {
            before_write()?;
            report_comparison_failure("during the write");
            Ok(1)
        });
        assert_eq!(wrote.unwrap(), 1);
        // Reports outside a call are dropped, and a nested call does not leak into its caller.
        report_comparison_failure("background");
        assert_eq!(tracked(|| -> CasketResult<u32> { Ok(2) }).unwrap(), 2);
        let outer = tracked(|| -> CasketResult<u32> {
            let inner = tracked(failing);
            assert!(inner.is_err());
            Ok(3)
        });
        assert_eq!(outer.unwrap(), 3);
    }

    #[test]
    fn external_comparator_orders_keys_then_sequences() {
        let reverse: ExternalCompare = Arc::new(|a: &[u8], b: &[u8]| b.cmp(a));
        let order = KeyOrder::External {
            name: "rev".into(),
            compare: reverse.clone(),
        };
        let cmp = KeyOrder::rocks_comparator(reverse);
        assert_eq!(cmp(&order.encode(b"b", 9), &order.encode(b"a", 1)), Ordering::Less);
        assert_eq!(cmp(&order.encode(b"a", 1), &order.encode(b"a", 2)), Ordering::Less);
    }
}
