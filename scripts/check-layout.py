#!/usr/bin/env python3
"""Check the source tree's layout rules (docs/development.md, "Layout rules"):

  - no file under src/ over 500 lines, and no function over 60 (measured by universal-ctags:
    from a function's first line to its closing brace);
  - no folder under src/ with more than 32 files;
  - no include circle between file pairs (a.h/a.cpp is one unit: a circle is a.* including b.h
    while b.* includes a.h, directly or through others);
  - every include points down the layers (LAYERS below, docs/development.md "Layers"): a file
    includes only its own layer's files and lower layers', and the two backends never include
    each other;
  - every folder under src/, and every folder of test/ but for what test/data/ holds, has its
    line in the folder map of docs/development.md, and every folder the map names exists;
  - no Catch2 test case under test/ has a ';' in its name: catch_discover_tests splits a name
    at it (a CMake list), and each half then runs no test at all, and passes;
  - CLI11, and the registration of flags and verbs, only under src/cli/ (the trainer's own
    command line aside): the layers below the command line take plain values;
  - a concrete backend (backend/kube/, backend/local/) included only under src/backend/: the
    selector (backend/select.h) is the one way into them;
  - no folder of test/ with more than 32 files (test data aside);
  - every verb of kftrain (app.add_subcommand under src/cli/, hidden __verbs aside) named in
    the folder map's line of the folder that registers it.

Prints each breach and exits 1, or prints a one-line summary and exits 0.
  scripts/check-layout.py [SRC_DIR]
"""
import os
import re
import subprocess
import sys

MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 60
MAX_FOLDER_FILES = 32
# The layers, lowest first: (name, folders). A folder is matched by its longest prefix.
# The trainer is a program of its own beside them, over util/ and wire/ only.
LAYERS = [
    ("util", ("util", "wire")),
    ("model", ("manifest", "estimate", "tune", "pipeline", "mcp", "diagnose", "doctor",
               "progress", "usage")),
    ("job", ("job",)),
    ("services", ("load", "cost", "staging", "search", "state", "inspect")),
    ("backend", ("backend/kube", "backend/local", "agent")),
    ("selector", ("backend",)),
    ("cli", ("cli",)),
]
TRAINER = "trainer"
CLI = "cli"
BACKEND = "backend"
CONCRETE_BACKENDS = ("backend/kube/", "backend/local/")
MAP_FILE = os.path.join("docs", "development.md")
INCLUDE = re.compile(r'^\s*#include "([^"]+)"', re.M)


def sources(root):
    for folder, _, files in os.walk(root):
        for name in sorted(files):
            if name.endswith((".h", ".cpp")):
                yield os.path.relpath(os.path.join(folder, name), root)


def unit_of(path):
    return path.rsplit(".", 1)[0]


def include_graph(root):
    graph = {}
    for path in sources(root):
        with open(os.path.join(root, path), encoding="utf-8") as f:
            text = f.read()
        for included in INCLUDE.findall(text):
            if os.path.exists(os.path.join(root, included)) and unit_of(included) != unit_of(path):
                graph.setdefault(unit_of(path), {})[unit_of(included)] = path
    return graph


def circles(graph):
    """Strongly connected components of more than one unit (Tarjan, iterative)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(graph.get(start, {})))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(graph.get(nxt, {}))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        component.append(top)
                        if top == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def layer_of(unit):
    """Return (rank, folder) of a unit: its layer's rank and the layer folder it lies in."""
    best = None
    for rank, (_, folders) in enumerate(LAYERS):
        for folder in folders:
            if unit.startswith(folder + "/") and (best is None or len(folder) > len(best[1])):
                best = (rank, folder)
    if unit.startswith(TRAINER + "/"):
        return (None, TRAINER)
    return best


