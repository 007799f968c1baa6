//! Caskets (the Tokyo Cabinet drop-in's store): records, duplicates, orders, cursors,
//! transactions and files.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};

use rockcask_core::casket::{
    appended_len, report_comparison_failure, Casket, CasketOptions, CursorPut, Ecode, KeyOrder, Kind, LockMode,
    PutMode, Range, FSIZ_HEADER, FSIZ_RECORD, MAX_VALUE_LEN,
};

fn writer(path: &Path) -> Casket {
    writer_with(path, KeyOrder::Lexical)
}

fn writer_with(path: &Path, order: KeyOrder) -> Casket {
    let mut o = CasketOptions::new(Kind::Btree, true);
    o.create = true;
    o.order = order;
    Casket::open(path, o).expect("open writer")
}

fn tmp() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("casket.tcb");
    (dir, path)
}

fn code<T: std::fmt::Debug>(r: Result<T, rockcask_core::casket::CasketError>) -> Ecode {
    r.expect_err("expected a failure").code
}

#[test]
fn duplicates_keep_insertion_order_and_first_value_rules() {
    let (_d, path) = tmp();
    let c = writer(&path);
    for v in [&b"1"[..], b"2", b"3"] {
        c.put(b"k", v, PutMode::Dup).unwrap();
    }
    assert_eq!(
        c.get_list(b"k").unwrap(),
        vec![b"1".to_vec(), b"2".to_vec(), b"3".to_vec()]
    );
    c.put(b"k", b"one", PutMode::Over).unwrap();
    assert_eq!(
        c.get_list(b"k").unwrap(),
        vec![b"one".to_vec(), b"2".to_vec(), b"3".to_vec()]
    );
    assert_eq!(c.vnum(b"k").unwrap(), 3);
    assert_eq!(c.rnum().unwrap(), 3);
    c.out(b"k").unwrap();
    assert_eq!(c.get(b"k").unwrap(), b"2");
    assert_eq!(c.vsiz(b"k").unwrap(), 1);
    c.out_list(b"k").unwrap();
    assert_eq!(code(c.get(b"k")), Ecode::NoRec);
    assert_eq!(code(c.out(b"k")), Ecode::NoRec);
    assert_eq!(code(c.out_list(b"k")), Ecode::NoRec);
    assert_eq!(c.vnum(b"k").unwrap(), 0);
    assert_eq!(c.rnum().unwrap(), 0);
}

#[test]
fn putkeep_putcat_and_numbers_follow_tokyo_cabinet_rules() {
    let (_d, path) = tmp();
    let c = writer(&path);
    c.put(b"a", b"x", PutMode::Keep).unwrap();
    assert_eq!(code(c.put(b"a", b"y", PutMode::Keep)), Ecode::Keep);
    c.put(b"a", b"yz", PutMode::Cat).unwrap();
    c.put(b"new", b"v", PutMode::Cat).unwrap();
    assert_eq!(c.get(b"a").unwrap(), b"xyz");
    assert_eq!(c.get(b"new").unwrap(), b"v");
    assert_eq!(c.add_int(b"n", 5).unwrap(), 5);
    assert_eq!(c.add_int(b"n", -7).unwrap(), -2);
    assert_eq!(c.add_int(b"n", 0).unwrap(), -2);
    assert_eq!(c.get(b"n").unwrap(), (-2i32).to_ne_bytes());
    assert_eq!(code(c.add_int(b"a", 1)), Ecode::Keep);
    assert_eq!(c.add_double(b"d", 1.5).unwrap(), 1.5);
    assert_eq!(c.add_double(b"d", 0.25).unwrap(), 1.75);
    assert_eq!(code(c.add_double(b"n", 1.0)), Ecode::Keep);
}

#[test]
fn queue_pattern_is_fifo_and_reading_the_head_skips_consumed_values() {
    let (_d, path) = tmp();
    let c = writer(&path);
    c.tranbegin().unwrap();
    for i in 0..20_000u32 {
        c.put(b"queue", &i.to_be_bytes(), PutMode::Dup).unwrap();
    }
    c.trancommit().unwrap();
    for i in 0..20_000u32 {
        assert_eq!(c.get(b"queue").unwrap(), i.to_be_bytes());
        c.out(b"queue").unwrap();
    }
    assert_eq!(code(c.get(b"queue")), Ecode::NoRec);
    assert_eq!(c.rnum().unwrap(), 0);
}

