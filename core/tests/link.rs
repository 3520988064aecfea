//! The host–device framing: COBS against the standard's published vectors, the CRC against its
//! check value, round trips of every message, and malformed input (random bytes, every single
//! bit flip, truncation, overflow, resynchronisation after garbage) rejected without panics.

use costbo_core::link::{
    cobs_max, encode, encode_raw, DeviceMessage, ErrorCode, FrameDecoder, HostMessage, LinkError,
    Values, CRC32, DECODER_CAPACITY, MAX_FRAME, MAX_VARS,
};
use proptest::prelude::*;

type Dec = FrameDecoder<DECODER_CAPACITY>;

fn vals(v: &[f32]) -> Values {
    Values::from_slice(v).unwrap()
}

fn device_messages() -> Vec<DeviceMessage> {
    vec![
        DeviceMessage::Hello {
            version: 1,
            config: 0xDEAD_BEEF,
            round: 17,
            spent: 1.7,
            budget: 3.0,
        },
        DeviceMessage::Decision {
            round: 0,
            set: 6,
            values: vals(&[1.0, f32::NAN, 10.4, 8.9, 6.5]),
            score: -0.25,
        },
        DeviceMessage::Decision {
            round: u32::MAX,
            set: 255,
            values: vals(&[f32::MAX; MAX_VARS]),
            score: f32::MIN_POSITIVE,
        },
        DeviceMessage::Ack { round: 3 },
        DeviceMessage::Done {
            round: 40,
            spent: 2.9999998,
            set: 2,
            values: vals(&[f32::NAN, f32::NAN, f32::NAN, 10.0, 3.25]),
            score: 2.19,
        },
        DeviceMessage::Error {
            code: ErrorCode::WrongRound,
            round: 5,
        },
        DeviceMessage::Error {
            code: ErrorCode::Other(0xFFFF),
            round: 0,
        },
        DeviceMessage::Error {
            code: ErrorCode::MeasurementDue,
            round: 4,
        },
        DeviceMessage::Query {
            round: 7,
            measure: false,
            min_probability: 0.9375,
        },
        DeviceMessage::MeasureContexts {
            round: 12,
            arm: 2,
            contexts: 0b1_0001,
        },
    ]
}

fn host_messages() -> Vec<HostMessage> {
    vec![
        HostMessage::Start,
        HostMessage::Measurement {
            round: 9,
            values: vals(&[0.0, 3.5, 1e-30, 11.3, 2.5]),
        },
        HostMessage::Measurement {
            round: 1 << 30,
            values: vals(&[]),
        },
        HostMessage::Outcome {
            round: 9,
            y: 1.875,
            cost: 0.1,
        },
        HostMessage::Ping,
        HostMessage::Stop,
        HostMessage::Skipped {
            round: 7,
            cost: 0.1,
        },
        HostMessage::Contexts {
            round: 12,
            values: vals(&[4.5, f32::NAN, f32::NAN, f32::NAN, 22.0]),
        },
    ]
}

fn frame<T: serde::Serialize>(m: &T) -> Vec<u8> {
    let mut buf = [0u8; MAX_FRAME];
    let n = encode(m, &mut buf).unwrap();
    buf[..n].to_vec()
}

/// Every result the decoder reports while taking `bytes`.
fn feed<T: serde::de::DeserializeOwned>(dec: &mut Dec, bytes: &[u8]) -> Vec<Result<T, LinkError>> {
    bytes.iter().filter_map(|&b| dec.push(b)).collect()
}

/// Bitwise equality (NaN-safe): equal frames.
fn same<T: serde::Serialize>(a: &T, b: &T) -> bool {
    frame(a) == frame(b)
}

