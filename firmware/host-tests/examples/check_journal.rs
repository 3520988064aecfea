//! Replays a journal file written by the QEMU controller into a host controller built from
//! `firmware/experiment.toml` and checks that the host decides what the device played: the
//! same control set and, bit for bit, the same dosed values (the record's controlled
//! coordinates are the decided values).
//!
//! With a costly measurement (`[measurement]`), the host also answers each round's query for
//! the device's point and checks it against the record (measured or skipped).
//!
//! `cargo run -p costbo-firmware-host-tests --example check_journal -- target/controller/journal.bin`
//! (for another experiment file, set `COSTBO_EXPERIMENT` as for the firmware build, e.g.
//! `COSTBO_EXPERIMENT=experiments/costly-measurement.toml`).

use costbo_firmware::experiment::{BANK, D, FACTOR_LEN, M, N};
use costbo_firmware::sim::FileFlash;
use costbo_firmware_host_tests::RamFile;

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: check_journal JOURNAL_FILE");
    let bytes = std::fs::read(&path).expect("reading the journal file");
    let file = RamFile::default();
    *file.0.borrow_mut() = bytes;
    let flash = FileFlash::<_, 65536, 4096>::new(file);
    let (mut journal, _) = match costbo_firmware::journal::open(flash, 0, 65536, false) {
        Ok(j) => j,
        Err((_, e)) => panic!("journal: {e:?}"),
    };
    // The experiment the firmware library was built from (`COSTBO_EXPERIMENT`, relative to
    // `firmware/`, as its build script reads it).
    let firmware = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let config = std::env::var_os("COSTBO_EXPERIMENT")
        .map_or_else(|| firmware.join("experiment.toml"), |p| firmware.join(p));
    let spec = costbo_experiment::toml::load(&config).unwrap();
    let (mut f, mut b) = (vec![0.0f32; FACTOR_LEN], vec![[0.0f32; D]; BANK]);
    let mut host = spec
        .controller::<f32, N, D, M, _, _>(&mut f[..], &mut b[..])
        .unwrap();
    let mut mismatches = 0;
    for (round, r) in journal.records().enumerate() {
        let r = r.unwrap();
        let d = host.suggest().unwrap();
        let x: [f32; D] = core::array::from_fn(|l| r.x()[l]);
        let same = d.set == r.set as usize
            && (0..D).all(|l| d.values[l].is_none_or(|v| v.to_bits() == x[l].to_bits()));
        if !same {
            mismatches += 1;
            println!(
                "round {round}: device set {} x {:?}; host set {} {:?}",
                r.set, x, d.set, d.values
            );
        }
        // With a costly measurement, the host's answer for the device's point must be the
        // record's: measured, or skipped.
        if host.measurement().is_some() {
            match host.query(&x) {
                Ok(a) if a.pay != r.is_skipped() => {}
                other => {
                    mismatches += 1;
                    println!(
                        "round {round}: device {}; host {other:?}",
                        if r.is_skipped() {
                            "skipped"
                        } else {
                            "measured"
                        }
                    );
                }
            }
        }
        // Continue from the device's data either way.
        let memo = costbo_core::driver::Memo::EMPTY;
        let replayed = if r.is_skipped() {
            host.replay_skip(r.set as usize, &x, r.cost, &memo)
        } else {
            host.replay(r.set as usize, &x, r.y, r.cost, &memo)
        };
        if replayed.is_err() {
            println!("round {round}: replay refused");
            break;
        }
    }
    match host.suggest() {
        Ok(d) => println!(
            "next round {}: host decides set {} {:?} (score {})",
            journal.len(),
            d.set,
            d.values,
            d.score
        ),
        Err(e) => println!("next round {}: {e:?}", journal.len()),
    }
    println!("{} records, {} mismatches", journal.len(), mismatches);
    std::process::exit(if mismatches == 0 { 0 } else { 1 });
}
