//! `costbo device` against fake devices on a local TCP port: a device that streams garbage or
//! valid frames that never advance the session is given up on within `--timeout`, and
//! messages with impossible numbers (NaN, ∞, 1e30, too few values, rounds out of order, a
//! budget that does not add up) are refused with an error, never acted on or reported. A
//! well-behaved fake shows the checks refuse nothing valid.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use costbo::device::{run, DeviceOptions, DeviceReport, Endpoint};
use costbo_core::link::{encode, DeviceMessage, ErrorCode, Values, MAX_FRAME, VERSION};

fn experiment() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../firmware/experiment.toml")
}

fn frame(m: &DeviceMessage) -> Vec<u8> {
    let mut buf = [0u8; MAX_FRAME];
    let n = encode(m, &mut buf).unwrap();
    buf[..n].to_vec()
}

fn hello(round: u32, spent: f32, budget: f32) -> DeviceMessage {
    DeviceMessage::Hello {
        version: VERSION,
        config: 0,
        round,
        spent,
        budget,
    }
}

/// The middle of every variable's range, as the device would send a decision.
fn middle() -> Vec<f32> {
    let spec = costbo_experiment::toml::load_device(&experiment()).unwrap();
    spec.variables
        .iter()
        .map(|v| ((v.lower + v.upper) / 2.0) as f32)
        .collect()
}

fn decision(round: u32, values: &[f32], score: f32) -> DeviceMessage {
    DeviceMessage::Decision {
        round,
        set: 0,
        values: Values::from_slice(values).expect("at most 16 values"),
        score,
    }
}

fn done(round: u32, spent: f32, values: &[f32], score: f32) -> DeviceMessage {
    DeviceMessage::Done {
        round,
        spent,
        set: 0,
        values: Values::from_slice(values).expect("at most 16 values"),
        score,
    }
}

/// What the fake device does once the host connects: `script` writes to the stream (it
/// may wait for the host's messages with `wait_bytes`); the host's bytes are drained.
fn fake_device<F>(script: F) -> (String, Arc<AtomicBool>)
where
    F: FnOnce(&mut TcpStream, &Arc<AtomicBool>) + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let stop = Arc::new(AtomicBool::new(false));
    let stop_device = stop.clone();
    std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        script(&mut stream, &stop_device);
        // Keep the link open (silent) until the host is done.
        while !stop_device.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(10));
        }
    });
    (addr, stop)
}

/// Reads and drops whatever the host sends, on a thread, until `stop`.
fn drain(stream: &TcpStream, stop: &Arc<AtomicBool>) {
    let (mut s, stop) = (stream.try_clone().unwrap(), stop.clone());
    s.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while !stop.load(Ordering::Relaxed) {
            if let Ok(0) = s.read(&mut buf) {
                break;
            }
        }
    });
}

/// Reads what the host sent until `n` more bytes came (or a second passed).
fn wait_bytes(stream: &mut TcpStream, n: usize) {
    stream
        .set_read_timeout(Some(Duration::from_millis(50)))
        .unwrap();
    let (mut got, start) = (0, Instant::now());
    let mut buf = [0u8; 256];
    while got < n && start.elapsed() < Duration::from_secs(2) {
        if let Ok(k) = stream.read(&mut buf) {
            got += k;
        }
    }
}

fn session(addr: String, timeout: Duration) -> (Result<DeviceReport, String>, f64) {
    let options = DeviceOptions {
        config: experiment(),
        endpoint: Endpoint::Tcp(addr),
        seed: 1,
        noise: 0.01,
        timeout,
        reconnect: false,
        mirror: false,
        verbose: false,
        stop_after: None,
    };
    let start = Instant::now();
    let r = run(&options);
    (r, start.elapsed().as_secs_f64())
}

/// Runs a session against `script` and returns its error, checking it came within `within`.
fn refused<F>(script: F, timeout: Duration, within: f64) -> String
where
    F: FnOnce(&mut TcpStream, &Arc<AtomicBool>) + Send + 'static,
{
    let (addr, stop) = fake_device(script);
    let (r, seconds) = session(addr, timeout);
    stop.store(true, Ordering::Relaxed);
    assert!(seconds < within, "took {seconds:.1} s");
    match r {
        Ok(report) => panic!("accepted: {report:?}"),
        Err(e) => e,
    }
}

#[test]
fn garbage_without_end_is_given_up_on_within_the_timeout() {
    let e = refused(
        |s, stop| {
            drain(s, stop);
            // Random bytes with frame delimiters, as fast as the link takes them.
            let mut x: u32 = 12345;
            let mut chunk = [0u8; 4096];
            while !stop.load(Ordering::Relaxed) {
                for b in chunk.iter_mut() {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    *b = if x.is_multiple_of(61) { 0 } else { x as u8 };
                }
                if s.write_all(&chunk).is_err() {
                    break;
                }
            }
        },
        Duration::from_secs(2),
        6.0,
    );
    assert!(e.contains("no round completed"), "{e}");
    assert!(e.contains("damaged frames"), "{e}");
}

