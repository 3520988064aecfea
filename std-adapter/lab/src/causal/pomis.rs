//! Possibly-optimal minimal intervention sets (POMIS, Lee & Bareinboim 2018): the candidate
//! sets of the CaBO baseline (paper 004 §4.8, `docs/notes/seed-004.md` §4.8).
//!
//! CaBO treats every variable that cannot be intervened on as unobserved, so the graph is first
//! *latent-projected* onto the intervenable variables and the target ([`latent_projection`]):
//! `a → b` when a directed path from `a` to `b` runs through hidden nodes only, `a ↔ b` when
//! `a` and `b` have a common hidden ancestor (through hidden nodes) or hidden ancestors joined
//! by a latent confounder (either may be the node itself).
//!
//! On the projection, a set `X` of non-target nodes is a POMIS exactly when it is the
//! interventional border of the graph under `do(X)`: `IB(G_X̄, Y) = X` (Lee & Bareinboim 2018,
//! Thm. 2 with Prop. 3), where
//! - `MUCT(G, Y)`, the minimal unobserved-confounders' territory, is the smallest set `T ∋ Y`
//!   within `An(Y)` closed under the c-component (bidirected reachability) and under
//!   descendants (within `An(Y)`),
//! - `IB(G, Y) = Pa(T) \ T`.
//!
//! The sets are enumerated by Lee & Bareinboim's recursion ([`pomis_sets`], their Algorithm 1):
//! from `do(IB)` of the whole graph, intervene on one territory variable at a time in reverse
//! topological order, skipping borders that contain a variable an earlier branch already
//! covered. It visits only the borders, so A.3's 29 intervenable variables take milliseconds;
//! the brute force over every subset ([`pomis_by_subsets`], at most [`MAX_INTERVENABLE`]
//! variables) checks it in the tests.

use super::dag::Admg;
use super::graph::CausalGraph;
use super::nodeset::NodeSet;

/// The most intervenable variables [`pomis_by_subsets`] enumerates the subsets of (2^16 sets:
/// a few seconds on a dense graph of 128 variables; 2^20 took 80 s there, in silence).
pub const MAX_INTERVENABLE: usize = 16;

/// The latent projection of `g` onto `keep` (see the module docs); nodes outside `keep` stay,
/// isolated, so indices are unchanged.
pub fn latent_projection(g: &Admg, keep: NodeSet) -> Admg {
    let hidden = g.nodes().minus(keep);
    // hidden_ancestry[v]: v and the hidden nodes with a directed path to v through hidden nodes.
    let hidden_ancestry: Vec<NodeSet> = (0..g.len())
        .map(|v| {
            let mut seen = NodeSet::single(v);
            let mut frontier = g.parents(v).intersection(hidden);
            while let Some(h) = frontier.first_node() {
                frontier.remove(h);
                if !seen.contains(h) {
                    seen.insert(h);
                    frontier = frontier.union(g.parents(h).intersection(hidden));
                }
            }
            seen
        })
        .collect();
    let mut p = Admg::new(g.len());
    for b in keep.iter() {
        for u in hidden_ancestry[b].iter() {
            for a in g.parents(u).intersection(keep).iter() {
                if a != b {
                    p.add_edge(a, b);
                }
            }
        }
    }
    let kept: Vec<usize> = keep.iter().collect();
    for (i, &a) in kept.iter().enumerate() {
        for &b in &kept[i + 1..] {
            let (ha, hb) = (hidden_ancestry[a], hidden_ancestry[b]);
            let common = ha
                .minus(NodeSet::single(a))
                .intersects(hb.minus(NodeSet::single(b)));
            let confounded = ha.iter().any(|u| g.spouses(u).intersects(hb));
            if common || confounded {
                p.add_confounder(a, b);
            }
        }
    }
    p
}

/// `MUCT(G, Y)` (see the module docs).
pub fn muct(g: &Admg, y: usize) -> NodeSet {
    let an = g.ancestors(NodeSet::single(y));
    let mut t = NodeSet::single(y);
    loop {
        // The c-component of t within An(Y), then the descendants of that within An(Y).
        let mut next = t;
        let mut frontier = t;
        while let Some(v) = frontier.first_node() {
            frontier.remove(v);
            let new = g.spouses(v).intersection(an).minus(next);
            next = next.union(new);
            frontier = frontier.union(new);
        }
        let next = g.descendants(next).intersection(an).union(next);
        if next == t {
            return t;
        }
        t = next;
    }
}

/// `IB(G, Y) = Pa(MUCT(G, Y)) \ MUCT(G, Y)`.
pub fn interventional_border(g: &Admg, y: usize) -> NodeSet {
    border_of(g, muct(g, y))
}

/// `Pa(T) \ T`.
fn border_of(g: &Admg, t: NodeSet) -> NodeSet {
    let parents = t
        .iter()
        .fold(NodeSet::EMPTY, |acc, v| acc.union(g.parents(v)));
    parents.minus(t)
}

