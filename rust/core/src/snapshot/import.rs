//! Reading a snapshot back: the calling thread reads frames (every length checked before it is
//! allocated), workers check each frame's CRC, decompress and decode its records, and the
//! calling thread applies them in file order, checking that they come in the order an export
//! writes them. An import writes sorted table files and hands them to RocksDB at the end, once
//! the trailer's counts and the whole-file checksum have been checked; on any error the new
//! store is removed.

use std::cell::OnceCell;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use prost::Message;
use rocksdb::{IngestExternalFileOptions, Options, SstFileWriter, WriteBatch, WriteOptions};
use uuid::Uuid;

use super::export::{add_counts, count};
use super::format::{FormatError, FrameReader, RawFrame, FRAME_TRAILER};
use super::parallel::ordered_map;
use super::casket::casket_error;
use super::{snapshot_error, Content, Counts, Header, ImportOptions, Progress, Summary, Throttle};
use crate::casket::{Casket, CasketOptions};
use crate::codec::snapshot_pb::{self as pb, record::Kind};
use crate::compress::Policy;
use crate::error::{Error, Result, RocksContext};
use crate::keys::{self, Ownership, CF_ENTRIES, CF_META, CF_OBJECTS, CF_REFS};
use crate::options::{StoreOptions, MAX_PAYLOAD_BYTES};
use crate::store::{self, Store};

/// Table files are cut at this size, so what a table writer keeps in memory (index, filter)
/// stays bounded whatever the size of the store.
const TABLE_FILE_BYTES: u64 = 256 << 20;

/// Reads the whole file, checking everything an import checks, and writes nothing.
pub fn verify(file: &Path, workers: usize, listener: &mut dyn FnMut(&Progress) -> Result<()>) -> Result<Summary> {
    let mut order = RecordOrder::default();
    read_snapshot(file, workers, listener, |_| Ok(()), |frame, records| prepare(frame, records, Target::Verify), |ops| {
        for op in &ops.ops {
            order.check(op).map_err(|detail| ops.error(detail))?;
        }
        Ok(())
    })
}

/// The header of the snapshot in `file` (checked, like everything else a reader reads), to
/// learn what it holds before reading it.
pub fn read_header(file: &Path) -> Result<Header> {
    let input = File::open(file).map_err(Error::io(format!("opening snapshot {}", file.display())))?;
    let len = input.metadata().map_err(Error::io(format!("reading the size of {}", file.display())))?.len();
    let (_, header) = FrameReader::open(BufReader::new(input), Some(len)).map_err(|e| snapshot_error(file, e))?;
    Ok(header)
}

/// Creates a store in `dir` (which must not exist or be empty) from the snapshot in `file`.
pub fn import_store(file: &Path, dir: &Path, options: &ImportOptions, listener: &mut dyn FnMut(&Progress) -> Result<()>) -> Result<Summary> {
    let target = NewDirectory::claim(dir)?;
    let store_options = StoreOptions { create_if_missing: true, read_only: false, ..options.store.clone() };
    let store = Store::open(dir, store_options.clone())?;
    let result = import_into(&store, file, options, &store_options, listener);
    let closed = store.close();
    drop(store);
    let summary = result?;
    closed?;
    target.keep();
    Ok(summary)
}

