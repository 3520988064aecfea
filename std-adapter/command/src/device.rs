//! `costbo device`: the host side of a costbo device over its link.
//!
//! Speaks `costbo_core::link`'s protocol over a byte stream — TCP (QEMU's
//! `-serial tcp:127.0.0.1:PORT,server=on,wait=on`) or a serial port (the `serialport` crate
//! without libudev; QEMU's `-serial pty` gives one too) — and
//! plays the plant in closed loop: on each `Decision` it draws the variables left to chance
//! from their source-water distributions, sends the `Measurement` (controlled variables as
//! dosed), computes the tray's growth with the plant simulator
//! ([`costbo_objectives::plant`]), sends the `Outcome` with the set's cost, and waits for the
//! `Ack`.
//!
//! Alongside, it runs the **same f32 controller** the firmware runs, built from the same
//! experiment file (`firmware/experiment.toml`, through `costbo_experiment`), fed the same
//! data the device observes (controlled variables at their decided values, the others as the
//! device's sensors read them: [`SensorSpec::to_raw`](costbo_experiment::SensorSpec::to_raw)
//! then [`Spec::measured`](costbo_experiment::Spec::measured)). Every device decision, and the
//! final recommendation, must equal the host's bit for bit.
//!
//! With a costly growth measurement (the experiment file's `[measurement]` table) the host
//! waits after each `Measurement` for the device's `Query`, checks its answer against the
//! host's controller (`Controller::query` on the same point: the same pay/skip answer and the
//! same smallest confidence probability, bit for bit), and sends the `Outcome` when told to
//! measure or `Skipped` with the dose's cost when not; the host's controller then observes or
//! skips likewise. The plant is simulated every round either way (the source water and the
//! growth noise draw the same stream), but a skipped round's growth is never sent.
//!
//! The device may reboot at any time (a power cut): its `Hello` says which round it resumes
//! at; if the round in flight was journaled before the cut (its `Ack` lost), the host counts
//! it as observed, otherwise the same round is decided again (identically). With
//! `reconnect`, a closed link is reopened until the device answers again.
//!
//! With contexts (the experiment file's `[causal]` table) the session is [`causal`]'s: the
//! host answers `MeasureContexts` from a small structural causal model and mirrors the
//! device's f32 causal controller.
//!
//! With QEMU prefer TCP: the QEMU controller exits as soon as it has sent `Done`, and over
//! `-serial pty` that last frame can be lost with the pty (the session then ends with "the
//! device closed the link" after the last round; every round before was checked).
//!
//! Regret is measured as in `costbo demo`: each decision's expected growth over an
//! independent bank of 4 096 source-water draws, against the simulator's optimum.

use std::path::PathBuf;
use std::time::Duration;

use costbo_core::driver::Decision;
use costbo_core::link::{values_to_array, DeviceMessage, HostMessage, Values};
use costbo_core::problem::{ControlSet, Problem};
use costbo_core::random::{standard_normal, uniform_open};
use costbo_experiment::Spec;
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro128PlusPlus;

use costbo_eval::judge::Judge;
use costbo_objectives::plant::Plant;
use costbo_objectives::platform::Platform;
use costbo_objectives::Objective;
use costbo_std::optimizer::{Optimizer, Precision, MAX_SETS};
use session::Session;

pub mod causal;
mod session;

/// The plant simulator's inputs.
const D: usize = 5;

/// Where the device is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// A TCP server (QEMU's `-serial tcp:HOST:PORT,server=on`), `HOST:PORT`.
    Tcp(String),
    /// A serial port (e.g. `/dev/ttyACM0`, or QEMU's `-serial pty`) at a baud rate, raw 8N1.
    Serial(PathBuf, u32),
}

impl std::fmt::Display for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Endpoint::Tcp(addr) => write!(f, "tcp {}", costbo_eval::output::Shown(addr)),
            Endpoint::Serial(path, baud) => write!(
                f,
                "serial port {} at {baud} baud",
                costbo_eval::output::Shown(&path.to_string_lossy())
            ),
        }
    }
}

