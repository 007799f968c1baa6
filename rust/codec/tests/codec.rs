//! The codec against the prost types generated from the same `.proto` files: the same bytes
//! out for every message type, the same values in, for random content with edge values, packed
//! input, unknown fields, merged submessages, and damaged input.

use prost::Message;
use rockcask_codec::pb;
use rockcask_codec::{decode, encode, Blobs, Column, ColumnRef, Decoded, Kind, MessageType, Shape};

/// xorshift: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn random_string(r: &mut Rng) -> String {
    const PIECES: [&str; 8] = ["", "a", "Dummy text", "\0", "é", "\u{1F600}", "漢字", "\u{FFFD}"];
    (0..r.below(4)).map(|_| PIECES[r.below(8) as usize]).collect()
}

fn random_column(r: &mut Rng, kind: Kind) -> Column {
    let n = match r.below(4) {
        0 => 0,
        1 => 1,
        _ => r.below(40) as usize,
    };
    match kind {
        Kind::Integers => Column::I32(
            (0..n)
                .map(|_| [0, -1, 1, i32::MIN, i32::MAX, r.next() as i32][r.below(6) as usize])
                .collect(),
        ),
        Kind::Longs => Column::I64(
            (0..n)
                .map(|_| [0, -1, i64::MIN, i64::MAX, r.next() as i64][r.below(5) as usize])
                .collect(),
        ),
        Kind::Floats => Column::F32(
            (0..n)
                .map(|_| {
                    [
                        0.0,
                        -0.0,
                        f32::NAN,
                        f32::INFINITY,
                        f32::MIN_POSITIVE,
                        f32::from_bits(r.next() as u32),
                    ][r.below(6) as usize]
                })
                .collect(),
        ),
        Kind::Doubles => Column::F64(
            (0..n)
                .map(|_| [0.0, -0.0, f64::NAN, f64::NEG_INFINITY, f64::from_bits(r.next())][r.below(5) as usize])
                .collect(),
        ),
        Kind::Strings => {
            let mut b = Blobs::default();
            (0..n).for_each(|_| b.push(random_string(r).as_bytes()));
            Column::Blobs(b)
        }
        Kind::Bytes => {
            let mut b = Blobs::default();
            (0..n).for_each(|_| b.push(&(0..r.below(6)).map(|_| r.next() as u8).collect::<Vec<u8>>()));
            Column::Blobs(b)
        }
    }
}

fn random_message(r: &mut Rng, ty: MessageType) -> Decoded {
    let mut names = Blobs::default();
    let columns = match ty {
        MessageType::TargetObject => vec![random_column(r, Kind::Integers), random_column(r, Kind::Strings)],
        MessageType::Basic(Shape::List, k) => vec![random_column(r, k)],
        MessageType::Basic(shape, k) => {
            let n = r.below(5) as usize;
            if shape != Shape::Array {
                (0..n).for_each(|_| names.push(random_string(r).as_bytes()));
            }
            (0..n).map(|_| random_column(r, k)).collect()
        }
    };
    Decoded { names, columns }
}

// ---- conversion to and from the prost types -------------------------------------------------

fn strings(b: &Blobs) -> Vec<String> {
    b.as_ref()
        .iter()
        .map(|s| String::from_utf8(s.to_vec()).expect("test strings are UTF-8"))
        .collect()
}

fn blobs<T: AsRef<[u8]>>(items: &[T]) -> Blobs {
    let mut b = Blobs::default();
    items.iter().for_each(|i| b.push(i.as_ref()));
    b
}

macro_rules! list {
    ($t:ident, $variant:ident, to_prost: $to:expr, from_prost: $from:expr) => {
        impl List for pb::$t {
            fn from_column(c: &Column) -> Self {
                match c {
                    Column::$variant(v) => pb::$t { value: $to(v) },
                    other => panic!("{other:?}"),
                }
            }
            fn to_column(&self) -> Column {
                Column::$variant($from(&self.value))
            }
        }
    };
}

trait List: Message + Default + Clone {
    fn from_column(c: &Column) -> Self;
    fn to_column(&self) -> Column;
}

list!(Integers, I32, to_prost: |v: &Vec<i32>| v.clone(), from_prost: |v: &Vec<i32>| v.clone());
list!(Longs, I64, to_prost: |v: &Vec<i64>| v.clone(), from_prost: |v: &Vec<i64>| v.clone());
list!(Floats, F32, to_prost: |v: &Vec<f32>| v.clone(), from_prost: |v: &Vec<f32>| v.clone());
list!(Doubles, F64, to_prost: |v: &Vec<f64>| v.clone(), from_prost: |v: &Vec<f64>| v.clone());
list!(Strings, Blobs, to_prost: strings, from_prost: |v: &Vec<String>| blobs(v));
list!(Bytes, Blobs, to_prost: |b: &Blobs| b.as_ref().iter().map(<[u8]>::to_vec).collect(), from_prost: |v: &Vec<Vec<u8>>| blobs(v));