#[test]
fn range_and_fwmkeys_return_distinct_keys_in_order_within_bounds() {
    let (_d, path) = tmp();
    let c = writer(&path);
    for k in ["b", "a", "ab", "abc", "c", "b"] {
        c.put(k.as_bytes(), b"v", PutMode::Dup).unwrap();
    }
    let keys = |v: Vec<Vec<u8>>| v.into_iter().map(|k| String::from_utf8(k).unwrap()).collect::<Vec<_>>();
    let all = Range {
        begin: None,
        begin_inclusive: true,
        end: None,
        end_inclusive: true,
        max: -1,
    };
    assert_eq!(keys(c.range(&all).unwrap()), ["a", "ab", "abc", "b", "c"]);
    let r = Range {
        begin: Some(b"ab"),
        begin_inclusive: false,
        end: Some(b"c"),
        end_inclusive: false,
        max: -1,
    };
    assert_eq!(keys(c.range(&r).unwrap()), ["abc", "b"]);
    let r = Range {
        begin: Some(b"a"),
        begin_inclusive: true,
        end: Some(b"b"),
        end_inclusive: true,
        max: 2,
    };
    assert_eq!(keys(c.range(&r).unwrap()), ["a", "ab"]);
    assert_eq!(keys(c.fwmkeys(b"ab", -1).unwrap()), ["ab", "abc"]);
    assert_eq!(keys(c.fwmkeys(b"", 3).unwrap()), ["a", "ab", "abc"]);
    assert!(c.fwmkeys(b"zz", -1).unwrap().is_empty());
}

#[test]
fn key_lists_over_their_byte_bound_return_fewer_and_a_value_list_over_it_is_refused_naming_the_total() {
    let (_d, path) = tmp();
    let c = writer(&path);
    for k in ["a", "ab", "abc", "b"] {
        c.put(k.as_bytes(), b"v", PutMode::Dup).unwrap();
    }
    c.put(b"ab", b"vv", PutMode::Dup).unwrap();
    let keys = |v: Vec<Vec<u8>>| v.into_iter().map(|k| String::from_utf8(k).unwrap()).collect::<Vec<_>>();
    let all = Range {
        begin: None,
        begin_inclusive: true,
        end: None,
        end_inclusive: true,
        max: -1,
    };
    assert_eq!(keys(c.range_within(&all, 3).unwrap()), ["a", "ab"]);
    assert_eq!(keys(c.range_within(&all, 0).unwrap()), ["a"], "the first always");
    assert_eq!(keys(c.fwmkeys_within(b"a", -1, 5).unwrap()), ["a", "ab"]);
    assert_eq!(keys(c.fwmkeys_within(b"a", -1, 6).unwrap()), ["a", "ab", "abc"]);
    assert_eq!(c.get_list_within(b"ab", 3).unwrap().len(), 2);
    let e = c.get_list_within(b"ab", 2).unwrap_err();
    assert_eq!(e.code, Ecode::Invalid);
    assert!(
        e.detail.contains("2 values") && e.detail.contains("3 bytes"),
        "{}",
        e.detail
    );
}

#[test]
fn built_in_and_external_orders_sort_keys_and_are_checked_at_reopen() {
    let (_d, path) = tmp();
    {
        let c = writer_with(&path, KeyOrder::Decimal);
        for k in ["10", "9", "-1", "2.5"] {
            c.put(k.as_bytes(), b"v", PutMode::Over).unwrap();
        }
        let all = Range {
            begin: None,
            begin_inclusive: true,
            end: None,
            end_inclusive: true,
            max: -1,
        };
        assert_eq!(
            c.range(&all).unwrap(),
            vec![b"-1".to_vec(), b"2.5".to_vec(), b"9".to_vec(), b"10".to_vec()]
        );
        c.close().unwrap();
    }
    let mut o = CasketOptions::new(Kind::Btree, true);
    assert_eq!(code(Casket::open(&path, o.clone())), Ecode::Meta);
    o.kind = Kind::Hash;
    o.order = KeyOrder::Decimal;
    assert_eq!(code(Casket::open(&path, o)), Ecode::Meta);

    let (_d2, path2) = tmp();
    let reverse = || KeyOrder::External {
        name: "reverse".into(),
        compare: Arc::new(|a: &[u8], b: &[u8]| b.cmp(a)),
    };
    {
        let c = writer_with(&path2, reverse());
        for k in ["a", "c", "b"] {
            c.put(k.as_bytes(), b"1", PutMode::Dup).unwrap();
            c.put(k.as_bytes(), b"2", PutMode::Dup).unwrap();
        }
        let mut pos = c.cursor_first().unwrap();
        let mut seen = vec![];
        loop {
            seen.push((c.cursor_key(&pos).unwrap(), c.cursor_value(&pos).unwrap()));
            match c.cursor_next(&pos) {
                Ok(p) => pos = p,
                Err(e) => {
                    assert_eq!(e.code, Ecode::NoRec);
                    break;
                }
            }
        }
        let want: Vec<(Vec<u8>, Vec<u8>)> = [("c", "1"), ("c", "2"), ("b", "1"), ("b", "2"), ("a", "1"), ("a", "2")]
            .iter()
            .map(|(k, v)| (k.as_bytes().to_vec(), v.as_bytes().to_vec()))
            .collect();
        assert_eq!(seen, want);
        c.close().unwrap();
    }
    let c = writer_with(&path2, reverse());
    assert_eq!(c.rnum().unwrap(), 6);
    drop(c);
    assert_eq!(
        code(Casket::open(&path2, CasketOptions::new(Kind::Btree, true))),
        Ecode::Meta
    );
}