/// Settings of a device session.
#[derive(Debug, Clone)]
pub struct DeviceOptions {
    /// The experiment file the firmware was built from.
    pub config: PathBuf,
    /// The link.
    pub endpoint: Endpoint,
    /// Seed of the simulated plant (source water and growth noise).
    pub seed: u64,
    /// Standard deviation of the growth noise.
    pub noise: f64,
    /// Give up when the device says nothing for this long.
    pub timeout: Duration,
    /// Reopen a closed link (the device rebooted) instead of failing.
    pub reconnect: bool,
    /// Check the host's controller against the device's decisions (the default).
    pub mirror: bool,
    /// Print a line per round.
    pub verbose: bool,
    /// Send `Stop` once this many rounds are observed (the device answers with `Done`).
    pub stop_after: Option<u32>,
}

/// One observed round.
#[derive(Debug, Clone)]
pub struct RoundReport {
    /// Round index.
    pub round: u32,
    /// Control set played.
    pub set: usize,
    /// Budget spent after the round (device ledger as mirrored; the sum of costs without a
    /// mirror).
    pub spent: f64,
    /// The growth observed (with noise); simulated but not sent for a skipped round.
    pub y: f64,
    /// Whether the growth was measured (always, without a costly measurement).
    pub measured: bool,
    /// Expected growth of the decision over the independent bank.
    pub expected: f64,
    /// Optimum minus the best expected growth so far.
    pub simple_regret: f64,
}

/// What a session did.
#[derive(Debug, Clone)]
pub struct DeviceReport {
    /// `config` of the device's first `Hello`.
    pub config_id: u32,
    /// The round the device was at when the session began.
    pub first_round: u32,
    /// Every round observed in this session, in order.
    pub rounds: Vec<RoundReport>,
    /// Decisions compared with the host's controller (all equal, or the session fails).
    pub decisions_checked: usize,
    /// Measurement answers (`Query`) compared with the host's controller (all equal, or the
    /// session fails); 0 without a costly measurement.
    pub queries_checked: usize,
    /// `Hello` messages received (at boot, after a reboot, in answer to a `Ping`).
    pub hellos: usize,
    /// Times the link was reopened (`reconnect`).
    pub reconnects: usize,
    /// Rounds the device had journaled whose `Ack` was lost in a reboot.
    pub recovered_unacked: usize,
    /// The final recommendation: control set, values (NaN where left to chance), score.
    pub recommendation: Option<(usize, Vec<f32>, f32)>,
    /// Expected growth of the recommendation.
    pub recommended_expected: Option<f64>,
    /// The simulator's optimum.
    pub optimum: f64,
    /// Context requests (`MeasureContexts`: the arm and its contexts) compared with the
    /// host's causal controller (all equal, or the session fails); 0 without contexts.
    pub contexts_checked: usize,
}

impl DeviceReport {
    /// A report of a session that has not heard from the device yet, against `optimum`.
    fn empty(optimum: f64) -> Self {
        DeviceReport {
            config_id: 0,
            first_round: 0,
            rounds: vec![],
            decisions_checked: 0,
            queries_checked: 0,
            hellos: 0,
            reconnects: 0,
            recovered_unacked: 0,
            recommendation: None,
            recommended_expected: None,
            optimum,
            contexts_checked: 0,
        }
    }
}

/// The round in flight: what was sent for it, for the mirror.
#[derive(Debug, Clone, Copy)]
struct InFlight {
    round: u32,
    decision: Decision<f32, D>,
    /// What the device observes.
    x_device: [f32; D],
    /// The tray's true composition (unit coordinates), for regret.
    u_true: [f64; D],
    y: f32,
    cost: f32,
    /// The round's end (`Outcome`, or `Skipped`) was sent.
    outcome_sent: bool,
    /// The device said to measure (always, without a costly measurement).
    measured: bool,
    /// What a measurement costs (0 without a costly measurement).
    measurement_cost: f32,
}

/// Runs a session with the device; fails on a decision that differs from the host's, a
/// device error, or silence beyond the timeout.
pub fn run(options: &DeviceOptions) -> Result<DeviceReport, String> {
    let text = costbo_experiment::toml::read_text(&options.config).map_err(|e| e.0)?;
    let spec = costbo_experiment::toml::load_device(&options.config).map_err(|e| one_line(&e.0))?;
    let config_id = costbo_experiment::config_id(text.as_bytes());
    if spec.causal.is_some() {
        return causal::run(&spec, config_id, options);
    }
    if spec.variables.len() != D {
        return Err(format!(
            "{}: {} variables: the host simulates the plant experiment's {D} nutrients",
            options.config.display(),
            spec.variables.len()
        ));
    }
    session(&spec, &text, config_id, options)
}

