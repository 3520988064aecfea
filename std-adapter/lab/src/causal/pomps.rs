//! Possibly-optimal mixed policy scopes (POMPS), by brute force over mixed policy scopes with
//! the filters of the implementation notes (`docs/notes/seed-004.md` §2.2) and one dominance rule.
//!
//! Every filter only removes scopes that provably cannot be strictly optimal for any SCM
//! compatible with the graph; where no such argument is available the scope is kept (a missing
//! POMPS can cost linear regret, an extra one only samples). The filters, in order:
//!
//! 1. **Compatibility**: `G_S` is acyclic (Definition 1).
//! 2. **Action relevance**: every intervened `X` is an ancestor of `Y` in `G_S`; otherwise `Y`'s
//!    law does not depend on `X`'s policy and `S` ties with `S` minus `X`.
//! 3. **Simulation dominance** (Lee & Bareinboim 2020's dominance, in the case where it can be
//!    decided from the graph alone): if an action `X'` outside `S` has no latent confounder and
//!    each of its parents is either a context variable or an action of `S`, then intervening on
//!    `X'` with contexts `Z` (its context parents, plus the contexts of its parents that are
//!    actions of `S`) can reproduce `X'`'s natural mechanism for every value of its independent
//!    noise, so `μ*(S ∪ {(X'; Z)}) ≥ μ*(S)`. `S` is dropped when that larger scope is
//!    compatible and `X'` reaches `Y` along edges the larger scope keeps (so the larger scope is
//!    not itself redundant in `X'`).
//! 4. **Context relevance** (non-redundancy): for each `(X; C_X)` and `c ∈ C_X`, `c` is not
//!    d-separated from `Y` given `closure_S(C_X \ {c})` in `G_S` without `X`.
//! 5. **Maximality**: no admissible context `c ∉ C_X` (not `X`, not a descendant of `X` in
//!    `G_S`) is d-connected to `Y` given `closure_S(C_X)` in `G_S` without `X`; such a `c`
//!    could be added and would matter, so `S` is weakly dominated by a non-redundant scope.
//! 6. The empty scope (no intervention) is dropped unless asked for, as in the paper's lists
//!    (A.2, A.3) and the public code.
//!
//! Enumeration: the actions that can reach `Y` or a context, each absent or present with any
//! subset of its admissible contexts. Contexts that are descendants of the action, or of `Y`,
//! along paths through no intervenable variable are never admissible (they stay descendants in
//! every `G_S`, and a context edge from them would close a cycle), so they are left out of the
//! count `∏_X (1 + 2^{|A(X)|})`.

use std::collections::BTreeMap;
use std::fmt;

use super::dag::Admg;
use super::graph::CausalGraph;
use super::nodeset::NodeSet;
use super::scope::{Component, Scope};

/// The default limit on the number of mixed policy scopes enumerated (about 10 s on one core
/// for small graphs; see docs/causal.md for measured times).
pub const DEFAULT_MAX_SCOPES: u128 = 1 << 22;

/// Options of [`pomps`].
#[derive(Clone, Copy, Debug)]
pub struct PompsOptions {
    /// Refuse graphs with more candidate scopes than this.
    pub max_scopes: u128,
    /// Keep the empty scope (no intervention) when it passes the filters.
    pub keep_empty: bool,
}

impl Default for PompsOptions {
    fn default() -> Self {
        PompsOptions {
            max_scopes: DEFAULT_MAX_SCOPES,
            keep_empty: false,
        }
    }
}

/// Why POMPS were not computed.
#[derive(Clone, Debug, PartialEq)]
pub enum PompsError {
    /// More candidate scopes than the limit (`count` is `None` past `u128`).
    TooLarge {
        /// Number of candidate scopes.
        count: Option<u128>,
        /// The limit.
        limit: u128,
        /// Actions enumerated with their number of admissible contexts.
        actions: Vec<(String, usize)>,
    },
}

impl fmt::Display for PompsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PompsError::TooLarge {
                count,
                limit,
                actions,
            } => {
                let count = match count {
                    Some(c) => format!("{c}"),
                    None => "more than 2^128".to_string(),
                };
                // The actions with the most contexts, enough to see where the count comes
                // from; a graph of hundreds of actions would make the line unreadable.
                const SHOWN: usize = 6;
                let mut most = actions.clone();
                most.sort_by_key(|a| std::cmp::Reverse(a.1));
                let mut per: Vec<String> = most
                    .iter()
                    .take(SHOWN)
                    .map(|(a, n)| format!("{}: {n}", crate::output::Shown(a)))
                    .collect();
                if most.len() > SHOWN {
                    per.push(format!("and {} more", most.len() - SHOWN));
                }
                write!(
                    f,
                    "too many mixed policy scopes to enumerate: {count} > limit {limit} \
                     (admissible contexts per action, most first: {}); restrict `intervenable` \
                     or `contexts` in the graph, write an arm table by hand, or raise \
                     --max-scopes",
                    per.join(", ")
                )
            }
        }
    }
}

