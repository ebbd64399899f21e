#!/usr/bin/env python3
"""Guards the one-way dependencies of docs/ARCHITECTURE.md: a folder of src/ includes only from folders below it.

model <- env, stats <- ledger, engine, import <- compare <- report, gate <- cli
"""
import pathlib
import re
import sys

LAYERS = [["model"], ["env", "stats"], ["ledger", "engine", "import"], ["compare"], ["report", "gate"], ["cli"]]
LEVEL = {area: i for i, areas in enumerate(LAYERS) for area in areas}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([a-z_]+)/')

root = pathlib.Path(sys.argv[1])
problems = []
for path in sorted((root / "src").rglob("*")):
    if path.suffix not in (".cpp", ".hpp", ".h", ".cc"):
        continue
    area = path.relative_to(root / "src").parts[0]
    if area not in LEVEL:
        problems.append(f"{path.relative_to(root)}: folder src/{area} is not in docs/ARCHITECTURE.md's layers")
        continue
    for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        match = INCLUDE.match(line)
        if not match or match.group(1) not in LEVEL:
            continue
        used = match.group(1)
        if used != area and LEVEL[used] >= LEVEL[area]:
            problems.append(f"{path.relative_to(root)}:{number}: src/{area} may not include src/{used}")
for problem in problems:
    print(problem)
print(f"{len(problems)} layering violations" if problems else "layering: every include points down")
sys.exit(1 if problems else 0)
