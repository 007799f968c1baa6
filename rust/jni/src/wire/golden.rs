//! The golden vectors of the packed layouts: values, and the bytes the functions of `wire` write
//! for them (or, for the layouts Java writes, the bytes a writer of the documented layout
//! makes, which the functions of `wire` must read back as those values).
//!
//! `tests/golden/packed-layouts.tsv` holds them; the test below fails when the file differs
//! from what the code writes now. A layout changed on purpose: rewrite the file with
//! `ROCKCASK_WRITE_GOLDEN=1 cargo test --release -p rockcask-jni golden`, then make Java read
//! and write the new bytes (its golden tests, `PackedLayoutsGoldenTest` in java/rockcask and
//! `PackedListGoldenTest` in java/tokyocabinet, read the same file).

use std::fmt::Write;

use rockcask_core::maps::ScanPage;
use rockcask_core::{DeadLetter, DeadLetterRecord, Message, QueueConfig, Uuid};

use super::*;
use crate::contract::{MetricsSlot, QueueSlot, Slots, SummaryBlock, SummarySlot};

const FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/golden/packed-layouts.tsv");

const HEADER: &str = "\
# Golden vectors of the packed layouts crossing JNI, defined in rust/jni/src/wire/.
# Written by rust/jni/src/wire/golden.rs from the Rust code (a Rust test fails when this file
# differs from what it writes now); read by the JUnit tests PackedLayoutsGoldenTest
# (java/rockcask) and PackedListGoldenTest (java/tokyocabinet), which decode each vector with
# the Java code, compare the values, and encode them again byte for byte.
# Columns: layout, case, values, bytes (hex). Values are name=value fields in layout order: a
# number, an id, null for absent, or \"bytes\" with each byte outside [A-Za-z0-9._-]
# written %XX (text as its UTF-8 bytes).
";

/// The values of a vector, as text both languages render alike.
#[derive(Default)]
struct Fields(String);

impl Fields {
    fn field(mut self, name: &str, value: impl std::fmt::Display) -> Fields {
        if !self.0.is_empty() {
            self.0.push(' ');
        }
        write!(self.0, "{name}={value}").expect("writing to a String");
        self
    }

    fn bytes(self, name: &str, bytes: Option<&[u8]>) -> Fields {
        let value = match bytes {
            None => "null".to_string(),
            Some(b) => {
                let mut q = String::from("\"");
                for &c in b {
                    if c.is_ascii_alphanumeric() || b"._-".contains(&c) {
                        q.push(char::from(c));
                    } else {
                        write!(q, "%{c:02X}").expect("writing to a String");
                    }
                }
                q.push('"');
                q
            }
        };
        self.field(name, value)
    }

    fn text(self, name: &str, text: &str) -> Fields {
        self.bytes(name, Some(text.as_bytes()))
    }

    fn longs(self, name: &str, values: &[i64]) -> Fields {
        values.iter().fold(self, |f, v| f.field(name, v))
    }
}

struct Vector {
    layout: &'static str,
    case: &'static str,
    values: Fields,
    bytes: Vec<u8>,
}

fn vector(layout: &'static str, case: &'static str, values: Fields, bytes: Vec<u8>) -> Vector {
    Vector {
        layout,
        case,
        values,
        bytes,
    }
}

fn id(n: u128) -> Uuid {
    Uuid::from_u128(0x0193_0000_0000_7000_8000_0000_0000_0000 | n)
}

/// Names with what UTF-8 and JNI's modified UTF-8 spell differently (U+0000 aside, which no
/// name holds): characters above U+FFFF.
const NAMES: [&str; 4] = ["orders", "orders.dead", "caf\u{e9}/\u{6f22}", "\u{1f600}"];

fn lists() -> Vec<Vector> {
    let list = |case, items: &[Option<&[u8]>]| {
        // Java writes lists too (map keys, gathered putdups): the bytes read back as the items.
        let bytes = pack_list(items.iter().copied());
        assert_eq!(unpack_list(&bytes).unwrap(), items, "{case}");
        vector(
            "list",
            case,
            items.iter().fold(Fields::default(), |f, i| f.bytes("item", *i)),
            bytes,
        )
    };
    // Lists of names (`pack_strings`) and scans' pairs (`pack_scan_page`) are lists like the
    // others; a scan cut at its byte bound ends with one absent item.
    let names: Vec<Option<&[u8]>> = NAMES.iter().map(|n| Some(n.as_bytes())).collect();
    let names = list("names", &names);
    assert_eq!(pack_strings(&NAMES), names.bytes);
    let pairs = vec![(b"k1".to_vec(), vec![0, 0xff, b'"', b'%']), (b"k2".to_vec(), vec![])];
    let flat: Vec<Option<&[u8]>> = pairs.iter().flat_map(|(k, v)| [Some(&k[..]), Some(&v[..])]).collect();
    let whole = list("pairs", &flat);
    let cut = list("pairs-cut", &[&flat[..], &[None]].concat());
    let mut page = ScanPage { pairs, cut: false };
    assert_eq!(pack_scan_page(&page), whole.bytes);
    page.cut = true;
    assert_eq!(pack_scan_page(&page), cut.bytes);
    vec![
        list("empty", &[]),
        names,
        list("absent-and-empty", &[Some(&b"ab"[..]), None, Some(&b""[..])]),
        whole,
        cut,
    ]
}

