//! The optimizer's one error type.

use std::fmt;

/// Longest message kept, in bytes; past it the message is cut and says how long it was.
pub const MESSAGE_BYTES: usize = 2000;

/// What kind of thing went wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The experiment file is not valid (the message names the entry), or asks for sizes the
    /// optimizer does not hold.
    Experiment,
    /// A file could not be read.
    Io,
    /// An argument was refused: not finite, out of bounds, the wrong length, a non-positive
    /// cost, a controlled value other than the one asked for.
    Input,
    /// A call out of turn: `tell` with no decision pending, `skip` without a costly
    /// measurement, `tell` where `query` said to skip.
    Sequence,
    /// The model could not take the data (a kernel matrix that cannot be factorised even
    /// with jitter), or found no decision.
    Model,
    /// A saved state that is damaged, foreign or inconsistent with its experiment.
    State,
    /// The machine could not give what a large model needs (a thread with a large stack).
    Resources,
}

/// Why a call failed. The optimizer is unchanged; the message names the offending setting or
/// value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        let mut message: String = message.into();
        // Parsers quote what they could not read (a TOML error shows the line, serde a
        // string value): a 100 MB line given by mistake must not come back as the message.
        if message.len() > MESSAGE_BYTES {
            let mut end = MESSAGE_BYTES;
            while !message.is_char_boundary(end) {
                end -= 1;
            }
            let all = message.len();
            message.truncate(end);
            message.push_str(&format!("... ({all} bytes in all)"));
        }
        Error { kind, message }
    }

    pub(crate) fn no_thread(e: std::io::Error) -> Self {
        Error::new(
            ErrorKind::Resources,
            format!(
                "cannot start the thread the model computes on ({e}): its stack reserves 64 MiB \
                 of address space or more (64 MiB per 1024 slots of an optimizer's capacity, \
                 256 MiB for a GP); raise the process's limits on threads or virtual memory \
                 (ulimit -u, ulimit -v) or lower the capacity"
            ),
        )
    }

    /// The kind of error.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message (what [`Display`](fmt::Display) prints).
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}
