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
//! The sets are enumerated by brute force over the subsets of the intervenable variables,
//! which the graphs of paper 004's CaBO baselines (two or three intervenable variables) keep
//! tiny; at most [`MAX_INTERVENABLE`] are accepted.

use super::dag::Admg;
use super::graph::CausalGraph;
use super::nodeset::NodeSet;

/// The most intervenable variables [`pomis`] enumerates the subsets of (2^16 sets: a few
/// seconds on a dense graph of 128 variables; 2^20 took 80 s there, in silence).
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
    let t = muct(g, y);
    let parents = t
        .iter()
        .fold(NodeSet::EMPTY, |acc, v| acc.union(g.parents(v)));
    parents.minus(t)
}

/// Whether `x` is a POMIS of `g` for target `y`: `IB(G_X̄, Y) = X`.
pub fn is_pomis(g: &Admg, y: usize, x: NodeSet) -> bool {
    interventional_border(&g.intervene(x), y) == x
}

/// The POMIS of `g`'s latent projection onto its intervenable variables and target, smallest
/// first (the empty set included when it is one), or a message when there are more than
/// [`MAX_INTERVENABLE`] intervenable variables.
pub fn pomis(g: &CausalGraph) -> Result<Vec<NodeSet>, String> {
    let intervenable = g.intervenable();
    if intervenable.len() > MAX_INTERVENABLE {
        return Err(format!(
            "{} intervenable variables; POMIS are enumerated for at most {MAX_INTERVENABLE}",
            intervenable.len()
        ));
    }
    let y = g.target();
    let projected = latent_projection(g.admg(), intervenable.union(NodeSet::single(y)));
    let mut out: Vec<NodeSet> = (0..1u128 << intervenable.len())
        .map(|k| intervenable.subset(k))
        .filter(|&x| is_pomis(&projected, y, x))
        .collect();
    out.sort_by_key(|s| (s.len(), s.bits()));
    Ok(out)
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