impl std::error::Error for PompsError {}

/// How many candidate scopes each filter removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FilterCounts {
    /// Candidate scopes enumerated.
    pub enumerated: u128,
    /// Removed: `G_S` has a cycle.
    pub cyclic: u128,
    /// Removed: an action is not an ancestor of `Y` in `G_S`.
    pub irrelevant_action: u128,
    /// Removed: simulation dominance.
    pub dominated: u128,
    /// Removed: a context is irrelevant.
    pub irrelevant_context: u128,
    /// Removed: a relevant context could be added.
    pub not_maximal: u128,
    /// The empty scope passed the filters and was dropped.
    pub empty_dropped: u128,
}

/// The POMPS of a graph with the bookkeeping of the search.
#[derive(Clone, Debug)]
pub struct Pomps {
    /// The possibly-optimal scopes, sorted (by actions, then contexts).
    pub scopes: Vec<Scope>,
    /// Filter statistics.
    pub counts: FilterCounts,
}

/// Candidate actions and their admissible contexts.
pub fn candidates(g: &CausalGraph) -> Vec<(usize, NodeSet)> {
    let adm = g.admg();
    let xs = g.intervenable();
    let cs = g.contexts();
    let y = g.target();
    let reach = cs.union(NodeSet::single(y));
    let below_y = adm.descendants_avoiding(NodeSet::single(y), xs).minus(xs);
    let mut out = Vec::new();
    for x in xs.iter() {
        let below = adm.descendants(NodeSet::single(x));
        if !below.minus(NodeSet::single(x)).intersects(reach) {
            continue; // reaches neither Y nor a context: never an ancestor of Y in any G_S
        }
        let never = adm
            .descendants_avoiding(NodeSet::single(x), xs)
            .minus(xs)
            .union(below_y);
        out.push((x, cs.minus(NodeSet::single(x)).minus(never)));
    }
    out
}

/// The number of candidate scopes `∏ (1 + 2^{|A(X)|})`, `None` past `u128`.
pub fn candidate_count(cands: &[(usize, NodeSet)]) -> Option<u128> {
    let mut n: u128 = 1;
    for (_, a) in cands {
        let per = 1u128.checked_shl(a.len() as u32)?.checked_add(1)?;
        n = n.checked_mul(per)?;
    }
    Some(n)
}

/// Which filter (if any) rejects a scope; `None` when `s` passes them all (the empty-scope rule
/// aside).
pub fn rejection(g: &CausalGraph, s: &Scope) -> Option<Rejection> {
    let adm = g.admg();
    let y = g.target();
    let ys = NodeSet::single(y);
    let gs = s.induced_graph(adm);
    if !gs.is_acyclic() {
        return Some(Rejection::Cyclic);
    }
    let an_y = gs.ancestors(ys);
    if !s.actions().is_subset(an_y) {
        return Some(Rejection::IrrelevantAction);
    }
    if dominated(g, s) {
        return Some(Rejection::Dominated);
    }
    for comp in s.components() {
        let h = gs.without_nodes(NodeSet::single(comp.action));
        let not_x = NodeSet::single(comp.action);
        for c in comp.contexts.iter() {
            let z = s
                .closure(comp.contexts.minus(NodeSet::single(c)))
                .minus(not_x);
            if h.d_separated(NodeSet::single(c), ys, z) {
                return Some(Rejection::IrrelevantContext);
            }
        }
    }
    for comp in s.components() {
        let not_x = NodeSet::single(comp.action);
        let h = gs.without_nodes(not_x);
        let z = s.closure(comp.contexts).minus(not_x);
        let extra = g
            .contexts()
            .minus(comp.contexts)
            .minus(gs.descendants(not_x));
        for c in extra.iter() {
            if !h.d_separated(NodeSet::single(c), ys, z) {
                return Some(Rejection::NotMaximal);
            }
        }
    }
    None
}

/// The filter that removed a scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rejection {
    /// `G_S` has a cycle.
    Cyclic,
    /// An action is not an ancestor of `Y` in `G_S`.
    IrrelevantAction,
    /// Simulation dominance by a larger scope.
    Dominated,
    /// A context is d-separated from `Y`.
    IrrelevantContext,
    /// A relevant admissible context is missing.
    NotMaximal,
}

