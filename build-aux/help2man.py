#!/usr/bin/env python3
"""Manual pages and bash completion from the programs' own --help.

  help2man.py man --cli CLI --gui GUI --metainfo FILE --outdir DIR [--commands A,B,…]
  help2man.py completion --cli CLI --output FILE [--commands A,B,…]

`man` runs `CLI --help`, `CLI COMMAND --help` for every command it lists,
`GUI --help-all` and `--version` of both, and writes kernelscope.1,
kernelscope-cli.1 and kernelscope-cli-COMMAND.1 into DIR. The GUI's page
takes its summary and description from the AppStream metainfo where its
--help has none, and every page's date is the newest release's there.
`completion` writes a bash completion script for the command-line tool:
its commands, then each command's options, with files for the options and
arguments that name one, folders for a DIR, and the op ids (`CLI ops --json`) for an OP.

--commands is the list the build expects outputs for: when the tool's own
list differs, nothing is written and the exit status is 1, so that a new
command cannot go without its page.

Python 3 standard library only.
"""

import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

OPTION_TERM = re.compile(r"^((?:-\w, )?--?[\w-]+(?:=\S+)?)(?:\s+(.*))?$")
ITEM_TERM = re.compile(r"^(\S+)(?:\s+(.*))?$")
CHOICES = re.compile(r"^([a-z][\w-]*(?:, [a-z][\w-]*)*) or ([a-z][\w-]*)(?=[\s(:;,.]|$)")

ROFF_CHARS = {
    "\u201c": r"\(lq", "\u201d": r"\(rq", "\u2018": r"\(oq", "\u2019": r"\(cq",
    "\u2013": r"\(en", "\u2014": r"\(em", "\u00d7": r"\(mu", "\u2192": r"\(->",
    "\u2190": r"\(<-", "\u2194": r"\(<>", "\u00b7": r"\(pc", "\u2264": r"\(<=",
    "\u2265": r"\(>=",
}


class HelpError(Exception):
    pass


