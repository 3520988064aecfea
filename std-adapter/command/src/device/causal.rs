//! `costbo device` for a contextual causal experiment (the experiment file's `[causal]`
//! table): the host answers each `MeasureContexts` with the source water's readings of the
//! variables asked for, plays the tray once the `Decision` comes, and mirrors the device with
//! the desktop's `f32` [`CausalOptimizer`] opened from the same file, fed the contexts as the
//! device's sensors read them: every arm, every context request, every decision (doses and
//! UCB value) and the recommendation must equal the host's bit for bit.
//!
//! The simulator is a small structural causal model over the variables `NO3`, `Ca`, `K`, `pH`
//! and `T` (`firmware/experiments/causal-contexts.toml`), in unit coordinates
//! `u = (x − lower)/(upper − lower)`: each round the source water gives every variable a
//! value drawn from its distribution in the file; the contexts are measured from it before
//! dosing; the dosed variables replace theirs; and
//!
//! ```text
//! growth = 1 − 2 (u_K − 0.2 − 0.6 u_NO3)² − (u_pH − 0.3 − 0.4 u_T)² − 0.5 (u_Ca − 0.5)² + ε,
//! ε ~ N(0, noise²).
//! ```
//!
//! The best K depends on the nitrate and the best pH on the temperature. Its optimum is 1 (all
//! three terms zero), reached only by dosing K, pH and Ca knowing both contexts; the reported
//! simple regret is measured against it.
//!
//! Power cuts are handled as in the plain session: a `Hello` at the round in flight means the
//! round was lost (the host's optimizer abandons its open round, and the device decides it
//! again from the same source water); a `Hello` one round on, after the `Outcome` was sent,
//! means it was journaled (the host tells its controller the outcome).

use costbo_core::ledger::Ledger;
use costbo_core::link::{values_to_array, DeviceMessage, HostMessage, Values};
use costbo_core::problem::Problem;
use costbo_core::random::{standard_normal, uniform_open};
use costbo_experiment::Spec;
use costbo_std::{CausalOptimizer, Precision};
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro128PlusPlus;

use super::session::Session;
use super::{DeviceOptions, DeviceReport, RoundReport, D};
use costbo_objectives::platform::Platform;

/// The variables the simulator's model is written on, in the file's order.
pub const VARIABLES: [&str; D] = ["NO3", "Ca", "K", "pH", "T"];

/// The model's noiseless growth at a tray in unit coordinates (variables in [`VARIABLES`]
/// order); see the module documentation.
pub fn growth(u: &[f64; D]) -> f64 {
    let [no3, ca, k, ph, t] = *u;
    1.0 - 2.0 * (k - 0.2 - 0.6 * no3).powi(2)
        - (ph - 0.3 - 0.4 * t).powi(2)
        - 0.5 * (ca - 0.5).powi(2)
}

/// Runs a session with a device built from a causal experiment file.
pub(super) fn run(
    spec: &Spec<'static>,
    config_id: u32,
    options: &DeviceOptions,
) -> Result<DeviceReport, String> {
    let names: Vec<&str> = spec.variables.iter().map(|v| v.name).collect();
    if names != VARIABLES {
        return Err(format!(
            "{}: the host's causal simulator is written on the variables {VARIABLES:?}, the file has {names:?}",
            options.config.display()
        ));
    }
    session(spec, config_id, options)
}

/// The round in flight.
#[derive(Debug, Clone, Copy)]
struct Flight {
    round: u32,
    /// This round's source water, physical units (every variable).
    water: [f64; D],
    /// The arm the device chose (checked against the host's).
    arm: usize,
    /// The doses, once decided (NaN for the variables not dosed).
    doses: Option<[f32; D]>,
    /// The tray in unit coordinates, once dosed.
    tray: [f64; D],
    y: f32,
    cost: f32,
    outcome_sent: bool,
    /// The contexts were sent (and the host's optimizer chose its arm).
    asked: bool,
}