def layer_breaches(graph):
    """Includes that point up a layer, across peers of one layer, or from the trainer into the
    CLI's layers."""
    for unit, targets in graph.items():
        mine = layer_of(unit)
        for target, path in targets.items():
            theirs = layer_of(target)
            if mine is None or theirs is None:
                continue
            if mine[1] == TRAINER or theirs[1] == TRAINER:
                if mine[1] != theirs[1] and not (mine[1] == TRAINER and theirs[0] == 0):
                    yield f"{path} includes {target}.h: the trainer and the CLI share util/ " \
                          "and wire/ only"
                continue
            if theirs[0] > mine[0]:
                yield f"{path} includes {target}.h: {LAYERS[mine[0]][0]} ({mine[1]}/) may " \
                      f"not include the {LAYERS[theirs[0]][0]} layer above it ({theirs[1]}/)"
            elif theirs[0] == mine[0] and theirs[1] != mine[1] and LAYERS[mine[0]][0] == "backend":
                yield f"{path} includes {target}.h: {mine[1]}/ and {theirs[1]}/ are peers " \
                      "and never include each other"


def mapped_folders(repo, tree):
    """The folders below repo/tree that the folder map must name: all of them for src/; for
    test/, all but the test data's own folders and what npm installs."""
    folders = set()
    for folder, subfolders, _ in os.walk(os.path.join(repo, tree)):
        rel = os.path.relpath(folder, repo)
        if tree == "test":
            subfolders[:] = [s for s in subfolders if s not in ("node_modules", "__pycache__")]
            if rel == os.path.join("test", "data"):
                subfolders[:] = []
        if rel != tree:
            folders.add(rel)
    return folders


def map_breaches(root):
    """Folders of src/ and test/ missing from the folder map, and folders the map names that are
    gone."""
    repo = os.path.dirname(root)
    with open(os.path.join(repo, MAP_FILE), encoding="utf-8") as f:
        text = f.read()
    mapped = {m.rstrip("/") for m in re.findall(r"^((?:src|test)/[\w/-]*)\s", text, re.M)}
    mapped.discard("test")
    folders = mapped_folders(repo, "src") | mapped_folders(repo, "test")
    for folder in sorted(folders - mapped):
        yield f"{folder}/ is missing from the folder map in {MAP_FILE}"
    for folder in sorted(mapped - folders):
        yield f"{MAP_FILE} maps {folder}/, which does not exist"


CLI11_USE = re.compile(r'#include\s*<CLI/|\bCLI::|(?:->|\.)(?:add_option|add_flag|add_subcommand)\(')


def cli_breaches(root):
    """CLI11 or flag registration outside src/cli/ (the trainer's own command line aside), and a
    concrete backend included outside src/backend/."""
    for path in sources(root):
        top = path.split(os.sep, 1)[0]
        with open(os.path.join(root, path), encoding="utf-8") as f:
            text = f.read()
        if top not in (CLI, TRAINER):
            match = CLI11_USE.search(text)
            if match:
                line = text.count("\n", 0, match.start()) + 1
                yield f"{path}:{line}: uses CLI11 ({match.group(0).strip()}): flags and verbs " \
                      "are registered under cli/ only; pass the layers below plain values"
        if top != BACKEND:
            for included in INCLUDE.findall(text):
                if included.startswith(CONCRETE_BACKENDS):
                    yield f"{path} includes {included}: only backend/ includes a concrete " \
                          "backend; go through backend/select.h"


def test_folder_breaches(repo):
    """Folders of test/ (test data and what npm installs aside) with more than MAX_FOLDER_FILES
    files."""
    for folder in sorted(mapped_folders(repo, "test") | {"test"}):
        if folder.startswith(os.path.join("test", "data")):
            continue
        names = os.listdir(os.path.join(repo, folder))
        count = sum(1 for n in names if os.path.isfile(os.path.join(repo, folder, n)))
        if count > MAX_FOLDER_FILES:
            yield f"{folder}/: {count} files (at most {MAX_FOLDER_FILES}: split it as src/ is)"


VERB = re.compile(r'\bapp\.add_subcommand\(\s*"([\w-]+)"')


