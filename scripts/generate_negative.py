#!/usr/bin/env python3
"""Schema-derived negative cases (issue 14, point 3): reads each protocol's JSON Schemas
(schemas/<protocol>/index.json and the message schemas it names) and a recipe
(scripts/negative/<protocol>.json: how to reach the state where the target receives a message
type, a valid message of that type, and what the spec says a refused message gets), and writes
suites/<protocol>/generated/negative.json: for every field of every message type the recipe
lists, one case that sends the message with the field missing (when required), of each wrong
JSON type, outside its enum, and past its length limits, and expects the spec's refusal after
each; plus unknown message types before and after the handshake. How to read and re-run it:
docs/generated-cases.md.

Usage: python3 scripts/generate_negative.py [--protocol P ...] [--check]
  --check: write nothing; exit 1 (naming the files) when a committed file differs from what the
           schemas and recipes generate now (a CTest entry runs this).
"""
import argparse, copy, hashlib, json, os, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROTOCOLS = ["alp", "agora", "agentprotocol", "a2acp", "chopsticks"]
JSON_TYPES = ["string", "integer", "number", "boolean", "array", "object", "null"]


class Schemas:
    """The schema files of one protocol, with $ref resolution and allOf merging."""

    def __init__(self, protocol):
        self.dir = os.path.join(ROOT, "schemas", protocol)
        self.files = {}

    def file(self, name):
        if name not in self.files:
            with open(os.path.join(self.dir, name), encoding="utf-8") as f:
                self.files[name] = json.load(f)
        return self.files[name]

    def resolve(self, node, name):
        """Follows $ref chains: returns (schema, file it lives in)."""
        seen = 0
        while isinstance(node, dict) and "$ref" in node:
            ref = node["$ref"]
            target, _, pointer = ref.partition("#")
            if target:
                name = os.path.basename(target)
            node = self.file(name)
            for part in [p for p in pointer.split("/") if p]:
                node = node[part.replace("~1", "/").replace("~0", "~")]
            seen += 1
            if seen > 20:
                raise ValueError("$ref loop at " + ref)
        return node, name

    def view(self, node, name):
        """The members an object schema declares, merged over allOf:
        {"properties": {member: (schema, file)}, "required": set, "types": set or None}."""
        node, name = self.resolve(node, name)
        out = {"properties": {}, "required": set(), "types": None, "enum": None,
               "maxLength": None, "minLength": None, "const": None}
        for part in node.get("allOf", []):
            sub = self.view(part, name)
            for k, v in sub["properties"].items():
                out["properties"].setdefault(k, v)
            out["required"] |= sub["required"]
            for k in ("types", "enum", "maxLength", "minLength", "const"):
                if out[k] is None and sub[k] is not None:
                    out[k] = sub[k]
        for k, v in node.get("properties", {}).items():
            # The message schema's own declaration refines the envelope's (allOf): merge both.
            prev = out["properties"].get(k)
            out["properties"][k] = (v, name) if prev is None else ({"allOf": [prev_ref(prev), v]}, name)
        out["required"] |= set(node.get("required", []))
        t = node.get("type")
        if t is not None:
            out["types"] = set(t if isinstance(t, list) else [t])
        for k in ("enum", "maxLength", "minLength", "const"):
            if k in node:
                out[k] = node[k]
        return out


def prev_ref(prev):
    """A property declared in an allOf member, as a schema usable inside another file's allOf
    (it remembers its file, for the $refs it holds)."""
    schema, name = prev
    return {"__from__": name, **schema}


def resolve_inline(schemas, node, name):
    """Like Schemas.view, but accepts the {"__from__": file, ...} nodes prev_ref makes."""
    if isinstance(node, dict) and "__from__" in node:
        name = node["__from__"]
        node = {k: v for k, v in node.items() if k != "__from__"}
    if isinstance(node, dict) and "allOf" in node:
        merged = {"properties": {}, "required": set(), "types": None, "enum": None,
                  "maxLength": None, "minLength": None, "const": None}
        for part in node["allOf"]:
            sub = resolve_inline(schemas, part, name)
            for k, v in sub["properties"].items():
                merged["properties"].setdefault(k, v)
            merged["required"] |= sub["required"]
            for k in ("types", "enum", "maxLength", "minLength", "const"):
                if sub[k] is not None:
                    merged[k] = sub[k]
        rest = {k: v for k, v in node.items() if k != "allOf"}
        if rest:
            sub = schemas.view(rest, name)
            for k, v in sub["properties"].items():
                merged["properties"][k] = v
            merged["required"] |= sub["required"]
            for k in ("types", "enum", "maxLength", "minLength", "const"):
                if sub[k] is not None:
                    merged[k] = sub[k]
        return merged
    return schemas.view(node, name)


