//! The nutrient-dosing controller on the QEMU mps2-an386 (Cortex-M4F), with simulated pumps
//! and sensors, a host link on UART0 and the journal in a host file:
//!
//! ```text
//! scripts/qemu-controller.sh                    # builds, boots QEMU, waits for the host on TCP
//! scripts/qemu-controller.sh --smoke            # ... and drives it with a toy host, power cut included
//! ```
//!
//! The experiment is `firmware/experiment.toml` (built in). Semihosting command-line words
//! (QEMU `-semihosting-config ...,arg=WORD`): `journal=PATH` (the journal's host file, default
//! `costbo-journal.bin` in QEMU's working directory) and `reformat` (erase a journal of another
//! configuration instead of refusing it). The log goes to QEMU's stdout (semihosting); the link
//! is UART0 (QEMU's first `-serial`). After `Done` the firmware prints its stack high-water
//! mark and exits QEMU with status 0; a failure to start exits with status 3.
//!
//! The microbit (Cortex-M0, 16 KiB of RAM) cannot hold this controller (capacity 64: the GP's
//! factor alone is 8.3 KiB): there the binary only says so and exits with status 2.
#![cfg_attr(all(target_arch = "arm", target_os = "none"), no_std, no_main)]

#[cfg(all(
    target_arch = "arm",
    target_os = "none",
    costbo_machine = "an386",
    not(costbo_armv6m)
))]
mod firmware {
    use cortex_m_rt::entry;
    use costbo_firmware::app::{App, Phase, CAUSAL_DOSING, DOSING_RULE};
    use costbo_firmware::board::semihost_file::SemihostFile;
    use costbo_firmware::board::uart::Uart0;
    use costbo_firmware::board::Stdout;
    use costbo_firmware::drivers::pumps::Pumps;
    use costbo_firmware::drivers::sensor::Sensors;
    use costbo_firmware::experiment::{
        causal_rng, CausalCtl, ARMS, BANK, CONFIG_ID, D, FACTOR_LEN, M, N, SPEC,
    };
    use costbo_firmware::semihosting::{cmdline, exit};
    use costbo_firmware::sim::{FileFlash, SimClock, SimDelay, SimPin, SimSensorBus};
    use costbo_firmware::{journal, println, stack};

    /// Bytes of the journal's flash (the host file): 64 KiB, about 1 400 records of 5
    /// variables.
    const FLASH_SIZE: u32 = 64 * 1024;
    /// Erase sector of the simulated flash.
    const SECTOR: u32 = 4096;

    fn fail(what: &str) -> ! {
        println!("controller: {}", what);
        exit(3)
    }

