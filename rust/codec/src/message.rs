//! The message types as shapes over element kinds, encoded and decoded over flat columns.
//!
//! Every BasicDataTypes message is one of four shapes over one of six element kinds:
//! - `List`:  `repeated <kind> value = 1` (`Bytes`, `Integers`, ... `Strings`);
//! - `Map`:   `repeated string key = 1; repeated <List> value = 2` (`IntegersMap`, ...);
//! - `Array`: `repeated <List> value = 1` (`IntegersArray`, ...);
//! - `Frame`: `repeated { optional string name = 1; optional <List> data = 2; } column = 1`.
//!
//! plus `TargetObjectProto { repeated int32 ia = 1; repeated string sa = 2; }`. Encoding writes
//! what protobuf-java writes for these proto2 definitions: fields in number order, repeated
//! scalars unpacked, a frame column's name and data always present. Decoding accepts what any
//! conforming encoder may write: packed or unpacked scalars, fields in any order, repeated
//! optional submessages merged, unknown fields (and known ones with another wire type) skipped.

use crate::wire::{self, put_tag, put_varint, varint_len, Reader, FIXED32, FIXED64, LEN, VARINT};
use crate::CodecError;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Bytes,
    Integers,
    Longs,
    Floats,
    Doubles,
    Strings,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    List,
    Map,
    Array,
    Frame,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MessageType {
    Basic(Shape, Kind),
    TargetObject,
}

const KINDS: [Kind; 6] = [
    Kind::Bytes,
    Kind::Integers,
    Kind::Longs,
    Kind::Floats,
    Kind::Doubles,
    Kind::Strings,
];
const SHAPES: [Shape; 4] = [Shape::List, Shape::Map, Shape::Array, Shape::Frame];

impl Kind {
    /// What the kind adds to its shape's `first_code` (the declaration order).
    pub const fn offset(self) -> u32 {
        self as u32
    }
}

impl Shape {
    /// The code of the shape's first type; its kinds follow in `Kind` order.
    pub const fn first_code(self) -> u32 {
        self as u32 * KINDS.len() as u32
    }
}

impl MessageType {
    /// Every message type, in a fixed order (its index is its `code`).
    pub fn all() -> Vec<MessageType> {
        let mut all: Vec<MessageType> = SHAPES
            .iter()
            .flat_map(|&s| KINDS.iter().map(move |&k| MessageType::Basic(s, k)))
            .collect();
        all.push(MessageType::TargetObject);
        all
    }

    /// A small number naming the type across JNI: the shape's `first_code` plus the kind's
    /// `offset`, then `TargetObject`. Java's `org.rockcask.codec.Codec` repeats them as
    /// constants the JNI library checks (`rust/jni/src/contract/rockcask.rs`).
    pub const fn code(self) -> u32 {
        match self {
            MessageType::Basic(s, k) => s.first_code() + k.offset(),
            MessageType::TargetObject => SHAPES.len() as u32 * KINDS.len() as u32,
        }
    }

    pub fn from_code(code: u32) -> Option<MessageType> {
        MessageType::all().get(code as usize).copied()
    }

    /// The protobuf message name.
    pub fn name(self) -> &'static str {
        const NAMES: [[&str; 6]; 4] = [
            ["Bytes", "Integers", "Longs", "Floats", "Doubles", "Strings"],
            [
                "BytesMap",
                "IntegersMap",
                "LongsMap",
                "FloatsMap",
                "DoublesMap",
                "StringsMap",
            ],
            [
                "BytesArray",
                "IntegersArray",
                "LongsArray",
                "FloatsArray",
                "DoublesArray",
                "StringsArray",
            ],
            [
                "DenseByteDataFrame",
                "DenseIntegerDataFrame",
                "DenseLongDataFrame",
                "DenseFloatDataFrame",
                "DenseDoublesDataFrame",
                "DenseStringsDataFrame",
            ],
        ];
        match self {
            MessageType::Basic(s, k) => {
                let code = self.code() as usize;
                let _ = (s, k);
                NAMES[code / 6][code % 6]
            }
            MessageType::TargetObject => "TargetObjectProto",
        }
    }
}