#[test]
fn cursor_moves_over_every_value_and_inserts_within_a_key() {
    let (_d, path) = tmp();
    let c = writer(&path);
    c.put(b"a", b"a1", PutMode::Dup).unwrap();
    c.put(b"b", b"b1", PutMode::Dup).unwrap();
    c.put(b"b", b"b2", PutMode::Dup).unwrap();
    c.put(b"c", b"c1", PutMode::Dup).unwrap();
    let p = c.cursor_jump(b"aa").unwrap();
    assert_eq!(c.cursor_key(&p).unwrap(), b"b");
    let p = c.cursor_put(&p, b"b0", CursorPut::Before).unwrap();
    assert_eq!(c.cursor_value(&p).unwrap(), b"b0");
    let p = c.cursor_next(&p).unwrap();
    let p = c.cursor_put(&p, b"b1.5", CursorPut::After).unwrap();
    assert_eq!(c.cursor_value(&p).unwrap(), b"b1.5");
    let p2 = c.cursor_next(&p).unwrap();
    let p2 = c.cursor_put(&p2, b"B2", CursorPut::Current).unwrap();
    assert_eq!(
        c.get_list(b"b").unwrap(),
        vec![b"b0".to_vec(), b"b1".to_vec(), b"b1.5".to_vec(), b"B2".to_vec()]
    );
    // Removing moves to the next value; the removed position is then invalid.
    let next = c.cursor_out(&p2).unwrap().unwrap();
    assert_eq!(c.cursor_key(&next).unwrap(), b"c");
    assert_eq!(code(c.cursor_value(&p2)), Ecode::NoRec);
    assert_eq!(c.cursor_key(&c.cursor_next(&p2).unwrap()).unwrap(), b"c");
    assert_eq!(c.cursor_value(&c.cursor_prev(&p2).unwrap()).unwrap(), b"b1.5");
    assert_eq!(code(c.cursor_next(&c.cursor_last().unwrap())), Ecode::NoRec);
    assert_eq!(code(c.cursor_prev(&c.cursor_first().unwrap())), Ecode::NoRec);
    assert_eq!(c.rnum().unwrap(), 5);
}

#[test]
fn repeated_inserts_at_one_spot_renumber_and_keep_order() {
    let (_d, path) = tmp();
    let c = writer(&path);
    c.put(b"k", b"first", PutMode::Dup).unwrap();
    c.put(b"k", b"last", PutMode::Dup).unwrap();
    let mut p = c.cursor_last().unwrap();
    // Each insert goes before the previous one: halves the gap every time, so it must renumber.
    for i in 0..40 {
        p = c
            .cursor_put(&p, format!("{i:02}").as_bytes(), CursorPut::Before)
            .unwrap();
    }
    let values = c.get_list(b"k").unwrap();
    let mut want = vec![b"first".to_vec()];
    want.extend((0..40).rev().map(|i| format!("{i:02}").into_bytes()));
    want.push(b"last".to_vec());
    assert_eq!(values, want);
    assert_eq!(c.rnum().unwrap(), 42);
}

#[test]
fn abort_restores_values_and_count_including_writes_flushed_early() {
    let (_d, path) = tmp();
    let c = writer(&path);
    c.put(b"keep", b"v0", PutMode::Dup).unwrap();
    c.put(b"keep", b"v1", PutMode::Dup).unwrap();
    c.tranbegin().unwrap();
    c.put(b"new", b"x", PutMode::Dup).unwrap();
    // A read flushes the gathered writes, so they are undone from the undo log.
    assert_eq!(c.get(b"new").unwrap(), b"x");
    c.out(b"keep").unwrap();
    c.put(b"keep", b"changed", PutMode::Over).unwrap();
    c.put(b"more", b"y", PutMode::Dup).unwrap();
    assert_eq!(c.rnum().unwrap(), 3);
    c.tranabort().unwrap();
    assert_eq!(c.rnum().unwrap(), 2);
    assert_eq!(c.get_list(b"keep").unwrap(), vec![b"v0".to_vec(), b"v1".to_vec()]);
    assert_eq!(code(c.get(b"new")), Ecode::NoRec);
    assert_eq!(code(c.get(b"more")), Ecode::NoRec);
    assert_eq!(code(c.tranabort()), Ecode::Invalid);
    assert_eq!(code(c.trancommit()), Ecode::Invalid);
    c.close().unwrap();
    let c = writer(&path);
    assert_eq!(c.rnum().unwrap(), 2);
}

