"""Extract what the pinned CRDs mark deprecated into policies/crd/deprecations.json.

    python tools/crd_deprecations.py            # print the data the CRD sources give
    python tools/crd_deprecations.py --write    # rewrite policies/crd/deprecations.json
    python tools/crd_deprecations.py --check    # exit 1 when the committed file differs

A CRD says deprecation as data: a served version with ``deprecated: true`` (the API server then answers every request
with its ``deprecationWarning``, https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/
custom-resource-definition-versioning/#version-deprecation), and a field whose description holds a paragraph starting
``Deprecated:`` (the Go API convention controller-gen copies into the schema). This reads both from the same CRDs as
tools/crd_schemas.py and tools/crd_cel_rules.py (the reference folder's crds/ and tools/crd_sources.json's pinned
sources), each with the file's line, so G40 (policies/crd/deprecations.py) can name the replacement the CRD gives.

A field a project deprecated in one release and dropped in a later one is no longer in the pinned CRD: the ``history``
list of tools/crd_sources.json names such earlier releases (Envoy AI Gateway v0.3.0, where AIGatewayRoute's
``spec.targetRefs`` is "Deprecated: use the ParentRefs field instead"); a deprecated field of theirs that the pinned CRD
of the same version lacks is kept with ``removed`` set. Core PodSpec fields a CRD embeds (volumes' in-tree drivers,
``serviceAccount``) are Kubernetes' own and left out, as tools/crd_schemas.py leaves them unconstrained; Kubernetes'
own kinds (tools/core_schemas.py KINDS) get their "Deprecated:" spec fields from the OpenAPI of Kubernetes 1.33 that
kubernetes-validate ships, keyed "core/Pod", "apps/Deployment".
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tools.core_schemas import KINDS, MINOR, _definitions, _root  # noqa: E402
from tools.crd_cel_rules import SKIPPED, SOURCES, _provenance, _read_pinned, generated_file_main  # noqa: E402
from tools.crd_schemas import _POD_SPEC_FIELDS  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "policies" / "crd" / "deprecations.json"
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_PARAGRAPH = re.compile(r"(?:^|\n)\s*Deprecated:\s*(.+?)(?:\n\s*\n|$)", re.S)
# Kubernetes' OpenAPI joins a type's comment paragraphs with spaces: "Deprecated:" opens the description or a sentence.
_SENTENCE = re.compile(r"(?:^|(?<=[.!?] ))Deprecated:\s*(.+)$", re.S)
_CORE_REF = "#/$defs/"


def _mapping(node: Any) -> dict[str, Any]:
    """A composed YAML mapping node's values by key (empty for any other node)."""
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {k.value: v for k, v in node.value if isinstance(k, yaml.ScalarNode)}


def _text(node: Any) -> str:
    return node.value if isinstance(node, yaml.ScalarNode) else ""


def _line(lines: list[str], node: Any, needle: str) -> int:
    """The 1-based line of the file where ``needle`` first appears at or after ``node``'s start."""
    for index in range(node.start_mark.line, min(len(lines), node.end_mark.line + 1)):
        if needle in lines[index]:
            return index + 1
    return node.start_mark.line + 1


def _note(description: str) -> str:
    """The text of a description's "Deprecated:" paragraph, on one line."""
    found = _PARAGRAPH.search(description)
    return " ".join(found.group(1).split()) if found else ""


def _fields(node: Any, path: list[str], lines: list[str], out: list[dict]) -> None:
    """Every property under one schema node whose description has a "Deprecated:" paragraph (path segments are
    property names, "[]" a list item, "{}" a map value, joined by "."); a node embedding a pod spec is walked without its core
    PodSpec fields."""
    fields = _mapping(node)
    properties = _mapping(fields.get("properties"))
    pod_spec = "containers" in properties
    for name, sub in sorted(properties.items()):
        if pod_spec and name in _POD_SPEC_FIELDS:
            continue
        description = _mapping(sub).get("description")
        note = _note(_text(description))
        if note:
            out.append({"path": ".".join([*path, name]), "note": note, "line": _line(lines, description, "Deprecated:")})
        _fields(sub, [*path, name], lines, out)
    for key, segment in (("items", "[]"), ("additionalProperties", "{}")):
        if isinstance(fields.get(key), yaml.MappingNode):
            _fields(fields[key], [*path, segment], lines, out)