def run_help(program, *args):
    """The program's output for ARGS, read as UTF-8 whatever the build's locale."""
    env = dict(os.environ)
    env.pop("LANGUAGE", None)
    env["LC_ALL"] = "C.UTF-8"
    # A sanitizer build of a GTK program leaks caches by design; --help is not the place.
    env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), "detect_leaks=0"]))
    for name in ("DISPLAY", "WAYLAND_DISPLAY"):
        env.pop(name, None)
    try:
        done = subprocess.run([program, *args], env=env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60,
                              check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise HelpError(f"{program} {' '.join(args)}: {e}") from e
    if done.returncode != 0:
        raise HelpError(f"{program} {' '.join(args)} exited with status {done.returncode}: "
                        f"{done.stderr.decode('utf-8', 'replace').strip()}")
    return done.stdout.decode("utf-8", "replace")


class Help:
    """GOption's --help layout: Usage:, paragraphs, sections of items, paragraphs."""

    def __init__(self, text):
        self.usage = []
        self.description = []
        self.sections = []
        self.trailer = []
        self._parse(text.expandtabs().splitlines())

    def _parse(self, lines):
        paragraph = None
        section = None
        i = 0
        while i < len(lines):
            line = lines[i].rstrip()
            following = lines[i + 1] if i + 1 < len(lines) else ""
            indented = line[:1] == " "
            if not line.strip():
                paragraph = section = None
            elif line == "Usage:":
                i += 1
                while i < len(lines) and lines[i].startswith(" ") and lines[i].strip():
                    self.usage.append(lines[i].strip())
                    i += 1
                continue
            elif not indented and following[:1] == " " and following.strip():
                section = (line.rstrip(":"), [])
                self.sections.append(section)
                paragraph = None
            elif indented and section is not None:
                self._add_item(section[1], line)
            else:
                if paragraph is None:
                    paragraph = []
                    (self.trailer if self.sections else self.description).append(paragraph)
                paragraph.append(line.strip())
            i += 1
        self.description = [" ".join(p) for p in self.description]
        self.trailer = [" ".join(p) for p in self.trailer]

    @staticmethod
    def _add_item(items, line):
        indent = len(line) - len(line.lstrip())
        text = line.strip()
        if items and indent > items[-1]["indent"] + 4:
            items[-1]["text"] = (items[-1]["text"] + " " + text).strip()
            return
        match = OPTION_TERM.match(text) if text.startswith("-") else ITEM_TERM.match(text)
        if match is None:
            raise HelpError(f"cannot read the help line “{text}”")
        items.append({"indent": indent, "term": match.group(1), "text": match.group(2) or ""})

    def section(self, title):
        for name, items in self.sections:
            if name == title:
                return items
        return []

    def options(self):
        """Every option of every section, as (section, option) pairs."""
        out = []
        for name, items in self.sections:
            for item in items:
                if item["term"].startswith("-"):
                    out.append((name, parse_option(item)))
        return out


def parse_option(item):
    names, _, arg = item["term"].partition("=")
    flags = [n.strip() for n in names.split(",")]
    return {"names": flags, "arg": arg or None, "text": item["text"]}


# --- roff -----------------------------------------------------------------

def roff_chars(text):
    out = []
    for c in text:
        if c == "\\":
            out.append(r"\e")
        elif c in ROFF_CHARS:
            out.append(ROFF_CHARS[c])
        elif ord(c) > 0x7E:
            out.append(r"\[u%04X]" % ord(c))
        else:
            out.append(c)
    return "".join(out)


class Roff:
    """Text to roff: words that are typed (options, program and command names) get
    real minus signs, every other hyphen stays a hyphen."""

    def __init__(self, literals):
        words = sorted(set(literals), key=len, reverse=True)
        self.literal = re.compile(
            r"(?<![\w-])(?:--?[A-Za-z0-9][\w-]*"
            + "".join("|" + re.escape(w) for w in words if "-" in w) + r")(?![\w-])")

    def text(self, text):
        out, pos = [], 0
        for m in self.literal.finditer(text):
            out.append(roff_chars(text[pos:m.start()]))
            out.append(roff_chars(m.group(0)).replace("-", r"\-"))
            pos = m.end()
        out.append(roff_chars(text[pos:]))
        line = "".join(out)
        return r"\&" + line if line[:1] in (".", "'") else line

    def option(self, option):
        names = ", ".join(r"\fB%s\fR" % roff_chars(n).replace("-", r"\-")
                          for n in option["names"])
        if option["arg"]:
            names += r"=\fI%s\fR" % roff_chars(option["arg"]).replace("-", r"\-")
        return names

    def synopsis(self, program, rest):
        out = [r"\fB%s\fR " % roff_chars(program).replace("-", r"\-")]
        for token in re.split(r"(\s+|[\[\]|])", rest):
            if not token or token.isspace() or token in "[]|":
                out.append(token)
                continue
            if token.startswith("-"):
                name, eq, arg = token.partition("=")
                piece = r"\fB%s\fR" % roff_chars(name).replace("-", r"\-")
                if eq:
                    piece += r"=\fI%s\fR" % roff_chars(arg)
                out.append(piece)
            elif re.fullmatch(r"[A-Z][A-Z0-9_.]*(?:\.\w+)?…?", token) or token.isupper():
                out.append(r"\fI%s\fR" % roff_chars(token))
            else:
                out.append(self.text(token))
        return "".join(out)


def name_line(roff, name, summary):
    return [".SH NAME", r"%s \- %s" % (roff_chars(name).replace("-", r"\-"), roff.text(summary))]


def page_header(name, date, source, manual="User Commands"):
    return [
        f'.TH "{name.upper()}" "1" "{date}" "{source}" "{manual}"',
        ".nh",
        ".ad l",
    ]


def paragraphs(roff, texts):
    out = []
    for i, text in enumerate(texts):
        if i > 0:
            out.append(".PP")
        out.append(roff.text(text))
    return out


def options_section(roff, options, subsections):
    out = [".SH OPTIONS"]
    current = None
    for section, option in options:
        if subsections and section != current:
            out.append(f'.SS "{roff_chars(section)}"')
            current = section
        out.append(".TP")
        out.append(roff.option(option))
        out.append(roff.text(option["text"]) if option["text"] else r"\&")
    return out


def see_also(pages):
    out = [".SH \"SEE ALSO\""]
    for i, page in enumerate(pages):
        out.append(".BR %s (1)%s" % (page.replace("-", r"\-"), "," if i < len(pages) - 1 else ""))
    return out


def usage_rest(usage, program):
    """'kernelscope-cli run [OPTION…] OP' → 'run [OPTION…] OP'."""
    if not usage:
        raise HelpError(f"{program} --help prints no usage")
    words = usage[0].split(None, 1)
    return words[1] if len(words) > 1 else ""


# --- metainfo -------------------------------------------------------------

XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


def read_metainfo(path):
    """The untranslated texts: a merged metainfo holds each translation too."""
    root = ET.parse(path).getroot()
    summary = next(((s.text or "").strip() for s in root.findall("summary")
                    if XML_LANG not in s.attrib), "")
    texts = []
    description = root.find("description")
    for child in (description if description is not None else []):
        if XML_LANG in child.attrib:
            continue
        if child.tag == "p":
            texts.append(("p", " ".join("".join(child.itertext()).split())))
        elif child.tag in ("ul", "ol"):
            for li in child.findall("li"):
                if XML_LANG in li.attrib:
                    continue
                texts.append(("li", " ".join("".join(li.itertext()).split())))
    dates = [r.get("date") for r in root.iter("release") if r.get("date")]
    return summary, texts, max(dates) if dates else None


def page_date(metainfo_date):
    if metainfo_date:
        return metainfo_date
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    when = (datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc) if epoch
            else datetime.datetime.now(datetime.timezone.utc))
    return when.strftime("%Y-%m-%d")


