//! `org.rockcask.internal.cli.CliNative`: the `rockcask` CLI (`rockcask-cli`) run inside the JVM,
//! for `java -jar rockcask-<version>.jar`. The CLI writes to the process's stdout and stderr
//! itself; the JVM keeps its signal handlers and stops a running command through `interrupt`.

use jni::Env;
use rockcask_cli::Signals;

use crate::args::CommandLine;
use crate::error::BridgeResult;
use crate::native_table::native_class;

native_class! {
    pub const NATIVES = "org/rockcask/internal/cli/CliNative" {
        fn run(args: CommandLine) -> i32 = run;
        fn interrupt() -> () = interrupt;
    }
}

/// The CLI's exit code for the command line `args` (the first is the program's name).
fn run(_env: &mut Env<'_>, args: CommandLine) -> BridgeResult<i32> {
    Ok(i32::from(rockcask_cli::run(args.0, Signals::Host)))
}

fn interrupt(_env: &mut Env<'_>) -> BridgeResult<()> {
    rockcask_cli::interrupt();
    Ok(())
}
