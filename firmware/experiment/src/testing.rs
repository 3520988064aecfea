//! Helpers the workspace's tests share to derive experiment files from one another. Not part
//! of the file format's contract: they edit the text line by line and assume the layout of
//! this repository's files (one entry per line, unindented keys).

use std::string::String;

/// `text` with every `cost = …` line dropped and `costs = "learned"` after each `rule = …`
/// line: the same experiment with its costs learned (paper 001's setting). The rule is left
/// as it is; callers that need one that learns costs change it themselves.
pub fn with_learned_costs(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with("cost = ") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
        if line.starts_with("rule = ") {
            out.push_str("costs = \"learned\"\n");
        }
    }
    out
}