def verb_breaches(root):
    """Verbs of kftrain missing from the folder map's line of the folder that registers them."""
    repo = os.path.dirname(root)
    with open(os.path.join(repo, MAP_FILE), encoding="utf-8") as f:
        lines = {m.group(1).rstrip("/"): m.group(2)
                 for m in re.finditer(r"^((?:src|test)/[\w/-]*)\s+(.*)$", f.read(), re.M)}
    for path in sources(root):
        if path.split(os.sep, 1)[0] != CLI:
            continue
        with open(os.path.join(root, path), encoding="utf-8") as f:
            text = f.read()
        folder = os.path.join("src", os.path.dirname(path))
        for verb in VERB.findall(text):
            if verb.startswith("__"):
                continue
            if not re.search(rf"(?<![\w-]){re.escape(verb)}(?![\w-])", lines.get(folder, "")):
                yield f"verb {verb} ({path}) is missing from the line of {folder}/ in the " \
                      f"folder map of {MAP_FILE}"


TEST_CASE = re.compile(r'TEST_CASE\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)')


def test_name_breaches(root):
    """Test cases whose name ctest would split at a ';', or pass to Catch2 as an option."""
    tests = os.path.join(os.path.dirname(root), "test")
    for folder, _, names in os.walk(tests):
        for name in sorted(names):
            if not name.endswith((".cpp", ".h")):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for match in TEST_CASE.finditer(text):
                case = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', match.group(1)))
                if ";" in case:
                    line = text.count("\n", 0, match.start()) + 1
                    yield f"{os.path.relpath(path, os.path.dirname(root))}:{line}: test case " \
                          f"\"{case}\" has a ';', where ctest splits it into tests that run nothing"
                if case.startswith("-"):
                    line = text.count("\n", 0, match.start()) + 1
                    yield f"{os.path.relpath(path, os.path.dirname(root))}:{line}: test case " \
                          f"\"{case}\" starts with '-': ctest passes it to Catch2, which reads an option"


def long_functions(root):
    out = subprocess.run(
        ["ctags", "-R", "--languages=C++", "--kinds-C++=f", "--fields=+ne", "-f", "-", root],
        capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split("\t")
        fields = dict(p.split(":", 1) for p in parts[3:] if ":" in p)
        if "line" in fields and "end" in fields:
            length = int(fields["end"]) - int(fields["line"]) + 1
            if length > MAX_FUNCTION_LINES:
                yield f"{os.path.relpath(parts[1], root)}:{fields['line']}: {parts[0]} is " \
                      f"{length} lines (at most {MAX_FUNCTION_LINES})"


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "src")
    root = os.path.normpath(root)
    problems = []
    files = list(sources(root))
    for path in files:
        with open(os.path.join(root, path), encoding="utf-8") as f:
            lines = sum(1 for _ in f)
        if lines > MAX_FILE_LINES:
            problems.append(f"{path}: {lines} lines (at most {MAX_FILE_LINES})")
    for folder, _, names in os.walk(root):
        count = sum(1 for n in names if not n.endswith(".txt"))
        if count > MAX_FOLDER_FILES:
            problems.append(f"{os.path.relpath(folder, root)}/: {count} files "
                            f"(at most {MAX_FOLDER_FILES}: split it by concept)")
    problems.extend(long_functions(root))
    graph = include_graph(root)
    for component in circles(graph):
        edges = [f"{graph[a][b]} includes {b}.h" for a in component for b in component
                 if b in graph.get(a, {})]
        problems.append("include circle: " + "; ".join(edges))
    problems.extend(layer_breaches(graph))
    problems.extend(map_breaches(root))
    problems.extend(test_name_breaches(root))
    problems.extend(cli_breaches(root))
    problems.extend(test_folder_breaches(os.path.dirname(root)))
    problems.extend(verb_breaches(root))
    for problem in problems:
        print(f"check-layout: {problem}")
    if problems:
        return 1
    print(f"check-layout: ok: {len(files)} files, none over {MAX_FILE_LINES} lines, no "
          f"function over {MAX_FUNCTION_LINES}, no include circle, includes only down the layers, "
          "every folder of src/ and test/ mapped, no test name with a ';', CLI11 under cli/ "
          "only, concrete backends through the selector only, no test folder over "
          f"{MAX_FOLDER_FILES} files, every verb in the map")
    return 0


if __name__ == "__main__":
    sys.exit(main())
