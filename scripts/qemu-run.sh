#!/usr/bin/env bash
# Cargo runner for the Cortex-M firmware (see .cargo/config.toml): boots an ELF in QEMU with
# semihosting and exits with the firmware's exit status.
#
#   scripts/qemu-run.sh ELF [extra QEMU args...]
#
# Machine, picked from the target triple in the ELF path (cargo builds into target/TRIPLE/...):
#   thumbv7em-none-eabihf -> -machine mps2-an386 -cpu cortex-m4 (FPU)
#   thumbv6m-none-eabi    -> -machine microbit   -cpu cortex-m0 (16 KiB RAM)
# Environment:
#   QEMU_MACHINE=an386|microbit  override the machine choice (for ELFs outside target/)
#   QEMU_ICOUNT=N                add `-icount shift=N` (deterministic SysTick = instruction count;
#                                the firmware is told N through the semihosting command line).
#                                Default: 6 for binaries named bench*, off otherwise;
#                                QEMU_ICOUNT=off disables it.
#   QEMU_TIMEOUT=SECONDS         wall-clock limit (default 300); exit status 124 when hit
#   QEMU_EXTRA="ARGS"            extra QEMU arguments (word-split)
# The controller binary (thumbv7em) is handed to scripts/qemu-controller.sh (host link on TCP).
# Exit status: the firmware's (0 = success, 1 = test failure, 101 panic, 102 fault), 124 timeout,
# or QEMU's own (1 for a configuration error such as an unloadable kernel).
set -uo pipefail

if [ $# -lt 1 ]; then
    echo "usage: $0 ELF [extra qemu args...]" >&2
    exit 2
fi
elf=$1
shift
if [ ! -f "$elf" ]; then
    echo "qemu-run: no such file: $elf" >&2
    exit 2
fi

# The controller talks to a host over UART0: it needs a serial port, not `-serial none`.
if [ "$(basename "$elf")" = controller ] && [ "${QEMU_MACHINE:-an386}" != microbit ] &&
    [[ "$elf" != *thumbv6m-none-eabi* ]]; then
    exec "$(dirname "${BASH_SOURCE[0]}")/qemu-controller.sh" --elf "$elf" "$@"
fi

machine=${QEMU_MACHINE:-}
if [ -z "$machine" ]; then
    case "$elf" in
        *thumbv6m-none-eabi*) machine=microbit ;;
        *thumbv7em-none-eabihf*) machine=an386 ;;
        *)
            echo "qemu-run: cannot tell the target from '$elf'; set QEMU_MACHINE=an386 or microbit" >&2
            exit 2
            ;;
    esac
fi
case "$machine" in
    an386 | mps2-an386) machine_args=(-machine mps2-an386 -cpu cortex-m4) ;;
    microbit) machine_args=(-machine microbit -cpu cortex-m0) ;;
    *)
        echo "qemu-run: unknown QEMU_MACHINE '$machine' (an386 or microbit)" >&2
        exit 2
        ;;
esac

if ! command -v qemu-system-arm >/dev/null 2>&1; then
    echo "qemu-run: qemu-system-arm not found (apt-get install -y --no-install-recommends qemu-system-arm, or run scripts/test-all)" >&2
    exit 127
fi

icount=${QEMU_ICOUNT:-}
if [ -z "$icount" ]; then
    case "$(basename "$elf")" in
        bench*) icount=6 ;;
        *) icount=off ;;
    esac
fi
icount_args=()
semihosting="enable=on,target=native,arg=$(basename "$elf")"
if [ "$icount" != off ]; then
    if ! [[ "$icount" =~ ^[0-9]+$ ]] || [ "$icount" -gt 10 ]; then
        echo "qemu-run: QEMU_ICOUNT must be a shift 0..10 or 'off', not '$icount'" >&2
        exit 2
    fi
    icount_args=(-icount "shift=$icount")
    semihosting+=",arg=icount=$icount"
fi

extra=()
if [ -n "${QEMU_EXTRA:-}" ]; then
    read -r -a extra <<<"$QEMU_EXTRA"
fi

timeout_s=${QEMU_TIMEOUT:-300}
# stdin from /dev/null: QEMU never needs it and must not grab a terminal.
timeout --foreground -k 5 "$timeout_s" \
    qemu-system-arm "${machine_args[@]}" -nographic -monitor none -serial none \
    -semihosting-config "$semihosting" "${icount_args[@]}" "${extra[@]}" \
    -kernel "$elf" "$@" </dev/null
rc=$?
case $rc in
    0) ;;
    124 | 137) echo "qemu-run: TIMEOUT: $(basename "$elf") still running after ${timeout_s}s (QEMU_TIMEOUT), killed" >&2 ;;
    *) echo "qemu-run: $(basename "$elf") exited with status $rc" >&2 ;;
esac
exit "$rc"
