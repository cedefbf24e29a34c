"""JitScope's Python bridge (jitscope_bridge.py): the record's schema, its version and a validator.

jitscope_record_schema.json, beside this file, lists every field of the run folder's files (result.json, the lines of
calls.jsonl, progress.json, and request.json, which JitScope writes): type, meaning, the Python function that writes
it and the C++ function that reads it. The bridge writes its "x-record-version" as the record's record_version.

    python3 jitscope_bridge_record.py FOLDER...    validates each folder's files (exit status 1 on a mismatch)
    python3 jitscope_bridge_record.py --markdown   prints the field tables of docs/python-record.md

The validator knows the subset of JSON Schema 2020-12 the schema uses: type, properties, required,
additionalProperties, items, enum, pattern, anyOf and $ref into $defs. It is plain Python (the bridge runs under
whatever Python the user has, without the jsonschema package).
"""
import json
import os
import re
import sys

SCHEMA_FILE = os.path.join(os.path.dirname(os.path.realpath(__file__)), "jitscope_record_schema.json")

with open(SCHEMA_FILE, encoding="utf-8") as _f:
    SCHEMA = json.load(_f)

RECORD_VERSION = SCHEMA["x-record-version"]

_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "null": lambda v: v is None,
}


def _resolve(schema):
    while "$ref" in schema:
        ref = schema["$ref"]
        if not ref.startswith("#/$defs/"):
            raise ValueError("unsupported $ref %r" % ref)
        schema = SCHEMA["$defs"][ref[len("#/$defs/"):]]
    return schema


def errors(value, schema=None, path="", out=None):
    """Where @p value breaks @p schema (the record's root by default): a list of "path: what" lines."""
    out = [] if out is None else out
    schema = _resolve(SCHEMA if schema is None else schema)
    where = path or "top level"
    if "anyOf" in schema:
        if not any(not errors(value, alternative, path) for alternative in schema["anyOf"]):
            out.append("%s: matches none of its %d forms" % (where, len(schema["anyOf"])))
        return out
    types = schema.get("type")
    if types is not None:
        types = [types] if isinstance(types, str) else types
        if not any(_TYPES[t](value) for t in types):
            out.append("%s: a %s, not %s" % (where, type(value).__name__, " or ".join(types)))
            return out
    if "enum" in schema and value not in schema["enum"]:
        out.append("%s: %r is none of %s" % (where, value, ", ".join(map(repr, schema["enum"]))))
    if "pattern" in schema and isinstance(value, str) and not re.search(schema["pattern"], value):
        out.append("%s: %r does not match %s" % (where, value, schema["pattern"]))
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for key in schema.get("required", ()):
            if key not in value:
                out.append("%s: lacks %s" % (where, key))
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in properties:
                errors(item, properties[key], "%s.%s" % (path, key) if path else key, out)
            elif extra is False:
                out.append("%s: %s is not in the schema" % (where, key))
            elif isinstance(extra, dict):
                errors(item, extra, "%s[%r]" % (path, key), out)
    if isinstance(value, list) and "items" in schema:
        for k, item in enumerate(value):
            errors(item, schema["items"], "%s[%d]" % (path, k), out)
    return out


def _schema_of(name):
    ref = SCHEMA["x-files"][name]
    return SCHEMA if ref == "#" else {"$ref": ref}


def checked_json(value, name):
    """@p value as the JSON text of the run folder's file @p name. With JITSCOPE_BRIDGE_VALIDATE=1 (the tests) it is
    checked against the schema first, and the process ends (status 3, before the record is written) with the
    mismatches on one line of stderr when it does not match: JitScope then says the bridge wrote no record."""
    text = json.dumps(value, default=str)
    if os.environ.get("JITSCOPE_BRIDGE_VALIDATE") == "1":
        found = errors(json.loads(text), _schema_of(name))
        if found:
            sys.stderr.write("jitscope bridge: Error: %s does not match jitscope_record_schema.json: %s\n"
                             % (name, "; ".join(found[:10])))
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(3)
    return text


def folder_errors(folder):
    """Each file of a run's folder that the schema describes (x-files), checked: "file: path: what" lines."""
    out = []
    for name in SCHEMA["x-files"]:
        path = os.path.join(folder, name)
        if not os.path.exists(path):
            continue
        schema = _schema_of(name)
        with open(path, encoding="utf-8") as f:
            documents = [line for line in f.read().split("\n") if line.strip()] if name.endswith(".jsonl") else [
                f.read()]
        for k, text in enumerate(documents):
            label = "%s line %d" % (name, k + 1) if name.endswith(".jsonl") else name
            try:
                value = json.loads(text)
            except ValueError as e:
                out.append("%s: not JSON: %s" % (label, e))
                continue
            out += ["%s: %s" % (label, e) for e in errors(value, schema)]
    return out


# ----------------------------------------------------------------------------------------------------------------
# The field tables of docs/python-record.md


def _type_text(schema):
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return "[%s](#%s)" % (name, name)
    if "anyOf" in schema:
        return " or ".join(_type_text(s) for s in schema["anyOf"])
    if "enum" in schema:
        return " \\| ".join("`%s`" % json.dumps(v) for v in schema["enum"])
    types = schema.get("type", "any")
    types = [types] if isinstance(types, str) else types
    text = " or ".join(types)
    if "items" in schema:
        return "array of %s" % _type_text(schema["items"])
    if isinstance(schema.get("additionalProperties"), dict):
        return "object of %s by key" % _type_text(schema["additionalProperties"])
    return text


def _table(schema, prefix, lines):
    nested = []
    required = schema.get("required", ())
    lines.append("| field | type | meaning | written by | read by |")
    lines.append("|---|---|---|---|---|")
    for key, field in schema.get("properties", {}).items():
        name = prefix + key
        if isinstance(field.get("items"), dict) and field["items"].get("properties"):
            nested.append((name + "[]", field["items"]))
            kind = "array of objects (below)"
        elif field.get("properties"):
            nested.append((name, field))
            kind = "object (below)"
        else:
            kind = _type_text(field)
        lines.append("| `%s`%s | %s | %s | %s | %s |" % (
            name, "" if key in required else " (optional)", kind, field.get("description", ""),
            "`%s`" % field["x-writer"] if "x-writer" in field else "-",
            "`%s`" % field["x-reader"] if "x-reader" in field else "-"))
    for name, sub in nested:
        lines.append("")
        lines.append("`%s`: %s" % (name, sub.get("description", "")) if sub.get("description") else "`%s`:" % name)
        lines.append("")
        _table(sub, name + ".", lines)


def markdown():
    """Every field of the schema, one table per object, as docs/python-record.md lists them."""
    lines = ["### result.json", "", SCHEMA["title"] + ", record version " + RECORD_VERSION + ".", ""]
    _table(SCHEMA, "", lines)
    for name, schema in SCHEMA["$defs"].items():
        lines += ["", "### %s" % name, "", schema.get("description", ""), ""]
        _table(schema, "", lines)
    return "\n".join(lines) + "\n"


def main(argv):
    if argv == ["--markdown"]:
        sys.stdout.write(markdown())
        return 0
    if not argv or argv[0].startswith("-"):
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    bad = 0
    for folder in argv:
        found = folder_errors(folder)
        for line in found:
            print("%s: %s" % (folder, line))
        bad += bool(found)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
