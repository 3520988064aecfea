//! Fuzz targets for costbo: each is a function of a byte slice that panics exactly when a
//! property fails, so the same code runs under cargo-fuzz (coverage-guided, `fuzz/libfuzzer`)
//! and as an ordinary test on stable (`tests/short.rs`: seeds plus deterministic mutations).
//!
//! | target | what the bytes become | properties |
//! |---|---|---|
//! | [`link_frames`] | frames built from the bytes, most with the right CRC, COBS-encoded, mixed with raw garbage | no panic; a CRC-valid frame after a delimiter decodes to its payload whatever came before; a payload that decodes as a message re-encodes and decodes to the same message |
//! | [`journal_image`] | a formatted journal with records from the bytes, then corrupted (cleared bits, flipped bytes, a torn tail) | open and read give typed errors or a prefix of the records written; appending after recovery keeps that prefix |
//! | [`snapshot_bytes`] | a snapshot in JSON or postcard, raw or a valid one with bytes flipped | restore gives a typed error or a controller that suggests and whose snapshot restores to the same snapshot |
//! | [`csv_table`], [`job_trace`], [`run_config`], [`causal_graph`], [`arm_table`], [`experiment_file`] | the bytes as text | typed errors on garbage; a parsed CSV table prints and parses back to itself |
//! | [`external_answer`] | the bytes as an external objective program's answer line (the first byte picks the point's `id`) | a typed error of one bounded line without control characters, or a finite `y` and a finite positive cost |
//! | [`optimizer_file`], [`optimizer_state`] | the bytes as an experiment file, or as an optimizer's saved state | typed errors on garbage, never a half-loaded state; an opened optimizer's first decision lies within the bounds, and its saved state restores to itself |
//! | [`firmware_app`] | a hostile host: each decision answered with messages built from the bytes (wrong rounds, NaN, lies, garbage frames, plausible answers) | the device sends only valid frames and ends only when the host goes silent; a reboot replays the journal to the round it acknowledged |

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod app;
mod bytes;
mod journal;
mod link;
mod readers;
mod snapshot;

pub use app::firmware_app;
pub use journal::journal_image;
pub use link::link_frames;
pub use readers::{
    arm_table, causal_graph, csv_table, experiment_file, external_answer, job_trace,
    optimizer_file, optimizer_state, run_config,
};
pub use snapshot::snapshot_bytes;

/// A fuzz target: panics exactly when a property fails.
pub type Target = fn(&[u8]);

/// Every target by name, for the short runs and the seeds.
pub const TARGETS: &[(&str, Target)] = &[
    ("link_frames", link_frames),
    ("journal_image", journal_image),
    ("snapshot_bytes", snapshot_bytes),
    ("csv_table", csv_table),
    ("job_trace", job_trace),
    ("run_config", run_config),
    ("causal_graph", causal_graph),
    ("arm_table", arm_table),
    ("experiment_file", experiment_file),
    ("optimizer_file", optimizer_file),
    ("optimizer_state", optimizer_state),
    ("external_answer", external_answer),
    ("firmware_app", firmware_app),
];

