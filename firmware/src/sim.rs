//! Simulated peripherals for the QEMU board (and host tests): pumps on pins that record their
//! on-times against a simulated clock, a delay that advances that clock instead of waiting,
//! nutrient sensors on an I2C bus whose readings are the values the host sent, and NOR flash
//! kept in a file.
//!
//! Nothing here touches hardware: the QEMU controller wires these to the CMSDK UART and to
//! semihosting files, and the host tests use them as they are.

use core::cell::Cell;
use core::convert::Infallible;

use costbo_experiment::Spec;
use embedded_hal::delay::DelayNs;
use embedded_hal::digital::{ErrorType as PinErrorType, OutputPin};
use embedded_hal::i2c::{self, ErrorKind, I2c, NoAcknowledgeSource, Operation, SevenBitAddress};
use embedded_storage::nor_flash::{
    ErrorType as FlashErrorType, NorFlash, NorFlashError, NorFlashErrorKind, ReadNorFlash,
};

use crate::drivers::sensor::{REG_VALUE, REG_WHO_AM_I, WHO_AM_I_VALUE};

/// Simulated time, in nanoseconds since boot: advanced by [`SimDelay`], read by [`SimPin`].
#[derive(Debug, Default)]
pub struct SimClock(Cell<u64>);

impl SimClock {
    /// A clock at 0.
    pub const fn new() -> Self {
        SimClock(Cell::new(0))
    }

    /// Nanoseconds since boot.
    pub fn now_ns(&self) -> u64 {
        self.0.get()
    }

    /// Moves the clock forward.
    pub fn advance_ns(&self, ns: u64) {
        self.0.set(self.0.get().saturating_add(ns));
    }
}

/// A delay that advances a [`SimClock`] and returns at once (the growth period and pump
/// on-times take no real time in a simulation).
#[derive(Debug, Clone, Copy)]
pub struct SimDelay<'a> {
    clock: &'a SimClock,
}

impl<'a> SimDelay<'a> {
    /// A delay on `clock`.
    pub fn new(clock: &'a SimClock) -> Self {
        SimDelay { clock }
    }
}

impl DelayNs for SimDelay<'_> {
    fn delay_ns(&mut self, ns: u32) {
        self.clock.advance_ns(u64::from(ns));
    }

    fn delay_us(&mut self, us: u32) {
        self.clock.advance_ns(u64::from(us) * 1_000);
    }

    fn delay_ms(&mut self, ms: u32) {
        self.clock.advance_ns(u64::from(ms) * 1_000_000);
    }
}

/// A pump's output pin: records when it was switched on and for how long.
#[derive(Debug, Clone, Copy)]
pub struct SimPin<'a> {
    clock: &'a SimClock,
    high_since: Option<u64>,
    /// Length of the last completed on-period, ns.
    pub last_on_ns: u64,
    /// Sum of all completed on-periods, ns.
    pub total_on_ns: u64,
    /// Number of completed on-periods.
    pub activations: u32,
}

impl<'a> SimPin<'a> {
    /// A pin, low, on `clock`.
    pub fn new(clock: &'a SimClock) -> Self {
        SimPin {
            clock,
            high_since: None,
            last_on_ns: 0,
            total_on_ns: 0,
            activations: 0,
        }
    }

    /// True while the pin is high.
    pub fn is_high(&self) -> bool {
        self.high_since.is_some()
    }
}

impl PinErrorType for SimPin<'_> {
    type Error = Infallible;
}

impl OutputPin for SimPin<'_> {
    fn set_low(&mut self) -> Result<(), Infallible> {
        if let Some(t0) = self.high_since.take() {
            let on = self.clock.now_ns() - t0;
            self.last_on_ns = on;
            self.total_on_ns += on;
            self.activations += 1;
        }
        Ok(())
    }

    fn set_high(&mut self) -> Result<(), Infallible> {
        if self.high_since.is_none() {
            self.high_since = Some(self.clock.now_ns());
        }
        Ok(())
    }
}

