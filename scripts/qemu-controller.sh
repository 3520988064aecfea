#!/usr/bin/env bash
# Runs the nutrient-dosing controller firmware (firmware/src/bin/controller.rs) in QEMU
# mps2-an386 (Cortex-M4F) with its host link on a TCP port and its journal in a host file.
#
#   scripts/qemu-controller.sh [options]            boot and wait for a host on the port
#   scripts/qemu-controller.sh --smoke [options]    boot and drive it with the toy host
#                                                   (scripts/qemu-controller-host.py), which
#                                                   also cuts the power once and checks the
#                                                   resume; last line `N passed, N failed`
#                                                   (firmware log: target/controller/qemu.log)
# Options:
#   --port N             TCP port of the link (default 4555, or $QEMU_CONTROLLER_PORT)
#   --journal PATH       the journal's host file (default target/controller/journal.bin);
#                        it survives restarts: the next boot resumes from it
#   --fresh              delete the journal first (a new experiment)
#   --reformat           let the firmware erase a journal of another configuration
#   --power-cut-round K  with --smoke: the round in which the power is cut (default 3; -1: none)
#   --elf ELF            run this ELF instead of building one
#   --no-build           do not build (use the ELF already built)
#
# The QEMU command it runs (one process; nothing else is needed):
#   qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic -monitor none \
#     -serial tcp:127.0.0.1:PORT,server=on,wait=on \
#     -semihosting-config enable=on,target=native,arg=controller,arg=journal=PATH \
#     -kernel ELF
# UART0 is the first -serial: QEMU waits (wait=on) until the host connects, then the firmware
# boots and sends Hello. The firmware's log (semihosting) goes to QEMU's stdout, kept apart from
# the link. QEMU exits with status 0 after the firmware sends Done, 3 if it cannot start.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd) || exit 1
port=${QEMU_CONTROLLER_PORT:-4555}
journal=
fresh=0
reformat=0
smoke=0
cut=3
elf=
build=1
while [ $# -gt 0 ]; do
    case $1 in
        --port) port=$2; shift 2 ;;
        --journal) journal=$2; shift 2 ;;
        --fresh) fresh=1; shift ;;
        --reformat) reformat=1; shift ;;
        --smoke) smoke=1; shift ;;
        --power-cut-round) cut=$2; shift 2 ;;
        --elf) elf=$2; build=0; shift 2 ;;
        --no-build) build=0; shift ;;
        -h | --help) sed -n '2,30p' "$0"; exit 0 ;;
        *) echo "qemu-controller: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done

target_dir=${CARGO_TARGET_DIR:-$ROOT/target}
if [ -z "$elf" ]; then
    elf=$target_dir/thumbv7em-none-eabihf/firmware/controller
fi
if [ "$build" = 1 ]; then
    (cd "$ROOT" && cargo build --profile firmware -p costbo-firmware \
        --target thumbv7em-none-eabihf --bin controller) || exit 1
fi
if [ ! -f "$elf" ]; then
    echo "qemu-controller: no ELF at $elf (build it, or pass --elf)" >&2
    exit 2
fi
if ! command -v qemu-system-arm >/dev/null 2>&1; then
    echo "qemu-controller: qemu-system-arm not found (apt-get install -y --no-install-recommends qemu-system-arm)" >&2
    exit 127
fi
if [ -z "$journal" ]; then
    mkdir -p "$ROOT/target/controller"
    journal=$ROOT/target/controller/journal.bin
fi
if [ "$fresh" = 1 ]; then
    rm -f "$journal"
fi

if [ "$smoke" = 1 ]; then
    args=(--elf "$elf" --journal "$journal" --port "$port")
    if [ "$cut" -ge 0 ] 2>/dev/null; then
        args+=(--power-cut-round "$cut")
    fi
    # The toy host boots QEMU itself (twice, for the power cut); the firmware's log goes to
    # target/controller/qemu.log, whose summary lines are shown at the end.
    mkdir -p "$ROOT/target/controller"
    log=$ROOT/target/controller/qemu.log
    timeout --foreground -k 5 "${QEMU_TIMEOUT:-600}" \
        python3 "$ROOT/scripts/qemu-controller-host.py" "${args[@]}" --log "$log"
    rc=$?
    echo "---- firmware log summary ($log) ----"
    grep -E '^(controller|journal|done)' "$log"
    exit $rc
fi

semihosting="enable=on,target=native,arg=controller,arg=journal=$journal"
if [ "$reformat" = 1 ]; then
    semihosting+=",arg=reformat"
fi
echo "qemu-controller: journal $journal; waiting for the host on 127.0.0.1:$port" >&2
exec qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic -monitor none \
    -serial "tcp:127.0.0.1:$port,server=on,wait=on" \
    -semihosting-config "$semihosting" -kernel "$elf" </dev/null