#[test]
fn cobs_matches_the_published_examples() {
    // Cheshire & Baker's COBS as tabulated on Wikipedia ("Consistent Overhead Byte Stuffing").
    let cases: Vec<(Vec<u8>, Vec<u8>)> = vec![
        (vec![0x00], vec![0x01, 0x01, 0x00]),
        (vec![0x00, 0x00], vec![0x01, 0x01, 0x01, 0x00]),
        (vec![0x00, 0x11, 0x00], vec![0x01, 0x02, 0x11, 0x01, 0x00]),
        (
            vec![0x11, 0x22, 0x00, 0x33],
            vec![0x03, 0x11, 0x22, 0x02, 0x33, 0x00],
        ),
        (
            vec![0x11, 0x22, 0x33, 0x44],
            vec![0x05, 0x11, 0x22, 0x33, 0x44, 0x00],
        ),
        (
            vec![0x11, 0x00, 0x00, 0x00],
            vec![0x02, 0x11, 0x01, 0x01, 0x01, 0x00],
        ),
        (
            (0x01..=0xFE).collect(),
            [vec![0xFF], (0x01..=0xFE).collect(), vec![0x00]].concat(),
        ),
        (
            (0x00..=0xFE).collect(),
            [vec![0x01, 0xFF], (0x01..=0xFE).collect(), vec![0x00]].concat(),
        ),
        (
            (0x01..=0xFF).collect(),
            [vec![0xFF], (0x01..=0xFE).collect(), vec![0x02, 0xFF, 0x00]].concat(),
        ),
        (
            [(0x02..=0xFF).collect::<Vec<u8>>(), vec![0x00]].concat(),
            [vec![0xFF], (0x02..=0xFF).collect(), vec![0x01, 0x01, 0x00]].concat(),
        ),
        (
            [(0x03..=0xFF).collect::<Vec<u8>>(), vec![0x00, 0x01]].concat(),
            [vec![0xFE], (0x03..=0xFF).collect(), vec![0x02, 0x01, 0x00]].concat(),
        ),
    ];
    for (data, want) in cases {
        let mut out = vec![0u8; cobs_max(data.len()) + 1];
        let n = encode_raw(&data, &mut out).unwrap();
        assert_eq!(&out[..n], &want[..], "encoding {data:02x?}");
        // The decoder inverts it (with a CRC appended so that the frame checks).
        let mut framed = data.clone();
        framed.extend_from_slice(&CRC32.checksum(&data).to_le_bytes());
        let mut wire = vec![0u8; cobs_max(framed.len()) + 1];
        let n = encode_raw(&framed, &mut wire).unwrap();
        let mut dec = FrameDecoder::<600>::new();
        let mut got = None;
        for &b in &wire[..n] {
            if let Some(r) = dec.push_raw(b) {
                got = Some(r.map(|p| p.to_vec()));
            }
        }
        assert_eq!(got, Some(Ok(data)));
    }
}

#[test]
fn crc_is_crc32_iso_hdlc() {
    assert_eq!(CRC32.checksum(b"123456789"), 0xCBF4_3926);
}

#[test]
fn every_message_round_trips() {
    let mut dec = Dec::new();
    for m in device_messages() {
        let f = frame(&m);
        assert!(f.len() <= MAX_FRAME);
        assert_eq!(*f.last().unwrap(), 0);
        assert!(!f[..f.len() - 1].contains(&0), "no zero inside a frame");
        let got: Vec<Result<DeviceMessage, _>> = feed(&mut dec, &f);
        assert_eq!(got.len(), 1);
        assert!(same(got[0].as_ref().unwrap(), &m), "{m:?}");
    }
    for m in host_messages() {
        let got: Vec<Result<HostMessage, _>> = feed(&mut dec, &frame(&m));
        assert_eq!(got.len(), 1);
        assert!(same(got[0].as_ref().unwrap(), &m), "{m:?}");
    }
    // Back to back in one stream, with idle delimiters between: every message, in order.
    let mut stream = vec![0, 0];
    for m in host_messages() {
        stream.extend(frame(&m));
        stream.push(0);
    }
    let got: Vec<Result<HostMessage, _>> = feed(&mut dec, &stream);
    assert_eq!(got.len(), host_messages().len());
    for (g, m) in got.iter().zip(host_messages()) {
        assert!(same(g.as_ref().unwrap(), &m));
    }
}

