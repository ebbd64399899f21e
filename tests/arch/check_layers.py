#!/usr/bin/env python3
"""Checks the source tree against docs/ARCHITECTURE.md, which it reads, so that the page and the
check cannot disagree. Usage: check_layers.py ROOT; exits 1 and names each problem.

From the page it reads:
- the arrows, the line of its code block with `←`: a folder of src/ uses only folders to its left;
- the table: for each folder, the folders it may use (column "may use").
A "may use" cell names folders by their short name (`model`) or their path (`src/suites/`);
other words are libraries (SQLite), which this check does not see, and text in parentheses is a
remark. "everything" is every folder of the table, "the library" every folder of src/ but cli and
suites (the binary's alone), "—" none. Every folder may include the public headers (`include/benchledger/`).

It checks that:
- every folder of src/ has a row, and every row's folder exists;
- no row lets a folder of src/ use one that is not to its left in the arrows;
- every `#include` of a file in a row's folder names a folder the row may use (an include names
  a folder by its last part: "model/x.hpp" is src/model/, "suites/suites.hpp" src/suites/,
  <benchledger/x.hpp> include/benchledger/);
- the CMakeLists.txt of a row's folder names no source file outside that folder: a folder tells
  which target owns its files;
- every folder of the library makes its target with `benchledger_folder(NAME USES …)`
  (cmake/folders.cmake), and its USES names exactly the folders of src/ its row may use: the
  list the dev build's linker holds the folder's objects to.
"""
import pathlib
import re
import sys

PUBLIC = "include/benchledger/"
# The folders of src/ that are the binary's and not the library's: no benchledger_folder() target.
NOT_LIBRARY = ("src/cli/", "src/suites/")
SOURCE_SUFFIXES = (".cpp", ".hpp", ".h", ".cc")
INCLUDE = re.compile(r'^\s*#\s*include\s*["<]([A-Za-z_]+)/')
CMAKE_SOURCE = re.compile(r"[^\s()\"]+\.(?:cpp|cc|c)\b")
FOLDER_TARGET = re.compile(r"benchledger_folder\(\s*([a-z_]+)(?:\s+SIZE)?(?:\s+USES\s+([a-z_\s]+?))?\s*(?=LIBRARIES|SOURCES|\))")


def read_architecture(page):
    """The arrows (folder -> level) and the table (folder path -> cell of "may use")."""
    text = page.read_text(encoding="utf-8")
    arrows = next((line for line in text.splitlines() if "←" in line), None)
    if arrows is None:
        raise SystemExit(f"{page}: no line of arrows (model ← …) found")
    levels = {}
    for level, group in enumerate(arrows.split("←")):
        for name in group.split(","):
            levels[name.strip()] = level
    table = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not line.lstrip().startswith("|"):
            continue
        folder = re.fullmatch(r"`([a-z_/]+/)`", cells[0])
        if folder:
            table[folder.group(1)] = cells[2]
    if not table:
        raise SystemExit(f"{page}: no table of folders (| `src/model/` | owns | may use |) found")
    return levels, table


def in_library(folder):
    return folder.startswith("src/") and folder not in NOT_LIBRARY


def short_name(folder):
    return folder.rstrip("/").rsplit("/", 1)[-1]


def allowed_folders(cell, table):
    """The folders a "may use" cell names."""
    cell = re.sub(r"\([^)]*\)", "", cell).strip()
    if cell == "everything":
        return set(table)
    library = {f for f in table if in_library(f)}
    by_name = {short_name(f): f for f in table}
    used = set()
    for word in re.split(r"[,;]", cell):
        word = word.strip().strip("`").strip()
        if word == "the library":
            used |= library
        elif word in table:
            used.add(word)
        elif word in by_name:
            used.add(by_name[word])
    return used


def check(root):
    problems = []
    page = root / "docs" / "ARCHITECTURE.md"
    levels, table = read_architecture(page)
    by_name = {short_name(f): f for f in table}
    allowed = {folder: allowed_folders(cell, table) | {folder, PUBLIC} for folder, cell in table.items()}

    for path in sorted((root / "src").iterdir()):
        if path.is_dir() and f"src/{path.name}/" not in table:
            problems.append(f"src/{path.name}: not in the table of docs/ARCHITECTURE.md")
    for folder in table:
        if not (root / folder).is_dir():
            problems.append(f"docs/ARCHITECTURE.md: the table names {folder}, which does not exist")

    for folder, used in sorted(allowed.items()):
        name = short_name(folder)
        if not folder.startswith("src/") or name not in levels:
            continue
        for other in sorted(used):
            other_name = short_name(other)
            if other_name in levels and other != folder and levels[other_name] >= levels[name]:
                problems.append(f"docs/ARCHITECTURE.md: the table lets {folder} use {other}, "
                                f"which is not to its left in the arrows")

    for folder, used in sorted(allowed.items()):
        base = root / folder
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            if path.suffix not in SOURCE_SUFFIXES:
                continue
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                match = INCLUDE.match(line)
                if not match or match.group(1) not in by_name:
                    continue
                target = by_name[match.group(1)]
                if target not in used:
                    problems.append(f"{path.relative_to(root)}:{number}: {folder} may not include "
                                    f"{target} (docs/ARCHITECTURE.md)")
        for cmake in sorted(base.rglob("CMakeLists.txt")):
            text = cmake.read_text(errors="replace")
            for match in CMAKE_SOURCE.finditer(text):
                source = (match.group(0)
                          .replace("${CMAKE_CURRENT_SOURCE_DIR}", str(cmake.parent))
                          .replace("${PROJECT_SOURCE_DIR}", str(root)))
                resolved = (cmake.parent / source).resolve()
                if not resolved.is_relative_to(base.resolve()):
                    problems.append(f"{cmake.relative_to(root)}: compiles {match.group(0)}, "
                                    f"which is not in {folder}")
        if in_library(folder):
            problems += check_folder_target(root, folder, used)
    return problems


def check_folder_target(root, folder, used):
    """The folder's benchledger_folder() call: its name, and USES against the row's folders."""
    cmake = root / folder / "CMakeLists.txt"
    name = short_name(folder)
    text = cmake.read_text(errors="replace") if cmake.is_file() else ""
    match = FOLDER_TARGET.search(text)
    if not match or match.group(1) != name:
        return [f"{folder}CMakeLists.txt: no benchledger_folder({name} …) makes the folder's target "
                f"(cmake/folders.cmake)"]
    uses = set((match.group(2) or "").split())
    may = {short_name(f) for f in used if f.startswith("src/") and f != folder}
    if uses == may:
        return []
    return [f"{folder}CMakeLists.txt: USES {' '.join(sorted(uses)) or 'nothing'}, but "
            f"docs/ARCHITECTURE.md lets {folder} use {' '.join(sorted(may)) or 'nothing'} of src/"]


def main():
    problems = check(pathlib.Path(sys.argv[1]))
    for problem in problems:
        print(problem)
    print(f"{len(problems)} layering problems" if problems
          else "layering: every include and every target follows docs/ARCHITECTURE.md")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
