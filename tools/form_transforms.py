"""Rewrites of a folder of manifests that Kubernetes and the controllers treat as the same objects (tools/form_variants.py).

A folder is read into ``Folder``: each file's relative path and its documents (None for a file that does not parse as
YAML, a Helm template for example: it is copied as it is and no transform touches it). Each transform takes a Folder
and returns the rewritten one, or None when it changes nothing there (the run is then skipped). Each docstring says
why the result is the same object to the API server, the kubelet or the controller, with the upstream rule.

Transforms that looked equivalent and are not, so not kept: ``--k v`` -> ``--k=v`` (a flag that takes no value, vLLM's
``--trust-remote-code``, would swallow the next word; which flags take one is per engine and release), and ``"1"`` ->
``1`` for a quantity written as text (the API server reads both, so only the int -> text direction is kept: it is the
one YAML authors drift to).
"""

from __future__ import annotations

import copy
import re
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Optional

from policies.input.run_files import SUFFIXES, TEMPLATE_SUFFIXES

# Cluster-scoped kinds (kubectl api-resources --namespaced=false, and the CRDs the corpora use): they take no namespace.
CLUSTER_KINDS = frozenset(
    "Namespace Node PersistentVolume StorageClass ClusterRole ClusterRoleBinding CustomResourceDefinition PriorityClass "
    "NodePool EC2NodeClass AKSNodeClass GCPNodeClass NodeClass IngressClass GatewayClass RuntimeClass ClusterServingRuntime "
    "MutatingWebhookConfiguration ValidatingWebhookConfiguration ValidatingAdmissionPolicy ValidatingAdmissionPolicyBinding "
    "APIService ClusterIssuer DeviceClass ResourceSlice ClusterQueue ResourceFlavor Cohort ClusterPolicy NicClusterPolicy "
    "ClusterSecretStore CSIDriver VolumeSnapshotClass ClusterStorageContainer ClusterTrainingRuntime ClusterRoleTemplate "
    "List".split()
)
MIRROR = "registry.example.internal/mirror"
# The names the check reads (a split file keeps its suffix: x--0.yaml.template).
_SUFFIXES = (*SUFFIXES, *TEMPLATE_SUFFIXES)


@dataclass
class Folder:
    """The files of one unit: relative path -> documents (None: not YAML, copied verbatim), and the raw text."""

    docs: dict[str, Optional[list[Any]]]
    raw: dict[str, bytes]
    style: str = "block"  # how the parsed files are written: "block" YAML or "json" documents


def walk(node: Any) -> Iterator[dict]:
    """Every mapping under ``node`` (``node`` included), depth first."""
    if isinstance(node, dict):
        yield node
        for v in list(node.values()):
            yield from walk(v)
    elif isinstance(node, list):
        for v in node:
            yield from walk(v)


def containers(doc: Any) -> Iterator[dict]:
    """Every container (a mapping with a text ``image`` in a ``containers`` or ``initContainers`` list) in ``doc``, an
    object (a document with a kind: a chart's values file is not one)."""
    if not isinstance(doc, dict) or "kind" not in doc:
        return
    for m in walk(doc):
        for key in ("containers", "initContainers"):
            for c in m.get(key) or [] if isinstance(m.get(key), list) else []:
                if isinstance(c, dict) and isinstance(c.get("image"), str):
                    yield c


def _each_doc(folder: Folder, change: Callable[[dict], bool]) -> Optional[Folder]:
    """A copy of ``folder`` with ``change`` applied to each document; None when it changed none."""
    out, changed = copy.deepcopy(folder), False
    for docs in out.docs.values():
        for doc in docs or []:
            if isinstance(doc, dict):
                changed |= bool(change(doc))
    return out if changed else None


def _argv_lists(c: dict) -> Iterator[list]:
    for key in ("command", "args"):
        if isinstance(c.get(key), list):
            yield c[key]


_SCRIPT_FLAG = re.compile(r"(?<=\s)(--[A-Za-z0-9][A-Za-z0-9_.-]*)=([^\s'\"\\$`;|&<>(){}=-][^\s'\"\\$`;|&<>(){}]*)(?=\s|$)")
_SHELLS = ("sh", "bash", "/bin/sh", "/bin/bash", "/usr/bin/bash", "/usr/bin/env")