def _paths(node: Any, path: tuple[str, ...], out: set[tuple[str, ...]]) -> None:
    """Every property path under one schema node (the fields a version defines)."""
    if not isinstance(node, yaml.MappingNode):
        return
    fields = _mapping(node)
    for name, sub in _mapping(fields.get("properties")).items():
        out.add((*path, name))
        _paths(sub, (*path, name), out)
    for key, segment in (("items", "[]"), ("additionalProperties", "{}")):
        _paths(fields.get(key), (*path, segment), out)


def _read(data: bytes, source: str) -> dict[str, dict]:
    """ "group/Kind" -> {"source", "served": the served versions, "versions": the deprecated ones, "fields": version ->
    deprecated fields,
    "paths": version -> every property path (for the history comparison; dropped before writing)}."""
    lines = data.decode("utf-8").splitlines()
    found: dict[str, dict] = {}
    for doc in yaml.compose_all(data, Loader=_LOADER):
        top = _mapping(doc)
        if _text(top.get("kind")) != "CustomResourceDefinition":
            continue
        spec = _mapping(top.get("spec"))
        entry = found.setdefault(
            f"{_text(spec.get('group'))}/{_text(_mapping(spec.get('names')).get('kind'))}",
            {"source": source, "versions": {}, "fields": {}, "paths": {}, "served": []},
        )
        for version_node in getattr(spec.get("versions"), "value", []):
            version = _mapping(version_node)
            if _text(version.get("served")) == "false":
                continue
            name = _text(version.get("name"))
            entry["served"] = sorted({*entry["served"], name})
            schema = _mapping(_mapping(version.get("schema")).get("openAPIV3Schema"))
            if _text(version.get("deprecated")) == "true":
                warning = version.get("deprecationWarning")
                entry["versions"][name] = {
                    "warning": " ".join(_text(warning).split()),
                    "line": _line(lines, version_node, "deprecated: true"),
                }
            spec_node = _mapping(schema.get("properties")).get("spec")
            rows: list[dict] = []
            _fields(spec_node, ["spec"], lines, rows)
            if rows:
                entry["fields"][name] = rows
            paths: set[tuple[str, ...]] = set()
            _paths(spec_node, ("spec",), paths)
            entry["paths"][name] = paths
    return found


def _core_fields(defs: dict, node: dict, path: list[str], seen: tuple[str, ...], out: list[dict]) -> None:
    """The "Deprecated:" properties under one node of Kubernetes' OpenAPI (refs followed, a definition not twice on one
    path), as _fields does for a CRD."""
    ref = node.get("$ref")
    if isinstance(ref, str):
        name = ref.removeprefix(_CORE_REF)
        if name not in seen and name in defs:
            _core_fields(defs, defs[name], path, (*seen, name), out)
        return
    for name, sub in sorted((node.get("properties") or {}).items()):
        found = _SENTENCE.search(str(sub.get("description") or ""))
        if found:
            out.append({"path": ".".join([*path, name]), "note": " ".join(found.group(1).split())})
        _core_fields(defs, sub, [*path, name], seen, out)
    for key, segment in (("items", "[]"), ("additionalProperties", "{}")):
        if isinstance(node.get(key), dict):
            _core_fields(defs, node[key], [*path, segment], seen, out)


def core() -> dict[str, dict]:
    """The deprecated spec fields of Kubernetes' own kinds (tools/core_schemas.py KINDS) in kubernetes-validate's
    OpenAPI of Kubernetes MINOR: a pod template's serviceAccount and in-tree volume drivers, a Service's
    loadBalancerIP."""
    from importlib import metadata

    defs, _ = _definitions(MINOR)
    source = f"Kubernetes {MINOR} OpenAPI (kubernetes-validate {metadata.version('kubernetes-validate')} v{MINOR}.0-local-strict/_definitions.json)"
    found: dict[str, dict] = {}
    for group, version, kind in sorted(set(KINDS.values())):
        root = _root(defs, (group, version, kind))
        spec = (defs[root].get("properties") or {}).get("spec")
        rows: list[dict] = []
        if isinstance(spec, dict):
            _core_fields(defs, spec, ["spec"], (root,), rows)
        if rows:
            entry = found.setdefault(f"{group or 'core'}/{kind}", {"source": source, "served": [], "versions": {}, "fields": {}})
            entry["served"] = sorted({*entry["served"], version})
            entry["fields"][version] = rows
    return found


