#!/usr/bin/python3
"""The CPU engine against OpenCV's CPU functions (Debian's python3-opencv).

Times gray, invert, add, a 5x5 Gaussian blur and the histogram with OpenCV
(median of REPEAT runs, cv2.setNumThreads(THREADS)) and with
`kernelscope-cli run OP --in random:WxH --engine cpu --repeat N` (its "kernel
... ms median" line: kernel time only, no upload or download), then prints
ours/OpenCV per op and size. Below 1: ours is faster.

  build-aux/cpu-vs-opencv.py BUILD_DIR/app/kernelscope-cli [--repeat 10] [--threads 2]
                             [--simd portable|avx2|avx512]

--simd caps the CPU engine's hand-vectorised loops (KS_CPU_SIMD in its
environment); by default it uses the best the processor has, which the first
line names.

/usr/bin/python3 on purpose: Debian's cv2 is installed for the system Python.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

import cv2
import numpy as np

SIZES = ((3840, 2160), (1920, 1080))

# op id, extra CLI arguments, OpenCV call, what the OpenCV side does differently
OPS = (
    ("gray", [], lambda a, b: cv2.cvtColor(a, cv2.COLOR_RGBA2GRAY), ""),
    ("invert", [], lambda a, b: cv2.bitwise_not(a), "OpenCV inverts alpha too"),
    ("add", [], lambda a, b: cv2.add(a, b), "OpenCV saturates alpha too"),
    # sigma 0.65: radius ceil(3 sigma) = 2 with all five taps non-zero (at 0.5
    # the outer ones round to 0 in our 1024-sum taps, and the CPU engine
    # skips zero taps, so that would be a 3x3 against OpenCV's 5x5).
    ("gaussian_blur", ["--param", "sigma=0.65"],
     lambda a, b: cv2.GaussianBlur(a, (5, 5), 0.65, borderType=cv2.BORDER_REPLICATE),
     "5x5, sigma 0.65 on both"),
    ("histogram", [],
     lambda a, b: [cv2.calcHist([a], [c], None, [256], [0, 256]) for c in range(3)],
     "OpenCV: 3 channels; ours: R, G, B and luma in one pass"),
)

KERNEL_LINE = re.compile(r"^\s*kernel\s+([0-9.]+) ms median")
LEVELS = ("portable", "avx2", "avx512")


def cpu_level():
    """The best level of gpu/ops/ks-cpu-simd.c this processor runs, from its flags."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((l.split(":", 1)[1].split() for l in f if l.startswith("flags")), [])
    except OSError:
        return "unknown"
    if all(x in flags for x in ("avx512f", "avx512bw", "avx512vl")):
        return "avx512"
    return "avx2" if "avx2" in flags else "portable"


def time_opencv(fn, a, b, repeat):
    fn(a, b)  # warm-up
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(a, b)
        samples.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(samples)


def time_ours(cli, op, extra, w, h, repeat, env):
    size = f"random:{w}x{h}"
    inputs = ["--in", size] * (2 if op == "add" else 1)
    cmd = [cli, "run", op, *inputs, "--engine", "cpu", "--repeat", str(repeat), *extra]
    res = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if res.returncode != 0:
        return None, (res.stderr.strip() or res.stdout.strip()).splitlines()[-1:]
    for line in res.stdout.splitlines():
        m = KERNEL_LINE.match(line)
        if m:
            return float(m.group(1)), None
    return None, ["no kernel timing line in the output"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cli", help="path to kernelscope-cli")
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--simd", choices=LEVELS, help="cap the CPU engine's vector loops")
    args = ap.parse_args()
    if args.repeat < 10:
        sys.exit("--repeat: at least 10 runs for a median")

    cv2.setNumThreads(args.threads)
    rng = np.random.default_rng(1)
    env = dict(os.environ)
    env.pop("KS_CPU_SIMD", None)
    level = cpu_level()
    if args.simd:
        env["KS_CPU_SIMD"] = args.simd
        level = LEVELS[min(LEVELS.index(args.simd), LEVELS.index(level))] if level in LEVELS \
            else args.simd
    print(f"OpenCV {cv2.__version__}, {args.threads} threads, median of {args.repeat} runs; "
          f"ours: vector level {level}")
    print(f"{'op':<14} {'size':>10} {'ours ms':>9} {'OpenCV ms':>10} {'ours/OpenCV':>12}  note")
    for w, h in SIZES:
        a = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
        b = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
        for op, extra, fn, note in OPS:
            cv_ms = time_opencv(fn, a, b, args.repeat)
            ours, why = time_ours(args.cli, op, extra, w, h, args.repeat, env)
            if ours is None:
                print(f"{op:<14} {w}x{h:<5} {'-':>9} {cv_ms:10.3f} {'-':>12}  ours failed: "
                      + " ".join(why))
                continue
            print(f"{op:<14} {w}x{h:<5} {ours:9.3f} {cv_ms:10.3f} {ours / cv_ms:12.2f}  {note}")


if __name__ == "__main__":
    main()