fn import_into(
    store: &Store,
    file: &Path,
    options: &ImportOptions,
    store_options: &StoreOptions,
    listener: &mut dyn FnMut(&Progress) -> Result<()>,
) -> Result<Summary> {
    let staging = store.path().join("import.tmp");
    std::fs::create_dir(&staging).map_err(Error::io(format!("creating {}", staging.display())))?;
    let table_options: Vec<(&str, Options)> = [CF_ENTRIES, CF_OBJECTS, CF_REFS]
        .iter()
        .map(|&cf| {
            let mut o = store::cf_options(cf, store_options, None);
            // Written once, in the calling thread, which is what limits an import: compressing
            // here would cost more than it saves (payloads are compressed by the store's policy
            // already, when it asks for it); RocksDB compresses these files when it compacts them.
            o.set_compression_type(rocksdb::DBCompressionType::None);
            o.set_bottommost_compression_type(rocksdb::DBCompressionType::None);
            (cf, o)
        })
        .collect();
    let mut tables: Vec<TableFiles<'_>> = table_options.iter().map(|(cf, o)| TableFiles::new(&staging, cf, o)).collect();
    let mut order = RecordOrder::default();
    let policy = store_options.compression;
    let summary = read_snapshot(file, options.workers, listener, |h| expect_content(h, Content::Store), |frame, records| prepare(frame, records, Target::Store(policy)), |ops| {
        for op in &ops.ops {
            order.check(op).map_err(|detail| ops.error(detail))?;
            let (table, key, value): (usize, &[u8], &[u8]) = match op {
                Op::Queue { .. } | Op::KeyValues { .. } => continue,
                Op::Entry { key, value, .. } => (0, key, value),
                Op::Object { key, value, refs } => {
                    if let Some(refs) = refs {
                        tables[2].put(key, &refs.to_le_bytes())?;
                    }
                    (1, key, value)
                }
            };
            tables[table].put(key, value)?;
        }
        Ok(())
    })?;
    let db = store.shared.db()?;
    for table in &mut tables {
        let files = table.finish()?;
        if !files.is_empty() {
            let mut ingest = IngestExternalFileOptions::default();
            ingest.set_move_files(true);
            db.db().ingest_external_file_cf_opts(db.cf(table.cf), &ingest, files).context(|| format!("loading imported {} into {}", table.cf, store.path().display()))?;
        }
    }
    let mut batch = WriteBatch::default();
    for (index, name) in order.queues.iter().enumerate() {
        batch.put_cf(db.cf(CF_META), keys::meta_queue_key(name), (index as u32).to_le_bytes());
    }
    let mut sync = WriteOptions::default();
    sync.set_sync(true);
    db.db().write_opt(batch, &sync).context(|| format!("writing queue definitions into {}", store.path().display()))?;
    drop(db);
    std::fs::remove_dir_all(&staging).map_err(Error::io(format!("removing {}", staging.display())))?;
    Ok(summary)
}

/// A frame's records, prepared for the store by a worker.
struct Prepared {
    frame: u64,
    offset: u64,
    end: u64,
    counts: Counts,
    ops: Vec<Op>,
}

impl Prepared {
    fn error(&self, detail: String) -> Error {
        Error::Snapshot { file: PathBuf::new(), offset: self.offset, frame: Some(self.frame), detail }
    }
}

enum Op {
    Queue { index: u32, name: String },
    Entry { queue: u32, position: u64, key: [u8; 12], value: [u8; 17] },
    Object { key: [u8; 16], value: Vec<u8>, refs: Option<u64> },
    KeyValues { key: Vec<u8>, values: Vec<Vec<u8>> },
}

/// What the records are prepared for.
#[derive(Clone, Copy)]
enum Target {
    /// Checking only: nothing is stored.
    Verify,
    /// A new store, whose payloads are compressed with this policy.
    Store(Policy),
    /// A new casket.
    Casket,
}

/// Checks one frame's records and prepares them for `target`.
fn prepare(frame: &RawFrame, records: Vec<pb::Record>, target: Target) -> std::result::Result<Vec<Op>, FormatError> {
    let mut ops = Vec::with_capacity(records.len());
    for (n, record) in records.into_iter().enumerate() {
        let bad = |detail: String| frame.error(format!("record {n} of the frame: {detail}"));
        if let (Target::Casket, Some(Kind::Queue(_) | Kind::Entry(_) | Kind::Object(_))) = (target, &record.kind) {
            return Err(bad("store records in a casket snapshot".into()));
        }
        let op = match record.kind {
            Some(Kind::Queue(q)) => {
                keys::validate_queue_name(&q.name).map_err(|e| bad(format!("queue {}: {e}", q.index)))?;
                Op::Queue { index: q.index, name: q.name }
            }
            Some(Kind::Entry(e)) => {
                let id = uuid_of(&e.object_id).map_err(|d| bad(format!("entry {} of queue {}: {d}", e.position, e.queue)))?;
                let own = if e.owned { Ownership::Owned } else { Ownership::Reference };
                Op::Entry { queue: e.queue, position: e.position, key: keys::entry_key(e.queue, e.position), value: keys::entry_value(id, own) }
            }
            Some(Kind::Object(o)) => {
                let id = uuid_of(&o.id).map_err(|d| bad(format!("object: {d}")))?;
                if o.payload.len() > MAX_PAYLOAD_BYTES {
                    return Err(bad(format!("object {id}: payload of {} bytes exceeds the limit of {MAX_PAYLOAD_BYTES}", o.payload.len())));
                }
                if o.owned_entries > 1 && !o.owned {
                    return Err(bad(format!("object {id}: {} owned entries counted for an object that is not queue-owned", o.owned_entries)));
                }
                let own = if o.owned { Ownership::Owned } else { Ownership::Reference };
                let value = match target {
                    Target::Store(policy) => {
                        let (codec, body) = policy.compress(&o.payload);
                        let mut v = Vec::with_capacity(body.len() + 1);
                        v.push(keys::object_flag(own, codec));
                        v.extend_from_slice(&body);
                        v
                    }
                    // Verifying: nothing is stored, only the shape is checked.
                    _ => Vec::new(),
                };
                Op::Object { key: *id.as_bytes(), value, refs: (o.owned_entries > 1).then_some(o.owned_entries) }
            }
            Some(Kind::KeyValues(_)) if matches!(target, Target::Store(_)) => return Err(bad("casket key/values in a store snapshot".into())),
            Some(Kind::KeyValues(kv)) => Op::KeyValues { key: kv.key, values: kv.values },
            None => return Err(bad("a record of a kind this build does not know (written by a newer RockCask?)".into())),
        };
        ops.push(op);
    }
    Ok(ops)
}