def wrong_values(types, template_value):
    """One value of each JSON type the field does not admit (issue 14: an id as an array, a
    boolean as the string "false", a list as a string), in a fixed order."""
    allowed = set(types)
    if "number" in allowed:
        allowed.add("integer")
    out = []
    for t in JSON_TYPES:
        if t in allowed:
            continue
        if t == "number" and "integer" in allowed:
            out.append((t, 1.5))
            continue
        if t == "number" and "integer" not in allowed:
            continue  # covered by integer below unless integers are allowed
        if t == "string":
            if "boolean" in allowed:
                value = "false"
            elif "integer" in allowed:
                value = "1"
            elif "array" in allowed:
                value = "neg-list-as-string"
            else:
                value = "neg-string"
            out.append((t, value))
        elif t == "integer":
            out.append((t, 7))
        elif t == "boolean":
            out.append((t, True))
        elif t == "array":
            item = template_value if isinstance(template_value, (str, int)) and not isinstance(template_value, bool) else "neg"
            out.append((t, [item]))
        elif t == "object":
            out.append((t, {"neg": 1}))
        elif t == "null":
            out.append((t, None))
    return out


def get(doc, pointer):
    node = doc
    for part in [p for p in pointer.split("/") if p]:
        if not isinstance(node, dict) or part not in node:
            return None, False
        node = node[part]
    return node, True


def case_id(prefix, *parts):
    digest = hashlib.sha1("\n".join(parts).encode()).hexdigest()[:8].upper()
    return prefix + "-GEN-" + digest


def code_for(index, kind, pointer):
    codes = index.get("error_codes", {})
    for prefix, code in codes.get("pointers", {}).items():
        if pointer == prefix or pointer.startswith(prefix + "/"):
            return code
    if kind == "missing":
        return codes.get("rules", {}).get("required", codes.get("default"))
    if kind == "unknown":
        return codes.get("unknown_type", codes.get("default"))
    return codes.get("default")


def substitute(node, mapping):
    if isinstance(node, str) and node in mapping:
        return copy.deepcopy(mapping[node])
    if isinstance(node, dict):
        return {k: substitute(v, mapping) for k, v in node.items()}
    if isinstance(node, list):
        return [substitute(v, mapping) for v in node]
    return node


