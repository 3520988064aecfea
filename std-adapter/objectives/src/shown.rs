//! A user's text in a message: escaped and cut.

use std::fmt;

/// A user's text shown in an error message: control characters escaped (`\u{1b}`), so that
/// the message cannot move the cursor or recolour the terminal, and cut after
/// [`SHOWN_CHARS`] characters with the length of the whole, so that a value of megabytes does not
/// flood it.
pub struct Shown<'a>(pub &'a str);

/// Characters of a [`Shown`] text before it is cut.
pub const SHOWN_CHARS: usize = 60;

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, c) in self.0.chars().enumerate() {
            if i == SHOWN_CHARS {
                return write!(f, "... ({} bytes in all)", self.0.len());
            }
            if c.is_control() {
                write!(f, "{}", c.escape_unicode())?;
            } else {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_text_escapes_control_characters_and_is_cut() {
        assert_eq!(Shown("NO3").to_string(), "NO3");
        assert_eq!(Shown("a\x1b[31mb\n").to_string(), "a\\u{1b}[31mb\\u{a}");
        let long = "x".repeat(1_000_000);
        let shown = Shown(&long).to_string();
        assert_eq!(
            shown,
            format!("{}... (1000000 bytes in all)", "x".repeat(SHOWN_CHARS))
        );
        let exactly = "é".repeat(SHOWN_CHARS);
        assert_eq!(Shown(&exactly).to_string(), exactly);
    }
}
