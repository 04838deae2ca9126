#!/usr/bin/env python3
"""`meson install` into a scratch DESTDIR, and the installed tree as a user gets it.

Usage: test-install.py BUILD-ROOT SOURCE-ROOT [MESON]

Installs with --no-rebuild (meson test has built everything), then checks that
every file meson says it installs is there; that the installed programs run
from the installed tree, with the worker where they look for it; the manual
pages of the GUI, of the command-line tool and of every command it lists,
readable by groff and naming every option the command's --help does; the bash
completion; the desktop file, metainfo and icons; the settings schema, which
compiles and reads back (meson skips post-install scripts under DESTDIR, so the
test compiles it); and the licence. Prints TAP; the scratch tree is removed
when every check passed and kept (its path printed) when one failed.
"""

import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

APP_ID = "org.kernelscope.Kernelscope"

results = []


def check(ok, what, detail=""):
    results.append(bool(ok))
    print(f"{'ok' if ok else 'not ok'} {len(results)} - {what}")
    if not ok and detail:
        for line in str(detail).rstrip().splitlines()[-40:]:
            print(f"# {line}")
    return bool(ok)


def skip(what, why):
    results.append(True)
    print(f"ok {len(results)} - {what} # SKIP {why}")


def run(cmd, env=None, cwd=None, timeout=120):
    try:
        done = subprocess.run(cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                              check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        return 127, "", str(e)
    return (done.returncode, done.stdout.decode("utf-8", "replace"),
            done.stderr.decode("utf-8", "replace"))


def program_env(leaks=True):
    """The environment of a user's shell: no build-tree worker, no display."""
    env = dict(os.environ)
    for name in ("KS_WORKER_PATH", "DISPLAY", "WAYLAND_DISPLAY", "DESTDIR",
                 "GSETTINGS_SCHEMA_DIR", "LANGUAGE"):
        env.pop(name, None)
    env["LC_ALL"] = "C.UTF-8"
    if not leaks:
        env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"),
                                                     "detect_leaks=0"]))
    return env


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def commands_of(help_text):
    """The commands of `kernelscope-cli --help`, in its "Commands:" section."""
    out, inside = [], False
    for line in help_text.splitlines():
        if line.strip() == "Commands:":
            inside = True
        elif inside and line.startswith("  ") and line.strip():
            out.append(line.split()[0])
        elif inside:
            break
    return out


def long_options(help_text):
    return sorted(set(re.findall(r"^\s+(?:-\w, )?(--[\w-]+)", help_text, re.M)))


def main():
    if len(sys.argv) < 3:
        print("usage: test-install.py BUILD-ROOT SOURCE-ROOT [MESON]", file=sys.stderr)
        return 2
    build, source = sys.argv[1], sys.argv[2]
    meson = sys.argv[3] if len(sys.argv) > 3 else shutil.which("meson")
    if not meson:
        print("1..0 # SKIP meson is not on PATH")
        return 0

    destdir = tempfile.mkdtemp(prefix="ks-install-")
    try:
        failed = checks(build, source, meson, destdir)
    finally:
        print(f"1..{len(results)}")
    if failed:
        print(f"# the installed tree is kept in {destdir}")
        return 1
    shutil.rmtree(destdir, ignore_errors=True)
    return 0


