use super::*;

#[test]
fn entry_keys_sort_by_queue_then_sequence() {
    let mut keys = vec![
        entry_key(2, 0),
        entry_key(1, 300),
        entry_key(1, 2),
        entry_key(1, u64::MAX),
    ];
    keys.sort();
    assert_eq!(
        keys,
        vec![
            entry_key(1, 2),
            entry_key(1, 300),
            entry_key(1, u64::MAX),
            entry_key(2, 0)
        ]
    );
    assert_eq!(decode_entry_seq(&entry_key(7, 123456789)).unwrap(), 123456789);
}

#[test]
fn entry_and_object_values_round_trip_and_reject_garbage() {
    let id = Uuid::now_v7();
    let decoded = decode_entry(&entry_value(id, Ownership::Owned)).unwrap();
    assert_eq!((decoded.id, decoded.own), (id, Ownership::Owned));
    assert!(decode_entry(&[0u8; 5]).is_err());
    let mut bad = entry_value(id, Ownership::Reference);
    bad[16] = 9;
    assert!(decode_entry(&bad).is_err());
    let sized = Entry {
        id,
        own: Ownership::Owned,
        bytes: Some(70_000),
        inline: None,
    };
    assert_eq!(encode_entry(&sized).len(), 21);
    assert_eq!(decode_entry(&encode_entry(&sized)).unwrap(), sized);
    let unsized_ = Entry {
        bytes: None,
        ..sized.clone()
    };
    assert_eq!(encode_entry(&unsized_), entry_value(id, Ownership::Owned).to_vec());
    assert_eq!(decode_entry(&entry_value(id, Ownership::Owned)).unwrap(), unsized_);
    assert!(decode_entry(&[0u8; 20]).is_err());
    let v = [&[object_flag(Ownership::Reference, Compression::None)][..], b"abc"].concat();
    assert_eq!(
        decode_object_value(&v).unwrap(),
        (Ownership::Reference, Compression::None, &b"abc"[..])
    );
    assert_eq!(object_payload(&v).unwrap().1, &b"abc"[..]);
    assert!(decode_object_value(&[]).is_err());
    // Values from before compression existed read as raw.
    assert_eq!(
        decode_object_value(&[1, b'x']).unwrap(),
        (Ownership::Owned, Compression::None, &b"x"[..])
    );
    assert!(decode_object_value(&[0x71, b'x']).is_err());
    let payload = b"Dummy text ".repeat(100);
    let (codec, body) = rockcask_codec::compress::Policy {
        codec: Compression::Zstd,
        threshold: 0,
    }
    .compress(&payload);
    let v = [&[object_flag(Ownership::Owned, codec)][..], &body].concat();
    assert_eq!(
        object_payload(&v).unwrap(),
        (Ownership::Owned, std::borrow::Cow::Borrowed(&payload[..]))
    );
}

#[test]
fn inline_entries_round_trip_and_never_read_as_sized_ones() {
    let id = Uuid::now_v7();
    // Four payload bytes give 21 bytes, the length of a sized entry: the flag tells them apart.
    for stored in [vec![], b"abcd".to_vec(), vec![7u8; 70_000]] {
        let e = Entry::inline(id, Compression::None, stored.clone());
        let v = encode_entry(&e);
        assert_eq!(v.len(), 17 + stored.len());
        let back = decode_entry(&v).unwrap();
        assert_eq!(back, e);
        assert!(!back.owns_an_object());
        assert_eq!(back.bytes, Some(stored.len() as u32));
        assert_eq!(back.inline.unwrap().payload().unwrap(), &stored[..]);
    }
    let payload = b"Dummy text ".repeat(100);
    let (codec, body) = rockcask_codec::compress::Policy {
        codec: Compression::Lz4,
        threshold: 0,
    }
    .compress(&payload);
    let back = decode_entry(&encode_entry(&Entry::inline(id, codec, body.into_owned()))).unwrap();
    assert_eq!(back.inline.unwrap().payload().unwrap(), &payload[..]);
    let mut bad = encode_entry(&Entry::inline(id, Compression::None, b"x".to_vec()));
    assert_eq!(inline_payload(&bad).unwrap(), Some((Compression::None, &b"x"[..])));
    assert_eq!(inline_payload(&entry_value(id, Ownership::Owned)).unwrap(), None);
    bad[16] = INLINE | 0x70;
    assert!(decode_entry(&bad).is_err());
    assert!(inline_payload(&bad).is_err());
}

