//! Picks the QEMU machine's memory map by target and passes cortex-m-rt's `link.x` to the
//! linker of the firmware binaries.
//!
//! * `thumbv6m-*`  -> `memory-microbit.x` (QEMU `microbit`, Cortex-M0, 256 KiB flash, 16 KiB RAM)
//! * `thumbv7*`    -> `memory-an386.x`    (QEMU `mps2-an386`, Cortex-M4F, 4 MiB + 4 MiB)
//! * anything else (the host): nothing; the crate compiles to empty stubs there.
//!
//! `-Tlink.x` is emitted here (`rustc-link-arg`) rather than as `rustflags` in
//! `.cargo/config.toml`: cargo reads config from the current directory only, and a `RUSTFLAGS`
//! environment variable silently replaces config rustflags. Both would drop `-Tlink.x` and produce
//! an ELF without a vector table. Do not add `-Tlink.x` to rustflags as well (it would be
//! linked twice).

use std::{env, fs, path::PathBuf};

fn main() {
    println!("cargo::rustc-check-cfg=cfg(costbo_machine, values(\"an386\", \"microbit\"))");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=memory-an386.x");
    println!("cargo::rerun-if-changed=memory-microbit.x");

    let target = env::var("TARGET").expect("TARGET is set by cargo");
    let bare_metal_arm = env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("arm")
        && env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("none");
    if !bare_metal_arm {
        return; // host build: the library and binaries are compiled out
    }
    let (memory_file, machine) = if target.starts_with("thumbv6m") {
        ("memory-microbit.x", "microbit")
    } else if target.starts_with("thumbv7") {
        ("memory-an386.x", "an386")
    } else {
        panic!(
            "costbo-firmware supports thumbv7em-none-eabihf and thumbv6m-none-eabi, not {target}"
        );
    };

    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").unwrap());
    fs::copy(manifest_dir.join(memory_file), out_dir.join("memory.x"))
        .unwrap_or_else(|e| panic!("copying {memory_file}: {e}"));
    println!("cargo::rustc-link-search={}", out_dir.display());
    println!("cargo::rustc-cfg=costbo_machine=\"{machine}\"");
    // All linked targets of this package (bins, and any future examples or tests); the lib is an
    // rlib and is not linked.
    println!("cargo::rustc-link-arg=-Tlink.x");
}
