//! The controller application: one experiment, round after round, over a host link.
//!
//! Board-independent: [`App`] is generic over the pump pins (`OutputPin`) and delay
//! (`DelayNs`), the sensor bus (`I2c` + [`SensorFeed`]), the byte link (`embedded_io` `Read` +
//! `Write`), the NOR flash of the round journal (`costbo_core::journal` over
//! `embedded_storage` `NorFlash`) and a text sink for the log (`core::fmt::Write`; with
//! feature `defmt` the log goes to defmt instead). The
//! QEMU board (`src/bin/controller.rs`), a real board (`firmware/boards/*`) and the host tests
//! wire it to their peripherals.
//!
//! # A round
//!
//! The conversation is `costbo_core::link`'s contract (see its module documentation):
//!
//! 1. **Boot**: every record of the journal is replayed into the controller
//!    (`costbo_core::journal::replay_into`, i.e. `Controller::replay`), then `Hello` tells the
//!    host where the device stands.
//! 2. On `Start` the controller decides (`suggest`); the device sends `Decision`, then doses
//!    the controlled variables with the pumps (one after the other; dose → on-time through the
//!    pump calibration).
//! 3. On `Measurement` (the host's readings of every variable; on QEMU they become the
//!    simulated sensors' values) it reads every sensor over I2C: the controlled variables are
//!    observed at their decided (dosed) values, the others at their sensor readings (converted
//!    and clamped to the bounds, [`costbo_experiment::Spec::measured`]); a controlled reading
//!    far from its dose is refused. Then it waits the growth period.
//! 4. On `Outcome` it observes (`observe`), appends the round to the journal (durable before
//!    the `Ack`; if the append fails the device halts, since its controller is then ahead of
//!    what a power cut would keep), sends `Ack`, and decides the next round at once (back to
//!    2).
//! 5. When the budget cannot pay another round, or on `Stop`, it sends `Done` with the
//!    recommendation.
//!
//! With a costly growth measurement (the experiment file's `[measurement]` table), step 3 ends
//! with a question: after reading the nutrient sensors the device asks its controller whether
//! to measure this round's growth (`Controller::query`) and sends `Query`. Told to measure, it
//! runs the growth measurement (waits the growth period) and expects the `Outcome`; told to
//! skip, it does not run it at all and expects `Skipped` (the dose's cost), which it records
//! with `Controller::skip`, journals as a skipped record, and acknowledges. An `Outcome` for a
//! skipped round, or a `Skipped` for a measured one, is refused (`NotMeasured`,
//! `MeasurementDue`) and changes nothing.
//!
//! With contexts (the experiment file's `[causal]` table: a contextual causal experiment,
//! paper 004) each round begins with the arm: the device chooses it with its causal
//! controller (`CausalController::next_arm`, Algorithm 2), sends `MeasureContexts` with the
//! context variables the arm needs, and waits. On `Contexts` (the host's readings; on QEMU they
//! become the simulated sensors' values) it reads those sensors, chooses the action with the
//! contexts held (`CausalController::ask`, GP-UCB over the arm's action box, in unit
//! coordinates), sends `Decision` (the arm's control set, the doses, the UCB value as score)
//! and doses; the round then goes on as above (`Measurement`, growth period, `Outcome`), and
//! the outcome is told to the causal controller (`tell`) and journaled as a causal record
//! (arm, doses, contexts, outcome, cost). At boot a causal journal is replayed by deciding each
//! recorded round again from its contexts and outcome: the arm and the doses must come out
//! bit for bit as recorded, or the device halts. The experiment ends when the budget cannot
//! pay the chosen arm's control set.
//!
//! Every message out of place is answered with `Error` and changes nothing; `Ping` is answered
//! with `Hello` at any time. Nothing the link sends can make the application panic.

use costbo_core::causal::{ArmTable, CausalAsk, CausalError, CausalReplayError};
use costbo_core::driver::{Decision, DriverError};
use costbo_core::link::{
    encode, values_from_options, DeviceMessage, ErrorCode, FrameDecoder, HostMessage, LinkError,
    Values, DECODER_CAPACITY, MAX_FRAME, MAX_VARS, VERSION,
};
use costbo_core::problem::ControlSet;
use costbo_experiment::Spec;
use embedded_hal::delay::DelayNs;
use embedded_hal::digital::OutputPin;
use embedded_hal::i2c::I2c;

use costbo_core::journal::{replay_into, Journal, JournalError, Record};
use embedded_storage::nor_flash::NorFlash;

use crate::drivers::pumps::Pumps;
use crate::drivers::sensor::Sensors;
use crate::experiment::{CausalCtl, Ctl, ARMS, D, M};

use crate::sim::SensorFeed;

/// Device-specific error codes sent as `ErrorCode::Other`.
pub mod codes {
    /// A pump failed while dosing; the device stops (the tray's state is unknown).
    pub const PUMP: u16 = 1;
    /// A sensor could not be read; the host may send the `Measurement` again.
    pub const SENSOR: u16 = 2;
    /// The journal could not be replayed at boot; the device stops.
    pub const REPLAY: u16 = 3;
}

/// Why the application stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppError {
    /// The link failed to read or write (the host is gone).
    Link,
}