/// Seeds of target `name`: inputs that reach deep (the repository's own configuration, graph,
/// arm-table and CSV files for the readers; encoded messages, a full journal script and a
/// playing host for the binary targets). Empty for an unknown name.
pub fn seeds(name: &str) -> Vec<Vec<u8>> {
    let repo = |path: &str| {
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../").to_string() + path)
            .unwrap_or_default()
    };
    match name {
        "link_frames" => link::seeds(),
        "journal_image" => vec![
            (0u8..=255).collect(),
            [2u8, 2, 5].iter().copied().chain((0..200).map(|i| i as u8 ^ 0x5A)).collect(),
            vec![3, 0, 23, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 0, 0, 0, 2, 0, 0xFF, 0xFF],
        ],
        "snapshot_bytes" => vec![
            // Found by the coverage-guided run: a subnormal outputscale hung the GP's jitter
            // ladder (fixed in core; kept so every `cargo test` replays it).
            include_bytes!("../regressions/snapshot_bytes-subnormal-outputscale").to_vec(),
            vec![0, 2],
            vec![1, 2, 0, 0],
            vec![2, 2, 0, 0, 0],
            [0u8, 0].iter().copied().chain(br#"{"observations":[{"x":[0.5,0.5],"y":1.0}],"lengthscales":[0.2,0.2],"outputscale":1.0,"noise":0.0001,"mean":0.0,"spent":[0.0,0.0],"rounds":0,"policy":"Stateless","pending":null,"cost_model":null}"#.iter().copied()).collect(),
        ],
        "csv_table" => vec![
            repo("tests/fixtures/gp_cli_case/train.csv"),
            b"a,b,y\n1,2,3\n\n 4 , 5e-3 ,-6\n".to_vec(),
        ],
        "job_trace" => vec![
            b"wall_seconds = 1.5\ncpu_seconds = 1.25\n".to_vec(),
            b"round,set,cost,spent,simple_regret\n0,1,0.1,0.1,0.5\n1,2,1.0,1.1,0.25\n".to_vec(),
        ],
        "run_config" => vec![repo("std-adapter/configs/quick.toml")],
        "causal_graph" => ["a2", "a3", "fig1", "psa"]
            .iter()
            .map(|g| repo(&format!("data/causal/{g}.toml")))
            .collect(),
        "arm_table" => vec![repo("data/causal/a3-arms.toml")],
        "experiment_file" | "optimizer_file" => vec![
            repo("firmware/experiment.toml"),
            // Every optional entry: a fitted model, prices per unit dosed, paper 002's budget
            // rule, a bank seed of its own; and learned costs.
            repo("firmware/experiments/fitted-model.toml"),
            with_every_entry(&repo("firmware/experiment.toml")),
            with_learned_costs(&repo("firmware/experiment.toml")),
        ],
        "optimizer_state" => vec![readers::a_saved_state(&repo("firmware/experiment.toml"))],
        "external_answer" => vec![
            b"\x00{\"y\": -1.2345, \"cost\": 3.5, \"id\": 0}".to_vec(),
            b"\x01{\"y\": 2e308, \"id\": 1}".to_vec(),
            b"\x02{\"y\": 1, \"cost\": 0, \"note\": \"\\u001b[31m\"}".to_vec(),
        ],
        "firmware_app" => vec![
            // No garbage; then a host that starts and plays every round plausibly.
            [0u8].iter().copied().chain((0..120).map(|i| if i % 3 == 0 { 0 } else { 0x80 })).collect(),
            // Some garbage, then mixed lies and plays.
            (0u8..=255).rev().collect(),
        ],
        _ => Vec::new(),
    }
}

/// The experiment file `text` with its optional entries: a bank seed, paper 002's budget rule,
/// a model refitted as BoTorch does, and a price on the first variable.
fn with_every_entry(text: &[u8]) -> Vec<u8> {
    String::from_utf8_lossy(text)
        .replacen(
            "seed = 1\n",
            "seed = 1\nbank_seed = 9\nbudget_rule = \"while-below\"\n",
            1,
        )
        .replacen(
            "mean = 0.0\n",
            "mean = 0.0\nfit = \"botorch\"\nrefit_every = 2\n",
            1,
        )
        .replacen(
            "unit = \"log uM\"\n",
            "unit = \"log uM\"\nprice = 0.01\n",
            1,
        )
        // A rule that ignores the sets' fixed costs, so that the prices are accepted.
        .replacen("rule = \"etc-ada\"", "rule = \"ts-psq\"", 1)
        .into_bytes()
}

/// The experiment file `text` with its costs learned (no set has a cost) and a rule that
/// learns them.
fn with_learned_costs(text: &[u8]) -> Vec<u8> {
    costbo_experiment::testing::with_learned_costs(&String::from_utf8_lossy(text))
        .replacen("rule = \"etc-ada\"", "rule = \"unknown-cost\"", 1)
        .into_bytes()
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_experiment_seed_opens_an_optimizer() {
        let seeds = super::seeds("optimizer_file");
        assert_eq!(seeds.len(), 4);
        for seed in seeds {
            let text = String::from_utf8(seed).unwrap();
            if let Err(e) = costbo_std::Optimizer::from_toml_str(&text) {
                panic!("{e}\n{text}");
            }
        }
    }
}
