//! `costbo causal …`: POMPS of a graph, the arm table, the environments.

use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, Subcommand};

use costbo_lab::causal::arms::ArmTable;
use costbo_lab::causal::graph::CausalGraph;
use costbo_lab::causal::pomps::{group_into_arms, pomps, PompsOptions, DEFAULT_MAX_SCOPES};

/// `costbo causal` subcommands.
#[derive(Subcommand)]
pub enum CausalCommand {
    /// Possibly-optimal mixed policy scopes of a causal graph (paper 004). With --json: an
    /// array of scopes, each an array of `{"action": NAME, "contexts": [NAMES]}`.
    Pomps(PompsArgs),
    /// The arm table a controller builds: one arm per POMPS class (actions with their boxes,
    /// contexts with theirs), from a graph or a hand-written table.
    Arms(ArmsArgs),
    /// The benchmark environments of paper 004 with their optima per scope.
    Envs(EnvsArgs),
}

/// Graph options shared by `pomps` and `arms`.
#[derive(Args)]
pub struct GraphArgs {
    /// Causal graph (TOML: target, intervenable, edges, latent_confounders, contexts, bounds).
    #[arg(long)]
    pub graph: Option<PathBuf>,
    /// Override the graph's intervenable variables (comma-separated names).
    #[arg(long, value_delimiter = ',')]
    pub intervenable: Option<Vec<String>>,
    /// Override the graph's context variables (comma-separated names; empty for none).
    #[arg(long, value_delimiter = ',')]
    pub contexts: Option<Vec<String>>,
    /// Refuse graphs with more candidate scopes than this.
    #[arg(long, default_value_t = DEFAULT_MAX_SCOPES)]
    pub max_scopes: u128,
    /// Keep the empty scope (no intervention) when it passes the filters.
    #[arg(long)]
    pub keep_empty: bool,
}

/// Arguments of `costbo causal pomps`.
#[derive(Args)]
pub struct PompsArgs {
    #[command(flatten)]
    graph: GraphArgs,
    /// Print JSON (an array of scopes) instead of text.
    #[arg(long)]
    json: bool,
    /// Print the enumeration time and the filter counts on stderr.
    #[arg(long)]
    time: bool,
}

/// Arguments of `costbo causal arms`.
#[derive(Args)]
pub struct ArmsArgs {
    #[command(flatten)]
    graph: GraphArgs,
    /// A hand-written arm table (TOML, `[[arm]] actions = [...] contexts = [...]`, optional
    /// `[bounds]`); checked against --graph when both are given.
    #[arg(long)]
    table: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Print the table as an experiment file's `[causal]` table (`[[causal.arm]]` entries),
    /// for a firmware dosing experiment (`firmware/experiments/causal-contexts.toml`).
    #[arg(long, conflicts_with = "json")]
    experiment: bool,
}

/// Most Monte Carlo samples per entry of `costbo causal envs` (a minute or so).
pub const MAX_SAMPLES: u64 = 100_000_000;