/// Strings or byte strings: all bytes in one buffer, element `i` ending at `ends[i]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Blobs {
    pub data: Vec<u8>,
    pub ends: Vec<u32>,
}

impl Blobs {
    pub fn push(&mut self, b: &[u8]) {
        self.data.extend_from_slice(b);
        self.ends.push(self.data.len() as u32);
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    pub fn as_ref(&self) -> BlobsRef<'_> {
        BlobsRef {
            data: &self.data,
            ends: &self.ends,
        }
    }
}

/// Borrowed `Blobs` (for encoding straight from the caller's buffers).
#[derive(Clone, Copy, Debug)]
pub struct BlobsRef<'a> {
    pub data: &'a [u8],
    pub ends: &'a [u32],
}

impl<'a> BlobsRef<'a> {
    /// Checks that the ends are in order and within the data.
    pub fn check(&self) -> Result<(), String> {
        let mut prev = 0u32;
        for &e in self.ends {
            if e < prev || e as usize > self.data.len() {
                return Err(format!(
                    "element end {e} out of order or beyond the {} bytes",
                    self.data.len()
                ));
            }
            prev = e;
        }
        Ok(())
    }

    pub fn to_owned(&self) -> Blobs {
        Blobs {
            data: self.data.to_vec(),
            ends: self.ends.to_vec(),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &'a [u8]> + '_ {
        let data = self.data;
        let mut start = 0usize;
        self.ends.iter().map(move |&e| {
            let item = &data[start..e as usize];
            start = e as usize;
            item
        })
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    I32(Vec<i32>),
    I64(Vec<i64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    Blobs(Blobs),
}

#[derive(Clone, Copy, Debug)]
pub enum ColumnRef<'a> {
    I32(&'a [i32]),
    I64(&'a [i64]),
    F32(&'a [f32]),
    F64(&'a [f64]),
    Blobs(BlobsRef<'a>),
}

impl ColumnRef<'_> {
    pub fn to_owned(&self) -> Column {
        match self {
            ColumnRef::I32(v) => Column::I32(v.to_vec()),
            ColumnRef::I64(v) => Column::I64(v.to_vec()),
            ColumnRef::F32(v) => Column::F32(v.to_vec()),
            ColumnRef::F64(v) => Column::F64(v.to_vec()),
            ColumnRef::Blobs(b) => Column::Blobs(b.to_owned()),
        }
    }
}

impl Column {
    fn empty(kind: Kind) -> Column {
        match kind {
            Kind::Integers => Column::I32(Vec::new()),
            Kind::Longs => Column::I64(Vec::new()),
            Kind::Floats => Column::F32(Vec::new()),
            Kind::Doubles => Column::F64(Vec::new()),
            Kind::Bytes | Kind::Strings => Column::Blobs(Blobs::default()),
        }
    }

    pub fn as_ref(&self) -> ColumnRef<'_> {
        match self {
            Column::I32(v) => ColumnRef::I32(v),
            Column::I64(v) => ColumnRef::I64(v),
            Column::F32(v) => ColumnRef::F32(v),
            Column::F64(v) => ColumnRef::F64(v),
            Column::Blobs(b) => ColumnRef::Blobs(b.as_ref()),
        }
    }
}

/// A decoded message: `names` are a map's keys or a frame's column names (empty otherwise);
/// `columns` are the lists (one for `List`; one per value, element or frame column; `ia` and
/// `sa` for `TargetObject`).
#[derive(Clone, Debug, PartialEq)]
pub struct Decoded {
    pub names: Blobs,
    pub columns: Vec<Column>,
}

/// Largest message (and decoded flat form) that can cross to Java: a byte[] or direct buffer.
pub const MAX_MESSAGE: usize = i32::MAX as usize - 64;

// ---- encoding ----------------------------------------------------------------------------

fn kind_matches(kind: Kind, c: &ColumnRef<'_>) -> bool {
    matches!(
        (kind, c),
        (Kind::Integers, ColumnRef::I32(_))
            | (Kind::Longs, ColumnRef::I64(_))
            | (Kind::Floats, ColumnRef::F32(_))
            | (Kind::Doubles, ColumnRef::F64(_))
            | (Kind::Bytes | Kind::Strings, ColumnRef::Blobs(_))
    )
}

/// Bytes of `repeated <kind> <field>` holding `c`, unpacked, tags included.
fn repeated_len(field: u32, c: &ColumnRef<'_>) -> usize {
    let tag = varint_len(u64::from(field << 3));
    match c {
        // int32 is sign-extended to 64 bits on the wire: negative values take 10 bytes.
        ColumnRef::I32(v) => v.iter().map(|&x| tag + varint_len(i64::from(x) as u64)).sum(),
        ColumnRef::I64(v) => v.iter().map(|&x| tag + varint_len(x as u64)).sum(),
        ColumnRef::F32(v) => v.len() * (tag + 4),
        ColumnRef::F64(v) => v.len() * (tag + 8),
        ColumnRef::Blobs(b) => b.iter().map(|x| tag + varint_len(x.len() as u64) + x.len()).sum(),
    }
}

fn put_repeated(out: &mut Vec<u8>, field: u32, c: &ColumnRef<'_>) {
    match c {
        ColumnRef::I32(v) => v.iter().for_each(|&x| {
            put_tag(out, field, VARINT);
            put_varint(out, i64::from(x) as u64);
        }),
        ColumnRef::I64(v) => v.iter().for_each(|&x| {
            put_tag(out, field, VARINT);
            put_varint(out, x as u64);
        }),
        ColumnRef::F32(v) => v.iter().for_each(|&x| {
            put_tag(out, field, FIXED32);
            out.extend_from_slice(&x.to_bits().to_le_bytes());
        }),
        ColumnRef::F64(v) => v.iter().for_each(|&x| {
            put_tag(out, field, FIXED64);
            out.extend_from_slice(&x.to_bits().to_le_bytes());
        }),
        ColumnRef::Blobs(b) => b.iter().for_each(|x| wire::put_len_delimited(out, field, x)),
    }
}

fn nested_len(body: usize) -> usize {
    1 + varint_len(body as u64) + body
}

/// Body of a frame column: name (field 1) and data (field 2), both always written.
fn labeled_len(name: &[u8], c: &ColumnRef<'_>) -> usize {
    nested_len(name.len()) + nested_len(repeated_len(1, c))
}

/// Encodes a message. `names` are a map's keys or a frame's column names (as many as
/// `columns`); for other types they must be empty. Column kinds must match the type.
pub fn encode(ty: MessageType, names: BlobsRef<'_>, columns: &[ColumnRef<'_>]) -> Result<Vec<u8>, String> {
    names.check()?;
    for c in columns {
        if let ColumnRef::Blobs(b) = c {
            b.check()?;
        }
    }
    let (shape, kind) = match ty {
        MessageType::Basic(s, k) => (s, k),
        MessageType::TargetObject => {
            let [ia @ ColumnRef::I32(_), sa @ ColumnRef::Blobs(_)] = columns else {
                return Err("TargetObjectProto takes an int column and a string column".into());
            };
            if !names.ends.is_empty() {
                return Err("TargetObjectProto has no names".into());
            }
            let total = repeated_len(1, ia) + repeated_len(2, sa);
            if total > MAX_MESSAGE {
                return Err(format!(
                    "TargetObjectProto of {total} bytes would exceed the 2 GiB a Java array holds"
                ));
            }
            let mut out = Vec::with_capacity(total);
            put_repeated(&mut out, 1, ia);
            put_repeated(&mut out, 2, sa);
            return Ok(out);
        }
    };
    if let Some(c) = columns.iter().find(|c| !kind_matches(kind, c)) {
        return Err(format!("{} takes {kind:?} columns, got {c:?}", ty.name()));
    }
    let named = matches!(shape, Shape::Map | Shape::Frame);
    if named && names.ends.len() != columns.len() {
        return Err(format!(
            "{} needs one name per column: {} names, {} columns",
            ty.name(),
            names.ends.len(),
            columns.len()
        ));
    }
    if !named && !names.ends.is_empty() {
        return Err(format!("{} has no names", ty.name()));
    }
    if shape == Shape::List && columns.len() != 1 {
        return Err(format!("{} is one list, got {} columns", ty.name(), columns.len()));
    }
    let names_len = if shape == Shape::Map {
        repeated_len(1, &ColumnRef::Blobs(names))
    } else {
        0
    };
    let total = names_len
        + match shape {
            Shape::List => repeated_len(1, &columns[0]),
            Shape::Map | Shape::Array => columns.iter().map(|c| nested_len(repeated_len(1, c))).sum(),
            Shape::Frame => names
                .iter()
                .zip(columns)
                .map(|(n, c)| nested_len(labeled_len(n, c)))
                .sum(),
        };
    if total > MAX_MESSAGE {
        return Err(format!(
            "{} of {total} bytes would exceed the 2 GiB a Java array holds",
            ty.name()
        ));
    }
    let mut out = Vec::with_capacity(total);
    match shape {
        Shape::List => put_repeated(&mut out, 1, &columns[0]),
        Shape::Map | Shape::Array => {
            let field = if shape == Shape::Map {
                put_repeated(&mut out, 1, &ColumnRef::Blobs(names));
                2
            } else {
                1
            };
            for c in columns {
                put_tag(&mut out, field, LEN);
                put_varint(&mut out, repeated_len(1, c) as u64);
                put_repeated(&mut out, 1, c);
            }
        }
        Shape::Frame => {
            for (n, c) in names.iter().zip(columns) {
                put_tag(&mut out, 1, LEN);
                put_varint(&mut out, labeled_len(n, c) as u64);
                wire::put_len_delimited(&mut out, 1, n);
                put_tag(&mut out, 2, LEN);
                put_varint(&mut out, repeated_len(1, c) as u64);
                put_repeated(&mut out, 1, c);
            }
        }
    }
    debug_assert_eq!(out.len(), total);
    Ok(out)
}

// ---- decoding ----------------------------------------------------------------------------

/// Reads one value of `field` (already tagged with `wire`) into `col`; false if the wire type
/// is not one this column takes (the field is then unknown and skipped by the caller).
fn read_element(r: &mut Reader<'_>, wire: u32, col: &mut Column) -> Result<bool, Box<CodecError>> {
    read_run(r, wire, col, None)
}

/// `read_element`, then, while the next field starts with the same one-byte tag `tag` (an
/// unpacked repeated field: every element has it), the following elements without going back
/// through tag dispatch.
fn read_run(r: &mut Reader<'_>, wire: u32, col: &mut Column, tag: Option<u8>) -> Result<bool, Box<CodecError>> {
    let again = |r: &mut Reader<'_>| tag.is_some() && r.skip_byte_if(tag);
    match (col, wire) {
        (Column::I32(v), VARINT) => loop {
            v.push(r.varint()? as i32);
            if !again(r) {
                break;
            }
        },
        (Column::I64(v), VARINT) => loop {
            v.push(r.varint()? as i64);
            if !again(r) {
                break;
            }
        },
        (Column::F32(v), FIXED32) => loop {
            v.push(f32::from_bits(u32::from_le_bytes(r.fixed32()?)));
            if !again(r) {
                break;
            }
        },
        (Column::F64(v), FIXED64) => loop {
            v.push(f64::from_bits(u64::from_le_bytes(r.fixed64()?)));
            if !again(r) {
                break;
            }
        },
        (Column::Blobs(b), LEN) => loop {
            let sub = r.len_delimited()?;
            b.push(sub.rest());
            if !again(r) {
                break;
            }
        },
        // Packed numbers.
        (col @ (Column::I32(_) | Column::I64(_) | Column::F32(_) | Column::F64(_)), LEN) => {
            let mut sub = r.len_delimited()?;
            let inner = match col {
                Column::F32(_) => FIXED32,
                Column::F64(_) => FIXED64,
                _ => VARINT,
            };
            while !sub.is_done() {
                read_element(&mut sub, inner, col)?;
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// Fields of a `List` message, merged into `col`.
fn read_list(mut r: Reader<'_>, col: &mut Column) -> Result<(), Box<CodecError>> {
    while !r.is_done() {
        let first = r.peek_byte();
        let (field, wire) = r.tag()?;
        if field != 1 || !read_run(&mut r, wire, col, first)? {
            r.skip(field, wire)?;
        }
    }
    Ok(())
}

/// Decodes a message of type `ty`.
pub fn decode(ty: MessageType, bytes: &[u8]) -> Result<Decoded, CodecError> {
    decode_boxed(ty, bytes).map_err(|e| *e)
}

fn decode_boxed(ty: MessageType, bytes: &[u8]) -> Result<Decoded, Box<CodecError>> {
    let mut r = Reader::new(bytes, ty.name());
    let mut names = Blobs::default();
    let mut columns = Vec::new();
    let (shape, kind) = match ty {
        MessageType::Basic(s, k) => (s, k),
        MessageType::TargetObject => {
            let mut ia = Column::I32(Vec::new());
            let mut sa = Column::Blobs(Blobs::default());
            while !r.is_done() {
                let first = r.peek_byte();
                let (field, wire) = r.tag()?;
                let known = match field {
                    1 => read_run(&mut r, wire, &mut ia, first)?,
                    2 => read_run(&mut r, wire, &mut sa, first)?,
                    _ => false,
                };
                if !known {
                    r.skip(field, wire)?;
                }
            }
            return Ok(Decoded {
                names,
                columns: vec![ia, sa],
            });
        }
    };
    if shape == Shape::List {
        let mut col = Column::empty(kind);
        read_list(r, &mut col)?;
        return Ok(Decoded {
            names,
            columns: vec![col],
        });
    }
    while !r.is_done() {
        // Every list costs 16 bytes of flat form (and a `Column` here) for as little as 2 input
        // bytes: past what can cross to Java, stop rather than grow.
        if columns.len() >= MAX_MESSAGE / 16 {
            return Err(r.error(r.offset(), "more lists than a decoded message can hold"));
        }
        if columns.len() == columns.capacity() && columns.try_reserve(columns.len().max(16)).is_err() {
            return Err(r.error(r.offset(), "out of memory for the decoded lists"));
        }
        let (field, wire) = r.tag()?;
        match (shape, field, wire) {
            (Shape::Map, 1, LEN) => names.push(r.len_delimited()?.rest()),
            (Shape::Map, 2, LEN) | (Shape::Array, 1, LEN) => {
                let mut col = Column::empty(kind);
                read_list(r.len_delimited()?, &mut col)?;
                columns.push(col);
            }
            (Shape::Frame, 1, LEN) => {
                let mut sub = r.len_delimited()?;
                let mut name: &[u8] = &[];
                let mut col = Column::empty(kind);
                while !sub.is_done() {
                    let (f, w) = sub.tag()?;
                    match (f, w) {
                        (1, LEN) => name = sub.len_delimited()?.rest(),
                        // An optional message seen twice is merged: its lists concatenate.
                        (2, LEN) => read_list(sub.len_delimited()?, &mut col)?,
                        _ => sub.skip(f, w)?,
                    }
                }
                names.push(name);
                columns.push(col);
            }
            _ => r.skip(field, wire)?,
        }
    }
    Ok(Decoded { names, columns })
}
