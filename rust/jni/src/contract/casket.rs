//! The numbers of the Tokyo Cabinet drop-in that Java repeats.

use super::{Codes, JavaConstant, JavaConstants};

/// The drop-in's class of native calls, which holds the drop-in's own constants.
pub const CASKET_NATIVE: &str = "tokyocabinet/CasketNative";

slots! {
    /// A casket's open mode and settings, as `Database.open` passes them.
    pub enum CasketSlot in "tokyocabinet/CasketNative" as "OPEN_" {
        Omode = "OMODE",
        Hash = "HASH",
        Cmpfunc = "CMPFUNC",
        CacheBytes = "CACHE_BYTES",
        WriteBufferBytes = "WRITE_BUFFER_BYTES",
        Compression = "COMPRESSION",
    }
}

/// The bits of Tokyo Cabinet's open mode the native side reads (a reader is a casket opened
/// without `OWRITER`, so `OREADER` needs no decoding).
pub mod omode {
    pub const OWRITER: i64 = 1 << 1;
    pub const OCREAT: i64 = 1 << 2;
    pub const OTRUNC: i64 = 1 << 3;
    pub const ONOLCK: i64 = 1 << 4;
    pub const OLCKNB: i64 = 1 << 5;
    pub const OTSYNC: i64 = 1 << 6;
}

/// The open-mode constants of the drop-in's public `BDB` (which `HDB` repeats from it).
pub const CASKET_OPEN_MODES: JavaConstants = {
    use omode::*;
    JavaConstants {
        class: "tokyocabinet/BDB",
        values: &[
            JavaConstant::int("OWRITER", OWRITER),
            JavaConstant::int("OCREAT", OCREAT),
            JavaConstant::int("OTRUNC", OTRUNC),
            JavaConstant::int("ONOLCK", ONOLCK),
            JavaConstant::int("OLCKNB", OLCKNB),
            JavaConstant::int("OTSYNC", OTSYNC),
        ],
    }
};

codes! {
    /// How `put` treats an existing key.
    pub const PUT_MODES: Codes<rockcask_core::casket::PutMode> = "put mode" in CASKET_NATIVE {
        "PUT_OVER" = 0 => rockcask_core::casket::PutMode::Over,
        "PUT_KEEP" = 1 => rockcask_core::casket::PutMode::Keep,
        "PUT_CAT" = 2 => rockcask_core::casket::PutMode::Cat,
        "PUT_DUP" = 3 => rockcask_core::casket::PutMode::Dup,
    }
}

codes! {
    /// Where `BDBCUR.put` writes (the public `CP*` constants).
    pub const CURSOR_PUT_MODES: Codes<rockcask_core::casket::CursorPut> = "cursor put mode" in "tokyocabinet/BDBCUR" {
        "CPCURRENT" = 0 => rockcask_core::casket::CursorPut::Current,
        "CPBEFORE" = 1 => rockcask_core::casket::CursorPut::Before,
        "CPAFTER" = 2 => rockcask_core::casket::CursorPut::After,
    }
}

codes! {
    /// The built-in key orders of `BDB.setcmpfunc` (the public `CMP*` constants).
    pub const KEY_ORDERS: Codes<rockcask_core::casket::KeyOrder> = "comparison function" in "tokyocabinet/BDB" {
        "CMPLEXICAL" = 0 => rockcask_core::casket::KeyOrder::Lexical,
        "CMPDECIMAL" = 1 => rockcask_core::casket::KeyOrder::Decimal,
        "CMPINT32" = 2 => rockcask_core::casket::KeyOrder::Int32,
        "CMPINT64" = 3 => rockcask_core::casket::KeyOrder::Int64,
    }
}

codes! {
    /// The compression of a casket's files, as `tune` selects it.
    pub const CASKET_COMPRESSION: Codes<rockcask_core::casket::Compression> = "compression" in CASKET_NATIVE {
        "COMPRESSION_NONE" = 0 => rockcask_core::casket::Compression::None,
        "COMPRESSION_LZ4" = 1 => rockcask_core::casket::Compression::Lz4,
        "COMPRESSION_ZSTD" = 2 => rockcask_core::casket::Compression::Zstd,
    }
}