#[test]
fn an_interrupted_transaction_is_rolled_back_at_the_next_open() {
    let (d, path) = tmp();
    let c = writer(&path);
    c.put(b"a", b"before", PutMode::Over).unwrap();
    c.tranbegin().unwrap();
    c.put(b"a", b"during", PutMode::Over).unwrap();
    c.put(b"b", b"during", PutMode::Dup).unwrap();
    c.get(b"a").unwrap();
    // A copy taken now holds the transaction's writes and their undo log, as a crash would.
    let copy = d.path().join("copy.tcb");
    c.copy(&copy).unwrap();
    c.trancommit().unwrap();
    let recovered = writer(&copy);
    assert_eq!(recovered.get(b"a").unwrap(), b"before");
    assert_eq!(code(recovered.get(b"b")), Ecode::NoRec);
    assert_eq!(recovered.rnum().unwrap(), 1);
    assert_eq!(c.get(b"a").unwrap(), b"during");
}

#[test]
fn a_second_thread_waits_for_the_running_transaction() {
    let (_d, path) = tmp();
    let c = Arc::new(writer(&path));
    c.tranbegin().unwrap();
    assert_eq!(code(c.tranbegin()), Ecode::Invalid);
    let other = {
        let c = c.clone();
        std::thread::spawn(move || {
            c.tranbegin().unwrap();
            let seen = c.get(b"k").unwrap();
            c.trancommit().unwrap();
            seen
        })
    };
    std::thread::sleep(Duration::from_millis(200));
    assert!(!other.is_finished(), "the second tranbegin must wait");
    c.put(b"k", b"from-first", PutMode::Over).unwrap();
    c.trancommit().unwrap();
    assert_eq!(other.join().unwrap(), b"from-first");
}

#[test]
fn deleting_the_marker_gives_an_empty_casket_and_readers_cannot_write() {
    let (_d, path) = tmp();
    let c = writer(&path);
    c.put(b"k", b"v", PutMode::Over).unwrap();
    c.close().unwrap();
    assert!(path.is_file());
    let mut ro = CasketOptions::new(Kind::Btree, false);
    ro.lock = LockMode::NonBlocking;
    let r = Casket::open(&path, ro.clone()).unwrap();
    assert_eq!(r.get(b"k").unwrap(), b"v");
    assert_eq!(code(r.put(b"k", b"w", PutMode::Over)), Ecode::Invalid);
    assert_eq!(code(r.tranbegin()), Ecode::Invalid);
    r.close().unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(code(Casket::open(&path, ro)), Ecode::NoFile);
    let c = writer(&path);
    assert_eq!(c.rnum().unwrap(), 0);
    assert_eq!(code(c.get(b"k")), Ecode::NoRec);
    assert!(c.disk_bytes().unwrap() > 0);
    // A second open of the same casket in this process is refused at once.
    assert_eq!(
        code(Casket::open(&path, CasketOptions::new(Kind::Btree, true))),
        Ecode::Lock
    );
    c.close().unwrap();
    assert_eq!(code(c.get(b"k")), Ecode::Invalid);
}

#[test]
fn a_file_that_is_not_a_casket_is_refused_unless_truncated() {
    let (_d, path) = tmp();
    std::fs::write(&path, b"\x00\x01 some other format").unwrap();
    let mut o = CasketOptions::new(Kind::Btree, true);
    o.create = true;
    assert_eq!(code(Casket::open(&path, o.clone())), Ecode::Meta);
    o.truncate = true;
    let c = Casket::open(&path, o).unwrap();
    assert_eq!(c.rnum().unwrap(), 0);
}

#[test]
fn vanish_and_copy_work_on_a_live_casket() {
    let (d, path) = tmp();
    let c = writer(&path);
    for i in 0..100u32 {
        c.put(&i.to_be_bytes(), b"v", PutMode::Dup).unwrap();
    }
    let copy = d.path().join("copy.tcb");
    c.copy(&copy).unwrap();
    c.vanish().unwrap();
    assert_eq!(c.rnum().unwrap(), 0);
    assert_eq!(code(c.cursor_first()), Ecode::NoRec);
    let copied = writer(&copy);
    assert_eq!(copied.rnum().unwrap(), 100);
    assert_eq!(copied.get(&7u32.to_be_bytes()).unwrap(), b"v");
}

