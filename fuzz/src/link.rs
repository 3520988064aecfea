//! The link decoder fed frames that mostly pass the CRC, so message decoding is reached.

use costbo_core::link::{
    encode, encode_raw, DeviceMessage, FrameDecoder, HostMessage, LinkError, CRC32,
    DECODER_CAPACITY, MAX_FRAME, MAX_PAYLOAD,
};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::bytes::Bytes;

/// Decodes a stream of frames built from `data`. Each step reads a control byte: raw garbage
/// straight into the decoder, or a payload (length from the bytes, up to a little more than
/// the decoder holds) that is framed as the protocol says: CRC-32 appended (or, one time in
/// four, a wrong one), COBS-encoded, delimited, after a lone `0x00` that flushes any
/// garbage. A framed payload must come out exactly: itself when the CRC is right and it
/// fits, [`LinkError::Crc`] or [`LinkError::Overflow`] otherwise, and as a message exactly
/// what postcard makes of it. A payload that is a message re-encodes to a frame that decodes
/// to the same message (bit for bit).
pub fn link_frames(data: &[u8]) {
    let mut bytes = Bytes::new(data);
    let mut raw = FrameDecoder::<DECODER_CAPACITY>::new();
    let mut host = FrameDecoder::<DECODER_CAPACITY>::new();
    let mut device = FrameDecoder::<DECODER_CAPACITY>::new();
    while !bytes.is_empty() {
        let control = bytes.u8();
        if control & 0x80 != 0 {
            // Garbage: anything, delimiters included; the decoders must just survive it.
            let n = usize::from(control & 0x3F);
            for &b in bytes.take(n) {
                let _ = raw.push_raw(b);
                let _ = host.push::<HostMessage>(b);
                let _ = device.push::<DeviceMessage>(b);
            }
            continue;
        }
        let len = usize::from(bytes.u8()) % (DECODER_CAPACITY + 8);
        let payload = bytes.take(len);
        let good_crc = control & 0x03 != 0;
        let mut framed = payload.to_vec();
        let crc = CRC32.checksum(payload) ^ if good_crc { 0 } else { 1 };
        framed.extend_from_slice(&crc.to_le_bytes());
        let mut wire = vec![0u8; framed.len() * 2 + 4];
        let n = encode_raw(&framed, &mut wire).expect("the buffer holds any COBS encoding");
        let expected = if framed.len() > DECODER_CAPACITY {
            Err(LinkError::Overflow)
        } else if good_crc {
            Ok(payload)
        } else {
            Err(LinkError::Crc)
        };
        // The flush: whatever garbage preceded ends here (its result is not ours to judge).
        let _ = raw.push_raw(0);
        let _ = host.push::<HostMessage>(0);
        let _ = device.push::<DeviceMessage>(0);
        check_frame(&mut raw, &wire[..n], expected);
        check_message::<HostMessage>(&mut host, &wire[..n], expected);
        check_message::<DeviceMessage>(&mut device, &wire[..n], expected);
    }
}

/// Feeds a whole frame: nothing before the delimiter, then exactly `expected`.
fn check_frame(
    decoder: &mut FrameDecoder<DECODER_CAPACITY>,
    wire: &[u8],
    expected: Result<&[u8], LinkError>,
) {
    let (last, body) = wire.split_last().expect("a frame ends with its delimiter");
    for &b in body {
        assert!(
            decoder.push_raw(b).is_none(),
            "a result before the delimiter"
        );
    }
    let got = decoder
        .push_raw(*last)
        .expect("a frame gives a result at its delimiter");
    assert_eq!(got, expected);
}

fn check_message<T: DeserializeOwned + Serialize>(
    decoder: &mut FrameDecoder<DECODER_CAPACITY>,
    wire: &[u8],
    expected: Result<&[u8], LinkError>,
) {
    let (last, body) = wire.split_last().expect("a frame ends with its delimiter");
    for &b in body {
        assert!(
            decoder.push::<T>(b).is_none(),
            "a result before the delimiter"
        );
    }
    let got = decoder.push::<T>(*last).expect("a result at the delimiter");
    match expected {
        Err(e) => assert_eq!(got.err(), Some(e)),
        Ok(payload) => {
            let direct = postcard::from_bytes::<T>(payload);
            match (got, direct) {
                (Err(LinkError::Decode), Err(_)) => {}
                (Ok(m), Ok(d)) => {
                    assert_eq!(bits(&m), bits(&d));
                    round_trip(&m);
                }
                (got, direct) => panic!(
                    "decoder says {:?}, postcard says {:?}",
                    got.map(|m| bits(&m)),
                    direct.map(|m| bits(&m))
                ),
            }
        }
    }
}

/// A message's postcard bytes: equal bytes are equal messages, NaN included.
fn bits<T: Serialize>(m: &T) -> Vec<u8> {
    postcard::to_allocvec(m).expect("a decoded message serialises")
}

/// Encoding a decoded message and decoding the frame gives the message back.
fn round_trip<T: DeserializeOwned + Serialize>(m: &T) {
    let mut wire = [0u8; MAX_FRAME];
    let n = match encode(m, &mut wire) {
        Ok(n) => n,
        // Only a message longer than a frame may not encode (decoded from a longer payload).
        Err(e) => {
            assert_eq!(e, LinkError::BufferTooSmall);
            assert!(bits(m).len() > MAX_PAYLOAD);
            return;
        }
    };
    let mut decoder = FrameDecoder::<DECODER_CAPACITY>::new();
    let mut out = None;
    for &b in &wire[..n] {
        if let Some(r) = decoder.push::<T>(b) {
            assert!(out.is_none(), "two results from one frame");
            out = Some(r.expect("an encoded message decodes"));
        }
    }
    let back = out.expect("a result at the delimiter");
    assert_eq!(bits(&back), bits(m));
}

/// Inputs that frame real messages of both directions, then garbage and a truncated frame.
pub fn seeds() -> Vec<Vec<u8>> {
    let host = [
        HostMessage::Start,
        HostMessage::Ping,
        HostMessage::Stop,
        HostMessage::Measurement {
            round: 3,
            values: costbo_core::link::Values::from_slice(&[0.5, f32::NAN, 2.0]).expect("3 values"),
        },
        HostMessage::Outcome {
            round: 3,
            y: 1.25,
            cost: 0.1,
        },
    ];
    let device = [
        DeviceMessage::Hello {
            version: 1,
            config: 0xDEAD_BEEF,
            round: 7,
            spent: 1.5,
            budget: 10.0,
        },
        DeviceMessage::Ack { round: 7 },
    ];
    let mut all = Vec::new();
    let mut one = Vec::new();
    for p in host.iter().map(bits).chain(device.iter().map(bits)) {
        // Control 1: a payload with the right CRC.
        let mut seed = vec![1u8, p.len() as u8];
        seed.extend_from_slice(&p);
        one.extend_from_slice(&seed);
        all.push(seed);
    }
    one.extend_from_slice(&[0x85, 0x07, 0x00, 0x11, 0x00, 0x22]);
    all.push(one);
    all
}
