//! Writes every target's seeds into `DIR/<target>/seed-<i>` (the starting corpus of the
//! coverage-guided run; existing corpus files are kept). Usage: `write_seeds DIR`.

use std::path::PathBuf;

fn main() -> std::io::Result<()> {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "fuzz/libfuzzer/corpus".into()),
    );
    for (name, _) in costbo_fuzz::TARGETS {
        let d = dir.join(name);
        std::fs::create_dir_all(&d)?;
        for (i, s) in costbo_fuzz::seeds(name).iter().enumerate() {
            std::fs::write(d.join(format!("seed-{i}")), s)?;
        }
    }
    Ok(())
}