#[test]
fn hash_caskets_have_no_duplicates() {
    let (_d, path) = tmp();
    let mut o = CasketOptions::new(Kind::Hash, true);
    o.create = true;
    let c = Casket::open(&path, o).unwrap();
    assert_eq!(code(c.put(b"k", b"v", PutMode::Dup)), Ecode::Invalid);
    c.put(b"k", b"v", PutMode::Over).unwrap();
    c.put(b"k", b"w", PutMode::Over).unwrap();
    assert_eq!(c.rnum().unwrap(), 1);
}

#[test]
fn reads_inside_a_transaction_see_pending_removals_puts_and_appends_of_every_key() {
    let (_d, path) = tmp();
    let c = writer(&path);
    for i in 0..5u8 {
        c.put(b"q", &[i], PutMode::Dup).unwrap();
    }
    c.tranbegin().unwrap();
    for i in 0..3u8 {
        assert_eq!(c.get(b"q").unwrap(), [i]);
        c.out(b"q").unwrap();
        c.put(b"r", &[i], PutMode::Dup).unwrap();
        c.put(format!("id{i}").as_bytes(), b"payload", PutMode::Over).unwrap();
        assert_eq!(c.get(format!("id{i}").as_bytes()).unwrap(), b"payload");
    }
    assert_eq!(c.get_list(b"q").unwrap(), vec![vec![3u8], vec![4u8]]);
    assert_eq!(c.vnum(b"r").unwrap(), 3);
    c.out_list(b"q").unwrap();
    assert_eq!(code(c.get(b"q")), Ecode::NoRec);
    c.put(b"q", b"z", PutMode::Dup).unwrap();
    assert_eq!(c.get(b"q").unwrap(), b"z");
    assert_eq!(c.add_int(b"n", 2).unwrap(), 2);
    assert_eq!(c.add_int(b"n", 3).unwrap(), 5);
    c.tranabort().unwrap();
    assert_eq!(c.vnum(b"q").unwrap(), 5);
    assert_eq!(c.get(b"q").unwrap(), [0u8]);
    assert_eq!(code(c.get(b"r")), Ecode::NoRec);
    assert_eq!(code(c.get(b"n")), Ecode::NoRec);
    assert_eq!(c.rnum().unwrap(), 5);
}

#[test]
fn a_copy_made_from_a_reader_opens_with_the_same_records() {
    let (d, path) = tmp();
    let c = writer(&path);
    for i in 0..100u32 {
        c.put(&i.to_be_bytes(), b"v", PutMode::Dup).unwrap();
    }
    c.close().unwrap();
    let r = Casket::open(&path, CasketOptions::new(Kind::Btree, false)).unwrap();
    let copy = d.path().join("copy.tcb");
    r.copy(&copy).unwrap();
    let copied = Casket::open(&copy, CasketOptions::new(Kind::Btree, false)).expect("the copy opens");
    assert_eq!(copied.rnum().unwrap(), 100);
    assert_eq!(copied.get(&7u32.to_be_bytes()).unwrap(), b"v");
}

#[test]
fn a_second_open_through_a_symlinked_path_is_refused_instead_of_waiting_for_its_own_lock() {
    let (d, path) = tmp();
    let c = writer(&path);
    let alias = d.path().join("alias");
    std::os::unix::fs::symlink(d.path(), &alias).unwrap();
    let aliased = alias.join(path.file_name().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(Casket::open(&aliased, CasketOptions::new(Kind::Btree, false)).map(|_| ()));
    });
    let result = rx
        .recv_timeout(Duration::from_secs(10))
        .expect("the second open must not wait for this process's own lock");
    assert_eq!(code(result), Ecode::Lock);
    // Nor may a copy replace the data of an open casket, this one under another name included.
    c.put(b"k", b"v", PutMode::Over).unwrap();
    assert_eq!(code(c.copy(&alias.join(path.file_name().unwrap()))), Ecode::Lock);
    let other = writer(&d.path().join("other.tcb"));
    other.put(b"o", b"v", PutMode::Over).unwrap();
    assert_eq!(code(c.copy(&alias.join("other.tcb"))), Ecode::Lock);
    assert_eq!(other.get(b"o").unwrap(), b"v");
    c.close().unwrap();
    let c = writer(&path);
    assert_eq!(c.get(b"k").unwrap(), b"v");
}

#[test]
fn iteration_goes_on_after_the_visited_key_and_its_next_value_are_removed() {
    let (_d, path) = tmp();
    let c = writer(&path);
    for k in ["a", "b", "c"] {
        c.put(k.as_bytes(), b"1", PutMode::Dup).unwrap();
        c.put(k.as_bytes(), b"2", PutMode::Dup).unwrap();
    }
    let mut seen = vec![];
    let mut pos = Some(c.cursor_first().unwrap());
    while let Some(p) = pos {
        let (key, _, next) = c.cursor_key_value_next(&p).unwrap();
        // The next position is this key's second value: removing the key removes it too.
        c.out_list(&key).unwrap();
        seen.push(key);
        pos = next;
        if let Some(p) = pos.as_ref().filter(|_| c.rnum().unwrap() == 0) {
            assert_eq!(code(c.cursor_key_value_next(p)), Ecode::NoRec);
            break;
        }
    }
    assert_eq!(seen, vec![b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]);
}