class Generator:
    def __init__(self, protocol):
        self.protocol = protocol
        with open(os.path.join(ROOT, "scripts", "negative", protocol + ".json"), encoding="utf-8") as f:
            self.recipe = json.load(f)
        self.schemas = Schemas(protocol)
        self.index = self.schemas.file("index.json")
        self.cases = []

    def code_matcher(self, code):
        m = self.recipe["codes"]
        if m == "exact":
            return code
        if m == "any":
            return "$string"
        return m.get(code, code)

    def refusal(self, kind, pointer, agent, refused=None, send=None):
        """The steps after one refused send: the `refused` steps (the message's own, else the
        recipe's) with @CODE@ and @CHECKS@ filled (empty for an `ignored` outcome: its checks
        come after the last send). A step "@SEND@" is the same send again: a recipe whose MUST
        is "not processed" (an error, silence or a close alike) checks that first, then sends the
        message a second time to look for the error answer, a SHOULD or a reading."""
        reqs = self.recipe["requirements"][kind]
        code = self.code_matcher(code_for(self.index, kind, pointer))
        for prefix, matcher in self.recipe.get("code_by_pointer", {}).items():
            if pointer == prefix or pointer.startswith(prefix + "/"):
                code = matcher
        again = None
        if send is not None:
            again = copy.deepcopy(send)
            again["note"] = send.get("note", "") + ", again: its refusal should be answered"
        steps = substitute(refused if refused is not None else self.recipe.get("refused", []),
                           {"@CODE@": code, "@CHECKS@": reqs, "@AGENT@": agent, "@SEND@": again})
        return steps

    def fields(self, msg, view, template, base, depth):
        """(pointer, view of the field, template value, required?) for every member the schema
        declares at this level, then inside object members the template holds (depth-limited)."""
        out = []
        for name in sorted(view["properties"]):
            pointer = base + "/" + name
            sub = resolve_inline(self.schemas, *view["properties"][name])
            value, present = get(template, pointer)
            out.append((pointer, sub, value, name in view["required"]))
            if depth > 0 and present and isinstance(value, dict) and sub["properties"]:
                out.extend(self.fields(msg, sub, template, pointer, depth - 1))
        return out

    def message_cases(self, m):
        key = m["key"]
        spec = self.index["documents"][m["document"]] if "document" in m else self.index["messages"][key]
        view = resolve_inline(self.schemas, {"$ref": spec["schema"]}, spec["schema"])
        agent = m.get("agent", self.recipe["agent"])
        skip = set(self.recipe.get("skip", [])) | set(m.get("skip", []))
        section = spec.get("section", "")
        for pointer, sub, value, required in self.fields(key, view, m["template_view"], "", m.get("depth", 2)):
            if pointer in skip or any(pointer.startswith(s + "/") for s in skip):
                continue
            only = m.get("only")
            if only and not any(pointer == o or pointer.startswith(o + "/") for o in only):
                continue
            variants = []  # (kind, note, edit)
            if required and pointer not in m.get("keep", []):
                variants.append(("missing", "without " + pointer, {"remove": [pointer]}))
            if sub["types"] and sub["const"] is None:
                for t, v in wrong_values(sub["types"], value):
                    variants.append(("type", pointer + (" as null" if v is None else " as " + t + " " + json.dumps(v)),
                                     {"patch": {pointer: v}}))
            if sub["enum"] and all(isinstance(e, str) for e in sub["enum"]):
                variants.append(("enum", pointer + " outside its enum", {"patch": {pointer: "NEG_NOT_IN_ENUM"}}))
            if isinstance(sub["maxLength"], int) and sub["maxLength"] <= 4096:
                variants.append(("length", pointer + " one character past maxLength " + str(sub["maxLength"]),
                                 {"patch": {pointer: "x" * (sub["maxLength"] + 1)}}))
            if isinstance(sub["minLength"], int) and sub["minLength"] >= 1 and sub["types"] == {"string"} \
                    and sub["enum"] is None and sub["const"] is None:
                variants.append(("length", pointer + " shorter than minLength " + str(sub["minLength"]),
                                 {"patch": {pointer: "x" * (sub["minLength"] - 1)}}))
            variants = [v for v in variants if v[0] in self.recipe["requirements"]]
            if "trigger" in m:  # a trigger's null param means "leave the member out": not a type variant
                variants = [v for v in variants if not (v[0] == "type" and list(v[2].get("patch", {}).values()) == [None])]
            if not variants:
                continue
            # The kinds the recipe lists in "separate" (a length limit that rests on a reading,
            # say) go into a case of their own, so its failure blames only the requirements of
            # that kind; the other variants keep the case (and the id) they always had.
            separate = set(self.recipe.get("separate", []))
            main = [v for v in variants if v[0] not in separate]
            if main:
                self.add_case(m, key, section, pointer, main, agent)
            for n, kind in enumerate(sorted({v[0] for v in variants if v[0] in separate})):
                suffix = "" if not main and n == 0 else kind  # a field with only such variants keeps its id
                self.add_case(m, key, section, pointer, [v for v in variants if v[0] == kind], agent, suffix)

    def add_case(self, m, key, section, pointer, variants, agent, id_suffix=""):
        kinds = sorted({k for k, _, _ in variants}, key=["missing", "type", "enum", "length"].index)
        steps = copy.deepcopy(m.get("preamble", self.recipe["preamble"]))
        requirements = list(self.recipe.get("base_requirements", []))
        for kind, note, edit in variants:
            if "trigger" in m:
                # A document sent by a driver trigger (an HTTP request): the edit applies to the
                # trigger's params (a removed member is null: the driver leaves it out), and the
                # refusal is the trigger's result.
                params = copy.deepcopy(m["template"])
                for ptr in edit.get("remove", []):
                    params[ptr.lstrip("/")] = None
                for ptr, v in edit.get("patch", {}).items():
                    params[ptr.lstrip("/")] = v
                steps.append({"trigger": m["trigger"], "params": params, "result": copy.deepcopy(m["refused_result"]),
                              "note": note, "checks": self.recipe["requirements"][kind] + m.get("checks", [])})
            else:
                send = {"send": agent, "message": copy.deepcopy(m["template"])}
                send.update(copy.deepcopy(m.get("send_options", {})))
                send.update(copy.deepcopy(edit))
                send["note"] = note
                steps.append(send)
                steps.extend(self.refusal(kind, pointer, agent, m.get("refused"), send))
            for r in self.recipe["requirements"][kind]:
                if r not in requirements:
                    requirements.append(r)
        after = substitute(self.recipe.get("after", []) + m.get("after", []),
                           {"@AGENT@": agent, "@CHECKS@": [r for k in kinds for r in self.recipe["requirements"][k]]})
        steps.extend(after)
        for s in steps:
            for r in s.get("checks", []):
                if r not in requirements:
                    requirements.append(r)
            if "checks" in s:
                s["checks"] = list(dict.fromkeys(s["checks"]))
        words = {"missing": "missing", "type": "of a wrong JSON type", "enum": "outside its enum", "length": "past its length limits"}
        title = "%s with %s %s is %s" % (key, pointer, " / ".join(words[k] for k in kinds), self.recipe["outcome_title"])
        if "title" in m:
            title = m["title"] % {"pointer": pointer, "what": " / ".join(words[k] for k in kinds)}
        id_parts = (key, pointer) + ((id_suffix,) if id_suffix else ())
        self.cases.append(self.case(case_id(self.recipe["prefix"], *id_parts), title, requirements, steps, m,
                                    "%s (%s) %s" % (self.index["spec"], section, pointer)))

    def case(self, cid, title, requirements, steps, m, source):
        c = {"id": cid, "title": title, "requirements": requirements, "tags": ["generated", "negative"],
             "role": self.recipe["role"]}
        features = self.recipe.get("features", []) + m.get("features", [])
        if features:
            c["features"] = features
        c["agents"] = copy.deepcopy(m.get("agents", self.recipe["agents"]))
        if self.recipe.get("ignore"):
            c["ignore"] = copy.deepcopy(self.recipe["ignore"])
        c["steps"] = steps
        return c

    def unknown_cases(self):
        for u in self.recipe.get("unknown_types", []):
            agent = u.get("agent", self.recipe["agent"])
            steps = copy.deepcopy(u.get("preamble", self.recipe["preamble"]))
            for value in u["values"]:
                send = {"send": agent, "message": copy.deepcopy(u["template"]), "patch": {u["pointer"]: value},
                        "note": "unknown %s %s" % (u["pointer"], json.dumps(value))}
                steps.append(send)
                steps.extend(self.refusal("unknown", u["pointer"], agent, u.get("refused"), send))
            steps.extend(substitute(self.recipe.get("after", []) + u.get("after", []),
                                    {"@AGENT@": agent, "@CHECKS@": self.recipe["requirements"]["unknown"]}))
            requirements = list(self.recipe.get("base_requirements", []))
            for s in steps:
                for r in s.get("checks", []):
                    if r not in requirements:
                        requirements.append(r)
            for r in self.recipe["requirements"]["unknown"]:
                if r not in requirements:
                    requirements.append(r)
            self.cases.append(self.case(case_id(self.recipe["prefix"], "unknown-type", u["when"]),
                                        "an unknown message type %s is %s" % (u["when"], self.recipe["outcome_title"]),
                                        requirements, steps, u, "%s unknown type %s" % (self.index["spec"], u["when"])))

    def run(self):
        for m in self.recipe["messages"]:
            m["template_view"] = m.get("template_view", m["template"])
            self.message_cases(m)
        self.unknown_cases()
        ids = [c["id"] for c in self.cases]
        if len(ids) != len(set(ids)):
            raise SystemExit("%s: duplicate generated ids" % self.protocol)
        doc = {"protocol": self.protocol, "suite": self.recipe["suite"],
               "description": "GENERATED by scripts/generate_negative.py from schemas/%s/ and scripts/negative/%s.json: "
                              "do not edit; re-run the generator (docs/generated-cases.md)." % (self.protocol, self.protocol),
               "cases": self.cases}
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--protocol", action="append", choices=PROTOCOLS)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    stale = []
    for p in args.protocol or PROTOCOLS:
        if not os.path.exists(os.path.join(ROOT, "scripts", "negative", p + ".json")):
            continue
        text = Generator(p).run()
        path = os.path.join(ROOT, "suites", p, "generated", "negative.json")
        old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if args.check:
            if old != text:
                stale.append(os.path.relpath(path, ROOT))
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if old != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        print("%s: %d cases" % (os.path.relpath(path, ROOT), json.loads(text)["cases"].__len__()))
    if stale:
        print("stale generated cases (re-run python3 scripts/generate_negative.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