/// A several-line parser message in one line: the first line (where) and the last (what).
fn one_line(message: &str) -> String {
    let lines: Vec<&str> = message.lines().filter(|l| !l.trim().is_empty()).collect();
    match (lines.first(), lines.last()) {
        (Some(first), Some(last)) if lines.len() > 1 => format!("{first}: {}", last.trim()),
        _ => message.trim().to_string(),
    }
}

/// A device's point as the optimizer takes it (every `f32` is exactly an `f64`).
fn widen(x: &[f32; D]) -> Vec<f64> {
    x.iter().map(|v| f64::from(*v)).collect()
}

fn values_vec(v: &Values) -> Vec<f32> {
    v.as_slice().to_vec()
}

/// The decision's controlled values and score as bits, for comparison.
fn decision_bits(set: usize, control: ControlSet, values: &[f32], score: f32) -> Vec<u32> {
    let mut b = vec![set as u32, score.to_bits()];
    for (l, v) in values.iter().enumerate() {
        b.push(if control.contains(l) {
            v.to_bits()
        } else {
            u32::from(!v.is_nan())
        });
    }
    b
}

/// The host's copy of the device's controller: the desktop optimizer in the device's precision,
/// opened from the same file, which makes the device's decisions bit for bit.
type Mirror = Optimizer;

