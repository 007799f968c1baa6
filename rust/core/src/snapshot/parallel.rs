//! Work spread over threads, results taken in the order the work was handed out: exports and
//! imports are parallel, yet their output is the same as with one worker.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Mutex;

use crate::error::Error;
use crate::options::MAX_WORKERS;

/// Why a run's workers could not be had. The run stops and reports it: it never makes more
/// than `MAX_WORKERS` threads and never aborts the process when one cannot be started.
#[derive(Debug)]
pub enum WorkerError {
    /// More workers asked for than `MAX_WORKERS`.
    TooMany { wanted: usize },
    /// The process is out of threads or memory.
    SpawnFailed {
        started: usize,
        wanted: usize,
        source: std::io::Error,
    },
}

impl std::fmt::Display for WorkerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WorkerError::TooMany { wanted } => write!(f, "workers must be 1 to {MAX_WORKERS}, got {wanted}"),
            WorkerError::SpawnFailed {
                started,
                wanted,
                source,
            } => {
                write!(
                    f,
                    "could not start worker thread {} of {wanted}: {source} (ask for fewer workers)",
                    started + 1
                )
            }
        }
    }
}

impl From<WorkerError> for Error {
    fn from(e: WorkerError) -> Self {
        match e {
            WorkerError::TooMany { .. } => Error::InvalidArgument(e.to_string()),
            WorkerError::SpawnFailed {
                started,
                wanted,
                source,
            } => Error::Io {
                context: format!(
                    "could not start worker thread {} of {wanted} (ask for fewer workers)",
                    started + 1
                ),
                source,
            },
        }
    }
}

impl From<WorkerError> for String {
    fn from(e: WorkerError) -> Self {
        e.to_string()
    }
}

/// Runs `work` on up to `workers` threads (at most `MAX_WORKERS`) over the items `next` yields
/// (in the calling thread) and hands the results to `sink` (in the calling thread) in the order
/// of the items. At most two items per worker are in flight, so memory does not grow with the
/// input. A thread that cannot be started stops the run with `WorkerError::SpawnFailed`.
///
/// Stops at the first error in the order of the items, whatever the number of workers and
/// however they are scheduled: an error from `work` or `sink` on an item, or from the `next`
/// call that would have yielded it. When `next` fails, the items it yielded before are still
/// worked and sunk, and an error among them wins (a snapshot reader reports the damaged frame,
/// not a later frame its damage made unreadable).
pub fn ordered_map<I, O, E>(
    workers: usize,
    next: impl FnMut() -> Result<Option<I>, E>,
    work: impl Fn(I) -> Result<O, E> + Sync,
    sink: impl FnMut(O) -> Result<(), E>,
) -> Result<(), E>
where
    I: Send,
    O: Send,
    E: Send + From<WorkerError>,
{
    ordered_map_with_stack(workers, None, next, work, sink)
}

/// `ordered_map` with a chosen worker stack size (the tests make thread creation fail with it).
fn ordered_map_with_stack<I, O, E>(
    workers: usize,
    stack_bytes: Option<usize>,
    mut next: impl FnMut() -> Result<Option<I>, E>,
    work: impl Fn(I) -> Result<O, E> + Sync,
    mut sink: impl FnMut(O) -> Result<(), E>,
) -> Result<(), E>
where
    I: Send,
    O: Send,
    E: Send + From<WorkerError>,
{
    if workers > MAX_WORKERS {
        return Err(E::from(WorkerError::TooMany { wanted: workers }));
    }
    let workers = workers.max(1);
    let max_in_flight = (2 * workers) as u64;
    let cancelled = AtomicBool::new(false);
    let (job_tx, job_rx) = mpsc::sync_channel::<(u64, I)>(max_in_flight as usize);
    let job_rx = Mutex::new(job_rx);
    // A worker's panic travels to the calling thread as a result and is resumed there, once
    // the other workers have stopped, so no one waits for a result that will never come.
    let (done_tx, done_rx) = mpsc::channel::<(u64, std::thread::Result<Result<O, E>>)>();
    let outcome = std::thread::scope(|scope| {
        for started in 0..workers {
            let (job_rx, done_tx, work, cancelled) = (&job_rx, done_tx.clone(), &work, &cancelled);
            let mut builder = std::thread::Builder::new().name(format!("rockcask-worker-{started}"));
            if let Some(bytes) = stack_bytes {
                builder = builder.stack_size(bytes);
            }
            let spawned = builder.spawn_scoped(scope, move || loop {
                let job = job_rx.lock().unwrap_or_else(|p| p.into_inner()).recv();
                let Ok((seq, item)) = job else { return };
                if cancelled.load(Ordering::Relaxed) {
                    continue;
                }
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(item)));
                if done_tx.send((seq, result)).is_err() {
                    return;
                }
            });
            if let Err(source) = spawned {
                // The workers already started see the job queue close and return.
                drop(job_tx);
                return Err(Stop::Failed(E::from(WorkerError::SpawnFailed {
                    started,
                    wanted: workers,
                    source,
                })));
            }
        }
        drop(done_tx);
        let outcome = (|| -> Result<(), Stop<E>> {
            let (mut sent, mut taken, mut exhausted) = (0u64, 0u64, false);
            // An error from `next`, returned once the items before it are done.
            let mut next_failed = None;
            let mut waiting: BTreeMap<u64, Result<O, E>> = BTreeMap::new();
            loop {
                while !exhausted && sent - taken < max_in_flight {
                    match next() {
                        Ok(Some(item)) => {
                            job_tx.send((sent, item)).expect("workers outlive the job queue");
                            sent += 1;
                        }
                        Ok(None) => exhausted = true,
                        Err(e) => {
                            next_failed = Some(e);
                            exhausted = true;
                        }
                    }
                }
                if exhausted && taken == sent {
                    return next_failed.map_or(Ok(()), |e| Err(Stop::Failed(e)));
                }
                let (seq, result) = done_rx.recv().expect("workers send a result for every job");
                waiting.insert(seq, result.map_err(Stop::Panicked)?);
                while let Some(result) = waiting.remove(&taken) {
                    taken += 1;
                    sink(result.map_err(Stop::Failed)?).map_err(Stop::Failed)?;
                }
            }
        })();
        if outcome.is_err() {
            cancelled.store(true, Ordering::Relaxed);
        }
        drop(job_tx);
        outcome
    });
    match outcome {
        Ok(()) => Ok(()),
        Err(Stop::Failed(e)) => Err(e),
        Err(Stop::Panicked(panic)) => std::panic::resume_unwind(panic),
    }
}

