//! The studies of papers 002–004 (`costbo reproduce pandora | costly-feedback | causal`) keep
//! one sealed file per job (see `costbo_lab::sealed`). Whatever a power cut leaves of those
//! files — cut at a line boundary, cut inside a number, emptied, a byte changed, an unsealed
//! file of an earlier version, a file gone, a stray temporary file — the next run says which
//! jobs it runs again and ends with the summary of an uninterrupted run, byte for byte.

use std::path::{Path, PathBuf};
use std::process::Command;

fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "costbo-durable-studies-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Runs `costbo reproduce STUDY --quick` (with `extra` arguments) into `out` on one thread;
/// returns stderr.
fn reproduce(study: &str, extra: &[&str], out: &Path) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_costbo"))
        .args(["reproduce", study, "--quick", "--jobs", "1"])
        .args(extra)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "costbo reproduce {study}: {stderr}");
    stderr
}

/// Every job file under `dir` (the CSVs outside `figures/`, but for a report's finals file),
/// sorted.
fn job_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                if p.file_name().is_some_and(|n| n != "figures") {
                    stack.push(p);
                }
            } else if p.extension().is_some_and(|x| x == "csv")
                // A finals file beside a report is the report's, rewritten by every run.
                && !p.to_string_lossy().ends_with(".finals.csv")
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The ways a power cut or a disk can leave a job file; each returns the damaged bytes.
fn damages(whole: &[u8]) -> Vec<(&'static str, Option<Vec<u8>>)> {
    let text = std::str::from_utf8(whole).unwrap();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let n = lines.len();
    // The body without its seal, and without its last row as well: both end at a line
    // boundary and parse as a shorter, plausible file.
    let unsealed: String = lines[..n - 1].concat();
    let shorter: String = lines[..n - 2].concat();
    // Cut inside the last row's last number.
    let mid_number = unsealed.len() - 3;
    // Change one digit of the body (the first digit after the header lines), keeping the seal.
    let mut digit = whole.to_vec();
    let at = lines[..2].concat().len() + lines[2].bytes().position(|b| b.is_ascii_digit()).unwrap();
    digit[at] = if digit[at] == b'7' { b'8' } else { b'7' };
    vec![
        ("cut at a line boundary", Some(shorter.into_bytes())),
        (
            "unsealed (an earlier version's file)",
            Some(unsealed.clone().into_bytes()),
        ),
        (
            "cut inside a number",
            Some(unsealed.as_bytes()[..mid_number].to_vec()),
        ),
        ("emptied", Some(Vec::new())),
        ("a digit changed", Some(digit)),
        ("deleted", None),
    ]
}

/// Runs `study` once whole (the reference), then again into a directory whose job files were
/// damaged in every way of [`damages`]; the second run must name each damaged file, re-run
/// it, and write `summary` (a file of the output directory) byte for byte as the reference.
fn damaged_jobs_rerun_to_the_same_summary(study: &str, extra: &[&str], summary: &str) {
    let reference = fresh_dir(&format!("{study}-reference"));
    reproduce(study, extra, &reference);
    // Reports name their output directory; that is the one difference allowed.
    let read_summary = |dir: &Path| {
        String::from_utf8(std::fs::read(dir.join(summary)).unwrap())
            .unwrap()
            .replace(&dir.display().to_string(), "OUT")
    };
    let expected = read_summary(&reference);

    let out = fresh_dir(&format!("{study}-damaged"));
    reproduce(study, extra, &out);
    let files = job_files(&out);
    let kinds = damages(&std::fs::read(&files[0]).unwrap());
    assert!(
        files.len() >= kinds.len(),
        "{study}: {} job files",
        files.len()
    );
    // One file per kind of damage, each damaged from its own whole bytes.
    let mut damaged = Vec::new();
    for (i, file) in files.iter().take(kinds.len()).enumerate() {
        let (kind, bytes) = damages(&std::fs::read(file).unwrap()).swap_remove(i);
        match bytes {
            Some(b) => std::fs::write(file, b).unwrap(),
            None => std::fs::remove_file(file).unwrap(),
        }
        damaged.push((file.clone(), kind));
    }
    // A temporary file left by a write that never reached its rename.
    let stray = files[0].with_file_name(".seed-0.csv.host-1-0.tmp");
    std::fs::write(&stray, "spent,y\n1,").unwrap();
    std::fs::remove_file(out.join(summary)).unwrap();

    let stderr = reproduce(study, extra, &out);
    for (file, kind) in &damaged {
        if *kind != "deleted" {
            assert!(
                stderr.contains(&format!("{}: ", file.display()))
                    && stderr.contains("running the job again"),
                "{study}: the file {kind} ({}) was not reported:\n{stderr}",
                file.display()
            );
        }
        let text = std::fs::read_to_string(file).unwrap();
        assert!(
            text.lines().last().unwrap().starts_with("# sealed: "),
            "{study}: {} not rewritten whole",
            file.display()
        );
    }
    assert_eq!(
        read_summary(&out),
        expected,
        "{study}: the resumed run's {summary} differs from an uninterrupted run's"
    );
    // A third run finds every job finished and reports nothing damaged.
    let again = reproduce(study, extra, &out);
    assert!(!again.contains("running the job again"), "{study}: {again}");
    let _ = std::fs::remove_dir_all(reference);
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn costly_feedback_trials_survive_damage() {
    damaged_jobs_rerun_to_the_same_summary("costly-feedback", &[], "costly-feedback.json");
}

#[test]
fn causal_runs_survive_damage() {
    damaged_jobs_rerun_to_the_same_summary("causal", &[], "causal.json");
}

#[test]
fn pandora_traces_survive_damage() {
    // Figure 5's cells alone (26 job files, about a second a run): the whole quick grid takes
    // about 40 s a run (figures 2 and 9 most of it), and the test runs it four times.
    damaged_jobs_rerun_to_the_same_summary("pandora", &["--objectives", "fig5"], "pandora.md");
}