/// Encodes with prost and decodes with prost, for one message type.
struct Reference {
    encode: fn(&Decoded) -> Vec<u8>,
    decode: fn(&[u8]) -> Result<Decoded, prost::DecodeError>,
}

macro_rules! reference {
    ($list:ident, $map:ident, $array:ident, $frame:ident, $labeled:path) => {{
        use $labeled as Labeled;
        [
            Reference {
                encode: |d| pb::$list::from_column(&d.columns[0]).encode_to_vec(),
                decode: |b| {
                    pb::$list::decode(b).map(|m| Decoded {
                        names: Blobs::default(),
                        columns: vec![m.to_column()],
                    })
                },
            },
            Reference {
                encode: |d| {
                    pb::$map {
                        key: strings(&d.names),
                        value: d.columns.iter().map(pb::$list::from_column).collect(),
                    }
                    .encode_to_vec()
                },
                decode: |b| {
                    pb::$map::decode(b).map(|m| Decoded {
                        names: blobs(&m.key),
                        columns: m.value.iter().map(List::to_column).collect(),
                    })
                },
            },
            Reference {
                encode: |d| {
                    pb::$array {
                        value: d.columns.iter().map(pb::$list::from_column).collect(),
                    }
                    .encode_to_vec()
                },
                decode: |b| {
                    pb::$array::decode(b).map(|m| Decoded {
                        names: Blobs::default(),
                        columns: m.value.iter().map(List::to_column).collect(),
                    })
                },
            },
            Reference {
                encode: |d| {
                    let column = strings(&d.names)
                        .into_iter()
                        .zip(&d.columns)
                        .map(|(n, c)| Labeled {
                            name: Some(n),
                            data: Some(pb::$list::from_column(c)),
                        })
                        .collect();
                    pb::$frame { column }.encode_to_vec()
                },
                decode: |b| {
                    pb::$frame::decode(b).map(|m| Decoded {
                        names: blobs(
                            &m.column
                                .iter()
                                .map(|c| c.name.clone().unwrap_or_default())
                                .collect::<Vec<_>>(),
                        ),
                        columns: m
                            .column
                            .iter()
                            .map(|c| c.data.clone().unwrap_or_default().to_column())
                            .collect(),
                    })
                },
            },
        ]
    }};
}

fn reference(ty: MessageType) -> Reference {
    let [list, map, array, frame] = match ty {
        MessageType::TargetObject => {
            return Reference {
                encode: |d| {
                    pb::TargetObjectProto {
                        ia: match &d.columns[0] {
                            Column::I32(v) => v.clone(),
                            _ => panic!(),
                        },
                        sa: match &d.columns[1] {
                            Column::Blobs(b) => strings(b),
                            _ => panic!(),
                        },
                    }
                    .encode_to_vec()
                },
                decode: |b| {
                    pb::TargetObjectProto::decode(b).map(|m| Decoded {
                        names: Blobs::default(),
                        columns: vec![Column::I32(m.ia), Column::Blobs(blobs(&m.sa))],
                    })
                },
            }
        }
        MessageType::Basic(_, Kind::Bytes) => reference!(
            Bytes,
            BytesMap,
            BytesArray,
            DenseByteDataFrame,
            pb::dense_byte_data_frame::LabeledBytes
        ),
        MessageType::Basic(_, Kind::Integers) => reference!(
            Integers,
            IntegersMap,
            IntegersArray,
            DenseIntegerDataFrame,
            pb::dense_integer_data_frame::LabeledInteger
        ),
        MessageType::Basic(_, Kind::Longs) => reference!(
            Longs,
            LongsMap,
            LongsArray,
            DenseLongDataFrame,
            pb::dense_long_data_frame::LabeledLongs
        ),
        MessageType::Basic(_, Kind::Floats) => reference!(
            Floats,
            FloatsMap,
            FloatsArray,
            DenseFloatDataFrame,
            pb::dense_float_data_frame::LabeledFloats
        ),
        MessageType::Basic(_, Kind::Doubles) => reference!(
            Doubles,
            DoublesMap,
            DoublesArray,
            DenseDoublesDataFrame,
            pb::dense_doubles_data_frame::LabeledDoubles
        ),
        MessageType::Basic(_, Kind::Strings) => reference!(
            Strings,
            StringsMap,
            StringsArray,
            DenseStringsDataFrame,
            pb::dense_strings_data_frame::LabeledStrings
        ),
    };
    match ty {
        MessageType::Basic(Shape::List, _) => list,
        MessageType::Basic(Shape::Map, _) => map,
        MessageType::Basic(Shape::Array, _) => array,
        _ => frame,
    }
}