fn messages() -> Vec<Vector> {
    let messages = |case, messages: &[Message]| {
        let values = messages.iter().fold(Fields::default(), |f, m| {
            f.field("id", m.id)
                .field("sequence", m.sequence.map_or(-1, |s| s as i64))
                .field("deliveries", m.deliveries)
                .bytes("payload", m.payload.as_deref())
        });
        vector("messages", case, values, pack_messages(messages))
    };
    vec![
        messages("none", &[]),
        messages(
            "two",
            &[
                Message {
                    id: id(1),
                    payload: Some(vec![0, 1, 0xff]),
                    sequence: Some(7),
                    deliveries: 3,
                },
                Message {
                    id: id(2),
                    payload: None,
                    sequence: None,
                    deliveries: 1,
                },
            ],
        ),
        messages(
            "empty-payload",
            &[Message {
                id: id(3),
                payload: Some(vec![]),
                sequence: Some(1 << 40),
                deliveries: 0,
            }],
        ),
    ]
}

fn queue_options() -> Vec<Vector> {
    let options = |case, config: QueueConfig| {
        let values = Fields::default()
            .field("maxDeliveries", config.max_deliveries.map_or(-1, i64::from))
            .field("capacity", config.capacity)
            .field("capacityBytes", config.capacity_bytes)
            .bytes(
                "deadLetterQueue",
                config.dead_letter_queue.as_deref().map(str::as_bytes),
            );
        vector("queue-options", case, values, pack_queue_config(&config))
    };
    vec![
        options("defaults", QueueConfig::default()),
        options(
            "configured",
            QueueConfig {
                max_deliveries: Some(5),
                dead_letter_queue: Some(NAMES[1].into()),
                capacity: 1000,
                capacity_bytes: 1 << 40,
            },
        ),
        options(
            "no-limit",
            QueueConfig {
                max_deliveries: Some(0),
                dead_letter_queue: Some(NAMES[3].into()),
                capacity: 0,
                capacity_bytes: 7,
            },
        ),
    ]
}

fn dead_letters() -> Vec<Vector> {
    let letters = |case, letters: &[DeadLetter]| {
        let values = letters.iter().fold(Fields::default(), |f, d| {
            f.field("sequence", d.sequence)
                .field("id", d.id)
                .text("originQueue", &d.record.origin_queue)
                .field("originSequence", d.record.origin_sequence)
                .field("deliveries", d.record.deliveries)
                .field("deadAt", d.record.dead_at_millis)
                .text("reason", &d.record.reason)
                .bytes("payload", d.payload.as_deref())
        });
        vector("dead-letters", case, values, pack_dead_letters(letters))
    };
    let record = |origin_queue: &str, reason: &str| DeadLetterRecord {
        origin_queue: origin_queue.into(),
        origin_sequence: 41,
        deliveries: 5,
        reason: reason.into(),
        dead_at_millis: 1_767_225_600_123,
    };
    vec![
        letters("none", &[]),
        letters(
            "two",
            &[
                DeadLetter {
                    sequence: 3,
                    id: id(4),
                    payload: Some(b"x\0y".to_vec()),
                    record: record(NAMES[0], "handler failed: caf\u{e9}"),
                },
                DeadLetter {
                    sequence: 4,
                    id: id(5),
                    payload: None,
                    record: record(NAMES[3], ""),
                },
            ],
        ),
    ]
}

fn metrics() -> Vec<Vector> {
    let store_len = MetricsSlot::LEN + SummaryBlock::LEN * SummarySlot::LEN;
    // Distinct values, with the extremes a long holds (rates cross as the bits of a double).
    let record = |len: usize, scale: i64| -> Vec<i64> {
        (0..len as i64)
            .map(|i| {
                if i == 0 {
                    i64::MIN
                } else if i == 1 {
                    i64::MAX
                } else if i == 2 {
                    -1
                } else {
                    i * scale
                }
            })
            .collect()
    };
    let metrics = |case, store: Vec<i64>, queues: &[(&str, Vec<i64>)]| {
        let values = queues
            .iter()
            .fold(Fields::default().longs("store", &store), |f, (name, q)| {
                f.text("queue", name).longs("figure", q)
            });
        vector(
            "metrics",
            case,
            values,
            pack_metrics(&store, queues.iter().map(|(n, q)| (*n, q.clone()))),
        )
    };
    vec![
        metrics("no-queues", record(store_len, 3), &[]),
        metrics(
            "two-queues",
            record(store_len, 5),
            &[
                (NAMES[0], record(QueueSlot::LEN, 7)),
                (NAMES[2], record(QueueSlot::LEN, 11)),
            ],
        ),
    ]
}

