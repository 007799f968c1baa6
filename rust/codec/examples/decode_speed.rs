//! Decoding speed of the seed benchmark's object from Rust (no JNI):
//! `cargo run --release -p rockcask-codec --example decode_speed [i]`
use std::time::Instant;

use rockcask_codec::{decode, encode, flat, Blobs, ColumnRef, MessageType};

fn main() {
    let i: usize = std::env::args().nth(1).map_or(10_000, |a| a.parse().expect("i"));
    let mut sa = Blobs::default();
    (0..i).for_each(|_| sa.push(b"Dummy text"));
    let ia = vec![0i32; i];
    let msg = encode(
        MessageType::TargetObject,
        Blobs::default().as_ref(),
        &[ColumnRef::I32(&ia), ColumnRef::Blobs(sa.as_ref())],
    )
    .unwrap();
    let mut out = vec![0u8; 1 << 20];
    for _ in 0..3 {
        let t0 = Instant::now();
        let mut d = None;
        for _ in 0..200 {
            d = Some(decode(MessageType::TargetObject, &msg).unwrap());
        }
        let t1 = Instant::now();
        for _ in 0..200 {
            flat::write(d.as_ref().unwrap(), &mut out).unwrap();
        }
        let t2 = Instant::now();
        for _ in 0..200 {
            std::hint::black_box(<rockcask_codec::pb::TargetObjectProto as prost::Message>::decode(&msg[..]).unwrap());
        }
        let t3 = Instant::now();
        println!(
            "i={i}: decode {:.1} us, flat write {:.1} us (prost decode {:.1} us)",
            (t1 - t0).as_secs_f64() * 1e6 / 200.0,
            (t2 - t1).as_secs_f64() * 1e6 / 200.0,
            (t3 - t2).as_secs_f64() * 1e6 / 200.0
        );
    }
}
