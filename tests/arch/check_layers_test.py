#!/usr/bin/env python3
"""check_layers.py fails on every kind of problem it guards against, on a copy of this
repository's docs/ARCHITECTURE.md in a scratch tree, and passes the same tree without them.
Usage: check_layers_test.py ROOT."""
import pathlib
import shutil
import subprocess
import sys
import tempfile

root = pathlib.Path(sys.argv[1])
checker = root / "tests" / "arch" / "check_layers.py"
failures = []


def tree(scratch):
    """A tree with every folder of the table, each with one file that includes its own header."""
    (scratch / "docs").mkdir()
    shutil.copy(root / "docs" / "ARCHITECTURE.md", scratch / "docs" / "ARCHITECTURE.md")
    for folder in ["include/benchledger", "src/suites", "bench/self"] + [
            f"src/{name}" for name in
            ["model", "process", "env", "stats", "profile", "ledger", "engine", "import", "compare", "gate",
             "report", "cli"]]:
        (scratch / folder).mkdir(parents=True)
        (scratch / folder / "a.cpp").write_text('#include <benchledger/record.hpp>\n')
        if folder.startswith("src/") and folder != "src/cli":
            shutil.copy(root / folder / "CMakeLists.txt", scratch / folder / "CMakeLists.txt")
    (scratch / "src" / "cli" / "a.cpp").write_text('#include "suites/suites.hpp"\n#include "report/x.hpp"\n')
    (scratch / "src" / "cli" / "CMakeLists.txt").write_text(
        "add_executable(x a.cpp ${CMAKE_CURRENT_SOURCE_DIR}/b.cpp)\n")


def run(scratch):
    result = subprocess.run([sys.executable, str(checker), str(scratch)], capture_output=True, text=True)
    return result.returncode, result.stdout


def expect(name, change, code, says=""):
    with tempfile.TemporaryDirectory() as directory:
        scratch = pathlib.Path(directory)
        tree(scratch)
        change(scratch)
        got, output = run(scratch)
        if got != code or says not in output:
            failures.append(f"{name}: expected exit {code} saying {says!r}, got {got}:\n{output}")


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


expect("a tree that follows the page", lambda s: None, 0)
expect("an include that points up",
       lambda s: write(s / "src/model/up.cpp", '#include "report/format.hpp"\n'), 1,
       "src/model/up.cpp:1: src/model/ may not include src/report/")
expect("an include sideways",
       lambda s: write(s / "src/engine/side.hpp", '#include "ledger/chain.hpp"\n'), 1,
       "src/engine/side.hpp:1: src/engine/ may not include src/ledger/")
expect("the bundled suites from below cli",
       lambda s: write(s / "src/engine/suite.cpp", '#include "suites/suites.hpp"\n'), 1,
       "src/engine/ may not include src/suites/")
expect("a folder the table does not name",
       lambda s: (s / "src" / "utils").mkdir(), 1, "src/utils: not in the table")
expect("a CMakeLists.txt compiling another folder's file",
       lambda s: write(s / "src/compare/CMakeLists.txt",
                       "target_sources(benchledger PRIVATE ${PROJECT_SOURCE_DIR}/src/report/compare_csv.cpp)\n"),
       1, "src/compare/CMakeLists.txt: compiles ${PROJECT_SOURCE_DIR}/src/report/compare_csv.cpp")

expect("a folder without its target",
       lambda s: write(s / "src/stats/CMakeLists.txt", "target_sources(benchledger PRIVATE a.cpp)\n"),
       1, "src/stats/CMakeLists.txt: no benchledger_folder(stats …)")


def uses_more(scratch):
    cmake = scratch / "src" / "engine" / "CMakeLists.txt"
    cmake.write_text(cmake.read_text().replace("USES model", "USES ledger model", 1))


expect("a target that links a folder its row does not name", uses_more, 1,
       "src/engine/CMakeLists.txt: USES env ledger model process profile stats, but "
       "docs/ARCHITECTURE.md lets src/engine/ use env model process profile stats of src/")


def table_against_arrows(scratch):
    page = scratch / "docs" / "ARCHITECTURE.md"
    text = page.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| `src/engine/`"))
    page.write_text(text.replace(row, row.rsplit("|", 2)[0] + "| model, import |"), encoding="utf-8")


expect("a table that lets a folder use one beside it", table_against_arrows, 1,
       "the table lets src/engine/ use src/import/")

for failure in failures:
    print(failure)
print(f"{len(failures)} checks of check_layers.py failed" if failures else "check_layers.py fails on each problem")
sys.exit(1 if failures else 0)
