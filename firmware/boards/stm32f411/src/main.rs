//! The costbo nutrient-dosing controller on an STM32F411 board.
//!
//! The same application as the QEMU controller (`costbo_firmware::app::App`, experiment from
//! `firmware/experiment.toml`), wired to real peripherals:
//!
//! | function | peripheral | pins (Black Pill STM32F411CEU6) |
//! |---|---|---|
//! | pumps 0-4 (pump channel c on output c, high = on, through a driver/MOSFET) | GPIO push-pull | PB12, PB13, PB14, PB15, PA8 |
//! | nutrient sensors (register map in `costbo_firmware::drivers::sensor`) | I2C1, 100 kHz | PB6 SCL, PB7 SDA |
//! | host link (`costbo_core::link` frames), 115 200 8N1 | USART2 | PA2 TX, PA3 RX |
//! | journal | internal flash sector 7 (128 KiB at 0x0806_0000) | - |
//! | log | defmt over RTT (probe-rs) | SWD |
//!
//! Clock: the 16 MHz HSI through the PLL to 100 MHz (no crystal needed, so a Nucleo-F411RE
//! runs it too; there USART2 is the ST-LINK's virtual COM port). Build and flash:
//! `docs/embedded.md` ("STM32F411").
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use costbo_firmware::app::{App, Phase};
use costbo_firmware::drivers::delay::Chunked;
use costbo_firmware::drivers::pumps::Pumps;
use costbo_firmware::drivers::sensor::Sensors;
use costbo_firmware::experiment::{BANK, CONFIG_ID, D, FACTOR_LEN, M, N, SPEC};
use costbo_firmware::sim::RealBus;
use costbo_firmware::{journal, stack};
use defmt_rtt as _;
use panic_probe as _;
use stm32f4xx_hal::flash::FlashExt;
use stm32f4xx_hal::gpio::{AnyPin, Output};
use stm32f4xx_hal::i2c::{I2c, Mode};
use stm32f4xx_hal::pac;
use stm32f4xx_hal::prelude::*;
use stm32f4xx_hal::rcc::Config;
use stm32f4xx_hal::serial::{Error as SerialError, Serial};

/// The journal's region: flash sector 7, offsets from the start of flash (0x0800_0000), the
/// convention of the HAL's `NorFlash`. `memory.x` keeps the program below it.
const JOURNAL_START: u32 = 0x6_0000;
/// End of the journal's region (end of the 512 KiB flash).
const JOURNAL_END: u32 = 0x8_0000;

/// The host link: USART2 with `embedded_io::Read` (blocking) added to the HAL's `Write`.
struct Link(Serial<pac::USART2>);

impl embedded_io::ErrorType for Link {
    type Error = SerialError;
}

impl embedded_io::Read for Link {
    /// Waits for a byte. A receive error (overrun, noise, framing, parity) reads as a frame
    /// delimiter `0x00`: the frame it damaged is dropped and answered with `BadFrame`, and the
    /// link carries on instead of failing for good.
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, SerialError> {
        use embedded_hal_nb::serial::Read as _;
        if buf.is_empty() {
            return Ok(0);
        }
        buf[0] = nb::block!(self.0.read()).unwrap_or(0);
        let mut n = 1;
        while n < buf.len() {
            match self.0.read() {
                Ok(b) => {
                    buf[n] = b;
                    n += 1;
                }
                Err(nb::Error::WouldBlock) => break,
                Err(nb::Error::Other(_)) => {
                    buf[n] = 0;
                    n += 1;
                }
            }
        }
        Ok(n)
    }
}

impl embedded_io::Write for Link {
    fn write(&mut self, buf: &[u8]) -> Result<usize, SerialError> {
        embedded_io::Write::write(&mut self.0, buf)
    }

    fn flush(&mut self) -> Result<(), SerialError> {
        embedded_io::Write::flush(&mut self.0)
    }
}

/// The text log sink: unused, the log goes to defmt (feature `defmt` of costbo-firmware).
struct NoText;

