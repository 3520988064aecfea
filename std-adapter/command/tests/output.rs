//! Output that cannot be written: a full disk is one line on stderr and status 1, a pipe closed
//! by its reader ends the command quietly with status 141 (as SIGPIPE ends a Unix tool), and a
//! file a user keeps is written whole or not at all. Never a panic (status 101).

use crate::common;

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("costbo-output-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A CSV of `rows` rows for `costbo acq log-ei`: its output (one number per row, about 20
/// bytes) outgrows a pipe's buffer (64 KiB on Linux) from about 4 000 rows on.
fn log_ei_input(dir: &Path, rows: usize) -> PathBuf {
    let path = dir.join("moments.csv");
    let mut text = String::from("mean,std,best\n");
    for i in 0..rows {
        text.push_str(&format!(
            "{},{},0.5\n",
            i as f64 / rows as f64,
            0.1 + i as f64 * 1e-5
        ));
    }
    std::fs::write(&path, text).unwrap();
    path
}

/// Waits for `child` at most 20 s; returns its exit code and stderr.
fn finish(mut child: std::process::Child, what: &str) -> (Option<i32>, String) {
    let status = common::wait_within(&mut child, Duration::from_secs(20), what);
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status.code(), err)
}

#[test]
fn a_full_disk_is_one_line_and_status_1() {
    let dir = scratch("full");
    let input = log_ei_input(&dir, 10);
    let cases: Vec<Vec<String>> = vec![
        vec!["objective".into(), "list".into()],
        vec!["--help".into()],
        vec![
            "acq".into(),
            "log-ei".into(),
            "--input".into(),
            input.display().to_string(),
        ],
        vec![
            "causal".into(),
            "pomps".into(),
            "--graph".into(),
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../data/causal/psa.toml")
                .display()
                .to_string(),
        ],
    ];
    for args in cases {
        let full = File::options().write(true).open("/dev/full").unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_costbo"))
            .args(&args)
            .stdin(Stdio::null())
            .stdout(full)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (code, err) = finish(child, &args.join(" "));
        assert_eq!(
            code,
            Some(1),
            "costbo {args:?} > /dev/full: status, stderr {err:?}"
        );
        assert_eq!(err.lines().count(), 1, "costbo {args:?}: {err:?}");
        assert!(
            err.starts_with("costbo: cannot write to standard output: ")
                && err.contains("No space left on device"),
            "costbo {args:?}: {err:?}"
        );
    }
}

#[test]
fn a_closed_pipe_ends_the_command_quietly() {
    let dir = scratch("pipe");
    let input = log_ei_input(&dir, 20_000);
    let mut child = Command::new(env!("CARGO_BIN_EXE_costbo"))
        .args(["acq", "log-ei", "--input"])
        .arg(&input)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read the first line, as `head -1` does, then close the pipe: the rest (about 400 KB)
    // cannot fit in the pipe's buffer, so the command meets the closed pipe whatever the timing.
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 7];
    stdout.read_exact(&mut first).unwrap();
    assert_eq!(&first, b"log_ei\n");
    drop(stdout);
    let (code, err) = finish(child, "acq log-ei | head -1");
    assert_eq!(code, Some(141), "stderr: {err:?}");
    assert_eq!(err, "", "a closed pipe is not an error to report");
}

#[test]
fn a_file_written_atomically_is_whole_or_as_it_was() {
    let dir = scratch("atomic");
    let path = dir.join("figure.png");
    std::fs::write(&path, b"the old figure").unwrap();
    // A writer that fails halfway (a full disk): the old file stays, and nothing is left over.
    let failed = costbo_lab::experiment::write_atomic_with(&path, |tmp| {
        assert_eq!(
            tmp.extension().unwrap(),
            "png",
            "the writer sees the file's extension"
        );
        assert_eq!(tmp.parent(), path.parent());
        let mut f = File::create(tmp).unwrap();
        f.write_all(b"half a fig").unwrap();
        Err("No space left on device".to_string())
    });
    assert_eq!(failed, Err("No space left on device".to_string()));
    assert_eq!(std::fs::read(&path).unwrap(), b"the old figure");
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(left.len(), 1, "the temporary file is removed: {left:?}");
    // A writer that succeeds replaces the file whole.
    costbo_lab::experiment::write_atomic_with(&path, |tmp| {
        std::fs::write(tmp, b"the new figure").map_err(|e| e.to_string())
    })
    .unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"the new figure");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
}

fn figure() -> costbo_lab::plot::Figure {
    use costbo_lab::plot::{Curve, Figure, Panel};
    Figure {
        title: "t".into(),
        rows: 1,
        cols: 1,
        panels: vec![Panel {
            title: "p".into(),
            curves: vec![Curve {
                label: "a".into(),
                x: vec![0.0, 1.0, 2.0],
                mean: vec![0.0, 1.0, 1.5],
                stderr: vec![0.1, 0.1, 0.1],
                marker: None,
                band: None,
            }],
        }],
        x_label: "x".into(),
        y_label: "y".into(),
        panel_width: 200,
        panel_height: 150,
    }
}

#[test]
fn figures_are_written_whole_or_not_at_all() {
    let dir = scratch("figure");
    let (png, svg) = (dir.join("f.png"), dir.join("f.svg"));
    figure().write_png(&png).unwrap();
    figure().write_svg(&svg).unwrap();
    // Whole: the PNG's signature and its closing IEND chunk; the SVG's closing tag.
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(&bytes[bytes.len() - 8..bytes.len() - 4], b"IEND");
    assert!(std::fs::read_to_string(&svg)
        .unwrap()
        .trim_end()
        .ends_with("</svg>"));
    let names = |d: &Path| {
        let mut n: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        n.sort();
        n
    };
    assert_eq!(names(&dir), ["f.png", "f.svg"], "no temporary file is left");
    // A figure that cannot be written (its directory is a file): an error, and nothing written.
    let blocked = dir.join("f.png").join("g.png");
    assert!(figure().write_png(&blocked).is_err());
    assert!(figure()
        .write_svg(&dir.join("f.svg").join("g.svg"))
        .is_err());
    assert_eq!(names(&dir), ["f.png", "f.svg"]);
    assert_eq!(
        std::fs::read(&png).unwrap(),
        bytes,
        "the earlier figure is untouched"
    );
}