/// The POMIS of `g` for target `y`, smallest first, by Lee & Bareinboim's (2018) Algorithm 1:
/// `X = IB(G, Y)` is one; then, in the graph `G_X̄[T ∪ X]` (`T` the territory), each territory
/// variable but `Y` is intervened on in reverse topological order, its border is a POMIS
/// unless it contains a variable intervened on earlier in the same branch, and the recursion
/// continues on the variables after it that are still in the new territory. Every node of
/// `g` that is not the target may be intervened on (as on [`latent_projection`]'s graphs).
pub fn pomis_sets(g: &Admg, y: usize) -> Vec<NodeSet> {
    let t = muct(g, y);
    let x = border_of(g, t);
    let h = territory(g, t, x);
    let order = reverse_topological(&h, t.minus(NodeSet::single(y)));
    let mut out = vec![x];
    sub_pomis(&h, y, &order, NodeSet::EMPTY, &mut out);
    out.sort_by_key(|s| (s.len(), s.bits()));
    out.dedup();
    out
}

/// `G_X̄[T ∪ X]`: `do(X)`, every node outside `T ∪ X` cut off.
fn territory(g: &Admg, t: NodeSet, x: NodeSet) -> Admg {
    g.intervene(x).without_nodes(g.nodes().minus(t.union(x)))
}

/// The nodes of `set` in reverse topological order of `g` (children before parents).
fn reverse_topological(g: &Admg, set: NodeSet) -> Vec<usize> {
    let mut order = Vec::with_capacity(set.len());
    let mut left = set;
    while !left.is_empty() {
        // A node of `left` none of whose parents is still left: a source of what remains.
        let Some(v) = left
            .iter()
            .find(|&v| !g.parents(v).intersects(left.minus(NodeSet::single(v))))
        else {
            break;
        };
        order.push(v);
        left.remove(v);
    }
    order.reverse();
    order
}

fn sub_pomis(g: &Admg, y: usize, pi: &[usize], o: NodeSet, out: &mut Vec<NodeSet>) {
    for (i, &v) in pi.iter().enumerate() {
        let gi = g.intervene(NodeSet::single(v));
        let t = muct(&gi, y);
        let x = border_of(&gi, t);
        let covered = o.union(NodeSet::from_nodes(pi[..i].iter().copied()));
        if x.intersects(covered) {
            continue;
        }
        out.push(x);
        let rest: Vec<usize> = pi[i + 1..]
            .iter()
            .copied()
            .filter(|&w| t.contains(w))
            .collect();
        if !rest.is_empty() {
            sub_pomis(&territory(&gi, t, x), y, &rest, covered, out);
        }
    }
}

/// The POMIS of `g` for target `y` among the subsets of `candidates`, by checking every subset
/// ([`is_pomis`]), smallest first; `None` beyond [`MAX_INTERVENABLE`] candidates.
pub fn pomis_by_subsets(g: &Admg, y: usize, candidates: NodeSet) -> Option<Vec<NodeSet>> {
    if candidates.len() > MAX_INTERVENABLE {
        return None;
    }
    let mut out: Vec<NodeSet> = (0..1u128 << candidates.len())
        .map(|k| candidates.subset(k))
        .filter(|&x| is_pomis(g, y, x))
        .collect();
    out.sort_by_key(|s| (s.len(), s.bits()));
    Some(out)
}

/// Whether `x` is a POMIS of `g` for target `y`: `IB(G_X̄, Y) = X`.
pub fn is_pomis(g: &Admg, y: usize, x: NodeSet) -> bool {
    interventional_border(&g.intervene(x), y) == x
}

