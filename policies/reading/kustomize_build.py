"""``kustomize build`` of the run's kustomizations, in Python: the objects an overlay applies, whole.

A Kustomize overlay often holds the serving problem itself (an inline patch that scales a ScaledObject to zero, a
patch file whose ``preStop`` only sleeps), and neither its patch nor its base shows the object the cluster receives
(policies/reading/kustomize.py). This module builds that object from the files, as ``kustomize build`` would, for the
subset of a kustomization it models; any other field makes the whole overlay unbuilt (``Build.skipped`` says why),
never a guess. No kustomize binary runs and none of its code is copied: each behaviour below is read from
kubernetes-sigs/kustomize at tag api/v0.21.1 (and kyaml/v0.21.1) and restated.

- **Order** (api/internal/target/kusttarget.go:200-242 ``accumulateTarget``): ``resources`` (files, and folders
  holding a kustomization, each built whole first), then generators, then the built-in transformers in the order of
  api/internal/target/kusttarget_configplugin.go:72-84: ``patchesStrategicMerge``, ``patches``, ``namespace``,
  ``namePrefix``, ``nameSuffix``, ``commonLabels``/``labels``, ``commonAnnotations``, ``patchesJson6902``,
  ``replicas``, ``images``.
- **Fields** (api/types/kustomization.go:50-182): those above, ``bases`` (the old ``resources``), ``imageTags`` (the old
  ``images``), ``configMapGenerator``/``secretGenerator`` (literals, files and env files). Unbuilt: ``components``, ``helmCharts``, ``helmChartInflationGenerator``,
  ``replacements``, ``vars``, ``generators``, ``transformers``, ``validators``, ``crds``, ``configurations``,
  ``openapi`` and remote resources (a URL, ``github.com/...``).
- **Patches** (api/types/patch.go:12-21 ``path``/``patch``/``target``): a patch whose text is a list is a JSON patch
  (RFC 6902, applied with the ``jsonpatch`` library) and needs a ``target``; otherwise strategic-merge documents
  (api/internal/builtins/PatchTransformer.go:54-84). Without a target a strategic-merge patch applies to the object of
  its kind and name (its original name or current one); a target selects by kind, group, version, name and namespace
  (each an anchored regular expression, api/types/selector.go:81-86 ``anchorRegex``) and ``labelSelector``
  (``k=v`` terms joined by commas, the simple form).
- **Strategic merge, images, namespace, names, labels, replicas, JSON patches**: policies/reading/
  kustomize_transforms.py, with their citations.
- **Duplicates**: a resource whose (apiVersion, kind, namespace, name) the build already holds is refused ("may not add
  resource with an already registered id", api/resmap/reswrangler.go:80), so the overlay is not built.
- **Last, once, for the whole build**: generated objects' name hashes, then the name references that follow every
  rename (policies/reading/kustomize_names.py, with its citations); a custom resource's references stay as written.
"""

from __future__ import annotations

import base64
import copy
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from components.loading import MANIFESTS, LoadError, load_yaml_documents
from policies.config_files import CONFIG_FILE
from policies.reading.kustomize import KUSTOMIZATION_FILES
from policies.reading.kustomize_generators import MAX_BYTES, generator_data, generator_options, within
from policies.reading.kustomize_names import finish, namespace_of, no_duplicates
from policies.reading.kustomize_transforms import (
    CLUSTER_SCOPED,
    REPLICA_KINDS,
    SELECTOR_PATHS,
    TEMPLATE_LABEL_PATHS,
    Unbuilt,
    containers,
    image_name,
    json_patch,
    merge,
    retag,
    set_all,
)

# (file, document index as policies/manifests.py numbers it, line): where a finding on a built object is reported.
Where = tuple[str, int, int]

_MAX_DEPTH = 8  # nested kustomizations followed (a deeper chain is not built)
_MAX_OBJECTS = 2000  # objects one build holds before it stops

# Fields this renderer builds (module docstring); every other non-empty field leaves the overlay unbuilt.
_KNOWN = frozenset(
    {
        "apiVersion",
        "kind",
        "metadata",
        "resources",
        "bases",
        "namespace",
        "namePrefix",
        "nameSuffix",
        "commonLabels",
        "labels",
        "commonAnnotations",
        "patchesStrategicMerge",
        "patches",
        "patchesJson6902",
        "images",
        "imageTags",
        "replicas",
        "configMapGenerator",
        "secretGenerator",
        "generatorOptions",
        "sortOptions",
        "buildMetadata",
    }
)


