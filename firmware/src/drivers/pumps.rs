//! Dosing pumps: one digital output per pump (high = running), timed with a `DelayNs`.
//!
//! A dose is turned into an on-time by the pump's calibration
//! ([`PumpSpec::on_time_ms`]): the tray starts from fresh medium at the variable's lower
//! bound and every ml of stock raises the variable by `concentration` units, at `ml_per_s`.
//! On-times above the calibration's `max_on_ms` are cut to it (reported in [`Dose::clamped`]).
//! Pumps run one after the other, never two at once.

use costbo_experiment::{Dose, DoseError, PumpSpec};
use embedded_hal::delay::DelayNs;
use embedded_hal::digital::OutputPin;

/// Why a pump could not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PumpError<E> {
    /// The output pin failed (the pump may be in an unknown state).
    Pin(E),
    /// No pump is wired to this channel.
    NoSuchChannel(u8),
    /// The dose cannot be turned into an on-time.
    Dose(DoseError),
}

/// `K` pumps on pins of type `P`, timed by `Dl`.
#[derive(Debug)]
pub struct Pumps<P, Dl, const K: usize> {
    pins: [P; K],
    delay: Dl,
}

impl<P: OutputPin, Dl: DelayNs, const K: usize> Pumps<P, Dl, K> {
    /// Takes the pins (channel `c` is `pins[c]`) and the delay, and switches every pump off.
    pub fn new(pins: [P; K], delay: Dl) -> Result<Self, PumpError<P::Error>> {
        let mut pumps = Pumps { pins, delay };
        pumps.all_off()?;
        Ok(pumps)
    }

    /// Switches every pump off (tries all of them; returns the first error).
    pub fn all_off(&mut self) -> Result<(), PumpError<P::Error>> {
        let mut result = Ok(());
        for pin in self.pins.iter_mut() {
            if let Err(e) = pin.set_low() {
                result = result.and(Err(PumpError::Pin(e)));
            }
        }
        result
    }

    /// Runs the pump on `channel` for `on_ms` milliseconds (nothing for 0).
    pub fn run(&mut self, channel: u8, on_ms: u32) -> Result<(), PumpError<P::Error>> {
        let pin = self
            .pins
            .get_mut(usize::from(channel))
            .ok_or(PumpError::NoSuchChannel(channel))?;
        if on_ms == 0 {
            return Ok(());
        }
        if let Err(e) = pin.set_high() {
            // Make sure it is off before reporting.
            let _ = pin.set_low();
            return Err(PumpError::Pin(e));
        }
        self.delay.delay_ms(on_ms);
        pin.set_low().map_err(PumpError::Pin)
    }

    /// Doses a variable to `value` (its lower bound `lower`) with `pump`'s calibration; returns
    /// the on-time used.
    pub fn dose(
        &mut self,
        pump: &PumpSpec,
        value: f32,
        lower: f32,
    ) -> Result<Dose, PumpError<P::Error>> {
        let dose = pump.on_time_ms(value, lower).map_err(PumpError::Dose)?;
        self.run(pump.channel, dose.on_ms)?;
        Ok(dose)
    }

    /// The delay (the controller also waits the growth period with it).
    pub fn delay(&mut self) -> &mut Dl {
        &mut self.delay
    }

    /// The pins, by channel.
    pub fn pins(&self) -> &[P; K] {
        &self.pins
    }

    /// Gives back the pins and the delay.
    pub fn release(self) -> ([P; K], Dl) {
        (self.pins, self.delay)
    }
}