/// Per-queue codecs as `Wire.queueCodecs` writes them.
fn queue_codecs() -> Vec<Vector> {
    let codecs = |case, codecs: &[(&str, i32)]| {
        let mut bytes = (codecs.len() as i32).to_be_bytes().to_vec();
        for (queue, code) in codecs {
            bytes.extend_from_slice(&(queue.len() as i32).to_be_bytes());
            bytes.extend_from_slice(queue.as_bytes());
            bytes.extend_from_slice(&code.to_be_bytes());
        }
        let read: Vec<(String, i32)> = unpack_queue_codecs(&bytes).unwrap();
        assert_eq!(
            read,
            codecs.iter().map(|(q, c)| (q.to_string(), *c)).collect::<Vec<_>>(),
            "{case}"
        );
        let values = codecs.iter().fold(Fields::default(), |f, (queue, code)| {
            f.text("queue", queue).field("code", code)
        });
        vector("queue-codecs", case, values, bytes)
    };
    vec![codecs("none", &[]), codecs("two", &[(NAMES[0], 2), (NAMES[2], 1)])]
}

/// Operations as `PendingOps` writes them.
fn pending_ops() -> Vec<Vector> {
    let ops = |case, ops: &[PendingOp<'_>]| {
        let mut bytes = Vec::new();
        let mut values = Fields::default();
        for op in ops {
            let (code, queue, id, payload) = match *op {
                PendingOp::EnqueueNew { queue, id, payload } => (OP_ENQUEUE_NEW, Some(queue), id, Some(payload)),
                PendingOp::Put { id, payload } => (OP_PUT, None, id, Some(payload)),
                PendingOp::EnqueueExisting { queue, id } => (OP_ENQUEUE_EXISTING, Some(queue), id, None),
            };
            values = values.field("op", code);
            bytes.push(code);
            if let Some(queue) = queue {
                values = values.text("queue", queue);
                bytes.extend_from_slice(&(queue.len() as u16).to_be_bytes());
                bytes.extend_from_slice(queue.as_bytes());
            }
            values = values.field("id", id);
            bytes.extend_from_slice(id.as_bytes());
            if let Some(payload) = payload {
                values = values.bytes("payload", Some(payload));
                bytes.extend_from_slice(&(payload.len() as i32).to_be_bytes());
                bytes.extend_from_slice(payload);
            }
        }
        assert_eq!(
            &PendingOps::new(&bytes).collect::<BridgeResult<Vec<_>>>().unwrap(),
            ops,
            "{case}"
        );
        vector("pending-ops", case, values, bytes)
    };
    vec![ops(
        "each-kind",
        &[
            PendingOp::EnqueueNew {
                queue: NAMES[2],
                id: id(6),
                payload: b"hi",
            },
            PendingOp::Put {
                id: id(7),
                payload: b"",
            },
            PendingOp::EnqueueExisting {
                queue: NAMES[3],
                id: id(6),
            },
        ],
    )]
}

fn render(vectors: &[Vector]) -> String {
    let mut text = String::from(HEADER);
    for v in vectors {
        let hex: String = v.bytes.iter().map(|b| format!("{b:02x}")).collect();
        writeln!(text, "{}\t{}\t{}\t{hex}", v.layout, v.case, v.values.0).expect("writing to a String");
    }
    text
}

#[test]
fn the_golden_vectors_are_what_the_packed_layouts_write_now() {
    let vectors: Vec<Vector> = [
        lists(),
        messages(),
        queue_options(),
        dead_letters(),
        metrics(),
        queue_codecs(),
        pending_ops(),
    ]
    .into_iter()
    .flatten()
    .collect();
    let text = render(&vectors);
    if std::env::var_os("ROCKCASK_WRITE_GOLDEN").is_some() {
        std::fs::write(FILE, &text).unwrap();
    }
    let file = std::fs::read_to_string(FILE).unwrap_or_default();
    if let Some((line, (want, have))) = text.lines().zip(file.lines()).enumerate().find(|(_, (w, h))| w != h) {
        panic!("{FILE} line {}: the code writes\n{want}\nbut the file says\n{have}\n(a layout changed on purpose: see wire/golden.rs)", line + 1);
    }
    assert_eq!(
        text.lines().count(),
        file.lines().count(),
        "{FILE} has other vectors than the code writes (see wire/golden.rs)"
    );
}
