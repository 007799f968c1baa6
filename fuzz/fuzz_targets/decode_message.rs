//! Any bytes, decoded as any message type (chosen by the first byte): never a panic; whatever
//! decodes re-encodes to a message that decodes to the same content, and its flat form fits
//! the size the JNI layer computes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rockcask_codec::{decode, encode, flat, Column, ColumnRef, MessageType};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, input)) = data.split_first() else {
        return;
    };
    let ty = MessageType::from_code(u32::from(pick) % 25).expect("25 types");
    let Ok(decoded) = decode(ty, input) else { return };
    let mut out = vec![0u8; flat::len(&decoded)];
    assert_eq!(flat::write(&decoded, &mut out), Ok(out.len()));
    let columns: Vec<ColumnRef<'_>> = decoded.columns.iter().map(Column::as_ref).collect();
    // Maps and frames decoded from lists of unequal length are not re-encodable as they are.
    let Ok(again) = encode(ty, decoded.names.as_ref(), &columns) else {
        return;
    };
    let redecoded = decode(ty, &again).expect("a re-encoded message decodes");
    assert_eq!(format!("{:?}", redecoded), format!("{:?}", decoded));
});
