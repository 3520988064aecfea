//! Results that survive a power cut or a `kill -9`: whatever a run leaves behind (job CSVs
//! cut short, emptied, header-only, of the wrong shape, not text; a time file without its
//! CSV; temporary files), the next run detects it, says so on stderr, re-runs those jobs and
//! ends with the `summary.json` of an uninterrupted run, byte for byte. Two runs on one
//! directory at once end with it too, and a damaged `cell.txt` is refused.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A small grid (2 algorithms × 4 seeds = 8 jobs of about a tenth of a second each).
const GRID: &str = r#"
seeds = 4
costs = [[0.05, 0.05, 0.05, 0.1, 0.1, 0.1, 0.4]]
variances = [0.04]
algorithms = ["etc-ada", "ucb-psq"]

[[objectives]]
name = "hartmann3"
sets = [[1], [2], [3], [1, 2], [1, 3], [2, 3], [1, 2, 3]]
budget = 1.2
"#;

const JOBS: usize = 8;
const ETC: &str = "hartmann3_0.05-0.05-0.05-0.1-0.1-0.1-0.4_v0.04_etc-ada";
const PSQ: &str = "hartmann3_0.05-0.05-0.05-0.1-0.1-0.1-0.4_v0.04_ucb-psq";

fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("costbo-durable-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn config(dir: &Path) -> PathBuf {
    let path = dir.join("grid.toml");
    std::fs::write(&path, GRID).unwrap();
    path
}

fn run(config: &Path, out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_costbo"))
        .args(["run", "--config"])
        .arg(config)
        .arg("--out")
        .arg(out)
        .args(["--jobs", "1"])
        .output()
        .unwrap()
}

fn run_ok(config: &Path, out: &Path) -> String {
    let o = run(config, out);
    assert!(
        o.status.success(),
        "costbo run: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn summary(out: &Path) -> Vec<u8> {
    std::fs::read(out.join("summary.json")).unwrap()
}

/// `cell/seed.csv` of every job CSV under `out`.
fn csvs(out: &Path) -> BTreeSet<String> {
    let mut done = BTreeSet::new();
    for cell in [ETC, PSQ] {
        let Ok(entries) = std::fs::read_dir(out.join(cell)) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".csv") && !name.starts_with('.') {
                done.insert(format!("{cell}/{name}"));
            }
        }
    }
    done
}

/// The uninterrupted run every damaged or killed run must end equal to.
fn reference(root: &Path) -> (PathBuf, Vec<u8>) {
    let out = root.join("reference");
    run_ok(&config(root), &out);
    assert_eq!(csvs(&out).len(), JOBS);
    let s = summary(&out);
    (out, s)
}

