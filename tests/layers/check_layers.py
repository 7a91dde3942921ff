#!/usr/bin/env python3
"""Fails on any #include that runs against the layer table of ARCHITECTURE.md.

The table sits between the markers `<!-- layers -->` and `<!-- /layers -->`: one row per layer, the top layer
first, each naming its modules in backticks. A module is a folder (`core/estimate/`), a file stem
(`core/x`: core/x.hpp and core/x.cpp) or a file (`app/gui_main.cpp`). A file belongs to the module whose name is
the longest prefix of its path. A file may include files of its own module and of the
modules on lower rows, nothing on its own row or above. Every source file under the folders the table covers
must belong to a module, so a new folder has to be placed in the table before it builds.

usage: check_layers.py REPO_ROOT    (exit 0: every include holds; 1: the violations, one per line)
"""
import os
import re
import sys

SOURCE_SUFFIXES = (".hpp", ".cpp", ".h")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
MODULE = re.compile(r"`([^`]+)`")


def read_table(root):
    path = os.path.join(root, "ARCHITECTURE.md")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    start, end = text.find("<!-- layers -->"), text.find("<!-- /layers -->")
    if start < 0 or end < start:
        sys.exit(f"{path}: no <!-- layers --> ... <!-- /layers --> table")
    rows = [line for line in text[start:end].splitlines() if line.startswith("|") and "`" in line]
    modules = {}  # name -> layer (0 = bottom)
    for index, line in enumerate(rows):
        layer = len(rows) - 1 - index
        for name in MODULE.findall(line.split("|")[2] if line.count("|") >= 3 else line):
            if name in modules:
                sys.exit(f"{path}: module `{name}` is on two rows of the layer table")
            modules[name] = layer
    if not modules:
        sys.exit(f"{path}: the layer table names no modules")
    return modules


def module_of(path, modules):
    best = None
    for name in modules:
        if name.endswith("/"):
            hit = path.startswith(name)
        elif "." in os.path.basename(name):
            hit = path == name
        else:
            hit = os.path.splitext(path)[0] == name
        if hit and (best is None or len(name) > len(best)):
            best = name
    return best


def source_files(root, top_folders):
    for top in sorted(top_folders):
        for folder, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if f.endswith(SOURCE_SUFFIXES):
                    yield os.path.relpath(os.path.join(folder, f), root).replace(os.sep, "/")


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    modules = read_table(root)
    top_folders = {name.split("/")[0] for name in modules}
    problems = []
    files = list(source_files(root, top_folders))
    for path in files:
        own = module_of(path, modules)
        if own is None:
            problems.append(f"{path}: in no module of the layer table (ARCHITECTURE.md)")
            continue
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m or not os.path.exists(os.path.join(root, m.group(1))):
                    continue  # a system header, a generated one or a sibling's relative include
                target = module_of(m.group(1), modules)
                if target is None or target == own:
                    continue
                if modules[target] >= modules[own]:
                    where = "its own layer" if modules[target] == modules[own] else "a higher layer"
                    problems.append(f"{path}:{number}: includes {m.group(1)} (`{target}`, {where}) "
                                    f"from `{own}`")
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} problem(s) against the layer table of ARCHITECTURE.md")
        return 1
    print(f"every include of {len(files)} files holds to the layer table")
    return 0


if __name__ == "__main__":
    sys.exit(main())