#[test]
fn block_keys_sort_by_first_sequence_among_single_entries_and_say_what_they_hold() {
    let mut keys: Vec<Vec<u8>> = vec![
        entry_key(1, 5).to_vec(),
        block_key(1, 3, 2).to_vec(),
        entry_key(1, 2).to_vec(),
        block_key(1, 5, 9).to_vec(),
        block_key(0, 9, 2).to_vec(),
    ];
    keys.sort();
    let spans: Vec<(u64, u32)> = keys.iter().map(|k| record_span(k).unwrap()).collect();
    assert_eq!(spans, vec![(9, 2), (2, 1), (3, 2), (5, 1), (5, 9)]);
    // Every block key of a queue sorts below the next queue's keys.
    assert!(block_key(1, u64::MAX - 1, 1024)[..] < entry_key(2, 0)[..]);
    for bad in [
        block_key(1, 0, 0),
        block_key(1, 0, 1),
        block_key(1, 0, MAX_BLOCK_ENTRIES + 1),
        block_key(1, u64::MAX, 2),
    ] {
        assert!(record_span(&bad).is_err(), "{bad:?}");
    }
    assert!(record_span(&[0u8; 13]).is_err());
    assert_eq!(
        record_span(&block_key(7, 40, MAX_BLOCK_ENTRIES)).unwrap(),
        (40, MAX_BLOCK_ENTRIES)
    );
}

#[test]
fn block_values_hold_each_entry_as_a_single_record_would_and_reject_cut_ones() {
    let id = Uuid::now_v7();
    let entries = vec![
        Entry::inline(id, Compression::None, b"first".to_vec()),
        Entry {
            id,
            own: Ownership::Reference,
            bytes: Some(9),
            inline: None,
        },
        Entry {
            id,
            own: Ownership::Owned,
            bytes: None,
            inline: None,
        },
        Entry::inline(id, Compression::None, Vec::new()),
    ];
    let mut v = vec![0u8; block_value_len(&entries)];
    encode_block_into(&entries, &mut v);
    let mut at = 0;
    let mut back = Vec::new();
    while at < v.len() {
        let (range, next) = block_entry_at(&v, at).unwrap();
        back.push(decode_entry(&v[range]).unwrap());
        at = next;
    }
    assert_eq!(back, entries);
    let (first, _) = block_entry_at(&v, 0).unwrap();
    assert_eq!(&v[first], &encode_entry(&entries[0])[..]);
    assert!(block_entry_at(&v[..10], 0).is_err(), "a length past the end");
    assert!(block_entry_at(&v, v.len()).is_err());
    assert!(block_entry_at(&v, v.len() - 2).is_err());
}

#[test]
fn per_entry_meta_keys_round_trip_and_sort_by_queue_then_sequence() {
    let k = meta_deliveries_key(7, 300);
    assert!(k.starts_with(meta_deliveries_prefix()));
    assert_eq!(decode_per_entry_meta_key(&k).unwrap(), (7, 300));
    assert!(meta_dead_letter_key(1, u64::MAX) < meta_dead_letter_key(2, 0));
    for q in [0, 5, QueueId::MAX] {
        let (start, end) = meta_dead_letter_range(q);
        assert!(start.as_slice() <= &meta_dead_letter_key(q, 0)[..]);
        assert!(&meta_dead_letter_key(q, u64::MAX)[..] < end.as_slice());
        if q < QueueId::MAX {
            assert!(end.as_slice() <= &meta_dead_letter_key(q + 1, 0)[..]);
        }
    }
    assert!(decode_per_entry_meta_key(b"x/short").is_err());
}

#[test]
fn queue_names_are_bounded_and_non_empty() {
    assert!(validate_queue_name("").is_err());
    assert!(validate_queue_name(&"x".repeat(MAX_QUEUE_NAME_BYTES + 1)).is_err());
    assert!(validate_queue_name("parse.out").is_ok());
}
