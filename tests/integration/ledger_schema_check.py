"""Validates NDJSON records against docs/schema/benchledger-1.json with jsonschema.

usage: ledger_schema_check.py SCHEMA [--expect-invalid] FILE...
Prints FILE:LINE: message for every record that fails (or, with --expect-invalid, for every
record that passes) and exits 1 if there was any.
"""
import json
import sys

import jsonschema


def main(argv):
    schema_path, args = argv[1], argv[2:]
    expect_invalid = "--expect-invalid" in args
    files = [a for a in args if a != "--expect-invalid"]
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    failures = checked = 0
    for path in files:
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                record = json.loads(line)
                errors = sorted(validator.iter_errors(record), key=lambda e: list(e.path))
                checked += 1
                if expect_invalid and not errors:
                    print(f"{path}:{number}: accepted, but should be refused")
                    failures += 1
                for error in [] if expect_invalid else errors:
                    where = "/".join(str(p) for p in error.path)
                    print(f"{path}:{number}: {where}: {error.message}")
                    failures += 1
    print(f"checked {checked} records")
    return 1 if failures or not checked else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