/// Arguments of `costbo causal envs`.
#[derive(Args)]
pub struct EnvsArgs {
    /// Samples for the entries estimated by Monte Carlo (the others are closed forms or
    /// quadratures).
    #[arg(long, default_value_t = 200_000)]
    pub samples: u64,
    /// Seed of the Monte Carlo estimates.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

fn load_graph(a: &GraphArgs) -> Result<CausalGraph, String> {
    let path = a.graph.as_ref().ok_or("--graph is required")?;
    let g = CausalGraph::from_path(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut xs = g.intervenable();
    let mut cs = g.contexts();
    if let Some(list) = &a.intervenable {
        let list: Vec<&String> = list.iter().filter(|s| !s.is_empty()).collect();
        xs = g
            .nodes_of(&list)
            .map_err(|n| format!("--intervenable: unknown variable `{n}`"))?;
        if xs.contains(g.target()) {
            return Err("--intervenable: the target cannot be intervenable".into());
        }
    }
    if let Some(list) = &a.contexts {
        let list: Vec<&String> = list.iter().filter(|s| !s.is_empty()).collect();
        cs = g
            .nodes_of(&list)
            .map_err(|n| format!("--contexts: unknown variable `{n}`"))?;
        if cs.contains(g.target()) {
            return Err("--contexts: the target cannot be a context".into());
        }
    }
    Ok(g.with_roles(xs, cs))
}

fn options(a: &GraphArgs) -> PompsOptions {
    PompsOptions {
        max_scopes: a.max_scopes,
        keep_empty: a.keep_empty,
    }
}

/// Runs a `costbo causal` subcommand; the error is the one-line message to print.
pub fn run(cmd: CausalCommand) -> Result<(), String> {
    match cmd {
        CausalCommand::Pomps(a) => {
            let g = load_graph(&a.graph)?;
            let start = Instant::now();
            let p = pomps(&g, options(&a.graph)).map_err(|e| e.to_string())?;
            let elapsed = start.elapsed();
            if a.json {
                let json: Vec<serde_json::Value> = p
                    .scopes
                    .iter()
                    .map(|s| {
                        s.components()
                            .iter()
                            .map(|c| {
                                serde_json::json!({
                                    "action": g.name(c.action),
                                    "contexts": g.names_of(c.contexts),
                                })
                            })
                            .collect()
                    })
                    .collect();
                outln!("{}", serde_json::Value::Array(json));
            } else {
                outln!(
                    "{} POMPS (target {}; intervenable {}; contexts {}):",
                    p.scopes.len(),
                    g.name(g.target()),
                    g.names_of(g.intervenable()).join(", "),
                    g.names_of(g.contexts()).join(", ")
                );
                for s in &p.scopes {
                    outln!("  {}", s.display(&g));
                }
                let arms = group_into_arms(&p.scopes);
                outln!(
                    "{} arm(s) (scopes grouped by actions and contexts)",
                    arms.len()
                );
            }
            if a.time {
                let c = p.counts;
                errln!(
                    "enumerated {} scopes in {:.3} ms: {} cyclic, {} irrelevant action, {} \
                     dominated, {} irrelevant context, {} not maximal, {} empty dropped, {} kept",
                    c.enumerated,
                    elapsed.as_secs_f64() * 1e3,
                    c.cyclic,
                    c.irrelevant_action,
                    c.dominated,
                    c.irrelevant_context,
                    c.not_maximal,
                    c.empty_dropped,
                    p.scopes.len()
                );
            }
            Ok(())
        }
        CausalCommand::Arms(a) => {
            let source = match (&a.table, &a.graph.graph) {
                (Some(p), _) => p.display().to_string(),
                (None, Some(g)) => g.display().to_string(),
                (None, None) => String::new(),
            };
            let table = match (&a.table, &a.graph.graph) {
                (Some(path), graph) => {
                    let t = ArmTable::from_path(path)
                        .map_err(|e| format!("{}: {e}", path.display()))?;
                    if graph.is_some() {
                        let g = load_graph(&a.graph)?;
                        t.check_against(&g)
                            .map_err(|e| format!("{}: {e}", path.display()))?;
                    }
                    t
                }
                (None, Some(_)) => {
                    let g = load_graph(&a.graph)?;
                    let p = pomps(&g, options(&a.graph)).map_err(|e| e.to_string())?;
                    ArmTable::from_arms(&g, &group_into_arms(&p.scopes))
                }
                (None, None) => return Err("give --graph or --table".into()),
            };
            if a.json {
                outln!("{}", table.to_json());
            } else if a.experiment {
                out!("{}", table.to_experiment_toml(&source));
            } else {
                out!("{}", table.render());
            }
            Ok(())
        }
        CausalCommand::Envs(a) => {
            if !(2..=MAX_SAMPLES).contains(&a.samples) {
                return Err(format!(
                    "--samples {}: must be in 2..={MAX_SAMPLES} (Monte Carlo draws per entry; \
                     the default 200 000 takes about a second)",
                    a.samples
                ));
            }
            out!(
                "{}",
                costbo_lab::causal::envs::render_all(a.samples, a.seed)
            );
            Ok(())
        }
    }
}
