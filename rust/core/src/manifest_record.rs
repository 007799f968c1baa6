//! What the last writer left of the store's MANIFEST: its name and length, in a file of
//! RockCask's own beside it, so that an open can tell a MANIFEST that lost records.
//!
//! RocksDB takes a MANIFEST that ends early for one whose last write was cut off, and recovers
//! the older layout the rest describes; a writable open then deletes, as obsolete, any table
//! file the lost records added: the store's data. A MANIFEST only grows while it is current
//! (every writable open starts a new one), so one found shorter than it was when a writer last
//! had it has lost records, whatever else the directory holds.
//!
//! The record is written with no sync and no rename: a record torn by a crash names a shorter
//! length or another file, or does not parse, and then checks less, never more.

use std::path::Path;

/// The record's file name inside a store directory.
pub const MANIFEST_RECORD_FILE: &str = "rockcask.manifest";

/// A MANIFEST's file name and length in bytes.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct ManifestLength {
    pub name: String,
    pub bytes: u64,
}

/// The file name CURRENT holds in `dir` (the MANIFEST RocksDB reads the layout from), if any.
pub(crate) fn current_name(dir: &Path) -> Option<String> {
    let name = std::fs::read_to_string(dir.join("CURRENT")).ok()?.trim().to_string();
    (!name.is_empty()).then_some(name)
}

/// The MANIFEST that CURRENT names in `dir`, and its length (None when either cannot be read).
fn current(dir: &Path) -> Option<ManifestLength> {
    let name = current_name(dir).filter(|name| !name.contains('/'))?;
    let bytes = std::fs::metadata(dir.join(&name)).ok()?.len();
    Some(ManifestLength { name, bytes })
}

/// Records the current MANIFEST's length, for the next open to check. Called by a writer (which
/// holds the store lock) after its open and at its close. A failure is not reported: with no
/// record, or a stale one naming the MANIFEST an earlier open replaced, the next open checks
/// nothing, which is what stores written before the record existed get too.
pub(crate) fn remember(dir: &Path) {
    if let Some(m) = current(dir) {
        let _ = std::fs::write(dir.join(MANIFEST_RECORD_FILE), format!("{} {}\n", m.name, m.bytes));
    }
}

/// The length recorded for the MANIFEST named `name`, if the record is about that file.
fn recorded(dir: &Path, name: &str) -> Option<u64> {
    let text = std::fs::read_to_string(dir.join(MANIFEST_RECORD_FILE)).ok()?;
    let (recorded_name, bytes) = text.trim_end_matches('\n').split_once(' ')?;
    if recorded_name != name || bytes.is_empty() || !bytes.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    bytes.parse().ok()
}

/// Why the current MANIFEST lost records, if it is shorter than its record says.
pub(crate) fn shortened(dir: &Path) -> Option<String> {
    let now = current(dir)?;
    let was = recorded(dir, &now.name)?;
    (now.bytes < was).then(|| {
        format!(
            "{} holds {} bytes, yet it held {was} when the store was last open for writing ({MANIFEST_RECORD_FILE}): it lost records, and RocksDB would recover an older layout and delete any table file written since",
            now.name, now.bytes
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store_dir(manifest_bytes: usize) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("CURRENT"), "MANIFEST-000012\n").unwrap();
        std::fs::write(dir.path().join("MANIFEST-000012"), vec![7u8; manifest_bytes]).unwrap();
        dir
    }

    fn set_len(dir: &Path, bytes: u64) {
        std::fs::OpenOptions::new()
            .write(true)
            .open(dir.join("MANIFEST-000012"))
            .unwrap()
            .set_len(bytes)
            .unwrap();
    }

    #[test]
    fn a_manifest_cut_below_its_recorded_length_is_reported_naming_both_lengths() {
        let dir = store_dir(4096);
        remember(dir.path());
        set_len(dir.path(), 2048);
        let why = shortened(dir.path()).expect("shorter than recorded");
        assert!(
            why.contains("MANIFEST-000012 holds 2048 bytes, yet it held 4096"),
            "{why}"
        );
        set_len(dir.path(), 0);
        assert!(shortened(dir.path()).is_some(), "emptied");
    }

    #[test]
    fn a_manifest_as_long_as_recorded_or_longer_is_intact() {
        let dir = store_dir(4096);
        remember(dir.path());
        assert_eq!(shortened(dir.path()), None);
        set_len(dir.path(), 4097);
        assert_eq!(shortened(dir.path()), None);
    }

    #[test]
    fn no_record_a_record_of_another_manifest_or_a_torn_one_checks_nothing() {
        let dir = store_dir(10);
        assert_eq!(shortened(dir.path()), None, "no record");
        let record = dir.path().join(MANIFEST_RECORD_FILE);
        for text in [
            "MANIFEST-000011 999999\n",
            "",
            "MANIFEST-0000",
            "MANIFEST-000012 ",
            "MANIFEST-000012 12x\n",
            "\0\0\0\0\0\0",
            "MANIFEST-000012 -5\n",
        ] {
            std::fs::write(&record, text).unwrap();
            assert_eq!(shortened(dir.path()), None, "record {text:?}");
        }
        // A torn record shorter than what was written records a smaller length: it still passes
        // an intact MANIFEST.
        std::fs::write(&record, "MANIFEST-000012 1").unwrap();
        assert_eq!(shortened(dir.path()), None);
    }

    #[test]
    fn a_directory_without_current_records_and_checks_nothing() {
        let dir = tempfile::tempdir().unwrap();
        remember(dir.path());
        assert!(!dir.path().join(MANIFEST_RECORD_FILE).exists());
        assert_eq!(shortened(dir.path()), None);
    }
}