/// Where the application stands.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Phase {
    /// Booted, waiting for `Start`.
    Idle,
    /// Decided and dosed; waiting for the `Measurement`.
    Dosed(Decision<f32, D>),
    /// Measured and grown; waiting for the `Outcome` (the point to observe).
    Measured(Decision<f32, D>, [f32; D]),
    /// Measured the nutrients and told (costly measurement) not to measure the growth;
    /// waiting for `Skipped` (the point the query was asked with).
    Skipping(Decision<f32, D>, [f32; D]),
    /// Contextual causal experiment: chose the arm and asked for its contexts; waiting for
    /// `Contexts`.
    Contexts(u8),
    /// The experiment is over (`Done` sent).
    Finished,
    /// The device cannot go on (a pump, the journal or the replay failed); it answers `Error`.
    Halted(ErrorCode),
}

/// The controller application (see the module documentation).
pub struct App<'a, P, Dl, I, L, F, W> {
    spec: &'a Spec<'a>,
    config_id: u32,
    /// The dosing rule's controller; `None` in an application built with [`App::causal`].
    ctl: Option<Ctl<'a>>,
    pumps: Pumps<P, Dl, D>,
    sensors: Sensors<I>,
    link: L,
    log: Journal<F>,
    out: W,
    decoder: FrameDecoder<DECODER_CAPACITY>,
    phase: Phase,
    /// Records replayed from the journal at boot.
    replayed: u32,
    /// The causal controller of a contextual causal experiment.
    causal: Option<CausalRun<'a>>,
}

/// A contextual causal experiment's state beside its controller.
struct CausalRun<'a> {
    ctl: &'a mut CausalCtl<'a>,
    /// The open round's measured contexts (physical units; NaN for the other variables).
    contexts: [f32; D],
}

/// Why a journal record could not be replayed at boot.
#[derive(Debug, Clone, Copy, PartialEq)]
enum ReplayFailure {
    Driver(DriverError),
    /// The record is not a causal round (or the firmware has no causal controller).
    NotCausal,
    Causal(CausalReplayError),
}

/// Writes a log line: to defmt with feature `defmt`, else to the text sink.
macro_rules! log {
    ($app:expr, $($arg:tt)*) => {{
        #[cfg(feature = "defmt")]
        {
            let _ = &$app.out;
            let mut line = $crate::app::Line::new();
            let _ = core::fmt::Write::write_fmt(&mut line, format_args!($($arg)*));
            defmt::info!("{=str}", line.as_str());
        }
        #[cfg(not(feature = "defmt"))]
        {
            let _ = writeln!($app.out, $($arg)*);
        }
    }};
}

/// Whether this firmware has the costly-measurement path (asking the controller after each
/// `Measurement`): the experiment it was built from has a `[measurement]` table, or feature
/// `costly-measurement` asks for it (the host tests run other experiment files at run time).
/// Without it the path is not linked (about 8 KB of flash on the M4F: the CE test's normal CDF
/// and predictions), and an experiment with a costly measurement halts the device at boot.
pub const COSTLY_MEASUREMENT: bool =
    crate::experiment::COSTLY_MEASUREMENT || cfg!(feature = "costly-measurement");

/// Whether this firmware has the contextual causal path (measure the chosen arm's contexts,
/// then dose): the experiment it was built from has a `[causal]` table, or feature
/// `causal-dosing` asks for it (the host tests). Without it the path is not linked, and an
/// experiment with contexts halts the device at boot.
pub const CAUSAL_DOSING: bool =
    crate::experiment::CAUSAL_ARMS != 0 || cfg!(feature = "causal-dosing");

/// Whether this firmware has the dosing rule's path (the `[policy]` controller deciding,
/// observing, replaying and recommending). An experiment with a `[causal]` table decides every
/// round with its arms, so a firmware built from one leaves the rule, its acquisition and its
/// inner optimiser out (about 45 KB of flash on the M4F), unless feature `causal-dosing` asks
/// for both paths (the host tests run other experiment files at run time).
pub const DOSING_RULE: bool =
    crate::experiment::CAUSAL_ARMS == 0 || cfg!(feature = "causal-dosing");

/// Tolerance between a controlled variable's reading and its dose, as a fraction of the
/// variable's range (plus two sensor counts).
pub const DOSE_TOLERANCE: f32 = 0.01;