fn dominated(g: &CausalGraph, s: &Scope) -> bool {
    let adm: &Admg = g.admg();
    let xs = s.actions();
    let y = NodeSet::single(g.target());
    for x in g.intervenable().minus(xs).iter() {
        if !adm.spouses(x).is_empty() {
            continue; // a latent input: its natural mechanism may carry information no policy has
        }
        let mut z = NodeSet::EMPTY;
        let mut ok = true;
        for p in adm.parents(x).iter() {
            if g.contexts().contains(p) {
                z.insert(p);
            } else if let Some(c) = s.component(p) {
                z = z.union(c.contexts);
            } else {
                ok = false;
                break;
            }
        }
        if !ok || z.contains(x) {
            continue;
        }
        let bigger = s.with(Component {
            action: x,
            contexts: z,
        });
        // X' must reach Y along original edges the bigger scope keeps.
        let kept = adm.intervene(bigger.actions());
        if !kept.ancestors(y).contains(x) {
            continue;
        }
        if bigger.induced_graph(adm).is_acyclic() {
            return true;
        }
    }
    false
}

/// Seconds between progress lines of a long enumeration (on standard error).
const PROGRESS_SECONDS: u64 = 5;

/// Enumerates the mixed policy scopes of `g` and keeps the possibly-optimal ones.
pub fn pomps(g: &CausalGraph, options: PompsOptions) -> Result<Pomps, PompsError> {
    let cands = candidates(g);
    let count = candidate_count(&cands);
    if count.is_none_or(|c| c > options.max_scopes) {
        return Err(PompsError::TooLarge {
            count,
            limit: options.max_scopes,
            actions: cands
                .iter()
                .map(|(x, a)| (g.name(*x).to_string(), a.len()))
                .collect(),
        });
    }
    let mut counts = FilterCounts::default();
    let mut scopes = Vec::new();
    // Mixed-radix counter: digit i is 0 (action i absent) or 1 + index of its context subset.
    let radix: Vec<u128> = cands.iter().map(|(_, a)| 1 + (1u128 << a.len())).collect();
    let mut digit = vec![0u128; cands.len()];
    // A large graph makes each scope slow to check: say how far the enumeration is every few
    // seconds rather than run on in silence.
    let started = std::time::Instant::now();
    let mut noted = started;
    loop {
        if counts.enumerated % 1024 == 0 && noted.elapsed().as_secs() >= PROGRESS_SECONDS {
            noted = std::time::Instant::now();
            crate::errln!(
                "costbo: policy scopes: {} of {} checked ({:.0} s)",
                counts.enumerated,
                count.unwrap_or(0),
                started.elapsed().as_secs_f64()
            );
        }
        let comps: Vec<Component> = cands
            .iter()
            .zip(&digit)
            .filter(|(_, &d)| d > 0)
            .map(|(&(x, a), &d)| Component {
                action: x,
                contexts: a.subset(d - 1),
            })
            .collect();
        let s = Scope::new(comps);
        counts.enumerated += 1;
        match rejection(g, &s) {
            Some(Rejection::Cyclic) => counts.cyclic += 1,
            Some(Rejection::IrrelevantAction) => counts.irrelevant_action += 1,
            Some(Rejection::Dominated) => counts.dominated += 1,
            Some(Rejection::IrrelevantContext) => counts.irrelevant_context += 1,
            Some(Rejection::NotMaximal) => counts.not_maximal += 1,
            None if s.is_empty() && !options.keep_empty => counts.empty_dropped += 1,
            None => scopes.push(s),
        }
        // Next digit combination.
        let mut i = 0;
        loop {
            if i == digit.len() {
                scopes.sort();
                return Ok(Pomps { scopes, counts });
            }
            digit[i] += 1;
            if digit[i] < radix[i] {
                break;
            }
            digit[i] = 0;
            i += 1;
        }
    }
}

/// An arm: an equivalence class of scopes with the same actions `X(S)` and the same contexts
/// `C(S)` (paper 004 App. B.1), which Algorithm 2 cannot tell apart.
#[derive(Clone, Debug, PartialEq)]
pub struct Arm {
    /// The intervened variables.
    pub actions: NodeSet,
    /// The union of the contexts.
    pub contexts: NodeSet,
    /// The scopes of the class.
    pub scopes: Vec<Scope>,
}

/// Groups scopes into arms, ordered by (actions, contexts).
pub fn group_into_arms(scopes: &[Scope]) -> Vec<Arm> {
    let mut map: BTreeMap<(NodeSet, NodeSet), Vec<Scope>> = BTreeMap::new();
    for s in scopes {
        map.entry((s.actions(), s.contexts()))
            .or_default()
            .push(s.clone());
    }
    map.into_iter()
        .map(|((actions, contexts), scopes)| Arm {
            actions,
            contexts,
            scopes,
        })
        .collect()
}
