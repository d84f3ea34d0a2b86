"""A model store on a claim the run creates empty, that nothing fills: a server that loads its models on request
(the engine table's ``loads_before_serving`` false, ``downloads.models`` "unset": Ollama) starts with none there.

A PersistentVolumeClaim the files define with no ``dataSource``/``dataSourceRef`` (a snapshot or a populator) and no
``volumeName`` (a PersistentVolume that may hold data) is provisioned empty
(https://kubernetes.io/docs/concepts/storage/persistent-volumes/#volume-snapshot-and-restore-volume-from-snapshot-support:
only a data source pre-populates a new volume). It lasts across restarts (ollama-model-store-lasts, S57, is silent on
it), but on its first start, and on every move to a new claim, the store is empty until something pulls: read by G6
readiness-waits-for-model (spent set 42, igfurlan/k3s-llmd-lab manifests/40-ollama.yaml).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from policies.kube import as_dict, as_list, get, name_of, pod_specs, viewed_resources
from policies.reading.engines import EngineServer, cache_dirs, volume_at
from policies.reading.ollama_pulls import PULLS, pod_scripts
from policies.reading.run_objects import by_namespace
from policies.reading.serving import namespace_of

_PREFILLED = ("dataSource", "dataSourceRef", "volumeName")


def _claim_of(podspec: Mapping, volume_name: Any) -> Any:
    """The claim a pod volume of that name mounts, or None."""
    for volume in (as_dict(v) for v in as_list(podspec.get("volumes"))):
        if volume.get("name") == volume_name:
            return get(volume, "persistentVolumeClaim", "claimName")
    return None


def _mounted_elsewhere(resource: Any, server: EngineServer, claim: str, namespace: str) -> bool:
    """True when another container of the pod, or a workload of the run in the namespace, mounts the claim (it may
    fill the store: a loader Job), or a workload of the run pulls a model (spent set 16 egdcrypto/microk8s-gpu-stack:
    a preload Job that calls the server's /api/pull through its Service)."""
    names = {n for n in (name_of(x) for x in as_list(server.podspec.get("volumes"))) if n is not None}
    names = {n for n in names if _claim_of(server.podspec, n) == claim}
    for other in as_list(server.podspec.get("containers")) + as_list(server.podspec.get("initContainers")):
        if other is not server.container and any(
            as_dict(m).get("name") in names for m in as_list(as_dict(other).get("volumeMounts"))
        ):
            return True
    for r in viewed_resources() or ():
        if r is resource:
            continue
        for _, podspec in pod_specs(r):
            if any(PULLS.search(text) for text in pod_scripts(podspec)):
                return True  # a workload of the run pulls (a preload Job calling the server's /api/pull)
            if namespace_of(r, "default") == namespace and any(
                get(v, "persistentVolumeClaim", "claimName") == claim for v in as_list(podspec.get("volumes"))
            ):
                return True
    return False


def fresh_claim_store(resource: Any, server: EngineServer) -> Optional[tuple[str, str]]:
    """(model folder, claim name) when the server keeps models it pulls at run time in a folder on a claim the run
    creates empty, and nothing in the pod (an Ollama pull in its scripts: PULLS) or the run may fill it."""
    row = server.row
    if row is None or row.loads_before_serving or row.downloads is None or "unset" not in row.downloads.models:
        return None
    if server.model:
        return None
    dirs = cache_dirs(server.container, {}, row)
    if len(dirs) != 1 or any(PULLS.search(text) for text in pod_scripts(server.podspec)):
        return None
    claim = get(volume_at(server.podspec, server.container, dirs[0]), "persistentVolumeClaim", "claimName")
    if not isinstance(claim, str) or not claim:
        return None
    namespace = namespace_of(resource, "default")
    defined = by_namespace(list(viewed_resources() or ()), "", "PersistentVolumeClaim").get(namespace, {}).get(claim)
    if not defined or len(defined) != 1:
        return None  # a claim the files do not create may hold models already
    spec: Mapping = as_dict(get(defined[0].props, "spec"))
    if any(spec.get(k) for k in _PREFILLED) or _mounted_elsewhere(resource, server, claim, namespace):
        return None
    return dirs[0], claim


__all__ = ["fresh_claim_store"]