def flag_space(folder: Folder) -> Optional[Folder]:
    """``--k=v`` -> ``--k v`` in container command/args, and inside ``sh -c`` scripts. Python argparse
    (Lib/argparse.py _parse_optional: "--k=v" is split at the first "="), Go's flag and spf13/pflag read both spellings
    of an option that takes a value; a shell splits ``--k v`` into the same two words. Not done for a value Go's
    strconv.ParseBool reads (``1``, ``t``, ``false``...: pflag's and flag's bool flags take a value only after "=", and
    argparse's store_true refuses one either way), nor for a value that starts with "-", nor in a llama.cpp container:
    its parser looks the whole word up and refuses ``--ctx-size=4096`` (llama.cpp common/arg.cpp
    common_params_parse_ex, ``arg_to_options.find(arg)`` with no "=" split; review 45 #12)."""

    def change(doc: dict) -> bool:
        changed = False
        for c in containers(doc):
            if _llama_cpp(c):
                continue
            for argv in _argv_lists(c):
                script = _script_index(argv)
                out: list[Any] = []
                for i, a in enumerate(argv):
                    if i == script:
                        new = _SCRIPT_FLAG.sub(lambda m: _space(m) or m.group(0), f" {a}")[1:]
                        changed |= new != a
                        out.append(new)
                    elif isinstance(a, str) and a.startswith("--") and "=" in a and _value_ok(a.split("=", 1)[1]):
                        out.extend(a.split("=", 1))
                        changed = True
                    else:
                        out.append(a)
                argv[:] = out
        return changed

    return _each_doc(folder, change)


# Go's strconv.ParseBool (src/strconv/atob.go): the words a bool flag takes after "=".
_PARSE_BOOL = frozenset("1 t T TRUE true True 0 f F FALSE false False".split())


def _value_ok(value: str) -> bool:
    return (
        bool(value)
        and not value.startswith("-")
        and value not in _PARSE_BOOL
        and value.lower() not in ("true", "false")
        and "$(" not in value
    )


def _llama_cpp(c: dict) -> bool:
    """A llama.cpp server container (its image or command names it), whose parser takes no ``--k=v``."""
    words = [str(c.get("image", "")), *(str(a) for argv in _argv_lists(c) for a in argv)]
    return any(re.search(r"llama[.-]?cpp|llama-server|llama_cpp", w, re.IGNORECASE) for w in words)


def _space(m: re.Match) -> str:
    return f"{m.group(1)} {m.group(2)}" if _value_ok(m.group(2)) else ""


def _script_index(argv: list) -> int:
    """The index of the script in a ``sh -c SCRIPT`` argv (-1 when there is none)."""
    for i, a in enumerate(argv[:-1]):
        if a == "-c" and (i == 0 or str(argv[i - 1]).rsplit("/", 1)[-1] in ("sh", "bash")) and isinstance(argv[i + 1], str):
            return i + 1
    return -1


def _mirrored(image: str) -> str:
    first, _, rest = image.partition("/")
    if rest and ("." in first or ":" in first or first == "localhost"):
        return f"{MIRROR}/{rest}"  # a registry host: a pull-through cache keeps the repository path (Harbor, ECR)
    return f"{MIRROR}/{image if rest else 'library/' + image}"


def mirror_registry(folder: Folder) -> Optional[Folder]:
    """Every image pulled through a mirror: ``vllm/vllm-openai:v0.8.5`` ->
    ``registry.example.internal/mirror/vllm/vllm-openai:v0.8.5`` (the repository path and tag kept, as a Harbor proxy
    cache or an ECR pull-through cache serves them; docker.io's ``library/`` spelled out). The kubelet pulls the same
    image digest; only the registry differs, so a finding about what the image runs must survive. Losses that truly
    depend on the registry (NGC pull credentials, an engine image that only one registry publishes) are listed in
    form_variants.EXPECTED."""

    def change(doc: dict) -> bool:
        changed = False
        for m in walk(doc):
            image = m.get("image")
            if isinstance(image, str) and _image_like(image) and m is not doc:
                m["image"] = _mirrored(image)
                changed = True
            elif isinstance(image, dict) and isinstance(image.get("repository"), str) and _image_like(image["repository"]):
                image["repository"] = _mirrored(image["repository"])
                changed = True
        return changed

    return _each_doc(folder, change)


