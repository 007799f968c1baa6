//! Any bytes as the flat form Java hands over for encoding, read both by copying and in place
//! (from an 8-byte aligned copy, as a direct buffer is): never a panic, never an allocation
//! beyond what the input holds, and both readings agree.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rockcask_codec::{encode, flat, Column, ColumnRef, MessageType};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, input)) = data.split_first() else {
        return;
    };
    let ty = MessageType::from_code(u32::from(pick) % 25).expect("25 types");
    let mut words = vec![0u64; input.len().div_ceil(8)];
    // SAFETY: the u64 buffer holds at least input.len() bytes.
    let aligned = unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr() as *mut u8, input.len()) };
    aligned.copy_from_slice(input);
    let copied = flat::read(input);
    let viewed = flat::read_borrowed(aligned).map(|v| v.expect("aligned"));
    assert_eq!(copied.is_ok(), viewed.is_ok());
    let (Ok((names, columns)), Ok((vnames, vcolumns))) = (copied, viewed) else {
        return;
    };
    let refs: Vec<ColumnRef<'_>> = columns.iter().map(Column::as_ref).collect();
    assert_eq!(encode(ty, names.as_ref(), &refs), encode(ty, vnames, &vcolumns));
});