def _add(entry: dict, version: str, rows: list[dict]) -> None:
    """Add a history release's rows to a kind's fields of ``version`` (none already there), sorted by path."""
    have = {r["path"] for r in entry["fields"].get(version, [])}
    rows = [r for r in rows if r["path"] not in have]
    if rows:
        entry["fields"][version] = sorted(entry["fields"].get(version, []) + rows, key=lambda r: r["path"])


def extract(reference: Path) -> dict:
    """The deprecated versions and fields of every CRD the pack pins, the fields the history releases deprecated that
    the pinned CRDs dropped, and the deprecated fields of Kubernetes' own kinds (``core``); deterministic."""
    crds = reference / "crds"
    provenance = _provenance(crds)
    kinds: dict[str, dict] = {}
    for path in sorted(crds.rglob("*.yaml")):
        name = path.relative_to(crds).as_posix()
        if name not in SKIPPED:
            for key, entry in _read(path.read_bytes(), provenance.get(name, "")).items():
                kinds.setdefault(key, entry)
    listed = json.loads(SOURCES.read_text(encoding="utf-8"))
    # A source whose mirror is not on this machine keeps what the committed file took from it.
    kept = json.loads(DATA.read_text(encoding="utf-8"))["kinds"] if DATA.exists() else {}
    for pinned in listed["crds"]:
        source = f"{pinned['repo']} {pinned['tag']} {pinned['path']}"
        data = _read_pinned(pinned)
        if data is None:
            for key, entry in kept.items():
                if entry["source"] == source:
                    kinds.setdefault(key, {**entry, "paths": {}})
            continue
        for key, entry in _read(data, source).items():
            kinds.setdefault(key, entry)
    for earlier in listed.get("history", []):
        source = f"{earlier['repo']} {earlier['tag']} {earlier['path']}"
        data = _read_pinned(earlier)
        found = _read(data, source) if data is not None else {}
        for key, current in kinds.items():
            if data is None:
                for version, rows in kept.get(key, {}).get("fields", {}).items():
                    _add(current, version, [r for r in rows if r.get("source") == source])
            elif key in found and current["paths"]:
                for version, rows in found[key]["fields"].items():
                    present = current["paths"].get(version)
                    if present is not None:
                        _add(
                            current,
                            version,
                            [dict(r, removed=True, source=source) for r in rows if tuple(r["path"].split(".")) not in present],
                        )
    kinds.update(core())
    out = {
        key: {k: e[k] for k in ("source", "served", "versions", "fields")}
        for key, e in sorted(kinds.items())
        if e["versions"] or e["fields"]
    }
    return {
        "about": "Deprecated served versions (deprecated: true, deprecationWarning) and deprecated spec fields (a "
        "description paragraph starting 'Deprecated:') of the pinned CRDs, by group/Kind, each with its source and the "
        "file's line; a field with removed: true was deprecated in the earlier release its source names and is absent "
        "from the pinned CRD. Read by policies/crd/deprecations.py (G40).",
        "generatedBy": "python tools/crd_deprecations.py --write (from the reference folder's crds/ and tools/crd_sources.json)",
        "kinds": out,
    }


def render(data: dict) -> str:
    """The committed file's bytes: sorted keys, one indent, a final newline."""
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Print, write or check the deprecation table (tools/crd_cel_rules.py generated_file_main)."""
    return generated_file_main(argv, __doc__.splitlines()[0], DATA, lambda ref: render(extract(ref)), "tools/crd_deprecations.py")


if __name__ == "__main__":
    sys.exit(main())