#[test]
fn valid_frames_that_never_advance_are_given_up_on_within_the_timeout() {
    let e = refused(
        |s, stop| {
            drain(s, stop);
            // A device that greets forever (a boot loop) and re-sends the same decision.
            let (h, d) = (
                frame(&hello(0, 0.0, 3.0)),
                frame(&decision(0, &middle(), 1.0)),
            );
            while !stop.load(Ordering::Relaxed) {
                if s.write_all(&h).and_then(|_| s.write_all(&d)).is_err() {
                    break;
                }
            }
        },
        Duration::from_secs(2),
        6.0,
    );
    assert!(e.contains("no round completed"), "{e}");
}

#[test]
fn impossible_numbers_from_the_device_are_refused() {
    let mid = middle();
    let with = |l: usize, v: f32| {
        let mut x = mid.clone();
        x[l] = v;
        x
    };
    // Set 0 doses one variable; every value is replaced so that whichever it is, it is bad.
    let all = |v: f32| vec![v; mid.len()];
    let cases: Vec<(Vec<DeviceMessage>, &str)> = vec![
        (vec![hello(0, f32::NAN, 3.0)], "hello"),
        (vec![hello(0, 0.0, f32::INFINITY)], "hello"),
        (vec![hello(0, -1.0, 3.0)], "hello"),
        // Past the budget by more than the dearest set's cost (1).
        (vec![hello(0, 5.0, 3.0)], "hello"),
        (
            vec![hello(0, 0.0, 3.0), decision(0, &all(f32::NAN), 1.0)],
            "bounds",
        ),
        (
            vec![hello(0, 0.0, 3.0), decision(0, &all(f32::INFINITY), 1.0)],
            "bounds",
        ),
        (
            vec![hello(0, 0.0, 3.0), decision(0, &all(1e30), 1.0)],
            "bounds",
        ),
        (
            vec![hello(0, 0.0, 3.0), decision(0, &all(-1.0), 1.0)],
            "bounds",
        ),
        (
            vec![hello(0, 0.0, 3.0), decision(0, &mid, f32::NAN)],
            "score",
        ),
        (
            vec![hello(0, 0.0, 3.0), decision(0, &mid[..3], 1.0)],
            "values",
        ),
        (vec![hello(0, 0.0, 3.0), decision(0, &[], 1.0)], "values"),
        (vec![hello(0, 0.0, 3.0), decision(5, &mid, 1.0)], "round 5"),
        (
            vec![hello(0, 0.0, 3.0), DeviceMessage::Ack { round: 0 }],
            "Ack",
        ),
        (vec![hello(0, 0.0, 3.0), done(3, 0.0, &mid, 1.0)], "Done"),
        (
            vec![hello(0, 0.0, 3.0), done(0, 0.0, &mid, f32::INFINITY)],
            "score",
        ),
        (
            vec![hello(0, 0.0, 3.0), done(0, 0.0, &mid[..2], 1.0)],
            "values",
        ),
        (
            vec![hello(0, 0.0, 3.0), done(0, 0.0, &all(f32::NAN), 1.0)],
            "bounds",
        ),
        (vec![hello(0, 0.0, 3.0), done(0, 0.5, &mid, 1.0)], "spent"),
        (
            vec![hello(0, 0.0, 3.0), done(0, f32::NAN, &mid, 1.0)],
            "spent",
        ),
        (
            vec![
                hello(0, 0.0, 3.0),
                DeviceMessage::Error {
                    code: ErrorCode::Storage,
                    round: 0,
                },
            ],
            "refused",
        ),
        (
            vec![hello(0, 0.0, 3.0), done(0, 0.0, &with(0, 1e30), 1.0)],
            "bounds",
        ),
    ];
    let n = cases.len();
    for (messages, names) in cases {
        let shown = format!("{messages:?}");
        let e = refused(
            move |s, _| {
                for m in &messages {
                    let _ = s.write_all(&frame(m));
                }
            },
            Duration::from_secs(3),
            6.0,
        );
        assert!(e.contains(names), "{shown}: {e}");
    }
    assert_eq!(n, 21);
}

#[test]
fn a_well_behaved_fake_device_is_accepted() {
    let mid = middle();
    let spec = costbo_experiment::toml::load_device(&experiment()).unwrap();
    let cost: f32 = spec.cost(0).unwrap();
    let (addr, stop) = fake_device(move |s, _| {
        let _ = s.write_all(&frame(&hello(0, 0.0, 3.0)));
        wait_bytes(s, 1); // Start
        let _ = s.write_all(&frame(&decision(0, &mid, 1.0)));
        wait_bytes(s, 10); // Measurement and Outcome
        let _ = s.write_all(&frame(&DeviceMessage::Ack { round: 0 }));
        let _ = s.write_all(&frame(&done(1, cost, &mid, 0.5)));
    });
    let (r, _) = session(addr, Duration::from_secs(5));
    stop.store(true, Ordering::Relaxed);
    let report = r.unwrap();
    assert_eq!(report.rounds.len(), 1);
    assert_eq!(report.rounds[0].spent, f64::from(cost));
    assert!(report.recommended_expected.unwrap().is_finite());
}
