//! Causal graphs read from TOML.
//!
//! ```toml
//! target = "Y"
//! intervenable = ["X1", "X2"]
//! edges = [["X1", "X2"], ["C", "X2"], ["X2", "Y"], ["C", "Y"]]   # A → B
//! latent_confounders = [["X1", "C"], ["X2", "Y"]]                # unobserved common cause
//! # contexts = ["C"]        # default: every observed variable but the target and the actions
//! # nodes = ["C", "X1", "X2", "Y"]   # optional; when given, every other name must be one of them
//! [bounds]                  # optional boxes of actions and contexts
//! X1 = [-1.0, 1.0]
//! ```
//!
//! Without `nodes`, the variables are the names used anywhere in the file, in order of first
//! appearance (edges, latent confounders, intervenable, contexts, target).

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::Path;

use serde::Deserialize;

use super::dag::Admg;
use super::nodeset::{NodeSet, MAX_NODES};

/// Why a graph file was refused. Every message is one line naming the offending entry.
#[derive(Clone, Debug, PartialEq)]
pub enum GraphError {
    /// The file could not be read.
    Io(String),
    /// Not valid TOML, a missing key, a key of the wrong type or an unknown key.
    Toml(String),
    /// An empty (or blank-padded) variable name.
    BadName {
        /// The list the name is in.
        field: &'static str,
        /// The name as written.
        name: String,
    },
    /// A name listed twice in `nodes`, `intervenable` or `contexts`.
    DuplicateName {
        /// The list.
        field: &'static str,
        /// The repeated name.
        name: String,
    },
    /// A name not among `nodes` (or, for `bounds`, not a variable of the graph).
    UnknownName {
        /// Where the name is used.
        field: &'static str,
        /// The name.
        name: String,
    },
    /// An entry of `edges` or `latent_confounders` that is not a pair of names.
    NotAPair {
        /// The list.
        field: &'static str,
        /// Position of the entry (0-based).
        index: usize,
        /// How many names it has.
        len: usize,
    },
    /// More variables than [`MAX_NODES`].
    TooManyNodes {
        /// Number of variables in the file.
        count: usize,
    },
    /// An edge or latent confounder from a variable to itself.
    SelfLoop {
        /// The list.
        field: &'static str,
        /// The variable.
        name: String,
    },
    /// The same edge (or latent confounder) twice.
    DuplicateEdge {
        /// The list.
        field: &'static str,
        /// First end.
        a: String,
        /// Second end.
        b: String,
    },
    /// The directed edges form a cycle (listed in order, first node repeated at the end).
    Cycle(Vec<String>),
    /// The target is listed as intervenable.
    TargetIntervenable(String),
    /// The target is listed as a context.
    TargetIsContext(String),
    /// A box with `lo ≥ hi` or a non-finite end.
    BadBounds {
        /// The variable.
        name: String,
        /// Lower end.
        lo: f64,
        /// Upper end.
        hi: f64,
    },
}

impl fmt::Display for GraphError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GraphError::Io(e) => write!(f, "cannot read the graph: {e}"),
            GraphError::Toml(e) => write!(f, "invalid graph file: {}", one_line(e)),
            GraphError::BadName { field, name } => {
                write!(
                    f,
                    "`{field}`: invalid variable name {} (empty, padded with spaces, holding a \
                     control character or longer than {MAX_NAME_BYTES} bytes)",
                    crate::output::Shown(name)
                )
            }
            GraphError::DuplicateName { field, name } => {
                write!(
                    f,
                    "`{field}`: variable `{}` is listed twice",
                    crate::output::Shown(name)
                )
            }
            GraphError::UnknownName { field, name } => {
                write!(
                    f,
                    "`{field}`: unknown variable `{}` (not in `nodes`)",
                    crate::output::Shown(name)
                )
            }
            GraphError::NotAPair { field, index, len } => write!(
                f,
                "`{field}`[{index}]: expected a pair [\"A\", \"B\"], found {len} name(s)"
            ),
            GraphError::TooManyNodes { count } => {
                write!(
                    f,
                    "the graph has {count} variables; at most {MAX_NODES} are supported"
                )
            }
            GraphError::SelfLoop { field, name } => {
                write!(f, "`{field}`: `{name}` is joined to itself")
            }
            GraphError::DuplicateEdge { field, a, b } => {
                write!(f, "`{field}`: [\"{a}\", \"{b}\"] is listed twice")
            }
            GraphError::Cycle(c) => write!(f, "the edges form a cycle: {}", c.join(" → ")),
            GraphError::TargetIntervenable(t) => {
                write!(f, "the target `{t}` is listed as intervenable")
            }
            GraphError::TargetIsContext(t) => write!(f, "the target `{t}` is listed as a context"),
            GraphError::BadBounds { name, lo, hi } => {
                write!(f, "`bounds.{name}` = [{lo}, {hi}]: need finite lo < hi")
            }
        }
    }
}

