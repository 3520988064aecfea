//! Numbers of a committed JSON summary read back to their bits: serde_json writes the shortest
//! decimal that reads back to each `f64` (and `null` for NaN and the infinities), but its
//! default reader may miss the last bit; each number is taken as written and parsed by Rust's
//! `str::parse`, which is exact. For `#[serde(deserialize_with = ...)]`.

use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

fn number<E: serde::de::Error>(raw: &RawValue) -> Result<f64, E> {
    match raw.get() {
        "null" => Ok(f64::NAN),
        t => t
            .parse::<f64>()
            .map_err(|_| E::custom(format!("{t} is not a number"))),
    }
}

/// One number (`null`: NaN).
pub fn f64<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    let raw: &RawValue = Deserialize::deserialize(d)?;
    number(raw)
}

/// A list of numbers.
pub fn list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
    let raw: Vec<&RawValue> = Deserialize::deserialize(d)?;
    raw.into_iter().map(number).collect()
}

/// A list of lists of numbers.
pub fn lists<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Vec<f64>>, D::Error> {
    let raw: Vec<Vec<&RawValue>> = Deserialize::deserialize(d)?;
    raw.into_iter()
        .map(|l| l.into_iter().map(number).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    #[derive(serde::Deserialize)]
    struct Numbers {
        #[serde(deserialize_with = "super::f64")]
        one: f64,
        #[serde(deserialize_with = "super::list")]
        some: Vec<f64>,
        #[serde(deserialize_with = "super::lists")]
        nested: Vec<Vec<f64>>,
    }

    #[test]
    fn every_number_serde_json_writes_reads_back_to_its_bits() {
        // Numbers of every scale, the written form of each by serde_json itself.
        let mut xs = vec![0.1, 1.0 / 3.0, 2.0f64.sqrt(), 5e-324, f64::MAX, -0.0, 1e22];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let x = f64::from_bits(state >> 1);
            if x.is_finite() {
                xs.push(x);
            }
        }
        let text = serde_json::json!({
            "one": xs[0], "some": xs, "nested": [xs[..3], xs[3..]]
        })
        .to_string();
        let n: Numbers = serde_json::from_str(&text).unwrap();
        assert_eq!(n.one.to_bits(), xs[0].to_bits());
        for (a, b) in n.some.iter().zip(&xs) {
            assert_eq!(a.to_bits(), b.to_bits(), "{b:e}");
        }
        assert_eq!(n.nested[1].len(), xs.len() - 3);
        // NaN is written as null and read back as NaN.
        let n: Numbers =
            serde_json::from_str(r#"{"one": null, "some": [null, 1.5], "nested": [[]]}"#).unwrap();
        assert!(n.one.is_nan() && n.some[0].is_nan() && n.some[1] == 1.5);
        assert!(
            serde_json::from_str::<Numbers>(r#"{"one": "x", "some": [], "nested": []}"#).is_err()
        );
    }
}
