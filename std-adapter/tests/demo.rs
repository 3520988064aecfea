//! The demo end to end on a small budget: the ledger, the regret bookkeeping and the files.

use costbo_std::demo::{run, DemoOptions};

#[test]
fn small_demo_runs_and_reports_consistently() {
    let out = std::env::temp_dir().join(format!("costbo-demo-{}", std::process::id()));
    let r = run(&DemoOptions {
        budget: 1.5,
        seed: 3,
        out: out.clone(),
    })
    .unwrap();
    assert!(!r.rounds.is_empty());
    assert!(r.spent <= 1.5 + 1e-9);
    // Simple regret is the optimum minus the best expected growth so far: never increases,
    // never negative (expected growth under the water cannot beat the optimum).
    for w in r.rounds.windows(2) {
        assert!(w[1].simple_regret <= w[0].simple_regret);
        assert!(w[1].spent > w[0].spent);
    }
    assert!(r
        .rounds
        .iter()
        .all(|x| x.simple_regret >= -1e-9 && x.expected <= r.optimum + 1e-9));
    let csv = std::fs::read_to_string(out.join("demo.csv")).unwrap();
    assert_eq!(csv.lines().count(), r.rounds.len() + 1);
    assert!(std::fs::read_to_string(out.join("demo.svg"))
        .unwrap()
        .contains("<polyline"));
    let png = std::fs::read(out.join("demo.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert!(png.len() > 5_000);
}