/// The error codes the native side throws (`CasketException.code`), as the public `BDB`
/// constants name them (`ESUCCESS` is never thrown).
pub const CASKET_ERROR_CODES: JavaConstants = {
    use rockcask_core::casket::Ecode::*;
    JavaConstants {
        class: "tokyocabinet/BDB",
        values: &[
            JavaConstant::int("ETHREAD", Thread as i64),
            JavaConstant::int("EINVALID", Invalid as i64),
            JavaConstant::int("ENOFILE", NoFile as i64),
            JavaConstant::int("ENOPERM", NoPerm as i64),
            JavaConstant::int("EMETA", Meta as i64),
            JavaConstant::int("ERHEAD", RHead as i64),
            JavaConstant::int("EOPEN", Open as i64),
            JavaConstant::int("ECLOSE", Close as i64),
            JavaConstant::int("ETRUNC", Trunc as i64),
            JavaConstant::int("ESYNC", Sync as i64),
            JavaConstant::int("ESTAT", Stat as i64),
            JavaConstant::int("ESEEK", Seek as i64),
            JavaConstant::int("EREAD", Read as i64),
            JavaConstant::int("EWRITE", Write as i64),
            JavaConstant::int("EMMAP", Mmap as i64),
            JavaConstant::int("ELOCK", Lock as i64),
            JavaConstant::int("EUNLINK", Unlink as i64),
            JavaConstant::int("ERENAME", Rename as i64),
            JavaConstant::int("EMKDIR", Mkdir as i64),
            JavaConstant::int("ERMDIR", Rmdir as i64),
            JavaConstant::int("EKEEP", Keep as i64),
            JavaConstant::int("ENOREC", NoRec as i64),
            JavaConstant::int("EMISC", Misc as i64),
        ],
    }
};

/// The largest value a casket holds; `Database` refuses longer ones before a call.
pub const CASKET_LIMITS: JavaConstants = {
    const { assert!(rockcask_core::casket::MAX_VALUE_LEN <= i32::MAX as usize) };
    JavaConstants {
        class: "tokyocabinet/Database",
        values: &[JavaConstant::int(
            "MAX_VALUE_SIZE",
            rockcask_core::casket::MAX_VALUE_LEN as i64,
        )],
    }
};

/// Set by `CasketComparator.compareChecked` above the comparator's result (its low 32 bits)
/// when the comparator called a database of the drop-in (which refused the call) while comparing.
pub const CALLED_A_DATABASE: i64 = 1 << 32;

/// The comparator upcall's result flags.
pub const CASKET_COMPARATOR: JavaConstants = JavaConstants {
    class: "tokyocabinet/internal/CasketComparator",
    values: &[JavaConstant::long("CALLED_A_DATABASE", CALLED_A_DATABASE)],
};

#[cfg(test)]
mod casket_tests {
    use std::collections::HashSet;

    use rockcask_core::casket::{Compression, CursorPut, PutMode};

    use super::*;
    use crate::error::BridgeError;

    fn check_table<T>(codes: &Codes<T>) {
        assert_eq!(codes.java.values.len(), codes.variants.len(), "{}", codes.what);
        let distinct: HashSet<i64> = codes.java.values.iter().map(|c| c.value).collect();
        assert_eq!(distinct.len(), codes.variants.len(), "{} has a code twice", codes.what);
    }

    #[test]
    fn every_code_table_gives_each_code_one_variant() {
        check_table(&PUT_MODES);
        check_table(&CURSOR_PUT_MODES);
        check_table(&KEY_ORDERS);
        check_table(&CASKET_COMPRESSION);
    }

    #[test]
    fn codes_decode_to_their_variants_and_an_unknown_one_is_refused_naming_the_parameter_and_value() {
        assert_eq!(PUT_MODES.decode(3, "mode").unwrap(), PutMode::Dup);
        assert_eq!(CURSOR_PUT_MODES.decode(1, "mode").unwrap(), CursorPut::Before);
        assert_eq!(CASKET_COMPRESSION.decode(2, "compression").unwrap(), Compression::Zstd);
        assert_eq!(KEY_ORDERS.decode(1, "cmpfunc").unwrap().id(), "decimal");
        match CURSOR_PUT_MODES.decode(7, "mode") {
            Err(BridgeError::InvalidArgument(m)) => assert_eq!(m, "mode: unknown cursor put mode 7"),
            other => panic!("{:?}", other.map(|_| ())),
        }
    }
}
