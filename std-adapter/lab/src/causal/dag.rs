//! Acyclic directed mixed graphs: directed edges between observed variables and bidirected
//! edges for latent confounders, with ancestors, descendants, the do-operation and
//! d-separation.
//!
//! A latent confounder `A ↔ B` stands for an unobserved `U` with `U → A` and `U → B` (paper 004
//! §2, "unobserved confounder"). Latent nodes are never conditioned on, so keeping them as
//! bidirected edges instead of nodes gives the same separations (m-separation) and keeps every
//! node of the graph observed.

use super::nodeset::NodeSet;

/// A mixed graph over nodes `0..len`: directed edges (`parents`, `children`) and bidirected
/// edges (`spouses`, symmetric).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Admg {
    len: usize,
    parents: Vec<NodeSet>,
    children: Vec<NodeSet>,
    spouses: Vec<NodeSet>,
}

impl Admg {
    /// A graph with `len` nodes and no edges (`len ≤ MAX_NODES`).
    pub fn new(len: usize) -> Admg {
        assert!(
            len <= super::nodeset::MAX_NODES,
            "at most {} nodes",
            super::nodeset::MAX_NODES
        );
        Admg {
            len,
            parents: vec![NodeSet::EMPTY; len],
            children: vec![NodeSet::EMPTY; len],
            spouses: vec![NodeSet::EMPTY; len],
        }
    }

    /// The number of nodes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the graph has no node.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// All nodes.
    pub fn nodes(&self) -> NodeSet {
        NodeSet::first(self.len)
    }

    /// Adds the directed edge `from → to`.
    pub fn add_edge(&mut self, from: usize, to: usize) {
        self.children[from].insert(to);
        self.parents[to].insert(from);
    }

    /// Adds the bidirected edge `a ↔ b` (a latent common cause of `a` and `b`).
    pub fn add_confounder(&mut self, a: usize, b: usize) {
        self.spouses[a].insert(b);
        self.spouses[b].insert(a);
    }

    /// The parents of `v` (tails of directed edges into `v`).
    pub fn parents(&self, v: usize) -> NodeSet {
        self.parents[v]
    }

    /// The children of `v`.
    pub fn children(&self, v: usize) -> NodeSet {
        self.children[v]
    }

    /// The nodes sharing a latent confounder with `v`.
    pub fn spouses(&self, v: usize) -> NodeSet {
        self.spouses[v]
    }

    /// `do(X)`: removes every edge into a node of `x`, directed and bidirected (a hard
    /// intervention replaces the mechanism, latent inputs included).
    pub fn intervene(&self, x: NodeSet) -> Admg {
        let mut g = self.clone();
        for v in x.iter() {
            for p in g.parents[v].iter() {
                g.children[p].remove(v);
            }
            g.parents[v] = NodeSet::EMPTY;
            for s in g.spouses[v].iter() {
                g.spouses[s].remove(v);
            }
            g.spouses[v] = NodeSet::EMPTY;
        }
        g
    }

    /// Removes every edge into and out of the nodes of `x` (the node stays, isolated: that is
    /// the same for separations as deleting it, and keeps indices stable).
    pub fn without_nodes(&self, x: NodeSet) -> Admg {
        let mut g = self.intervene(x);
        for v in x.iter() {
            for c in g.children[v].iter() {
                g.parents[c].remove(v);
            }
            g.children[v] = NodeSet::EMPTY;
        }
        g
    }

    /// The nodes with a directed path to a node of `set`, `set` included.
    pub fn ancestors(&self, set: NodeSet) -> NodeSet {
        closure(set, &self.parents)
    }

    /// The nodes reachable by a directed path from a node of `set`, `set` included.
    pub fn descendants(&self, set: NodeSet) -> NodeSet {
        closure(set, &self.children)
    }

    /// The nodes reachable from `set` by directed paths whose inner nodes avoid `stop` (the
    /// start and end nodes may be in `stop`), `set` included.
    pub fn descendants_avoiding(&self, set: NodeSet, stop: NodeSet) -> NodeSet {
        let mut seen = set;
        let mut frontier = set;
        while let Some(v) = frontier.first_node() {
            frontier.remove(v);
            if stop.contains(v) && !set.contains(v) {
                continue;
            }
            let new = self.children[v].minus(seen);
            seen = seen.union(new);
            frontier = frontier.union(new);
        }
        seen
    }

