#!/usr/bin/env python3
"""docs/shardscope.scenario.schema.json is a valid JSON Schema (draft 2020-12) and every scenario file
shipped in the repository validates against it, with Debian's python3-jsonschema. Which fields the
schema lists is kept equal to the loader's by tests/core/scenario/test_scenario_schema.cpp."""
import json
import pathlib
import sys

import jsonschema

ROOT = pathlib.Path(__file__).resolve().parents[2]


def scenario_files():
    for folder in ("examples", "docs", "assets"):
        for path in sorted((ROOT / folder).rglob("*.json")):
            try:
                doc = json.loads(path.read_text())
            except ValueError:
                continue  # not a scenario; its own loader checks it
            if isinstance(doc, dict) and doc.get("schema") == "shardscope.scenario/1":
                yield path, doc


def main():
    schema = json.loads((ROOT / "docs" / "shardscope.scenario.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    checked, failures = 0, 0
    for path, doc in scenario_files():
        checked += 1
        for error in validator.iter_errors(doc):
            failures += 1
            where = ".".join(str(p) for p in error.absolute_path) or "(document)"
            print(f"{path.relative_to(ROOT)}: {where}: {error.message}", file=sys.stderr)
    # A schema that accepts anything would pass the files above: it must refuse a typo and a wrong type.
    for broken, why in ((dict(schema="shardscope.scenario/1"), "missing model"),):
        if validator.is_valid(broken):
            failures += 1
            print(f"the schema accepts a document with {why}", file=sys.stderr)
    _, sample = next(scenario_files())
    typo = json.loads(json.dumps(sample))
    typo["training"]["global_batchh"] = 1
    wrong_type = json.loads(json.dumps(sample))
    wrong_type["parallel"]["tp"] = "2"
    for doc, why in ((typo, "an unknown field"), (wrong_type, "a string for parallel.tp")):
        if validator.is_valid(doc):
            failures += 1
            print(f"the schema accepts {why}", file=sys.stderr)
    print(f"{checked} scenario files checked against the schema, {failures} problems")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