def checks(build, source, meson, destdir):
    env = dict(os.environ)
    env.pop("DESTDIR", None)
    status, out, err = run([meson, "install", "-C", build, "--destdir", destdir,
                            "--no-rebuild"], env=env, timeout=600)
    if not check(status == 0, "meson install --destdir", out + err):
        return True
    install_log = out + err

    status, opts_json, err = run([meson, "introspect", build, "--buildoptions"])
    status2, installed_json, err2 = run([meson, "introspect", build, "--installed"])
    if not check(status == 0 and status2 == 0, "meson introspect", err + err2):
        return True
    opts = {o["name"]: o["value"] for o in json.loads(opts_json)}
    prefix = opts["prefix"]

    def dest(path):
        return os.path.join(destdir, os.path.relpath(os.path.join(prefix, path), "/"))

    bindir, libexecdir = dest(opts["bindir"]), dest(opts["libexecdir"])
    datadir, mandir = dest(opts["datadir"]), dest(opts["mandir"])

    installed = sorted(json.loads(installed_json).values())
    missing = [p for p in installed if not os.path.lexists(destdir + p)]
    check(installed and not missing,
          f"the {len(installed)} files meson installs are in DESTDIR",
          "missing:\n" + "\n".join(missing))

    # --- the programs ----------------------------------------------------
    cli = os.path.join(bindir, "kernelscope-cli")
    gui = os.path.join(bindir, "kernelscope")
    worker = os.path.join(libexecdir, "kernelscope-worker")
    for path in (cli, gui, worker):
        check(os.access(path, os.X_OK), f"{os.path.relpath(path, destdir)} is executable")
    # gpu/core/ks-program.c looks beside the executable, in ../app and in ../libexec.
    looked = os.path.normpath(os.path.join(bindir, "..", "libexec", "kernelscope-worker"))
    check(os.access(looked, os.X_OK),
          "the worker is where the programs look for it (bindir/../libexec)",
          f"libexecdir is {opts['libexecdir']} and bindir {opts['bindir']}: "
          f"{looked} does not exist")

    penv = program_env()
    status, main_help, err = run([cli, "--help"], env=penv)
    commands = [c for c in commands_of(main_help) if c != "help"]
    check(status == 0 and commands, "kernelscope-cli --help lists the commands",
          main_help + err)
    status, out, err = run([cli, "ops"], env=penv)
    check(status == 0 and re.search(r"^invert\b", out, re.M), "kernelscope-cli ops", out + err)
    status, out, err = run([cli, "devices"], env=penv)
    check(status == 0 and "CPU" in out, "kernelscope-cli devices", out + err)
    work = os.path.join(destdir, "work")
    os.makedirs(work, exist_ok=True)
    status, out, err = run([cli, "run", "invert", "--engine", "cpu", "--in", "random:8x8",
                            "--out", "inverted.png"], env=penv, cwd=work)
    size = png_size(os.path.join(work, "inverted.png")) if status == 0 else None
    check(size == (8, 8), "kernelscope-cli run invert --engine cpu writes an 8×8 PNG",
          f"status {status}, size {size}\n{out}{err}")
    status, out, err = run([cli, "kernel", "--check", "--expr", "out = in;"], env=penv,
                           cwd=work, timeout=300)
    what = "kernelscope-cli kernel --check runs in the installed worker"
    if status == 0:
        check(True, what)
    elif "kernelscope-worker" in err:
        check(False, what, err)
    else:
        skip(what, "user kernels cannot be compiled here: " + err.strip().replace("#", ""))
    status, out, err = run([gui, "--version"], env=program_env(leaks=False))
    check(status == 0 and out.startswith("kernelscope "),
          "kernelscope --version without a display", out + err)

    # --- manual pages ----------------------------------------------------
    man1 = os.path.join(mandir, "man1")
    groff = shutil.which("groff")
    pages = {"kernelscope": None, "kernelscope-cli": main_help}
    for command in commands:
        status, text, err = run([cli, command, "--help"], env=penv)
        pages[f"kernelscope-cli-{command}"] = text if status == 0 else ""
    for name, help_text in pages.items():
        path = os.path.join(man1, name + ".1")
        if not check(os.path.isfile(path), f"man1/{name}.1 is installed"):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            roff = f.read()
        first = roff.split("\n", 1)[0]
        check(first.startswith(".TH ") and name.upper() in first,
              f"{name}.1 starts with its .TH", first)
        if groff:
            status, out, err = run([groff, "-man", "-Tutf8", "-ww", "-z", path])
            check(status == 0 and not err.strip(), f"groff reads {name}.1 without warnings",
                  err)
        if name.startswith("kernelscope-cli-"):
            absent = [o for o in long_options(help_text)
                      if o.replace("-", r"\-") not in roff]
            check(help_text and not absent, f"{name}.1 has every option of its --help",
                  "absent: " + " ".join(absent))
    if not groff:
        skip("the manual pages through groff", "groff is not installed")

    # --- bash completion -------------------------------------------------
    completions = [p for p in installed if p.endswith("/completions/kernelscope-cli")]
    completion = destdir + completions[0] if completions else None
    if check(completion and os.path.isfile(completion),
             "the bash completion of kernelscope-cli is installed"):
        status, out, err = run(["bash", "-n", completion])
        check(status == 0, "bash -n accepts the completion", err)
        probe = ('. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); '
                 '_kernelscope_cli; printf "%s\\n" "${COMPREPLY[@]}"')
        status, out, err = run(["bash", "-c", probe, "bash", completion,
                                "kernelscope-cli", "ru"])
        check(status == 0 and out.split() == ["run"], "the completion completes “ru” to run",
              out + err)
        status, out, err = run(["bash", "-c", probe, "bash", completion,
                                "kernelscope-cli", "run", "--cov"])
        check(status == 0 and out.split() == ["--coverage"],
              "the completion completes run --cov to --coverage", out + err)

    # --- desktop integration ---------------------------------------------
    desktop = os.path.join(datadir, "applications", APP_ID + ".desktop")
    metainfo = os.path.join(datadir, "metainfo", APP_ID + ".metainfo.xml")
    check(os.path.isfile(desktop), "the desktop file is installed")
    check(os.path.isfile(metainfo), "the metainfo is installed")
    validate = shutil.which("desktop-file-validate")
    if validate and os.path.isfile(desktop):
        status, out, err = run([validate, desktop])
        check(status == 0 and not (out + err).strip(),
              "desktop-file-validate accepts the installed desktop file", out + err)
    appstreamcli = shutil.which("appstreamcli")
    if appstreamcli:
        # The whole tree: the metainfo, its launchable's desktop file, the icon.
        status, out, err = run([appstreamcli, "validate-tree", "--no-net",
                                os.path.join(destdir, prefix.lstrip("/"))])
        check(status == 0, "appstreamcli validate-tree accepts the installed tree", out + err)

    icons = os.path.join(datadir, "icons", "hicolor")
    for sub, name, box in (("scalable", APP_ID + ".svg", None),
                           ("symbolic", APP_ID + "-symbolic.svg", "0 0 16 16")):
        path = os.path.join(icons, sub, "apps", name)
        try:
            root = ET.parse(path).getroot()
            good = root.tag == "{http://www.w3.org/2000/svg}svg" and (
                box is None or root.get("viewBox") == box)
        except (OSError, ET.ParseError) as e:
            good, root = False, e
        check(good, f"icons/hicolor/{sub}/apps/{name} is an SVG"
              + (f" of {box}" if box else ""), root)

    # --- settings schema -------------------------------------------------
    schemadir = os.path.join(datadir, "glib-2.0", "schemas")
    check(os.path.isfile(os.path.join(schemadir, APP_ID + ".gschema.xml")),
          "the schema is installed")
    compiled = os.path.join(schemadir, "gschemas.compiled")
    if os.path.exists(compiled):
        check(True, "post-install compiled the schemas")
    else:
        check("glib-compile-schemas" in install_log
              and "because DESTDIR is set" in install_log,
              "post-install compiles the schemas (skipped under DESTDIR)", install_log)
        compile_schemas = shutil.which("glib-compile-schemas")
        gsettings = shutil.which("gsettings")
        if compile_schemas and gsettings:
            target = os.path.join(destdir, "compiled-schemas")
            os.makedirs(target, exist_ok=True)
            status, out, err = run([compile_schemas, "--strict", "--targetdir", target,
                                    schemadir])
            if check(status == 0, "the installed schemas compile", out + err):
                status, out, err = run([gsettings, "--schemadir", target, "get", APP_ID,
                                        "kernel-time-limit"],
                                       env=dict(program_env(), GSETTINGS_BACKEND="memory"))
                check(status == 0 and out.split() == ["uint32", "2000"],
                      "gsettings reads the installed schema's defaults", out + err)
        else:
            skip("the installed schemas compile", "glib-compile-schemas or gsettings missing")

    # --- licence ---------------------------------------------------------
    licence = os.path.join(datadir, "licenses", "kernelscope", "COPYING")
    try:
        with open(licence, "rb") as a, open(os.path.join(source, "COPYING"), "rb") as b:
            same = a.read() == b.read()
    except OSError as e:
        same = False
        licence = e
    check(same, "COPYING is installed in share/licenses/kernelscope", licence)

    return not all(results)


if __name__ == "__main__":
    sys.exit(main())