impl<'a, P, Dl, I, L, F, W> App<'a, P, Dl, I, L, F, W>
where
    P: OutputPin,
    Dl: DelayNs,
    I: I2c + SensorFeed,
    L: embedded_io::Read + embedded_io::Write,
    F: NorFlash,
    W: core::fmt::Write,
{
    /// An application for experiment `spec` (identified by `config_id`) with a fresh controller
    /// built from it, the pumps (channel `c` on pin `c`), the sensors, the link, the opened
    /// journal (see [`crate::journal::open`]) and the text log sink. Call [`boot`](Self::boot) next.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        spec: &'a Spec<'a>,
        config_id: u32,
        ctl: Ctl<'a>,
        pumps: Pumps<P, Dl, D>,
        sensors: Sensors<I>,
        link: L,
        log: Journal<F>,
        out: W,
    ) -> Self {
        Self::with_rule(spec, config_id, Some(ctl), pumps, sensors, link, log, out)
    }

    /// [`new`](Self::new) with the dosing rule's controller, if any.
    #[allow(clippy::too_many_arguments)]
    fn with_rule(
        spec: &'a Spec<'a>,
        config_id: u32,
        ctl: Option<Ctl<'a>>,
        pumps: Pumps<P, Dl, D>,
        sensors: Sensors<I>,
        link: L,
        log: Journal<F>,
        out: W,
    ) -> Self {
        App {
            spec,
            config_id,
            ctl,
            pumps,
            sensors,
            link,
            log,
            out,
            decoder: FrameDecoder::new(),
            phase: Phase::Idle,
            replayed: 0,
            causal: None,
        }
    }

    /// The application of a contextual causal experiment (the spec's `[causal]` table): its
    /// causal controller, built from the spec
    /// ([`Spec::causal_controller`](costbo_experiment::Spec::causal_controller)), held by
    /// reference (it holds one GP per arm: a static on the device, not a stack copy). Call
    /// before [`boot`](Self::boot). Ignored (the device halts at boot) in a firmware without
    /// [`CAUSAL_DOSING`].
    pub fn with_causal(mut self, ctl: &'a mut CausalCtl<'a>) -> Self {
        if CAUSAL_DOSING {
            self.causal = Some(CausalRun {
                ctl,
                contexts: [f32::NAN; D],
            });
        }
        self
    }

    /// The application of a contextual causal experiment without the dosing rule's controller:
    /// what a firmware without [`DOSING_RULE`] builds (the rule is not linked at all). Its
    /// causal controller as in [`with_causal`](Self::with_causal); the other arguments as in
    /// [`new`](Self::new). Call [`boot`](Self::boot) next.
    #[allow(clippy::too_many_arguments)]
    pub fn causal(
        spec: &'a Spec<'a>,
        config_id: u32,
        causal: &'a mut CausalCtl<'a>,
        pumps: Pumps<P, Dl, D>,
        sensors: Sensors<I>,
        link: L,
        log: Journal<F>,
        out: W,
    ) -> Self {
        Self::with_rule(spec, config_id, None, pumps, sensors, link, log, out).with_causal(causal)
    }

    /// The dosing rule's controller, where this firmware has its path ([`DOSING_RULE`]): a
    /// constant `None` otherwise, so nothing behind it is linked.
    fn rule(&mut self) -> Option<&mut Ctl<'a>> {
        if DOSING_RULE {
            self.ctl.as_mut()
        } else {
            None
        }
    }

    /// Whether the dosing rule's measurement is costly (it has a measurement rule).
    fn costly(&self) -> bool {
        self.ctl.as_ref().is_some_and(|c| c.measurement().is_some())
    }

    /// Replays the log into the controller and sends `Hello`. A log that cannot be replayed
    /// halts the device (it answers `Error`) rather than deciding from a wrong state.
    pub fn boot(&mut self) -> Result<(), AppError> {
        log!(
            self,
            "costbo controller: experiment {} (config {:08x}), {} variables, {} control sets, budget {}",
            self.spec.name,
            self.config_id,
            D,
            M,
            Short(self.spec.budget as f32)
        );
        let mut replayed = 0u32;
        let mut failure = None;
        let causal = CAUSAL_DOSING && self.spec.causal.is_some();
        for record in self.log.records() {
            let result = match record {
                Ok(r) if causal => replay_causal(self.spec, self.causal.as_mut(), &r).map_err(Ok),
                // Fields, not `rule()`: the journal is borrowed.
                Ok(r) => match self.ctl.as_mut().filter(|_| DOSING_RULE) {
                    Some(ctl) => replay_into(ctl, &r).map_err(|e| Ok(ReplayFailure::Driver(e))),
                    None => Err(Ok(ReplayFailure::NotCausal)),
                },
                Err(e) => Err(Err(e)),
            };
            if let Err(e) = result {
                failure = Some(e);
                break;
            }
            replayed += 1;
        }
        self.replayed = replayed;
        if self.spec.causal.is_some() && self.causal.is_none() {
            log!(
                self,
                "this firmware has no causal controller for the experiment's contexts"
            );
            self.phase = Phase::Halted(ErrorCode::Controller);
            return self.hello();
        }
        if !COSTLY_MEASUREMENT && self.costly() {
            log!(
                self,
                "this firmware was built without the costly-measurement path"
            );
            self.phase = Phase::Halted(ErrorCode::Controller);
            return self.hello();
        }
        match failure {
            None => log!(
                self,
                "journal: replayed {} records, round {}, spent {}",
                replayed,
                self.round(),
                Short(self.spent())
            ),
            Some(Ok(e)) => {
                log!(
                    self,
                    "journal: record {} cannot be replayed: {:?}",
                    replayed,
                    e
                );
                self.phase = Phase::Halted(ErrorCode::Other(codes::REPLAY));
            }
            Some(Err(e)) => {
                log!(self, "journal: record {} cannot be read: {:?}", replayed, e);
                self.phase = Phase::Halted(ErrorCode::Storage);
            }
        }
        self.hello()
    }

    /// Reads the link until one message (or damaged frame) has been handled.
    pub fn poll(&mut self) -> Result<(), AppError> {
        loop {
            let mut byte = [0u8; 1];
            let n = self.link.read(&mut byte).map_err(|_| AppError::Link)?;
            if n == 0 {
                return Err(AppError::Link); // end of stream
            }
            match self.decoder.push::<HostMessage>(byte[0]) {
                None => continue,
                Some(Ok(msg)) => return self.handle(msg),
                Some(Err(e)) => {
                    log!(self, "link: dropped a damaged frame ({:?})", DebugLink(e));
                    return self.error(ErrorCode::BadFrame);
                }
            }
        }
    }

    /// [`boot`](Self::boot), then [`poll`](Self::poll) forever; returns only when the link
    /// fails.
    pub fn run(&mut self) -> AppError {
        if let Err(e) = self.boot() {
            return e;
        }
        loop {
            if let Err(e) = self.poll() {
                return e;
            }
        }
    }

    /// Handles one message from the host.
    pub fn handle(&mut self, msg: HostMessage) -> Result<(), AppError> {
        let round = self.round();
        match (msg, self.phase) {
            (HostMessage::Ping, _) => self.hello(),
            (_, Phase::Halted(code)) => self.error(code),
            (HostMessage::Stop, _) => self.finish(),
            (HostMessage::Start, Phase::Idle) => self.decide(),
            // Asked again: the same arm and contexts.
            (HostMessage::Start, Phase::Contexts(arm)) if CAUSAL_DOSING => self.ask_contexts(arm),
            // Asked again: the same decision, without dosing again.
            (
                HostMessage::Start,
                Phase::Dosed(d) | Phase::Measured(d, _) | Phase::Skipping(d, _),
            ) => self.send_decision(&d),
            (HostMessage::Start, Phase::Finished) => self.finish(),
            (HostMessage::Contexts { round: r, .. }, Phase::Contexts(_)) if r != round => {
                self.error(ErrorCode::WrongRound)
            }
            (HostMessage::Contexts { values, .. }, Phase::Contexts(arm)) if CAUSAL_DOSING => {
                self.causal_decide(arm, &values)
            }
            (HostMessage::Measurement { round: r, .. }, Phase::Dosed(_))
            | (HostMessage::Outcome { round: r, .. }, Phase::Measured(..) | Phase::Skipping(..))
            | (HostMessage::Skipped { round: r, .. }, Phase::Measured(..) | Phase::Skipping(..))
                if r != round =>
            {
                self.error(ErrorCode::WrongRound)
            }
            (HostMessage::Measurement { values, .. }, Phase::Dosed(d)) => self.measure(&d, &values),
            (HostMessage::Outcome { y, cost, .. }, Phase::Measured(d, x)) => {
                self.outcome(&d, &x, y, cost)
            }
            (HostMessage::Outcome { .. }, Phase::Skipping(..)) => {
                self.error(ErrorCode::NotMeasured)
            }
            (HostMessage::Skipped { .. }, Phase::Measured(..)) => {
                self.error(ErrorCode::MeasurementDue)
            }
            (HostMessage::Skipped { cost, .. }, Phase::Skipping(d, x)) => {
                self.skipped(&d, &x, cost)
            }
            _ => self.error(ErrorCode::Unexpected),
        }
    }

    /// Decides the current round, sends it and doses; `Done` if the budget is spent. In a
    /// contextual causal experiment: chooses the arm and asks for its contexts.
    fn decide(&mut self) -> Result<(), AppError> {
        if CAUSAL_DOSING && self.causal.is_some() {
            return self.causal_arm();
        }
        let d = match self.rule().map(|c| c.suggest()) {
            None => return self.error(ErrorCode::Controller),
            Some(Ok(d)) => d,
            Some(Err(DriverError::BudgetExhausted)) => return self.finish(),
            Some(Err(e)) => {
                log!(self, "round {}: no decision: {:?}", self.round(), e);
                return self.error(ErrorCode::Controller);
            }
        };
        self.send_decision(&d)?;
        log!(
            self,
            "round {}: control set {} (cost {}), score {}",
            self.round(),
            d.set,
            Short(self.ctl.as_ref().map_or(f32::NAN, |c| {
                c.problem()
                    .decision_cost(d.set, &d.values)
                    .unwrap_or(f32::NAN)
            })),
            Short(d.score)
        );
        self.dose(d)
    }

    /// Doses a decision's controlled variables, one pump after the other; then waits for the
    /// `Measurement`.
    fn dose(&mut self, d: Decision<f32, D>) -> Result<(), AppError> {
        let round = self.round();
        for (l, v) in self.spec.variables.iter().enumerate() {
            let Some(value) = d.values[l] else { continue };
            let Some(pump) = v.pump else {
                // Validated at build time: every dosed variable has a pump.
                return self.halt(ErrorCode::Other(codes::PUMP));
            };
            match self.pumps.dose(&pump, value, v.lower as f32) {
                Ok(dose) => log!(
                    self,
                    "round {}: dose {} = {} {}: pump {} on {} ms{}",
                    round,
                    v.name,
                    Short(value),
                    v.unit,
                    pump.channel,
                    dose.on_ms,
                    if dose.clamped {
                        " (cut to max_on_ms)"
                    } else {
                        ""
                    }
                ),
                Err(e) => {
                    log!(
                        self,
                        "round {}: pump {} failed: {:?}",
                        round,
                        pump.channel,
                        e
                    );
                    let _ = self.pumps.all_off();
                    return self.halt(ErrorCode::Other(codes::PUMP));
                }
            }
        }
        self.phase = Phase::Dosed(d);
        Ok(())
    }

    /// Contextual causal experiment: chooses this round's arm and asks for its contexts;
    /// `Done` when the budget cannot pay the arm's control set.
    fn causal_arm(&mut self) -> Result<(), AppError> {
        let round = self.round();
        let spec = self.spec;
        let Some(run) = self.causal.as_mut() else {
            return self.error(ErrorCode::Controller);
        };
        let choice = match run.ctl.next_arm() {
            Ok(c) => c,
            Err(e) => {
                log!(self, "round {}: no arm: {:?}", round, e);
                return self.error(ErrorCode::Controller);
            }
        };
        let arm = choice.arm;
        let cost = spec.arm_set(arm).and_then(|s| spec.cost::<f32>(s));
        // The controller's ledger, built with the experiment's budget.
        let affordable = cost.is_some_and(|c| run.ctl.affords(c));
        if !affordable {
            // Nothing was measured or dosed: the round is dropped, the experiment ends.
            let _ = run.ctl.abandon();
            return self.finish();
        }
        log!(
            self,
            "round {}: arm {} ({:?}, index {}), control set {} (cost {})",
            round,
            arm,
            choice.reason,
            Short(choice.index),
            spec.arm_set(arm).unwrap_or(0),
            Short(cost.unwrap_or(f32::NAN))
        );
        // At most 255 arms (validated): the index fits the link's byte.
        self.ask_contexts(arm as u8)
    }

    /// Sends `MeasureContexts` for arm `arm` and waits for the contexts.
    fn ask_contexts(&mut self, arm: u8) -> Result<(), AppError> {
        let round = self.round();
        let wanted = self.spec.arm_contexts(usize::from(arm)).unwrap_or(0);
        // The link's mask has 32 bits, and a device at most MAX_VARS (16) variables.
        let contexts = (0..D)
            .filter(|l| wanted & (1 << l) != 0)
            .fold(0u32, |m, l| m | 1 << l);
        self.phase = Phase::Contexts(arm);
        self.send(&DeviceMessage::MeasureContexts {
            round,
            arm,
            contexts,
        })
    }

    /// Contextual causal experiment: takes the host's context readings, reads the arm's
    /// context sensors, chooses the action with the contexts held, sends the `Decision` and
    /// doses.
    fn causal_decide(&mut self, arm: u8, values: &Values) -> Result<(), AppError> {
        let round = self.round();
        let spec = self.spec;
        let wanted = spec.arm_contexts(usize::from(arm)).unwrap_or(0);
        let v = values.as_slice();
        let asked = |l: usize| wanted & (1 << l) != 0;
        if v.len() != D || (0..D).any(|l| asked(l) && !v[l].is_finite()) {
            return self.error(ErrorCode::InvalidMeasurement);
        }
        self.sensors.bus().feed(spec, v);
        let mut physical = [f32::NAN; D];
        let mut unit = [f32::NAN; D];
        for (l, var) in spec.variables.iter().enumerate() {
            if !asked(l) {
                continue;
            }
            let reading = match self.sensors.read(spec, l) {
                Ok(r) => r,
                Err(e) => {
                    log!(self, "round {}: sensor {} failed: {:?}", round, var.name, e);
                    return self.error(ErrorCode::Other(codes::SENSOR));
                }
            };
            physical[l] = reading;
            unit[l] = spec.to_unit(l, reading);
            log!(
                self,
                "round {}: context {} = {} {}",
                round,
                var.name,
                Short(reading),
                var.unit
            );
        }
        let Some(run) = self.causal.as_mut() else {
            return self.error(ErrorCode::Controller);
        };
        let ask = match run.ctl.ask(&unit) {
            Ok(a) => a,
            Err(e) => {
                log!(self, "round {}: no action: {:?}", round, e);
                return self.error(match e {
                    CausalError::ContextMissing { .. } | CausalError::ContextOutOfBounds { .. } => {
                        ErrorCode::InvalidMeasurement
                    }
                    _ => ErrorCode::Controller,
                });
            }
        };
        run.contexts = physical;
        let Some(d) = causal_decision(spec, run.ctl.table(), &ask) else {
            return self.halt(ErrorCode::Controller);
        };
        self.send_decision(&d)?;
        log!(
            self,
            "round {}: arm {} doses control set {}, ucb {}",
            round,
            arm,
            d.set,
            Short(d.score)
        );
        self.dose(d)
    }

    /// Contextual causal experiment: tells the outcome, journals the round, acknowledges it
    /// and chooses the next arm.
    fn causal_outcome(&mut self, d: &Decision<f32, D>, y: f32, cost: f32) -> Result<(), AppError> {
        let round = self.round();
        let Some(run) = self.causal.as_mut() else {
            return self.error(ErrorCode::Controller);
        };
        let Some(arm) = run.ctl.open().map(|a| a.choice.arm) else {
            return self.error(ErrorCode::Unexpected);
        };
        if let Err(e) = run.ctl.tell_paid(y, cost) {
            log!(self, "round {}: outcome refused: {:?}", round, e);
            return self.error(match e {
                CausalError::NonFiniteOutcome | CausalError::InvalidCost => {
                    ErrorCode::InvalidOutcome
                }
                _ => ErrorCode::Controller,
            });
        }
        let mut point = run.contexts;
        for (l, v) in d.values.iter().enumerate() {
            if let Some(v) = v {
                point[l] = *v;
            }
        }
        let record = Record::causal(arm as u8, &point, y, cost);
        self.journal_round(round, record)?;
        if matches!(self.phase, Phase::Halted(_)) {
            return Ok(());
        }
        log!(
            self,
            "round {}: outcome {}, cost {}, spent {} of {}",
            round,
            Short(y),
            Short(cost),
            Short(self.spent()),
            Short(self.spec.budget as f32)
        );
        self.send(&DeviceMessage::Ack { round })?;
        self.phase = Phase::Idle;
        self.decide()
    }

    /// Handles the host's readings: feeds them to the sensor bus, reads every sensor, waits
    /// the growth period.
    fn measure(&mut self, d: &Decision<f32, D>, values: &Values) -> Result<(), AppError> {
        let v = values.as_slice();
        if v.len() != D || v.iter().any(|x| !x.is_finite()) {
            return self.error(ErrorCode::InvalidMeasurement);
        }
        self.sensors.bus().feed(self.spec, v);
        let round = self.round();
        let mut x = [0.0f32; D];
        for (l, var) in self.spec.variables.iter().enumerate() {
            let reading = match self.sensors.read(self.spec, l) {
                Ok(r) => r,
                Err(e) => {
                    log!(self, "round {}: sensor {} failed: {:?}", round, var.name, e);
                    return self.error(ErrorCode::Other(codes::SENSOR));
                }
            };
            x[l] = match d.values[l] {
                Some(dosed) => {
                    let range = (var.upper - var.lower) as f32;
                    let tol =
                        DOSE_TOLERANCE * range + 2.0 * var.sensor.map_or(0.0, |s| s.scale as f32);
                    if (reading - dosed).abs() > tol {
                        log!(
                            self,
                            "round {}: {} reads {} but {} was dosed",
                            round,
                            var.name,
                            Short(reading),
                            Short(dosed)
                        );
                        return self.error(ErrorCode::InvalidMeasurement);
                    }
                    dosed
                }
                None => reading,
            };
            log!(
                self,
                "round {}: measured {} = {} {}",
                round,
                var.name,
                Short(reading),
                var.unit
            );
        }
        if COSTLY_MEASUREMENT && self.costly() {
            let answer = match self.rule().map(|c| c.query(&x)) {
                None => return self.error(ErrorCode::Controller),
                Some(Ok(a)) => a,
                Some(Err(e)) => {
                    log!(self, "round {}: no measurement answer: {:?}", round, e);
                    return self.error(match e {
                        DriverError::NonFinite
                        | DriverError::OutOfBounds(_)
                        | DriverError::InconsistentWithDecision(_) => ErrorCode::InvalidMeasurement,
                        _ => ErrorCode::Controller,
                    });
                }
            };
            self.send(&DeviceMessage::Query {
                round,
                measure: answer.pay,
                min_probability: answer.min_probability,
            })?;
            if !answer.pay {
                // The growth is not measured this round: no growth measurement at all.
                log!(
                    self,
                    "round {}: growth measurement skipped (min p {})",
                    round,
                    Short(answer.min_probability)
                );
                self.phase = Phase::Skipping(*d, x);
                return Ok(());
            }
            log!(
                self,
                "round {}: growth measurement paid (min p {})",
                round,
                Short(answer.min_probability)
            );
        }
        log!(
            self,
            "round {}: growing for {} ms",
            round,
            self.spec.growth_period_ms
        );
        self.pumps.delay().delay_ms(self.spec.growth_period_ms);
        self.phase = Phase::Measured(*d, x);
        Ok(())
    }

    /// Records a round whose growth was not measured (costly measurement, told to skip),
    /// journals it, acknowledges it and decides the next one.
    fn skipped(&mut self, d: &Decision<f32, D>, x: &[f32; D], cost: f32) -> Result<(), AppError> {
        let round = self.round();
        if !cost.is_finite() || cost <= 0.0 {
            return self.error(ErrorCode::InvalidOutcome);
        }
        let memo = match self.rule().map(|c| c.skip(x, cost).map(|()| c.memo())) {
            None => return self.error(ErrorCode::Controller),
            Some(Ok(memo)) => memo,
            Some(Err(e)) => {
                log!(self, "round {}: skip refused: {:?}", round, e);
                return self.error(match e {
                    DriverError::InvalidCost => ErrorCode::InvalidOutcome,
                    DriverError::MeasurementDue => ErrorCode::MeasurementDue,
                    _ => ErrorCode::Controller,
                });
            }
        };
        let record = Record::of_skipped_round(d.set, x, cost, &memo);
        self.journal_round(round, record)?;
        if matches!(self.phase, Phase::Halted(_)) {
            return Ok(());
        }
        log!(
            self,
            "round {}: skipped, cost {}, spent {} of {}",
            round,
            Short(cost),
            Short(self.spent()),
            Short(self.spec.budget as f32)
        );
        self.send(&DeviceMessage::Ack { round })?;
        self.phase = Phase::Idle;
        self.decide()
    }

    /// Appends a round's record; on failure halts the device (its controller is then ahead of
    /// what a power cut would keep) and sends the error.
    fn journal_round(&mut self, round: u32, record: Option<Record>) -> Result<(), AppError> {
        let appended = match record {
            Some(r) => self.log.append(&r).map(|_| ()),
            None => Err(JournalError::Shape),
        };
        if let Err(e) = appended {
            log!(self, "round {}: journal append failed: {:?}", round, e);
            let code = if e == JournalError::Full {
                ErrorCode::JournalFull
            } else {
                ErrorCode::Storage
            };
            return self.halt(code);
        }
        Ok(())
    }

    /// Observes the round, journals it, acknowledges it and decides the next one.
    fn outcome(
        &mut self,
        d: &Decision<f32, D>,
        x: &[f32; D],
        y: f32,
        cost: f32,
    ) -> Result<(), AppError> {
        let round = self.round();
        if !y.is_finite() || !cost.is_finite() || cost <= 0.0 {
            return self.error(ErrorCode::InvalidOutcome);
        }
        if CAUSAL_DOSING && self.causal.is_some() {
            return self.causal_outcome(d, y, cost);
        }
        let memo = match self
            .rule()
            .map(|c| c.observe(x, y, cost).map(|()| c.memo()))
        {
            None => return self.error(ErrorCode::Controller),
            Some(Ok(memo)) => memo,
            Some(Err(e)) => {
                log!(self, "round {}: observation refused: {:?}", round, e);
                return self.error(match e {
                    DriverError::NonFinite | DriverError::InvalidCost => ErrorCode::InvalidOutcome,
                    DriverError::OutOfBounds(_) | DriverError::InconsistentWithDecision(_) => {
                        ErrorCode::InvalidMeasurement
                    }
                    DriverError::MeasurementSkipped => ErrorCode::NotMeasured,
                    _ => ErrorCode::Controller,
                });
            }
        };
        let record = Record::of_round(d.set, x, y, cost, &memo);
        // The controller is ahead of the journal if this fails: the device halts rather than
        // decide from a state a power cut would lose.
        self.journal_round(round, record)?;
        if matches!(self.phase, Phase::Halted(_)) {
            return Ok(());
        }
        log!(
            self,
            "round {}: outcome {}, cost {}, spent {} of {}",
            round,
            Short(y),
            Short(cost),
            Short(self.spent()),
            Short(self.spec.budget as f32)
        );
        self.send(&DeviceMessage::Ack { round })?;
        self.phase = Phase::Idle;
        self.decide()
    }

    /// Sends `Done` with the recommendation and ends the experiment.
    fn finish(&mut self) -> Result<(), AppError> {
        let round = self.round();
        let spent = self.spent();
        if CAUSAL_DOSING {
            if let Some(run) = &self.causal {
                let msg = causal_done(self.spec, run, round);
                log!(self, "done after {} rounds, spent {}", round, Short(spent));
                self.phase = Phase::Finished;
                return self.send(&msg);
            }
        }
        let msg = match self.rule().map(|c| c.recommend()) {
            Some(Ok(r)) => DeviceMessage::Done {
                round,
                spent,
                set: r.set as u8,
                values: values_from_options(&r.values).unwrap_or_default(),
                score: r.score,
            },
            // No observation yet (or no rule): nothing to recommend.
            _ => DeviceMessage::Done {
                round,
                spent,
                set: 0,
                values: Values::from_slice(&[f32::NAN; D][..D.min(MAX_VARS)]).unwrap_or_default(),
                score: f32::NAN,
            },
        };
        log!(self, "done after {} rounds, spent {}", round, Short(spent));
        self.phase = Phase::Finished;
        self.send(&msg)
    }

    fn send_decision(&mut self, d: &Decision<f32, D>) -> Result<(), AppError> {
        let msg = DeviceMessage::Decision {
            round: self.round(),
            set: d.set as u8,
            values: values_from_options(&d.values).unwrap_or_default(),
            score: d.score,
        };
        self.send(&msg)
    }

    fn hello(&mut self) -> Result<(), AppError> {
        let msg = DeviceMessage::Hello {
            version: VERSION,
            config: self.config_id,
            round: self.round(),
            spent: self.spent(),
            budget: self.spec.budget as f32,
        };
        self.send(&msg)
    }

    fn error(&mut self, code: ErrorCode) -> Result<(), AppError> {
        let round = self.round();
        self.send(&DeviceMessage::Error { code, round })
    }

    fn halt(&mut self, code: ErrorCode) -> Result<(), AppError> {
        self.phase = Phase::Halted(code);
        self.error(code)
    }

    fn send(&mut self, msg: &DeviceMessage) -> Result<(), AppError> {
        let mut frame = [0u8; MAX_FRAME];
        // Every message of this application fits MAX_PAYLOAD (D <= MAX_VARS).
        let n = encode(msg, &mut frame).map_err(|_| AppError::Link)?;
        self.link
            .write_all(&frame[..n])
            .map_err(|_| AppError::Link)?;
        self.link.flush().map_err(|_| AppError::Link)
    }

    /// The current round (rounds played so far: observed, or skipped under a costly
    /// measurement).
    pub fn round(&self) -> u32 {
        match &self.causal {
            Some(run) if CAUSAL_DOSING => run.ctl.rounds(),
            _ => self.ctl.as_ref().map_or(0, |c| c.rounds() as u32),
        }
    }

    /// Budget spent.
    pub fn spent(&self) -> f32 {
        match &self.causal {
            Some(run) if CAUSAL_DOSING => run.ctl.spent(),
            _ => self.ctl.as_ref().map_or(0.0, |c| c.spent()),
        }
    }

    /// The causal controller of a contextual causal experiment.
    pub fn causal_controller(&self) -> Option<&CausalCtl<'a>> {
        self.causal.as_ref().map(|r| &*r.ctl)
    }

    /// Where the application stands.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Records replayed from the journal at boot.
    pub fn replayed(&self) -> u32 {
        self.replayed
    }

    /// The dosing rule's controller (`None` in an application built with [`App::causal`]).
    pub fn controller(&self) -> Option<&Ctl<'a>> {
        self.ctl.as_ref()
    }

    /// The pumps.
    pub fn pumps(&self) -> &Pumps<P, Dl, D> {
        &self.pumps
    }

    /// The sensors.
    pub fn sensors(&mut self) -> &mut Sensors<I> {
        &mut self.sensors
    }

    /// The link.
    pub fn link(&mut self) -> &mut L {
        &mut self.link
    }

    /// The journal.
    pub fn journal(&mut self) -> &mut Journal<F> {
        &mut self.log
    }
}