def _image_like(text: str) -> bool:
    return bool(re.fullmatch(r"[a-z0-9][a-z0-9._/:@-]*", text)) and not text.startswith(MIRROR) and "{{" not in text


# Files that make a folder's file list part of what it builds: a kustomization lists files by name (resources,
# patches), and a Helm chart reads Chart.yaml and values.yaml by name, so splitting, merging or wrapping files
# there changes what `kustomize build` / `helm template` produce (review 45 #12).
_NAMED_FILE_LISTS = ("kustomization.yaml", "kustomization.yml", "Kustomization", "Chart.yaml")


def _lists_files(folder: Folder, path: str) -> bool:
    """True when the folder holding ``path`` holds a kustomization or a Helm chart (_NAMED_FILE_LISTS)."""
    where = path.rpartition("/")[0]
    return any((f"{where}/{name}" if where else name) in folder.docs for name in _NAMED_FILE_LISTS)


def split_files(folder: Folder) -> Optional[Folder]:
    """Each document of a multi-document file in its own file of the same folder. kubectl apply -f FOLDER (and Argo
    CD's directory source) apply the union of the folder's documents, whatever file holds each. Not done in a folder
    whose kustomization or chart names its files (_NAMED_FILE_LISTS)."""
    out = Folder({}, dict(folder.raw))
    changed = False
    for path, docs in folder.docs.items():
        objects = [d for d in docs or [] if d is not None]
        if docs is None or len(objects) < 2 or _lists_files(folder, path):
            out.docs[path] = copy.deepcopy(docs)
            continue
        suffix = max((x for x in _SUFFIXES if path.endswith(x)), key=len, default="." + path.rpartition(".")[2])
        for i, d in enumerate(objects):
            out.docs[f"{path[: -len(suffix)]}--{i}{suffix}"] = [copy.deepcopy(d)]
        changed = True
    return out if changed else None


def merge_folder(folder: Folder) -> Optional[Folder]:
    """Every YAML file of a directory in one file there (documents in the files' order). kubectl apply -f reads a
    file's documents one by one (k8s.io/cli-runtime pkg/resource/visitor.go StreamVisitor), so one file or many give
    the same objects. Not done in a folder whose kustomization or chart names its files (_NAMED_FILE_LISTS)."""
    groups: dict[str, list[str]] = {}
    for path, docs in folder.docs.items():
        if docs is not None and not path.endswith(".json") and not _lists_files(folder, path):
            groups.setdefault(path.rpartition("/")[0], []).append(path)
    if not any(len(paths) > 1 for paths in groups.values()):
        return None
    out = Folder({}, dict(folder.raw))
    for path, docs in folder.docs.items():
        if docs is None or path.endswith(".json") or len(groups.get(path.rpartition("/")[0], ())) < 2:
            out.docs[path] = copy.deepcopy(docs)
    for where, paths in groups.items():
        if len(paths) > 1:
            merged = [copy.deepcopy(d) for p in sorted(paths) for d in folder.docs[p] or [] if d is not None]
            out.docs[f"{where}/merged-all.yaml" if where else "merged-all.yaml"] = merged
    return out


def list_wrap(folder: Folder) -> Optional[Folder]:
    """The documents of each file as the items of one ``kind: List`` (what ``kubectl get -o yaml`` prints); kubectl
    apply flattens a List into its items (k8s.io/cli-runtime pkg/resource/visitor.go FlattenListVisitor). Not done in
    a folder whose kustomization or chart names its files (_NAMED_FILE_LISTS): kustomize reads a patch file or a
    Kustomization by name and does not flatten a List there."""
    out, changed = copy.deepcopy(folder), False
    for path, docs in out.docs.items():
        objects = [d for d in docs or [] if isinstance(d, dict) and "kind" in d]
        if docs is None or not objects or len(objects) != len([d for d in docs if d is not None]) or _lists_files(folder, path):
            continue
        out.docs[path] = [{"apiVersion": "v1", "kind": "List", "items": objects}]
        changed = True
    return out if changed else None