fn uuid_of(bytes: &[u8]) -> std::result::Result<Uuid, String> {
    Uuid::from_slice(bytes).map_err(|_| format!("object id of {} bytes (16 expected)", bytes.len()))
}

/// Checks that records come in the order an export writes them: queue definitions (indexes
/// 0, 1, ... with names in ascending order), then each queue's entries with positions 0, 1, ...
/// queue by queue, then objects in ascending id order. Sorted input is what lets an import
/// write table files directly.
#[derive(Default)]
struct RecordOrder {
    queues: Vec<String>,
    /// Queue of the last entry and the position expected next in it.
    entry_at: Option<(u32, u64)>,
    last_object: Option<[u8; 16]>,
    key_values: bool,
}

impl RecordOrder {
    fn check(&mut self, op: &Op) -> std::result::Result<(), String> {
        if self.key_values != matches!(op, Op::KeyValues { .. }) && (self.key_values || !self.queues.is_empty() || self.entry_at.is_some() || self.last_object.is_some()) {
            return Err("store records and casket key/values in one snapshot".into());
        }
        match op {
            Op::KeyValues { key, values } => {
                if values.is_empty() {
                    return Err(format!("key of {} bytes without values", key.len()));
                }
                self.key_values = true;
            }
            Op::Queue { index, name } => {
                if self.entry_at.is_some() || self.last_object.is_some() {
                    return Err(format!("queue definition '{name}' after entries or objects"));
                }
                if *index as usize != self.queues.len() {
                    return Err(format!("queue definition '{name}' has index {index}; {} expected", self.queues.len()));
                }
                if self.queues.last().is_some_and(|last| last.as_str() >= name.as_str()) {
                    return Err(format!("queue '{name}' is out of order or defined twice"));
                }
                self.queues.push(name.clone());
            }
            Op::Entry { queue, position, .. } => {
                if self.last_object.is_some() {
                    return Err(format!("entry {position} of queue {queue} after objects"));
                }
                if *queue as usize >= self.queues.len() {
                    return Err(format!("entry {position} refers to queue {queue}, which is not defined"));
                }
                let expected = match self.entry_at {
                    Some((q, next)) if q == *queue => next,
                    Some((q, _)) if q > *queue => return Err(format!("entries of queue {queue} after those of queue {q}")),
                    _ => 0,
                };
                if *position != expected {
                    return Err(format!("entry at position {position} of queue {queue}; position {expected} expected"));
                }
                self.entry_at = Some((*queue, position + 1));
            }
            Op::Object { key, .. } => {
                if self.last_object.is_some_and(|last| last >= *key) {
                    return Err(format!("object {} is out of order or appears twice", Uuid::from_bytes(*key)));
                }
                self.last_object = Some(*key);
            }
        }
        Ok(())
    }
}

