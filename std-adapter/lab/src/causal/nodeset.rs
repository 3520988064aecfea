//! A set of graph nodes as a 128-bit mask.
//!
//! POMPS enumeration tests millions of scopes, each with several ancestor and d-separation
//! queries; a bit mask makes every set operation one or two machine instructions and keeps the
//! sets `Copy`. 128 nodes cover the largest graph of paper 004 (A.3: 87 observed variables).

/// The largest number of observed variables a causal graph may have.
pub const MAX_NODES: usize = 128;

/// A set of node indices `0..MAX_NODES`.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct NodeSet(u128);

impl NodeSet {
    /// The empty set.
    pub const EMPTY: NodeSet = NodeSet(0);

    /// The set holding only `node`.
    pub fn single(node: usize) -> NodeSet {
        debug_assert!(node < MAX_NODES);
        NodeSet(1u128 << node)
    }

    /// The set `{0, 1, …, n − 1}`.
    pub fn first(n: usize) -> NodeSet {
        debug_assert!(n <= MAX_NODES);
        if n == MAX_NODES {
            NodeSet(u128::MAX)
        } else {
            NodeSet((1u128 << n) - 1)
        }
    }

    /// The set of the given nodes.
    pub fn from_nodes(nodes: impl IntoIterator<Item = usize>) -> NodeSet {
        let mut s = NodeSet::EMPTY;
        for n in nodes {
            s.insert(n);
        }
        s
    }

    /// The raw mask (bit `i` set when node `i` is in the set).
    pub fn bits(self) -> u128 {
        self.0
    }

    /// Whether `node` is in the set.
    pub fn contains(self, node: usize) -> bool {
        node < MAX_NODES && self.0 >> node & 1 == 1
    }

    /// Adds `node`.
    pub fn insert(&mut self, node: usize) {
        self.0 |= 1u128 << node;
    }

    /// Removes `node`.
    pub fn remove(&mut self, node: usize) {
        self.0 &= !(1u128 << node);
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The number of nodes in the set.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// The union.
    pub fn union(self, other: NodeSet) -> NodeSet {
        NodeSet(self.0 | other.0)
    }

    /// The intersection.
    pub fn intersection(self, other: NodeSet) -> NodeSet {
        NodeSet(self.0 & other.0)
    }

    /// The nodes of `self` not in `other`.
    pub fn minus(self, other: NodeSet) -> NodeSet {
        NodeSet(self.0 & !other.0)
    }

    /// Whether every node of `self` is in `other`.
    pub fn is_subset(self, other: NodeSet) -> bool {
        self.0 & !other.0 == 0
    }

    /// Whether the two sets share a node.
    pub fn intersects(self, other: NodeSet) -> bool {
        self.0 & other.0 != 0
    }

    /// The nodes in increasing order.
    pub fn iter(self) -> NodeIter {
        NodeIter(self.0)
    }

    /// The smallest node, if any.
    pub fn first_node(self) -> Option<usize> {
        (self.0 != 0).then(|| self.0.trailing_zeros() as usize)
    }

    /// The `k`-th subset of `self` in binary counting order: bit `j` of `k` selects the `j`-th
    /// smallest node of `self` (so `k` runs over `0..2^len`).
    pub fn subset(self, k: u128) -> NodeSet {
        let mut out = 0u128;
        let mut rest = self.0;
        let mut k = k;
        while rest != 0 && k != 0 {
            let low = rest & rest.wrapping_neg();
            if k & 1 == 1 {
                out |= low;
            }
            rest &= rest - 1;
            k >>= 1;
        }
        NodeSet(out)
    }
}

/// Iterator over the nodes of a [`NodeSet`], smallest first.
pub struct NodeIter(u128);

impl Iterator for NodeIter {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let n = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(n)
    }
}

impl FromIterator<usize> for NodeSet {
    fn from_iter<I: IntoIterator<Item = usize>>(iter: I) -> Self {
        NodeSet::from_nodes(iter)
    }
}