#[test]
fn a_nan_decision_value_keeps_its_bits() {
    let m = DeviceMessage::Decision {
        round: 1,
        set: 0,
        values: vals(&[f32::NAN, -0.0, 1.5]),
        score: 0.5,
    };
    let got: Vec<Result<DeviceMessage, _>> = feed(&mut Dec::new(), &frame(&m));
    match &got[0] {
        Ok(DeviceMessage::Decision { values, .. }) => {
            let v = values.as_slice();
            assert_eq!(v.len(), 3);
            assert_eq!(v[0].to_bits(), f32::NAN.to_bits());
            assert_eq!(v[1].to_bits(), (-0.0f32).to_bits());
            assert_eq!(v[2], 1.5);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn every_single_bit_flip_is_rejected() {
    let mut dec = Dec::new();
    let mut flips = 0;
    for f in device_messages()
        .iter()
        .map(frame)
        .chain(host_messages().iter().map(frame))
    {
        for i in 0..f.len() * 8 {
            let mut g = f.clone();
            g[i / 8] ^= 1 << (i % 8);
            // A flipped delimiter merges with whatever follows: end the stream with one.
            g.push(0);
            let got: Vec<Result<DeviceMessage, _>> = feed(&mut dec, &g);
            assert!(
                got.iter().all(|r| r.is_err()),
                "bit {i} of {f:02x?}: {got:?}"
            );
            assert!(!got.is_empty());
            // The decoder is ready for the next frame.
            dec.reset();
            flips += 1;
        }
    }
    assert!(flips > 1000);
}

#[test]
fn truncated_frames_are_rejected_and_the_next_frame_decodes() {
    let mut dec = Dec::new();
    let good = frame(&HostMessage::Ping);
    for m in host_messages() {
        let f = frame(&m);
        for cut in 1..f.len() - 1 {
            let mut g = f[..cut].to_vec();
            g.push(0);
            let got: Vec<Result<HostMessage, _>> = feed(&mut dec, &g);
            assert_eq!(got.len(), 1, "cut {cut} of {f:02x?}");
            assert!(got[0].is_err(), "cut {cut} of {f:02x?}: {got:?}");
            let next: Vec<Result<HostMessage, _>> = feed(&mut dec, &good);
            assert_eq!(next, vec![Ok(HostMessage::Ping)]);
        }
    }
}

#[test]
fn typed_errors() {
    // CRC: a valid COBS frame whose CRC is wrong.
    let mut wire = [0u8; 16];
    let n = encode_raw(&[1, 2, 3, 4, 5, 6], &mut wire).unwrap();
    let got: Vec<Result<HostMessage, _>> = feed(&mut Dec::new(), &wire[..n]);
    assert_eq!(got, vec![Err(LinkError::Crc)]);
    // Too short for a CRC.
    let n = encode_raw(&[1, 2], &mut wire).unwrap();
    let got: Vec<Result<HostMessage, _>> = feed(&mut Dec::new(), &wire[..n]);
    assert_eq!(got, vec![Err(LinkError::Crc)]);
    // COBS: a code byte promising more bytes than arrive.
    let got: Vec<Result<HostMessage, _>> = feed(&mut Dec::new(), &[5, 1, 2, 0]);
    assert_eq!(got, vec![Err(LinkError::Cobs)]);
    // Decode: a good CRC over bytes that are no message (variant 200).
    let payload = [200u8, 1, 2];
    let mut framed = payload.to_vec();
    framed.extend_from_slice(&CRC32.checksum(&payload).to_le_bytes());
    let n = encode_raw(&framed, &mut wire).unwrap();
    let got: Vec<Result<HostMessage, _>> = feed(&mut Dec::new(), &wire[..n]);
    assert_eq!(got, vec![Err(LinkError::Decode)]);
    // Too many values for a message: 17 > MAX_VARS, hand-made postcard bytes.
    let mut payload = vec![1u8, 0, 17];
    for _ in 0..17 {
        payload.extend_from_slice(&1.0f32.to_le_bytes());
    }
    let mut framed = payload.clone();
    framed.extend_from_slice(&CRC32.checksum(&payload).to_le_bytes());
    let mut wire = [0u8; 128];
    let n = encode_raw(&framed, &mut wire).unwrap();
    let got: Vec<Result<HostMessage, _>> = feed(&mut Dec::new(), &wire[..n]);
    assert_eq!(got, vec![Err(LinkError::Decode)]);
    // ... and 16 decode (the same bytes with the count and one value fewer).
    let mut payload = vec![1u8, 0, 16];
    for _ in 0..16 {
        payload.extend_from_slice(&1.0f32.to_le_bytes());
    }
    let mut framed = payload.clone();
    framed.extend_from_slice(&CRC32.checksum(&payload).to_le_bytes());
    let n = encode_raw(&framed, &mut wire).unwrap();
    let got: Vec<Result<HostMessage, _>> = feed(&mut Dec::new(), &wire[..n]);
    assert_eq!(
        got,
        vec![Ok(HostMessage::Measurement {
            round: 0,
            values: vals(&[1.0; 16])
        })]
    );
    // Overflow: a small decoder, then it recovers at the next frame.
    let mut small = FrameDecoder::<8>::new();
    let big = frame(&host_messages()[1]);
    let got: Vec<Result<HostMessage, _>> = big.iter().filter_map(|&b| small.push(b)).collect();
    assert_eq!(got, vec![Err(LinkError::Overflow)]);
    let got: Vec<Result<HostMessage, _>> = frame(&HostMessage::Stop)
        .iter()
        .filter_map(|&b| small.push(b))
        .collect();
    assert_eq!(got, vec![Ok(HostMessage::Stop)]);
    // Encoding into a short buffer.
    let mut short = [0u8; 4];
    assert_eq!(
        encode(&host_messages()[1], &mut short),
        Err(LinkError::BufferTooSmall)
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_bytes_never_panic_and_garbage_then_a_delimiter_resyncs(
        garbage in proptest::collection::vec(any::<u8>(), 0..600),
        which in 0usize..6,
    ) {
        let mut dec = Dec::new();
        let _: Vec<Result<HostMessage, _>> = feed(&mut dec, &garbage);
        let _: Vec<Result<DeviceMessage, _>> = feed(&mut dec, &garbage);
        let m = &host_messages()[which];
        let mut stream = vec![0u8];
        stream.extend(frame(m));
        let got: Vec<Result<HostMessage, _>> = feed(&mut dec, &stream);
        // The garbage's own frame (if unterminated) ends at the flush delimiter, then the
        // message arrives intact.
        prop_assert!(!got.is_empty());
        prop_assert!(same(got.last().unwrap().as_ref().unwrap(), m));
    }

    #[test]
    fn random_measurements_round_trip(
        round in any::<u32>(),
        values in proptest::collection::vec(any::<u32>(), 0..=MAX_VARS),
    ) {
        let v: Vec<f32> = values.iter().map(|b| f32::from_bits(*b)).collect();
        let m = HostMessage::Measurement { round, values: vals(&v) };
        let f = frame(&m);
        prop_assert!(f.len() <= MAX_FRAME);
        let got: Vec<Result<HostMessage, _>> = feed(&mut Dec::new(), &f);
        prop_assert_eq!(got.len(), 1);
        prop_assert!(same(got[0].as_ref().unwrap(), &m));
    }
}

#[test]
fn context_messages_are_appended_and_encode_as_computed_by_hand() {
    let bytes = |m: &dyn Fn(&mut [u8]) -> usize| {
        let mut buf = [0u8; 64];
        let n = m(&mut buf);
        buf[..n].to_vec()
    };
    // Index 6 after Hello..Query; round 3 (varint), arm 1 (u8, one byte), contexts 257
    // (varint 0x81 0x02).
    let ask = DeviceMessage::MeasureContexts {
        round: 3,
        arm: 1,
        contexts: 257,
    };
    assert_eq!(
        bytes(&|b| postcard::to_slice(&ask, b).unwrap().len()),
        [6, 3, 1, 0x81, 0x02]
    );
    // Index 6 after Start..Skipped; round 2, then the values: length 2, 1.0 and 0.5 as f32 LE.
    let answer = HostMessage::Contexts {
        round: 2,
        values: vals(&[1.0, 0.5]),
    };
    assert_eq!(
        bytes(&|b| postcard::to_slice(&answer, b).unwrap().len()),
        [6, 2, 2, 0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x00, 0x3F]
    );
}

#[test]
fn costly_measurement_messages_are_appended_and_encode_as_computed_by_hand() {
    let bytes = |m: &dyn Fn(&mut [u8]) -> usize| {
        let mut buf = [0u8; 64];
        let n = m(&mut buf);
        buf[..n].to_vec()
    };
    // postcard: the variant's index as a varint, then the fields in order (u32 varint, bool
    // one byte, f32 little-endian).
    let query = DeviceMessage::Query {
        round: 3,
        measure: true,
        min_probability: 0.5,
    };
    assert_eq!(
        bytes(&|b| postcard::to_slice(&query, b).unwrap().len()),
        [5, 3, 1, 0x00, 0x00, 0x00, 0x3F]
    );
    let skipped = HostMessage::Skipped {
        round: 2,
        cost: 0.25,
    };
    assert_eq!(
        bytes(&|b| postcard::to_slice(&skipped, b).unwrap().len()),
        [5, 2, 0x00, 0x00, 0x80, 0x3E]
    );
    for (code, index) in [(ErrorCode::NotMeasured, 9), (ErrorCode::MeasurementDue, 10)] {
        let e = DeviceMessage::Error { code, round: 1 };
        assert_eq!(
            bytes(&|b| postcard::to_slice(&e, b).unwrap().len()),
            [4, index, 1]
        );
    }
    // The plain conversation's messages keep their indices.
    let outcome = HostMessage::Outcome {
        round: 1,
        y: 1.0,
        cost: 0.5,
    };
    assert_eq!(
        bytes(&|b| postcard::to_slice(&outcome, b).unwrap().len()),
        [2, 1, 0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x00, 0x3F]
    );
    assert_eq!(
        bytes(&|b| postcard::to_slice(&HostMessage::Stop, b).unwrap().len()),
        [4]
    );
    // And they travel in frames.
    let mut dec = Dec::new();
    assert_eq!(
        feed::<DeviceMessage>(&mut dec, &frame(&query)),
        vec![Ok(query)]
    );
    assert_eq!(
        feed::<HostMessage>(&mut dec, &frame(&skipped)),
        vec![Ok(skipped)]
    );
}
