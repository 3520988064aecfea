//! Mixed policy scopes (paper 004, Definition 1): pairs `(X; C_X)` of an action and the
//! contexts its policy may read, the graph `G_S` they induce and the closure operator.

use super::dag::Admg;
use super::graph::CausalGraph;
use super::nodeset::NodeSet;

/// One pair `(X; C_X)`: the action `X` set by a deterministic function of the contexts `C_X`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Component {
    /// The intervened variable.
    pub action: usize,
    /// The variables its policy reads.
    pub contexts: NodeSet,
}

/// A mixed policy scope: at most one component per action, kept sorted by action.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Scope {
    components: Vec<Component>,
}

impl Scope {
    /// A scope from its components (sorted here; a repeated action keeps the last one given).
    pub fn new(mut components: Vec<Component>) -> Scope {
        components.sort_by_key(|c| c.action);
        components.dedup_by(|later, earlier| {
            let same = later.action == earlier.action;
            if same {
                *earlier = *later;
            }
            same
        });
        Scope { components }
    }

    /// The components, by action.
    pub fn components(&self) -> &[Component] {
        &self.components
    }

    /// Whether the scope intervenes on nothing.
    pub fn is_empty(&self) -> bool {
        self.components.is_empty()
    }

    /// `X(S)`: the intervened variables.
    pub fn actions(&self) -> NodeSet {
        self.components.iter().map(|c| c.action).collect()
    }

    /// `C(S)`: the union of the context sets.
    pub fn contexts(&self) -> NodeSet {
        self.components
            .iter()
            .fold(NodeSet::EMPTY, |s, c| s.union(c.contexts))
    }

    /// The component of `action`, if intervened.
    pub fn component(&self, action: usize) -> Option<&Component> {
        self.components.iter().find(|c| c.action == action)
    }

    /// The same scope with one more component.
    pub fn with(&self, extra: Component) -> Scope {
        let mut c = self.components.clone();
        c.push(extra);
        Scope::new(c)
    }

    /// `G_S`: every edge into an intervened variable removed (bidirected ones included), then
    /// `C → X` added for each context `C` of each component `(X; C_X)`.
    pub fn induced_graph(&self, g: &Admg) -> Admg {
        let mut h = g.intervene(self.actions());
        for c in &self.components {
            for ctx in c.contexts.iter() {
                h.add_edge(ctx, c.action);
            }
        }
        h
    }

    /// The closure of `z` under the scope: the variables fixed once `z` is known, i.e. `z` plus
    /// every action whose contexts are all known (repeatedly), since a policy is a
    /// deterministic function of its contexts.
    pub fn closure(&self, z: NodeSet) -> NodeSet {
        let mut out = z;
        loop {
            let mut grown = out;
            for c in &self.components {
                if c.contexts.is_subset(grown) {
                    grown.insert(c.action);
                }
            }
            if grown == out {
                return out;
            }
            out = grown;
        }
    }

    /// A readable form: `{(X1; C), (X2; ∅)}`, or `{}` for no intervention.
    pub fn display(&self, g: &CausalGraph) -> String {
        let parts: Vec<String> = self
            .components
            .iter()
            .map(|c| {
                let ctx = g.names_of(c.contexts);
                let ctx = if ctx.is_empty() {
                    "∅".to_string()
                } else {
                    ctx.join(", ")
                };
                format!("({}; {})", g.name(c.action), ctx)
            })
            .collect();
        format!("{{{}}}", parts.join(", "))
    }
}