#[test]
fn with_a_callers_order_every_spelling_of_a_key_sees_a_value_inserted_before_its_head() {
    let (_d, path) = tmp();
    let nocase = KeyOrder::External {
        name: "nocase".into(),
        compare: Arc::new(|a: &[u8], b: &[u8]| a.to_ascii_lowercase().cmp(&b.to_ascii_lowercase())),
    };
    let c = writer_with(&path, nocase);
    c.put(b"K", b"v1", PutMode::Dup).unwrap();
    assert_eq!(c.get(b"k").unwrap(), b"v1");
    let head = c.cursor_jump(b"K").unwrap();
    c.cursor_put(&head, b"v0", CursorPut::Before).unwrap();
    assert_eq!(c.get_list(b"k").unwrap(), vec![b"v0".to_vec(), b"v1".to_vec()]);
    assert_eq!(c.get(b"k").unwrap(), b"v0");
}

#[test]
fn a_copy_never_replaces_a_casket_another_process_has_open() {
    let (d, path) = tmp();
    let c = writer(&path);
    c.put(b"k", b"v", PutMode::Over).unwrap();
    // What another process holding a casket open at `dest` looks like from here: its marker
    // flocked and RocksDB's LOCK held.
    let dest = d.path().join("busy.tcb");
    std::fs::write(&dest, b"").unwrap();
    let marker = std::fs::File::open(&dest).unwrap();
    marker.lock_shared().unwrap();
    assert_eq!(code(c.copy(&dest)), Ecode::Lock);
    drop(marker);
    let mut o = rocksdb::Options::default();
    o.create_if_missing(true);
    let busy_dir = d.path().join("busy.tcb.rockcask");
    let other = rocksdb::DB::open(&o, &busy_dir).unwrap();
    other.put(b"theirs", b"1").unwrap();
    assert_eq!(code(c.copy(&dest)), Ecode::Lock);
    assert_eq!(other.get(b"theirs").unwrap().as_deref(), Some(&b"1"[..]));
    drop(other);
    // A deleted marker whose directory is still open elsewhere is not removed by a create either.
    let other = rocksdb::DB::open(&o, &busy_dir).unwrap();
    std::fs::remove_file(&dest).unwrap();
    let mut create = CasketOptions::new(Kind::Btree, true);
    create.create = true;
    assert_eq!(code(Casket::open(&dest, create.clone())), Ecode::Lock);
    drop(other);
    std::fs::remove_dir_all(&busy_dir).unwrap();
    c.copy(&dest).unwrap();
    assert_eq!(Casket::open(&dest, create).unwrap().get(b"k").unwrap(), b"v");
}

fn hash_writer(path: &Path) -> Casket {
    let mut o = CasketOptions::new(Kind::Hash, true);
    o.create = true;
    Casket::open(path, o).expect("open hash writer")
}

/// What `fsiz` says a record adds.
fn rec(key: &[u8], value: &[u8]) -> u64 {
    FSIZ_RECORD + key.len() as u64 + value.len() as u64
}

#[test]
fn fsiz_counts_the_records_and_grows_and_shrinks_with_them() {
    let (_d, path) = tmp();
    let c = writer(&path);
    assert_eq!(c.fsiz().unwrap(), FSIZ_HEADER);
    c.put(b"k", b"v", PutMode::Over).unwrap();
    c.put(b"k", b"dup", PutMode::Dup).unwrap();
    c.put(b"k\0z", b"12", PutMode::Over).unwrap();
    let three = FSIZ_HEADER + rec(b"k", b"v") + rec(b"k", b"dup") + rec(b"k\0z", b"12");
    assert_eq!(c.fsiz().unwrap(), three);
    c.put(b"k", b"vvv", PutMode::Over).unwrap();
    c.put(b"k\0z", b"34", PutMode::Cat).unwrap();
    assert_eq!(c.fsiz().unwrap(), three + 2 + 2);
    let head = c.cursor_jump(b"k").unwrap();
    c.cursor_put(&head, b"before", CursorPut::Before).unwrap();
    assert_eq!(c.fsiz().unwrap(), three + 4 + rec(b"k", b"before"));
    c.out_list(b"k").unwrap();
    assert_eq!(c.fsiz().unwrap(), FSIZ_HEADER + rec(b"k\0z", b"1234"));
    c.close().unwrap();
    let reopened = writer(&path);
    assert_eq!(reopened.fsiz().unwrap(), FSIZ_HEADER + rec(b"k\0z", b"1234"));
    reopened.vanish().unwrap();
    assert_eq!(reopened.fsiz().unwrap(), FSIZ_HEADER);
}

