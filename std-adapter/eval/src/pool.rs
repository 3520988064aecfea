//! A pool of scoped worker threads for the studies' grids: each worker takes the next job in
//! order until none is left, so jobs start in the order given (a stopped grid has finished a
//! prefix, give or take the jobs in flight) and a long job never holds the others back.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Errors collected from several threads, in the order they arrived.
#[derive(Debug, Default)]
pub struct Errors(Mutex<Vec<String>>);

impl Errors {
    /// Records one error (a poisoned lock still records: the list is plain data).
    pub fn push(&self, e: String) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).push(e);
    }

    /// The errors, or `Ok` if there were none: `"N jobs failed; first: ..."`.
    pub fn into_result(self) -> Result<(), String> {
        let errors = self.0.into_inner().unwrap_or_else(|p| p.into_inner());
        match errors.first() {
            None => Ok(()),
            Some(first) => Err(format!("{} jobs failed; first: {first}", errors.len())),
        }
    }
}

/// Runs `work(i, &jobs[i])` for every job on `threads` workers (at least one) of `stack_bytes`
/// of stack each, and returns when all have run. A worker that cannot be started is reported
/// as an error; the workers that did start still run every job.
pub fn for_each<T: Sync>(
    jobs: &[T],
    threads: usize,
    stack_bytes: usize,
    work: impl Fn(usize, &T) + Sync,
) -> Result<(), String> {
    let next = AtomicUsize::new(0);
    let mut refused = None;
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            let worker = std::thread::Builder::new().stack_size(stack_bytes);
            let spawned = worker.spawn_scoped(s, || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                work(i, job);
            });
            if let Err(e) = spawned {
                refused.get_or_insert_with(|| format!("worker thread: {e}"));
            }
        }
    });
    // The workers that started have run every job; a refused one still says the machine is
    // short of threads or memory, which the caller reports.
    match refused {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_job_runs_once_with_its_index() {
        for threads in [0, 1, 3, 8] {
            let seen: Vec<AtomicUsize> = (0..50).map(|_| AtomicUsize::new(0)).collect();
            let jobs: Vec<usize> = (0..50).map(|i| 1000 + i).collect();
            for_each(&jobs, threads, 1 << 20, |i, &j| {
                assert_eq!(j, 1000 + i);
                seen[i].fetch_add(1, Ordering::Relaxed);
            })
            .unwrap();
            assert!(seen.iter().all(|c| c.load(Ordering::Relaxed) == 1));
        }
    }

    #[test]
    fn errors_count_and_keep_the_first() {
        let e = Errors::default();
        assert_eq!(Errors::default().into_result(), Ok(()));
        e.push("a".into());
        e.push("b".into());
        assert_eq!(e.into_result(), Err("2 jobs failed; first: a".into()));
    }
}
