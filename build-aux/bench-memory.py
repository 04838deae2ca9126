#!/usr/bin/env python3
"""Peak memory of kernelscope-cli on the largest image it accepts.

Usage: build-aux/bench-memory.py [--cli PATH] [--engine cpu|cuda] [--side N]
                                 [--json FILE]

Runs `kernelscope-cli run` for an element-wise op, a filter and a two-input
op on side×side images (16384, the limit, by default), once from a generated
input and once from a PNG file, writes the result to a PNG in a temporary
folder, and reports each process's peak resident memory (the kernel's
ru_maxrss of the finished child) as a multiple of one RGBA8 image of that
size. The aim it is held to: inputs + output + one staging copy.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def run(cli, args):
    """Runs the CLI; returns (status, peak RSS in bytes, seconds, stderr)."""
    start = time.monotonic()
    proc = subprocess.Popen([cli] + args, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    err = proc.stderr.read().decode("utf-8", "replace")
    proc.stderr.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, usage.ru_maxrss * 1024, time.monotonic() - start, err


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cli", default=os.path.join(here, "..", "build", "app",
                                                      "kernelscope-cli"))
    parser.add_argument("--engine", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--side", type=int, default=16384)
    parser.add_argument("--json", help="also write the rows as JSON")
    opts = parser.parse_args()

    side = opts.side
    image = side * side * 4
    tmp = tempfile.mkdtemp(prefix="ks-bench-memory-")
    rows = []
    try:
        src = os.path.join(tmp, "input.png")
        status, _, _, err = run(opts.cli, ["run", "invert", "--engine", "cpu", "--repeat",
                                           "1", "--in", f"testcard:{side}x{side}",
                                           "--out", src])
        if status != 0:
            sys.exit(f"bench-memory: could not write the input: {err.strip()}")
        cases = [
            ("invert", ["invert"], [f"testcard:{side}x{side}"], 1),
            ("invert", ["invert"], [src], 1),
            ("gaussian_blur", ["gaussian_blur", "--param", "sigma=2"], [src], 1),
            ("add", ["add"], [src, f"testcard:{side}x{side}"], 2),
        ]
        print(f"peak resident memory, {side}×{side} RGBA8 (one image: {image / 2**20:.0f} MiB), "
              f"engine {opts.engine}")
        print(f"{'op':<14} {'input':<22} {'peak MiB':>9} {'images':>7} {'aim':>4} {'s':>6}")
        failed = False
        for name, op, inputs, n_in in cases:
            out = os.path.join(tmp, "out.png")
            args = ["run"] + op + ["--engine", opts.engine, "--repeat", "1", "--out", out]
            for i in inputs:
                args += ["--in", i]
            status, peak, secs, err = run(opts.cli, args)
            if status != 0:
                print(f"{name}: failed: {err.strip()}", file=sys.stderr)
                failed = True
                continue
            aim = n_in + 2  # inputs + output + one staging copy
            shown = "file" if inputs[0] == src else "generated"
            row = {"op": name, "input": shown, "inputs": n_in, "side": side,
                   "engine": opts.engine, "peak_bytes": peak, "images": peak / image,
                   "aim_images": aim, "seconds": secs}
            rows.append(row)
            print(f"{name:<14} {shown:<22} {peak / 2**20:>9.0f} {peak / image:>7.2f} {aim:>4} "
                  f"{secs:>6.1f}")
            failed |= peak > aim * image
        if opts.json:
            with open(opts.json, "w", encoding="utf-8") as f:
                json.dump({"rows": rows}, f, indent=2)
        sys.exit(1 if failed else 0)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
