//! The experiment file: parsed on the host it equals the firmware's generated constants, it
//! builds a controller that decides like the firmware's, and invalid files are refused with a
//! message naming the entry.

use std::path::Path;

use costbo_experiment::toml::{load_device as load, parse_device as parse};
use costbo_experiment::{config_id, Spec};
use costbo_firmware::experiment::{BANK, CONFIG_ID, D, FACTOR_LEN, M, N, SPEC};

fn file() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../experiment.toml"))
}

fn text() -> String {
    std::fs::read_to_string(file()).unwrap()
}

#[test]
fn host_parse_equals_generated_constants() {
    let spec = load(file()).unwrap();
    assert_eq!(spec, SPEC);
    assert_eq!(config_id(text().as_bytes()), CONFIG_ID);
    assert_eq!((spec.variables.len(), spec.sets.len()), (D, M));
    assert_eq!((spec.capacity, spec.bank), (N, BANK));
}

#[test]
fn the_plant_dosing_experiment_is_the_demos() {
    let names: Vec<&str> = SPEC.variables.iter().map(|v| v.name).collect();
    assert_eq!(names, ["Ca", "B", "NH3", "K", "pH"]);
    let costs: Vec<Option<f64>> = SPEC.sets.iter().map(|s| s.cost).collect();
    assert_eq!(costs, [0.1, 0.1, 0.1, 0.2, 0.2, 0.2, 1.0].map(Some));
    let masks: Vec<_> = SPEC.sets.iter().map(|s| s.mask).collect();
    assert_eq!(
        masks,
        [0b00011, 0b01100, 0b11000, 0b00111, 0b01110, 0b11100, 0b11111]
    );
}

/// The host's controller (from the parsed file) and the firmware's (from the constants) make
/// the same decisions bit for bit on the same data.
#[test]
fn host_and_firmware_controllers_decide_identically() {
    let host_spec = load(file()).unwrap();
    let (mut f1, mut b1) = (vec![0.0f32; FACTOR_LEN], vec![[0.0f32; D]; BANK]);
    let (mut f2, mut b2) = (vec![0.0f32; FACTOR_LEN], vec![[0.0f32; D]; BANK]);
    let mut fw = SPEC
        .controller::<f32, N, D, M, _, _>(&mut f1[..], &mut b1[..])
        .unwrap();
    let mut host = host_spec
        .controller::<f32, N, D, M, _, _>(&mut f2[..], &mut b2[..])
        .unwrap();
    for round in 0..6 {
        let a = fw.suggest().unwrap();
        let b = host.suggest().unwrap();
        assert_eq!(a.set, b.set);
        assert_eq!(a.score.to_bits(), b.score.to_bits(), "round {round}");
        for l in 0..D {
            assert_eq!(a.values[l].map(f32::to_bits), b.values[l].map(f32::to_bits));
        }
        let x: [f32; D] = core::array::from_fn(|l| {
            a.values[l].unwrap_or_else(|| {
                let v = &SPEC.variables[l];
                SPEC.measured(
                    l,
                    v.sensor.unwrap().to_raw(((v.lower + v.upper) / 2.0) as f32),
                )
                .unwrap()
            })
        });
        let y = 0.1 * round as f32;
        fw.observe(&x, y, SPEC.cost(a.set).unwrap()).unwrap();
        host.observe(&x, y, host_spec.cost(b.set).unwrap()).unwrap();
    }
}

fn refused(edit: impl Fn(String) -> String) -> String {
    match parse(&edit(text())) {
        Ok(_) => panic!("accepted an invalid configuration"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn invalid_files_are_refused_with_the_entry_named() {
    let e = refused(|t| t.replace("variance = 0.49", "variance = 2.0"));
    assert!(
        e.contains("[[variable]] B") && e.contains("variance"),
        "{e}"
    );
    let e = refused(|t| {
        t.replace(
            "variables = [\"NH3\", \"K\"]",
            "variables = [\"NH3\", \"Mg\"]",
        )
    });
    assert!(e.contains("no variable called \"Mg\""), "{e}");
    let e = refused(|t| t.replace("address = 0x41", "address = 0x40"));
    assert!(e.contains("[[variable]] B") && e.contains("address"), "{e}");
    let e = refused(|t| {
        t.replace(
            "pump = { channel = 4, ml_per_s = 0.5, concentration = 0.4, max_on_ms = 30000 }\n",
            "",
        )
    });
    assert!(e.contains("[[variable]] pH") && e.contains("pump"), "{e}");
    let e = refused(|t| t.replace("channel = 1,", "channel = 0,"));
    assert!(e.contains("[[variable]] B") && e.contains("channel"), "{e}");
    let e = refused(|t| t.replace("budget = 3.0", "budget = -1.0"));
    assert!(e.contains("budget"), "{e}");
    let e = refused(|t| t.replace("rule = \"etc-ada\"", "rule = \"ucb\""));
    assert!(e.contains("rule"), "{e}");
    let e = refused(|t| t.replace("lower = 8.9", "lower = 11.5"));
    assert!(e.contains("[[variable]] K"), "{e}");
    let e = refused(|t| {
        t.replace(
            "scale = 0.0001, offset = 8.0",
            "scale = 0.00001, offset = 8.0",
        )
    });
    assert!(e.contains("[[variable]] K") && e.contains("sensor"), "{e}");
    let e = refused(|t| t.replace("beta = 2.0", "beta = 2.0\nbogus = 1"));
    assert!(e.contains("bogus"), "{e}");
    let e = refused(|t| t.replace("cost = 1.0", "cost = 0.0"));
    assert!(e.contains("control_set"), "{e}");
}

#[test]
fn generated_source_round_trips_every_number() {
    let spec: Spec<'static> = load(file()).unwrap();
    let code = costbo_experiment::toml::to_rust(&spec, "x");
    assert!(code.contains("pub const D: usize = 5;"));
    assert!(code.contains("noise: 0.0001"));
    assert!(code.contains("variance: 2.3716"));
}

#[test]
fn pump_and_sensor_calibrations() {
    let ca = &SPEC.variables[0];
    let p = ca.pump.unwrap();
    // 1000 * 3.85 / (0.77 * 0.5) = 10 000 ms.
    let d = p.on_time_ms(3.85, 0.0).unwrap();
    assert_eq!((d.on_ms, d.clamped), (10_000, false));
    let d = p.on_time_ms(7.7, 0.0).unwrap();
    assert_eq!((d.on_ms, d.clamped), (20_000, false));
    let d = p.on_time_ms(100.0, 0.0).unwrap();
    assert_eq!((d.on_ms, d.clamped), (30_000, true));
    assert_eq!(
        p.on_time_ms(-0.1, 0.0),
        Err(costbo_experiment::DoseError::BelowLower)
    );
    assert_eq!(
        p.on_time_ms(f32::NAN, 0.0),
        Err(costbo_experiment::DoseError::NonFinite)
    );
    let k = &SPEC.variables[3].sensor.unwrap();
    assert_eq!(k.to_raw(8.0), 0);
    assert_eq!(k.to_raw(10.0), 20_000);
    assert_eq!(k.to_raw(1e9), u16::MAX);
    assert_eq!(k.to_raw(f32::NAN), 0);
    assert!((k.to_physical(20_000) - 10.0).abs() < 1e-5);
    // Clamped to the bounds [8.9, 11.3].
    assert_eq!(SPEC.measured(3, 0), Some(8.9));
    assert_eq!(SPEC.measured(3, u16::MAX), Some(11.3));
    assert_eq!(SPEC.measured(9, 0), None);
}