    #[entry]
    fn main() -> ! {
        stack::paint();
        let mut args = [0u8; 256];
        let mut journal_path = "costbo-journal.bin";
        let mut reformat = false;
        if let Some(line) = cmdline(&mut args) {
            for word in line.split(' ') {
                if let Some(p) = word.strip_prefix("journal=") {
                    journal_path = p;
                } else if word == "reformat" {
                    reformat = true;
                }
            }
        }

        // Simulated peripherals: pumps on pins timed against a simulated clock, sensors
        // reporting the host's measurement.
        let clock = SimClock::new();
        let pumps = match Pumps::new([SimPin::new(&clock); D], SimDelay::new(&clock)) {
            Ok(p) => p,
            Err(_) => fail("pumps"),
        };
        let mut sensors = Sensors::new(SimSensorBus::<D>::new(&SPEC));
        if let Err(e) = sensors.identify_all(&SPEC) {
            println!("controller: sensor check failed: {:?}", e);
            exit(3)
        }

        let file = match SemihostFile::open(journal_path) {
            Ok(f) => f,
            Err(e) => {
                println!("controller: cannot open {}: {:?}", journal_path, e);
                exit(3)
            }
        };
        let flash = FileFlash::<_, FLASH_SIZE, SECTOR>::new(file);
        let journal = match journal::open(flash, 0, FLASH_SIZE, reformat) {
            Ok((j, how)) => {
                println!(
                    "controller: journal {} ({:?}, {} records, {} slots left)",
                    journal_path,
                    how,
                    j.len(),
                    j.remaining()
                );
                j
            }
            Err((_, e)) => {
                println!(
                    "controller: journal {}: {:?} (another configuration's journal: delete it or boot with arg=reformat)",
                    journal_path, e
                );
                exit(3)
            }
        };
        let Some(uart) = Uart0::take() else {
            fail("UART0 already taken")
        };

        // A contextual causal experiment (`[causal]`): one GP factor per arm, and the
        // controller itself (one GP per arm), in .bss. Without one this is not linked
        // (CAUSAL_DOSING is false).
        let causal = if CAUSAL_DOSING && SPEC.causal.is_some() {
            let (Some(factors), Some(slot)) = (
                cortex_m::singleton!(: [[f32; FACTOR_LEN]; ARMS] = [[0.0; FACTOR_LEN]; ARMS]),
                cortex_m::singleton!(: Option<CausalCtl<'static>> = None),
            ) else {
                fail("buffers already taken")
            };
            let storage = factors.each_mut().map(|f| &mut f[..]);
            match SPEC.causal_controller::<f32, ARMS, N, D, _, _>(storage, causal_rng(SPEC.seed)) {
                Ok(c) => Some(slot.insert(c)),
                Err(e) => {
                    println!("controller: the causal experiment cannot be built: {:?}", e);
                    exit(3)
                }
            }
        } else {
            None
        };
        // A firmware built from a `[causal]` experiment has no dosing rule (DOSING_RULE is
        // false): its controller, bank and factor are not built, nor linked.
        let mut app = match causal {
            Some(c) if !DOSING_RULE => {
                App::causal(&SPEC, CONFIG_ID, c, pumps, sensors, uart, journal, Stdout)
            }
            causal => {
                // The controller's buffers live in .bss (static), not on the stack.
                let (Some(factor), Some(bank)) = (
                    cortex_m::singleton!(: [f32; FACTOR_LEN] = [0.0; FACTOR_LEN]),
                    cortex_m::singleton!(: [[f32; D]; BANK] = [[0.0; D]; BANK]),
                ) else {
                    fail("buffers already taken")
                };
                let ctl =
                    match SPEC.controller::<f32, N, D, M, _, _>(&mut factor[..], &mut bank[..]) {
                        Ok(c) => c,
                        Err(e) => {
                            println!("controller: the experiment cannot be built: {:?}", e);
                            exit(3)
                        }
                    };
                let app = App::new(&SPEC, CONFIG_ID, ctl, pumps, sensors, uart, journal, Stdout);
                match causal {
                    Some(c) => app.with_causal(c),
                    None => app,
                }
            }
        };
        if app.boot().is_err() {
            fail("link failed at boot");
        }
        loop {
            if app.poll().is_err() {
                fail("link failed");
            }
            if app.phase() == Phase::Finished {
                for (c, pin) in app.pumps().pins().iter().enumerate() {
                    println!(
                        "controller: pump {} ran {} times, {} ms in all (simulated)",
                        c,
                        pin.activations,
                        pin.total_on_ns / 1_000_000
                    );
                }
                println!("controller: {}", stack::usage());
                exit(0)
            }
        }
    }
}

#[cfg(all(
    target_arch = "arm",
    target_os = "none",
    any(costbo_machine = "microbit", costbo_armv6m)
))]
mod firmware {
    use cortex_m_rt::entry;
    use costbo_firmware::println;
    use costbo_firmware::semihosting::exit;

    #[entry]
    fn main() -> ! {
        println!(
            "controller: needs the mps2-an386 (Cortex-M4F): the microbit's 16 KiB of RAM cannot hold a capacity-64 controller"
        );
        exit(2)
    }
}

#[cfg(not(all(target_arch = "arm", target_os = "none")))]
fn main() {
    eprintln!("controller is Cortex-M firmware: scripts/qemu-controller.sh (see docs/embedded.md)");
    std::process::exit(2);
}