# --- the command-line tool ------------------------------------------------

def version_of(program):
    first = run_help(program, "--version").strip().splitlines()
    return first[0].split()[-1] if first else "unknown"


def read_cli(cli, expected):
    name = os.path.basename(cli)
    main_text = run_help(cli, "--help")
    main = Help(main_text)
    commands = main.section("Commands")
    if not commands:
        raise HelpError(f"{name} --help lists no commands")
    pages = {}
    for item in commands:
        text = run_help(cli, item["term"], "--help")
        # `help --help` is the tool's own help: help is no command of its own.
        if text == main_text:
            continue
        pages[item["term"]] = Help(text)
    if expected is not None and sorted(pages) != sorted(expected):
        raise HelpError(f"{name} --help lists the commands {', '.join(pages)}, but the build "
                        f"expects pages for {', '.join(expected)}: the commands are read from "
                        "app/ks-cli.c at configure time, so reconfigure, or update "
                        "resources/meson.build where it reads them")
    return main, commands, pages


def exit_status(trailer):
    """The trailer's "Exit status: …" apart from the rest."""
    rest, status = [], []
    for text in trailer:
        at = text.lower().find("exit status:")
        if at < 0:
            rest.append(text)
            continue
        if text[:at].strip():
            rest.append(text[:at].strip())
        status.append(text[at + len("exit status:"):].strip())
    return rest, status


def sentence(text):
    text = text.strip()
    return text if not text or text[-1] in ".!?:" else text + "."


