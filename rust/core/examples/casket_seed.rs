//! Seed experiment 1 on a casket from Rust (no JNI): where the time of a drop-in transaction
//! goes. `cargo run --release -p rockcask-core --example casket_seed [N]`
use std::time::Instant;

use rockcask_core::casket::{Casket, CasketOptions, Kind, PutMode};

fn main() {
    let n: usize = std::env::args().nth(1).map_or(100_000, |a| a.parse().expect("N"));
    let dir = tempfile::tempdir().expect("temp dir");
    for rep in 0..4 {
        let path = dir.path().join(format!("seed-{rep}.tcb"));
        let ids: Vec<String> = (0..n).map(|_| uuid::Uuid::new_v4().to_string()).collect();
        let t0 = Instant::now();
        let mut o = CasketOptions::new(Kind::Btree, true);
        o.create = true;
        o.sync_transactions = true;
        let c = Casket::open(&path, o).expect("open");
        let t1 = Instant::now();
        c.tranbegin().expect("begin");
        for id in &ids {
            c.put(b"queue", id.as_bytes(), PutMode::Dup).expect("putdup");
            c.put(id.as_bytes(), id.as_bytes(), PutMode::Dup).expect("putdup");
        }
        let t2 = Instant::now();
        c.trancommit().expect("commit");
        let t3 = Instant::now();
        c.close().expect("close");
        let t4 = Instant::now();
        let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e3;
        println!(
            "N={n} open {:.1} ms, putdups {:.1} ms, commit {:.1} ms, close {:.1} ms; begin..commit {:.0} items/s",
            ms(t0, t1),
            ms(t1, t2),
            ms(t2, t3),
            ms(t3, t4),
            n as f64 / (t3 - t1).as_secs_f64()
        );
    }
}