@dataclass
class Built:
    """One object of a build: the object, where the run read the object it was built from (``origin``: the
    ``(file, document, item)`` of a file the run read, or None), the patches applied to it in order (``touched``:
    where each patch is written, a patch file or the kustomization that holds an inline one) and whether it differs
    from what its files state (``changed``)."""

    obj: dict
    origin: tuple | None
    touched: list[Where] = field(default_factory=list)
    changed: bool = False
    names: set = field(default_factory=set)  # every name it was known by (patches select by original name too)
    written: Any = None  # the object as its file writes it (None for a generated one)
    prev: set = field(default_factory=set)  # names stored before an id change (kustomize's PrevIds), for references
    hashed: bool = False  # a generated object whose name gets its content hash at the end of the build
    first_ns: str = ""  # its namespace when it entered the build (kustomize's OrgId namespace), "" for none

    def __post_init__(self) -> None:
        if not self.first_ns:
            self.first_ns = namespace_of(self.obj)


@dataclass
class Build:
    """One kustomization built (``kustomization``: its file) or not (``skipped``: why); ``patches``: where each patch
    file applied is read (file, document), for the findings on those patches alone."""

    kustomization: str
    objects: list[Built] = field(default_factory=list)
    skipped: str = ""
    patches: set = field(default_factory=set)
    levels: int = 0  # how deep the kustomizations it includes nest (0: files only)


# What the run already read: file (absolute, normalised) -> [(origin, object, where)] (objects the run holds, so a
# build reads no file twice).
Known = Mapping[str, Sequence[tuple[tuple, dict, Where]]]


def kustomization_file(folder: str) -> str | None:
    """The kustomization file of ``folder`` (kustomize's three names), or None."""
    for name in sorted(KUSTOMIZATION_FILES):
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            return path
    return None


def _read(path: str) -> list[Any]:
    if os.path.getsize(path) > MAX_BYTES:
        raise Unbuilt(f"{path} is larger than {MAX_BYTES} bytes")
    try:
        return load_yaml_documents(path, MANIFESTS)
    except LoadError as exc:
        raise Unbuilt(f"{path} does not read ({exc.problem})") from None


