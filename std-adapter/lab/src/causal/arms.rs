//! The arm table a controller builds: one arm per POMPS equivalence class (actions `X(i)` with
//! their boxes, contexts `C(i)` with theirs), computed from a graph or written by hand.
//!
//! A hand-written table:
//!
//! ```toml
//! [[arm]]
//! actions = ["X1"]
//! contexts = ["C"]
//!
//! [[arm]]
//! actions = ["X2"]
//! contexts = ["C"]
//!
//! [bounds]          # optional
//! X1 = [-1.0, 1.0]
//! X2 = [-2.0, 2.0]
//! C = [-1.0, 1.0]
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use serde::Deserialize;

use super::graph::CausalGraph;
use super::nodeset::NodeSet;
use super::pomps::Arm;
use super::scope::{Component, Scope};

/// One arm: the variables it sets and the variables measured before setting them.
#[derive(Clone, Debug, PartialEq)]
pub struct ArmSpec {
    /// Action variables with their boxes (if known).
    pub actions: Vec<(String, Option<(f64, f64)>)>,
    /// Context variables with their boxes (if known).
    pub contexts: Vec<(String, Option<(f64, f64)>)>,
}

/// A table of arms.
#[derive(Clone, Debug, PartialEq)]
pub struct ArmTable {
    /// The arms, in order.
    pub arms: Vec<ArmSpec>,
}

/// Why an arm table was refused.
#[derive(Clone, Debug, PartialEq)]
pub enum ArmTableError {
    /// The file could not be read.
    Io(String),
    /// Not valid TOML, a missing key or an unknown key.
    Toml(String),
    /// The table has no arm.
    NoArms,
    /// An arm with no action.
    NoActions {
        /// Arm index (0-based).
        arm: usize,
    },
    /// A variable listed twice in an arm.
    DuplicateName {
        /// Arm index.
        arm: usize,
        /// The variable.
        name: String,
    },
    /// A variable that is both an action and a context of the same arm.
    ActionIsContext {
        /// Arm index.
        arm: usize,
        /// The variable.
        name: String,
    },
    /// Two arms with the same actions and contexts.
    DuplicateArm {
        /// The later arm.
        arm: usize,
        /// The earlier one.
        same_as: usize,
    },
    /// A box with `lo ≥ hi` or a non-finite end.
    BadBounds {
        /// The variable.
        name: String,
        /// Lower end.
        lo: f64,
        /// Upper end.
        hi: f64,
    },
    /// A `bounds` entry for a variable no arm uses.
    UnusedBounds(String),
    /// Checked against a graph: a variable the graph does not have.
    UnknownVariable {
        /// Arm index.
        arm: usize,
        /// The variable.
        name: String,
    },
    /// Checked against a graph: an action that is not intervenable.
    NotIntervenable {
        /// Arm index.
        arm: usize,
        /// The variable.
        name: String,
    },
    /// Checked against a graph: a context that is the target.
    TargetAsContext {
        /// Arm index.
        arm: usize,
    },
    /// Checked against a graph: a context is a descendant of one of the arm's actions once the
    /// arm is applied, so it cannot be measured before acting (seed 004 pitfall 6), or the arm
    /// makes the graph cyclic.
    ContextAfterAction {
        /// Arm index.
        arm: usize,
        /// The context.
        context: String,
    },
}

impl fmt::Display for ArmTableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ArmTableError::*;
        match self {
            Io(e) => write!(f, "cannot read the arm table: {e}"),
            Toml(e) => write!(
                f,
                "invalid arm table: {}",
                e.split_whitespace().collect::<Vec<_>>().join(" ")
            ),
            NoArms => write!(f, "the arm table has no [[arm]]"),
            NoActions { arm } => write!(f, "arm {arm}: no action"),
            DuplicateName { arm, name } => write!(f, "arm {arm}: `{name}` is listed twice"),
            ActionIsContext { arm, name } => {
                write!(f, "arm {arm}: `{name}` is both an action and a context")
            }
            DuplicateArm { arm, same_as } => {
                write!(
                    f,
                    "arm {arm} has the same actions and contexts as arm {same_as}"
                )
            }
            BadBounds { name, lo, hi } => {
                write!(f, "`bounds.{name}` = [{lo}, {hi}]: need finite lo < hi")
            }
            UnusedBounds(n) => write!(f, "`bounds.{n}`: no arm uses `{n}`"),
            UnknownVariable { arm, name } => {
                write!(f, "arm {arm}: `{name}` is not a variable of the graph")
            }
            NotIntervenable { arm, name } => {
                write!(
                    f,
                    "arm {arm}: action `{name}` is not intervenable in the graph"
                )
            }
            TargetAsContext { arm } => write!(f, "arm {arm}: the target cannot be a context"),
            ContextAfterAction { arm, context } => write!(
                f,
                "arm {arm}: context `{context}` is not determined before the arm acts \
                 (a descendant of its actions, or a cycle)"
            ),
        }
    }
}

