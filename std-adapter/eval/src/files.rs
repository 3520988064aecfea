//! Files written whole or not at all: every file the lab keeps (a job's CSV, a report, a
//! figure) goes through a temporary file beside it and a rename, synced on both sides, so a
//! power cut, a full disk or a `kill -9` leaves the old file or the whole new one.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Writes `text` to `path` through a temporary file and a rename, so that a file that exists is
/// complete, and makes it durable: the temporary file is synced before the rename and the
/// directory after it, so that after a power cut the file holds either its old content or
/// the whole new one (without the syncs, a file system may commit the rename before the
/// data, leaving an empty or truncated file under the final name).
///
/// The temporary file's name is unique to the machine, the process and the call (so a job's
/// CSV and its time file, written one after the other, never share one): shards of a grid on
/// other machines write the same shared files (a cell's `cell.txt`, the cached best values)
/// into one directory at the same time, and with a shared temporary name one writer's rename
/// could move another's half-written file into place, or fail because it was already moved.
pub fn write_atomic(path: &Path, text: &str) -> Result<(), String> {
    let tmp = temporary_name(path);
    let written = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("{}: {e}", tmp.display()));
    }
    if let Err(e) = std::fs::rename(&tmp, path) {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("{}: {e}", path.display()));
    }
    sync_directory(path.parent().unwrap_or(Path::new(".")))
}

/// Writes a file through `write`, which is handed a temporary path beside `path` with the same
/// extension (a writer that picks its format by the extension, as the figures' PNG encoder
/// does, sees the right one); then syncs the file and renames it to `path`, so `path` holds the
/// whole file or what it held before, never a file cut short (a full disk, a crash).
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<(), String> {
    let mut tmp = temporary_name(path);
    if let Some(extension) = path.extension() {
        tmp = tmp.with_extension(format!("tmp.{}", extension.to_string_lossy()));
    }
    let written = write(&tmp).and_then(|()| {
        std::fs::File::open(&tmp)
            .and_then(|f| f.sync_all())
            .map_err(|e| format!("{}: {e}", tmp.display()))
    });
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    if let Err(e) = std::fs::rename(&tmp, path) {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("{}: {e}", path.display()));
    }
    sync_directory(path.parent().unwrap_or(Path::new(".")))
}

/// Creates `dir` and checks that a file can be written in it, so that a command fails at
/// once, not after its jobs have run, when its output directory cannot be written (a file
/// where a directory should be, no permission, a read-only file system).
pub fn ensure_writable(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("{}: cannot create the output directory: {e}", dir.display()))?;
    let probe = temporary_name(&dir.join("write-probe"));
    std::fs::File::create(&probe)
        .and_then(|mut f| f.write_all(b"probe"))
        .map_err(|e| {
            format!(
                "{}: cannot write in the output directory: {e}",
                dir.display()
            )
        })?;
    std::fs::remove_file(&probe).map_err(|e| format!("{}: {e}", probe.display()))
}

/// A temporary name beside `path`, unique to this machine, process and call.
pub fn temporary_name(path: &Path) -> PathBuf {
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let name = path
        .file_name()
        .map_or("file".into(), |n| n.to_string_lossy());
    path.with_file_name(format!(
        ".{name}.{}-{}-{}.tmp",
        hostname(),
        std::process::id(),
        CALLS.fetch_add(1, Ordering::Relaxed)
    ))
}

/// Commits a directory's entries (a rename into it) to disk. Where directories cannot be
/// opened for syncing (not Unix), the rename's durability is the file system's.
fn sync_directory(dir: &Path) -> Result<(), String> {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    if cfg!(unix) {
        std::fs::File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    Ok(())
}

/// This machine's name, to keep temporary files of processes with the same id on different
/// machines of a cluster apart on a shared file system (empty where it cannot be read).
fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::env::var("HOSTNAME"))
        .map(|h| h.trim().replace(['/', '\\'], "_"))
        .unwrap_or_default()
}

/// CPU seconds (user + system) of the calling thread, from `/proc/thread-self/stat` (Linux; in
/// clock ticks of 1/100 s, the value of `USER_HZ` on every Linux architecture).
pub fn thread_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // Fields after the command name (which may hold spaces) start at field 3.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    let user: f64 = fields.get(11)?.parse().ok()?;
    let system: f64 = fields.get(12)?.parse().ok()?;
    Some((user + system) / 100.0)
}