/// The session of a causal experiment, message by message; the link's side of it is
/// [`Session`]'s.
fn session(
    spec: &Spec<'static>,
    config_id: u32,
    options: &DeviceOptions,
) -> Result<DeviceReport, String> {
    let err = |e: costbo_experiment::SpecError| format!("{e}");
    let mut mirror = CausalOptimizer::from_file_with(&options.config, Precision::F32)
        .map_err(|e| e.to_string())?;
    let arms = mirror.arms().len();
    // The source-water distributions, as the cost-aware experiments draw them.
    let m = spec.sets.len();
    let truth: Problem<f64, D, 7> = if m == 7 {
        spec.problem().map_err(err)?
    } else {
        return Err(format!(
            "{}: {m} control sets; the host's simulator reads the plant-sized files (7)",
            options.config.display()
        ));
    };
    let mut water_rng = Xoshiro128PlusPlus::seed_from_u64(options.seed);
    let optimum = 1.0;
    let mut report = DeviceReport::empty(optimum);
    let mut link = Session::open(options, config_id)?;
    let mut flight: Option<Flight> = None;
    // The device's ledger (the core's), charged with the same f32 costs.
    let mut spent = Ledger::<f32>::new();
    let mut best = f64::NEG_INFINITY;
    outln!(
        "costbo device: {} (contextual causal: {} arms, contexts {:?}, budget {}), link: {}",
        spec.name,
        arms,
        (0..D)
            .filter(|&l| spec.causal.is_some_and(|c| c.contexts & (1 << l) != 0))
            .map(|l| spec.variables[l].name)
            .collect::<Vec<_>>(),
        spec.budget,
        options.endpoint
    );
    // The device's reading of a host value: through its sensor's raw count and calibration.
    let seen = |l: usize, v: f32| -> f32 {
        spec.variables[l]
            .sensor
            .and_then(|s| spec.measured(l, s.to_raw(v)))
            .unwrap_or(f32::NAN)
    };
    loop {
        let msg = link.next(&mut report)?;
        match msg {
            DeviceMessage::Hello {
                version,
                config,
                round,
                ..
            } => {
                link.accept_hello(version, config, round, &mut report)?;
                if let Some(f) = flight {
                    if round == f.round + 1 && f.outcome_sent {
                        // Journaled before the cut, its Ack lost.
                        report.recovered_unacked += 1;
                        close_round(
                            &mut mirror,
                            options,
                            &f,
                            spec,
                            &mut spent,
                            &mut best,
                            &mut report,
                        )?;
                        link.round_observed();
                        flight = None;
                    } else if round == f.round {
                        // Lost: decided again from the same water, checked again.
                        if options.mirror {
                            // Nothing open when the cut came before the arm was asked.
                            let _ = mirror.abandon();
                        }
                        flight = Some(Flight {
                            doses: None,
                            outcome_sent: false,
                            asked: false,
                            ..f
                        });
                    }
                }
                link.greet(
                    round,
                    format_args!("device: hello, round {round}, config {config:#010x}"),
                )?;
            }
            DeviceMessage::MeasureContexts {
                round,
                arm,
                contexts,
            } => {
                let host_round = link.round();
                if round != host_round {
                    return Err(format!(
                        "contexts asked for round {round}, the host is at round {host_round}"
                    ));
                }
                if options.stop_after.is_some_and(|k| host_round >= k) {
                    link.send(&HostMessage::Stop)?;
                    continue;
                }
                let arm = usize::from(arm);
                let wanted = spec
                    .arm_contexts(arm)
                    .ok_or_else(|| format!("round {round}: the device names arm {arm}"))?;
                if wanted != costbo_core::problem::Mask::from(contexts) {
                    return Err(format!(
                        "round {round}: arm {arm} measures {wanted:#b}, the device asks for {contexts:#b}"
                    ));
                }
                let repeat = flight.is_some_and(|f| f.round == round && f.arm == arm);
                let f = match flight {
                    Some(f) if f.round == round => f,
                    _ => {
                        // A new round: the source water as it comes.
                        let u: [f64; D] = core::array::from_fn(|l| {
                            truth
                                .unit_distribution(l)
                                .sample(uniform_open(&mut water_rng))
                        });
                        Flight {
                            round,
                            water: truth.to_physical(&u),
                            arm,
                            doses: None,
                            tray: u,
                            y: f32::NAN,
                            cost: f32::NAN,
                            outcome_sent: false,
                            asked: false,
                        }
                    }
                };
                if repeat && f.asked {
                    // Asked again (a repeated Start): the contexts are already on their way.
                    continue;
                }
                if options.mirror {
                    let mine = mirror
                        .next_arm()
                        .map_err(|e| {
                            format!(
                                "round {round}: the device chose an arm, the host's optimizer: {e}"
                            )
                        })?
                        .ok_or_else(|| {
                            format!(
                                "round {round}: the device chose arm {arm}, the host's budget \
                                 cannot pay for its arm"
                            )
                        })?;
                    if mine.arm != arm {
                        return Err(format!(
                            "round {round}: the device chose arm {arm}, the host arm {}",
                            mine.arm
                        ));
                    }
                    report.contexts_checked += 1;
                }
                flight = Some(Flight {
                    arm,
                    asked: true,
                    ..f
                });
                let values: Vec<f32> = (0..D)
                    .map(|l| {
                        if contexts & (1 << l) != 0 {
                            f.water[l] as f32
                        } else {
                            f32::NAN
                        }
                    })
                    .collect();
                link.send(&HostMessage::Contexts {
                    round,
                    values: Values::from_slice(&values)
                        .map_err(|_| "too many variables for a message".to_string())?,
                })?;
            }
            DeviceMessage::Decision {
                round,
                set,
                values,
                score,
            } => {
                let Some(mut f) = flight.filter(|f| f.round == round) else {
                    return Err(format!(
                        "decision for round {round} before its contexts (host at {})",
                        link.round()
                    ));
                };
                if f.doses.is_some() {
                    // The same decision again (a repeated Start).
                    continue;
                }
                let dv: [f32; D] = values_to_array(&values)
                    .ok_or_else(|| format!("round {round}: {} values", values.len()))?;
                let set = set as usize;
                if spec.arm_set(f.arm) != Some(set) {
                    return Err(format!(
                        "round {round}: arm {} doses set {:?}, the device dosed set {set}",
                        f.arm,
                        spec.arm_set(f.arm)
                    ));
                }
                let mask = spec.sets[set].mask;
                for (l, (&x, v)) in dv.iter().zip(spec.variables).enumerate() {
                    let dosed = mask & (1 << l) != 0;
                    let inside = x >= v.lower as f32 && x <= v.upper as f32;
                    if dosed == x.is_nan() || dosed && !inside {
                        return Err(format!(
                            "round {round}: the device's decision sets {} to {x:?}: refused",
                            v.name
                        ));
                    }
                }
                if options.mirror {
                    // The contexts as the device's sensors read them, physical units.
                    let wanted = spec.arm_contexts(f.arm).unwrap_or(0);
                    let contexts: Vec<Option<f64>> = (0..D)
                        .map(|l| {
                            (wanted & (1 << l) != 0).then(|| f64::from(seen(l, f.water[l] as f32)))
                        })
                        .collect();
                    let mine = mirror.ask(&contexts).map_err(|e| {
                        format!("round {round}: the device decided, the host's optimizer: {e}")
                    })?;
                    let ours: [f32; D] =
                        core::array::from_fn(|l| mine.values[l].map_or(f32::NAN, |v| v as f32));
                    let ucb = mine.ucb as f32;
                    let bits = |v: &[f32; D]| v.map(f32::to_bits);
                    if bits(&ours) != bits(&dv) || ucb.to_bits() != score.to_bits() {
                        return Err(format!(
                            "round {round}: the device doses {dv:?} (ucb {score}), the host {ours:?} (ucb {ucb})"
                        ));
                    }
                    report.decisions_checked += 1;
                }
                // The tray: the doses where dosed, the source water elsewhere.
                let x: [f64; D] = core::array::from_fn(|l| {
                    if dv[l].is_nan() {
                        f.water[l]
                    } else {
                        f64::from(dv[l])
                    }
                });
                let sent: [f32; D] = core::array::from_fn(|l| {
                    if dv[l].is_nan() {
                        f.water[l] as f32
                    } else {
                        dv[l]
                    }
                });
                f.tray = truth.to_unit(&x);
                f.y = (growth(&f.tray)
                    + options.noise * standard_normal::<f64, Platform>(&mut water_rng))
                    as f32;
                f.cost = spec.cost::<f32>(set).unwrap_or(f32::NAN);
                f.doses = Some(dv);
                link.send(&HostMessage::Measurement {
                    round,
                    values: Values::from_slice(&sent)
                        .map_err(|_| "too many variables for a message".to_string())?,
                })?;
                link.send(&HostMessage::Outcome {
                    round,
                    y: f.y,
                    cost: f.cost,
                })?;
                f.outcome_sent = true;
                flight = Some(f);
            }
            DeviceMessage::Ack { round } => {
                let f = flight
                    .filter(|f| f.round == round && f.outcome_sent)
                    .ok_or_else(|| format!("Ack for round {round}, host at {}", link.round()))?;
                close_round(
                    &mut mirror,
                    options,
                    &f,
                    spec,
                    &mut spent,
                    &mut best,
                    &mut report,
                )?;
                link.round_observed();
                flight = None;
            }
            DeviceMessage::Done {
                round,
                spent: device_spent,
                set,
                score,
                ..
            } => {
                let host_round = link.round();
                if round != host_round {
                    return Err(format!("Done at round {round}, the host at {host_round}"));
                }
                if device_spent.to_bits() != spent.total().to_bits() {
                    return Err(format!(
                        "the device reports spent {device_spent:?}, the host charged {:?}",
                        spent.total()
                    ));
                }
                if options.mirror {
                    // The arm with the best average outcome, first on ties.
                    if let Some(best) = mirror.recommend() {
                        let (arm, m) = (best.arm, best.mean_outcome as f32);
                        if best.set != set as usize || m.to_bits() != score.to_bits() {
                            return Err(format!(
                                "the device recommends set {set} (mean {score}), the host arm {arm} (mean {m})"
                            ));
                        }
                    }
                }
                report.recommendation = Some((set as usize, vec![f32::NAN; D], score));
                outln!(
                    "device: done after {round} rounds, spent {device_spent}; best arm's control set {set} (mean growth {score}); {} decisions identical to the host's",
                    report.decisions_checked
                );
                return Ok(report);
            }
            DeviceMessage::Query { round, .. } => {
                return Err(format!(
                    "round {round}: the device asks whether to measure, but {} has no [measurement]",
                    options.config.display()
                ));
            }
            DeviceMessage::Error { code, round } => {
                return Err(format!("the device refused at round {round}: {code:?}"));
            }
        }
    }
}

