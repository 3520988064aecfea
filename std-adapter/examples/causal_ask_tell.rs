//! A contextual causal experiment (paper 004) with the desktop adapter, on the file the
//! firmware builds its contextual controller from:
//!
//! ```sh
//! cargo run --release -p costbo-std --example causal_ask_tell
//! ```
//!
//! Each round the optimizer chooses an arm, the lab measures only that arm's contexts in the
//! source water, the optimizer doses the arm's control set knowing them, and the lab reports
//! the growth. `Lab` stands for the trays, here the file's own model of the growth (its
//! comment): the best potassium depends on the nitrate, the best pH on the temperature.

use costbo_std::optimizer::VariableInfo;
use costbo_std::CausalOptimizer;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../firmware/experiments/causal-contexts.toml"
    );
    let mut opt = CausalOptimizer::from_file(path)?;
    let mut lab = Lab::new(opt.variables(), 3);
    while let Some(arm) = opt.next_arm()? {
        let water = lab.source_water();
        let contexts: Vec<Option<f64>> = (0..water.len())
            .map(|l| arm.contexts.contains(&l).then_some(water[l]))
            .collect();
        let decision = opt.ask(&contexts)?;
        let growth = lab.dose_and_grow(&decision.values);
        opt.tell(growth)?;
        println!(
            "round {:>2}: arm {} measures {:?}, doses set {} -> growth {growth:.3}",
            opt.rounds(),
            arm.arm,
            arm.contexts,
            decision.set
        );
    }
    println!("spent {:.2} of {:.2}", opt.spent(), opt.budget());
    if let Some(best) = opt.recommend() {
        println!(
            "recommended: arm {} (set {}), mean growth {:.3} over {} plays",
            best.arm, best.set, best.mean_outcome, best.plays
        );
    }
    Ok(())
}

/// The trays: uniform source water within the bounds, and the file's growth model.
struct Lab {
    variables: Vec<VariableInfo>,
    state: u64,
    water: Vec<f64>,
}

impl Lab {
    fn new(variables: &[VariableInfo], seed: u64) -> Self {
        Lab {
            variables: variables.to_vec(),
            state: seed,
            water: Vec::new(),
        }
    }

    /// A uniform number in [0, 1) (SplitMix64).
    fn uniform(&mut self) -> f64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }

    fn source_water(&mut self) -> Vec<f64> {
        let bounds: Vec<(f64, f64)> = self.variables.iter().map(|v| (v.lower, v.upper)).collect();
        self.water = bounds
            .iter()
            .map(|&(lo, hi)| lo + self.uniform() * (hi - lo))
            .collect();
        self.water.clone()
    }

    fn dose_and_grow(&mut self, values: &[Option<f64>]) -> f64 {
        let u = |name: &str| {
            let l = self
                .variables
                .iter()
                .position(|v| v.name == name)
                .unwrap_or(0);
            let v = &self.variables[l];
            (values[l].unwrap_or(self.water[l]) - v.lower) / (v.upper - v.lower)
        };
        1.0 - 2.0 * (u("K") - 0.2 - 0.6 * u("NO3")).powi(2)
            - (u("pH") - 0.3 - 0.4 * u("T")).powi(2)
            - 0.5 * (u("Ca") - 0.5).powi(2)
    }
}
