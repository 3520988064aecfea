//! 1. Turns the experiment configuration (`experiment.toml`, or the file named by the
//!    `COSTBO_EXPERIMENT` environment variable) into Rust constants in `$OUT_DIR/experiment.rs`
//!    (included by `src/experiment.rs`), on every target. An invalid file fails the build with
//!    a message naming the entry.
//! 2. For the QEMU machines (feature `qemu`, bare-metal ARM targets only): picks the machine's
//!    memory map by target and passes cortex-m-rt's `link.x` to the linker of the binaries.
//!
//! * `thumbv6m-*`  -> `memory-microbit.x` (QEMU `microbit`, Cortex-M0, 256 KiB flash, 16 KiB RAM)
//! * `thumbv7*`    -> `memory-an386.x`    (QEMU `mps2-an386`, Cortex-M4F, 4 MiB + 4 MiB)
//! * the host, or a real-board crate using this one without `qemu`: no memory map, no link
//!   arguments (a board crate brings its own `memory.x` and links itself).
//!
//! `COSTBO_FIRMWARE_MACHINE=an386` builds Cortex-M0 code (`thumbv6m-none-eabi`) for the
//! `mps2-an386` memory map instead, so that ARMv6-M code can run in 4 MiB of RAM: QEMU has no
//! Cortex-M0 machine with more than the microbit's 16 KiB, and an instruction count is a
//! property of the instruction stream, not of the core that executes it. Run such an ELF with
//! `QEMU_MACHINE=an386`.
//!
//! `-Tlink.x` is emitted here (`rustc-link-arg`) rather than as `rustflags` in
//! `.cargo/config.toml`: cargo reads config from the current directory only, and a `RUSTFLAGS`
//! environment variable silently replaces config rustflags. Both would drop `-Tlink.x` and produce
//! an ELF without a vector table. Do not add `-Tlink.x` to rustflags as well (it would be
//! linked twice).

use std::{env, fs, path::PathBuf};

fn main() {
    println!("cargo::rustc-check-cfg=cfg(costbo_machine, values(\"an386\", \"microbit\"))");
    println!("cargo::rustc-check-cfg=cfg(costbo_armv6m)");
    println!("cargo::rerun-if-env-changed=COSTBO_FIRMWARE_MACHINE");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=memory-an386.x");
    println!("cargo::rerun-if-changed=memory-microbit.x");

    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").unwrap());
    experiment(&manifest_dir, &out_dir);

    let target = env::var("TARGET").expect("TARGET is set by cargo");
    let bare_metal_arm = env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("arm")
        && env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("none");
    if !bare_metal_arm || env::var_os("CARGO_FEATURE_QEMU").is_none() {
        return; // host build, or a real board's crate: no QEMU memory map
    }
    let forced = env::var("COSTBO_FIRMWARE_MACHINE").unwrap_or_default();
    let (memory_file, machine) = if forced == "an386" {
        ("memory-an386.x", "an386")
    } else if forced == "microbit" {
        ("memory-microbit.x", "microbit")
    } else if !forced.is_empty() {
        panic!("COSTBO_FIRMWARE_MACHINE must be an386 or microbit, not {forced}");
    } else if target.starts_with("thumbv6m") {
        ("memory-microbit.x", "microbit")
    } else if target.starts_with("thumbv7") {
        ("memory-an386.x", "an386")
    } else {
        panic!(
            "costbo-firmware supports thumbv7em-none-eabihf and thumbv6m-none-eabi, not {target}"
        );
    };

    fs::copy(manifest_dir.join(memory_file), out_dir.join("memory.x"))
        .unwrap_or_else(|e| panic!("copying {memory_file}: {e}"));
    println!("cargo::rustc-link-search={}", out_dir.display());
    println!("cargo::rustc-cfg=costbo_machine=\"{machine}\"");
    if target.starts_with("thumbv6m") {
        // ARMv6-M code (Cortex-M0), whichever machine runs it.
        println!("cargo::rustc-cfg=costbo_armv6m");
    }
    // All linked targets of this package (bins, and any future examples or tests); the lib is an
    // rlib and is not linked.
    println!("cargo::rustc-link-arg=-Tlink.x");
}

/// Parses and validates the experiment configuration and writes `$OUT_DIR/experiment.rs`.
fn experiment(manifest_dir: &std::path::Path, out_dir: &std::path::Path) {
    println!("cargo::rerun-if-env-changed=COSTBO_EXPERIMENT");
    let path = match env::var_os("COSTBO_EXPERIMENT") {
        Some(p) => PathBuf::from(p),
        None => manifest_dir.join("experiment.toml"),
    };
    println!("cargo::rerun-if-changed={}", path.display());
    let text = fs::read_to_string(&path).unwrap_or_else(|e| {
        fail(&format!(
            "cannot read the experiment configuration {}: {e}",
            path.display()
        ))
    });
    let spec = costbo_experiment::toml::parse_device(&text).unwrap_or_else(|e| {
        fail(&format!(
            "invalid experiment configuration {}: {e}",
            path.display()
        ))
    });
    if spec.model.fit != costbo_experiment::FitSpec::Fixed
        && env::var_os("CARGO_FEATURE_FITTED_MODEL").is_none()
    {
        fail(&format!(
            "{}: a fitted model ([model] fit other than \"fixed\") needs the firmware's \
             `fitted-model` feature (the core's fitting code, which a fixed model does without)",
            path.display()
        ));
    }
    let mut code = costbo_experiment::toml::to_rust(&spec, &path.display().to_string());
    code.push_str(&format!(
        "/// CRC-32 (ISO-HDLC) of the configuration file's bytes: the `config` of `Hello`.\n\
         pub const CONFIG_ID: u32 = {:#010x};\n",
        costbo_experiment::config_id(text.as_bytes())
    ));
    fs::write(out_dir.join("experiment.rs"), code)
        .unwrap_or_else(|e| fail(&format!("writing experiment.rs: {e}")));
}

/// Stops the build with a message cargo shows as an error.
fn fail(message: &str) -> ! {
    eprintln!("error: {message}");
    println!("cargo::error={message}");
    std::process::exit(1);
}
