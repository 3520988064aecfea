//! The saved state of an optimizer: its experiment file and every observation told, in order,
//! sealed by a checksum.
//!
//! Restoring replays the observations through the core's journal replay, which changes the
//! model, the ledger and the rule's state exactly as the rounds did (the rule's decision-time
//! state comes from each round's memo), so the restored optimizer decides bit for bit as the
//! saved one would have, also after a drop-oldest model has forgotten observations (a snapshot
//! of the model's factor would not: the factor computed afresh differs in the last bits).

use serde::{Deserialize, Serialize};

use super::engine::Precision;
use super::error::{Error, ErrorKind};

/// What a state file says it is.
const FORMAT: &str = "costbo-optimizer";

/// The version of the format.
const VERSION: u32 = 1;

/// One accepted observation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub(crate) enum Event {
    /// Data from outside the rounds (`tell_prior`), with its cost where the costs are learned
    /// as a function of the values (`tell_prior_with_cost`).
    Prior {
        #[serde(with = "exact::list")]
        x: Vec<f64>,
        #[serde(with = "exact")]
        y: f64,
        #[serde(
            with = "exact::option",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        cost: Option<f64>,
    },
    /// A measured round: the set played, the point, outcome and cost told, and the rule's
    /// memo after it.
    Measured {
        set: usize,
        #[serde(with = "exact::list")]
        x: Vec<f64>,
        #[serde(with = "exact")]
        y: f64,
        #[serde(with = "exact")]
        cost: f64,
        #[serde(with = "exact::list")]
        memo: Vec<f64>,
    },
    /// A round whose measurement was skipped.
    Skipped {
        set: usize,
        #[serde(with = "exact::list")]
        x: Vec<f64>,
        #[serde(with = "exact")]
        cost: f64,
        #[serde(with = "exact::list")]
        memo: Vec<f64>,
    },
}

/// Numbers as the shortest decimal that reads back to the same bits (Rust's `{:?}` and
/// `str::parse`, both exact), written as JSON strings: a JSON number would be read back by
/// serde_json's fast float parser, which may miss the last bit, and a replay must see the very
/// bits told. Memos may hold infinities (`"inf"`).
pub(crate) mod exact {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{v:?}"))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        let text = String::deserialize(d)?;
        parse(&text).map_err(D::Error::custom)
    }

    fn parse(text: &str) -> Result<f64, String> {
        text.parse::<f64>()
            .ok()
            .filter(|v| format!("{v:?}") == text)
            .ok_or_else(|| format!("\"{text}\" is not a number as this format writes one"))
    }

    /// A number that may be absent (the field left out).
    pub mod option {
        use super::*;

        pub fn serialize<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
            match v {
                Some(x) => super::serialize(x, s),
                None => s.serialize_none(),
            }
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
            super::deserialize(d).map(Some)
        }
    }

    /// Lists with gaps (`None` as JSON `null`).
    pub mod option_list {
        use super::*;
        use serde::ser::SerializeSeq;

        pub fn serialize<S: Serializer>(v: &[Option<f64>], s: S) -> Result<S::Ok, S::Error> {
            let mut seq = s.serialize_seq(Some(v.len()))?;
            for x in v {
                seq.serialize_element(&x.map(|x| format!("{x:?}")))?;
            }
            seq.end()
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Option<f64>>, D::Error> {
            let texts = Vec::<Option<String>>::deserialize(d)?;
            texts
                .iter()
                .map(|t| {
                    t.as_deref()
                        .map(|t| parse(t).map_err(D::Error::custom))
                        .transpose()
                })
                .collect()
        }
    }

    pub mod list {
        use super::*;
        use serde::ser::SerializeSeq;

        pub fn serialize<S: Serializer>(v: &[f64], s: S) -> Result<S::Ok, S::Error> {
            let mut seq = s.serialize_seq(Some(v.len()))?;
            for x in v {
                seq.serialize_element(&format!("{x:?}"))?;
            }
            seq.end()
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
            let texts = Vec::<String>::deserialize(d)?;
            texts
                .iter()
                .map(|t| parse(t).map_err(D::Error::custom))
                .collect()
        }
    }
}

#[derive(Serialize)]
struct Body<'a> {
    format: &'a str,
    version: u32,
    precision: &'a str,
    experiment: &'a str,
    events: &'a [Event],
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Saved {
    format: String,
    version: u32,
    precision: String,
    experiment: String,
    events: Vec<Event>,
    fnv1a: String,
}

/// A state as read, checked against its checksum.
pub(crate) struct Loaded {
    pub precision: Precision,
    pub experiment: String,
    pub events: Vec<Event>,
}

/// FNV-1a, 64 bits.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn body_json(body: &Body<'_>) -> String {
    // Cannot fail: strings, integers and finite numbers only.
    serde_json::to_string(body).unwrap_or_default()
}

/// The state as JSON.
pub(crate) fn save(experiment: &str, precision: Precision, events: &[Event]) -> String {
    let body = Body {
        format: FORMAT,
        version: VERSION,
        precision: precision.name(),
        experiment,
        events,
    };
    let text = body_json(&body);
    let sum = format!("{:016x}", fnv1a(text.as_bytes()));
    // The body's object with the checksum as its last member.
    let mut out = text;
    out.pop();
    out.push_str(&format!(",\"fnv1a\":\"{sum}\"}}"));
    out
}

/// Reads and checks a state.
pub(crate) fn load(text: &str) -> Result<Loaded, Error> {
    let bad = |m: String| Error::new(ErrorKind::State, format!("saved state: {m}"));
    let saved: Saved = serde_json::from_str(text).map_err(|e| {
        bad(format!(
            "not a costbo optimizer state ({e}); it is written by Optimizer::to_json"
        ))
    })?;
    if saved.format != FORMAT {
        return Err(bad(format!(
            "format \"{}\" is not \"{FORMAT}\"",
            saved.format
        )));
    }
    if saved.version != VERSION {
        return Err(bad(format!(
            "version {} is not one this build reads ({VERSION})",
            saved.version
        )));
    }
    let precision = match saved.precision.as_str() {
        "f64" => Precision::F64,
        "f32" => Precision::F32,
        other => {
            return Err(bad(format!(
                "precision \"{other}\" is not \"f64\" or \"f32\""
            )))
        }
    };
    let body = Body {
        format: &saved.format,
        version: saved.version,
        precision: &saved.precision,
        experiment: &saved.experiment,
        events: &saved.events,
    };
    let sum = format!("{:016x}", fnv1a(body_json(&body).as_bytes()));
    if sum != saved.fnv1a {
        return Err(bad(format!(
            "its checksum {} does not match its content ({sum}): the file was changed or damaged",
            saved.fnv1a
        )));
    }
    Ok(Loaded {
        precision,
        experiment: saved.experiment,
        events: saved.events,
    })
}
