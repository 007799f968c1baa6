//! The command line: subcommands, their arguments and their help texts (clap derive).
//!
//! Exit codes are part of the interface scripts rely on, so they are printed in every `--help`.

use std::ffi::OsStr;
use std::path::PathBuf;

use clap::builder::TypedValueParser;
use clap::error::ErrorKind;
use clap::{Args, Parser, Subcommand, ValueEnum};
use rockcask_core::compress::Compression;

/// How every name argument (a queue, a map, a lineage, a target queue) is read, as a name is
/// everywhere in RockCask: its bytes must be UTF-8. A name holding a lone surrogate (as a
/// UTF-16 name from elsewhere may arrive, spelled in UTF-8's three-byte pattern) or a stray
/// byte is refused with the usage exit code, naming the argument and the byte where the name
/// stops being UTF-8, rather than read with replacement characters as another name. (Paths are
/// not names: they are passed to the file system as they are.)
#[derive(Clone, Copy, Debug)]
pub struct Name;

impl TypedValueParser for Name {
    type Value = String;

    fn parse_ref(&self, cmd: &clap::Command, arg: Option<&clap::Arg>, value: &OsStr) -> Result<String, clap::Error> {
        let bytes = value.as_encoded_bytes();
        std::str::from_utf8(bytes).map(str::to_owned).map_err(|e| {
            let arg = arg.map_or_else(|| "a name".to_owned(), ToString::to_string);
            let message = format!(
                "{arg} \"{}\" is not UTF-8 from byte {} on: a name must be valid Unicode (a lone surrogate is not)\n",
                String::from_utf8_lossy(bytes),
                e.valid_up_to()
            );
            clap::Error::raw(ErrorKind::InvalidUtf8, message).with_cmd(cmd)
        })
    }
}

/// The exit-code table, as a macro so that it can be `concat!`ed into longer help texts.
macro_rules! exit_codes {
    () => {
        "Exit codes:
  0    success
  1    any other failure (including an unknown queue)
  2    usage error (bad or missing arguments)
  3    not a store, no such store, or no such input file
  4    store locked by another process (or another open handle)
  5    snapshot damaged or unreadable
  6    target already exists (export file, non-empty import or checkpoint directory)
  130  interrupted by Ctrl-C (143: by SIGTERM); export and import remove what they wrote"
    };
}

pub const EXIT_CODES: &str = exit_codes!();

/// The dump's help adds the payload formats, which need more words than a flag's one line.
const DUMP_HELP: &str = concat!(
    "Payload formats:
  text    UTF-8 (invalid bytes as U+FFFD); backslash, tab, newline, carriage return, NUL and
          other control characters escaped as \\\\, \\t, \\n, \\r, \\0, \\u{1b}; a payload that is
          exactly \"-\" is written \\u{2d} so that `-` always means a deleted object
  hex     lowercase hexadecimal
  base64  standard alphabet with padding (RFC 4648)

",
    exit_codes!()
);