def _resources(doc: dict) -> Iterator[dict]:
    for m in walk(doc):
        r = m.get("resources")
        if isinstance(r, dict):
            for key in ("limits", "requests"):
                if isinstance(r.get(key), dict):
                    yield r[key]


def quantity_text(folder: Folder) -> Optional[Folder]:
    """A resource quantity written as a number -> the same as text (``nvidia.com/gpu: 1`` -> ``"1"``, ``cpu: 4`` ->
    ``"4"``): resource.Quantity unmarshals both from JSON (k8s.io/apimachinery pkg/api/resource/quantity.go
    UnmarshalJSON strips the quotes)."""

    def change(doc: dict) -> bool:
        changed = False
        for amounts in _resources(doc):
            for k, v in amounts.items():
                if isinstance(v, int) and not isinstance(v, bool):
                    amounts[k] = str(v)
                    changed = True
        return changed

    return _each_doc(folder, change)


_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "K": 10**3, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}


def quantity_units(folder: Folder) -> Optional[Folder]:
    """Memory and storage in bytes (``16Gi`` -> ``17179869184``) and CPU in millicores (``4`` -> ``4000m``): the same
    resource.Quantity (k8s.io/apimachinery pkg/api/resource/quantity.go ParseQuantity), as the API server stores it."""

    def change(doc: dict) -> bool:
        changed = False
        for amounts in _resources(doc):
            for k, v in list(amounts.items()):
                text = str(v) if isinstance(v, (int, str)) and not isinstance(v, bool) else ""
                if k == "cpu" and re.fullmatch(r"\d+(\.\d{1,3})?", text):
                    amounts[k] = f"{round(float(text) * 1000)}m"
                    changed = True
                elif k in ("memory", "ephemeral-storage") and (m := re.fullmatch(r"(\d+)(Ki|Mi|Gi|Ti|K|k|M|G|T)", text)):
                    amounts[k] = int(m.group(1)) * _BINARY[m.group(2)]
                    changed = True
        return changed

    return _each_doc(folder, change)


def explicit_namespace(folder: Folder) -> Optional[Folder]:
    """``metadata.namespace: default`` on every namespaced object, when no object of the folder names a namespace:
    kubectl apply without -n puts them in the context's namespace, ``default`` unless set (k8s.io/cli-runtime
    pkg/resource/builder.go DefaultNamespace). An assumption, not an equivalence: the same objects only where the
    context's namespace is ``default`` (review 45 #12)."""
    docs = [d for ds in folder.docs.values() for d in ds or [] if isinstance(d, dict)]
    if any(isinstance(d.get("metadata"), dict) and d["metadata"].get("namespace") for d in _objects(docs)):
        return None

    def change(doc: dict) -> bool:
        changed = False
        for obj in _objects([doc]):
            if obj.get("kind") not in CLUSTER_KINDS and isinstance(obj.get("metadata"), dict):
                obj["metadata"]["namespace"] = "default"
                changed = True
        return changed

    return _each_doc(folder, change)


def _objects(docs: list) -> Iterator[dict]:
    for d in docs:
        if isinstance(d, dict) and str(d.get("kind", "")).endswith("List") and isinstance(d.get("items"), list):
            yield from _objects(d["items"])
        elif isinstance(d, dict) and "kind" in d:
            yield d


def _each_file(folder: Folder, change: Callable[[list, Callable[[], str]], bool]) -> Optional[Folder]:
    """A copy of ``folder`` with ``change(docs, fresh_name)`` applied to each parsed file's document list (it may append
    documents); None when it changed none."""
    out, changed, count = copy.deepcopy(folder), False, [0]

    def fresh() -> str:
        count[0] += 1
        return f"form-variant-{count[0]}"

    for docs in out.docs.values():
        if docs is not None:
            changed |= bool(change(docs, fresh))
    return out if changed else None


