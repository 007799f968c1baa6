use std::path::PathBuf;

use super::*;

/// The class and `getMessage()` of the exception, as its Java constructor composes them.
fn class_and_message(e: &JavaException) -> (&'static str, String) {
    match e {
        JavaException::Plain { class, message } => (class, message.clone()),
        JavaException::Store { status, detail } => (ROCKCASK, format!("{}: {detail}", status.name())),
        JavaException::Snapshot { detail, .. } => (SNAPSHOT, format!("BadSnapshot: {detail}")),
        JavaException::Codec {
            message_type,
            offset,
            detail,
        } => (
            CODEC,
            format!("not a valid {message_type} message: {detail} at byte {offset}"),
        ),
        JavaException::Casket { code, detail } => (CASKET, format!("{code}:{detail}")),
    }
}

fn refused_after_full_disk() -> CoreError {
    CoreError::Rocks {
        status: RocksStatus::IOError,
        context: "store at /data/s refuses writes after a failed write; reopen it".into(),
        message:
            "IO error: No space left on device: While appending to file: /data/s/000009.log: No space left on device"
                .into(),
    }
}

#[test]
fn a_rocksdb_failure_is_thrown_with_its_status_and_says_what_display_says() {
    let e = refused_after_full_disk();
    assert!(matches!(
        core_exception(&e),
        JavaException::Store {
            status: JavaStatus::IOError,
            ..
        }
    ));
    assert_eq!(class_and_message(&core_exception(&e)), (ROCKCASK, e.to_string()));
}

#[test]
fn buffered_operations_refused_by_a_failed_store_keep_the_causes_status_and_say_everything_once() {
    let e = BridgeError::RolledBack(Box::new(BridgeError::Core(refused_after_full_disk())));
    let (class, message) = class_and_message(&e.java_exception());
    assert_eq!(class, ROCKCASK);
    assert_eq!(
        message,
        "IOError: transaction rolled back: applying buffered operations failed: store at /data/s refuses writes after a failed \
         write; reopen it: IO error: No space left on device: While appending to file: /data/s/000009.log: No space left on device"
    );
}

#[test]
fn a_rolled_back_transaction_is_reported_once_with_its_causes_class_and_status() {
    let poll = CoreError::RolledBack(Box::new(CoreError::Corrupt("queue 'q' entry 7 is missing".into())));
    assert_eq!(
        class_and_message(&core_exception(&poll)),
        (
            ROCKCASK,
            "Corruption: transaction rolled back: corrupt store data at queue 'q' entry 7 is missing".to_string()
        )
    );
    let nested = BridgeError::RolledBack(Box::new(BridgeError::Core(poll)));
    assert_eq!(
        nested.java_exception(),
        core_exception(&CoreError::RolledBack(Box::new(CoreError::Corrupt(
            "queue 'q' entry 7 is missing".into()
        ))))
    );
    let read_only = BridgeError::RolledBack(Box::new(BridgeError::Core(CoreError::ReadOnly(PathBuf::from(
        "/data/s",
    )))));
    assert_eq!(
        class_and_message(&read_only.java_exception()).1,
        "ReadOnly: transaction rolled back: applying buffered operations failed: store at /data/s is open read-only"
    );
    let bad = BridgeError::RolledBack(Box::new(BridgeError::InvalidArgument("payload too large".into())));
    assert_eq!(
        class_and_message(&bad.java_exception()),
        (
            ILLEGAL_ARGUMENT,
            "transaction rolled back: applying buffered operations failed: payload too large".to_string()
        )
    );
}

#[test]
fn a_result_too_large_for_a_java_array_is_refused_as_an_illegal_argument_naming_the_call_and_sizes() {
    let fits = crate::wire::MAX_JAVA_ARRAY_BYTES;
    assert!(crate::wire::check_fits_java_array(fits).is_ok());
    let e = crate::wire::check_fits_java_array(fits + 1)
        .unwrap_err()
        .returned_by("org/rockcask/StoreNative.queueNames");
    assert_eq!(
        class_and_message(&e.java_exception()),
        (
            ILLEGAL_ARGUMENT,
            format!(
                "the result of org/rockcask/StoreNative.queueNames is {} bytes, more than the {fits} one Java \
                 array holds: ask for less at a time",
                fits + 1
            )
        )
    );
    // Only this error is given the call; the first call to name it keeps it.
    assert!(matches!(
        BridgeError::Null("x").returned_by("c"),
        BridgeError::Null("x")
    ));
    assert!(e.returned_by("other").to_string().contains("queueNames"));
}

/// The constants of `enum Status` in RockCaskException.java.
fn java_statuses() -> Vec<String> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../java/rockcask/src/main/java/org/rockcask/RockCaskException.java"
    );
    let source = std::fs::read_to_string(path).unwrap();
    let mut body = source
        .split_once("enum Status {")
        .expect("RockCaskException.java declares no enum Status")
        .1
        .to_string();
    // Javadoc between the constants may hold braces and commas.
    while let Some(start) = body.find("/*") {
        let end = start + body[start..].find("*/").expect("unterminated comment in enum Status") + 2;
        body.replace_range(start..end, "");
    }
    let end = body.find(['}', ';']).expect("enum Status has no end");
    body[..end]
        .split(',')
        .map(|name| name.trim().to_string())
        .filter(|name| !name.is_empty())
        .collect()
}

#[test]
fn every_status_thrown_is_a_constant_of_the_java_enum() {
    let java = java_statuses();
    assert!(
        java.iter().any(|name| name == "BadSnapshot"),
        "cannot read enum Status: {java:?}"
    );
    for status in JavaStatus::ALL {
        assert!(
            java.iter().any(|name| name == status.name()),
            "RockCaskException.Status has no {}",
            status.name()
        );
    }
}
