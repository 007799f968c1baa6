//! Ctrl-C (SIGINT) and SIGTERM during an export, import or verification.
//!
//! Killed outright, an export would leave its temporary `.FILE.*.partial` beside the target
//! and an import a half-built store directory that the next import refuses as "not empty".
//! Instead the first signal only raises a flag; the progress listener, which the core calls
//! every 100 ms, turns it into an error, and the core's own error path removes what it had
//! written. The handler is installed with SA_RESETHAND, so a second signal kills at once.
//!
//! In a host process that owns the signals (the JVM, `Signals::Host`) no handler is installed:
//! the host calls `request` when it is told to stop.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

use rockcask_core::Error;

use crate::Signals;

/// The signal received, 0 for none.
static RECEIVED: AtomicI32 = AtomicI32::new(0);

/// Whether `install` installs handlers (`Signals::Own`).
static OWN: AtomicBool = AtomicBool::new(true);

#[cfg(unix)]
extern "C" fn on_signal(signal: libc::c_int) {
    // Only an atomic store: anything else is not async-signal-safe.
    RECEIVED.store(signal, Ordering::SeqCst);
}

pub fn set_handling(signals: Signals) {
    OWN.store(signals == Signals::Own, Ordering::SeqCst);
}

/// What the host calls to stop the work: as if Ctrl-C (SIGINT) had been caught.
pub fn request() {
    RECEIVED.store(libc::SIGINT, Ordering::SeqCst);
}

/// Catch the first SIGINT and SIGTERM from now on, unless the host owns the signals. Where
/// there is no sigaction (Windows), the binary keeps the default: Ctrl-C ends it at once.
pub fn install() {
    if !OWN.load(Ordering::SeqCst) {
        return;
    }
    #[cfg(unix)]
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: `on_signal` only stores to an atomic; the sigaction struct is zeroed and then
        // filled in completely as sigaction(2) requires.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESETHAND | libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

/// True once a signal has been caught.
pub fn requested() -> bool {
    RECEIVED.load(Ordering::SeqCst) != 0
}

/// The exit code a shell expects of a command stopped by the signal received (128 + number).
pub fn exit_code() -> u8 {
    (128 + RECEIVED.load(Ordering::SeqCst)).clamp(0, 255) as u8
}

/// An error that stops the core's work, if a signal has been caught.
pub fn check() -> Result<(), Error> {
    if !requested() {
        return Ok(());
    }
    Err(Error::Io {
        context: "interrupted".into(),
        source: std::io::Error::new(
            std::io::ErrorKind::Interrupted,
            "stopped by a signal; nothing was left behind",
        ),
    })
}