#[derive(Parser, Debug)]
#[command(
    name = "rockcask",
    version,
    about = "Inspect, export, import, verify and checkpoint RockCask stores",
    long_about = "Inspect, export, import, verify and checkpoint RockCask stores.\n\n\
                  stats, queues, dump and export open the store read-only: they work while another \
                  process has it open, and never create or change it.",
    after_help = EXIT_CODES,
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print the store's figures as `name: value` lines, then a tab-separated table of the
    /// queues (or one JSON object). Counts and latencies are those of this command's own open (0);
    /// the age of a queue's oldest entry counts from that open, a lower bound
    #[command(after_help = EXIT_CODES)]
    Stats {
        /// The store's directory
        store_dir: PathBuf,
        /// Print one JSON object instead of `name: value` lines
        #[arg(long)]
        json: bool,
    },

    /// List the queues, one `name<TAB>size` line each, sorted by name
    #[command(after_help = EXIT_CODES)]
    Queues {
        /// The store's directory
        store_dir: PathBuf,
    },

    /// List the maps, one `name<TAB>pairs` line each, sorted by name
    #[command(after_help = EXIT_CODES)]
    Maps {
        /// The store's directory
        store_dir: PathBuf,
    },

    /// Print a queue's committed entries in FIFO order: `position<TAB>uuid<TAB>payload`
    #[command(
        after_help = DUMP_HELP,
        long_about = "Print a queue's committed entries in FIFO order, one `position<TAB>uuid<TAB>payload` \
                      line each, as the store was when the command started. position counts from 0 at the \
                      head. An entry whose object was deleted shows `-` as its payload. Entries are read \
                      one at a time: a queue of any length can be dumped."
    )]
    Dump {
        /// The store's directory
        store_dir: PathBuf,
        /// The queue to dump (exactly as named; see `rockcask queues`)
        #[arg(required_unless_present = "map", conflicts_with = "map", value_parser = Name)]
        queue: Option<String>,
        /// Dump map NAME instead, one `key<TAB>value` line per pair in key order (both in the
        /// payload format)
        #[arg(long, value_name = "NAME", value_parser = Name)]
        map: Option<String>,
        /// Stop after this many entries
        #[arg(long, value_name = "N")]
        limit: Option<u64>,
        /// How payloads are written
        #[arg(long, value_enum, default_value_t = PayloadFormat::Text)]
        format: PayloadFormat,
    },

    /// Write a consistent snapshot of a store to a file
    #[command(after_help = EXIT_CODES)]
    Export {
        /// The store's directory (opened read-only), or a Tokyo Cabinet drop-in casket's path
        /// (a casket with a built-in key order; opened as a reader)
        store_dir: PathBuf,
        /// The snapshot file to write (written under a temporary name, then renamed)
        file: PathBuf,
        #[command(flatten)]
        workers: Workers,
        /// Compression of the snapshot's frames
        #[arg(long, value_enum, default_value_t = Codec::None)]
        compression: Codec,
        /// Replace FILE if it exists
        #[arg(long)]
        force: bool,
        /// Creation time recorded in the header (milliseconds since 1970-01-01 UTC) instead of
        /// now; two exports of the same data with the same value are byte-identical
        #[arg(long, value_name = "UNIX_MILLIS", allow_negative_numbers = true)]
        created_at: Option<i64>,
        #[command(flatten)]
        output: Output,
    },

    /// Create a new store from a snapshot file
    #[command(after_help = EXIT_CODES)]
    Import {
        /// The snapshot file to read
        file: PathBuf,
        /// The new store's directory (must not exist, or be empty); for a casket snapshot, the
        /// new casket's path (must not exist)
        store_dir: PathBuf,
        #[command(flatten)]
        workers: Workers,
        /// Payload compression of the new store (applies to every imported object)
        #[arg(long, value_enum, default_value_t = Codec::None)]
        compression: Codec,
        #[command(flatten)]
        output: Output,
    },

    /// Check every byte of a snapshot file and print what it holds
    #[command(after_help = EXIT_CODES)]
    Verify {
        /// The snapshot file to check
        file: PathBuf,
        #[command(flatten)]
        workers: Workers,
        #[command(flatten)]
        output: Output,
    },

    /// List, commit or abort the staging queues an exactly-once writer (rockcask-flink's sink)
    /// left behind
    #[command(
        subcommand,
        long_about = "List, commit or abort staging queues: `<target>.staging/<job>/<subtask>/<epoch>`, where \
                      rockcask-flink's sink parks each checkpoint's records until the checkpoint completes. \
                      A running job commits or aborts its own; these commands are for the staging queues of \
                      a job that will never come back (its records were never committed to their target). \
                      The lineage names one sink's run: the sink logs it when it starts."
    )]
    Staging(StagingCommand),

    /// List, requeue or drop a queue's dead letters (entries moved to its dead-letter queue
    /// after as many deliveries as the queue allows)
    #[command(subcommand)]
    Dead(DeadCommand),

    /// Write a RocksDB checkpoint of a store (hard links where possible) to a new directory
    #[command(after_help = EXIT_CODES)]
    Checkpoint {
        /// The store's directory (opened for writing: no other process may have it open)
        store_dir: PathBuf,
        /// The checkpoint's directory (must not exist, or be empty); it opens as a store
        target_dir: PathBuf,
        /// Print nothing but errors
        #[arg(long, short = 'q')]
        quiet: bool,
    },
}

#[derive(Subcommand, Debug)]
pub enum StagingCommand {
    /// List staging queues, one `target<TAB>lineage<TAB>subtask<TAB>epoch<TAB>entries<TAB>queue` line
    /// each, in commit order (by target, lineage, subtask, epoch); opens the store read-only
    #[command(after_help = EXIT_CODES)]
    List {
        /// The store's directory
        store_dir: PathBuf,
        #[command(flatten)]
        filter: StagingFilter,
    },
    /// Move the records of a lineage's staging queues to their targets, in commit order, one
    /// transaction per staging queue; prints `committed<TAB>queue<TAB>entries` per queue
    #[command(after_help = EXIT_CODES)]
    Commit {
        /// The store's directory (opened for writing: no other process may have it open)
        store_dir: PathBuf,
        #[command(flatten)]
        filter: RequiredLineage,
    },
    /// Drop a lineage's staging queues and their records; prints `aborted<TAB>queue<TAB>entries`
    /// per queue
    #[command(after_help = EXIT_CODES)]
    Abort {
        /// The store's directory (opened for writing: no other process may have it open)
        store_dir: PathBuf,
        #[command(flatten)]
        filter: RequiredLineage,
    },
}