/// The reading loop shared by verify and import: header, frames through the workers, trailer.
fn read_snapshot(
    file: &Path,
    workers: usize,
    listener: &mut dyn FnMut(&Progress) -> Result<()>,
    on_header: impl FnOnce(&Header) -> std::result::Result<(), String>,
    prepare: impl Fn(&RawFrame, Vec<pb::Record>) -> std::result::Result<Vec<Op>, FormatError> + Sync,
    mut apply: impl FnMut(Prepared) -> Result<()>,
) -> Result<Summary> {
    let located = |e: FormatError| snapshot_error(file, e);
    let with_file = |e: Error| match e {
        Error::Snapshot { offset, frame, detail, .. } => Error::Snapshot { file: file.to_path_buf(), offset, frame, detail },
        other => other,
    };
    let input = File::open(file).map_err(Error::io(format!("opening snapshot {}", file.display())))?;
    let file_bytes = input.metadata().map_err(Error::io(format!("reading the size of {}", file.display())))?.len();
    let (mut reader, header) = FrameReader::open(BufReader::with_capacity(4 << 20, input), Some(file_bytes)).map_err(located)?;
    on_header(&header).map_err(|detail| located(FormatError::at(16, None, detail)))?;
    let mut trailer = None;
    let mut counts = Counts::default();
    let mut progress = Throttle::new(listener);
    ordered_map(
        workers,
        || {
            if trailer.is_some() {
                return Ok(None);
            }
            let frame = reader.next().map_err(located)?;
            if frame.kind == FRAME_TRAILER {
                trailer = Some(frame);
                return Ok(None);
            }
            Ok(Some(frame))
        },
        |frame: RawFrame| {
            let decoded = decode_frame(&frame).map_err(located)?;
            let mut part = Counts { frames: 1, ..Default::default() };
            decoded.iter().for_each(|r| count(&mut part, r));
            let ops = prepare(&frame, decoded).map_err(located)?;
            Ok(Prepared { frame: frame.index, offset: frame.offset, end: frame.offset + frame.bytes.len() as u64, counts: part, ops })
        },
        |prepared: Prepared| {
            add_counts(&mut counts, &prepared.counts);
            let end = prepared.end;
            apply(prepared).map_err(with_file)?;
            progress.tick(|| Progress { records: counts.records, bytes: end, bytes_expected: file_bytes, ..Default::default() })
        },
    )?;
    let trailer = trailer.expect("the reading loop ends at the trailer or with an error");
    trailer.check_crc().map_err(located)?;
    let stated = Counts::decode(&*trailer.decompressed().map_err(located)?).map_err(|e| located(trailer.error(format!("trailer does not decode: {e}"))))?;
    if stated != counts {
        return Err(located(trailer.error(format!("the trailer's counts ({}) differ from the file's ({})", describe(&stated), describe(&counts)))));
    }
    reader.finish().map_err(located)?;
    progress.done(Progress { records: counts.records, records_expected: counts.records, bytes: file_bytes, bytes_expected: file_bytes, done: true })?;
    Ok(Summary { file: file.to_path_buf(), header, counts, file_bytes, format_version: super::format::FORMAT_VERSION })
}

fn expect_content(header: &Header, expected: Content) -> std::result::Result<(), String> {
    let content = Content::try_from(header.content).unwrap_or(Content::Unspecified);
    if content != expected {
        return Err(format!("the snapshot holds {content:?} content; {expected:?} was expected"));
    }
    Ok(())
}

/// Reads a casket snapshot into the casket `open` creates from the header (bulk writes in
/// transactions of a few MiB). The caller removes the casket if this fails.
pub(crate) fn read_casket_snapshot(
    file: &Path,
    workers: usize,
    listener: &mut dyn FnMut(&Progress) -> Result<()>,
    open: impl FnOnce(&Header) -> std::result::Result<(PathBuf, CasketOptions), String>,
) -> Result<Summary> {
    let casket: OnceCell<Casket> = OnceCell::new();
    let mut order = RecordOrder::default();
    let mut in_transaction = 0usize;
    let summary = read_snapshot(
        file,
        workers,
        listener,
        |header| {
            expect_content(header, Content::Casket)?;
            let (path, options) = open(header)?;
            let opened = Casket::open(&path, options).map_err(|e| format!("creating casket {}: {e}", path.display()))?;
            opened.tranbegin().map_err(|e| e.to_string())?;
            let _ = casket.set(opened);
            Ok(())
        },
        |frame, records| prepare(frame, records, Target::Casket),
        |ops| {
            let target = casket.get().expect("opened with the header");
            for op in &ops.ops {
                order.check(op).map_err(|detail| ops.error(detail))?;
                if let Op::KeyValues { key, values } = op {
                    target.put_list(key, values.iter().map(Vec::as_slice)).map_err(casket_error)?;
                    in_transaction += key.len() + values.iter().map(Vec::len).sum::<usize>();
                }
            }
            if in_transaction >= CASKET_TRANSACTION_BYTES {
                target.trancommit().and_then(|_| target.tranbegin()).map_err(casket_error)?;
                in_transaction = 0;
            }
            Ok(())
        },
    )?;
    let target = casket.into_inner().expect("opened with the header");
    target.trancommit().map_err(casket_error)?;
    target.close().map_err(casket_error)?;
    Ok(summary)
}

