//! The command line of the lab's programs (`costbo`, `costbo-demo`): parsed by clap, with every
//! refusal in one line.

use clap::{CommandFactory, FromArgMatches};

/// Lets every option that takes a value take a negative number (`--noise -0.01` is the value
/// -0.01, refused as negative by the check of that setting, not read as an unknown flag).
pub fn negative_numbers(cmd: clap::Command) -> clap::Command {
    cmd.mut_args(|a| {
        if a.get_action().takes_values() {
            a.allow_negative_numbers(true)
        } else {
            a
        }
    })
    .mut_subcommands(negative_numbers)
}

/// The command line, parsed; a bad one ends the process with clap's first line of error (one
/// line, like every other refusal, prefixed with `program`) and exit code 2. Help and version
/// print in full.
pub fn parse<T: CommandFactory + FromArgMatches>(program: &str) -> T {
    let matches = negative_numbers(T::command())
        .try_get_matches()
        .and_then(|m| T::from_arg_matches(&m));
    match matches {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // Help and version: printed in full, under the output policy.
            if let Err(io) = e.print() {
                crate::output::fail(&io);
            }
            crate::output::flush();
            std::process::exit(e.exit_code())
        }
        Err(e) => {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("invalid arguments");
            crate::errln!(
                "{program}: {} (see --help)",
                first.strip_prefix("error: ").unwrap_or(first)
            );
            std::process::exit(2)
        }
    }
}

/// Ends the program: status 0 after flushing standard output, or one line on standard error
/// (`program: error`) and status 1.
pub fn finish(program: &str, result: Result<(), String>) -> std::process::ExitCode {
    match result {
        Ok(()) => {
            crate::output::flush();
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            crate::errln!("{program}: {}", crate::output::error_line(&e));
            std::process::ExitCode::FAILURE
        }
    }
}
