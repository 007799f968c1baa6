//! Opening a store: its directory prepared and locked, its files checked before RocksDB may
//! touch them (`location.rs`), RocksDB opened with the store's tuning (`tuning.rs`), its queues
//! and maps recovered (`recovery.rs`), and what the last process left unfinished settled before
//! the first call.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rocksdb::{Cache, ColumnFamilyDescriptor, DB};

use super::location::{
    check_format_marker, check_location, damaged_store, families_to_open, manifest_of, open_error,
    open_read_only_beside_a_writer, prepare_directory, probe_read_only,
};
use super::recovery::recover_queues;
use super::tuning::{cf_options, db_options};
use super::Store;
use crate::batch;
use crate::error::{Result, RocksContext};
use crate::keys::{self, CF_META};
use crate::lock::{StoreLock, LOCK_FILE};
use crate::manifest_record;
use crate::options::StoreOptions;
use crate::queue::Queues;
use crate::registry::Registry;
use crate::shared::{DbRef, OpenDb, Shared};

impl Store {
    pub fn open(path: impl AsRef<Path>, options: StoreOptions) -> Result<Store> {
        let path = path.as_ref().to_path_buf();
        options.validate()?;
        let may_create = options.create_if_missing && !options.read_only;
        let created_dir = prepare_directory(&path, may_create)?;
        // A writer locks before anything is read, so two opens racing to create one store
        // cannot both decide to create it, and holds the lock until RocksDB has closed
        // (`lock.rs`). Read-only opens write nothing and take no lock.
        let lock = if options.read_only {
            None
        } else {
            match StoreLock::acquire(&path, &path) {
                Ok(lock) => Some(lock),
                Err(e) => {
                    if created_dir {
                        let _ = std::fs::remove_dir(&path);
                    }
                    return Err(e);
                }
            }
        };
        let created_lock = lock.as_ref().is_some_and(|l| l.created);
        match Self::open_locked(path.clone(), options, lock) {
            Ok(store) => Ok(store),
            Err(e) => {
                // Leave the location as it was found: no stray lock file, no empty directory.
                if created_dir {
                    let _ = std::fs::remove_dir_all(&path);
                } else if created_lock {
                    let _ = std::fs::remove_file(path.join(LOCK_FILE));
                }
                Err(e)
            }
        }
    }

    fn open_locked(path: PathBuf, options: StoreOptions, lock: Option<StoreLock>) -> Result<Store> {
        let creating = check_location(&path, &options)?;
        let cache = (options.block_cache_bytes > 0).then(|| Cache::new_lru_cache(options.block_cache_bytes));
        let db_opts = db_options(&options, creating);
        if !creating {
            if let Some(why) = manifest_record::shortened(&path) {
                return Err(damaged_store(
                    &path,
                    rocksdb::ErrorKind::Corruption,
                    format!("checking {}", manifest_of(&path)),
                    why,
                ));
            }
            if !options.read_only {
                probe_read_only(&path, &db_opts, &options)?;
            }
        }
        let families = families_to_open(&path, creating, options.read_only)?;
        let cfs = families
            .iter()
            .map(|name| ColumnFamilyDescriptor::new(*name, cf_options(name, &options, cache.as_ref())));
        let db = if options.read_only {
            open_read_only_beside_a_writer(&path, || {
                DB::open_cf_descriptors_read_only(&db_opts, &path, cfs.clone(), false)
            })?
        } else {
            DB::open_cf_descriptors(&db_opts, &path, cfs).map_err(|e| open_error(&path, e))?
        };
        if creating {
            let meta = db.cf_handle(CF_META).expect("just created");
            db.put_cf(meta, keys::META_FORMAT_KEY, keys::META_FORMAT_VALUE)
                .context(|| format!("writing the format marker of {}", path.display()))?;
            db.flush_wal(true)
                .context(|| format!("syncing the new store at {}", path.display()))?;
        } else {
            check_format_marker(&db, &path)?;
        }
        let cf_ids = batch::verify_format(&db)?;
        let (queues, stale_records) = recover_queues(&db, options.max_deliveries, options.queue_cache_bytes)?;
        if !options.read_only && !stale_records.is_empty() {
            let mut batch = rocksdb::WriteBatch::default();
            for (queue, record) in stale_records {
                batch.delete_cf(
                    db.cf_handle(CF_META).expect("opened with all column families"),
                    keys::meta_deliveries_key(queue, record),
                );
            }
            db.write(batch)
                .context(|| format!("deleting stale delivery records of {}", path.display()))?;
        }
        let map_names = Registry::recover(&db, crate::maps::meta_map_prefix(), "maps", "id")?;
        let store = Store {
            shared: Arc::new(Shared::new(
                path,
                options,
                OpenDb {
                    db,
                    cf_ids,
                    cache,
                    lock,
                },
                queues,
                map_names,
            )),
        };
        if !store.shared.options().read_only {
            // Entries whose last delivery ended with the process (a crash while they were
            // claimed) and that reached their queue's limit go to the dead-letter queue now,
            // before any consumer can receive them again. If that write fails (a full disk),
            // the store still opens: it then refuses writes naming the cause, and those entries
            // are moved by the first rollback that finds them, or at the next open.
            let _ = crate::transaction::dead_letters::dead_letter_over_limit(&store.shared);
            let db = store.shared.db()?;
            count_queue_bytes(&db, &mut store.shared.queues())?;
            manifest_record::remember(store.path());
        }
        Ok(store)
    }
}

/// Starts counting the payload bytes of every queue with a byte capacity that is not counted
/// yet: reads each of its present entries once. The caller holds the queues lock (and, once
/// the store is in use, the commit lock), so no entry comes or goes meanwhile.
pub(super) fn count_queue_bytes(db: &DbRef<'_>, queues: &mut Queues) -> Result<()> {
    for q in queues.states_mut().filter(|q| q.needs_byte_count()) {
        let present = q.present_entries();
        let read = crate::entry_records::read_entries(db, q.id(), &present)?;
        q.note_blocks(read.blocks);
        let entries: Vec<keys::Entry> = read.entries.into_iter().flatten().collect();
        let bytes = crate::object_reads::counted_bytes(db, &entries)?.into_iter().sum();
        q.start_counting_bytes(bytes);
    }
    Ok(())
}