#[test]
fn an_aborted_transaction_leaves_rnum_and_fsiz_as_they_were_at_tranbegin() {
    let (d, _) = tmp();
    let hash = hash_writer(&d.path().join("hash.tch"));
    let btree = writer(&d.path().join("btree.tcb"));
    for c in [&hash, &btree] {
        c.put(b"a", b"1", PutMode::Over).unwrap();
        c.put(b"b", b"2", PutMode::Over).unwrap();
        let (rnum, fsiz) = (c.rnum().unwrap(), c.fsiz().unwrap());
        c.tranbegin().unwrap();
        c.put(b"a", b"appended", PutMode::Cat).unwrap();
        c.out(b"b").unwrap();
        c.put(b"c", b"new", PutMode::Cat).unwrap();
        // Reads apply the gathered writes early (with undo records), as a long transaction does.
        assert_eq!(c.get(b"a").unwrap(), b"1appended");
        c.put(b"c", &[7; 100_000], PutMode::Cat).unwrap();
        c.out(b"a").unwrap();
        assert_ne!(c.fsiz().unwrap(), fsiz, "the transaction's writes count while it runs");
        c.tranabort().unwrap();
        assert_eq!((c.rnum().unwrap(), c.fsiz().unwrap()), (rnum, fsiz), "{c:?}");
        // Committed, the same writes stay counted.
        c.tranbegin().unwrap();
        c.put(b"a", b"appended", PutMode::Cat).unwrap();
        c.out(b"b").unwrap();
        c.trancommit().unwrap();
        assert_eq!(c.fsiz().unwrap(), fsiz + 8 - rec(b"b", b"2"));
        assert_eq!(c.rnum().unwrap(), rnum - 1);
    }
}

#[test]
fn fsiz_after_a_transaction_rolled_back_at_open_is_the_one_at_tranbegin() {
    let (d, path) = tmp();
    let c = writer(&path);
    c.put(b"a", b"before", PutMode::Over).unwrap();
    let fsiz = c.fsiz().unwrap();
    c.tranbegin().unwrap();
    c.put(b"a", b"during the transaction", PutMode::Cat).unwrap();
    c.put(b"b", b"during", PutMode::Dup).unwrap();
    c.get(b"a").unwrap();
    // A copy taken now holds the transaction's writes and their undo log, as a crash would.
    let copy = d.path().join("copy.tcb");
    c.copy(&copy).unwrap();
    c.trancommit().unwrap();
    assert_ne!(c.fsiz().unwrap(), fsiz);
    let recovered = writer(&copy);
    assert_eq!(recovered.fsiz().unwrap(), fsiz);
}

#[test]
fn a_casket_written_before_fsiz_was_kept_counts_it_at_open() {
    let (_d, path) = tmp();
    let c = writer(&path);
    c.put(b"key", b"value", PutMode::Dup).unwrap();
    c.put(b"key", b"more", PutMode::Dup).unwrap();
    let fsiz = c.fsiz().unwrap();
    c.close().unwrap();
    {
        let cfs = ["default", "data"];
        let db = rocksdb::DB::open_cf(
            &rocksdb::Options::default(),
            rockcask_core::casket::files::data_dir(&path),
            cfs,
        )
        .unwrap();
        assert!(db.get(b"m/bytes").unwrap().is_some());
        db.delete(b"m/bytes").unwrap();
    }
    let mut reader = CasketOptions::new(Kind::Btree, false);
    reader.lock = LockMode::NonBlocking;
    assert_eq!(Casket::open(&path, reader).unwrap().fsiz().unwrap(), fsiz);
    assert_eq!(writer(&path).fsiz().unwrap(), fsiz);
}

#[test]
fn the_largest_value_is_what_a_java_array_holds_and_appends_stop_there() {
    assert_eq!(MAX_VALUE_LEN, i32::MAX as usize - 8);
    assert_eq!(appended_len(MAX_VALUE_LEN - 10, 10).unwrap(), MAX_VALUE_LEN);
    let e = appended_len(MAX_VALUE_LEN - 10, 20).unwrap_err();
    assert_eq!(e.code, Ecode::Invalid);
    assert!(
        e.detail.contains(&format!(
            "appending 20 bytes to a value of {} bytes",
            MAX_VALUE_LEN - 10
        )),
        "{}",
        e.detail
    );
    assert_eq!(appended_len(0, MAX_VALUE_LEN + 1).unwrap_err().code, Ecode::Invalid);
    assert_eq!(appended_len(usize::MAX, 1).unwrap_err().code, Ecode::Invalid);
}

