//! `--shard K/N`: a grid split over machines that share the output directory. Shards own
//! disjoint shares that cover the grid, and their results merge into the `summary.json` a
//! one-machine run writes, byte for byte (`summary.json` holds no timing: job times are in the
//! `.time` files beside the CSVs, which are not compared).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use costbo_lab::experiment::{self, CostSpec, RunOptions, Settings, Shard};
use costbo_lab::reproduce::{self, ReproduceOptions};

/// The quick grid with costs that make every job short (as the runner's tests), three seeds:
/// 2 algorithms × 3 seeds = 6 jobs, two per shard of three.
const LIGHT: &str = r#"
seeds = 3
costs = [[0.05, 0.05, 0.05, 0.1, 0.1, 0.1, 0.4]]
variances = [0.04]
algorithms = ["etc-ada", "ucb-psq"]
bank = 128
judge = 512
judge_points = "sobol"
initial = 5
noise = 0.01
beta = 2.0

[[objectives]]
name = "hartmann3"
sets = [[1], [2], [3], [1, 2], [1, 3], [2, 3], [1, 2, 3]]
budget = 1.2
"#;

fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("costbo-shard-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn costbo(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_costbo"))
        .args(args)
        .output()
        .unwrap()
}

fn ok(args: &[&str]) -> String {
    let out = costbo(args);
    assert!(
        out.status.success(),
        "costbo {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every job CSV under `out`, as `cell/seed.csv`.
fn jobs_done(out: &Path) -> BTreeSet<String> {
    let mut done = BTreeSet::new();
    let Ok(cells) = std::fs::read_dir(out) else {
        return done;
    };
    for cell in cells {
        let cell = cell.unwrap().path();
        if !cell.is_dir() || cell.file_name().unwrap() == "best" {
            continue;
        }
        for f in std::fs::read_dir(&cell).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|e| e == "csv") {
                let c = cell.file_name().unwrap().to_string_lossy();
                let j = f.file_name().unwrap().to_string_lossy();
                done.insert(format!("{c}/{j}"));
            }
        }
    }
    done
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn three_shards_in_sequence_then_merged_equal_a_one_machine_run_byte_for_byte() {
    let root = fresh_dir("cli");
    let config = root.join("light.toml");
    std::fs::write(&config, LIGHT).unwrap();
    let config = config.to_str().unwrap();
    let (one, shared) = (root.join("one"), root.join("shared"));
    let (one_s, shared_s) = (one.to_str().unwrap(), shared.to_str().unwrap());

    ok(&["run", "--config", config, "--out", one_s, "--jobs", "2"]);
    let all = jobs_done(&one);
    assert_eq!(all.len(), 6);

    let mut shares: Vec<BTreeSet<String>> = Vec::new();
    for k in 1..=3 {
        let before = jobs_done(&shared);
        let shard = format!("{k}/3");
        let stdout = ok(&[
            "run", "--config", config, "--out", shared_s, "--jobs", "2", "--shard", &shard,
        ]);
        assert!(stdout.contains(&format!("2 jobs (shard {k}/3): 2 run, 0 skipped")));
        let after = jobs_done(&shared);
        shares.push(after.difference(&before).cloned().collect());
        // A shard never writes the grid's summary: only its own share's.
        assert!(!shared.join("summary.json").exists());
        assert!(shared.join(format!("summary-shard-{k}-of-3.json")).exists());
    }
    // Disjoint, each of two jobs, and together the whole grid.
    for (i, a) in shares.iter().enumerate() {
        assert_eq!(a.len(), 2, "shard {}: {a:?}", i + 1);
        for b in &shares[i + 1..] {
            assert!(a.is_disjoint(b), "{a:?} and {b:?}");
        }
    }
    let union: BTreeSet<String> = shares.iter().flatten().cloned().collect();
    assert_eq!(union, all);

    // A shard run again finds its jobs done and runs nothing.
    let again = ok(&[
        "run", "--config", config, "--out", shared_s, "--shard", "2/3",
    ]);
    assert!(
        again.contains("2 jobs (shard 2/3): 0 run, 2 skipped"),
        "{again}"
    );

    // The merge: equal to the one-machine summary byte for byte, and so is every job's CSV.
    let merged = ok(&["run", "--config", config, "--out", shared_s, "--no-run"]);
    assert!(
        merged.contains("6 of 6 jobs finished (none run)"),
        "{merged}"
    );
    let expected = read(&one.join("summary.json"));
    assert_eq!(read(&shared.join("summary.json")), expected);
    for job in &all {
        assert_eq!(read(&shared.join(job)), read(&one.join(job)), "{job}");
    }
    // The command without --shard finds every job done and writes the same summary.
    let rerun = ok(&["run", "--config", config, "--out", shared_s]);
    assert!(rerun.contains("6 jobs: 0 run, 6 skipped"), "{rerun}");
    assert_eq!(read(&shared.join("summary.json")), expected);
    // No temporary file is left behind.
    for dir in [shared.clone(), shared.join("best")] {
        for e in std::fs::read_dir(dir).unwrap() {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            assert!(!name.ends_with(".tmp"), "{name}");
        }
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn shards_are_disjoint_and_cover_the_grid() {
    // By position: every job of grids of several sizes belongs to exactly one of N shards,
    // and the shares differ in size by at most one.
    for n in 1..=6 {
        for jobs in [1, 5, 6, 13, 24] {
            let mut sizes = vec![0usize; n];
            for p in 0..jobs {
                let owners: Vec<usize> = (1..=n)
                    .filter(|&k| Shard::new(k, n).unwrap().owns(p))
                    .collect();
                assert_eq!(owners.len(), 1, "job {p} of {jobs}, {n} shards");
                sizes[owners[0] - 1] += 1;
            }
            let (lo, hi) = (sizes.iter().min(), sizes.iter().max());
            assert!(hi.unwrap() - lo.unwrap() <= 1, "{sizes:?}");
        }
    }
    // On the runner, through the library: two shards of the grid each report their share
    // and run exactly it.
    let settings = Settings::from_toml(LIGHT).unwrap();
    assert!(matches!(settings.costs[0], CostSpec::List(_)));
    let out = fresh_dir("lib");
    let options = RunOptions {
        out: out.join("grid"),
        jobs: 2,
        progress: false,
    };
    let mut seen = BTreeSet::new();
    for k in 1..=2 {
        let before = jobs_done(&options.out).len();
        let r = experiment::run_shard(&settings, &options, Shard::new(k, 2).unwrap()).unwrap();
        assert_eq!((r.total, r.ran, r.skipped), (3, 3, 0));
        assert_eq!(r.summary.jobs.len(), 3);
        for j in &r.summary.jobs {
            assert!(seen.insert((j.cell.clone(), j.seed)), "{j:?} run twice");
        }
        assert_eq!(jobs_done(&options.out).len(), before + 3);
    }
    assert_eq!(seen.len(), 6);
    let merged = experiment::merge(&settings, &options.out).unwrap();
    assert_eq!(merged.jobs.len(), 6);
    assert!(merged.cells.iter().all(|c| c.seeds == 3));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn bad_shard_values_are_refused_with_a_one_line_message() {
    let root = fresh_dir("bad");
    let config = root.join("light.toml");
    std::fs::write(&config, LIGHT).unwrap();
    let out = root.join("out");
    let (config, out) = (config.to_str().unwrap(), out.to_str().unwrap());
    for (bad, says) in [
        ("0/4", "K must be between 1 and 4"),
        ("5/4", "K must be between 1 and 4"),
        ("1/0", "N is 0"),
        ("x", "expected K/N"),
        ("", "expected K/N"),
        ("2", "expected K/N"),
        ("-1/4", "expected K/N"),
        ("1/2/3", "expected K/N"),
    ] {
        for args in [
            vec!["run", "--config", config, "--out", out, "--shard", bad],
            vec![
                "reproduce",
                "ucb-cvs",
                "--quick",
                "--out",
                out,
                "--shard",
                bad,
            ],
        ] {
            let r = costbo(&args);
            let stderr = String::from_utf8_lossy(&r.stderr);
            assert!(!r.status.success(), "{args:?} succeeded");
            assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
            assert!(stderr.starts_with("costbo: shard"), "{args:?}: {stderr}");
            assert!(stderr.contains(says), "{args:?}: {stderr}");
        }
    }
    // Refused before any work: nothing was written.
    assert!(!Path::new(out).exists());
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn reproduce_in_two_shards_then_merged_equals_a_one_machine_run() {
    let root = fresh_dir("reproduce");
    let options = |out: PathBuf| ReproduceOptions {
        study: reproduce::study("ucb-cvs").unwrap(),
        quick: true,
        seeds: 2,
        objectives: None,
        report: out.join("ucb-cvs.md"),
        out,
        jobs: 2,
        run: true,
        min_seeds: 2,
        progress: false,
    };
    let one = options(root.join("one"));
    let whole = reproduce::reproduce(&one).unwrap();
    let shared = options(root.join("shared"));
    let mut ran = BTreeSet::new();
    for k in 1..=2 {
        let o = reproduce::reproduce_shard(&shared, Shard::new(k, 2).unwrap()).unwrap();
        // A shard judges nothing and writes no report.
        assert!(o.verdicts.is_empty());
        assert!(!shared.report.exists());
        for p in &o.parts {
            for j in &p.summary.jobs {
                assert!(
                    ran.insert((p.part.dir, j.cell.clone(), j.seed)),
                    "{j:?} twice"
                );
            }
        }
    }
    let total: usize = whole.parts.iter().map(|p| p.summary.jobs.len()).sum();
    assert_eq!(ran.len(), total);
    let merged = reproduce::reproduce(&shared).unwrap();
    assert_eq!(merged.verdicts, whole.verdicts);
    for (a, b) in merged.parts.iter().zip(&whole.parts) {
        assert_eq!(
            read(&a.dir.join("summary.json")),
            read(&b.dir.join("summary.json")),
            "{}",
            a.part.dir
        );
    }
    let _ = std::fs::remove_dir_all(&root);
}
