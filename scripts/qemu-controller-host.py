#!/usr/bin/env python3
"""A toy host for the QEMU controller: boots the firmware, plays every round, cuts the power.

    scripts/qemu-controller-host.py --elf ELF [--journal PATH] [--power-cut-round K] [--port P]

Standard library only. It launches QEMU (mps2-an386) with UART0 on a local TCP port and the
journal in a host file, then speaks costbo_core::link's protocol (postcard + CRC-32 + COBS,
see core/src/link.rs): Start; for every Decision a Measurement (controlled variables as dosed,
the others drawn from the source-water distribution of firmware/experiment.toml), an Outcome (a
toy growth function, not the plant simulator) and the set's cost; until Done.

With a costly measurement (the experiment file's [measurement] table; build the firmware with
COSTBO_EXPERIMENT=experiments/costly-measurement.toml and pass --config) the device answers each
Measurement with a Query; the script then sends the Outcome when told to measure and Skipped
(the dose's cost) when not, and counts both.

With contexts (the experiment file's [causal] table; build with
COSTBO_EXPERIMENT=experiments/causal-contexts.toml and pass --config) the device asks for the
chosen arm's contexts before each Decision (MeasureContexts); the script answers with the
source water's values of those variables (Contexts, NaN elsewhere), keeps the round's water for
the Measurement, and checks after a power cut that the arm and the decision are the same.

With --power-cut-round K it kills QEMU in round K after the Measurement (the round in flight is
lost), boots it again on the same journal, and checks that the device resumes at round K and
decides round K bit for bit as before the cut. Exit status 0 when every check passed; the last
line is `N passed, N failed`.

The real host (the plant simulator, reproduction of decisions) is the desktop's job; this
script only exercises the firmware.
"""

import argparse
import math
import os
import random
import socket
import struct
import subprocess
import sys
import time
import tomllib
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ---- postcard ---------------------------------------------------------------------------------

def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


class Reader:
    def __init__(self, data):
        self.d, self.i = data, 0

    def varint(self):
        n = shift = 0
        while True:
            b = self.d[self.i]
            self.i += 1
            n |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return n

    def u8(self):
        self.i += 1
        return self.d[self.i - 1]

    def f32(self):
        self.i += 4
        return struct.unpack("<f", self.d[self.i - 4:self.i])[0]

    def f32_bits(self):
        return self.d[self.i:self.i + 4]

    def values(self):
        n = self.varint()
        return [self.f32() for _ in range(n)]


ERROR_CODES = ["BadFrame", "Unexpected", "WrongRound", "InvalidMeasurement", "InvalidOutcome",
               "Controller", "JournalFull", "Storage", "Other", "NotMeasured", "MeasurementDue"]


def decode_device(payload):
    r = Reader(payload)
    tag = r.varint()
    if tag == 0:
        return ("Hello", dict(version=r.varint(), config=r.varint(), round=r.varint(),
                              spent=r.f32(), budget=r.f32()))
    if tag == 1:
        rnd, s = r.varint(), r.u8()
        start = r.i
        vals = r.values()
        raw = payload[start:r.i]
        score_bits = r.f32_bits()
        score = r.f32()
        return ("Decision", dict(round=rnd, set=s, values=vals, score=score,
                                 bits=(raw, score_bits)))
    if tag == 2:
        return ("Ack", dict(round=r.varint()))
    if tag == 3:
        return ("Done", dict(round=r.varint(), spent=r.f32(), set=r.u8(), values=r.values(),
                             score=r.f32()))
    if tag == 4:
        c = r.varint()
        name = ERROR_CODES[c] if c < len(ERROR_CODES) else str(c)
        if name == "Other":
            name = "Other(%d)" % r.varint()
        return ("Error", dict(code=name, round=r.varint()))
    if tag == 5:
        return ("Query", dict(round=r.varint(), measure=r.u8() == 1, min_probability=r.f32()))
    if tag == 6:
        return ("MeasureContexts", dict(round=r.varint(), arm=r.u8(), contexts=r.varint()))
    raise ValueError("unknown device message %d" % tag)


def start():
    return varint(0)


def measurement(rnd, values):
    return varint(1) + varint(rnd) + varint(len(values)) + b"".join(
        struct.pack("<f", v) for v in values)


