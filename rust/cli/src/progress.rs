//! A progress bar on stderr for export, import and verify: how far, how fast, how long still.
//!
//! On a terminal the bar is redrawn in place (`\r`) each time the core reports (every 100 ms).
//! Elsewhere nothing is drawn unless `--progress` asks for it, and then as plain lines at most
//! once a second, which reads well in a log file. Drawn by hand: one line of text does not
//! justify a dependency.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use rockcask_core::snapshot::Progress;

use crate::args::Output;
use crate::render::{human_bytes, megabytes};

/// What the fraction done is measured in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// Records against an estimate (an export: the file's size is unknown until the end).
    Records,
    /// Bytes of the file against its size (an import or a verification).
    Bytes,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Off,
    Terminal,
    Lines,
}

const BAR_WIDTH: usize = 20;
const LINES_INTERVAL: Duration = Duration::from_secs(1);

pub struct ProgressBar {
    label: &'static str,
    measure: Measure,
    mode: Mode,
    start: Instant,
    /// Characters of the line on screen, to blank out what a shorter line leaves behind.
    drawn_len: usize,
    last_line: Option<Instant>,
}

impl ProgressBar {
    pub fn new(label: &'static str, measure: Measure, output: &Output) -> ProgressBar {
        let mode = if output.quiet {
            Mode::Off
        } else if std::io::stderr().is_terminal() {
            Mode::Terminal
        } else if output.progress {
            Mode::Lines
        } else {
            Mode::Off
        };
        ProgressBar {
            label,
            measure,
            mode,
            start: Instant::now(),
            drawn_len: 0,
            last_line: None,
        }
    }

    /// The listener to hand to the core. It also stops the work once Ctrl-C was pressed.
    pub fn listener(&mut self) -> impl FnMut(&Progress) -> rockcask_core::Result<()> + '_ {
        move |p| {
            crate::interrupt::check()?;
            self.update(p);
            Ok(())
        }
    }

    fn update(&mut self, p: &Progress) {
        match self.mode {
            Mode::Off => {}
            Mode::Terminal => {
                let line = self.line(p);
                let pad = self.drawn_len.saturating_sub(line.chars().count());
                self.drawn_len = line.chars().count();
                let mut err = std::io::stderr().lock();
                let _ = write!(err, "\r{line}{:pad$}", "");
                if p.done {
                    let _ = writeln!(err);
                    self.drawn_len = 0;
                }
                let _ = err.flush();
            }
            Mode::Lines => {
                if p.done || self.last_line.is_none_or(|t| t.elapsed() >= LINES_INTERVAL) {
                    self.last_line = Some(Instant::now());
                    eprintln!("{}", self.line(p));
                }
            }
        }
    }

    fn line(&self, p: &Progress) -> String {
        let elapsed = self.start.elapsed().as_secs_f64();
        let (done, expected) = match self.measure {
            Measure::Records => (p.records, p.records_expected),
            Measure::Bytes => (p.bytes, p.bytes_expected),
        };
        let fraction = if p.done {
            Some(1.0)
        } else if expected > 0 {
            // The export's record count is an estimate: never claim to be done before the end.
            Some((done as f64 / expected as f64).min(0.99))
        } else {
            None
        };
        let bar = match fraction {
            Some(f) => {
                let full = (f * BAR_WIDTH as f64).round() as usize;
                format!(
                    "[{}{}] {:>3.0}%",
                    "#".repeat(full),
                    "-".repeat(BAR_WIDTH - full),
                    f * 100.0
                )
            }
            None => format!("[{}]    ?", "?".repeat(BAR_WIDTH)),
        };
        let rate = if elapsed > 0.0 {
            megabytes(p.bytes) / elapsed
        } else {
            0.0
        };
        let amount = match self.measure {
            Measure::Records => format!("{} records, {} written", p.records, human_bytes(p.bytes)),
            Measure::Bytes => format!("{} / {}", human_bytes(p.bytes), human_bytes(p.bytes_expected)),
        };
        let eta = match fraction {
            _ if p.done => format!("in {}", clock(elapsed)),
            Some(f) if f > 0.0 && elapsed >= 0.2 => format!("ETA {}", clock(elapsed * (1.0 - f) / f)),
            _ => "ETA --:--".to_string(),
        };
        format!("{:<6} {bar}  {amount}  {rate:.1} MB/s  {eta}", self.label)
    }
}

impl Drop for ProgressBar {
    /// An error ends the work with the bar half drawn: end its line so the error message that
    /// follows starts on a line of its own.
    fn drop(&mut self) {
        if self.mode == Mode::Terminal && self.drawn_len > 0 {
            eprintln!();
        }
    }
}

/// `m:ss`, or `h:mm:ss` from an hour on.
fn clock(seconds: f64) -> String {
    let s = seconds.round().max(0.0) as u64;
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bar(measure: Measure) -> ProgressBar {
        ProgressBar {
            label: "test",
            measure,
            mode: Mode::Off,
            start: Instant::now() - Duration::from_secs(10),
            drawn_len: 0,
            last_line: None,
        }
    }

    #[test]
    fn an_export_bar_counts_records_and_never_reaches_100_percent_before_the_end() {
        let b = bar(Measure::Records);
        let line = b.line(&Progress {
            records: 500,
            records_expected: 1000,
            bytes: 20_000_000,
            ..Default::default()
        });
        assert!(
            line.contains(" 50%")
                && line.contains("500 records, 20.0 MB written")
                && line.contains("2.0 MB/s")
                && line.contains("ETA 0:10"),
            "{line}"
        );
        let over = b.line(&Progress {
            records: 1500,
            records_expected: 1000,
            ..Default::default()
        });
        assert!(over.contains(" 99%"), "{over}");
        let done = b.line(&Progress {
            records: 1500,
            records_expected: 1500,
            done: true,
            ..Default::default()
        });
        assert!(done.contains("100%") && done.contains("in 0:10"), "{done}");
    }

    #[test]
    fn an_import_bar_counts_bytes_of_the_file() {
        let line = bar(Measure::Bytes).line(&Progress {
            bytes: 25_000_000,
            bytes_expected: 100_000_000,
            ..Default::default()
        });
        assert!(
            line.contains(" 25%") && line.contains("25.0 MB / 100.0 MB") && line.contains("ETA 0:30"),
            "{line}"
        );
        let unknown = bar(Measure::Bytes).line(&Progress::default());
        assert!(unknown.contains("?") && unknown.contains("ETA --:--"), "{unknown}");
    }

    #[test]
    fn clocks_show_hours_only_when_needed() {
        assert_eq!(clock(65.4), "1:05");
        assert_eq!(clock(3725.0), "1:02:05");
    }
}