/// The POMIS of `g`'s latent projection onto its intervenable variables and target, smallest
/// first (the empty set included when it is one), by [`pomis_sets`].
pub fn pomis(g: &CausalGraph) -> Result<Vec<NodeSet>, String> {
    let intervenable = g.intervenable();
    let y = g.target();
    let projected = latent_projection(g.admg(), intervenable.union(NodeSet::single(y)));
    Ok(pomis_sets(&projected, y))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(n: usize, edges: &[(usize, usize)], confounders: &[(usize, usize)]) -> Admg {
        let mut g = Admg::new(n);
        for &(a, b) in edges {
            g.add_edge(a, b);
        }
        for &(a, b) in confounders {
            g.add_confounder(a, b);
        }
        g
    }

    fn sets(g: &Admg, y: usize, candidates: NodeSet) -> Vec<Vec<usize>> {
        (0..1u128 << candidates.len())
            .map(|k| candidates.subset(k))
            .filter(|&x| is_pomis(g, y, x))
            .map(|x| x.iter().collect())
            .collect()
    }

    #[test]
    fn without_confounders_the_parents_of_the_target_are_the_only_pomis() {
        // X → Z → Y, W → Y: worked by hand, MUCT = {Y}, IB = Pa(Y) = {Z, W}; under do(Z, W)
        // the border is the same, and every other set's border is {Z, W}.
        let (x, z, w, y) = (0, 1, 2, 3);
        let g = graph(4, &[(x, z), (z, y), (w, y)], &[]);
        assert_eq!(
            sets(&g, y, NodeSet::from_nodes([x, z, w])),
            vec![vec![z, w]]
        );
    }

    #[test]
    fn a_confounded_cause_makes_its_mediator_and_the_empty_set_pomis() {
        // Lee & Bareinboim's basic example, X → Z → Y with X ↔ Y, worked by hand: ∅ is a POMIS
        // (MUCT = {X, Z, Y}, IB = ∅), so is {Z} (under do(Z): MUCT = {X, Y}, IB = {Z}); {X}
        // is not (under do(X) the border is {Z}), nor {X, Z}.
        let (x, z, y) = (0, 1, 2);
        let g = graph(3, &[(x, z), (z, y)], &[(x, y)]);
        assert_eq!(muct(&g, y), NodeSet::from_nodes([x, z, y]));
        assert_eq!(
            sets(&g, y, NodeSet::from_nodes([x, z])),
            vec![vec![], vec![z]]
        );
    }

    /// A random ADMG over `n` nodes in the order of their indices (edges forward only), the
    /// last node the target; xorshift from `seed`.
    fn random_admg(n: usize, seed: u64, p_edge: u64, p_conf: u64) -> Admg {
        let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s % 100
        };
        let mut g = Admg::new(n);
        for a in 0..n {
            for b in a + 1..n {
                if next() < p_edge {
                    g.add_edge(a, b);
                }
                if next() < p_conf {
                    g.add_confounder(a, b);
                }
            }
        }
        g
    }

    #[test]
    fn the_recursion_finds_exactly_the_subsets_that_are_pomis() {
        // 600 random graphs of 3 to 9 nodes, sparse to dense, with and without confounders:
        // Algorithm 1 against every subset of the non-target nodes checked by IB(G_X̄) = X.
        let mut checked = 0;
        let mut several = 0;
        for seed in 0..600u64 {
            let n = 3 + (seed % 7) as usize;
            let (p_edge, p_conf) = [(20, 10), (40, 20), (60, 30), (35, 0)][(seed % 4) as usize];
            let g = random_admg(n, seed, p_edge, p_conf);
            let y = n - 1;
            let candidates = NodeSet::first(n).minus(NodeSet::single(y));
            let brute = pomis_by_subsets(&g, y, candidates).unwrap();
            assert_eq!(pomis_sets(&g, y), brute, "seed {seed}, {n} nodes");
            checked += 1;
            several += usize::from(brute.len() > 2);
        }
        assert_eq!(checked, 600);
        assert!(
            several > 100,
            "only {several} graphs with more than two POMIS"
        );
    }

    #[test]
    fn projection_of_hidden_chains_and_common_causes() {
        // A → H1 → B, H2 → A, H2 → C, H1 ↔ C, with H1 and H2 hidden: A → B; A ↔ C (common
        // hidden ancestor H2); B ↔ C (B's hidden ancestor H1 is confounded with C).
        let (a, h1, b, h2, c) = (0, 1, 2, 3, 4);
        let g = graph(5, &[(a, h1), (h1, b), (h2, a), (h2, c)], &[(h1, c)]);
        let p = latent_projection(&g, NodeSet::from_nodes([a, b, c]));
        assert_eq!(p.parents(b), NodeSet::single(a));
        assert_eq!(p.parents(a), NodeSet::EMPTY);
        assert_eq!(p.parents(c), NodeSet::EMPTY);
        assert_eq!(p.spouses(a), NodeSet::single(c));
        assert_eq!(p.spouses(b), NodeSet::single(c));
        assert_eq!(p.spouses(c), NodeSet::from_nodes([a, b]));
    }

    #[test]
    fn paper_graphs_give_the_notes_pomis() {
        let load = |name: &str| {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../data/causal")
                .join(name);
            CausalGraph::from_path(&path).unwrap()
        };
        // PSA: projecting Age, BMI and Cancer out confounds both drugs with PSA and with each
        // other, so every subset is a POMIS (`docs/notes/seed-004.md` §4.1: {∅, {Asp}, {Sta}, {Asp, Sta}}).
        let psa = load("psa.toml");
        let names = |g: &CausalGraph, s: &[NodeSet]| -> Vec<Vec<String>> {
            s.iter().map(|&x| g.names_of(x)).collect()
        };
        let got = names(&psa, &pomis(&psa).unwrap());
        assert_eq!(got.len(), 4, "{got:?}");
        assert!(got[0].is_empty() && got[3].len() == 2, "{got:?}");
        // Fig. 1 and A.2: projecting C out gives X1 → X2 → Y with X1 ↔ X2, X1 ↔ Y, X2 ↔ Y;
        // worked by hand, ∅, {X1} and {X2} are POMIS, {X1, X2} is not (under do(X1, X2) the
        // border is {X2}).
        for file in ["fig1.toml", "a2.toml"] {
            let g = load(file);
            let got = names(&g, &pomis(&g).unwrap());
            assert_eq!(
                got,
                vec![vec![], vec!["X1".to_string()], vec!["X2".to_string()]],
                "{file}"
            );
        }
    }
}