# Variables that hold credentials: moved to a ConfigMap they are a literal secret in another object, which G35 rightly
# reports there, so the env rewrites leave them.
_CREDENTIAL = re.compile(r"TOKEN|KEY|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH", re.IGNORECASE)


def _literal_env(c: dict) -> list[dict]:
    """The container's env entries with a literal value the env rewrites may move (no $(VAR), no credential)."""
    env = c.get("env")
    if not isinstance(env, list):
        return []
    return [
        e
        for e in env
        if isinstance(e, dict) and isinstance(e.get("name"), str) and isinstance(e.get("value"), str) and "$" not in e["value"]
        and re.fullmatch(r"[-._a-zA-Z0-9]+", e["name"]) and set(e) == {"name", "value"} and not _CREDENTIAL.search(e["name"])
    ]  # fmt: skip


def _config_map(doc: dict, name: str, data: dict[str, str]) -> dict:
    meta: dict = doc["metadata"] if isinstance(doc.get("metadata"), dict) else {}
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, **({"namespace": meta["namespace"]} if meta.get("namespace") else {})},
        "data": data,
    }


def env_config_map_key(folder: Folder) -> Optional[Folder]:
    """Each literal ``env[].value`` -> ``valueFrom.configMapKeyRef`` of a ConfigMap added to the same file. The kubelet
    gives the container the same variable (k8s.io/kubernetes pkg/kubelet/kubelet_pods.go makeEnvironmentVariables);
    values holding ``$(`` are left, since the kubelet expands $(VAR) in ``value`` only."""

    def change(docs: list, fresh: Callable[[], str]) -> bool:
        added = []
        for doc in [d for d in docs if isinstance(d, dict)]:
            for c in containers(doc):
                if env := _literal_env(c):
                    name = fresh()
                    added.append(_config_map(doc, name, {e["name"]: e["value"] for e in env}))
                    for e in env:
                        e["valueFrom"] = {"configMapKeyRef": {"name": name, "key": e["name"]}}
                        del e["value"]
        docs.extend(added)
        return bool(added)

    return _each_file(folder, change)


def env_from_config_map(folder: Folder) -> Optional[Folder]:
    """Each container's literal env values moved to a ConfigMap read through ``envFrom: configMapRef`` (added to the same
    file). The kubelet sets envFrom's variables first and then ``env`` (makeEnvironmentVariables), so a variable moved
    keeps its value, and $(VAR) references in later values and in args still resolve."""

    def change(docs: list, fresh: Callable[[], str]) -> bool:
        added = []
        for doc in [d for d in docs if isinstance(d, dict)]:
            for c in containers(doc):
                if env := _literal_env(c):
                    name = fresh()
                    added.append(_config_map(doc, name, {e["name"]: e["value"] for e in env}))
                    c["env"] = [e for e in c["env"] if not any(e is m for m in env)]
                    if not c["env"]:
                        del c["env"]
                    c["envFrom"] = [*(c.get("envFrom") or []), {"configMapRef": {"name": name}}]
        docs.extend(added)
        return bool(added)

    return _each_file(folder, change)


def args_env_expansion(folder: Folder) -> Optional[Folder]:
    """An option's value in command/args (list form) -> ``$(FORM_ARG_n)`` with ``env: FORM_ARG_n=<value>``: the kubelet
    expands $(VAR) in command and args from the container's env before it starts the process (k8s.io/kubernetes
    pkg/kubelet/container/helpers.go ExpandContainerCommandAndArgs; third_party/forked/golang/expansion), so the
    process sees the same argv."""

    def change(doc: dict) -> bool:
        changed = False
        for c in containers(doc):
            names = {e.get("name") for e in c.get("env") or [] if isinstance(e, dict)}
            added: list[dict] = []
            for argv in _argv_lists(c):
                script = _script_index(argv)
                for i, a in enumerate(argv):
                    if i == script or not isinstance(a, str):
                        continue
                    flag, eq, value = a.partition("=")
                    if _CREDENTIAL.search(flag) or (i > 0 and _CREDENTIAL.search(str(argv[i - 1]))):
                        continue  # a literal secret in an option: G35 knows it by the option's name
                    after = i > 0 and isinstance(argv[i - 1], str) and argv[i - 1].startswith("--") and "=" not in argv[i - 1]
                    if eq and flag.startswith("--") and value and "$" not in value:
                        argv[i] = f"{flag}=$({_var(added, names, value)})"
                    elif after and not eq and a and not a.startswith("-") and "$" not in a and i - 1 != script:
                        argv[i] = f"$({_var(added, names, a)})"
            if added:
                c["env"] = [*(c.get("env") or []), *added]
                changed = True
        return changed

    return _each_doc(folder, change)