/// Where a sensor bus gets the values it reports: the QEMU board feeds the host's
/// `Measurement` values into its simulated sensors; a real bus ignores them.
pub trait SensorFeed {
    /// Sets the readings of every variable (physical units, variable order) that the sensors
    /// report from now on.
    fn feed(&mut self, spec: &Spec<'_>, values: &[f32]);
}

/// A real I2C bus with a no-op [`SensorFeed`]: the sensors measure the tray themselves.
#[derive(Debug)]
pub struct RealBus<I>(pub I);

impl<I: I2c> i2c::ErrorType for RealBus<I> {
    type Error = I::Error;
}

impl<I: I2c> I2c for RealBus<I> {
    fn transaction(
        &mut self,
        address: SevenBitAddress,
        operations: &mut [Operation<'_>],
    ) -> Result<(), Self::Error> {
        self.0.transaction(address, operations)
    }
}

impl<I> SensorFeed for RealBus<I> {
    fn feed(&mut self, _spec: &Spec<'_>, _values: &[f32]) {}
}

/// Error of the simulated bus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimI2cError {
    /// No device at the address.
    NoDevice(u8),
    /// The register pointer names no register.
    NoSuchRegister(u8),
}

impl i2c::Error for SimI2cError {
    fn kind(&self) -> ErrorKind {
        match self {
            SimI2cError::NoDevice(_) => ErrorKind::NoAcknowledge(NoAcknowledgeSource::Address),
            SimI2cError::NoSuchRegister(_) => ErrorKind::NoAcknowledge(NoAcknowledgeSource::Data),
        }
    }
}

/// `K` simulated nutrient sensors (the register map of [`crate::drivers::sensor`]), one per
/// address; their raw readings are set by [`SensorFeed::feed`] with each sensor's calibration
/// ([`costbo_experiment::SensorSpec::to_raw`]).
#[derive(Debug, Clone)]
pub struct SimSensorBus<const K: usize> {
    addresses: [u8; K],
    raw: [u16; K],
    pointer: [u8; K],
    /// Completed transactions (for tests and logs).
    pub transactions: u32,
}

impl<const K: usize> SimSensorBus<K> {
    /// Sensors at the addresses of `spec`'s variables (the first `K`), reading raw 0.
    pub fn new(spec: &Spec<'_>) -> Self {
        let addresses = core::array::from_fn(|l| {
            spec.variables
                .get(l)
                .and_then(|v| v.sensor)
                .map_or(0xFF, |s| s.address)
        });
        SimSensorBus {
            addresses,
            raw: [0; K],
            pointer: [REG_VALUE; K],
            transactions: 0,
        }
    }

    /// The raw reading of sensor `l`.
    pub fn raw(&self, l: usize) -> Option<u16> {
        self.raw.get(l).copied()
    }
}

impl<const K: usize> SensorFeed for SimSensorBus<K> {
    fn feed(&mut self, spec: &Spec<'_>, values: &[f32]) {
        for ((raw, v), &x) in self.raw.iter_mut().zip(spec.variables).zip(values) {
            if let Some(s) = v.sensor {
                *raw = s.to_raw(x);
            }
        }
    }
}

impl<const K: usize> i2c::ErrorType for SimSensorBus<K> {
    type Error = SimI2cError;
}

impl<const K: usize> I2c for SimSensorBus<K> {
    fn transaction(
        &mut self,
        address: SevenBitAddress,
        operations: &mut [Operation<'_>],
    ) -> Result<(), SimI2cError> {
        let s = self
            .addresses
            .iter()
            .position(|&a| a == address)
            .ok_or(SimI2cError::NoDevice(address))?;
        for op in operations.iter_mut() {
            match op {
                Operation::Write(bytes) => {
                    if let Some(&reg) = bytes.first() {
                        self.pointer[s] = reg;
                    }
                }
                Operation::Read(buf) => {
                    let reg = self.pointer[s];
                    let be = self.raw[s].to_be_bytes();
                    let content: &[u8] = match reg {
                        REG_VALUE => &be,
                        REG_WHO_AM_I => &[WHO_AM_I_VALUE],
                        other => return Err(SimI2cError::NoSuchRegister(other)),
                    };
                    for (i, b) in buf.iter_mut().enumerate() {
                        *b = content.get(i).copied().unwrap_or(0xFF);
                    }
                }
            }
        }
        self.transactions += 1;
        Ok(())
    }
}

/// Byte-addressed storage behind a [`FileFlash`]: a host file through semihosting on QEMU, a
/// buffer in tests. Bytes beyond the end of the file read as erased (`0xFF`).
pub trait FileIo {
    /// Error of the backing store.
    type Error: core::fmt::Debug;
    /// Fills `buf` from `offset`; bytes past the end of the file are `0xFF`.
    fn read_at(&mut self, offset: u32, buf: &mut [u8]) -> Result<(), Self::Error>;
    /// Writes `data` at `offset` (extending the file if needed), durably for a power cut.
    fn write_at(&mut self, offset: u32, data: &[u8]) -> Result<(), Self::Error>;
}

/// Errors of [`FileFlash`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileFlashError<E> {
    /// Outside the flash, or not aligned to the read/write/erase size.
    Range,
    /// Not aligned.
    Alignment,
    /// The backing store failed.
    Io(E),
}

impl<E: core::fmt::Debug> NorFlashError for FileFlashError<E> {
    fn kind(&self) -> NorFlashErrorKind {
        match self {
            FileFlashError::Range => NorFlashErrorKind::OutOfBounds,
            FileFlashError::Alignment => NorFlashErrorKind::NotAligned,
            FileFlashError::Io(_) => NorFlashErrorKind::Other,
        }
    }
}

/// NOR flash of `SIZE` bytes in sectors of `SECTOR` bytes kept in a [`FileIo`]: erasing sets a
/// sector to `0xFF`, programming can only clear bits (the stored byte becomes `old & new`), as
/// on real NOR flash. Writes go straight to the file, so what was written survives a restart.
#[derive(Debug)]
pub struct FileFlash<F, const SIZE: u32, const SECTOR: u32> {
    file: F,
}

impl<F: FileIo, const SIZE: u32, const SECTOR: u32> FileFlash<F, SIZE, SECTOR> {
    /// Flash over `file` (whatever it holds is the flash's content).
    pub fn new(file: F) -> Self {
        FileFlash { file }
    }