/// The session of a plain (cost-aware) experiment, message by message; the link's side of it
/// is [`Session`]'s.
fn session(
    spec: &Spec<'static>,
    text: &str,
    config_id: u32,
    options: &DeviceOptions,
) -> Result<DeviceReport, String> {
    let mut mirror: Mirror = Optimizer::from_toml_str_with(text, Precision::F32)
        .map_err(|e| format!("{}: {e}", options.config.display()))?;
    let truth: Problem<f64, D, MAX_SETS> = spec
        .problem_within()
        .map_err(|e| format!("{}: {e}", options.config.display()))?;
    // The device's problem, whose prices are the rounds' costs in its precision.
    let device_problem: Problem<f32, D, MAX_SETS> = spec
        .problem_within()
        .map_err(|e| format!("{}: {e}", options.config.display()))?;
    // A rule may overshoot the budget by its last round's cost, at most the dearest round's:
    // the dearest set at the upper bounds of its variables.
    let dearest = (0..spec.sets.len())
        .filter_map(|i| truth.cost_at(i, truth.upper()).ok().flatten())
        .map(|(c, _)| c)
        .fold(0.0, f64::max);
    let plant = Plant::shared().map_err(|e| format!("{e}"))?;
    let optimum = plant.optimum();
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(options.seed ^ 0x5EED);
    // The independent bank that measures regret: 4 096 draws of the source water.
    let draws: Vec<[f64; D]> = (0..4096)
        .map(|_| {
            core::array::from_fn(|l| truth.unit_distribution(l).sample(uniform_open(&mut rng)))
        })
        .collect();
    let judge = Judge::from_points(draws);
    let expected = |set: ControlSet, u: &[f64; D]| judge.expected(&plant, set, u);
    let mut water = Xoshiro128PlusPlus::seed_from_u64(options.seed);

    let mut report = DeviceReport::empty(optimum);
    let mut link = Session::open(options, config_id)?;
    let mut in_flight: Option<InFlight> = None;
    let mut best = f64::NEG_INFINITY;
    let mut spent_sum = 0.0f64;
    outln!(
        "costbo device: {} ({} variables, {} control sets, budget {}), link: {}",
        spec.name,
        spec.variables.len(),
        spec.sets.len(),
        spec.budget,
        options.endpoint
    );
    loop {
        let msg = link.next(&mut report)?;
        match msg {
            DeviceMessage::Hello {
                version,
                config,
                round,
                spent,
                budget,
            } => {
                if !(spent.is_finite() && budget.is_finite() && spent >= 0.0 && budget > 0.0)
                    || f64::from(spent) > f64::from(budget) * (1.0 + 1e-6) + dearest
                {
                    return Err(format!(
                        "the device's hello says spent {spent:?} of budget {budget:?}: refused (a \
                         budget must be finite and > 0, spent in [0, budget + {dearest}])"
                    ));
                }
                link.accept_hello(version, config, round, &mut report)?;
                // Resynchronise: the round in flight was journaled (Ack lost) or not.
                if let Some(f) = in_flight {
                    if round == f.round + 1 && f.outcome_sent {
                        report.recovered_unacked += 1;
                        observe(
                            &mut mirror,
                            options,
                            &f,
                            &mut report,
                            &expected,
                            &mut best,
                            &mut spent_sum,
                        )?;
                        link.round_observed();
                        in_flight = None;
                    } else if round == f.round {
                        in_flight = None;
                    }
                }
                link.greet(
                    round,
                    format_args!(
                        "device: hello, round {round}, spent {spent}/{budget}, config {config:#010x}"
                    ),
                )?;
            }
            DeviceMessage::Decision {
                round,
                set,
                values,
                score,
            } => {
                if in_flight.is_some_and(|f| f.round == round) {
                    // The same decision again (a repeated Start): already being played.
                    continue;
                }
                let host_round = link.round();
                if round != host_round {
                    return Err(format!(
                        "decision for round {round}, the host is at round {host_round}"
                    ));
                }
                if options.stop_after.is_some_and(|k| host_round >= k) {
                    link.send(&HostMessage::Stop)?;
                    continue;
                }
                let set = set as usize;
                let control = spec
                    .sets
                    .get(set)
                    .map(|s| ControlSet(s.mask))
                    .ok_or_else(|| format!("decision names control set {set}"))?;
                let dv: [f32; D] = values_to_array(&values).ok_or_else(|| {
                    format!(
                        "round {round}: a decision with {} values, the experiment has {D}",
                        values.len()
                    )
                })?;
                check_values(spec, "decision", round, control, &dv, score)?;
                let decision = if options.mirror {
                    let mine = mirror
                        .ask()
                        .map_err(|e| {
                            format!("round {round}: the device decided, the host's optimizer: {e}")
                        })?
                        .ok_or_else(|| {
                            format!(
                                "round {round}: the device decided, the host's optimizer sees \
                                 the budget spent"
                            )
                        })?;
                    let mine_control = ControlSet(spec.sets[mine.set].mask);
                    let mine_values: [Option<f32>; D] =
                        core::array::from_fn(|l| mine.values[l].map(|v| v as f32));
                    let theirs = decision_bits(set, control, &dv, score);
                    let ours = decision_bits(
                        mine.set,
                        mine_control,
                        &mine_values.map(|v| v.unwrap_or(f32::NAN)),
                        mine.score as f32,
                    );
                    if theirs != ours {
                        return Err(format!(
                            "round {round}: the device decided set {set} {dv:?} (score {score}), \
                             the host set {} {:?} (score {})",
                            mine.set, mine.values, mine.score
                        ));
                    }
                    report.decisions_checked += 1;
                    Decision {
                        set: mine.set,
                        control: mine_control,
                        values: mine_values,
                        score: mine.score as f32,
                        measure: true,
                    }
                } else {
                    Decision {
                        set,
                        control,
                        values: core::array::from_fn(|l| control.contains(l).then_some(dv[l])),
                        score,
                        measure: true,
                    }
                };
                // The tray: dosed variables as decided, the others from the source water.
                let u_true: [f64; D] = core::array::from_fn(|l| match decision.values[l] {
                    Some(v) => truth.to_unit(&[f64::from(v); D])[l],
                    None => truth.unit_distribution(l).sample(uniform_open(&mut water)),
                });
                let x_true = truth.to_physical(&u_true);
                let sent: [f32; D] = core::array::from_fn(|l| match decision.values[l] {
                    Some(v) => v,
                    None => x_true[l] as f32,
                });
                let x_device: [f32; D] = core::array::from_fn(|l| match decision.values[l] {
                    Some(v) => v,
                    None => spec.variables[l]
                        .sensor
                        .and_then(|s| spec.measured(l, s.to_raw(sent[l])))
                        .unwrap_or(f32::NAN),
                });
                let growth = plant.value_and_gradient(&truth.to_unit(&x_true)).0
                    + options.noise * standard_normal::<f64, Platform>(&mut water);
                let cost = device_problem
                    .decision_cost(set, &decision.values)
                    .unwrap_or(f32::NAN);
                let mut f = InFlight {
                    round,
                    decision,
                    x_device,
                    u_true: truth.to_unit(&x_true),
                    y: growth as f32,
                    cost,
                    outcome_sent: false,
                    measured: true,
                    measurement_cost: spec.measurement.map_or(0.0, |m| m.cost as f32),
                };
                link.send(&HostMessage::Measurement {
                    round,
                    values: Values::from_slice(&sent)
                        .map_err(|_| format!("{} values exceed a message's", sent.len()))?,
                })?;
                // With a costly measurement the device answers with a Query first.
                if spec.measurement.is_none() {
                    link.send(&HostMessage::Outcome {
                        round,
                        y: f.y,
                        cost,
                    })?;
                    f.outcome_sent = true;
                }
                in_flight = Some(f);
            }
            DeviceMessage::Query {
                round,
                measure,
                min_probability,
            } => {
                if spec.measurement.is_none() {
                    return Err(format!(
                        "round {round}: the device asks whether to measure, but {} has no [measurement]",
                        options.config.display()
                    ));
                }
                let Some(f) = in_flight.as_mut().filter(|f| f.round == round) else {
                    return Err(format!("Query for round {round}, host at {}", link.round()));
                };
                if f.outcome_sent {
                    // The same answer again (the round's end is already on its way).
                    continue;
                }
                if options.mirror {
                    let mine = mirror.query(&widen(&f.x_device)).map_err(|e| {
                        format!("round {round}: the device answered, the host's optimizer: {e}")
                    })?;
                    if mine.measure != measure
                        || (mine.min_probability as f32).to_bits() != min_probability.to_bits()
                    {
                        return Err(format!(
                            "round {round}: the device says measure = {measure} (min p {min_probability:?}), the host measure = {} (min p {:?})",
                            mine.measure, mine.min_probability
                        ));
                    }
                    report.queries_checked += 1;
                }
                f.measured = measure;
                if measure {
                    link.send(&HostMessage::Outcome {
                        round,
                        y: f.y,
                        cost: f.cost,
                    })?;
                } else {
                    link.send(&HostMessage::Skipped {
                        round,
                        cost: f.cost,
                    })?;
                }
                f.outcome_sent = true;
            }
            DeviceMessage::Ack { round } => {
                let f = in_flight
                    .filter(|f| f.round == round)
                    .ok_or_else(|| format!("Ack for round {round}, host at {}", link.round()))?;
                observe(
                    &mut mirror,
                    options,
                    &f,
                    &mut report,
                    &expected,
                    &mut best,
                    &mut spent_sum,
                )?;
                link.round_observed();
                in_flight = None;
            }
            DeviceMessage::Done {
                round,
                spent,
                set,
                values,
                score,
            } => {
                let host_round = link.round();
                if round != host_round {
                    return Err(format!("Done at round {round}, the host at {host_round}"));
                }
                let set = set as usize;
                let v = values_vec(&values);
                let control = spec
                    .sets
                    .get(set)
                    .map(|s| ControlSet(s.mask))
                    .ok_or_else(|| format!("recommendation names control set {set}"))?;
                let rv: [f32; D] = values_to_array(&values).ok_or_else(|| {
                    format!(
                        "the recommendation has {} values, the experiment has {D}",
                        values.len()
                    )
                })?;
                check_values(spec, "recommendation", round, control, &rv, score)?;
                let ledger = if options.mirror {
                    mirror.spent()
                } else {
                    spent_sum
                };
                // Without the mirror the host's ledger sums the f32 costs in f64: allow the
                // f32 rounding of a sum of `round` terms.
                let slack = 1e-6 * ledger.abs().max(1.0) * f64::from(round.max(1));
                if !(spent.is_finite() && (f64::from(spent) - ledger).abs() <= slack) {
                    return Err(format!(
                        "the device reports spent {spent:?} after {round} rounds, the host \
                         charged {ledger:?}: refused"
                    ));
                }
                let stopped_by_host = options.stop_after.is_some_and(|k| host_round >= k);
                if options.mirror && !stopped_by_host {
                    // The device ends after a decision the budget could not pay for (its
                    // model refitted first when its round is due): the mirror makes the same
                    // attempt, and must find nothing to play either.
                    if let Some(a) = mirror.ask().map_err(|e| format!("ask: {e}"))? {
                        return Err(format!(
                            "the device ends at round {round}, but the host would still play \
                             set {} (cost {})",
                            a.set, a.cost
                        ));
                    }
                }
                if options.mirror {
                    let mine = mirror.recommend().map_err(|e| format!("recommend: {e}"))?;
                    let theirs = decision_bits(set, control, &v, score);
                    let mine_values: Vec<f32> = mine
                        .values
                        .iter()
                        .map(|v| v.map_or(f32::NAN, |v| v as f32))
                        .collect();
                    let ours = decision_bits(
                        mine.set,
                        ControlSet(spec.sets[mine.set].mask),
                        &mine_values,
                        mine.expected as f32,
                    );
                    if theirs != ours || (mirror.spent() as f32).to_bits() != spent.to_bits() {
                        return Err(format!(
                            "the device recommends set {set} {v:?} (score {score}, spent {spent}), \
                             the host set {} {:?} (score {}, spent {})",
                            mine.set,
                            mine.values,
                            mine.expected,
                            mirror.spent()
                        ));
                    }
                }
                let u: [f64; D] = core::array::from_fn(|l| {
                    if control.contains(l) {
                        truth.to_unit(&[f64::from(rv[l]); D])[l]
                    } else {
                        0.5
                    }
                });
                let e = expected(control, &u);
                if !e.is_finite() {
                    return Err(format!(
                        "the recommendation's expected growth is {e}: refused"
                    ));
                }
                report.recommendation = Some((set, v, score));
                report.recommended_expected = Some(e);
                outln!(
                    "device: done after {round} rounds, spent {spent}; recommends set {set} \
                     (expected growth {e:.4}, optimum {optimum:.4}, regret {:.4})",
                    optimum - e
                );
                if let (Some(first), Some(last)) = (report.rounds.first(), report.rounds.last()) {
                    outln!(
                        "simple regret: {:.4} after round {} -> {:.4} after round {}; {} decisions \
                         identical to the host's",
                        first.simple_regret,
                        first.round,
                        last.simple_regret,
                        last.round,
                        report.decisions_checked
                    );
                }
                return Ok(report);
            }
            DeviceMessage::Error { code, round } => {
                return Err(format!("the device refused at round {round}: {code:?}"));
            }
            DeviceMessage::MeasureContexts { round, .. } => {
                return Err(format!(
                    "round {round}: the device asks for contexts, but {} has no [causal]",
                    options.config.display()
                ));
            }
        }
    }
}

