#!/usr/bin/env python3
"""Checks suites/<protocol>/requirements.json against schemas/requirements.schema.json and the
rules draft-07 cannot express. A stop-gap until the C++ catalogue test exists; python3 here has
no jsonschema package, so this carries a minimal validator for the draft-07 keywords the schema
uses (type, enum, const, required, properties, additionalProperties, propertyNames, pattern,
minLength, maxLength, minItems, uniqueItems, items, $ref, if/then).

Usage: python3 suites/check_requirements.py [--specs DIR]   (exit 0 when every catalogue is valid)
"""
import argparse, json, os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROTOCOLS = {"alp": "ALP", "agora": "AGORA", "agentprotocol": "AP", "a2acp": "A2ACP", "chopsticks": "CHOP"}
READING_PREFIX = {"alp": "ALP", "agora": "AG", "agentprotocol": "AP", "a2acp": "A2", "chopsticks": "CH"}
# A reading number (ALP-3, AG-6, CH-9), not a requirement ID such as ALP-6-token-reusable.
READING_RE = re.compile(r"\b((?:ALP|AG|AP|A2|CH)-[0-9]+)(?![0-9]|\.[0-9]|-[A-Za-z0-9])")
TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def type_ok(value, t):
    if t == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if t == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, TYPES[t])


def validate(value, schema, root, path, errors):
    if "$ref" in schema:
        node = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            node = node[part]
        return validate(value, node, root, path, errors)
    before = len(errors)
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(type_ok(value, t) for t in types):
            errors.append(f"{path}: expected type {schema['type']}")
            return
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {value!r} not in {schema['enum']}")
    if "const" in schema and value != schema["const"]:
        errors.append(f"{path}: {value!r} != {schema['const']!r}")
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            errors.append(f"{path}: shorter than {schema['minLength']}")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            errors.append(f"{path}: longer than {schema['maxLength']}")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            errors.append(f"{path}: {value!r} does not match {schema['pattern']}")
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            errors.append(f"{path}: fewer than {schema['minItems']} items")
        if schema.get("uniqueItems") and len({json.dumps(v, sort_keys=True) for v in value}) != len(value):
            errors.append(f"{path}: items not unique")
        if "items" in schema:
            for i, item in enumerate(value):
                validate(item, schema["items"], root, f"{path}/{i}", errors)
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                errors.append(f"{path}: missing required member {key!r}")
        props = schema.get("properties", {})
        for key, member in value.items():
            if "propertyNames" in schema:
                validate(key, schema["propertyNames"], root, f"{path}/{key} (name)", errors)
            if key in props:
                validate(member, props[key], root, f"{path}/{key}", errors)
            elif schema.get("additionalProperties") is False:
                errors.append(f"{path}: unexpected member {key!r}")
            elif isinstance(schema.get("additionalProperties"), dict):
                validate(member, schema["additionalProperties"], root, f"{path}/{key}", errors)
    if "if" in schema and len(errors) == before:
        probe = []
        validate(value, schema["if"], root, path, probe)
        if not probe and "then" in schema:
            validate(value, schema["then"], root, path, errors)


def norm(text):
    return re.sub(r"\s+", " ", text).strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--specs", default=os.environ.get("AC_SPECS_DIR", "/work/shared/specs"))
    args = ap.parse_args()
    schema = json.load(open(os.path.join(ROOT, "schemas", "requirements.schema.json"), encoding="utf-8"))
    readings_path = os.path.join(ROOT, "docs", "spec-readings.md")
    readings = set(READING_RE.findall(open(readings_path, encoding="utf-8").read())) \
        if os.path.exists(readings_path) else None
    errors, seen, pending = [], {}, []
    for protocol, prefix in PROTOCOLS.items():
        path = os.path.join(ROOT, "suites", protocol, "requirements.json")
        if not os.path.exists(path):
            errors.append(f"{path}: missing")
            continue
        doc = json.load(open(path, encoding="utf-8"))
        errs = []
        validate(doc, schema, schema, path, errs)
        errors += errs
        if errs:
            continue
        if doc["protocol"] != protocol:
            errors.append(f"{path}: protocol {doc['protocol']!r} != {protocol!r}")
        spec_file = os.path.join(args.specs, doc["spec"])
        spec_text = norm(open(spec_file, encoding="utf-8").read()) if os.path.exists(spec_file) else None
        if spec_text is None:
            errors.append(f"{path}: spec {spec_file} not found (text not checked)")
        # The features live in the protocol's target-settings declaration (scripts/targets_doc.py
        # validates it); requirements may only name declared ones.
        declaration = os.path.join(ROOT, "suites", protocol, "target-settings.json")
        features = json.load(open(declaration, encoding="utf-8")).get("features", {}) if os.path.exists(declaration) else {}
        used = set()
        for e in doc["requirements"]:
            rid = e["id"]
            where = f"{path}: {rid}"
            if rid in seen:
                errors.append(f"{where}: duplicate ID (also in {seen[rid]})")
            seen[rid] = path
            if not rid.startswith(prefix + "-"):
                errors.append(f"{where}: ID prefix must be {prefix}-")
            if prefix == "ALP":
                number = rid.split("-")[1]
                if not e["section"].startswith(number + " "):
                    errors.append(f"{where}: section {e['section']!r} does not start with {number}")
            if e["spec"] != doc["spec"]:
                errors.append(f"{where}: spec {e['spec']!r} != file spec {doc['spec']!r}")
            if e["feature"] is not None:
                used.add(e["feature"])
                if e["feature"] not in features:
                    errors.append(f"{where}: feature {e['feature']!r} not declared in {declaration}")
            if spec_text is not None:
                for frag in e["text"].split(" … "):
                    if norm(frag) not in spec_text:
                        errors.append(f"{where}: text not verbatim in {doc['spec']}: {frag!r}")
            cited = READING_RE.findall(e.get("notes", ""))
            for r in cited:
                if not r.startswith(READING_PREFIX[protocol] + "-"):
                    errors.append(f"{where}: cites reading {r} of another protocol")
                elif readings is not None and r not in readings:
                    errors.append(f"{where}: reading {r} not found in docs/spec-readings.md")
            if e["kind"] == "reading":
                if e.get("notes", "").startswith("Reading pending"):
                    pending.append(rid)
                elif not cited:
                    errors.append(f"{where}: a reading must cite its reading number in notes")
        for f in features:
            if f not in used:
                errors.append(f"{path}: feature {f!r} declared but used by no requirement")
    for line in errors:
        print(line)
    if pending:
        print(f"note: {len(pending)} reading(s) not yet numbered in docs/spec-readings.md: {', '.join(pending)}")
    if readings is None:
        print("note: docs/spec-readings.md not found; reading numbers not checked")
    print(f"{len(seen)} requirements, {len(errors)} problem(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