#[derive(Subcommand, Debug)]
pub enum DeadCommand {
    /// List the dead letters of QUEUE, lowest position first, one
    /// `position<TAB>origin queue<TAB>origin position<TAB>deliveries<TAB>dead at (UTC)<TAB>reason<TAB>payload`
    /// line each (names and reasons escaped as text); opens the store read-only
    #[command(after_help = DUMP_HELP)]
    List {
        /// The store's directory
        store_dir: PathBuf,
        /// The queue whose dead letters to list (they are in its dead-letter queue)
        #[arg(value_parser = Name)]
        queue: String,
        /// Stop after this many
        #[arg(long, value_name = "N", default_value_t = 1000)]
        limit: usize,
        /// How payloads are written
        #[arg(long, value_enum, default_value_t = PayloadFormat::Text)]
        format: PayloadFormat,
    },
    /// Put dead letters back at the tail of the queue each came from (all of them, or those at
    /// the positions given); prints `requeued<TAB>count`
    #[command(after_help = EXIT_CODES)]
    Requeue {
        /// The store's directory (opened for writing: no other process may have it open)
        store_dir: PathBuf,
        #[arg(value_parser = Name)]
        queue: String,
        #[command(flatten)]
        which: DeadLetterPositions,
    },
    /// Delete dead letters (all of them, or those at the positions given) with their objects;
    /// prints `dropped<TAB>count`
    #[command(after_help = EXIT_CODES)]
    Drop {
        /// The store's directory (opened for writing: no other process may have it open)
        store_dir: PathBuf,
        #[arg(value_parser = Name)]
        queue: String,
        #[command(flatten)]
        which: DeadLetterPositions,
    },
}

/// Which dead letters a command changes.
#[derive(Args, Debug)]
#[group(required = true, multiple = false)]
pub struct DeadLetterPositions {
    /// Only the dead letter at this position (as `dead list` shows it); repeatable
    #[arg(long = "position", value_name = "N")]
    pub positions: Vec<u64>,
    /// Every dead letter of the queue
    #[arg(long)]
    pub all: bool,
}

/// Which staging queues a command looks at.
#[derive(Args, Debug, Default)]
pub struct StagingFilter {
    /// Only those of this lineage (one sink's run, as their names carry it)
    #[arg(long, value_name = "LINEAGE", value_parser = Name)]
    pub lineage: Option<String>,
    /// Only those committing to this target queue
    #[arg(long, value_name = "QUEUE", value_parser = Name)]
    pub target: Option<String>,
}

/// `StagingFilter` for the commands that change the store: the lineage must be named.
#[derive(Args, Debug)]
pub struct RequiredLineage {
    /// The lineage whose staging queues to act on (see `rockcask staging list`)
    #[arg(long, value_name = "LINEAGE", value_parser = Name)]
    pub lineage: String,
    /// Only those committing to this target queue
    #[arg(long, value_name = "QUEUE", value_parser = Name)]
    pub target: Option<String>,
}

impl From<RequiredLineage> for StagingFilter {
    fn from(f: RequiredLineage) -> StagingFilter {
        StagingFilter {
            lineage: Some(f.lineage),
            target: f.target,
        }
    }
}

#[derive(Args, Debug)]
pub struct Workers {
    /// Threads encoding or decoding frames, 1 to 64 [default: the number of cores, at most 8]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=rockcask_core::options::MAX_WORKERS as i64))]
    pub workers: Option<u16>,
}

impl Workers {
    pub fn get(&self) -> usize {
        self.workers.map_or_else(
            || rockcask_core::snapshot::ExportOptions::default().workers,
            usize::from,
        )
    }
}

/// What a long-running command tells the user besides errors.
#[derive(Args, Debug)]
pub struct Output {
    /// Draw the progress bar even when stderr is not a terminal (then as plain lines)
    #[arg(long, conflicts_with = "quiet")]
    pub progress: bool,
    /// Print nothing but errors (no progress, no summary)
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PayloadFormat {
    Text,
    Hex,
    Base64,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Codec {
    None,
    Lz4,
    Zstd,
    Snappy,
}

impl From<Codec> for Compression {
    fn from(codec: Codec) -> Compression {
        match codec {
            Codec::None => Compression::None,
            Codec::Lz4 => Compression::Lz4,
            Codec::Zstd => Compression::Zstd,
            Codec::Snappy => Compression::Snappy,
        }
    }
}