impl std::error::Error for GraphError {}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GraphFile {
    nodes: Option<Vec<String>>,
    target: String,
    #[serde(default)]
    intervenable: Vec<String>,
    #[serde(default)]
    edges: Vec<Vec<String>>,
    #[serde(default)]
    latent_confounders: Vec<Vec<String>>,
    contexts: Option<Vec<String>>,
    #[serde(default)]
    bounds: BTreeMap<String, [f64; 2]>,
}

/// A causal graph with its roles: target, intervenable variables (actions) and contextual
/// variables (observable before acting).
#[derive(Clone, Debug)]
pub struct CausalGraph {
    names: Vec<String>,
    index: HashMap<String, usize>,
    graph: Admg,
    target: usize,
    intervenable: NodeSet,
    contexts: NodeSet,
    bounds: Vec<Option<(f64, f64)>>,
}

impl CausalGraph {
    /// Reads and checks a graph file.
    pub fn from_path(path: &Path) -> Result<CausalGraph, GraphError> {
        let text =
            costbo_objectives::text_file::read(path, costbo_objectives::text_file::SETTINGS_LIMIT)
                .map_err(|e| GraphError::Io(e.to_string()))?;
        CausalGraph::from_toml(&text)
    }

    /// Parses and checks a graph from TOML text.
    pub fn from_toml(text: &str) -> Result<CausalGraph, GraphError> {
        let file: GraphFile = toml::from_str(text)
            .map_err(|e| GraphError::Toml(crate::toml_text::toml_error(&e, text)))?;
        build(file)
    }

    /// The variable names, by node index.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The name of node `v`.
    pub fn name(&self, v: usize) -> &str {
        &self.names[v]
    }

