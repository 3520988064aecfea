//! The subcommands of `costbo`, one file each (the demo is `costbo-demo`'s and the device tool
//! is the library's [`costbo::device`]), and what several of them share.

pub mod acq;
pub mod causal;
pub mod gp;
pub mod objective;
pub mod pandora;
pub mod reproduce;
pub mod run;

use std::path::Path;

use costbo_lab::csv_matrix::Table;
use costbo_lab::experiment::{Shard, ShardError};

/// `--shard K/N`, parsed here rather than by clap so that a bad value is refused with the
/// command's one-line error (`costbo: shard 5/4: ...`) like every other bad input.
pub(crate) fn parse_shard(shard: Option<&str>) -> Result<Shard, String> {
    shard.map_or(Ok(Shard::WHOLE), |s| {
        s.parse().map_err(|e: ShardError| e.to_string())
    })
}

/// What a shard of `costbo reproduce` says when its share is done.
pub(crate) fn shard_done(shard: Shard, start: std::time::Instant) -> String {
    format!(
        "shard {shard} done in {:.1}s; once every shard is done, the same command without \
         --shard writes the report",
        start.elapsed().as_secs_f64()
    )
}

/// A CSV file with a header row, or one line saying why not.
pub(crate) fn read(path: &Path) -> Result<Table, String> {
    Table::read(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// A number for a CSV cell: Rust's shortest round-trip text, in exponent form where the plain
/// form would run to dozens of digits (a cost of 5e-324 summed, a value of 1e300).
pub(crate) fn csv_number(v: f64) -> String {
    if v == 0.0 || (1e-5..1e16).contains(&v.abs()) {
        v.to_string()
    } else {
        format!("{v:e}")
    }
}

/// Worker threads: the given number (1 to [`MAX_THREADS`]) or the machine's parallelism.
pub(crate) fn worker_threads(jobs: Option<usize>) -> Result<usize, String> {
    match jobs {
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
        Some(j) if (1..=MAX_THREADS).contains(&j) => Ok(j),
        Some(j) => Err(format!(
            "--jobs {j}: must be in 1..={MAX_THREADS} (each worker reserves a {} MiB stack)",
            costbo_lab::experiment::JOB_STACK >> 20
        )),
    }
}

/// Most worker threads (`--jobs`).
pub(crate) const MAX_THREADS: usize = 1024;