#[test]
fn a_write_that_would_hold_a_value_larger_than_the_largest_is_refused_and_changes_nothing() {
    let (_d, path) = tmp();
    let c = writer(&path);
    c.put(b"k", b"0123456789", PutMode::Over).unwrap();
    let (rnum, fsiz) = (c.rnum().unwrap(), c.fsiz().unwrap());
    // Zeroed allocations are not touched: refusing them costs no memory.
    let past_by_one = vec![0u8; MAX_VALUE_LEN - 9];
    let e = c.put(b"k", &past_by_one, PutMode::Cat).unwrap_err();
    assert_eq!(e.code, Ecode::Invalid, "{e}");
    let too_large = vec![0u8; MAX_VALUE_LEN + 1];
    for mode in [PutMode::Over, PutMode::Keep, PutMode::Cat, PutMode::Dup] {
        assert_eq!(code(c.put(b"other", &too_large, mode)), Ecode::Invalid, "{mode:?}");
    }
    assert_eq!(code(c.put_list(b"k", [&b"small"[..], &too_large])), Ecode::Invalid);
    let head = c.cursor_first().unwrap();
    for mode in [CursorPut::Current, CursorPut::Before, CursorPut::After] {
        assert_eq!(code(c.cursor_put(&head, &too_large, mode)), Ecode::Invalid, "{mode:?}");
    }
    c.tranbegin().unwrap();
    assert_eq!(code(c.put(b"k", &past_by_one, PutMode::Cat)), Ecode::Invalid);
    c.trancommit().unwrap();
    assert_eq!(c.get_list(b"k").unwrap(), vec![b"0123456789".to_vec()]);
    assert_eq!(code(c.get(b"other")), Ecode::NoRec);
    assert_eq!((c.rnum().unwrap(), c.fsiz().unwrap()), (rnum, fsiz));
}

/// A caller's order that can be told to fail, the way a Java comparator that calls a database
/// from inside `compare` does: it still answers (bytewise), and reports the failure.
fn failing_order(fail: Arc<AtomicBool>) -> KeyOrder {
    KeyOrder::External {
        name: "failing".into(),
        compare: Arc::new(move |a: &[u8], b: &[u8]| {
            if fail.load(AtomicOrdering::SeqCst) {
                report_comparison_failure("the test's comparator was told to fail");
            }
            a.cmp(b)
        }),
    }
}

#[test]
fn a_call_whose_comparator_fails_before_it_writes_fails_and_writes_nothing() {
    let (_d, path) = tmp();
    let fail = Arc::new(AtomicBool::new(false));
    let c = writer_with(&path, failing_order(fail.clone()));
    c.put(b"a", b"1", PutMode::Dup).unwrap();
    c.put(b"c", b"3", PutMode::Dup).unwrap();
    let (rnum, fsiz) = (c.rnum().unwrap(), c.fsiz().unwrap());
    fail.store(true, AtomicOrdering::SeqCst);
    let failed = |e: rockcask_core::casket::CasketError| {
        assert_eq!(e.code, Ecode::Invalid);
        assert!(
            e.detail.contains("the test's comparator was told to fail"),
            "{}",
            e.detail
        );
    };
    failed(c.call(|c| c.put(b"b", b"2", PutMode::Over)).unwrap_err());
    failed(c.call(|c| c.put(b"b", b"2", PutMode::Dup)).unwrap_err());
    failed(c.call(|c| c.put_list(b"b", [&b"2"[..]])).unwrap_err());
    failed(c.call(|c| c.put(b"a", b"x", PutMode::Cat)).unwrap_err());
    failed(c.call(|c| c.out(b"a")).unwrap_err());
    failed(c.call(|c| c.get(b"a")).unwrap_err());
    failed(
        c.call(|c| {
            c.range(&Range {
                begin: None,
                begin_inclusive: true,
                end: None,
                end_inclusive: true,
                max: -1,
            })
        })
        .unwrap_err(),
    );
    c.tranbegin().unwrap();
    failed(c.call(|c| c.put(b"b", b"2", PutMode::Dup)).unwrap_err());
    c.trancommit().unwrap();
    fail.store(false, AtomicOrdering::SeqCst);
    // Nothing was written, and the casket works on.
    assert_eq!((c.rnum().unwrap(), c.fsiz().unwrap()), (rnum, fsiz));
    assert_eq!(c.call(|c| c.get_list(b"a")).unwrap(), vec![b"1".to_vec()]);
    assert_eq!(code(c.call(|c| c.get(b"b"))), Ecode::NoRec);
    c.call(|c| c.put(b"b", b"2", PutMode::Dup)).unwrap();
    assert_eq!(
        c.range(&Range {
            begin: None,
            begin_inclusive: true,
            end: None,
            end_inclusive: true,
            max: -1
        })
        .unwrap()
        .len(),
        3
    );
}
