//! Nutrient sensors on an I2C bus, one device per variable.
//!
//! # Register map (every sensor)
//!
//! | register | name       | access | content |
//! |---------:|------------|--------|---------|
//! | `0x00`   | `VALUE`    | read 2 | latest reading, 16-bit unsigned, big-endian (raw counts) |
//! | `0x0F`   | `WHO_AM_I` | read 1 | [`WHO_AM_I_VALUE`] (`0xC5`) |
//!
//! A read is one write-then-read transaction: write the register address (one byte), repeated
//! start, read the bytes. The raw value becomes physical units through the variable's sensor
//! calibration, `physical = offset + scale · raw`, clamped to the variable's bounds
//! ([`Spec::measured`]).

use costbo_experiment::Spec;
use embedded_hal::i2c::I2c;

/// Register holding the latest reading (2 bytes, big-endian).
pub const REG_VALUE: u8 = 0x00;
/// Register holding the identification byte.
pub const REG_WHO_AM_I: u8 = 0x0F;
/// What `WHO_AM_I` reads on a nutrient sensor.
pub const WHO_AM_I_VALUE: u8 = 0xC5;

/// Why a sensor could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SensorError<E> {
    /// The bus transaction failed (no acknowledge, arbitration loss, ...).
    Bus(E),
    /// The device at `address` is not a nutrient sensor (it answered `id` to `WHO_AM_I`).
    WrongDevice {
        /// 7-bit address.
        address: u8,
        /// The identification byte read.
        id: u8,
    },
    /// The experiment has no variable `.0`.
    NoSuchVariable(usize),
    /// Variable `.0` has no sensor (the firmware's build refuses such a file; a spec built
    /// otherwise may have one).
    NoSensor(usize),
}

/// The sensors on one I2C bus.
#[derive(Debug)]
pub struct Sensors<I> {
    bus: I,
}

impl<I: I2c> Sensors<I> {
    /// Takes the bus.
    pub fn new(bus: I) -> Self {
        Sensors { bus }
    }

    /// Checks that the device at `address` answers `WHO_AM_I` with [`WHO_AM_I_VALUE`].
    pub fn identify(&mut self, address: u8) -> Result<(), SensorError<I::Error>> {
        let mut id = [0u8; 1];
        self.bus
            .write_read(address, &[REG_WHO_AM_I], &mut id)
            .map_err(SensorError::Bus)?;
        if id[0] == WHO_AM_I_VALUE {
            Ok(())
        } else {
            Err(SensorError::WrongDevice { address, id: id[0] })
        }
    }

    /// Checks every sensor of the experiment.
    pub fn identify_all(&mut self, spec: &Spec<'_>) -> Result<(), SensorError<I::Error>> {
        for (l, v) in spec.variables.iter().enumerate() {
            self.identify(v.sensor.ok_or(SensorError::NoSensor(l))?.address)?;
        }
        Ok(())
    }

    /// The raw 16-bit reading of the device at `address`.
    pub fn read_raw(&mut self, address: u8) -> Result<u16, SensorError<I::Error>> {
        let mut b = [0u8; 2];
        self.bus
            .write_read(address, &[REG_VALUE], &mut b)
            .map_err(SensorError::Bus)?;
        Ok(u16::from_be_bytes(b))
    }

    /// Variable `l`'s reading in physical units, clamped to its bounds.
    pub fn read(&mut self, spec: &Spec<'_>, l: usize) -> Result<f32, SensorError<I::Error>> {
        let v = spec
            .variables
            .get(l)
            .ok_or(SensorError::NoSuchVariable(l))?;
        let raw = self.read_raw(v.sensor.ok_or(SensorError::NoSensor(l))?.address)?;
        spec.measured(l, raw).ok_or(SensorError::NoSuchVariable(l))
    }

    /// The bus.
    pub fn bus(&mut self) -> &mut I {
        &mut self.bus
    }

    /// Gives back the bus.
    pub fn release(self) -> I {
        self.bus
    }
}