#[test]
fn damaged_job_files_are_detected_and_rerun_to_the_same_summary() {
    let root = fresh_dir("damaged");
    let (reference_out, reference_summary) = reference(&root);
    let out = root.join("damaged");
    let grid = config(&root);
    run_ok(&grid, &out);
    assert_eq!(summary(&out), reference_summary);

    let csv = |cell: &str, seed: u64| out.join(cell).join(format!("{seed}.csv"));
    let time = |cell: &str, seed: u64| out.join(cell).join(format!("{seed}.time"));
    let text = |p: &Path| std::fs::read_to_string(p).unwrap();
    // What a power cut or a disk can leave, one kind per job.
    let full = text(&csv(ETC, 0));
    assert!(full.lines().count() > 3, "the job has rounds to cut");
    std::fs::write(csv(ETC, 0), "").unwrap(); // emptied
    let t = text(&csv(ETC, 1));
    std::fs::write(csv(ETC, 1), &t[..t.len() / 2]).unwrap(); // cut mid-line
    let t = text(&csv(ETC, 2));
    let header_end = t.find('\n').unwrap() + 1;
    std::fs::write(csv(ETC, 2), &t[..header_end]).unwrap(); // header only
    let t = text(&csv(ETC, 3));
    let last_line = t[..t.len() - 1].rfind('\n').unwrap() + 1;
    std::fs::write(csv(ETC, 3), &t[..last_line]).unwrap(); // cut at a line boundary
    let mut bytes = std::fs::read(csv(PSQ, 0)).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] = 0xFF;
    std::fs::write(csv(PSQ, 0), &bytes).unwrap(); // not UTF-8
    let t = text(&csv(PSQ, 1));
    let second_row = t.lines().nth(1).unwrap();
    let shorter = second_row.rsplit_once(',').unwrap().0;
    std::fs::write(csv(PSQ, 1), t.replacen(second_row, shorter, 1)).unwrap(); // a column short
    let t = text(&csv(PSQ, 2));
    std::fs::remove_file(time(PSQ, 2)).unwrap();
    std::fs::write(csv(PSQ, 2), &t[..t.find('\n').unwrap() + 1]).unwrap(); // header, no record
    std::fs::remove_file(csv(PSQ, 3)).unwrap(); // a time file without its CSV
    std::fs::write(out.join(PSQ).join(".3.csv.host-1-0.tmp"), "round,sp").unwrap(); // a stray temporary

    let stderr = run_ok(&grid, &out);
    let reruns = stderr.matches("running the job again").count();
    assert_eq!(reruns, 7, "{stderr}");
    for (cell, seed) in [
        (ETC, 0),
        (ETC, 1),
        (ETC, 2),
        (ETC, 3),
        (PSQ, 0),
        (PSQ, 1),
        (PSQ, 2),
    ] {
        assert!(
            stderr.contains(&format!("{cell}/{seed}.csv")),
            "{cell}/{seed}.csv not reported: {stderr}"
        );
    }
    assert_eq!(summary(&out), reference_summary);
    for job in csvs(&reference_out) {
        assert_eq!(
            std::fs::read(out.join(&job)).unwrap(),
            std::fs::read(reference_out.join(&job)).unwrap(),
            "{job}"
        );
    }
    // A summary from damaged files without running: they are reported and not counted.
    std::fs::write(csv(ETC, 1), &full[..full.len() - 3]).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_costbo"))
        .args(["run", "--no-run", "--config"])
        .arg(&grid)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success());
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("7 of 8 jobs finished"), "{stdout}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("not counted"));
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_run_killed_mid_grid_resumes_to_the_same_summary() {
    let root = fresh_dir("killed");
    let (_, reference_summary) = reference(&root);
    let out = root.join("killed");
    let grid = config(&root);
    // Kill (SIGKILL) three runs in a row, each after one more job than the last has finished.
    let mut kills = 0;
    for target in [1, 3, 5] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_costbo"))
            .args(["run", "--config"])
            .arg(&grid)
            .arg("--out")
            .arg(&out)
            .args(["--jobs", "1"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while csvs(&out).len() < target && start.elapsed() < Duration::from_secs(60) {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
            kills += 1;
        }
        child.wait().unwrap();
    }
    assert!(kills >= 2, "the runs finished before they could be killed");
    assert!(
        csvs(&out).len() < JOBS,
        "the grid was finished before the last kill"
    );
    run_ok(&grid, &out);
    assert_eq!(summary(&out), reference_summary);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn two_runs_on_one_directory_at_once_end_with_the_same_summary() {
    let root = fresh_dir("concurrent");
    let (_, reference_summary) = reference(&root);
    let out = root.join("concurrent");
    let grid = config(&root);
    let spawn = || {
        Command::new(env!("CARGO_BIN_EXE_costbo"))
            .args(["run", "--config"])
            .arg(&grid)
            .arg("--out")
            .arg(&out)
            .args(["--jobs", "1"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    for child in [a, b] {
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    assert_eq!(summary(&out), reference_summary);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_damaged_cell_settings_file_is_refused_not_overwritten() {
    let root = fresh_dir("cell");
    let out = root.join("out");
    let grid = config(&root);
    let one = root.join("one.toml");
    std::fs::write(&one, GRID.replace("seeds = 4", "seeds = 1")).unwrap();
    run_ok(&one, &out);
    let cell_txt = out.join(ETC).join("cell.txt");
    for damaged in [&[0xFF, 0xFE, b'\n'][..], b""] {
        std::fs::write(&cell_txt, damaged).unwrap();
        let o = run(&grid, &out);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success());
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains("cell.txt") && stderr.contains("damaged"),
            "{stderr}"
        );
        assert_eq!(std::fs::read(&cell_txt).unwrap(), damaged, "left as it was");
    }
    let _ = std::fs::remove_dir_all(&root);
}