def _dig(obj: Any, path: Iterable[str]) -> Any:
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def _mapping(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _meta(obj: dict) -> dict:
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        meta = obj["metadata"] = {}
    return meta


def _name(obj: Any) -> str:
    name = _dig(obj, ("metadata", "name"))
    return name if isinstance(name, str) else ""


# ---------------------------------------------------------------------------------------------- selection


@dataclass(frozen=True)
class _Target:
    kind: Any = None
    group: Any = None
    version: Any = None
    name: Any = None
    namespace: Any = None
    labels: tuple = ()


def _regex(value: Any) -> Any:
    if not isinstance(value, str) or not value:
        return None
    try:
        return re.compile(value)
    except re.error as exc:
        raise Unbuilt(f"a patch target {value!r} is no regular expression this reader takes ({exc})") from None


def _target(raw: Any) -> _Target:
    if not isinstance(raw, dict):
        raise Unbuilt("a patch target is not a mapping")
    if raw.get("annotationSelector"):
        raise Unbuilt("a patch target selects by annotation")
    labels: list[tuple[str, str]] = []
    selector = raw.get("labelSelector")
    if selector:
        for term in str(selector).split(","):
            k, eq, v = term.strip().partition("=")
            if not eq or not k or any(c in k + v for c in "!()<> "):
                raise Unbuilt(f"a patch target's labelSelector {selector!r} is not of the simple form k=v,...")
            labels.append((k.strip(), v.lstrip("=").strip()))
    kind, group, version, name, namespace = (_regex(raw.get(k)) for k in ("kind", "group", "version", "name", "namespace"))
    return _Target(kind, group, version, name, namespace, tuple(labels))


def _selected(target: _Target, item: Built) -> bool:
    obj = item.obj
    api = obj.get("apiVersion")
    group, _, version = (api if isinstance(api, str) else "").rpartition("/")
    meta = _mapping(obj.get("metadata"))
    checks = (
        (target.kind, str(obj.get("kind") or "")),
        (target.group, group),
        (target.version, version),
        (target.namespace, str(meta.get("namespace") or "")),
    )
    if any(rx is not None and not rx.fullmatch(value) for rx, value in checks):
        return False
    if target.name is not None and not any(target.name.fullmatch(n) for n in item.names):
        return False
    labels = _mapping(meta.get("labels"))
    return all(str(labels.get(k)) == v for k, v in target.labels)


def _same_object(patch: dict, item: Built) -> bool:
    """True when a strategic-merge patch without a target names the object (kind, and its name now or before)."""
    if patch.get("kind") != item.obj.get("kind") or _name(patch) not in item.names:
        return False
    ns = _dig(patch, ("metadata", "namespace"))
    return not ns or ns == _dig(item.obj, ("metadata", "namespace")) or ns == _dig(item.written, ("metadata", "namespace"))


# ---------------------------------------------------------------------------------------------- the build


class _Builder:
    def __init__(self, known: Known, own: frozenset[str] = frozenset()) -> None:
        self.known = known
        self.own = own  # folders whose kustomization the run builds on its own (``build``)
        self.patch_files: set[tuple[str, int]] = set()
        self.levels = 0

    def build(self, folder: str, depth: int, stack: tuple[str, ...]) -> list[Built]:
        if depth > _MAX_DEPTH:
            raise Unbuilt(f"kustomizations nested deeper than {_MAX_DEPTH}")
        if folder in stack:
            raise Unbuilt(f"{folder} includes itself")
        path = kustomization_file(folder)
        if path is None:
            raise Unbuilt(f"{folder} holds no kustomization")
        docs = [d.data for d in _read(path)]
        docs = [d for d in docs if d is not None]
        if len(docs) != 1 or not isinstance(docs[0], dict):
            raise Unbuilt(f"{path} is not one mapping")
        k = docs[0]
        extra = sorted(str(f) for f, v in k.items() if f not in _KNOWN and v not in (None, [], {}, ""))
        if extra:
            raise Unbuilt(f"{path} uses {', '.join(extra)}, which this reader does not build")
        items: list[Built] = []
        for entry in [*_strings(k, "resources", path), *_strings(k, "bases", path)]:
            if "://" in entry or entry.startswith(("github.com/", "git@", "gitlab.com/", "bitbucket.org/")):
                raise Unbuilt(f"{path} names a remote resource ({entry})")
            target = os.path.normpath(os.path.join(folder, entry))
            if os.path.isdir(target):
                nested = self.build(target, depth + 1, (*stack, folder))
                if os.path.normpath(os.path.abspath(target)) in self.own:
                    # that build reports what its own patches changed (its objects as it finishes them); this one what
                    # it adds
                    finished = copy.deepcopy(nested)
                    finish(finished)
                    for item, done in zip(nested, finished):
                        item.written, item.touched = done.obj, []
                items += nested
                self.levels = max(self.levels, depth + 1)
            elif os.path.isfile(target):
                items += self._objects(within(folder, target, path))
            else:
                raise Unbuilt(f"{path} names {entry}, which is not there")
            if len(items) > _MAX_OBJECTS:
                raise Unbuilt(f"more than {_MAX_OBJECTS} objects")
        no_duplicates(items, path)
        items += self._generated(k, folder, path, items)
        where_k: Where = (path, 0, 1)
        for entry in k.get("patchesStrategicMerge") or ():
            self._strategic(entry, None, folder, path, items)
        for entry in k.get("patches") or ():
            if not isinstance(entry, dict):
                raise Unbuilt(f"{path}: a patches entry is not a mapping")
            self._patch(entry, folder, path, items, json_only=False)
        self._namespace(k.get("namespace"), items, where_k)
        self._rename(k.get("namePrefix"), k.get("nameSuffix"), items)
        self._labels(k, items)
        for entry in k.get("patchesJson6902") or ():
            if not isinstance(entry, dict):
                raise Unbuilt(f"{path}: a patchesJson6902 entry is not a mapping")
            self._patch(entry, folder, path, items, json_only=True)
        self._replicas(k.get("replicas"), items, path)
        for entry in [*(k.get("images") or ()), *(k.get("imageTags") or ())]:
            self._image(entry, items, path)
        return items

    def _objects(self, path: str) -> list[Built]:
        key = os.path.normpath(os.path.abspath(path))
        if key in self.known:
            return [Built(copy.deepcopy(obj), origin, names={_name(obj)}, written=obj) for origin, obj, _ in self.known[key]]
        out = []
        for doc in _read(path):
            data = doc.data
            values = data.get("items") if isinstance(data, dict) and str(data.get("kind", "")).endswith("List") else [data]
            for value in values if isinstance(values, list) else ():
                if isinstance(value, dict) and isinstance(value.get("kind"), str) and isinstance(value.get("apiVersion"), str):
                    out.append(Built(copy.deepcopy(value), None, names={_name(value)}, written=value))
        return out

    # ----- generators (api/types/kustomization.go:147-154; api/types/configmapargs.go, secretargs.go)

    def _generated(self, k: dict, folder: str, path: str, items: list[Built]) -> list[Built]:
        out: list[Built] = []
        no_hash = bool(_mapping(k.get("generatorOptions")).get("disableNameSuffixHash"))
        for field_name, kind in (("configMapGenerator", "ConfigMap"), ("secretGenerator", "Secret")):
            for entry in k.get(field_name) or ():
                if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                    raise Unbuilt(f"{path}: a {field_name} entry has no name")
                hashed = not (no_hash or _mapping(entry.get("options")).get("disableNameSuffixHash"))
                data = generator_data(entry, folder, path)
                if kind == "Secret":
                    data = {key: base64.b64encode(v.encode("utf-8", "surrogatepass")).decode() for key, v in data.items()}
                behavior = entry.get("behavior") or "create"
                ns = entry.get("namespace")
                existing = [
                    i
                    for i in items
                    if i.obj.get("kind") == kind
                    and entry["name"] in i.names
                    and (not ns or ns == _dig(i.obj, ("metadata", "namespace")))
                ]
                if behavior in ("merge", "replace") and existing:
                    # The generated object takes the existing one's place, keeping its name, namespace, labels and
                    # annotations (api/resmap/reswrangler.go:582-602, api/resource/resource.go:165-197): merge joins
                    # the old data and binaryData under the new, and nothing else of the old object survives, so a
                    # base Secret's stringData (an empty HF_TOKEN the overlay regenerates) is gone (review 49b #1).
                    for item in existing:
                        before = _mapping(item.obj.get("data"))
                        item.obj["data"] = {**before, **data} if behavior == "merge" else data
                        item.obj.pop("stringData", None)
                        if behavior == "replace":
                            item.obj.pop("binaryData", None)
                        if kind == "Secret":
                            item.obj["type"] = entry.get("type") or "Opaque"
                        item.touched.append((path, 0, 1))
                    continue
                if behavior != "create":
                    raise Unbuilt(f"{path}: {field_name} {entry['name']} {behavior}s a generated object not built")
                obj: dict = {"apiVersion": "v1", "kind": kind, "metadata": {"name": entry["name"]}, "data": data}
                if ns:
                    obj["metadata"]["namespace"] = ns
                generator_options(obj, _mapping(k.get("generatorOptions")), _mapping(entry.get("options")))
                if kind == "Secret":
                    obj["type"] = entry.get("type") or "Opaque"
                out.append(Built(obj, self._config_file(entry, folder), [(path, 0, 1)], True, {entry["name"]}, hashed=hashed))
        return out

    def _config_file(self, entry: dict, folder: str) -> tuple | None:
        """Where the run read a file of the generator as the ConfigMap it makes (policies/config_files.py): that object
        is the generated one's base, so a finding both say is reported once, on the file (overlay_builds)."""
        for source in entry.get("files") or ():
            key = os.path.normpath(os.path.abspath(os.path.join(folder, str(source).partition("=")[2] or str(source))))
            for origin, obj, _ in self.known.get(key, ()):
                if _dig(obj, ("metadata", "annotations", CONFIG_FILE)) == "configMap":
                    return origin
        return None

    # ----- patches

    def _patch_docs(self, entry: dict, folder: str, path: str) -> tuple[list[tuple[Any, Where]], bool]:
        """The documents of a patch entry with where each is written, and whether it is a file."""
        if isinstance(entry.get("path"), str):
            file = os.path.normpath(os.path.join(folder, entry["path"]))
            if not os.path.isfile(within(folder, file, path)):
                raise Unbuilt(f"{path} names the patch {entry['path']}, which is not there")
            key = os.path.normpath(os.path.abspath(file))
            if key in self.known:
                docs = [(obj, where) for _, obj, where in self.known[key]]
                if docs:
                    return docs, True
            return [(d.data, (file, d.index, d.line)) for d in _read(file) if d.data is not None], True
        text = entry.get("patch")
        if not isinstance(text, str):
            raise Unbuilt(f"{path}: a patch entry has neither path nor patch")
        try:
            inline = load_yaml_documents(path, MANIFESTS, text=text)
        except LoadError as exc:
            raise Unbuilt(f"{path}: an inline patch does not read ({exc.problem})") from None
        return [(d.data, (path, 0, 1)) for d in inline if d.data is not None], False

    def _strategic(self, entry: Any, target: Any, folder: str, path: str, items: list[Built]) -> None:
        if isinstance(entry, str) and "\n" not in entry.strip():
            self._patch({"path": entry}, folder, path, items, json_only=False, strategic_only=True)
        elif isinstance(entry, str):
            self._patch({"patch": entry}, folder, path, items, json_only=False, strategic_only=True)
        else:
            raise Unbuilt(f"{path}: a patchesStrategicMerge entry is not a path or a patch")

    def _patch(
        self, entry: dict, folder: str, path: str, items: list[Built], *, json_only: bool, strategic_only: bool = False
    ) -> None:
        docs, is_file = self._patch_docs(entry, folder, path)
        target = _target(entry["target"]) if entry.get("target") is not None else None
        if docs and all(isinstance(d, list) for d, _ in docs) and not strategic_only:
            if target is None:
                raise Unbuilt(f"{path}: a JSON patch without a target")
            ops = [op for d, _ in docs for op in d]
            chosen = [i for i in items if _selected(target, i)]
            if not chosen:
                raise Unbuilt(f"{path}: a JSON patch's target selects no object built")
            for item in chosen:
                item.obj = json_patch(item.obj, ops, path)
                item.touched.append(docs[0][1])
            self._seen(docs, is_file)
            return
        if json_only or not all(isinstance(d, dict) for d, _ in docs):
            raise Unbuilt(f"{path}: a patch is neither a JSON patch nor strategic-merge documents")
        for doc, where in docs:
            chosen = (
                [i for i in items if _selected(target, i)] if target is not None else [i for i in items if _same_object(doc, i)]
            )
            if not chosen:
                raise Unbuilt(f"{path}: a patch of {doc.get('kind')}/{_name(doc)} matches no object built")
            for item in chosen:
                if target is not None:  # a targeted patch is applied under each target's own name
                    meta = _mapping(doc.get("metadata"))
                    doc = {**doc, "metadata": {**meta, "name": _name(item.obj)}}
                merged = merge(item.obj, doc)
                if merged is None:
                    items.remove(item)
                    continue
                item.obj = merged
                item.touched.append(where)
        self._seen(docs, is_file)

    def _seen(self, docs: list[tuple[Any, Where]], is_file: bool) -> None:
        if is_file:
            self.patch_files.update((where[0], where[1]) for _, where in docs)

    # ----- transformers

    def _namespace(self, namespace: Any, items: list[Built], where: Where) -> None:
        if not isinstance(namespace, str) or not namespace:
            return
        for item in items:
            if not item.obj:
                continue
            item.prev.add(_name(item.obj))  # NamespaceTransformer.go:59 stores every object's id first
            kind = item.obj.get("kind")
            if kind not in CLUSTER_SCOPED:
                _meta(item.obj)["namespace"] = namespace
            elif kind == "Namespace" and item.obj.get("apiVersion") == "v1":
                # builtinpluginconsts/namespace.go:8-11 names a Namespace's metadata/name among the namespace field
                # specs, kept for apiVersion v1 only (filters/namespace/namespace.go:191-201): it becomes the namespace
                _meta(item.obj)["name"] = namespace
            if kind in ("RoleBinding", "ClusterRoleBinding"):  # namespace.go:126-168, defaultOnly
                for subject in item.obj.get("subjects") or ():
                    if isinstance(subject, dict) and subject.get("name") == "default":
                        subject["namespace"] = namespace

    def _rename(self, prefix: Any, suffix: Any, items: list[Built]) -> None:
        prefix = prefix if isinstance(prefix, str) else ""
        suffix = suffix if isinstance(suffix, str) else ""
        if not prefix and not suffix:
            return
        for item in items:
            kind, name = str(item.obj.get("kind") or ""), _name(item.obj)
            if not name or kind in ("Namespace", "CustomResourceDefinition"):
                continue
            new = f"{prefix}{name}{suffix}"
            item.prev.add(name)
            _meta(item.obj)["name"] = new
            item.names.add(new)

    def _labels(self, k: dict, items: list[Built]) -> None:
        selector_labels: dict[str, str] = {}
        meta_labels: dict[str, str] = {}
        template_labels: dict[str, str] = {}
        common = k.get("commonLabels")
        if isinstance(common, dict):
            selector_labels.update({str(a): str(b) for a, b in common.items()})
        for entry in k.get("labels") or ():
            pairs = entry.get("pairs") if isinstance(entry, dict) else None
            if not isinstance(pairs, dict):
                continue
            pairs = {str(a): str(b) for a, b in pairs.items()}
            if entry.get("includeSelectors"):
                selector_labels.update(pairs)
            else:
                meta_labels.update(pairs)
                if entry.get("includeTemplates"):
                    template_labels.update(pairs)
        annotations = k.get("commonAnnotations")
        if not (selector_labels or meta_labels or template_labels or isinstance(annotations, dict) and annotations):
            return
        for item in items:
            obj, kind = item.obj, str(item.obj.get("kind") or "")
            if selector_labels or meta_labels:
                set_all(obj, ("metadata", "labels"), {**selector_labels, **meta_labels})
            if selector_labels and kind in SELECTOR_PATHS:
                set_all(obj, SELECTOR_PATHS[kind], selector_labels)
            if (selector_labels or template_labels) and kind in TEMPLATE_LABEL_PATHS:
                set_all(obj, TEMPLATE_LABEL_PATHS[kind], {**selector_labels, **template_labels})
            if isinstance(annotations, dict) and annotations:
                pairs = {str(a): str(b) for a, b in annotations.items()}
                set_all(obj, ("metadata", "annotations"), pairs)
                if kind in TEMPLATE_LABEL_PATHS:
                    set_all(obj, (*TEMPLATE_LABEL_PATHS[kind][:-1], "annotations"), pairs)

    def _replicas(self, entries: Any, items: list[Built], path: str) -> None:
        for entry in entries or ():
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                raise Unbuilt(f"{path}: a replicas entry has no name")
            count = entry.get("count")
            for item in items:
                if item.obj.get("kind") in REPLICA_KINDS and entry["name"] in item.names:
                    spec = item.obj.get("spec")
                    if not isinstance(spec, dict):
                        spec = item.obj["spec"] = {}
                    spec["replicas"] = count

    def _image(self, entry: Any, items: list[Built], path: str) -> None:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise Unbuilt(f"{path}: an images entry has no name")
        for item in items:
            for container in containers(item.obj):
                image = container.get("image")
                if isinstance(image, str) and image_name(image)[0] == entry["name"]:
                    container["image"] = retag(image, entry)


def _strings(k: dict, key: str, path: str) -> list[str]:
    values = k.get(key) or []
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise Unbuilt(f"{path}: {key} is not a list of paths")
    return values


def _changed(item: Built) -> bool:
    return item.written is None or item.obj != item.written


def build(folder: str, known: Known, own: frozenset[str] = frozenset()) -> Build:
    """The kustomization in ``folder`` built (``known``: what the run read, by file); never raises on bad input.
    ``own``: the folders (absolute, normalised) whose kustomizations are built on their own in the same run: an object
    this one takes from them counts as changed only where this one changes it, and its patches are theirs."""
    path = kustomization_file(folder) or os.path.join(folder, "kustomization.yaml")
    builder = _Builder(known, own)
    try:
        objects = builder.build(os.path.normpath(folder), 0, ())
        finish(objects)
    except Unbuilt as exc:
        return Build(path, skipped=str(exc))
    except RecursionError:
        return Build(path, skipped="nested too deeply")
    for item in objects:
        item.changed = _changed(item)
    return Build(path, objects, patches=builder.patch_files, levels=builder.levels)


def builds(folders: Iterable[str], known: Known) -> list[Build]:
    """The kustomization of each folder that holds one, built; those that include others after them."""
    found = [os.path.normpath(os.path.abspath(f)) for f in folders]
    found = [f for f in dict.fromkeys(found) if kustomization_file(f)]
    own = frozenset(found)
    return sorted((build(f, known, own) for f in found), key=lambda b: b.levels)


__all__ = ["Build", "Built", "Known", "Unbuilt", "build", "builds", "kustomization_file"]