/// Checks a decision's or recommendation's numbers from the device: every controlled value
/// finite and within its variable's bounds, and a finite score (the rules only play finite
/// scores), so that nothing absurd is dosed, simulated or reported.
fn check_values(
    spec: &Spec<'static>,
    what: &str,
    round: u32,
    control: ControlSet,
    values: &[f32; D],
    score: f32,
) -> Result<(), String> {
    for (l, (&v, var)) in values.iter().zip(spec.variables.iter()).enumerate() {
        if !control.contains(l) {
            continue;
        }
        // The device computes in f32: its bounds are the f64 bounds rounded, and a value at a
        // bound may be a few ulps past it.
        let (lower, upper) = (var.lower as f32, var.upper as f32);
        let slack = 4.0 * f32::EPSILON * lower.abs().max(upper.abs()).max(1.0);
        if !(v.is_finite() && v >= lower - slack && v <= upper + slack) {
            return Err(format!(
                "round {round}: the device's {what} sets {} to {v:?}, outside its bounds [{}, {}]: \
                 refused",
                var.name, var.lower, var.upper
            ));
        }
    }
    if !score.is_finite() {
        return Err(format!(
            "round {round}: the device's {what} has score {score:?}: refused"
        ));
    }
    Ok(())
}

/// The host's side of an acknowledged round: the mirror observes what the device observed.
fn observe(
    mirror: &mut Mirror,
    options: &DeviceOptions,
    f: &InFlight,
    report: &mut DeviceReport,
    expected: &dyn Fn(ControlSet, &[f64; D]) -> f64,
    best: &mut f64,
    spent_sum: &mut f64,
) -> Result<(), String> {
    if std::env::var("COSTBO_DEVICE_DEBUG").is_ok() {
        errln!(
            "observe round {}: x {:?} y {:?} cost {:?}",
            f.round,
            f.x_device,
            f.y,
            f.cost
        );
    }
    if options.mirror {
        let x = widen(&f.x_device);
        let done = if f.measured {
            mirror.tell(&x, f64::from(f.y), f64::from(f.cost))
        } else {
            mirror.skip(&x, f64::from(f.cost))
        };
        done.map_err(|e| format!("round {}: the host's optimizer: {e}", f.round))?;
    }
    *spent_sum += f64::from(f.cost);
    if f.measured {
        *spent_sum += f64::from(f.measurement_cost);
    }
    let e = expected(f.decision.control, &f.u_true);
    *best = best.max(e);
    let r = RoundReport {
        round: f.round,
        set: f.decision.set,
        spent: if options.mirror {
            mirror.spent()
        } else {
            *spent_sum
        },
        y: f64::from(f.y),
        measured: f.measured,
        expected: e,
        simple_regret: report.optimum - *best,
    };
    if options.verbose {
        outln!(
            "round {:>3}  set {}  spent {:>6.2}  growth {:>7.4}{}  expected {:>7.4}  simple regret {:.4}",
            r.round,
            r.set,
            r.spent,
            r.y,
            if r.measured { "" } else { " (not measured)" },
            r.expected,
            r.simple_regret
        );
    }
    report.rounds.push(r);
    Ok(())
}