    /// Gives back the file.
    pub fn release(self) -> F {
        self.file
    }

    fn check(offset: u32, len: usize, align: u32) -> Result<(), FileFlashError<F::Error>> {
        let end = u64::from(offset) + len as u64;
        if end > u64::from(SIZE) {
            return Err(FileFlashError::Range);
        }
        if !offset.is_multiple_of(align) || !(len as u64).is_multiple_of(u64::from(align)) {
            return Err(FileFlashError::Alignment);
        }
        Ok(())
    }
}

impl<F: FileIo, const SIZE: u32, const SECTOR: u32> FlashErrorType for FileFlash<F, SIZE, SECTOR> {
    type Error = FileFlashError<F::Error>;
}

impl<F: FileIo, const SIZE: u32, const SECTOR: u32> ReadNorFlash for FileFlash<F, SIZE, SECTOR> {
    const READ_SIZE: usize = 1;

    fn read(&mut self, offset: u32, bytes: &mut [u8]) -> Result<(), Self::Error> {
        Self::check(offset, bytes.len(), 1)?;
        self.file.read_at(offset, bytes).map_err(FileFlashError::Io)
    }

    fn capacity(&self) -> usize {
        SIZE as usize
    }
}

impl<F: FileIo, const SIZE: u32, const SECTOR: u32> NorFlash for FileFlash<F, SIZE, SECTOR> {
    const WRITE_SIZE: usize = 4;
    const ERASE_SIZE: usize = SECTOR as usize;

    fn erase(&mut self, from: u32, to: u32) -> Result<(), Self::Error> {
        if from > to {
            return Err(FileFlashError::Range);
        }
        Self::check(from, (to - from) as usize, SECTOR)?;
        let ones = [0xFFu8; 64];
        let mut at = from;
        while at < to {
            let n = (to - at).min(ones.len() as u32);
            self.file
                .write_at(at, &ones[..n as usize])
                .map_err(FileFlashError::Io)?;
            at += n;
        }
        Ok(())
    }

    fn write(&mut self, offset: u32, bytes: &[u8]) -> Result<(), Self::Error> {
        Self::check(offset, bytes.len(), 4)?;
        let mut old = [0u8; 64];
        let mut at = 0usize;
        while at < bytes.len() {
            let n = (bytes.len() - at).min(old.len());
            let chunk = &mut old[..n];
            let pos = offset + at as u32;
            self.file.read_at(pos, chunk).map_err(FileFlashError::Io)?;
            for (o, &b) in chunk.iter_mut().zip(&bytes[at..at + n]) {
                *o &= b; // NOR: programming only clears bits
            }
            self.file.write_at(pos, chunk).map_err(FileFlashError::Io)?;
            at += n;
        }
        Ok(())
    }
}
