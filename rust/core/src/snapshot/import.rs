//! Importing a store snapshot: read and checked (`read.rs`) into sorted table files, which are
//! handed to a new store only once the whole file has checked out; the store is built under a
//! temporary name beside its destination and moved there only when complete.

use std::path::{Path, PathBuf};

use rocksdb::{IngestExternalFileOptions, Options, SstFileWriter, WriteBatch, WriteOptions};

use super::read::{read_snapshot, wrong_content, Target};
use super::record_order::{Op, RecordOrder};
use super::temp_files::TempDir;
use super::{Content, Header, ImportOptions, Progress, Summary, Throttle};
use crate::error::{Result, RocksContext};
use crate::keys::{self, CF_ENTRIES, CF_MAPS, CF_META, CF_OBJECTS, CF_REFS};
use crate::options::StoreOptions;
use crate::store::{self, Store};

/// Table files are cut at this size or this many keys, so what a table writer keeps in memory
/// until it finishes a file (its index, and the hashes of every key for the file's filter:
/// 8 bytes a key) stays bounded whatever the size of the store.
const TABLE_FILE_BYTES: u64 = 256 << 20;
const TABLE_FILE_KEYS: u64 = 1 << 19;

/// Creates a store in `dir` (which must not exist or be empty) from the snapshot in `file`.
/// Records go to sorted table files in a scratch directory; only once the whole file has
/// checked out is the store created (in a hidden directory beside `dir`), the files loaded into
/// it, and the directory renamed to `dir`. A damaged file never gets as far as a store.
pub fn import_store(
    file: &Path,
    dir: &Path,
    options: &ImportOptions,
    listener: &mut dyn FnMut(&Progress) -> Result<()>,
) -> Result<Summary> {
    let temp = TempDir::create(dir)?;
    let scratch = TempDir::scratch(dir)?;
    let store_options = StoreOptions {
        create_if_missing: true,
        read_only: false,
        ..options.store.clone()
    };
    let mut progress = Throttle::new(listener);
    let (summary, tables, definitions) =
        read_into_tables(file, &scratch.path, options.workers, &store_options, &mut progress)?;
    // Opened only to take the files in: loading them reads their index and filter blocks into
    // the block cache, so a small one keeps that from growing with the number of files.
    // No map cache: the loading store writes its maps behind the commit path's back.
    let loading = StoreOptions {
        block_cache_bytes: store_options.block_cache_bytes.min(8 << 20),
        map_cache_bytes: 0,
        ..store_options
    };
    let store = Store::open(&temp.path, loading)?;
    let loaded = load_tables(&store, tables, &definitions);
    let closed = store.close();
    drop(store);
    loaded?;
    closed?;
    // The last report goes out before the store takes its place: a listener that fails on it
    // still leaves nothing behind.
    progress.done(summary.done_progress())?;
    temp.install(dir)?;
    Ok(summary)
}

