//! Map keys held for update (`Transaction::map_get_for_update`): a transaction that takes a key
//! holds it until it ends, and every other transaction that asks for the same key waits its
//! turn, first come first served. A read-modify-write of a hot key then makes progress in
//! bounded time: where optimistic retries can fail again and again, each waiter here is served
//! once those ahead of it are done.
//!
//! Two transactions can each wait for a key the other holds. Such a cycle is looked for before
//! a transaction starts waiting, and the transaction that would close it is refused at once
//! (`Refusal::Deadlock`); a wait that lasts longer than allowed is refused too
//! (`Refusal::TimedOut`). Either way the transaction is to end, releasing what it holds.
//!
//! One mutex guards the whole table: only these calls take it, and they are rare next to reads
//! and commits.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

/// Who holds or waits for keys: one id per transaction that asked for one.
pub(crate) type Holder = u64;

/// Why a key was not taken.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Waiting would close a cycle of transactions each waiting for the next.
    Deadlock,
    /// The key was still held by another transaction when the wait allowed had passed.
    TimedOut(Duration),
}

struct KeyLock {
    holder: Holder,
    /// Who waits for it, in order of arrival.
    queue: VecDeque<Holder>,
}

#[derive(Default)]
struct Table {
    keys: HashMap<Vec<u8>, KeyLock>,
    /// The key each waiting holder waits for.
    waiting_for: HashMap<Holder, Vec<u8>>,
}

impl Table {
    /// Whether `holder` waiting for `key` would wait, through the chain of holders each waiting
    /// for a key the next one holds, for itself.
    fn would_deadlock(&self, holder: Holder, key: &[u8]) -> bool {
        let mut next = self.keys.get(key).map(|k| k.holder);
        // Each holder waits for one key at most, so the chain is at most as long as the table.
        for _ in 0..=self.waiting_for.len() {
            match next {
                Some(h) if h == holder => return true,
                Some(h) => {
                    next = self
                        .waiting_for
                        .get(&h)
                        .and_then(|k| self.keys.get(k))
                        .map(|k| k.holder)
                }
                None => return false,
            }
        }
        false
    }

    /// Gives `key` to the next waiter in line, or frees it.
    fn hand_on(&mut self, key: &[u8]) {
        let Some(lock) = self.keys.get_mut(key) else { return };
        match lock.queue.pop_front() {
            Some(next) => {
                lock.holder = next;
                self.waiting_for.remove(&next);
            }
            None => {
                self.keys.remove(key);
            }
        }
    }
}

#[derive(Default)]
pub(crate) struct KeyLocks {
    table: Mutex<Table>,
    /// Notified whenever a key changes hands.
    handed_on: Condvar,
    next_holder: AtomicU64,
}

impl KeyLocks {
    /// A new holder id, for a transaction's first request.
    pub fn new_holder(&self) -> Holder {
        self.next_holder.fetch_add(1, Ordering::Relaxed)
    }

    /// Takes `key` for `holder` (at once when it is free or already `holder`'s), waiting behind
    /// those who asked before for up to `wait`.
    pub fn acquire(&self, holder: Holder, key: &[u8], wait: Duration) -> Result<(), Refusal> {
        let mut t = self.table.lock();
        match t.keys.get_mut(key) {
            None => {
                t.keys.insert(
                    key.to_vec(),
                    KeyLock {
                        holder,
                        queue: VecDeque::new(),
                    },
                );
                return Ok(());
            }
            Some(lock) if lock.holder == holder => return Ok(()),
            Some(_) => {}
        }
        if t.would_deadlock(holder, key) {
            return Err(Refusal::Deadlock);
        }
        t.keys.get_mut(key).expect("present").queue.push_back(holder);
        t.waiting_for.insert(holder, key.to_vec());
        let deadline = Instant::now().checked_add(wait);
        loop {
            if t.keys.get(key).is_some_and(|k| k.holder == holder) {
                return Ok(());
            }
            let timed_out = match deadline {
                Some(d) => self.handed_on.wait_until(&mut t, d).timed_out(),
                None => {
                    self.handed_on.wait(&mut t);
                    false
                }
            };
            if timed_out && t.keys.get(key).is_none_or(|k| k.holder != holder) {
                t.waiting_for.remove(&holder);
                if let Some(lock) = t.keys.get_mut(key) {
                    lock.queue.retain(|&h| h != holder);
                }
                return Err(Refusal::TimedOut(wait));
            }
        }
    }

