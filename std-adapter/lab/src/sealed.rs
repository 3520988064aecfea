//! Result files that prove they are whole: the per-job files of the paper-002, 003 and 004
//! studies (`costbo reproduce pandora | costly-feedback | causal`).
//!
//! A job's file is written atomically and synced (see [`write_atomic`]), so a crash normally
//! leaves either the old state or the whole file. A power cut on a file system that does not
//! order the rename after the data, a copy cut short, or a disk error can still leave a file
//! that parses but is not what the job wrote — cut at a line boundary, or inside the last
//! number (`0.1234` read back as `0.12`). So every file ends with a seal line holding the
//! length and FNV-1a hash of everything before it, and a reader takes a file as finished only
//! if the seal matches. A file without a seal (cut short, or written before seals existed) or
//! with a wrong one is reported as damaged, and the study runs that job again (see
//! [`pending`]). The runner's grids (`costbo run`) keep the same record in each job's time
//! file instead (see [`crate::experiment::read_job`]).

use std::path::Path;

use crate::experiment::write_atomic;

/// Start of the seal line, the last line of a sealed file.
const SEAL: &str = "# sealed: ";

/// The seal of `body`: its length in bytes and its FNV-1a hash (the runner's job record's
/// hash, [`crate::experiment::judge`]): a check against accidents (truncation, bit rot), not
/// tampering.
fn seal(body: &str) -> String {
    format!(
        "{SEAL}{} bytes, fnv1a {:016x}\n",
        body.len(),
        crate::experiment::judge::fnv(body)
    )
}

/// Writes `body` and its seal to `path` atomically and durably, creating the parent
/// directories. `body` must end with a newline (every line whole) so that the seal is a line
/// of its own.
pub fn write_sealed(path: &Path, body: &str) -> Result<(), String> {
    if !body.is_empty() && !body.ends_with('\n') {
        return Err(format!(
            "{}: a sealed file's body must end with a newline",
            path.display()
        ));
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    write_atomic(path, &(body.to_string() + &seal(body)))
}

/// What a sealed file on disk holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sealed {
    /// No file: the job has not finished.
    Missing,
    /// The file is whole: its body, without the seal.
    Intact(String),
    /// The file is not what a finished job wrote; the reason, in words.
    Damaged(String),
}

/// Reads `path` and checks its seal (see the module docs).
pub fn read_sealed(path: &Path) -> Sealed {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Sealed::Missing,
        Err(e) => return Sealed::Damaged(format!("unreadable ({e})")),
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return Sealed::Damaged("not UTF-8 text".into());
    };
    if text.is_empty() {
        return Sealed::Damaged("empty".into());
    }
    if !text.ends_with('\n') {
        return Sealed::Damaged("its last line is cut short".into());
    }
    // The seal is the last line; the body is everything before it.
    let without_newline = &text[..text.len() - 1];
    let start = without_newline.rfind('\n').map_or(0, |i| i + 1);
    let (body, last) = text.split_at(start);
    if !last.starts_with(SEAL) {
        return Sealed::Damaged("no seal (cut short, or written before seals existed)".into());
    }
    if last != seal(body) {
        return Sealed::Damaged(format!(
            "its seal says `{}` but the {} bytes before it do not match (damaged)",
            last.trim_end(),
            body.len()
        ));
    }
    Sealed::Intact(body.to_string())
}

/// Reads a sealed job file and parses its body with `parse`; `None` when the job must run
/// (again). A file that exists but is damaged, or whose body `parse` refuses, is reported on
/// stderr (with `path` and the reason) before `None` is returned, so that a resumed study says
/// which jobs it runs again and why.
pub fn read_job<T>(path: &Path, parse: impl FnOnce(&str) -> Option<T>) -> Option<T> {
    match read_sealed(path) {
        Sealed::Missing => None,
        Sealed::Damaged(why) => {
            errln!("costbo: {}: {why}; running the job again", path.display());
            None
        }
        Sealed::Intact(body) => {
            let parsed = parse(&body);
            if parsed.is_none() {
                errln!(
                    "costbo: {}: sealed but not a finished job of these settings; running \
                     the job again",
                    path.display()
                );
            }
            parsed
        }
    }
}

/// Reads a sealed job file quietly (for summaries after the jobs ran): the parsed body of a
/// whole file, `None` otherwise.
pub fn read_finished<T>(path: &Path, parse: impl FnOnce(&str) -> Option<T>) -> Option<T> {
    match read_sealed(path) {
        Sealed::Intact(body) => parse(&body),
        Sealed::Missing | Sealed::Damaged(_) => None,
    }
}

/// Whether the job whose file is `path` must run (again); see [`read_job`].
pub fn pending<T>(path: &Path, parse: impl FnOnce(&str) -> Option<T>) -> bool {
    read_job(path, parse).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("costbo-sealed-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn a_sealed_file_reads_back_its_body() {
        let d = dir("round-trip");
        let path = d.join("a/b/job.csv");
        let body = "x,y\n1,0.25\n2,0.5\n";
        write_sealed(&path, body).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        // The seal: 17 bytes, FNV-1a of the body computed independently below.
        let mut h: u64 = 14_695_981_039_346_656_037;
        for b in body.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(1_099_511_628_211);
        }
        assert_eq!(text, format!("{body}# sealed: 17 bytes, fnv1a {h:016x}\n"));
        assert_eq!(read_sealed(&path), Sealed::Intact(body.into()));
        let _ = std::fs::remove_dir_all(d);
    }

    #[test]
    fn every_cut_and_every_flipped_byte_is_detected() {
        let d = dir("damage");
        let path = d.join("job.csv");
        let body = "method,regret\nce,0.1234\nber,0.5\n";
        write_sealed(&path, body).unwrap();
        let whole = std::fs::read(&path).unwrap();
        for cut in 0..whole.len() {
            std::fs::write(&path, &whole[..cut]).unwrap();
            assert!(
                matches!(read_sealed(&path), Sealed::Damaged(_)),
                "cut at {cut} read as whole"
            );
        }
        for i in 0..whole.len() {
            let mut b = whole.clone();
            b[i] ^= 0x01;
            std::fs::write(&path, &b).unwrap();
            assert!(
                matches!(read_sealed(&path), Sealed::Damaged(_)),
                "flip at {i} read as whole"
            );
        }
        // An unsealed file (the shape studies wrote before seals) is damaged, not finished.
        std::fs::write(&path, body).unwrap();
        assert!(matches!(read_sealed(&path), Sealed::Damaged(_)));
        assert_eq!(read_sealed(&d.join("none.csv")), Sealed::Missing);
        let _ = std::fs::remove_dir_all(d);
    }

    #[test]
    fn a_body_without_its_last_newline_is_refused() {
        let d = dir("newline");
        assert!(write_sealed(&d.join("x.csv"), "a,b\n1,2").is_err());
        assert!(!d.join("x.csv").exists());
        let _ = std::fs::remove_dir_all(d);
    }
}