/// Reads and checks the whole snapshot into sorted table files in `scratch`; returns the files
/// of each column family and the queue names (by index).
fn read_into_tables(
    file: &Path,
    scratch: &Path,
    workers: usize,
    store_options: &StoreOptions,
    progress: &mut Throttle<'_>,
) -> Result<(Summary, Tables, Definitions)> {
    let table_options: Vec<(&'static str, Options)> = [CF_ENTRIES, CF_OBJECTS, CF_REFS, CF_MAPS]
        .iter()
        .map(|&cf| {
            let mut o = store::tuning::cf_options(cf, store_options, None);
            // Written once, in the calling thread, which is what limits an import: compressing
            // here would cost more than it saves (payloads are compressed by the store's policy
            // already, when it asks for it); RocksDB compresses these files when it compacts them.
            o.set_compression_type(rocksdb::DBCompressionType::None);
            o.set_bottommost_compression_type(rocksdb::DBCompressionType::None);
            // Hand the files to the device as they are written, not all at their final sync.
            o.set_bytes_per_sync(8 << 20);
            (cf, o)
        })
        .collect();
    let mut tables: Vec<TableFiles<'_>> = table_options
        .iter()
        .map(|(cf, o)| TableFiles::new(scratch, cf, o))
        .collect();
    let mut order = RecordOrder::default();
    let policy = store_options.compression;
    let on_header = |_: &Header, content: Content| match content {
        Content::Store => Ok(Target::Store(Some(policy))),
        other => Err(wrong_content(file, other, Content::Store)),
    };
    let summary = read_snapshot(file, workers, progress, on_header, |ops| {
        for op in &ops.ops {
            order.check(op).map_err(|detail| ops.error(detail))?;
            let (table, key, value): (usize, &[u8], &[u8]) = match op {
                Op::Queue { .. } | Op::KeyValues { .. } | Op::Map { .. } => continue,
                // Imported maps get their index as id, so their pairs' keys are in order.
                Op::MapEntry { key, value, .. } => (3, key, &ops.values[value.clone()]),
                Op::Entry { key, value, .. } => (0, key, value),
                Op::Object { key, value, refs } => {
                    if let Some(refs) = refs {
                        tables[2].put(key, &refs.to_le_bytes())?;
                    }
                    (1, key, &ops.values[value.clone()])
                }
            };
            tables[table].put(key, value)?;
        }
        Ok(())
    })?;
    let files = tables
        .iter_mut()
        .map(|t| Ok((t.cf, t.finish()?)))
        .collect::<Result<_>>()?;
    Ok((
        summary,
        files,
        Definitions {
            queues: order.queues,
            maps: order.maps,
        },
    ))
}

/// The table files written for each column family.
type Tables = Vec<(&'static str, Vec<PathBuf>)>;

/// The queue and map names of a snapshot, by index.
struct Definitions {
    queues: Vec<String>,
    maps: Vec<String>,
}

/// Moves the table files into the new store and writes its queue and map definitions (synced).
fn load_tables(store: &Store, tables: Tables, definitions: &Definitions) -> Result<()> {
    let db = store.shared.db()?;
    for (cf, files) in tables {
        if !files.is_empty() {
            let mut ingest = IngestExternalFileOptions::default();
            ingest.set_move_files(true);
            db.db()
                .ingest_external_file_cf_opts(db.cf(cf), &ingest, files)
                .context(|| format!("loading imported {cf} into {}", store.path().display()))?;
        }
    }
    let mut batch = WriteBatch::default();
    for (index, name) in definitions.queues.iter().enumerate() {
        batch.put_cf(db.cf(CF_META), keys::meta_queue_key(name), (index as u32).to_le_bytes());
    }
    for (index, name) in definitions.maps.iter().enumerate() {
        batch.put_cf(
            db.cf(CF_META),
            crate::maps::meta_map_key(name),
            (index as u32).to_le_bytes(),
        );
    }
    let mut sync = WriteOptions::default();
    sync.set_sync(true);
    db.db()
        .write_opt(batch, &sync)
        .context(|| format!("writing queue definitions into {}", store.path().display()))
}

/// Sorted table files of one column family, cut every `TABLE_FILE_BYTES`.
struct TableFiles<'o> {
    dir: PathBuf,
    cf: &'static str,
    options: &'o Options,
    writer: Option<SstFileWriter<'o>>,
    keys_in_file: u64,
    files: Vec<PathBuf>,
}

impl<'o> TableFiles<'o> {
    fn new(dir: &Path, cf: &'static str, options: &'o Options) -> Self {
        TableFiles {
            dir: dir.to_path_buf(),
            cf,
            options,
            writer: None,
            keys_in_file: 0,
            files: Vec::new(),
        }
    }

    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        if self.writer.is_none() {
            let path = self.dir.join(format!("{}-{}.sst", self.cf, self.files.len()));
            let writer = SstFileWriter::create(self.options);
            writer.open(&path).context(|| format!("creating {}", path.display()))?;
            self.files.push(path);
            self.writer = Some(writer);
        }
        let writer = self.writer.as_mut().expect("opened above");
        writer
            .put(key, value)
            .context(|| format!("writing imported {}", self.cf))?;
        self.keys_in_file += 1;
        if writer.file_size() >= TABLE_FILE_BYTES || self.keys_in_file >= TABLE_FILE_KEYS {
            self.close_file()?;
        }
        Ok(())
    }

    fn close_file(&mut self) -> Result<()> {
        self.keys_in_file = 0;
        if let Some(mut writer) = self.writer.take() {
            writer
                .finish()
                .context(|| format!("finishing a table file of imported {}", self.cf))?;
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<Vec<PathBuf>> {
        self.close_file()?;
        Ok(std::mem::take(&mut self.files))
    }
}