/// The `Decision` of a causal round: the arm's control set, each action's dose (its unit
/// coordinate in physical units), the UCB value as the score. `None` for an arm without a
/// control set (not in a validated spec).
fn causal_decision(
    spec: &Spec<'_>,
    table: &ArmTable<f32, ARMS, D>,
    ask: &CausalAsk<f32, D>,
) -> Option<Decision<f32, D>> {
    let arm = ask.choice.arm;
    let set = spec.arm_set(arm)?;
    let mask = spec.sets.get(set)?.mask;
    let mut values = [None; D];
    let actions = table.get(arm)?.actions();
    for (k, &l) in actions.iter().enumerate() {
        *values.get_mut(l)? = Some(spec.from_unit(l, ask.input[k]));
    }
    Some(Decision {
        set,
        control: ControlSet(mask),
        values,
        score: ask.ucb,
        measure: true,
    })
}

/// `Done` of a causal experiment: the arm with the best average outcome (the first on ties),
/// its control set, no doses (they depend on the contexts), its average outcome as the score.
fn causal_done(spec: &Spec<'_>, run: &CausalRun<'_>, round: u32) -> DeviceMessage {
    let mut best: Option<(usize, f32)> = None;
    for arm in 0..run.ctl.table().len() {
        if run.ctl.plays(arm) == 0 {
            continue;
        }
        let m = run.ctl.mean_outcome(arm).unwrap_or(f32::NAN);
        if best.is_none_or(|(_, b)| m > b) {
            best = Some((arm, m));
        }
    }
    let (set, score) = match best {
        Some((arm, m)) => (spec.arm_set(arm).unwrap_or(0), m),
        None => (0, f32::NAN),
    };
    DeviceMessage::Done {
        round,
        spent: run.ctl.spent(),
        set: set as u8,
        values: Values::from_slice(&[f32::NAN; D][..D.min(MAX_VARS)]).unwrap_or_default(),
        score,
    }
}

