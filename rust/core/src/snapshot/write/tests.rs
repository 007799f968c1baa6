use super::*;

/// Makes an item, its bytes put in the arena it is given.
type MakeItem = Box<dyn FnMut(&mut Vec<u8>) -> Item>;

/// An object item with a raw payload of `payload_len` bytes.
fn object(payload_len: usize) -> impl FnMut(&mut Vec<u8>) -> Item {
    move |arena| {
        let id = stash(arena, &[0; 16]);
        let value = stash(arena, &vec![0; payload_len + 1]);
        Item::Object {
            id,
            value,
            owned_entries: 0,
        }
    }
}

fn chunk_sizes(budget: usize, mut items: Vec<MakeItem>) -> Vec<usize> {
    let mut chunker = Chunker::new(&ExportOptions {
        frame_bytes: budget,
        ..ExportOptions::default()
    })
    .unwrap();
    items.reverse();
    let mut sizes = Vec::new();
    while let Some(chunk) = chunker
        .next_chunk(|arena| Ok(items.pop().map(|mut make| make(arena))))
        .unwrap()
    {
        // Every item's bytes came along, also those of an item carried over.
        let mut counts = Counts::default();
        let mut body = Vec::new();
        for item in &chunk.items {
            item.encode(&chunk.arena, &mut body, &mut counts).unwrap();
        }
        sizes.push(chunk.items.len());
    }
    sizes
}

#[test]
fn an_item_that_would_overflow_a_chunk_starts_the_next_and_a_big_one_goes_alone() {
    // Records of about 125 bytes, one of about 10,025; budget 300.
    let items: Vec<MakeItem> = vec![
        Box::new(object(100)),
        Box::new(object(100)),
        Box::new(object(10_000)),
        Box::new(object(100)),
        Box::new(object(100)),
        Box::new(object(100)),
    ];
    assert_eq!(chunk_sizes(300, items), vec![2, 1, 2, 1]);
}

#[test]
fn chunks_hold_at_most_the_frame_record_limit() {
    let entries: Vec<MakeItem> = (0..format::MAX_FRAME_RECORDS as u64 + 10)
        .map(|p| {
            Box::new(move |arena: &mut Vec<u8>| Item::Entry {
                queue: 0,
                position: p,
                value: stash(arena, &keys::entry_value(uuid::Uuid::nil(), Ownership::Owned)),
            }) as MakeItem
        })
        .collect();
    assert_eq!(
        chunk_sizes(format::MAX_FRAME_TARGET, entries),
        vec![format::MAX_FRAME_RECORDS as usize, 10]
    );
}

#[test]
fn a_compressed_object_weighs_what_its_payload_will() {
    let payload = vec![7u8; 100_000];
    let (codec, body) = Policy {
        codec: Compression::Zstd,
        threshold: 0,
    }
    .compress(&payload);
    let value = [&[keys::object_flag(Ownership::Owned, codec)][..], &body].concat();
    assert!(value.len() < 1000);
    let mut arena = Vec::new();
    let item = Item::Object {
        id: stash(&mut arena, &[0; 16]),
        value: stash(&mut arena, &value),
        owned_entries: 0,
    };
    assert!(item.weight(&arena) >= 100_000);
}

#[test]
fn frame_sizes_beyond_the_target_limit_are_refused() {
    for bad in [0, format::MAX_FRAME_TARGET + 1] {
        assert!(Chunker::new(&ExportOptions {
            frame_bytes: bad,
            ..ExportOptions::default()
        })
        .is_err());
    }
}
