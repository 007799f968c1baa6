//! Any bytes as the flat form Java hands over for encoding: never a panic, never an allocation
//! beyond what the input holds; whatever reads encodes (or is refused) cleanly.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rockcask_codec::{encode, flat, Column, ColumnRef, MessageType};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, input)) = data.split_first() else { return };
    let ty = MessageType::from_code(u32::from(pick) % 25).expect("25 types");
    let Ok((names, columns)) = flat::read(input) else { return };
    let refs: Vec<ColumnRef<'_>> = columns.iter().map(Column::as_ref).collect();
    let _ = encode(ty, names.as_ref(), &refs);
});
