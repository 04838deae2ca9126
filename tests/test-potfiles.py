#!/usr/bin/env python3
"""The GUI's translations, checked against the sources.

  test-potfiles.py potfiles SRCDIR
      po/POTFILES names every source file with translatable text (_(), N_(),
      C_(), NC_(), ngettext() in C; translatable="yes" in GtkBuilder files),
      and only files that exist; a C or GtkBuilder file it names has some.

  test-potfiles.py catalogues SRCDIR MSGFMT [XGETTEXT MSGCMP]
      every language of po/LINGUAS has a catalogue that msgfmt --check
      accepts, with no fuzzy or untranslated message; with xgettext and
      msgcmp, also one for every message the sources have now.

Exit status 0: all good; 1: a finding (each is printed); 77: a tool is missing.
"""

import os
import re
import subprocess
import sys
import tempfile

C_MARK = re.compile(r'(?<![A-Za-z0-9_])(?:N?_|C_|NC_|ngettext)\s*\(')
UI_MARK = re.compile(r'translatable\s*=\s*"yes"')
SOURCE_SUFFIXES = ('.c', '.h', '.ui')
# The layers of the source tree (docs/architecture.md); not the tests, which name the
# marks themselves, nor build directories, wherever they are.
SOURCE_DIRS = ('app', 'gpu', 'kernels', 'ui', 'resources')

# The keywords of meson's i18n 'glib' preset (po/meson.build uses it).
XGETTEXT_ARGS = [
    '--from-code=UTF-8', '--add-comments',
    '--keyword=_', '--keyword=N_', '--keyword=C_:1c,2', '--keyword=NC_:1c,2',
    '--keyword=g_dcgettext:2', '--keyword=g_dngettext:2,3', '--keyword=g_dpgettext2:2c,3',
    '--flag=N_:1:pass-c-format', '--flag=C_:2:pass-c-format', '--flag=NC_:2:pass-c-format',
    '--flag=g_dngettext:2:pass-c-format', '--flag=g_strdup_printf:1:c-format',
    '--flag=g_string_printf:2:c-format', '--flag=g_string_append_printf:2:c-format',
    '--flag=g_error_new:3:c-format', '--flag=g_set_error:4:c-format',
    '--flag=g_markup_printf_escaped:1:c-format', '--flag=g_log:3:c-format',
    '--flag=g_print:1:c-format', '--flag=g_printerr:1:c-format', '--flag=g_printf:1:c-format',
    '--flag=g_fprintf:2:c-format', '--flag=g_sprintf:2:c-format', '--flag=g_snprintf:3:c-format',
]


def read_list(path):
    with open(path, encoding='utf-8') as f:
        return [line.strip() for line in f if line.strip() and not line.strip().startswith('#')]


def is_build_dir(path):
    return (os.path.exists(os.path.join(path, 'build.ninja'))
            or os.path.isdir(os.path.join(path, 'meson-private')))


def has_marks(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        text = f.read()
    return bool((UI_MARK if path.endswith('.ui') else C_MARK).search(text))


def marked_files(srcdir):
    found = set()
    for top in SOURCE_DIRS:
        for root, dirs, files in os.walk(os.path.join(srcdir, top)):
            rel_root = os.path.relpath(root, srcdir)
            dirs[:] = sorted(d for d in dirs
                             if not d.startswith('.') and not is_build_dir(os.path.join(root, d)))
            for name in files:
                if name.endswith(SOURCE_SUFFIXES) and has_marks(os.path.join(root, name)):
                    found.add(os.path.normpath(os.path.join(rel_root, name)))
    return found


def check_potfiles(srcdir):
    listed = read_list(os.path.join(srcdir, 'po', 'POTFILES'))
    findings = []
    seen = set()
    for entry in listed:
        if entry in seen:
            findings.append(f'po/POTFILES names {entry} twice')
        seen.add(entry)
        path = os.path.join(srcdir, entry)
        if not os.path.isfile(path):
            findings.append(f'po/POTFILES names {entry}, which does not exist')
        elif entry.endswith(SOURCE_SUFFIXES) and not has_marks(path):
            # Desktop files and metainfo (.in) are translatable as a whole.
            findings.append(f'po/POTFILES names {entry}, which has nothing to translate')
    for entry in sorted(marked_files(srcdir) - seen):
        findings.append(f'{entry} has translatable text but is not in po/POTFILES')
    print(f'# {len(listed)} files in po/POTFILES')
    return findings


def check_catalogues(srcdir, msgfmt, xgettext=None, msgcmp=None):
    podir = os.path.join(srcdir, 'po')
    findings = []
    pot = None
    with tempfile.TemporaryDirectory() as tmp:
        if xgettext and msgcmp:
            pot = os.path.join(tmp, 'current.pot')
            subprocess.run([xgettext, *XGETTEXT_ARGS, '--directory=' + srcdir,
                            '--files-from=' + os.path.join(podir, 'POTFILES'),
                            '--output=' + pot], check=True)
        for lang in (w for line in read_list(os.path.join(podir, 'LINGUAS'))
                     for w in line.split()):
            po = os.path.join(podir, lang + '.po')
            if not os.path.isfile(po):
                findings.append(f'po/LINGUAS names {lang}, but po/{lang}.po does not exist')
                continue
            run = subprocess.run([msgfmt, '--check', '--statistics', '-o', os.devnull, po],
                                 capture_output=True, text=True, env=dict(os.environ, LC_ALL='C'))
            stats = (run.stdout + run.stderr).strip()
            print(f'# {lang}.po: {stats}')
            if run.returncode != 0:
                findings.append(f'msgfmt --check refuses po/{lang}.po:\n{stats}')
            elif 'fuzzy' in stats or 'untranslated' in stats:
                findings.append(f'po/{lang}.po is not complete: {stats}')
            if pot is not None:
                # Every message the sources have now must be in the catalogue.
                cmp = subprocess.run([msgcmp, po, pot], capture_output=True, text=True,
                                     env=dict(os.environ, LC_ALL='C'))
                if cmp.returncode != 0:
                    findings.append(f'po/{lang}.po lacks messages the sources have now '
                                    f'(meson compile kernelscope-update-po):\n'
                                    + cmp.stderr.strip())
    return findings


def main(argv):
    if len(argv) < 3 or argv[1] not in ('potfiles', 'catalogues'):
        print(__doc__, file=sys.stderr)
        return 2
    srcdir = argv[2]
    if argv[1] == 'potfiles':
        findings = check_potfiles(srcdir)
    else:
        tools = argv[3:6]
        if not tools or not all(os.path.exists(t) for t in tools):
            print('# msgfmt (gettext) is missing')
            return 77
        findings = check_catalogues(srcdir, *tools)
    for finding in findings:
        print(finding)
    return 1 if findings else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
