//! What the command's tests share.

use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

/// Waits for `child` at most `limit`; if it has not ended by then, kills it and panics naming
/// `what` (a hang is a failure, never a stuck test run).
pub fn wait_within(child: &mut Child, limit: Duration, what: &str) -> ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("costbo {what} did not finish within {} s", limit.as_secs());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