impl std::error::Error for ArmTableError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ArmFile {
    #[serde(default)]
    arm: Vec<ArmEntry>,
    #[serde(default)]
    bounds: BTreeMap<String, [f64; 2]>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ArmEntry {
    actions: Vec<String>,
    #[serde(default)]
    contexts: Vec<String>,
}

impl ArmTable {
    /// The table of a graph's arms, with the graph's boxes.
    pub fn from_arms(g: &CausalGraph, arms: &[Arm]) -> ArmTable {
        let named = |set: NodeSet| -> Vec<(String, Option<(f64, f64)>)> {
            set.iter()
                .map(|v| (g.name(v).to_string(), g.bounds(v)))
                .collect()
        };
        ArmTable {
            arms: arms
                .iter()
                .map(|a| ArmSpec {
                    actions: named(a.actions),
                    contexts: named(a.contexts),
                })
                .collect(),
        }
    }

    /// Reads a hand-written table.
    pub fn from_path(path: &Path) -> Result<ArmTable, ArmTableError> {
        let text =
            costbo_objectives::text_file::read(path, costbo_objectives::text_file::SETTINGS_LIMIT)
                .map_err(|e| ArmTableError::Io(e.to_string()))?;
        ArmTable::from_toml(&text)
    }

    /// Parses and checks a hand-written table.
    pub fn from_toml(text: &str) -> Result<ArmTable, ArmTableError> {
        let file: ArmFile = toml::from_str(text)
            .map_err(|e| ArmTableError::Toml(crate::toml_text::toml_error(&e, text)))?;
        if file.arm.is_empty() {
            return Err(ArmTableError::NoArms);
        }
        for (name, [lo, hi]) in &file.bounds {
            if !(lo.is_finite() && hi.is_finite() && lo < hi) {
                return Err(ArmTableError::BadBounds {
                    name: name.clone(),
                    lo: *lo,
                    hi: *hi,
                });
            }
        }
        let mut used = std::collections::BTreeSet::new();
        let mut arms = Vec::new();
        // Each arm's sorted names, with the first arm that had them (a map: a table of
        // 100 000 arms is checked in well under a second, not in quadratic time).
        let mut keys: std::collections::HashMap<(Vec<String>, Vec<String>), usize> =
            std::collections::HashMap::new();
        for (i, a) in file.arm.iter().enumerate() {
            if a.actions.is_empty() {
                return Err(ArmTableError::NoActions { arm: i });
            }
            let mut seen = std::collections::BTreeSet::new();
            for n in a.actions.iter().chain(&a.contexts) {
                if !seen.insert(n.clone()) {
                    let name = n.clone();
                    return Err(if a.actions.contains(&name) && a.contexts.contains(&name) {
                        ArmTableError::ActionIsContext { arm: i, name }
                    } else {
                        ArmTableError::DuplicateName { arm: i, name }
                    });
                }
                used.insert(n.clone());
            }
            let mut key = (a.actions.clone(), a.contexts.clone());
            key.0.sort();
            key.1.sort();
            if let Some(&j) = keys.get(&key) {
                return Err(ArmTableError::DuplicateArm { arm: i, same_as: j });
            }
            keys.insert(key, i);
            let boxed = |n: &String| (n.clone(), file.bounds.get(n).map(|b| (b[0], b[1])));
            arms.push(ArmSpec {
                actions: a.actions.iter().map(boxed).collect(),
                contexts: a.contexts.iter().map(boxed).collect(),
            });
        }
        if let Some(n) = file.bounds.keys().find(|n| !used.contains(*n)) {
            return Err(ArmTableError::UnusedBounds(n.clone()));
        }
        Ok(ArmTable { arms })
    }