def _var(added: list[dict], names: set, value: str) -> str:
    n = len(added) + 1
    while f"FORM_ARG_{n}" in names:
        n += 1
    added.append({"name": f"FORM_ARG_{n}", "value": value})
    names.add(f"FORM_ARG_{n}")
    return f"FORM_ARG_{n}"


def shell_wrap(folder: Folder) -> Optional[Folder]:
    """A container with an explicit ``command`` (not already a shell) -> ``command: [/bin/sh, -c, "exec <command args>"]``
    with the words quoted (shlex.join): POSIX sh runs the same argv in place of itself (exec), after the kubelet has
    expanded $(VAR) in the script as it did in the words. Images with no /bin/sh (distroless) would differ: see
    form_variants.EXPECTED."""

    def change(doc: dict) -> bool:
        changed = False
        for obj in _objects([doc]):
            if obj.get("kind") in _ARGV_AS_WRITTEN:
                changed |= _wrap(obj)
        return changed

    return _each_doc(folder, change)


# Kinds whose containers run the argv as written: an operator's template (a KServe ServingRuntime, to which the
# InferenceService's args are appended; a KAITO Workspace) may add words after the command, which a script would
# receive as $0, $1 instead.
_ARGV_AS_WRITTEN = frozenset("Deployment StatefulSet DaemonSet ReplicaSet Job CronJob Pod LeaderWorkerSet".split())


def _wrap(obj: dict) -> bool:
    changed = False
    for c in containers(obj):
        argv = [*(c.get("command") or []), *(c.get("args") or [])] if isinstance(c.get("command"), list) else []
        if not argv or not all(isinstance(a, str) and "'" not in a for a in argv) or argv[0].startswith("-"):
            continue  # (a command that is an option never ran: `exec --model` fails differently)
        if argv[0].rsplit("/", 1)[-1] in ("sh", "bash", "env", "dumb-init", "tini") or "-c" in argv[:3]:
            continue
        c["command"] = ["/bin/sh", "-c", "exec " + shlex.join(argv)]
        c.pop("args", None)
        changed = True
    return changed


def reverse_keys(folder: Folder) -> Optional[Folder]:
    """Every mapping's keys in reverse order: YAML mappings are unordered (YAML 1.2 section 3.2.1.1) and the API server
    decodes objects into structs and maps."""

    def rev(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: rev(node[k]) for k in reversed(list(node))}
        return [rev(v) for v in node] if isinstance(node, list) else node

    out = Folder({p: None if d is None else [rev(x) for x in d] for p, d in folder.docs.items()}, dict(folder.raw))
    return out if any(d for d in folder.docs.values()) else None


def json_documents(folder: Folder) -> Optional[Folder]:
    """Each document written as a JSON document in the same YAML stream (JSON is YAML's flow style: YAML 1.2 section 1.3;
    kubectl decodes both through sigs.k8s.io/yaml)."""
    if not any(d for d in folder.docs.values()):
        return None
    return Folder(copy.deepcopy(folder.docs), dict(folder.raw), style="json")


_LABEL_MAPS = ("labels", "matchLabels", "commonLabels", "pairs")
_NOT_OURS = ("nodeSelector", "nodeSelectorTerms", "namespaceSelector", "nodeAffinity")