    /// A directed cycle, as a list of nodes `v0 → v1 → … → v0` (first node not repeated), or
    /// `None` when the directed part of the graph is acyclic.
    pub fn find_cycle(&self) -> Option<Vec<usize>> {
        // Depth-first search with colours; the grey stack is the current path.
        #[derive(Clone, Copy, PartialEq)]
        enum Colour {
            White,
            Grey,
            Black,
        }
        let mut colour = vec![Colour::White; self.len];
        for root in 0..self.len {
            if colour[root] != Colour::White {
                continue;
            }
            let mut stack: Vec<(usize, crate::causal::nodeset::NodeIter)> =
                vec![(root, self.children[root].iter())];
            colour[root] = Colour::Grey;
            while let Some((v, it)) = stack.last_mut() {
                let v = *v;
                match it.next() {
                    Some(c) => match colour[c] {
                        Colour::White => {
                            colour[c] = Colour::Grey;
                            stack.push((c, self.children[c].iter()));
                        }
                        Colour::Grey => {
                            let start = stack.iter().position(|(n, _)| *n == c).unwrap_or(0);
                            return Some(stack[start..].iter().map(|(n, _)| *n).collect());
                        }
                        Colour::Black => {}
                    },
                    None => {
                        colour[v] = Colour::Black;
                        stack.pop();
                    }
                }
            }
        }
        None
    }

    /// Whether the directed part of the graph has no cycle.
    pub fn is_acyclic(&self) -> bool {
        // Kahn's algorithm on masks: repeatedly drop nodes with no remaining parent.
        let mut left = self.nodes();
        loop {
            let sources: NodeSet = left
                .iter()
                .filter(|&v| !self.parents[v].intersects(left))
                .collect();
            if sources.is_empty() {
                return left.is_empty();
            }
            left = left.minus(sources);
        }
    }

    /// Whether every node of `x` is d-separated (m-separated, counting bidirected edges as
    /// latent common causes) from every node of `y` given `z`.
    ///
    /// Bayes-ball reachability: a walk enters a node either through an arrowhead (from a
    /// parent, or along a bidirected edge) or through a tail (from a child). A non-collider
    /// passes the walk when it is not in `z`; a collider (arrowhead in, arrowhead out) when it is
    /// an ancestor of `z`. Nodes of `x` or `y` inside `z` are treated as conditioned on.
    pub fn d_separated(&self, x: NodeSet, y: NodeSet, z: NodeSet) -> bool {
        let an_z = self.ancestors(z);
        // Visited states: entered through a tail, entered through an arrowhead.
        let mut via_tail = NodeSet::EMPTY;
        let mut via_head = NodeSet::EMPTY;
        let mut todo: Vec<(usize, bool)> = Vec::new();
        for v in x.minus(z).iter() {
            // The start behaves like a node entered through a tail: every edge may leave it.
            todo.push((v, false));
        }
        while let Some((v, head)) = todo.pop() {
            let seen = if head { &mut via_head } else { &mut via_tail };
            if seen.contains(v) {
                continue;
            }
            seen.insert(v);
            if y.contains(v) && !z.contains(v) {
                return false;
            }
            let in_z = z.contains(v);
            if !head {
                if in_z {
                    continue;
                }
                for p in self.parents[v].iter() {
                    todo.push((p, false));
                }
                for c in self.children[v].iter() {
                    todo.push((c, true));
                }
                for s in self.spouses[v].iter() {
                    todo.push((s, true));
                }
            } else {
                if !in_z {
                    for c in self.children[v].iter() {
                        todo.push((c, true));
                    }
                }
                if an_z.contains(v) {
                    for p in self.parents[v].iter() {
                        todo.push((p, false));
                    }
                    for s in self.spouses[v].iter() {
                        todo.push((s, true));
                    }
                }
            }
        }
        true
    }
}

fn closure(set: NodeSet, next: &[NodeSet]) -> NodeSet {
    let mut seen = set;
    let mut frontier = set;
    while let Some(v) = frontier.first_node() {
        frontier.remove(v);
        let new = next[v].minus(seen);
        seen = seen.union(new);
        frontier = frontier.union(new);
    }
    seen
}