impl core::fmt::Write for NoText {
    fn write_str(&mut self, _: &str) -> core::fmt::Result {
        Ok(())
    }
}

/// Stops here for good (the debugger shows the log).
fn halt(what: &str) -> ! {
    defmt::error!("controller: {=str}", what);
    loop {
        cortex_m::asm::wfi();
    }
}

#[entry]
fn main() -> ! {
    stack::paint();
    let (Some(dp), Some(cp)) = (pac::Peripherals::take(), cortex_m::Peripherals::take()) else {
        halt("peripherals already taken")
    };
    let mut rcc = dp.RCC.freeze(Config::hsi().sysclk(100.MHz()));
    let gpioa = dp.GPIOA.split(&mut rcc);
    let gpiob = dp.GPIOB.split(&mut rcc);

    let pins: [AnyPin<Output>; D] = [
        gpiob.pb12.into_push_pull_output().erase(),
        gpiob.pb13.into_push_pull_output().erase(),
        gpiob.pb14.into_push_pull_output().erase(),
        gpiob.pb15.into_push_pull_output().erase(),
        gpioa.pa8.into_push_pull_output().erase(),
    ];
    // The HAL's SysTick delay overflows beyond about 43 s at 100 MHz; the growth period is an
    // hour: wait in one-second chunks.
    let delay = Chunked(cp.SYST.delay(&rcc.clocks));
    let Ok(pumps) = Pumps::new(pins, delay) else {
        halt("pumps")
    };

    let i2c = I2c::new(
        dp.I2C1,
        (gpiob.pb6, gpiob.pb7),
        Mode::standard(100.kHz()),
        &mut rcc,
    );
    let mut sensors = Sensors::new(RealBus(i2c));
    if sensors.identify_all(&SPEC).is_err() {
        halt("a nutrient sensor does not answer WHO_AM_I (see docs/embedded.md)");
    }

    let serial: Serial<pac::USART2> =
        match dp
            .USART2
            .serial((gpioa.pa2, gpioa.pa3), 115_200.bps(), &mut rcc)
        {
            Ok(s) => s,
            Err(_) => halt("USART2 configuration"),
        };

    let mut flash = dp.FLASH;
    let unlocked = flash.unlocked();
    let journal = match journal::open(unlocked, JOURNAL_START, JOURNAL_END, false) {
        Ok((j, how)) => {
            defmt::info!(
                "journal: {=str}, {=usize} records, {=usize} slots left",
                match how {
                    journal::Opened::Existing => "opened",
                    journal::Opened::Formatted => "formatted",
                    journal::Opened::Reformatted => "reformatted",
                },
                j.len(),
                j.remaining()
            );
            j
        }
        Err(_) => halt("the journal in flash sector 7 belongs to another configuration or is damaged; erase the sector (probe-rs erase) to start afresh"),
    };

    let Some(factor) = cortex_m::singleton!(: [f32; FACTOR_LEN] = [0.0; FACTOR_LEN]) else {
        halt("buffers")
    };
    let Some(bank) = cortex_m::singleton!(: [[f32; D]; BANK] = [[0.0; D]; BANK]) else {
        halt("buffers")
    };
    let Ok(ctl) = SPEC.controller::<f32, N, D, M, _, _>(&mut factor[..], &mut bank[..]) else {
        halt("the experiment cannot be built")
    };

    let mut app = App::new(
        &SPEC,
        CONFIG_ID,
        ctl,
        pumps,
        sensors,
        Link(serial),
        journal,
        NoText,
    );
    if app.boot().is_err() {
        halt("link failed at boot");
    }
    let mut finished = false;
    loop {
        if app.poll().is_err() {
            halt("link failed");
        }
        if app.phase() == Phase::Finished && !finished {
            finished = true;
            let s = stack::usage();
            defmt::info!(
                "controller: stack high-water mark {=usize} of {=usize} bytes",
                s.used,
                s.size
            );
        }
    }
}