    /// Checks a table against a graph: known variables, intervenable actions, no target as a
    /// context, and every context determined before the arm acts (not a descendant of the arm's
    /// actions in the graph the arm induces, every action reading every context of its arm).
    pub fn check_against(&self, g: &CausalGraph) -> Result<(), ArmTableError> {
        for (i, a) in self.arms.iter().enumerate() {
            let node = |n: &str| {
                g.node(n).ok_or(ArmTableError::UnknownVariable {
                    arm: i,
                    name: n.to_string(),
                })
            };
            let mut actions = NodeSet::EMPTY;
            for (n, _) in &a.actions {
                let v = node(n)?;
                if !g.intervenable().contains(v) {
                    return Err(ArmTableError::NotIntervenable {
                        arm: i,
                        name: n.clone(),
                    });
                }
                actions.insert(v);
            }
            let mut contexts = NodeSet::EMPTY;
            for (n, _) in &a.contexts {
                let v = node(n)?;
                if v == g.target() {
                    return Err(ArmTableError::TargetAsContext { arm: i });
                }
                contexts.insert(v);
            }
            let scope = Scope::new(
                actions
                    .iter()
                    .map(|x| Component {
                        action: x,
                        contexts,
                    })
                    .collect(),
            );
            let gs = scope.induced_graph(g.admg());
            let below = gs.descendants(actions);
            let acyclic = gs.is_acyclic();
            for (n, _) in &a.contexts {
                let v = node(n)?;
                if !acyclic || below.contains(v) {
                    return Err(ArmTableError::ContextAfterAction {
                        arm: i,
                        context: n.clone(),
                    });
                }
            }
        }
        Ok(())
    }

    /// A readable table, one line per arm.
    pub fn render(&self) -> String {
        let show = |vars: &[(String, Option<(f64, f64)>)]| -> String {
            if vars.is_empty() {
                return "—".to_string();
            }
            vars.iter()
                .map(|(n, b)| match b {
                    Some((lo, hi)) => format!("{n} ∈ [{lo}, {hi}]"),
                    None => format!("{n} (no box)"),
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut out = String::new();
        for (i, a) in self.arms.iter().enumerate() {
            out.push_str(&format!(
                "arm {i}: actions {} | contexts {} | input dimension {}\n",
                show(&a.actions),
                show(&a.contexts),
                a.actions.len() + a.contexts.len()
            ));
        }
        out
    }

    /// The table as an experiment file's `[causal]` table (`firmware/experiment.toml`'s
    /// format, `costbo_experiment`): `contexts`, every arm's contexts in order of first use,
    /// and one `[[causal.arm]]` per arm with its actions and contexts by name. Boxes are not
    /// written: a dosing experiment takes them from its `[[variable]]` bounds. `source` is
    /// named in a leading comment.
    pub fn to_experiment_toml(&self, source: &str) -> String {
        let mut contexts: Vec<&str> = Vec::new();
        for a in &self.arms {
            for (n, _) in &a.contexts {
                if !contexts.contains(&n.as_str()) {
                    contexts.push(n);
                }
            }
        }
        let list = |names: &mut dyn Iterator<Item = &str>| -> String {
            let quoted: Vec<String> = names.map(|n| format!("{n:?}")).collect();
            format!("[{}]", quoted.join(", "))
        };
        let mut out = format!(
            "# The arms of {source} (costbo causal arms --experiment).\n[causal]\ncontexts = {}\n",
            list(&mut contexts.iter().copied())
        );
        for a in &self.arms {
            out.push_str(&format!(
                "\n[[causal.arm]]\nactions = {}\ncontexts = {}\n",
                list(&mut a.actions.iter().map(|(n, _)| n.as_str())),
                list(&mut a.contexts.iter().map(|(n, _)| n.as_str()))
            ));
        }
        out
    }

    /// The table as JSON: an array of `{"actions": [{"name", "lo", "hi"}], "contexts": [...]}`
    /// (`lo`/`hi` null without a box).
    pub fn to_json(&self) -> serde_json::Value {
        let vars = |vars: &[(String, Option<(f64, f64)>)]| -> serde_json::Value {
            vars.iter()
                .map(|(n, b)| {
                    serde_json::json!({
                        "name": n,
                        "lo": b.map(|b| b.0),
                        "hi": b.map(|b| b.1),
                    })
                })
                .collect()
        };
        self.arms
            .iter()
            .map(
                |a| serde_json::json!({"actions": vars(&a.actions), "contexts": vars(&a.contexts)}),
            )
            .collect()
    }
}
