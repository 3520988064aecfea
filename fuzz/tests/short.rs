//! A short run of every fuzz target, as part of `cargo test`: its seeds, then deterministic
//! mutations of them (bit flips, byte sets, insertions, deletions, splices, random tails).
//! `COSTBO_FUZZ_ITERATIONS` sets the mutations per target (default 400; the firmware target,
//! a whole device per input, a tenth of that). The coverage-guided run is `scripts/fuzz`.

use costbo_fuzz::{seeds, TARGETS};

/// xorshift64*: deterministic, so a failure here fails again with the same input.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn mutate(rng: &mut Rng, input: &mut Vec<u8>, pool: &[Vec<u8>]) {
    for _ in 0..1 + rng.below(4) {
        let len = input.len();
        match rng.below(6) {
            0 if len > 0 => {
                let i = rng.below(len);
                input[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                input[i] = [0, 0xFF, 0x7F, 0x80, b',', b'=', b'"', b'\n'][rng.below(8)];
            }
            2 => {
                let i = rng.below(len + 1);
                input.insert(i, rng.next() as u8);
            }
            3 if len > 0 => {
                let i = rng.below(len);
                let n = 1 + rng.below((len - i).min(16));
                input.drain(i..i + n);
            }
            4 if !pool.is_empty() => {
                let other = &pool[rng.below(pool.len())];
                let i = rng.below(len + 1);
                let j = rng.below(other.len() + 1);
                input.truncate(i);
                input.extend_from_slice(&other[j..]);
            }
            _ => {
                for _ in 0..rng.below(32) {
                    input.push(rng.next() as u8);
                }
            }
        }
    }
}

fn iterations() -> usize {
    std::env::var("COSTBO_FUZZ_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400)
}

fn run(name: &str) {
    let target = TARGETS
        .iter()
        .find(|(n, _)| *n == name)
        .expect("a known target")
        .1;
    let pool = seeds(name);
    assert!(!pool.is_empty(), "{name} has seeds");
    assert!(
        pool.iter().all(|s| !s.is_empty()),
        "{name}: a seed file is missing"
    );
    for s in &pool {
        target(s);
    }
    let n = if name == "firmware_app" {
        iterations() / 10
    } else {
        iterations()
    };
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ name.len() as u64);
    for _ in 0..n {
        let mut input = pool[rng.below(pool.len())].clone();
        mutate(&mut rng, &mut input, &pool);
        target(&input);
    }
}

#[test]
fn every_target_is_run_here() {
    let names: Vec<&str> = TARGETS.iter().map(|t| t.0).collect();
    assert_eq!(
        names,
        [
            "link_frames",
            "journal_image",
            "snapshot_bytes",
            "csv_table",
            "job_trace",
            "run_config",
            "causal_graph",
            "arm_table",
            "experiment_file",
            "optimizer_file",
            "optimizer_state",
            "external_answer",
            "firmware_app"
        ]
    );
}

#[test]
fn link_frames() {
    run("link_frames");
}

#[test]
fn journal_image() {
    run("journal_image");
}

#[test]
fn snapshot_bytes() {
    run("snapshot_bytes");
}

#[test]
fn csv_table() {
    run("csv_table");
}

#[test]
fn job_trace() {
    run("job_trace");
}

#[test]
fn run_config() {
    run("run_config");
}

#[test]
fn causal_graph() {
    run("causal_graph");
}

#[test]
fn arm_table() {
    run("arm_table");
}

#[test]
fn experiment_file() {
    run("experiment_file");
}

#[test]
fn external_answer() {
    run("external_answer");
}

#[test]
fn optimizer_file() {
    run("optimizer_file");
}

#[test]
fn optimizer_state() {
    run("optimizer_state");
}

#[test]
fn firmware_app() {
    run("firmware_app");
}