def outcome(rnd, y, cost):
    return varint(2) + varint(rnd) + struct.pack("<ff", y, cost)


def skipped(rnd, cost):
    return varint(5) + varint(rnd) + struct.pack("<f", cost)


def contexts(rnd, values):
    return varint(6) + varint(rnd) + varint(len(values)) + b"".join(
        struct.pack("<f", v) for v in values)


# ---- framing ----------------------------------------------------------------------------------

def cobs_encode(data):
    out, block = bytearray(), bytearray()
    for b in data:
        if b == 0:
            out += bytes([len(block) + 1]) + block
            block = bytearray()
        else:
            block.append(b)
            if len(block) == 254:
                out += b"\xff" + block
                block = bytearray()
    out += bytes([len(block) + 1]) + block
    return bytes(out)


def cobs_decode(data):
    out, i = bytearray(), 0
    while i < len(data):
        code = data[i]
        if code == 0 or i + code > len(data) + (0 if code > 1 else 1):
            raise ValueError("bad COBS")
        out += data[i + 1:i + code]
        i += code
        if code < 0xFF and i < len(data):
            out.append(0)
    return bytes(out)


def frame(payload):
    return cobs_encode(payload + struct.pack("<I", zlib.crc32(payload))) + b"\x00"


def unframe(raw):
    data = cobs_decode(raw)
    payload, crc = data[:-4], struct.unpack("<I", data[-4:])[0]
    if zlib.crc32(payload) != crc:
        raise ValueError("bad CRC")
    return payload


# ---- the device -------------------------------------------------------------------------------

class Device:
    def __init__(self, elf, journal, port, log):
        self.elf, self.journal, self.port, self.log = elf, journal, port, log
        self.qemu = self.sock = None
        self.buf = bytearray()

    def boot(self):
        cmd = ["qemu-system-arm", "-machine", "mps2-an386", "-cpu", "cortex-m4", "-nographic",
               "-monitor", "none", "-serial", "tcp:127.0.0.1:%d,server=on,wait=on" % self.port,
               "-semihosting-config",
               "enable=on,target=native,arg=controller,arg=journal=%s" % self.journal,
               "-kernel", self.elf]
        self.qemu = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        for _ in range(200):
            try:
                self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=120)
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("QEMU did not open port %d" % self.port)

    def cut_power(self):
        self.qemu.kill()
        self.qemu.wait()
        self.sock.close()
        self.buf = bytearray()

    def send(self, payload):
        self.sock.sendall(frame(payload))

    def recv(self):
        while True:
            if 0 in self.buf:
                k = self.buf.index(0)
                raw, self.buf = bytes(self.buf[:k]), self.buf[k + 1:]
                if raw:
                    return decode_device(unframe(raw))
                continue
            chunk = self.sock.recv(4096)
            if not chunk:
                raise RuntimeError("the device closed the link")
            self.buf += chunk


# ---- the toy tray -----------------------------------------------------------------------------

def source_water(var, rng):
    lo, hi = var["lower"], var["upper"]
    d = var["distribution"]
    if d["kind"] == "uniform":
        return rng.uniform(lo, hi)
    sd = math.sqrt(d["variance"])
    while True:  # rejection sampling; the scale differs a little from the truncated variance
        v = rng.gauss(d["mean"], sd)
        if lo <= v <= hi:
            return v