/// Equality with floats compared by bits (NaN payloads and -0.0 must survive).
fn same(a: &Decoded, b: &Decoded) -> bool {
    let bits = |d: &Decoded| -> Vec<Vec<u64>> {
        d.columns
            .iter()
            .map(|c| match c {
                Column::I32(v) => v.iter().map(|&x| x as u64).collect(),
                Column::I64(v) => v.iter().map(|&x| x as u64).collect(),
                Column::F32(v) => v.iter().map(|&x| u64::from(x.to_bits())).collect(),
                Column::F64(v) => v.iter().map(|&x| x.to_bits()).collect(),
                Column::Blobs(b) => b
                    .data
                    .iter()
                    .map(|&x| u64::from(x))
                    .chain(b.ends.iter().map(|&e| u64::from(e) << 32))
                    .collect(),
            })
            .collect()
    };
    a.names == b.names && bits(a) == bits(b)
}

fn encode_ours(ty: MessageType, d: &Decoded) -> Vec<u8> {
    let columns: Vec<ColumnRef<'_>> = d.columns.iter().map(Column::as_ref).collect();
    encode(ty, d.names.as_ref(), &columns).expect("encodes")
}

#[test]
fn every_message_type_encodes_to_the_bytes_prost_writes_and_both_decode_each_other() {
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    for ty in MessageType::all() {
        let reference = reference(ty);
        for _ in 0..200 {
            let d = random_message(&mut r, ty);
            let ours = encode_ours(ty, &d);
            assert_eq!(ours, (reference.encode)(&d), "{}: {d:?}", ty.name());
            let back = decode(ty, &ours).expect("decodes");
            assert!(same(&back, &d), "{}: {back:?} != {d:?}", ty.name());
            let theirs = (reference.decode)(&ours).expect("prost decodes");
            assert!(same(&theirs, &d), "{}", ty.name());
        }
    }
}

#[test]
fn codes_and_names_cover_all_25_types() {
    let all = MessageType::all();
    assert_eq!(all.len(), 25);
    for (i, ty) in all.iter().enumerate() {
        assert_eq!(ty.code() as usize, i);
        assert_eq!(MessageType::from_code(ty.code()), Some(*ty));
    }
    assert_eq!(
        MessageType::Basic(Shape::Frame, Kind::Integers).name(),
        "DenseIntegerDataFrame"
    );
    assert_eq!(MessageType::from_code(25), None);
}

#[test]
fn packed_numbers_unknown_fields_and_repeated_frame_data_are_accepted() {
    // Integers {1, 300, -1} packed, with an unknown varint field 9 and an unknown group 10.
    let mut packed = vec![0x48, 0x07, 0x0a];
    let body = [
        0x01, 0xac, 0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
    ];
    packed.push(body.len() as u8);
    packed.extend_from_slice(&body);
    packed.extend_from_slice(&[0x53, 0x08, 0x01, 0x54]);
    packed.extend_from_slice(&[0x08, 0x05]); // and one unpacked value after them
    let d = decode(MessageType::Basic(Shape::List, Kind::Integers), &packed).unwrap();
    assert_eq!(d.columns, vec![Column::I32(vec![1, 300, -1, 5])]);
    assert_eq!(pb::Integers::decode(&packed[..]).unwrap().value, vec![1, 300, -1, 5]);

    // A frame column whose data comes in two parts merges them, as protobuf does.
    let frame = MessageType::Basic(Shape::Frame, Kind::Longs);
    let one = encode(frame, blobs(&["c"]).as_ref(), &[ColumnRef::I64(&[1, 2])]).unwrap();
    let mut labeled = one[2..].to_vec(); // name + data of the column
    labeled.extend_from_slice(&[0x12, 0x02, 0x08, 0x03]); // data again: {3}
    let mut twice = vec![0x0a, labeled.len() as u8];
    twice.extend_from_slice(&labeled);
    let d = decode(frame, &twice).unwrap();
    assert_eq!(d.columns, vec![Column::I64(vec![1, 2, 3])]);
    let theirs = pb::DenseLongDataFrame::decode(&twice[..]).unwrap();
    assert_eq!(theirs.column[0].data.as_ref().unwrap().value, vec![1, 2, 3]);
}

