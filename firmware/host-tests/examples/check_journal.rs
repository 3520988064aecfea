//! Replays a journal file written by the QEMU controller into a host controller built from
//! `firmware/experiment.toml` and checks that the host decides what the device played: the
//! same control set and, bit for bit, the same dosed values (the record's controlled
//! coordinates are the decided values).
//!
//! With a costly measurement (`[measurement]`), the host also answers each round's query for
//! the device's point and checks it against the record (measured or skipped).
//!
//! With contexts (`[causal]`), the host's causal controller decides every recorded round again:
//! the same arm from its state, then from the record's contexts the same doses, bit for bit;
//! then it is told the record's outcome.
//!
//! `cargo run -p costbo-firmware-host-tests --example check_journal -- target/controller/journal.bin`
//! (for another experiment file, set `COSTBO_EXPERIMENT` as for the firmware build, e.g.
//! `COSTBO_EXPERIMENT=experiments/costly-measurement.toml`).

use costbo_firmware::experiment::{causal_rng, ARMS, BANK, D, FACTOR_LEN, M, N};
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
    let spec = costbo_experiment::toml::load_device(&config).unwrap();
    if spec.causal.is_some() {
        let records: Vec<_> = journal.records().map(|r| r.unwrap()).collect();
        let mismatches = check_causal(&spec, &records);
        println!("{} records, {} mismatches", records.len(), mismatches);
        std::process::exit(if mismatches == 0 { 0 } else { 1 });
    }
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

/// A causal journal: every record decided again by a host causal controller and checked.
fn check_causal(
    spec: &costbo_experiment::Spec<'static>,
    records: &[costbo_core::journal::Record],
) -> usize {
    let storage: [Vec<f32>; ARMS] = core::array::from_fn(|_| vec![0.0; FACTOR_LEN]);
    let mut host = spec
        .causal_controller::<f32, ARMS, N, D, _, _>(storage, causal_rng(spec.seed))
        .unwrap();
    let mut mismatches = 0;
    for (round, r) in records.iter().enumerate() {
        let arm = host.next_arm().unwrap().arm;
        let wanted = spec.arm_contexts(arm).unwrap_or(0);
        let unit: [f32; D] = core::array::from_fn(|l| {
            if wanted & (1 << l) != 0 {
                spec.to_unit(l, r.x()[l])
            } else {
                f32::NAN
            }
        });
        let ask = match host.ask(&unit) {
            Ok(a) => a,
            Err(e) => {
                println!("round {round}: host refuses the record's contexts: {e:?}");
                return mismatches + 1;
            }
        };
        let actions = host.table().get(arm).unwrap().actions().to_vec();
        let same = r.is_causal()
            && arm == usize::from(r.set)
            && actions
                .iter()
                .enumerate()
                .all(|(k, &l)| spec.from_unit(l, ask.input[k]).to_bits() == r.x()[l].to_bits());
        if !same {
            mismatches += 1;
            println!(
                "round {round}: device arm {} x {:?}; host arm {arm} action {:?}",
                r.set,
                r.x(),
                ask.action()
            );
        }
        if host.tell(r.y).is_err() {
            println!("round {round}: outcome refused");
            return mismatches + 1;
        }
    }
    mismatches
}
