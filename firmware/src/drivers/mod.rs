//! Board-independent drivers over the embedded-hal 1.0 traits.
//!
//! * [`pumps`]: dosing pumps on `OutputPin`s timed with `DelayNs`, dose → on-time through the
//!   pump calibration of the experiment.
//! * [`sensor`]: nutrient sensors on an `I2c` bus (register map documented there).
//! * [`delay`]: long waits in one-second chunks, for HAL delays that overflow.

pub mod delay;
pub mod pumps;
pub mod sensor;
