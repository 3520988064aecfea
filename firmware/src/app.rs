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
//! Every message out of place is answered with `Error` and changes nothing; `Ping` is answered
//! with `Hello` at any time. Nothing the link sends can make the application panic.

use costbo_core::driver::{Decision, DriverError};
use costbo_core::link::{
    encode, values_from_options, DeviceMessage, ErrorCode, FrameDecoder, HostMessage, LinkError,
    Values, DECODER_CAPACITY, MAX_FRAME, MAX_VARS, VERSION,
};
use costbo_experiment::Spec;
use embedded_hal::delay::DelayNs;
use embedded_hal::digital::OutputPin;
use embedded_hal::i2c::I2c;

use costbo_core::journal::{replay_into, Journal, JournalError, Record};
use embedded_storage::nor_flash::NorFlash;

use crate::drivers::pumps::Pumps;
use crate::drivers::sensor::Sensors;
use crate::experiment::{Ctl, D, M};

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
    /// The experiment is over (`Done` sent).
    Finished,
    /// The device cannot go on (a pump, the journal or the replay failed); it answers `Error`.
    Halted(ErrorCode),
}

/// The controller application (see the module documentation).
pub struct App<'a, P, Dl, I, L, F, W> {
    spec: &'a Spec<'a>,
    config_id: u32,
    ctl: Ctl<'a>,
    pumps: Pumps<P, Dl, D>,
    sensors: Sensors<I>,
    link: L,
    log: Journal<F>,
    out: W,
    decoder: FrameDecoder<DECODER_CAPACITY>,
    phase: Phase,
    /// Records replayed from the journal at boot.
    replayed: u32,
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
        }
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
        for record in self.log.records() {
            let result = match record {
                Ok(r) => replay_into(&mut self.ctl, &r).map_err(Ok),
                Err(e) => Err(Err(e)),
            };
            if let Err(e) = result {
                failure = Some(e);
                break;
            }
            replayed += 1;
        }
        self.replayed = replayed;
        if !COSTLY_MEASUREMENT && self.ctl.measurement().is_some() {
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
                Short(self.ctl.spent())
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
            // Asked again: the same decision, without dosing again.
            (
                HostMessage::Start,
                Phase::Dosed(d) | Phase::Measured(d, _) | Phase::Skipping(d, _),
            ) => self.send_decision(&d),
            (HostMessage::Start, Phase::Finished) => self.finish(),
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

    /// Decides the current round, sends it and doses; `Done` if the budget is spent.
    fn decide(&mut self) -> Result<(), AppError> {
        let d = match self.ctl.suggest() {
            Ok(d) => d,
            Err(DriverError::BudgetExhausted) => return self.finish(),
            Err(e) => {
                log!(self, "round {}: no decision: {:?}", self.round(), e);
                return self.error(ErrorCode::Controller);
            }
        };
        self.send_decision(&d)?;
        let round = self.round();
        log!(
            self,
            "round {}: control set {} (cost {}), score {}",
            round,
            d.set,
            Short(self.spec.cost::<f32>(d.set).unwrap_or(f32::NAN)),
            Short(d.score)
        );
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
                    let tol = DOSE_TOLERANCE * range + 2.0 * var.sensor.scale as f32;
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
        if COSTLY_MEASUREMENT && self.ctl.measurement().is_some() {
            let answer = match self.ctl.query(&x) {
                Ok(a) => a,
                Err(e) => {
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
        if let Err(e) = self.ctl.skip(x, cost) {
            log!(self, "round {}: skip refused: {:?}", round, e);
            return self.error(match e {
                DriverError::InvalidCost => ErrorCode::InvalidOutcome,
                DriverError::MeasurementDue => ErrorCode::MeasurementDue,
                _ => ErrorCode::Controller,
            });
        }
        let record = Record::of_skipped_round(d.set, x, cost, &self.ctl.memo());
        self.journal_round(round, record)?;
        if matches!(self.phase, Phase::Halted(_)) {
            return Ok(());
        }
        log!(
            self,
            "round {}: skipped, cost {}, spent {} of {}",
            round,
            Short(cost),
            Short(self.ctl.spent()),
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
        if let Err(e) = self.ctl.observe(x, y, cost) {
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
        let record = Record::of_round(d.set, x, y, cost, &self.ctl.memo());
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
            Short(self.ctl.spent()),
            Short(self.spec.budget as f32)
        );
        self.send(&DeviceMessage::Ack { round })?;
        self.phase = Phase::Idle;
        self.decide()
    }

    /// Sends `Done` with the recommendation and ends the experiment.
    fn finish(&mut self) -> Result<(), AppError> {
        let round = self.round();
        let spent = self.ctl.spent();
        let msg = match self.ctl.recommend() {
            Ok(r) => DeviceMessage::Done {
                round,
                spent,
                set: r.set as u8,
                values: values_from_options(&r.values).unwrap_or_default(),
                score: r.score,
            },
            // No observation yet: nothing to recommend.
            Err(_) => DeviceMessage::Done {
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
            spent: self.ctl.spent(),
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
        self.ctl.rounds() as u32
    }

    /// Where the application stands.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Records replayed from the journal at boot.
    pub fn replayed(&self) -> u32 {
        self.replayed
    }

    /// The controller.
    pub fn controller(&self) -> &Ctl<'a> {
        &self.ctl
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
