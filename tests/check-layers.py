#!/usr/bin/env python3
"""The source tree's layers, checked on the built archives.

  check-layers.py NM LAYER=ARCHIVE=DEP,DEP... ...

Each LAYER (gpu/engine, ui/view, kernels, ...) is one static library of the
build and the layers it may use (docs/architecture.md); `gpu/*` stands for
every gpu/ layer and kernels. From the symbols each object file defines and
uses (nm -P), two findings:

  - an arrow that is not allowed: an object of one layer uses a symbol that an
    object of a layer outside its dependencies defines;
  - a circle of files: objects that use each other's symbols, directly or
    through others, in any layer.

A header can declare what a layer does not define; only the symbols say who
really calls whom, so a wrong dependency fails here even where it compiles.

Exit status 0: no finding; 1: findings (each printed).
"""

import collections
import os
import subprocess
import sys

DEFINED = set('TDBRCVWGS')


def object_name(member):
    """gpu/engine/libks-gpu-engine.a.p/ks-engine.c.o -> gpu/engine/ks-engine.c"""
    folder, _, base = member.rpartition('.a.p/')
    folder = os.path.dirname(folder)
    if base.endswith('.o'):
        base = base[:-2]
    base = base.replace('meson-generated_.._', '')
    path = os.path.join(folder, base) if folder else base
    return os.path.relpath(path) if os.path.isabs(path) else path


def read_archive(nm, archive):
    """{object: (defined symbols, used symbols)} of one archive."""
    out = subprocess.run([nm, '-P', '-A', archive], check=True, capture_output=True,
                         text=True).stdout
    objects = collections.defaultdict(lambda: (set(), set()))
    for line in out.splitlines():
        head, _, rest = line.partition(']: ')
        if not rest:
            continue
        member = head.partition('[')[2]
        fields = rest.split()
        if len(fields) < 2:
            continue
        symbol, kind = fields[0], fields[1]
        defined, used = objects[object_name(member)]
        if kind == 'U':
            used.add(symbol)
        elif kind in DEFINED:
            defined.add(symbol)
    return objects


def circles(edges):
    """The strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(100000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    nm = argv[1]
    layers = {}
    for spec in argv[2:]:
        name, archive, deps = spec.split('=', 2)
        layers[name] = (archive, [d for d in deps.split(',') if d])

    def expand(deps):
        allowed = set()
        for d in deps:
            if d.endswith('/*'):
                prefix = d[:-1]
                allowed |= {n for n in layers if n.startswith(prefix) or n == 'kernels'}
            else:
                allowed.add(d)
        return allowed

    layer_of, defined_by, used_by = {}, {}, {}
    for name, (archive, _) in layers.items():
        for obj, (defined, used) in read_archive(nm, archive).items():
            layer_of[obj] = name
            used_by[obj] = used
            for symbol in defined:
                defined_by[symbol] = obj

    findings = []
    edges = collections.defaultdict(set)
    for obj in sorted(used_by):
        allowed = expand(layers[layer_of[obj]][1]) | {layer_of[obj]}
        for symbol in sorted(used_by[obj]):
            target = defined_by.get(symbol)
            if target is None or target == obj:
                continue
            edges[obj].add(target)
            if layer_of[target] not in allowed:
                findings.append('%s (%s) uses %s of %s (%s), which %s may not use'
                                % (obj, layer_of[obj], symbol, target, layer_of[target],
                                   layer_of[obj]))
    for component in circles(edges):
        findings.append('a circle of files: ' + ' -> '.join(component))

    for f in findings:
        print(f)
    arrows = sum(len(t) for t in edges.values())
    print('%d layers, %d files, %d arrows between files, %d findings'
          % (len(layers), len(used_by), arrows, len(findings)))
    return 1 if findings else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