/// The host's side of an acknowledged round: the mirror is told the outcome.
fn close_round(
    mirror: &mut CausalOptimizer,
    options: &DeviceOptions,
    f: &Flight,
    spec: &Spec<'static>,
    spent: &mut Ledger<f32>,
    best: &mut f64,
    report: &mut DeviceReport,
) -> Result<(), String> {
    if options.mirror {
        mirror
            .tell(f64::from(f.y))
            .map_err(|e| format!("round {}: the host's optimizer: {e}", f.round))?;
    }
    spent.charge(f.cost);
    let e = growth(&f.tray);
    *best = best.max(e);
    let r = RoundReport {
        round: f.round,
        set: spec.arm_set(f.arm).unwrap_or(0),
        spent: f64::from(spent.total()),
        y: f64::from(f.y),
        measured: true,
        expected: e,
        simple_regret: report.optimum - *best,
    };
    if options.verbose {
        let names: Vec<String> = (0..D)
            .filter(|&l| spec.arm_contexts(f.arm).unwrap_or(0) & (1 << l) != 0)
            .map(|l| format!("{}={:.3}", spec.variables[l].name, f.water[l]))
            .collect();
        outln!(
            "round {:>3}  arm {}  contexts [{}]  set {}  spent {:>5.2}  growth {:>7.4}  noiseless {:>7.4}",
            r.round,
            f.arm,
            names.join(", "),
            r.set,
            r.spent,
            r.y,
            r.expected
        );
    }
    report.rounds.push(r);
    Ok(())
}
