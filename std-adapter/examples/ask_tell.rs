//! The ask/tell loop of the desktop adapter, on the firmware's own experiment file:
//!
//! ```sh
//! cargo run --release -p costbo-std --example ask_tell
//! ```
//!
//! Each round the optimizer says which nutrients to dose (`ask.values[l]` is `Some` for those)
//! and the rest come from the source water; `lab` stands for the trays: it doses, measures
//! every nutrient and the growth.

use costbo_std::Optimizer;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../firmware/experiment.toml");
    let mut opt = Optimizer::from_file(path)?;
    let mut lab = Lab::new(&opt);
    while let Some(ask) = opt.ask()? {
        let (x, growth) = lab.dose_and_measure(&ask.values);
        opt.tell(&x, growth, ask.cost)?;
        println!(
            "round {:>2}: set {} -> growth {growth:.3}",
            opt.rounds(),
            ask.set
        );
    }
    let best = opt.recommend()?;
    println!("spent {:.2} of {:.2}", opt.spent(), opt.budget());
    println!("recommended: set {} at {:?}", best.set, best.values);
    Ok(())
}

/// A stand-in for the trays: the source water is uniform within each nutrient's bounds, and
/// growth peaks at 30 % of each range.
struct Lab {
    bounds: Vec<(f64, f64)>,
    state: u64,
}

impl Lab {
    fn new(opt: &Optimizer) -> Self {
        let bounds = opt.variables().iter().map(|v| (v.lower, v.upper)).collect();
        Lab { bounds, state: 1 }
    }

    fn uniform(&mut self) -> f64 {
        // xorshift64*
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        (self.state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }

    fn dose_and_measure(&mut self, values: &[Option<f64>]) -> (Vec<f64>, f64) {
        let mut x = Vec::new();
        let mut growth = 0.0;
        for (l, v) in values.iter().enumerate() {
            let (lo, hi) = self.bounds[l];
            let value = v.unwrap_or_else(|| lo + self.uniform() * (hi - lo));
            growth -= ((value - lo) / (hi - lo) - 0.3).powi(2);
            x.push(value);
        }
        (x, growth)
    }
}
