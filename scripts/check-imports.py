#!/usr/bin/env python3
"""Fails when the modules of a crate import each other in a circle.

Each source file under crates/*/src is a module (lib.rs/main.rs the crate root, a/mod.rs and
a.rs the module `a`, a/b.rs `a::b`). An arrow runs from a file to every module it names
through `crate::…`, `super::…` or `self::…` (in `use` lines and in paths written inline),
resolved to the deepest module that is a file. Test code is left out: a file's trailing
`#[cfg(test)] mod tests { … }`, and files named tests.rs. A circle (two or more files that
reach each other) is printed with the names that tie it, and the exit code is 1.

Arrows between crates need no check here: cargo refuses a circle of crates.

    python3 scripts/check-imports.py            # every crate
    python3 scripts/check-imports.py --verbose  # and each crate's arrow count
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PATH_RE = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)(::\{([^{}]*)\})?")
TEST_TAIL_RE = re.compile(r"^#\[cfg\(test\)\]\s*\n(?:#\[[^\n]*\]\s*\n)*mod [a-z_]+ \{", re.M)
TEST_FILE_RE = re.compile(r"^#\[cfg\(test\)\]\s*\n(?:#\[[^\n]*\]\s*\n)*mod ([a-z_]+);", re.M)


def modules(src):
    """{module path tuple: file} for every .rs file under src."""
    out = {}
    for dirpath, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            full = os.path.join(dirpath, f)
            rel = os.path.relpath(full, src)[:-3].split(os.sep)
            if rel[-1] in ("lib", "main") and len(rel) == 1:
                path = ()
            elif rel[-1] == "mod":
                path = tuple(rel[:-1])
            else:
                path = tuple(rel)
            out[path] = full
    return out


def code_of(text):
    """The text without comments, string literals and the trailing test module."""
    m = TEST_TAIL_RE.search(text)
    if m:
        text = text[: m.start()]
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    return text


def test_modules(text, path):
    """Modules declared as `#[cfg(test)] mod x;` in this file: test code."""
    return {path + (m.group(1),) for m in TEST_FILE_RE.finditer(text)}


def resolve(mods, base, segments):
    """The deepest module named by base + segments, or None."""
    best = None
    cur = list(base)
    for seg in segments:
        cur.append(seg)
        if tuple(cur) in mods:
            best = tuple(cur)
    return best


def arrows_of(mods, path, text):
    out = {}
    for m in PATH_RE.finditer(code_of(text)):
        head, rest, _, group = m.group(1), m.group(2), m.group(3), m.group(4)
        segments = [s for s in rest.split("::") if s]
        if head == "crate":
            base = ()
        else:
            base = list(path)
            if head == "super":
                base = base[:-1]
            while segments and segments[0] == "super":
                base = base[:-1]
                segments = segments[1:]
        tails = [[]]
        if group:
            tails = [[s for s in t.strip().split("::") if s and s != "self"] for t in group.split(",") if t.strip()]
        for tail in tails:
            target = resolve(mods, tuple(base), segments + [re.sub(r"\s+as\s+.*", "", s) for s in tail])
            if target is not None and target != path and not is_ancestor(target, path):
                out.setdefault(target, set()).add((segments + tail)[-1] if (segments + tail) else "")
    return out


def is_ancestor(a, b):
    """A module naming its own parent (`super::Item` defined in mod.rs) is a child's right."""
    return len(a) < len(b) and b[: len(a)] == a


def circles(graph):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, {}):
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
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in list(graph):
        if v not in index:
            visit(v)
    return out


def main():
    verbose = "--verbose" in sys.argv
    crates_dir = os.path.join(ROOT, "crates")
    failed = False
    for crate in sorted(os.listdir(crates_dir)):
        src = os.path.join(crates_dir, crate, "src")
        if not os.path.isdir(src):
            continue
        mods = modules(src)
        tests = set()
        texts = {}
        for path, file in mods.items():
            with open(file, encoding="utf-8") as fh:
                texts[path] = fh.read()
            tests |= test_modules(texts[path], path)
        graph = {}
        for path, file in mods.items():
            if path in tests or path[-1:] == ("tests",):
                continue
            graph[path] = {t: n for t, n in arrows_of(mods, path, texts[path]).items() if t not in tests}
        found = circles(graph)
        if verbose:
            print(f"{crate}: {len(graph)} modules, {sum(len(v) for v in graph.values())} arrows, {len(found)} circles")
        for comp in found:
            failed = True
            names = ", ".join("::".join(p) or "(root)" for p in comp)
            print(f"{crate}: a circle of {len(comp)} modules: {names}")
            for a in comp:
                for b in comp:
                    if b in graph.get(a, {}):
                        what = ", ".join(sorted(graph[a][b]))
                        print(f"    {'::'.join(a) or '(root)'} -> {'::'.join(b) or '(root)'}: {what}")
    if failed:
        print("circular imports found: move what both sides need into a module below them")
        return 1
    print("no circular imports between modules")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        # A reader that went away (`| head`) is done: the verdict is the exit code.
        sys.stderr.close()
        sys.exit(0)