enum Stop<E> {
    Failed(E),
    Panicked(Box<dyn std::any::Any + Send>),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(workers: usize, n: u64, fail_at: Option<u64>) -> Result<Vec<u64>, String> {
        let mut i = 0;
        let mut out = Vec::new();
        ordered_map(
            workers,
            || {
                i += 1;
                Ok((i <= n).then_some(i))
            },
            |x| {
                // Uneven work, so results arrive out of order.
                std::thread::sleep(std::time::Duration::from_micros((x * 7919) % 300));
                if Some(x) == fail_at {
                    Err(format!("failed at {x}"))
                } else {
                    Ok(x * x)
                }
            },
            |y| {
                out.push(y);
                Ok(())
            },
        )?;
        Ok(out)
    }

    #[test]
    fn results_come_in_input_order_whatever_the_worker_count() {
        let one = run(1, 500, None).unwrap();
        assert_eq!(one, (1..=500).map(|x| x * x).collect::<Vec<_>>());
        assert_eq!(run(4, 500, None).unwrap(), one);
        assert_eq!(run(3, 0, None).unwrap(), Vec::<u64>::new());
    }

    #[test]
    fn the_first_failure_stops_the_run_and_is_returned() {
        assert_eq!(run(4, 500, Some(123)).unwrap_err(), "failed at 123");
    }

    #[test]
    fn an_item_failing_in_a_worker_wins_over_a_later_failure_to_read_the_next_items() {
        for workers in [1, 2, 4] {
            let mut i = 0;
            let mut sunk = Vec::new();
            let result = ordered_map(
                workers,
                || {
                    i += 1;
                    if i == 5 {
                        Err(format!("next failed at {i}"))
                    } else {
                        Ok(Some(i))
                    }
                },
                // Item 3 fails, after the reading thread has gone on to fail at item 5.
                |x| if x == 3 { Err(format!("failed at {x}")) } else { Ok(x) },
                |y| {
                    sunk.push(y);
                    Ok(())
                },
            );
            assert_eq!(result.unwrap_err(), "failed at 3", "{workers} workers");
            assert_eq!(sunk, [1, 2], "{workers} workers");
        }
    }

    #[test]
    fn when_reading_fails_the_items_read_before_are_still_worked_and_sunk() {
        let mut i = 0;
        let mut sunk = Vec::new();
        let result = ordered_map(
            3,
            || {
                i += 1;
                if i == 5 {
                    Err("next failed".to_string())
                } else {
                    Ok(Some(i))
                }
            },
            Ok,
            |y| {
                sunk.push(y);
                if y == 4 {
                    Err(format!("sink failed at {y}"))
                } else {
                    Ok(())
                }
            },
        );
        assert_eq!(result.unwrap_err(), "sink failed at 4");
        assert_eq!(sunk, [1, 2, 3, 4]);
    }

    #[test]
    fn a_panicking_worker_panics_the_caller_instead_of_hanging_it() {
        let caught = std::panic::catch_unwind(|| {
            let mut i = 0;
            ordered_map(
                2,
                || {
                    i += 1;
                    Ok::<_, String>((i <= 100).then_some(i))
                },
                |x| if x == 50 { panic!("worker bug") } else { Ok(x) },
                |_| Ok(()),
            )
        });
        assert!(caught.is_err());
    }

    #[test]
    fn a_thread_that_cannot_be_started_is_an_error_not_an_abort() {
        // 64 TiB of stack per thread: no machine can map that, so thread creation fails.
        let mut i = 0;
        let result: Result<(), String> = ordered_map_with_stack(
            3,
            Some(1 << 46),
            || {
                i += 1;
                Ok((i <= 10).then_some(i))
            },
            Ok,
            |_| Ok(()),
        );
        let err = result.unwrap_err();
        assert!(err.contains("could not start worker thread 1 of 3"), "{err}");
    }

    #[test]
    fn more_workers_than_the_limit_are_refused_before_any_thread_starts() {
        let mut asked = false;
        let result: Result<(), String> = ordered_map(
            MAX_WORKERS + 1,
            || {
                asked = true;
                Ok(None::<u64>)
            },
            Ok,
            |_| Ok(()),
        );
        assert_eq!(
            result.unwrap_err(),
            format!("workers must be 1 to {MAX_WORKERS}, got {}", MAX_WORKERS + 1)
        );
        assert!(!asked);
        assert!(run(MAX_WORKERS, 100, None).is_ok());
    }
}