def label_key_rename(folder: Folder) -> Optional[Folder]:
    """The label key ``app`` renamed (to ``app.kubernetes.io/name``, or ``example.com/app`` when that is taken) in every
    object's labels and every selector of the folder (matchLabels, matchExpressions, a Service's or pool's selector,
    kustomize's commonLabels): label selection matches key and value (k8s.io/apimachinery pkg/labels/selector.go), so
    the same pods are selected. Selectors of nodes and namespaces (objects outside the folder) are left."""
    docs = [d for ds in folder.docs.values() for d in ds or [] if isinstance(d, dict)]
    used = {k for d in docs for m in walk(d) for key in (*_LABEL_MAPS, "selector") if isinstance(m.get(key), dict)
            for k in m[key]}  # fmt: skip
    if "app" not in used:
        return None
    target = "example.com/app" if "app.kubernetes.io/name" in used else "app.kubernetes.io/name"
    out = copy.deepcopy(folder)
    for docs_ in out.docs.values():
        for d in docs_ or []:
            if isinstance(d, dict) and d.get("kind") != "Namespace":
                _rename(d, target)
    return out


def _rename(node: Any, target: str) -> None:
    if isinstance(node, list):
        for v in node:
            _rename(v, target)
        return
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        if key in _NOT_OURS:
            continue
        if key in (*_LABEL_MAPS, "selector") and isinstance(value, dict) and "app" in value:
            if all(isinstance(v, (str, int, float, bool)) or v is None for v in value.values()) and target not in value:
                node[key] = {(target if k == "app" else k): v for k, v in value.items()}
        if key == "matchExpressions" and isinstance(value, list):
            for e in value:
                if isinstance(e, dict) and e.get("key") == "app":
                    e["key"] = target
        _rename(node[key], target)


def container_order(folder: Folder) -> Optional[Folder]:
    """The containers of each pod template of a core workload in reverse order. The order of ``containers`` means
    nothing to the kubelet (it starts them together; only ``initContainers`` run in order: k8s.io/kubernetes
    pkg/kubelet/kuberuntime computePodActions), so a reader that takes the first container for the server misses a pod
    that lists a sidecar first. Operators' kinds are left: KubeRay takes containers[0] as the Ray container
    (ray-operator utils.RayContainerIndex), KServe its first container as the model server."""

    def change(doc: dict) -> bool:
        return any([_reverse(obj) for obj in _objects([doc]) if obj.get("kind") in _ARGV_AS_WRITTEN])

    return _each_doc(folder, change)


def _reverse(obj: dict) -> bool:
    changed = False
    for m in walk(obj):
        items = m.get("containers")
        if isinstance(items, list) and len(items) > 1 and all(isinstance(c, dict) and "image" in c for c in items):
            m["containers"] = list(reversed(items))
            changed = True
    return changed


def named_probe_ports(folder: Folder) -> Optional[Folder]:
    """A probe's numeric port -> the name of the container's port (a name added where the port has none: ``p8000``).
    The kubelet resolves a named probe port to the container's port of that name (k8s.io/kubernetes
    pkg/kubelet/prober/prober.go findPortByName), so the probe reaches the same port."""

    def change(doc: dict) -> bool:
        changed = False
        for c in containers(doc):
            ports = [p for p in c.get("ports") or [] if isinstance(p, dict) and isinstance(p.get("containerPort"), int)]
            numbers = [p["containerPort"] for p in ports]
            if len(set(numbers)) != len(numbers):
                continue  # one number under two protocols: which name is meant is not one
            names = {p["containerPort"]: p.get("name") or f"p{p['containerPort']}" for p in ports}
            for key in ("readinessProbe", "livenessProbe", "startupProbe"):
                probe = c.get(key) if isinstance(c.get(key), dict) else {}
                for action in ("httpGet", "tcpSocket"):
                    target = probe.get(action) if isinstance(probe.get(action), dict) else {}
                    if isinstance(target.get("port"), int) and target["port"] in names:
                        target["port"] = names[target["port"]]
                        for p in ports:
                            p.setdefault("name", names[p["containerPort"]])
                        changed = True
        return changed

    return _each_doc(folder, change)