    /// The node of a name.
    pub fn node(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// The nodes of the given names; the first unknown name is the error.
    pub fn nodes_of<S: AsRef<str>>(&self, names: &[S]) -> Result<NodeSet, String> {
        let mut s = NodeSet::EMPTY;
        for n in names {
            match self.node(n.as_ref()) {
                Some(v) => s.insert(v),
                None => return Err(n.as_ref().to_string()),
            }
        }
        Ok(s)
    }

    /// The names of a set of nodes, in node order.
    pub fn names_of(&self, set: NodeSet) -> Vec<String> {
        set.iter().map(|v| self.names[v].clone()).collect()
    }

    /// The mixed graph.
    pub fn admg(&self) -> &Admg {
        &self.graph
    }

    /// The target node `Y` (maximised).
    pub fn target(&self) -> usize {
        self.target
    }

    /// The intervenable variables `X*`.
    pub fn intervenable(&self) -> NodeSet {
        self.intervenable
    }

    /// The contextual variables `C*`.
    pub fn contexts(&self) -> NodeSet {
        self.contexts
    }

    /// The box of a variable, if the file gave one.
    pub fn bounds(&self, v: usize) -> Option<(f64, f64)> {
        self.bounds[v]
    }

    /// The same graph with other roles (used to restrict actions or contexts by hand, as the
    /// paper does for A.3). Names must be variables of the graph.
    pub fn with_roles(&self, intervenable: NodeSet, contexts: NodeSet) -> CausalGraph {
        let mut g = self.clone();
        g.intervenable = intervenable;
        g.contexts = contexts;
        g
    }
}

/// Longest variable name of a graph, in bytes.
pub const MAX_NAME_BYTES: usize = 64;

fn check_name(field: &'static str, name: &str) -> Result<(), GraphError> {
    // Names are printed in tables and on the terminal: control characters would move the
    // cursor or recolour it, and a name of megabytes would flood it.
    if name.is_empty()
        || name.trim() != name
        || name.chars().any(char::is_control)
        || name.len() > MAX_NAME_BYTES
    {
        return Err(GraphError::BadName {
            field,
            name: name.to_string(),
        });
    }
    Ok(())
}

fn build(file: GraphFile) -> Result<CausalGraph, GraphError> {
    let mut names: Vec<String> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let declared = file.nodes.is_some();
    if let Some(nodes) = &file.nodes {
        for n in nodes {
            check_name("nodes", n)?;
            if index.insert(n.clone(), names.len()).is_some() {
                return Err(GraphError::DuplicateName {
                    field: "nodes",
                    name: n.clone(),
                });
            }
            names.push(n.clone());
        }
    }
    // Resolves a name, adding it as a new variable when `nodes` was not given.
    let mut resolve = |field: &'static str, name: &str| -> Result<usize, GraphError> {
        check_name(field, name)?;
        if let Some(&v) = index.get(name) {
            return Ok(v);
        }
        if declared {
            return Err(GraphError::UnknownName {
                field,
                name: name.to_string(),
            });
        }
        index.insert(name.to_string(), names.len());
        names.push(name.to_string());
        Ok(names.len() - 1)
    };
    let mut edges = Vec::new();
    for (field, list) in [
        ("edges", &file.edges),
        ("latent_confounders", &file.latent_confounders),
    ] {
        for (i, pair) in list.iter().enumerate() {
            if pair.len() != 2 {
                return Err(GraphError::NotAPair {
                    field,
                    index: i,
                    len: pair.len(),
                });
            }
            let a = resolve(field, &pair[0])?;
            let b = resolve(field, &pair[1])?;
            if a == b {
                return Err(GraphError::SelfLoop {
                    field,
                    name: pair[0].clone(),
                });
            }
            edges.push((field, a, b, pair));
        }
    }
    let mut intervenable = Vec::new();
    for n in &file.intervenable {
        intervenable.push(resolve("intervenable", n)?);
    }
    let mut contexts = Vec::new();
    if let Some(list) = &file.contexts {
        for n in list {
            contexts.push(resolve("contexts", n)?);
        }
    }
    let target = resolve("target", &file.target)?;
    let mut bounds_at = Vec::new();
    for (n, b) in &file.bounds {
        bounds_at.push((resolve("bounds", n)?, n.clone(), *b));
    }
    if names.len() > MAX_NODES {
        return Err(GraphError::TooManyNodes { count: names.len() });
    }

    let mut graph = Admg::new(names.len());
    for (field, a, b, pair) in &edges {
        let dup = if *field == "edges" {
            graph.children(*a).contains(*b)
        } else {
            graph.spouses(*a).contains(*b)
        };
        if dup {
            return Err(GraphError::DuplicateEdge {
                field,
                a: pair[0].clone(),
                b: pair[1].clone(),
            });
        }
        if *field == "edges" {
            graph.add_edge(*a, *b);
        } else {
            graph.add_confounder(*a, *b);
        }
    }
    if let Some(mut cycle) = graph.find_cycle() {
        cycle.push(cycle[0]);
        return Err(GraphError::Cycle(
            cycle.iter().map(|&v| names[v].clone()).collect(),
        ));
    }
    let set_of = |field: &'static str, list: &[usize]| -> Result<NodeSet, GraphError> {
        let mut s = NodeSet::EMPTY;
        for &v in list {
            if s.contains(v) {
                return Err(GraphError::DuplicateName {
                    field,
                    name: names[v].clone(),
                });
            }
            s.insert(v);
        }
        Ok(s)
    };
    let intervenable = set_of("intervenable", &intervenable)?;
    if intervenable.contains(target) {
        return Err(GraphError::TargetIntervenable(names[target].clone()));
    }
    let contexts = match &file.contexts {
        Some(_) => {
            let c = set_of("contexts", &contexts)?;
            if c.contains(target) {
                return Err(GraphError::TargetIsContext(names[target].clone()));
            }
            c
        }
        None => NodeSet::first(names.len())
            .minus(intervenable)
            .minus(NodeSet::single(target)),
    };
    let mut bounds = vec![None; names.len()];
    for (v, name, [lo, hi]) in bounds_at {
        if !(lo.is_finite() && hi.is_finite() && lo < hi) {
            return Err(GraphError::BadBounds { name, lo, hi });
        }
        bounds[v] = Some((lo, hi));
    }
    Ok(CausalGraph {
        names,
        index,
        graph,
        target,
        intervenable,
        contexts,
        bounds,
    })
}