/// Longest `--timeout`, in seconds (a week): longer is no timeout at all.
pub const MAX_TIMEOUT_SECONDS: f64 = 7.0 * 24.0 * 3600.0;
/// Largest growth noise standard deviation (`--noise`); growth is of unit scale.
pub const MAX_NOISE: f64 = 1e3;

/// Command-line arguments of `costbo device`.
#[derive(Debug, Clone, clap::Args)]
pub struct DeviceArgs {
    /// The experiment file the firmware was built from.
    #[arg(long, default_value = "firmware/experiment.toml")]
    pub config: PathBuf,
    /// The device over TCP, HOST:PORT (QEMU: -serial tcp:127.0.0.1:PORT,server=on,wait=on).
    #[arg(long, conflicts_with = "serial")]
    pub tcp: Option<String>,
    /// The device on a serial port (e.g. /dev/ttyACM0, or the /dev/pts/N of QEMU's -serial pty).
    #[arg(long)]
    pub serial: Option<PathBuf>,
    /// Baud rate of --serial.
    #[arg(long, default_value_t = 115_200)]
    pub baud: u32,
    /// Seed of the simulated plant (source water, growth noise).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Standard deviation of the growth noise.
    #[arg(long, default_value_t = 0.01)]
    pub noise: f64,
    /// Seconds of silence before giving up.
    #[arg(long, default_value_t = 60.0)]
    pub timeout: f64,
    /// Reopen the link when the device closes it (a reboot), until it answers again.
    #[arg(long)]
    pub reconnect: bool,
    /// Do not check the device's decisions against the host's controller.
    #[arg(long)]
    pub no_mirror: bool,
    /// Send Stop after this many rounds.
    #[arg(long)]
    pub stop_after: Option<u32>,
    /// Only the summary, not a line per round.
    #[arg(long)]
    pub quiet: bool,
}

