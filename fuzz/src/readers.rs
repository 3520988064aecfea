//! The desktop's readers of files a user writes or a run leaves behind, fed any text.

use costbo_lab::causal::arms::ArmTable;
use costbo_lab::causal::graph::CausalGraph;
use costbo_lab::csv_matrix::Table;
use costbo_lab::experiment::curves::Trace;
use costbo_lab::experiment::{JobTime, Settings};

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

/// The desktop optimizer opened from an experiment file: a typed error, or an optimizer whose
/// first decision lies within the bounds and whose saved state restores to itself.
pub fn optimizer_file(data: &[u8]) {
    let Ok(mut opt) = costbo_std::Optimizer::from_toml_str(&text(data)) else {
        return;
    };
    // Large models take long to decide: the property is checked on the small ones.
    if opt.capacity() > 256 || opt.bank() > 256 {
        return;
    }
    if let Ok(Some(ask)) = opt.ask() {
        assert!(ask.set < opt.sets().len());
        assert_eq!(ask.values.len(), opt.variables().len());
        for (v, var) in ask.values.iter().zip(opt.variables()) {
            if let Some(v) = v {
                assert!(*v >= var.lower && *v <= var.upper, "{v} outside {var:?}");
            }
        }
    }
    let saved = opt.to_json();
    let back = costbo_std::Optimizer::from_json(&saved).expect("a saved state restores");
    assert_eq!(back.to_json(), saved);
}

/// The optimizer's saved state: a typed error (damaged, foreign, inconsistent), or an
/// optimizer whose own saved state restores to itself.
pub fn optimizer_state(data: &[u8]) {
    let Ok(opt) = costbo_std::Optimizer::from_json(&text(data)) else {
        return;
    };
    let saved = opt.to_json();
    let back = costbo_std::Optimizer::from_json(&saved).expect("a saved state restores");
    assert_eq!(back.to_json(), saved);
}

/// The state of the firmware's experiment after three rounds (the middle of each range for
/// the variables left to chance), as a seed of [`optimizer_state`].
pub(crate) fn a_saved_state(experiment: &[u8]) -> Vec<u8> {
    let Ok(mut opt) = costbo_std::Optimizer::from_toml_str(&text(experiment)) else {
        return Vec::new();
    };
    for round in 0..3 {
        let Ok(Some(ask)) = opt.ask() else { break };
        let x: Vec<f64> = ask
            .values
            .iter()
            .zip(opt.variables())
            .map(|(v, var)| v.unwrap_or(0.5 * (var.lower + var.upper)))
            .collect();
        if opt
            .tell(&x, f64::from(round) * 0.5 - 1.0, ask.cost)
            .is_err()
        {
            break;
        }
    }
    opt.to_json().into_bytes()
}

/// An external objective program's answer line (`costbo pandora --objective external`), the
/// first byte choosing the point's `id`: a typed error or an evaluation whose `y` is finite and
/// whose cost, if any, is finite and positive; every error is one line without control
/// characters and of bounded length, whatever the program wrote.
pub fn external_answer(data: &[u8]) {
    use costbo_lab::objectives::external::parse_answer_to;
    let (id, line) = match data.split_first() {
        Some((&id, rest)) => (u64::from(id % 4), text(rest)),
        None => (0, text(data)),
    };
    match parse_answer_to(&line, id) {
        Ok(e) => {
            assert!(e.value.is_finite(), "{e:?}");
            assert!(e.cost.is_none_or(|c| c.is_finite() && c > 0.0), "{e:?}");
        }
        Err(e) => {
            let message = e.to_string();
            assert_eq!(message.lines().count(), 1, "{message:?}");
            assert!(!message.chars().any(char::is_control), "{message:?}");
            assert!(message.len() < 1000, "{} bytes", message.len());
        }
    }
}
