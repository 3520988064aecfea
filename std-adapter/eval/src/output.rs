//! The terminal: one policy for everything the `costbo` command prints.
//!
//! Standard output carries results (CSV rows, tables, TOML), so a failure to write it ends the
//! command: a reader that closed the pipe early (`costbo acq pbgi --input big.csv | head -1`)
//! has all it asked for, and the process ends at once, with no message and the status a shell
//! reports for a Unix tool ended by SIGPIPE ([`CLOSED_PIPE_STATUS`]); any other failure (a
//! full disk: `costbo objective list > /dev/full`) is one line on standard error and status 1.
//! Ending there leaves no file half-written: the files a user keeps are written whole or not at
//! all ([`crate::files::write_atomic`], [`crate::files::write_atomic_with`]), and
//! a run ended early resumes.
//!
//! Standard error carries progress and diagnostics: a failure to write there is ignored (the
//! work goes on), and so is a failure to write a progress line ([`progress`]).
//!
//! Rust's `println!` panics on both (exit status 101), which is why the command prints through
//! [`outln!`](crate::outln), [`out!`](crate::out) and [`errln!`](crate::errln) instead.

use std::fmt;
use std::io::{self, Write};

/// Exit status after standard output's reader closed the pipe: 128 + 13 (SIGPIPE), as a shell
/// reports for a Unix tool that the signal ended.
pub const CLOSED_PIPE_STATUS: i32 = 141;

/// Writes to standard output, ending the process as the module says if that fails. Used by
/// [`outln!`](crate::outln) and [`out!`](crate::out).
pub fn stdout(args: fmt::Arguments<'_>, newline: bool) {
    let mut out = io::stdout().lock();
    let written = out.write_fmt(args).and_then(|()| {
        if newline {
            out.write_all(b"\n")
        } else {
            Ok(())
        }
    });
    if let Err(e) = written {
        fail(&e);
    }
}

/// Flushes standard output, ending the process as the module says if that fails (the end of
/// a command's output that did not end with a newline).
pub fn flush() {
    if let Err(e) = io::stdout().flush() {
        fail(&e);
    }
}

/// Characters of a command's final error line before it is cut.
pub const ERROR_CHARS: usize = 500;

/// A command's final error as one readable line: line breaks and tabs become spaces, other
/// control characters are escaped (a name from a file or an argument cannot move the cursor or
/// recolour the terminal), and past [`ERROR_CHARS`] characters the rest is cut, saying how long
/// it was. The messages quote values through [`Shown`]; this is the net under all of them.
pub fn error_line(message: &str) -> String {
    let mut line = String::new();
    for (i, c) in message.trim_end().chars().enumerate() {
        if i == ERROR_CHARS {
            line.push_str(&format!("... ({} bytes in all)", message.len()));
            break;
        }
        match c {
            '\n' | '\r' | '\t' => line.push(' '),
            c if c.is_control() => line.extend(c.escape_unicode()),
            c => line.push(c),
        }
    }
    line
}

/// Writes to standard error, ignoring a failure. Used by [`errln!`](crate::errln).
pub fn stderr(args: fmt::Arguments<'_>) {
    let mut err = io::stderr().lock();
    let _ = err.write_fmt(args).and_then(|()| err.write_all(b"\n"));
}

/// Writes a progress line to standard output, ignoring a failure: progress is not a result,
/// so a closed pipe must not cut a run short before its summary is written.
pub fn progress(line: &str, terminal: bool) {
    let mut out = io::stdout().lock();
    let _ = if terminal {
        write!(out, "\r{line}\x1b[K")
    } else {
        writeln!(out, "{line}")
    };
    let _ = out.flush();
}

/// Ends the process after a failure to write standard output, as the module says.
pub fn fail(e: &io::Error) -> ! {
    if e.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(CLOSED_PIPE_STATUS);
    }
    let _ = writeln!(io::stderr(), "costbo: cannot write to standard output: {e}");
    std::process::exit(1)
}

/// `println!` for results: see [`output`](crate::output).
#[macro_export]
macro_rules! outln {
    () => {
        $crate::output::stdout(format_args!(""), true)
    };
    ($($arg:tt)*) => {
        $crate::output::stdout(format_args!($($arg)*), true)
    };
}

/// `print!` for results: see [`output`](crate::output).
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::stdout(format_args!($($arg)*), false)
    };
}

/// `eprintln!` that never panics: see [`output`](crate::output).
#[macro_export]
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::output::stderr(format_args!($($arg)*))
    };
}

pub use costbo_objectives::shown::{Shown, SHOWN_CHARS};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_line_is_one_line_without_control_characters_and_bounded() {
        assert_eq!(
            error_line("unknown objective `ha\x1b[31mrt`\nsecond\tline\n"),
            "unknown objective `ha\\u{1b}[31mrt` second line"
        );
        let long = format!("value {}", "x".repeat(10_000));
        let line = error_line(&long);
        assert!(line.ends_with("... (10006 bytes in all)"), "{line}");
        assert_eq!(
            line.chars().count(),
            ERROR_CHARS + "... (10006 bytes in all)".len()
        );
    }
}