#[test]
fn damaged_input_is_refused_exactly_when_prost_refuses_it_and_never_crashes() {
    let mut r = Rng(42);
    for ty in MessageType::all() {
        let reference = reference(ty);
        for _ in 0..40 {
            let d = random_message(&mut r, ty);
            let good = encode_ours(ty, &d);
            let mut cases: Vec<Vec<u8>> = (0..good.len()).map(|cut| good[..cut].to_vec()).collect();
            for _ in 0..20 {
                let mut bad = good.clone();
                if !bad.is_empty() {
                    let at = r.below(bad.len() as u64) as usize;
                    bad[at] ^= 1 << r.below(8);
                }
                cases.push(bad);
            }
            for input in cases {
                let ours = decode(ty, &input);
                match (reference.decode)(&input) {
                    Ok(theirs) => {
                        let ours = ours.unwrap_or_else(|e| panic!("{}: prost accepts what we refuse: {e}", ty.name()));
                        assert!(same(&ours, &theirs), "{}", ty.name());
                    }
                    // prost also refuses strings that are not UTF-8 (the codec hands them to
                    // Java, which decodes them as protobuf-java does, with replacement) and a
                    // known field with another wire type (protobuf-java, like protobuf's C++
                    // parser, keeps it as an unknown field; so does the codec).
                    Err(e) if e.to_string().contains("UTF-8") || e.to_string().contains("invalid wire type") => {}
                    // prost compares a length prefix's 64 bits with what is left; the codec
                    // reads the low 32 bits, as protobuf-java does (a bit flip turns a varint
                    // field holding i64::MIN, `80 .. 80 01`, into a length of 2^63, which is 0
                    // there). `length_prefixes_are_read_as_protobuf_java_reads_them_by_their_low_32_bits`
                    // pins that case; `CodecGoldenTest` checks it against protobuf-java itself.
                    Err(_) if ours.is_ok() && has_length_prefix_beyond_32_bits(&input) => {}
                    Err(_) => assert!(ours.is_err(), "{}: we accept what prost refuses: {input:?}", ty.name()),
                }
            }
        }
    }
}

/// Whether some byte that could be a length-delimited field's tag is followed by a varint of
/// 2^32 or more (over-approximate: it may also match inside a field's contents).
fn has_length_prefix_beyond_32_bits(input: &[u8]) -> bool {
    (0..input.len()).any(|i| {
        if input[i] & 0x87 != 0x02 {
            return false;
        }
        let mut value = 0u128;
        for (n, &b) in input[i + 1..].iter().take(10).enumerate() {
            value |= u128::from(b & 0x7f) << (7 * n);
            if b & 0x80 == 0 {
                return value > u128::from(u32::MAX);
            }
        }
        false
    })
}

#[test]
fn errors_name_the_message_type_and_the_offset() {
    let ty = MessageType::Basic(Shape::Map, Kind::Strings);
    // key "ab", then a value whose length prefix claims 2^31 bytes.
    let input = [0x0a, 0x02, b'a', b'b', 0x12, 0x80, 0x80, 0x80, 0x80, 0x08];
    let e = decode(ty, &input).unwrap_err();
    assert_eq!((e.message, e.offset), ("StringsMap", 5));
    assert!(
        e.to_string().contains("StringsMap") && e.to_string().contains("byte 5"),
        "{e}"
    );
}

#[test]
fn encoding_checks_its_arguments() {
    let list = MessageType::Basic(Shape::List, Kind::Integers);
    assert!(encode(list, Blobs::default().as_ref(), &[ColumnRef::I64(&[1])]).is_err());
    assert!(encode(list, Blobs::default().as_ref(), &[]).is_err());
    let map = MessageType::Basic(Shape::Map, Kind::Integers);
    assert!(encode(map, blobs(&["a", "b"]).as_ref(), &[ColumnRef::I32(&[1])]).is_err());
    let bad = rockcask_codec::BlobsRef {
        data: b"abc",
        ends: &[2, 1],
    };
    assert!(encode(
        MessageType::Basic(Shape::List, Kind::Strings),
        Blobs::default().as_ref(),
        &[ColumnRef::Blobs(bad)]
    )
    .is_err());
}