    /// Releases `keys`, held by `holder`: each goes to its next waiter.
    pub fn release(&self, holder: Holder, keys: &[Vec<u8>]) {
        if keys.is_empty() {
            return;
        }
        let mut t = self.table.lock();
        for key in keys {
            if t.keys.get(key).is_some_and(|k| k.holder == holder) {
                t.hand_on(key);
            }
        }
        drop(t);
        self.handed_on.notify_all();
    }

    /// Keys held or waited for.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.table.lock().keys.len()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    const LONG: Duration = Duration::from_secs(10);

    #[test]
    fn a_free_key_is_taken_at_once_and_again_by_its_holder() {
        let locks = KeyLocks::default();
        let a = locks.new_holder();
        assert_eq!(locks.acquire(a, b"k", Duration::ZERO), Ok(()));
        assert_eq!(locks.acquire(a, b"k", Duration::ZERO), Ok(()));
        let b = locks.new_holder();
        assert_eq!(
            locks.acquire(b, b"k", Duration::ZERO),
            Err(Refusal::TimedOut(Duration::ZERO))
        );
        locks.release(a, &[b"k".to_vec()]);
        assert_eq!(locks.len(), 0, "freed, with no one waiting");
        assert_eq!(locks.acquire(b, b"k", Duration::ZERO), Ok(()));
    }

    #[test]
    fn waiters_are_served_in_order_of_arrival() {
        let locks = Arc::new(KeyLocks::default());
        let first = locks.new_holder();
        locks.acquire(first, b"hot", LONG).unwrap();
        let served = Arc::new(Mutex::new(Vec::new()));
        let mut threads = Vec::new();
        for i in 0..4 {
            let (mine, served) = (locks.clone(), served.clone());
            let h = locks.new_holder();
            threads.push(std::thread::spawn(move || {
                mine.acquire(h, b"hot", LONG).unwrap();
                served.lock().push(i);
                mine.release(h, &[b"hot".to_vec()]);
            }));
            // Each queued before the next one asks.
            while locks.table.lock().keys[b"hot".as_slice()].queue.len() < i + 1 {
                std::thread::yield_now();
            }
        }
        locks.release(first, &[b"hot".to_vec()]);
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(*served.lock(), vec![0, 1, 2, 3]);
        assert_eq!(locks.len(), 0);
    }

    #[test]
    fn a_wait_that_would_close_a_cycle_is_refused_at_once() {
        let locks = Arc::new(KeyLocks::default());
        let (a, b) = (locks.new_holder(), locks.new_holder());
        locks.acquire(a, b"x", LONG).unwrap();
        locks.acquire(b, b"y", LONG).unwrap();
        let waiter = {
            let locks = locks.clone();
            std::thread::spawn(move || locks.acquire(a, b"y", LONG))
        };
        while !locks.table.lock().waiting_for.contains_key(&a) {
            std::thread::yield_now();
        }
        let started = Instant::now();
        assert_eq!(locks.acquire(b, b"x", LONG), Err(Refusal::Deadlock));
        assert!(started.elapsed() < Duration::from_secs(1), "refused without waiting");
        locks.release(b, &[b"y".to_vec()]);
        assert_eq!(waiter.join().unwrap(), Ok(()), "the other one goes on");
    }

    #[test]
    fn a_waiter_that_gives_up_leaves_the_line_and_the_next_is_served() {
        let locks = Arc::new(KeyLocks::default());
        let (a, b, c) = (locks.new_holder(), locks.new_holder(), locks.new_holder());
        locks.acquire(a, b"k", LONG).unwrap();
        assert_eq!(
            locks.acquire(b, b"k", Duration::from_millis(20)),
            Err(Refusal::TimedOut(Duration::from_millis(20)))
        );
        let waiter = {
            let locks = locks.clone();
            std::thread::spawn(move || locks.acquire(c, b"k", LONG))
        };
        while !locks.table.lock().waiting_for.contains_key(&c) {
            std::thread::yield_now();
        }
        locks.release(a, &[b"k".to_vec()]);
        assert_eq!(waiter.join().unwrap(), Ok(()));
        assert_eq!(locks.table.lock().keys[b"k".as_slice()].holder, c);
        assert!(locks.table.lock().waiting_for.is_empty());
    }

    #[test]
    fn a_release_by_someone_else_frees_nothing() {
        let locks = KeyLocks::default();
        let (a, b) = (locks.new_holder(), locks.new_holder());
        locks.acquire(a, b"k", LONG).unwrap();
        locks.release(b, &[b"k".to_vec()]);
        assert_eq!(locks.table.lock().keys[b"k".as_slice()].holder, a);
    }
}