def write_page(path, lines):
    with open(path + ".tmp", "w", encoding="ascii", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(path + ".tmp", path)


def man(args):
    cli_name = os.path.basename(args.cli)
    gui_name = os.path.basename(args.gui)
    expected = args.commands.split(",") if args.commands else None
    main, commands, pages = read_cli(args.cli, expected)
    summary, meta_texts, release_date = read_metainfo(args.metainfo)
    date = page_date(release_date)
    version = version_of(args.cli)
    gui_version = version_of(args.gui)
    source = f"Kernelscope {version}"
    names = [cli_name, gui_name] + [f"{cli_name}-{c}" for c in pages] + list(pages)
    roff = Roff(names + [c["term"] for c in commands])
    extra, status = exit_status(main.trailer)
    status_lines = [".SH \"EXIT STATUS\""] + paragraphs(roff, status) if status else []
    outputs = {}

    # kernelscope-cli.1
    lines = page_header(cli_name, date, source)
    lines += name_line(roff, cli_name,
                       main.description[0].rstrip(".") if main.description else "")
    lines += [".SH SYNOPSIS", roff.synopsis(cli_name, usage_rest(main.usage, cli_name))]
    lines += [".SH DESCRIPTION"] + paragraphs(roff, main.description[1:] + extra)
    lines += [".SH COMMANDS"]
    for item in commands:
        lines += [".TP", r"\fB%s\fR" % item["term"].replace("-", r"\-"),
                  roff.text(sentence(item["text"]))]
        if item["term"] in pages:
            lines.append(r"See \fB%s\-%s\fR(1)." % (cli_name.replace("-", r"\-"),
                                                    item["term"].replace("-", r"\-")))
    lines += status_lines
    lines += see_also([f"{cli_name}-{c}" for c in pages] + [gui_name])
    outputs[f"{cli_name}.1"] = lines

    # kernelscope-cli-COMMAND.1
    summaries = {c["term"]: c["text"] for c in commands}
    for command, help_ in pages.items():
        page = f"{cli_name}-{command}"
        words = usage_rest(help_.usage, page).split(None, 1)
        if words and words[0] == command:
            words = words[1:]
        rest = words[0] if words else ""
        lines = page_header(page, date, source)
        lines += name_line(roff, page, summaries[command])
        lines += [".SH SYNOPSIS", roff.synopsis(f"{cli_name} {command}", rest)]
        lines += [".SH DESCRIPTION"] + paragraphs(roff, help_.description + help_.trailer
                                                  or [summaries[command]])
        options = help_.options()
        if options:
            lines += options_section(roff, options, False)
        lines += status_lines
        lines += see_also([cli_name, gui_name])
        outputs[f"{page}.1"] = lines

    # kernelscope.1
    gui = Help(run_help(args.gui, "--help-all"))
    lines = page_header(gui_name, date, f"Kernelscope {gui_version}")
    lines += name_line(roff, gui_name, summary)
    lines += [".SH SYNOPSIS", roff.synopsis(gui_name, usage_rest(gui.usage, gui_name))]
    lines += [".SH DESCRIPTION"]
    if gui.description:
        lines += paragraphs(roff, gui.description)
    else:
        for kind, text in meta_texts:
            lines += [".PP" if kind == "p" else r".IP \(bu 2", roff.text(text)]
    lines += paragraphs(roff, gui.trailer) if gui.trailer else []
    lines += options_section(roff, gui.options(), True)
    lines += see_also([cli_name])
    outputs[f"{gui_name}.1"] = lines

    os.makedirs(args.outdir, exist_ok=True)
    for name, page_lines in outputs.items():
        write_page(os.path.join(args.outdir, name), page_lines)


# --- bash completion ------------------------------------------------------

def op_ids(cli):
    try:
        data = json.loads(run_help(cli, "ops", "--json"))
        return [op["id"] for op in data["ops"]]
    except (HelpError, ValueError, KeyError, TypeError) as e:
        print(f"help2man.py: no op names for the completion: {e}", file=sys.stderr)
        return []


def takes_file(arg):
    """--in=FILE, --coverage=FILE.png, --output=FILE: but not --save=NAME=FILE."""
    return arg is not None and re.fullmatch(r"(?:[A-Z]+\.)?FILE(?:\.\w+)?|[A-Z]*FILE", arg)


def takes_dir(arg):
    """--include-dir=DIR: a folder."""
    return arg is not None and re.fullmatch(r"[A-Z]*DIR", arg)


def positional_kind(rest):
    words = re.sub(r"\[?--?[\w-]+(?:[ =][A-Z][\w.,…]*)?\]?", " ", rest)
    words = [w.strip("[]…") for w in words.split() if w.strip("[]…")]
    words = [w for w in words if w not in ("OPTION", "OPTION…")]
    if any(w == "OP" for w in words):
        return "ops"
    if any("FILE" in w or re.fullmatch(r"[A-Z]", w) for w in words):
        return "files"
    return None


def shell_words(words):
    return " ".join(words)


def case_pattern(cmd, names):
    return "|".join(f"{cmd}:{n}" for n in names)


def completion(args):
    cli_name = os.path.basename(args.cli)
    expected = args.commands.split(",") if args.commands else None
    main, commands, pages = read_cli(args.cli, expected)
    ops = op_ids(args.cli)
    func = "_" + re.sub(r"\W", "_", cli_name)
    top_options = ["--help", "--version"]

    valued, files, dirs, choices, longs, positional = [], [], [], [], {}, {}
    for command, help_ in pages.items():
        longs[command] = []
        for _, option in help_.options():
            longs[command] += [n for n in option["names"] if n.startswith("--")]
            if option["arg"] is None:
                continue
            valued.append(case_pattern(command, option["names"]))
            if takes_file(option["arg"]):
                files.append(case_pattern(command, option["names"]))
            elif takes_dir(option["arg"]):
                dirs.append(case_pattern(command, option["names"]))
            elif option["arg"] == "OP" and ops:
                choices.append((case_pattern(command, option["names"]), "$ops"))
            else:
                m = CHOICES.match(option["text"])
                if m:
                    words = m.group(1).split(", ") + [m.group(2)]
                    choices.append((case_pattern(command, option["names"]), " ".join(words)))
        positional[command] = positional_kind(usage_rest(help_.usage, command))

    L = []
    L.append(f"# bash completion for {cli_name}")
    L.append(f"# Generated from the output of {cli_name} --help by build-aux/help2man.py.")
    L.append("")
    L.append(f"{func} ()")
    L.append("{")
    L.append('  local cur=${COMP_WORDS[COMP_CWORD]} prev="" opt="" cmd="" i')
    L.append(f'  local commands="{shell_words(c["term"] for c in commands)}"')
    L.append(f'  local ops="{shell_words(ops)}"')
    L.append("")
    L.append("  COMPREPLY=()")
    L.append("  (( COMP_CWORD > 0 )) && prev=${COMP_WORDS[COMP_CWORD-1]}")
    L.append("  # --name=VALUE: bash splits the word at the \"=\".")
    L.append('  if [[ $cur == "=" ]]; then')
    L.append("    opt=$prev")
    L.append('    cur=""')
    L.append('  elif [[ $prev == "=" ]] && (( COMP_CWORD > 1 )); then')
    L.append("    opt=${COMP_WORDS[COMP_CWORD-2]}")
    L.append("  fi")
    L.append("  for (( i = 1; i < COMP_CWORD; i++ )); do")
    L.append("    if [[ ${COMP_WORDS[i]} != -* ]]; then")
    L.append("      cmd=${COMP_WORDS[i]}")
    L.append("      break")
    L.append("    fi")
    L.append("  done")
    L.append('  if [[ -z $cmd ]]; then')
    L.append(f'    mapfile -t COMPREPLY < <(compgen -W "$commands {shell_words(top_options)}" '
             '-- "$cur")')
    L.append("    return 0")
    L.append("  fi")
    L.append("")
    if valued:
        L.append('  if [[ -z $opt ]]; then')
        L.append('    case "$cmd:$prev" in')
        L.append("      " + "|\\\n      ".join(valued) + ")")
        L.append("        opt=$prev")
        L.append("        ;;")
        L.append("    esac")
        L.append("  fi")
    L.append('  if [[ -n $opt ]]; then')
    L.append('    case "$cmd:$opt" in')
    if files:
        L.append("      " + "|\\\n      ".join(files) + ")")
        L.append("        compopt -o filenames 2>/dev/null")
        L.append('        mapfile -t COMPREPLY < <(compgen -f -- "$cur")')
        L.append("        ;;")
    if dirs:
        L.append("      " + "|\\\n      ".join(dirs) + ")")
        L.append("        compopt -o filenames 2>/dev/null")
        L.append('        mapfile -t COMPREPLY < <(compgen -d -- "$cur")')
        L.append("        ;;")
    for pattern, words in choices:
        L.append(f"      {pattern})")
        L.append(f'        mapfile -t COMPREPLY < <(compgen -W "{words}" -- "$cur")')
        L.append("        ;;")
    L.append("    esac")
    L.append("    return 0")
    L.append("  fi")
    L.append("")
    L.append("  if [[ $cur == -* ]]; then")
    L.append("    case $cmd in")
    for command, names in longs.items():
        L.append(f"      {command})")
        L.append(f'        mapfile -t COMPREPLY < <(compgen -W "{shell_words(names)}" -- "$cur")')
        L.append("        ;;")
    L.append("    esac")
    L.append("    return 0")
    L.append("  fi")
    L.append("")
    L.append("  case $cmd in")
    help_commands = [c["term"] for c in commands if c["term"] not in pages]
    for command in help_commands:
        L.append(f"    {command})")
        L.append('      mapfile -t COMPREPLY < <(compgen -W "$commands" -- "$cur")')
        L.append("      ;;")
    for kind, action in (("ops", 'mapfile -t COMPREPLY < <(compgen -W "$ops" -- "$cur")'),
                         ("files", None)):
        members = [c for c, k in positional.items() if k == kind]
        if not members:
            continue
        L.append(f"    {'|'.join(members)})")
        if action is None:
            L.append("      compopt -o filenames 2>/dev/null")
            L.append('      mapfile -t COMPREPLY < <(compgen -f -- "$cur")')
        else:
            L.append(f"      {action}")
        L.append("      ;;")
    L.append("  esac")
    L.append("  return 0")
    L.append("}")
    L.append("")
    L.append(f"complete -F {func} {cli_name}")

    with open(args.output + ".tmp", "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(L) + "\n")
    os.replace(args.output + ".tmp", args.output)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("man")
    p.add_argument("--cli", required=True)
    p.add_argument("--gui", required=True)
    p.add_argument("--metainfo", required=True)
    p.add_argument("--outdir", required=True)
    p.add_argument("--commands")
    p = sub.add_parser("completion")
    p.add_argument("--cli", required=True)
    p.add_argument("--output", required=True)
    p.add_argument("--commands")
    args = parser.parse_args()
    try:
        (man if args.what == "man" else completion)(args)
    except (HelpError, OSError, ET.ParseError) as e:
        print(f"help2man.py: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
