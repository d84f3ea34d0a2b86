"""The end of a ``kustomize build`` (policies/reading/kustomize_build.py): done once, after the whole build, not per
included kustomization (kubernetes-sigs/kustomize api/v0.21.1 api/internal/target/kusttarget.go:144-151), restated, no
code copied:

- **name hashes**: a generated ConfigMap or Secret gets its content hash appended to its name unless
  ``generatorOptions`` or the entry's ``options`` set ``disableNameSuffixHash`` (api/internal/builtins/
  HashTransformer.go:25-35, api/types/generatoroptions.go:34-52); the hash as api/hasher/hasher.go:28-53 and 78-158
  compute it (``content_hash``);
- **name references**: a field that api/internal/konfig/builtinpluginconsts/namereference.go lists for the referrer's
  kind (kustomize_transforms.NAME_REFERENCES) naming an object by a name it had before its last rename, namespace
  change or hash takes its current name (a subject or webhook service its namespace too) when one object fits
  (api/filters/nameref/nameref.go:101-150 ``setMapping``, 152-169, 242-251, 291-343 ``selectReferral``: same kind, a
  roleRef's kind, the referrer's namespace unless either is cluster-scoped or the referral a ServiceAccount). Several
  fitting objects of different names make the overlay unbuilt (kustomize breaks that tie by prefixes, not tracked
  here). A custom resource has no such field, so its reference to a renamed or generated object keeps the stale name,
  as the cluster receives it.

The objects are kustomize_build.Built (duck-typed here: ``obj``, ``names``, ``prev``, ``hashed``, ``first_ns``).
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from policies.reading.kustomize_transforms import CLUSTER_SCOPED, Unbuilt, reference_sites

_HASH_LETTERS = str.maketrans("013ae", "ghkmt")
_SHORT_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\([bf])")


def _name(obj: Any) -> str:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    name = meta.get("name") if isinstance(meta, dict) else None
    return name if isinstance(name, str) else ""


def namespace_of(obj: Any) -> str:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    ns = meta.get("namespace") if isinstance(meta, dict) else None
    return ns if isinstance(ns, str) else ""


def _effective(ns: str) -> str:
    return ns or "default"


def _meta(obj: dict) -> dict:
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        meta = obj["metadata"] = {}
    return meta


def _go_json(value: Any) -> str:
    """``value`` as Go's encoding/json writes it (keys sorted, HTML characters and U+2028/9 escaped, \\b and \\f as
    \\u escapes): the text kustomize's hasher takes."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    for plain, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(plain, escaped)
    # Python writes \b and \f short; Go as \u0008 and \u000c (a backslash before them is itself escaped: \\b)
    return _SHORT_ESCAPE.sub(lambda m: m.group(1) + ("\\u0008" if m.group(2) == "b" else "\\u000c"), text)


def content_hash(obj: dict) -> str:
    """The suffix kustomize appends to a generated ConfigMap's or Secret's name (api/hasher/hasher.go:28-53, 78-158).
    The name enters as "": hasher.go:82 looks the path ``metadata/name`` up as one key (yaml.Lookup), which no object
    holds (checked against kustomize v5.5.0: Secret hf-token of token=abc is hf-token-dbdgd77ct8)."""

    def value(key: str) -> Any:
        v = obj.get(key)
        return "" if v is None else v

    kind = obj.get("kind")
    m: dict[str, Any] = {"kind": kind, "name": "", "data": value("data")}
    if kind == "Secret":
        m["type"] = value("type")
        if isinstance(obj.get("stringData"), dict):
            m["stringData"] = obj["stringData"]
    elif isinstance(obj.get("binaryData"), dict):
        m["binaryData"] = obj["binaryData"]
    digest = hashlib.sha256(_go_json(m).encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return digest.translate(_HASH_LETTERS)


def finish(items: list[Any]) -> None:
    """What kustomize does once, after the whole build (module docstring): name hashes, then name references."""
    for item in items:
        if item.hashed and item.obj.get("kind") in ("ConfigMap", "Secret") and _name(item.obj):
            item.prev.add(_name(item.obj))
            new = f"{_name(item.obj)}-{content_hash(item.obj)}"
            _meta(item.obj)["name"] = new
            item.names.add(new)
            item.hashed = False
    moved = [i for i in items if i.prev]
    if not moved:
        return
    for referrer in items:
        for target, version, path, holder, key in reference_sites(referrer.obj):
            _fix(referrer, moved, target, version, path, holder, key)


def _fix(referrer: Any, moved: list[Any], target: str, version: str, path: tuple, holder: Any, key: Any) -> None:
    node = holder[key]
    mapping = isinstance(node, dict)
    old = node.get("name") if mapping else node
    if not isinstance(old, str) or not old:
        return
    candidates = [c for c in moved if c.obj.get("kind") == target and old in c.prev]
    if version:
        candidates = [c for c in candidates if str(c.obj.get("apiVersion") or "").rpartition("/")[2] == version]
    if mapping and isinstance(node.get("namespace"), str):
        ns = node["namespace"]
        first = [c for c in candidates if _effective(c.first_ns) == ns]
        candidates = first or [c for c in candidates if _effective(namespace_of(c.obj)) == ns]
    if path[-2:] == ("roleRef", "name"):
        ref = referrer.obj.get("roleRef")
        if isinstance(ref, dict) and ref.get("apiGroup") and ref.get("kind"):
            candidates = [
                c
                for c in candidates
                if c.obj.get("kind") == ref["kind"] and str(c.obj.get("apiVersion") or "").rpartition("/")[0] == ref["apiGroup"]
            ]
    if referrer.obj.get("kind") not in CLUSTER_SCOPED:
        here = _effective(namespace_of(referrer.obj))
        candidates = [
            c
            for c in candidates
            if c.obj.get("kind") in CLUSTER_SCOPED
            or c.obj.get("kind") == "ServiceAccount"
            or _effective(namespace_of(c.obj)) == here
        ]
    if not candidates:
        return
    names = {(_name(c.obj), namespace_of(c.obj) if mapping else "") for c in candidates}
    if len(names) > 1:
        raise Unbuilt(
            f"a {target} reference {old!r} of {referrer.obj.get('kind')}/{_name(referrer.obj)} could name several objects"
        )
    name, ns = _name(candidates[0].obj), namespace_of(candidates[0].obj)
    if not mapping:
        holder[key] = name
    elif name != old or ns:
        node["name"] = name
        if ns:
            node["namespace"] = ns


def no_duplicates(items: list[Any], path: str) -> None:
    """Unbuilt when two resources share (apiVersion, kind, namespace, name): kustomize refuses the second ("may not add
    resource with an already registered id", api/resmap/reswrangler.go:80)."""
    seen: set[tuple[str, str, str, str]] = set()
    for item in items:
        api, kind = str(item.obj.get("apiVersion") or ""), str(item.obj.get("kind") or "")
        ns = "" if kind in CLUSTER_SCOPED else _effective(namespace_of(item.obj))
        key = (api, kind, ns, _name(item.obj))
        if key in seen:
            raise Unbuilt(f"{path} adds {kind}/{key[3]} twice, which kustomize refuses (an already registered id)")
        seen.add(key)


__all__ = ["content_hash", "finish", "namespace_of", "no_duplicates"]