/// Removes a casket's marker file and data directory (after a failed import).
pub(crate) fn remove_casket(path: &Path) {
    let _ = std::fs::remove_file(path);
    let _ = std::fs::remove_dir_all(crate::casket::files::data_dir(path));
}

/// Bytes of casket writes gathered before they are committed (well below the point where a
/// casket transaction starts writing early with undo records).
const CASKET_TRANSACTION_BYTES: usize = 16 << 20;

fn describe(c: &Counts) -> String {
    format!(
        "{} frames, {} records: {} queues, {} entries, {} objects, {} keys, {} values, {} payload bytes",
        c.frames, c.records, c.queues, c.entries, c.objects, c.keys, c.values, c.payload_bytes
    )
}

/// A records frame's records, after its CRC has been checked.
fn decode_frame(frame: &RawFrame) -> std::result::Result<Vec<pb::Record>, FormatError> {
    frame.check_crc()?;
    let body = frame.decompressed()?;
    let mut rest: &[u8] = &body;
    let mut records = Vec::with_capacity(frame.records as usize);
    while !rest.is_empty() {
        let at = body.len() - rest.len();
        let record = pb::Record::decode_length_delimited(&mut rest)
            .map_err(|e| frame.error(format!("record {} (byte {at} of the frame body) does not decode: {e}", records.len())))?;
        records.push(record);
    }
    if records.len() != frame.records as usize {
        return Err(frame.error(format!("frame holds {} records; its header says {}", records.len(), frame.records)));
    }
    Ok(records)
}

/// Sorted table files of one column family, cut every `TABLE_FILE_BYTES`.
struct TableFiles<'o> {
    dir: PathBuf,
    cf: &'static str,
    options: &'o Options,
    writer: Option<SstFileWriter<'o>>,
    files: Vec<PathBuf>,
}

impl<'o> TableFiles<'o> {
    fn new(dir: &Path, cf: &'static str, options: &'o Options) -> Self {
        TableFiles { dir: dir.to_path_buf(), cf, options, writer: None, files: Vec::new() }
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
        writer.put(key, value).context(|| format!("writing imported {}", self.cf))?;
        if writer.file_size() >= TABLE_FILE_BYTES {
            self.close_file()?;
        }
        Ok(())
    }

    fn close_file(&mut self) -> Result<()> {
        if let Some(mut writer) = self.writer.take() {
            writer.finish().context(|| format!("finishing a table file of imported {}", self.cf))?;
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<Vec<PathBuf>> {
        self.close_file()?;
        Ok(std::mem::take(&mut self.files))
    }
}

/// The directory an import creates the store in; emptied (or removed, if the import created
/// it) unless the import succeeds.
struct NewDirectory {
    path: PathBuf,
    created: bool,
    kept: bool,
}

impl NewDirectory {
    fn claim(path: &Path) -> Result<NewDirectory> {
        match std::fs::read_dir(path) {
            Ok(mut entries) => {
                if entries.next().is_some() {
                    return Err(Error::TargetExists { path: path.to_path_buf(), why: "is not empty; a snapshot is imported into a new or empty directory".into() });
                }
                Ok(NewDirectory { path: path.to_path_buf(), created: false, kept: false })
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir_all(path).map_err(Error::io(format!("creating {}", path.display())))?;
                Ok(NewDirectory { path: path.to_path_buf(), created: true, kept: false })
            }
            Err(e) if path.is_file() => Err(Error::TargetExists { path: path.to_path_buf(), why: format!("is a file ({e})") }),
            Err(e) => Err(Error::io(format!("reading {}", path.display()))(e)),
        }
    }

    fn keep(mut self) {
        self.kept = true;
    }
}

impl Drop for NewDirectory {
    fn drop(&mut self) {
        if self.kept {
            return;
        }
        if self.created {
            let _ = std::fs::remove_dir_all(&self.path);
        } else if let Ok(entries) = std::fs::read_dir(&self.path) {
            for entry in entries.flatten() {
                let p = entry.path();
                let _ = if p.is_dir() { std::fs::remove_dir_all(&p) } else { std::fs::remove_file(&p) };
            }
        }
    }
}
