#!/usr/bin/env python3
"""Import cycles between the modules of a Rust crate, at the level of files.

Usage: tools/module_cycles.py CRATE_SRC_DIR [...]. Each file is a module (`mod.rs` and
`lib.rs` name their directory's module); an edge A -> B is a path in A's code (not in comments)
that names B: `crate::x::y`, `super::y`, `self::y`, or a child module declared by A that A then
uses (`mod y;` followed by `y::`). A parent's declaration of its children (`mod y;`) is not an
edge. Prints every strongly connected component of more than one module and exits 1 if there
is one.
"""
import os
import re
import sys


def modules(src):
    mods = {}
    for root, _, files in os.walk(src):
        for f in files:
            if not f.endswith('.rs'):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, src)[:-3].split(os.sep)
            if rel[-1] in ('mod', 'lib', 'main'):
                rel = rel[:-1]
            mods[tuple(rel)] = path
    return mods


TOKENS = re.compile(r"""//[^\n]*|/\*.*?\*/|r(#*)".*?"\1|"(?:[^"\\]|\\.)*"|'(?:[^'\\\n]|\\.){1,10}'""", re.S)


def code(text):
    """The text without comments, and with every string and char literal emptied (scanned
    left to right, so a `//` inside a string is not a comment)."""
    return TOKENS.sub(lambda m: '' if m.group(0).startswith('/') else '""', text)


def resolve(mods, parts):
    """The longest prefix of `parts` that is a module."""
    for k in range(len(parts), 0, -1):
        if tuple(parts[:k]) in mods:
            return tuple(parts[:k])
    return ()


def edges(mods, name, text):
    out = set()
    body = code(text)
    # Test modules inside a file may reach anywhere; only the file's own code counts.
    body = re.split(r'#\[cfg\(test\)\]\s*mod tests', body)[0]
    for m in re.finditer(r'\b(crate|super|self)((?:::\w+)+)', body):
        head, rest = m.group(1), m.group(2).split('::')[1:]
        if head == 'crate':
            base = []
        elif head == 'super':
            base = list(name[:-1])
            while rest and rest[0] == 'super':
                base, rest = base[:-1], rest[1:]
        else:
            base = list(name)
        target = resolve(mods, base + rest)
        if target != name and not (len(target) > len(name) and target[:len(name)] == name and head == 'self'):
            out.add(target)
    # `use super::{a, b}` and nested groups
    for m in re.finditer(r'\buse\s+(crate|super)::\{([^;]*)\};', body):
        base = [] if m.group(1) == 'crate' else list(name[:-1])
        for item in re.findall(r'(\w+)(?:::|\s*[,}]|\s*$)', m.group(2)):
            target = resolve(mods, base + [item])
            if target and target != name:
                out.add(target)
    return out


def sccs(graph):
    index, low, stack, on, result, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            result.append(comp)

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return result


def main():
    found = False
    for src in sys.argv[1:]:
        mods = modules(src)
        graph = {}
        for name, path in mods.items():
            # A module's edges to its own ancestors are how children use what a parent defines;
            # an edge to the root (the crate's lib.rs re-exports) is not a dependency either.
            graph[name] = {t for t in edges(mods, name, open(path).read())
                           if t and t != name[:len(t)]}
        for comp in sccs(graph):
            if len(comp) > 1:
                found = True
                print(src + ': cycle: ' + ' <-> '.join('::'.join(c) for c in sorted(comp)))
    if not found:
        print('no import cycles in', ', '.join(sys.argv[1:]))
    sys.exit(1 if found else 0)


main()
