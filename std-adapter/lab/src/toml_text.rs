//! The lab's TOML files (settings grids, causal graphs, arm tables): a parser's error in one
//! line, as every refusal of the command is.

/// A TOML error in one line (the parser's own is several, with a drawing of the spot):
/// `line L: message`.
pub fn toml_error(e: &toml::de::Error, text: &str) -> String {
    let message = e.message().split_whitespace().collect::<Vec<_>>().join(" ");
    match e.span() {
        Some(span) => {
            let line = text
                .get(..span.start)
                .map_or(0, |before| before.matches('\n').count())
                + 1;
            format!("line {line}: {message}")
        }
        None => message,
    }
}