impl DeviceArgs {
    /// The session's options.
    pub fn options(&self) -> Result<DeviceOptions, String> {
        let endpoint = match (&self.tcp, &self.serial) {
            (Some(a), None) => Endpoint::Tcp(a.clone()),
            (None, Some(p)) => Endpoint::Serial(p.clone(), self.baud),
            _ => return Err("give the device's link: --tcp HOST:PORT or --serial PATH".into()),
        };
        if !(self.timeout > 0.0 && self.timeout <= MAX_TIMEOUT_SECONDS) {
            return Err(format!(
                "--timeout {:?}: must be in (0, {MAX_TIMEOUT_SECONDS}] seconds (a week)",
                self.timeout
            ));
        }
        if !(self.noise.is_finite() && (0.0..=MAX_NOISE).contains(&self.noise)) {
            return Err(format!(
                "--noise {:?}: must be in [0, {MAX_NOISE}] (a standard deviation of the growth)",
                self.noise
            ));
        }
        if self.baud == 0 {
            return Err("--baud 0: must be a positive baud rate".into());
        }
        Ok(DeviceOptions {
            config: self.config.clone(),
            endpoint,
            seed: self.seed,
            noise: self.noise,
            timeout: Duration::from_secs_f64(self.timeout),
            reconnect: self.reconnect,
            mirror: !self.no_mirror,
            verbose: !self.quiet,
            stop_after: self.stop_after,
        })
    }
}
