"""S40 for a LeaderWorkerSet: every pod of the group whose GPU ranks load the model has it at the path the engine reads.

A multi-node engine's ranks each load their own share of the weights from the local path the model setting names:
vLLM's loader reads a path that is a local folder and otherwise takes it for a Hub repository id to download (vllm
v0.33.0 model_executor/model_loader/default_loader.py:163 ``is_local = os.path.isdir(model_name_or_path)``, :213-221
``download_weights_from_hf``), so a rank whose pod lacks the folder fails to load (an absolute path is no repository
id) and the group never serves. A LeaderWorkerSet renders its leader from ``leaderTemplate`` and every worker from
``workerTemplate`` (the leader uses ``workerTemplate`` too when it has no template of its own): a loader (an init
container running ``hf download --local-dir``, kthena's downloader, ...) in one template fills only that pod's volumes.

Read both templates together: where the group's engine reads a local path that a loader of one template writes on a
volume that starts empty (an emptyDir or a generic ephemeral volume), and the other template has GPU containers but no
loader of that path, the other pods have no model there. Blocking when those pods mount a volume that starts empty at
the path that no other container of theirs mounts writable and their GPU container runs one command (nothing else can
fill it); advice otherwise, and when nothing is mounted there (the image could hold the files). Silent where
the other pods mount storage that persists (a claim, NFS, CSI, a hostPath), which may already hold the model.
"""

from __future__ import annotations

from typing import Any, Optional

from policies.framework import Resource, unproven
from policies.kube import as_dict, as_int, as_list, containers, get, gpu_count, split_type
from policies.reading.downloaders import Fetch, fetches
from policies.reading.engines import path_under, table_servers, volume_at
from policies.reading.vllm_args import command_tokens, is_shell_operator, served_model, vllm_servers

_FRESH = ("emptyDir", "ephemeral")


def _templates(resource: Resource) -> Optional[tuple[tuple[str, dict], tuple[str, dict]]]:
    """(path, pod spec) of the leader's and the workers' templates, when the group has both and more than one pod."""
    if split_type(resource.type) != ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"):
        return None
    spec = as_dict(get(resource.props, "spec", "leaderWorkerTemplate"))
    leader, worker = get(spec, "leaderTemplate", "spec"), get(spec, "workerTemplate", "spec")
    if (as_int(spec.get("size")) or 1) < 2 or not isinstance(leader, dict) or not isinstance(worker, dict):
        return None
    base = "spec.leaderWorkerTemplate"
    return (f"{base}.leaderTemplate.spec", leader), (f"{base}.workerTemplate.spec", worker)


def _local_paths(resource: Resource) -> list[str]:
    """The local model paths the group's servers read, in document order."""
    found = [m for s in vllm_servers(resource) if not s.runtime_merged and isinstance(m := served_model(s), str)]
    found += [e.model for e in table_servers(resource) if isinstance(e.model, str)]
    return list(dict.fromkeys(p for p in found if p.startswith("/")))


def _fills(fetch: Fetch, path: str) -> bool:
    return bool(fetch.into) and (path_under(path, fetch.into or "") or path_under(fetch.into or "", path))


def _fresh_loader(fetch: Fetch, path: str) -> bool:
    volume = volume_at(fetch.podspec, fetch.container, fetch.into or "")
    return _fills(fetch, path) and volume is not None and any(kind in volume for kind in _FRESH)


def _what_is_there(podspec: dict, path: str) -> Optional[tuple[str, bool]]:
    """What the pod's GPU containers find at ``path``: (words for the message, certain to be empty), or None where a
    volume that persists is mounted there."""
    for container in containers(podspec):
        if not (gpu_count(container) or 0) > 0:
            continue
        volume = volume_at(podspec, container, path)
        if volume is None:
            return f"its GPU container {container.get('name')} mounts nothing at {path}", False
        if any(kind in volume for kind in _FRESH):
            return f"its volume {volume.get('name')} at {path} starts empty", _nothing_writes(podspec, container, volume)
        return None
    return None


def _nothing_writes(podspec: dict, container: dict, volume: dict) -> bool:
    """True when no other container of the pod mounts ``volume`` writable and ``container`` runs one command (a
    shell script of several commands could fetch the files itself)."""
    name = volume.get("name")
    for other in containers(podspec, init=True):
        mounts = [as_dict(m) for m in as_list(other.get("volumeMounts"))]
        if other is not container and any(m.get("name") == name and not m.get("readOnly") for m in mounts):
            return False
    tokens, script = command_tokens(container)
    return not (script and any(is_shell_operator(t) for t in tokens))


def group_findings(resource: Resource) -> list[str]:
    """S40 messages for the templates of a LeaderWorkerSet that lack the model the other template downloads."""
    templates = _templates(resource)
    if templates is None:
        return []
    messages = []
    all_fetches = fetches(resource)
    for path in _local_paths(resource):
        for (_, have), (lack_at, lack) in (templates, templates[::-1]):
            filled: list[Any] = [f for f in all_fetches if f.podspec is have and _fresh_loader(f, path)]
            if not filled or any(f.podspec is lack and _fills(f, path) for f in all_fetches):
                continue
            there = _what_is_there(lack, path)
            if there is None:
                continue
            words, certain = there
            role, other = ("worker", "leader") if lack_at.endswith("workerTemplate.spec") else ("leader", "worker")
            message = (
                f"{lack_at}: the {other}'s pod downloads the model to {path} ({filled[0].source}, {filled[0].label}) "
                f"into a volume only that pod has, but the {role}'s pods load their share of the same weights from "
                f"{path} and {words}, so their ranks find no model (vLLM takes a path that is no local folder for a Hub "
                f"repository id) and the group never serves; run the same loader in the {role}'s template too, or put "
                f"the model on storage every pod of the group mounts"
            )
            messages.append(message if certain else unproven(message))
    return messages
