#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks numaplan's --json documents against the JSON Schemas of schemas/ (Draft 2020-12), with
python3-jsonschema: Debian 12's 4.10 or a later one.

Usage: json-schema.py SCHEMA_DIR [VERB=]FILE...

VERB is the verb that printed FILE (show, plan, apply, remove, verify, status, migrate, bench); without
it, the document's keys tell which verb's it is (apply for remove's). A document with an "error"
key is checked against error.schema.json, whatever the verb. Every schema in SCHEMA_DIR is
checked against the metaschema first. Prints "N documents match their schemas", or each
document that does not, and why; exit 0, 1 when one does not, 2 for bad usage, 77 without
python3-jsonschema.
"""
import json
import os
import sys
import warnings

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed", file=sys.stderr)
    sys.exit(77)
try:  # jsonschema 4.18 and later resolve $refs with referencing
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012
except ImportError:  # Debian 12's 4.10, with its RefResolver
    Registry = None

VERBS = ("show", "plan", "apply", "remove", "verify", "status", "migrate", "bench")


def verb_of(doc):
    """The verb whose document this is, by the keys only its document has."""
    for key, verb in (("error", "error"), ("accelerators", "show"), ("replicas", "plan"),
                      ("apply_interrupted", "status"), ("dry_run", "migrate"), ("arms", "bench"),
                      ("changed", "apply")):
        if key in doc:
            return verb
    return "verify"


def validators(schema_dir):
    """A validator per schema file, relative $refs resolved among the files."""
    cls = jsonschema.Draft202012Validator
    schemas = {}
    for name in sorted(os.listdir(schema_dir)):
        if name.endswith(".schema.json"):
            with open(os.path.join(schema_dir, name)) as f:
                schemas[name] = json.load(f)
            cls.check_schema(schemas[name])
    if Registry:
        registry = Registry().with_resources(
            (name, Resource.from_contents(s, default_specification=DRAFT202012)) for name, s in schemas.items())
        return {name: cls(s, registry=registry) for name, s in schemas.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return {name: cls(s, resolver=jsonschema.RefResolver(name, s, store=dict(schemas)))
                for name, s in schemas.items()}


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        by_file = validators(argv[1])
    except (OSError, ValueError, jsonschema.SchemaError) as e:
        print(f"{argv[1]}: the schemas are not valid: {e}", file=sys.stderr)
        return 1
    bad = 0
    for arg in argv[2:]:
        verb, sep, path = arg.partition("=")
        if not sep or verb not in VERBS:
            verb, path = None, arg
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print(f"{path}: not one JSON document: {e}")
            bad += 1
            continue
        if not isinstance(doc, dict):
            print(f"{path}: not a JSON object")
            bad += 1
            continue
        name = "error" if "error" in doc else verb or verb_of(doc)
        errors = sorted(by_file[name + ".schema.json"].iter_errors(doc), key=lambda e: list(e.path))
        if errors:
            bad += 1
            print(f"{path}: does not match {name}.schema.json:")
            for e in errors[:10]:
                where = "/".join(str(p) for p in e.absolute_path) or "(top)"
                print(f"  at {where}: {e.message[:300]}")
    n = len(argv) - 2
    if bad:
        print(f"{bad} of {n} documents do not match their schemas")
        return 1
    print(f"{n} documents match their schemas")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
