//! The desktop's readers of files a user writes or a run leaves behind, fed any text.

use costbo_std::causal::arms::ArmTable;
use costbo_std::causal::graph::CausalGraph;
use costbo_std::csv_matrix::Table;
use costbo_std::experiment::curves::Trace;
use costbo_std::experiment::{JobTime, Settings};

fn text(data: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// `costbo gp`'s CSV reader: a typed error, or a table whose rows all have the header's width
/// and finite values and which, printed back as CSV, parses to itself.
pub fn csv_table(data: &[u8]) {
    let Ok(t) = Table::parse(&text(data)) else {
        return;
    };
    assert!(t.rows.iter().all(|r| r.len() == t.header.len()));
    assert!(t.rows.iter().flatten().all(|v| v.is_finite()));
    let mut printed = t.header.join(",");
    for r in &t.rows {
        printed.push('\n');
        let fields: Vec<String> = r.iter().map(|v| format!("{v:?}")).collect();
        printed.push_str(&fields.join(","));
    }
    let back = Table::parse(&printed).expect("a printed table parses");
    assert_eq!(back.header, t.header);
    assert_eq!(back.rows, t.rows);
}

/// The runner's job CSV (read on resume and for summaries) and its time file: typed errors
/// on garbage; a time file read back prints and reads to itself.
pub fn job_trace(data: &[u8]) {
    let text = text(data);
    let _ = Trace::parse(&text);
    if let Some(t) = JobTime::parse(&text) {
        assert!(t.wall_seconds.is_finite());
        assert_eq!(JobTime::parse(&t.to_text()), Some(t));
    }
}

/// `costbo run --config`: a typed error or settings that passed validation.
pub fn run_config(data: &[u8]) {
    let _ = Settings::from_toml(&text(data));
}

/// `costbo causal --graph`: a typed error or a graph whose target is one of its nodes.
pub fn causal_graph(data: &[u8]) {
    if let Ok(g) = CausalGraph::from_toml(&text(data)) {
        assert!(g.target() < g.names().len());
        for (v, name) in g.names().iter().enumerate() {
            assert_eq!(g.node(name), Some(v));
        }
    }
}

/// Paper 004's arm tables: a typed error or a table.
pub fn arm_table(data: &[u8]) {
    let _ = ArmTable::from_toml(&text(data));
}

/// The firmware's experiment file (also read by `costbo device`): a typed error or a spec.
pub fn experiment_file(data: &[u8]) {
    let _ = costbo_experiment::toml::parse(&text(data));
}