/// protobuf-java reads every length prefix as the low 32 bits of its varint, taken as a signed
/// `int` (`CodedInputStream.readRawVarint32`, for strings, bytes, submessages and packed runs):
/// a prefix of 2^63 is a length of 0, one that is negative as an `int` is refused. The codec
/// decodes what protobuf-java decodes, and prost (which compares all 64 bits) is not the
/// reference here.
#[test]
fn length_prefixes_are_read_as_protobuf_java_reads_them_by_their_low_32_bits() {
    let frame = MessageType::Basic(Shape::Frame, Kind::Longs);
    let column = |len_prefix: &[u8], rest: &[u8]| {
        // DenseLongDataFrame { column { name: "", data: <len_prefix> rest } }
        let mut labeled = vec![0x0a, 0x00, 0x12];
        labeled.extend_from_slice(len_prefix);
        labeled.extend_from_slice(rest);
        let mut message = vec![0x0a, labeled.len() as u8];
        message.extend_from_slice(&labeled);
        message
    };
    let empty_column = Decoded {
        names: blobs(&[""]),
        columns: vec![Column::I64(vec![])],
    };
    // The case found against protobuf-java: the data's prefix is 2^63, with 0 bytes left.
    let two_to_63 = [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01];
    let d = decode(frame, &column(&two_to_63, &[])).expect("2^63 is a length of 0");
    assert!(same(&d, &empty_column), "{d:?}");
    // The same prefix on the column itself, at the top level.
    let mut top = vec![0x0a];
    top.extend_from_slice(&two_to_63);
    let d = decode(frame, &top).expect("2^63 is a length of 0");
    assert!(
        same(
            &d,
            &Decoded {
                names: blobs(&[""]),
                columns: vec![Column::I64(vec![])]
            }
        ),
        "{d:?}"
    );
    // 9 bytes: 2^56.
    let d = decode(
        frame,
        &column(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01], &[]),
    )
    .expect("2^56");
    assert!(same(&d, &empty_column), "{d:?}");
    // 10 bytes with low bits set: 2^63 + 2 is a length of 2 (the value 5, as field 1).
    let d = decode(
        frame,
        &column(
            &[0x82, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01],
            &[0x08, 0x05],
        ),
    )
    .expect("2^63 + 2");
    assert!(
        same(
            &d,
            &Decoded {
                names: blobs(&[""]),
                columns: vec![Column::I64(vec![5])]
            }
        ),
        "{d:?}"
    );
    // Above 2^31 with small low bits: 2^32 + 2 and 2^40 + 2.
    for prefix in [
        &[0x82, 0x80, 0x80, 0x80, 0x10][..],
        &[0x82, 0x80, 0x80, 0x80, 0x80, 0x20],
    ] {
        let d = decode(frame, &column(prefix, &[0x08, 0x05])).expect("low 32 bits: 2");
        assert!(
            same(
                &d,
                &Decoded {
                    names: blobs(&[""]),
                    columns: vec![Column::I64(vec![5])]
                }
            ),
            "{d:?}"
        );
    }
    // Low 32 bits that are negative as an int (2^31, 2^32 - 1, 2^63 + 2^31) are refused, as
    // protobuf-java refuses a negative size, naming the whole prefix.
    for (prefix, value) in [
        (&[0x80, 0x80, 0x80, 0x80, 0x08][..], "2147483648"),
        (&[0xff, 0xff, 0xff, 0xff, 0x0f], "4294967295"),
        (
            &[0x80, 0x80, 0x80, 0x80, 0x88, 0x80, 0x80, 0x80, 0x80, 0x01],
            "9223372039002259456",
        ),
    ] {
        let e = decode(frame, &column(prefix, &[])).unwrap_err();
        assert!(e.detail.contains(value) && e.detail.contains("negative"), "{e}");
        assert_eq!(e.offset, 5, "{e}");
    }
    // Low 32 bits larger than what is left are refused, as before.
    let e = decode(frame, &column(&[0x83, 0x80, 0x80, 0x80, 0x10], &[0x08, 0x05])).unwrap_err();
    assert!(e.detail.contains("exceeds the 2 bytes left"), "{e}");
    // A tenth byte above 1 stays refused: a varint longer than 64 bits (documented as stricter
    // than protobuf-java, which drops those bits).
    let e = decode(
        frame,
        &column(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02], &[]),
    )
    .unwrap_err();
    assert!(e.detail.contains("longer than 64 bits"), "{e}");
    // Strings and bytes read their lengths the same way.
    let strings = MessageType::Basic(Shape::List, Kind::Strings);
    let mut input = vec![0x0a];
    input.extend_from_slice(&[0x82, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]);
    input.extend_from_slice(b"hi");
    let d = decode(strings, &input).expect("2^63 + 2 is a length of 2");
    assert!(
        same(
            &d,
            &Decoded {
                names: Blobs::default(),
                columns: vec![Column::Blobs(blobs(&["hi"]))]
            }
        ),
        "{d:?}"
    );
}
