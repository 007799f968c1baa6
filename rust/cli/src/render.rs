//! Turning bytes, names and numbers into output a script can split on tabs and newlines.
//!
//! Hand-written (a few lines each) rather than pulling in crates for hex, base64 and JSON.

use std::fmt::Write as _;

/// Text form of arbitrary bytes on one line: UTF-8 with invalid sequences as U+FFFD, and every
/// control character escaped, so a payload can never break the `a<TAB>b<TAB>c` line it is in.
/// Backslash is escaped too, which keeps the form unambiguous.
pub fn escape_text(bytes: &[u8], out: &mut String) {
    for c in String::from_utf8_lossy(bytes).chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
}

/// A payload in text form; `-` is reserved for "object deleted", so a payload that is exactly
/// `-` is escaped.
impl crate::args::PayloadFormat {
    /// The function writing a payload in this format.
    pub fn renderer(self) -> fn(&[u8], &mut String) {
        match self {
            crate::args::PayloadFormat::Text => payload_text,
            crate::args::PayloadFormat::Hex => hex,
            crate::args::PayloadFormat::Base64 => base64,
        }
    }
}

pub fn payload_text(bytes: &[u8], out: &mut String) {
    if bytes == b"-" {
        out.push_str("\\u{2d}");
    } else {
        escape_text(bytes, out);
    }
}

pub fn hex(bytes: &[u8], out: &mut String) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    out.reserve(bytes.len() * 2);
    for &b in bytes {
        out.push(DIGITS[(b >> 4) as usize] as char);
        out.push(DIGITS[(b & 0x0F) as usize] as char);
    }
}

/// RFC 4648 base64, standard alphabet, with padding.
pub fn base64(bytes: &[u8], out: &mut String) {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    out.reserve(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n =
            (chunk[0] as u32) << 16 | (*chunk.get(1).unwrap_or(&0) as u32) << 8 | *chunk.get(2).unwrap_or(&0) as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 0x3F) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
}

/// A JSON string literal (quotes included).
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Milliseconds since the epoch as an ISO 8601 UTC time, e.g. `2023-11-14T22:13:20.000Z`.
pub fn utc_time(unix_millis: i64) -> String {
    let secs = unix_millis.div_euclid(1000);
    let millis = unix_millis.rem_euclid(1000);
    let (days, day_secs) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        day_secs / 3600,
        day_secs / 60 % 60,
        day_secs % 60
    )
}

/// Year, month, day of a count of days since 1970-01-01 in the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Bytes in decimal megabytes, as disk and network rates are usually quoted.
pub fn megabytes(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

/// A short human size: `512 B`, `1.5 KB`, `12.3 MB`, `4.0 GB` (decimal units).
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(f: fn(&[u8], &mut String), bytes: &[u8]) -> String {
        let mut s = String::new();
        f(bytes, &mut s);
        s
    }

    #[test]
    fn text_escapes_everything_that_could_break_a_line() {
        assert_eq!(
            with(escape_text, b"a\tb\nc\rd\\e\0f\x1bg\x7f"),
            "a\\tb\\nc\\rd\\\\e\\0f\\u{1b}g\\u{7f}"
        );
        assert_eq!(with(escape_text, "héllo ✓".as_bytes()), "héllo ✓");
        assert_eq!(with(escape_text, b"bad \xff byte"), "bad \u{fffd} byte");
        assert_eq!(with(payload_text, b"-"), "\\u{2d}");
        assert_eq!(with(payload_text, b"--"), "--");
        assert_eq!(with(payload_text, b""), "");
    }

    #[test]
    fn hex_and_base64_match_their_rfc_test_vectors() {
        assert_eq!(with(hex, b"\x00\x0f\xab\xff"), "000fabff");
        // RFC 4648, section 10.
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(with(base64, plain.as_bytes()), encoded);
        }
        assert_eq!(with(base64, &[0xfb, 0xff]), "+/8=");
    }

    #[test]
    fn json_strings_escape_quotes_backslashes_and_controls() {
        assert_eq!(json_string("a\"b\\c\nd\u{1}"), "\"a\\\"b\\\\c\\nd\\u0001\"");
    }

    #[test]
    fn utc_times_are_iso_8601() {
        assert_eq!(utc_time(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(utc_time(1_700_000_000_123), "2023-11-14T22:13:20.123Z");
        assert_eq!(utc_time(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(utc_time(-1), "1969-12-31T23:59:59.999Z");
    }

    #[test]
    fn human_sizes_use_decimal_units() {
        assert_eq!(human_bytes(999), "999 B");
        assert_eq!(human_bytes(1_500), "1.5 KB");
        assert_eq!(human_bytes(12_345_678), "12.3 MB");
    }
}
