//! `--shard K/N`: machine K of N runs a disjoint, deterministic share of a grid's jobs into a
//! shared output directory.
//!
//! The share is by position in the grid's stable job order (cells in grid order, each cell's
//! seeds in seed order): job `i` (0-based) belongs to shard `i mod N + 1`. Position, not a hash
//! of the job's name, so the shares are as even as they can be, and round-robin over the
//! cell-major order, so that every shard gets some seeds of every cell rather than whole slow
//! cells. The order depends only on the settings, so N machines agree on it without talking to
//! each other, and no two shards own the same job.

use std::fmt;
use std::str::FromStr;

/// One share of a grid: shard `index` (1-based) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shard {
    index: usize,
    count: usize,
}

/// Why a `--shard` value was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShardError {
    /// Not of the form `K/N` with K and N whole numbers.
    Syntax(String),
    /// N is 0.
    NoShards,
    /// K is outside `1..=N`.
    OutOfRange {
        /// The K given.
        index: usize,
        /// The N given.
        count: usize,
    },
}

impl fmt::Display for ShardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShardError::Syntax(s) => write!(
                f,
                "shard `{s}`: expected K/N with whole numbers 1 ≤ K ≤ N (e.g. 2/4)"
            ),
            ShardError::NoShards => write!(f, "shard count N is 0: expected K/N with N ≥ 1"),
            ShardError::OutOfRange { index, count } => write!(
                f,
                "shard {index}/{count}: K must be between 1 and {count} (shards are numbered \
                 from 1, as Slurm's array tasks with --array=1-{count})"
            ),
        }
    }
}

impl std::error::Error for ShardError {}

impl Shard {
    /// The whole grid: shard 1 of 1.
    pub const WHOLE: Shard = Shard { index: 1, count: 1 };

    /// Shard `index` (1-based) of `count`.
    pub fn new(index: usize, count: usize) -> Result<Shard, ShardError> {
        if count == 0 {
            Err(ShardError::NoShards)
        } else if index == 0 || index > count {
            Err(ShardError::OutOfRange { index, count })
        } else {
            Ok(Shard { index, count })
        }
    }

    /// K, 1-based.
    pub fn index(&self) -> usize {
        self.index
    }

    /// N.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Whether this is the whole grid (N = 1).
    pub fn is_whole(&self) -> bool {
        self.count == 1
    }

    /// Whether the job at 0-based `position` of the grid's job order is this shard's.
    pub fn owns(&self, position: usize) -> bool {
        position % self.count == self.index - 1
    }

    /// A file stem naming the shard, `shard-K-of-N`.
    pub fn stem(&self) -> String {
        format!("shard-{}-of-{}", self.index, self.count)
    }
}

impl Default for Shard {
    fn default() -> Shard {
        Shard::WHOLE
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(s: &str) -> Result<Shard, ShardError> {
        let syntax = || ShardError::Syntax(s.to_string());
        let (k, n) = s.trim().split_once('/').ok_or_else(syntax)?;
        // Digits only: `parse` would accept a leading `+`, which no scheduler writes.
        let number = |t: &str| {
            let t = t.trim();
            if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
                return Err(syntax());
            }
            t.parse::<usize>().map_err(|_| syntax())
        };
        Shard::new(number(k)?, number(n)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_positions() {
        for n in 1..=5 {
            for p in 0..40 {
                let owners: Vec<usize> = (1..=n)
                    .filter(|&k| Shard::new(k, n).is_ok_and(|s| s.owns(p)))
                    .collect();
                assert_eq!(owners.len(), 1, "position {p} of {n} shards: {owners:?}");
            }
        }
    }

    #[test]
    fn parsing_accepts_k_of_n_and_refuses_the_rest() {
        assert_eq!("2/4".parse::<Shard>(), Shard::new(2, 4));
        assert_eq!("1/1".parse::<Shard>(), Ok(Shard::WHOLE));
        assert_eq!(
            "0/4".parse::<Shard>(),
            Err(ShardError::OutOfRange { index: 0, count: 4 })
        );
        assert_eq!(
            "5/4".parse::<Shard>(),
            Err(ShardError::OutOfRange { index: 5, count: 4 })
        );
        assert_eq!("1/0".parse::<Shard>(), Err(ShardError::NoShards));
        for bad in [
            "x", "", "2", "2/", "/4", "-1/4", "+1/4", "1/4/2", "a/b", "1.5/4",
        ] {
            assert!(
                matches!(bad.parse::<Shard>(), Err(ShardError::Syntax(_))),
                "{bad:?}"
            );
        }
    }
}
