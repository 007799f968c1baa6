//! Reading a whole casket in key order under one RocksDB snapshot (for snapshot exports), and
//! learning a casket's kind and key order from its marker file without opening it.

use std::borrow::Cow;
use std::path::Path;

use rocksdb::{DBRawIteratorWithThreadMode, ReadOptions, DB};

use super::error::{CasketError, CasketResult, Ecode};
use super::files::{Kind, Marker};
use super::order::KeyOrder;
use super::{Casket, CF_DATA};

/// A casket's kind and key order, as its marker file records them.
pub fn describe(path: &Path) -> CasketResult<(Kind, String)> {
    // A marker is a few lines: read no more than that, whatever file this is.
    let mut text = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| std::io::Read::read_to_end(&mut std::io::Read::take(f, 4096), &mut text))
        .map_err(|e| CasketError::io(Ecode::NoFile, format!("reading {}", path.display()), e))?;
    let marker = std::str::from_utf8(&text)
        .ok()
        .and_then(Marker::parse)
        .ok_or_else(|| CasketError::new(Ecode::Meta, format!("{} is not a RockCask casket", path.display())))?;
    let kind = match marker.kind.as_str() {
        k if k == Kind::Btree.name() => Kind::Btree,
        k if k == Kind::Hash.name() => Kind::Hash,
        other => {
            return Err(CasketError::new(
                Ecode::Meta,
                format!("{}: unknown casket kind {other}", path.display()),
            ))
        }
    };
    Ok((kind, marker.order))
}

impl KeyOrder {
    /// The built-in order with this id; None for caller-supplied orders (they need the caller).
    pub fn builtin(id: &str) -> Option<KeyOrder> {
        [KeyOrder::Lexical, KeyOrder::Decimal, KeyOrder::Int32, KeyOrder::Int64]
            .into_iter()
            .find(|o| o.id() == id)
    }
}

/// Every value of a casket in order: (user key, value), a key's duplicates in insertion order.
pub struct Scan<'a> {
    it: DBRawIteratorWithThreadMode<'a, DB>,
    order: &'a KeyOrder,
}

impl Scan<'_> {
    pub fn next_value(&mut self) -> CasketResult<Option<(Vec<u8>, Vec<u8>)>> {
        let (Some(raw), Some(value)) = (self.it.key(), self.it.value()) else {
            self.it
                .status()
                .map_err(|e| CasketError::rocks(Ecode::Read, "scanning the casket", e))?;
            return Ok(None);
        };
        let (key, _) = self
            .order
            .decode(raw)
            .ok_or_else(|| CasketError::new(Ecode::Misc, "a record key does not decode"))?;
        let out = (Cow::into_owned(key), value.to_vec());
        self.it.next();
        Ok(Some(out))
    }
}

impl Casket {
    /// Runs `f` over a scan of every record as of now (gathered transaction writes included).
    /// Other calls on this casket wait until `f` returns (they share its one lock).
    pub fn scan<R>(&self, f: impl FnOnce(&mut Scan<'_>) -> R) -> CasketResult<R> {
        let inner = self.lock_flushed(false)?;
        let db = inner.db();
        let mut ro = ReadOptions::default();
        ro.fill_cache(false);
        ro.set_readahead_size(2 << 20);
        let data = db.cf_handle(CF_DATA).expect("opened with the data column family");
        let mut it = db.raw_iterator_cf_opt(data, ro);
        it.seek_to_first();
        let mut scan = Scan { it, order: &self.order };
        let result = f(&mut scan);
        drop(scan);
        Ok(result)
    }

    /// The casket's kind.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The casket's key order.
    pub fn order(&self) -> &KeyOrder {
        &self.order
    }
}