def growth(x, variables):
    u = [(v - var["lower"]) / (var["upper"] - var["lower"]) for v, var in zip(x, variables)]
    return 1.0 - sum((ui - 0.6) ** 2 for ui in u)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--elf", required=True)
    ap.add_argument("--journal", default="costbo-journal.bin")
    ap.add_argument("--config", default=os.path.join(ROOT, "firmware", "experiment.toml"))
    ap.add_argument("--port", type=int, default=4555)
    ap.add_argument("--power-cut-round", type=int, default=None)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--log", default=None, help="QEMU's output (default: stdout)")
    args = ap.parse_args()

    with open(args.config, "rb") as f:
        cfg = tomllib.load(f)
    variables = cfg["variable"]
    costs = [s["cost"] for s in cfg["control_set"]]
    costly = "measurement" in cfg
    measured = skips = 0
    config_id = zlib.crc32(open(args.config, "rb").read())
    rng = random.Random(args.seed)
    log = open(args.log, "w") if args.log else None

    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        print("check %s ... %s" % (what, "ok" if ok else "FAILED"), flush=True)
        if ok:
            passed += 1
        else:
            failed += 1

    dev = Device(args.elf, args.journal, args.port, log)
    dev.boot()
    kind, hello = dev.recv()
    print("device:", kind, hello, flush=True)
    check(kind == "Hello" and hello["config"] == config_id, "Hello with this configuration")
    decisions = {}
    asked = {}   # round -> (arm, context mask): the same after a power cut
    water = {}   # round -> the source water's value of every variable
    cut_done = False
    t0 = time.time()
    dev.send(start())
    while True:
        kind, m = dev.recv()
        if kind == "Done":
            print("device: Done after %d rounds, spent %.3f, recommends set %d %s (score %.4f)"
                  % (m["round"], m["spent"], m["set"], m["values"], m["score"]), flush=True)
            check(m["spent"] <= hello["budget"] + 1e-4, "budget respected")
            break
        if kind == "Error":
            print("device: Error", m, flush=True)
            check(False, "no Error from the device")
            break
        if kind == "MeasureContexts":
            rnd = m["round"]
            key = (m["arm"], m["contexts"])
            if rnd in asked:
                check(asked[rnd] == key, "round %d chose arm %d again after the power cut"
                      % (rnd, asked[rnd][0]))
            asked[rnd] = key
            w = water.setdefault(rnd, [source_water(var, rng) for var in variables])
            vals = [w[l] if m["contexts"] >> l & 1 else float("nan")
                    for l in range(len(variables))]
            print("round %3d: arm %d, contexts %s" % (
                rnd, m["arm"], ["%.3f" % v for v in vals if not math.isnan(v)]), flush=True)
            dev.send(contexts(rnd, vals))
            continue
        if kind != "Decision":
            check(False, "expected a Decision, got %s" % kind)
            break
        rnd = m["round"]
        if rnd in decisions:
            check(decisions[rnd] == m["bits"], "round %d decided identically after the power cut"
                  % rnd)
        decisions[rnd] = m["bits"]
        if rnd in water:  # a causal round: the water its contexts were measured from
            x = [v if not math.isnan(v) else water[rnd][l] for l, v in enumerate(m["values"])]
        else:
            x = [v if not math.isnan(v) else source_water(var, rng)
                 for v, var in zip(m["values"], variables)]
        print("round %3d: set %d, dose %s (%.1fs)" % (
            rnd, m["set"], ["%.3f" % v if not math.isnan(v) else "-" for v in m["values"]],
            time.time() - t0), flush=True)
        dev.send(measurement(rnd, x))
        if args.power_cut_round == rnd and not cut_done:
            time.sleep(0.5)
            print("power cut in round %d (after the Measurement)" % rnd, flush=True)
            dev.cut_power()
            cut_done = True
            dev.boot()
            kind, h = dev.recv()
            print("device:", kind, h, flush=True)
            check(kind == "Hello" and h["round"] == rnd, "resumed at round %d" % rnd)
            dev.send(start())
            continue
        if costly:
            kind, q = dev.recv()
            if kind != "Query" or q["round"] != rnd:
                check(False, "Query of round %d (got %s %s)" % (rnd, kind, q))
                break
            if q["measure"]:
                measured += 1
                dev.send(outcome(rnd, growth(x, variables), costs[m["set"]]))
            else:
                skips += 1
                dev.send(skipped(rnd, costs[m["set"]]))
            print("round %3d: %s (min p %.4f)" % (
                rnd, "measure" if q["measure"] else "skip", q["min_probability"]), flush=True)
        else:
            dev.send(outcome(rnd, growth(x, variables), costs[m["set"]]))
        kind, a = dev.recv()
        if kind != "Ack" or a["round"] != rnd:
            check(False, "Ack of round %d (got %s %s)" % (rnd, kind, a))
            break
    if "causal" in cfg:
        check(len(asked) == len(decisions), "every round asked for its arm's contexts")
    if costly:
        print("%d rounds measured, %d skipped" % (measured, skips), flush=True)
        check(measured + skips > 0, "every round answered with a Query")
    rc = dev.qemu.wait(timeout=60)
    check(rc == 0, "QEMU exited with status 0 (got %s)" % rc)
    if args.power_cut_round is not None:
        check(cut_done, "the power cut happened")
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