def args_into_command(folder: Folder) -> Optional[Folder]:
    """``command: [a]`` + ``args: [b, c]`` -> ``command: [a, b, c]`` where the container sets a command: the kubelet runs
    command then args as one argv (core/v1 Container.args: "Arguments to the entrypoint"; with a command set, the
    image's ENTRYPOINT and CMD are both ignored), so the process is the same."""

    def change(doc: dict) -> bool:
        changed = False
        for obj in _objects([doc]):
            if obj.get("kind") not in _ARGV_AS_WRITTEN:
                continue  # an operator may append its own args (KServe's ServingRuntime) or read args apart
            for c in containers(obj):
                if isinstance(c.get("command"), list) and c["command"] and isinstance(c.get("args"), list) and c["args"]:
                    c["command"] = [*c["command"], *c.pop("args")]
                    changed = True
        return changed

    return _each_doc(folder, change)


_SELECTOR_KEYS = ("selector", "podSelector", "labelSelector")
# Kinds whose selectors are LabelSelectors (matchExpressions allowed). Not GAIE's InferencePool (matchLabels only, as
# the LLMInferenceService that embeds one: its CRD refuses matchExpressions) nor other operators' kinds.
_LABEL_SELECTOR_KINDS = frozenset(
    "Deployment StatefulSet DaemonSet ReplicaSet Job CronJob Pod LeaderWorkerSet PodDisruptionBudget NetworkPolicy "
    "ServiceMonitor PodMonitor".split()
)


def match_expressions(folder: Folder) -> Optional[Folder]:
    """``matchLabels: {k: v}`` -> ``matchExpressions: [{key: k, operator: In, values: [v]}]`` in every label selector
    (a workload's, a PodDisruptionBudget's, a NetworkPolicy's podSelector, a spread constraint's or an affinity term's
    labelSelector): the same selector (k8s.io/apimachinery pkg/apis/meta/v1/helpers.go LabelSelectorAsSelector ANDs
    both lists). A Service's selector is a plain map and stays."""

    def change(doc: dict) -> bool:
        changed = False
        for m in (m for obj in _objects([doc]) if obj.get("kind") in _LABEL_SELECTOR_KINDS for m in walk(obj)):
            for key in _SELECTOR_KEYS:
                sel = m.get(key)
                labels = sel.get("matchLabels") if isinstance(sel, dict) else None
                if isinstance(labels, dict) and labels and all(isinstance(v, str) for v in labels.values()):
                    exprs = [{"key": k, "operator": "In", "values": [v]} for k, v in labels.items()]
                    sel["matchExpressions"] = [*(sel.get("matchExpressions") or []), *exprs]
                    del sel["matchLabels"]
                    changed = True
        return changed

    return _each_doc(folder, change)


def explicit_requests(folder: Folder) -> Optional[Folder]:
    """Each resource a container limits but does not request gets ``requests`` equal to its limit: the API server's
    defaulting does exactly that (k8s.io/kubernetes pkg/apis/core/v1/defaults.go SetDefaults_ResourceList /
    SetDefaults_Container: "if a container's requests are unset, they default to its limits")."""

    def change(doc: dict) -> bool:
        changed = False
        for c in containers(doc):
            r = c.get("resources")
            limits = r.get("limits") if isinstance(r, dict) else None
            if not isinstance(limits, dict) or not limits:
                continue
            requests = r.setdefault("requests", {}) if isinstance(r.get("requests", {}), dict) else None
            if requests is None:
                continue
            for k, v in limits.items():
                if k not in requests:
                    requests[k] = v
                    changed = True
        return changed

    return _each_doc(folder, change)


TRANSFORMS: dict[str, Callable[[Folder], Optional[Folder]]] = {
    "flag-space": flag_space,
    "mirror-registry": mirror_registry,
    "split-files": split_files,
    "merge-folder": merge_folder,
    "list-wrap": list_wrap,
    "quantity-text": quantity_text,
    "quantity-units": quantity_units,
    "container-order": container_order,
    "named-probe-ports": named_probe_ports,
    "args-into-command": args_into_command,
    "match-expressions": match_expressions,
    "explicit-requests": explicit_requests,
    "explicit-namespace": explicit_namespace,
    "env-configmap-key": env_config_map_key,
    "env-from-configmap": env_from_config_map,
    "args-env-expansion": args_env_expansion,
    "shell-wrap": shell_wrap,
    "reverse-keys": reverse_keys,
    "json-documents": json_documents,
    "label-key-rename": label_key_rename,
}