/// Replays a causal record through the controller's own replay
/// ([`CausalController::replay`](costbo_core::causal::CausalController::replay)): the arm
/// and the action decided again from the recorded contexts, the doses compared bit for bit in
/// physical units, the recorded outcome told and its cost charged.
fn replay_causal(
    spec: &Spec<'_>,
    run: Option<&mut CausalRun<'_>>,
    record: &Record,
) -> Result<(), ReplayFailure> {
    let run = match run {
        Some(r) if CAUSAL_DOSING && record.is_causal() => r,
        _ => return Err(ReplayFailure::NotCausal),
    };
    let x = record.x();
    if x.len() != D {
        return Err(ReplayFailure::NotCausal);
    }
    let arm = usize::from(record.set);
    let wanted = spec.arm_contexts(arm).unwrap_or(0);
    let mut unit = [f32::NAN; D];
    for (l, u) in unit.iter_mut().enumerate() {
        if wanted & (1 << l) != 0 {
            *u = spec.to_unit(l, x[l]);
        }
    }
    run.ctl
        .replay(arm, &unit, record.y, record.cost, |table, ask| {
            let d = causal_decision(spec, table, ask).ok_or(CausalReplayError::NoDecision)?;
            for (l, v) in d.values.iter().enumerate() {
                if v.is_some_and(|v| v.to_bits() != x[l].to_bits()) {
                    return Err(CausalReplayError::Action { variable: l });
                }
            }
            Ok(())
        })
        .map_err(ReplayFailure::Causal)
}

/// One log line formatted with `core::fmt` (for defmt, which logs it as a string; longer
/// lines are cut at a character boundary).
#[derive(Debug, Default)]
pub struct Line(heapless::String<160>);

impl Line {
    /// An empty line.
    pub const fn new() -> Self {
        Line(heapless::String::new())
    }

    /// The text so far.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl core::fmt::Write for Line {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        for ch in s.chars() {
            // Full: the rest of the line is cut, and the log goes on.
            if self.0.push(ch).is_err() {
                break;
            }
        }
        Ok(())
    }
}

/// An `f32` for the log, written by `ryu` in its shortest round-trip form (`3.0`, `0.1`,
/// `1e-5`, `NaN`). `core`'s float formatting (Grisu with a Dragon fallback, exact and
/// exponential forms, their power-of-ten tables) is about 20 KB of flash, a seventh of the
/// controller; ryu's `f32` path is a few KB.
pub struct Short(pub f32);

impl core::fmt::Display for Short {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(ryu::Buffer::new().format(self.0))
    }
}

/// `LinkError` for the log line.
struct DebugLink(LinkError);

impl core::fmt::Debug for DebugLink {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(&self.0, f)
    }
}
