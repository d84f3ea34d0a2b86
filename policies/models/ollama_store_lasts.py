"""S57: an Ollama server keeps its models where they outlive the pod, or its pod pulls them.

``ollama serve`` names no model: Ollama keeps every model it has pulled under OLLAMA_MODELS, else
``$HOME/.ollama/models`` (ollama/ollama v0.32.15 envconfig/config.go L111-124 Models(); the ollama/ollama image runs
as root, so ``/root/.ollama/models``; the engine table's ``downloads`` row). A request for a model not there is
answered "model ... not found, try pulling it first". When that folder is an emptyDir (or a generic ephemeral
volume) or, in the publisher's own image, the container's writable layer, every restart, reschedule or rollout starts
the server with no model, and nothing in the pod pulls one: the pod turns Ready (``/`` answers as soon as it
listens) and every generation fails until someone pulls the models again by hand, a Makefile or a Job (another pod:
it fills the store once, not after the next restart). Advice: the manifest cannot show who pulls out of band.

Silent where the store lasts (a PersistentVolumeClaim, hostPath, NFS, CSI or any volume that outlives the pod), where
something in the pod may fill it (an ``ollama pull``/``ollama run`` or a call of ``/api/pull`` or ``/api/create`` in
any container's command, script or postStart hook, another container mounting the same volume), where
OLLAMA_MODELS comes from somewhere the files do not show, and where an image other than ollama/ollama keeps the store
in its own layer (a rebuild may carry its models).
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, containers
from policies.reading.engines import cache_dirs, table_servers, volume_at
from policies.reading.ollama_pulls import PULLS, pod_scripts

_FIX = (
    "keep OLLAMA_MODELS on a PersistentVolumeClaim (or a hostPath), or pull the models in the pod (an init container "
    "running `ollama serve & ollama pull MODEL` on the same volume, or a postStart hook that waits for the server)"
)


def _shared(podspec: Mapping, container: Mapping, volume_name: Any) -> bool:
    """True when a container of the pod other than the server mounts the volume (it may write models there)."""
    for other in containers(podspec, init=True):
        if other is not container and any(as_dict(m).get("name") == volume_name for m in as_list(other.get("volumeMounts"))):
            return True
    return False


def starts_empty(podspec: Mapping, container: Mapping, directory: str) -> Optional[str]:
    """How the model store starts empty (for the message), or None when it may last or be filled."""
    volume = volume_at(podspec, container, directory)
    if volume is None:
        image = str(container.get("image") or "").lower()
        if "ollama/ollama" not in image:
            return None
        return f"{directory} in the container's own layer (the ollama/ollama image carries no model)"
    if _shared(podspec, container, volume.get("name")):
        return None
    if "emptyDir" in volume or "ephemeral" in volume:
        kind = "emptyDir" if "emptyDir" in volume else "generic ephemeral volume"
        return f"{directory} on the {kind} {volume.get('name')}, empty at every pod start"
    return None


def _check(resource: Resource, config: dict) -> list[str]:
    messages = []
    for server in table_servers(resource, "ollama"):
        dirs = cache_dirs(server.container, {}, server.row)
        if len(dirs) != 1:
            continue
        if any(PULLS.search(text) for text in pod_scripts(server.podspec)):
            continue
        empty = starts_empty(server.podspec, server.container, dirs[0])
        if empty is None:
            continue
        messages.append(
            f"{server.label}: Ollama keeps its models under OLLAMA_MODELS, here {empty}, and nothing in the pod "
            "pulls a model (no `ollama pull`/`ollama run`, no call of /api/pull): after every restart, reschedule "
            f"or rollout the server is Ready with no model and requests fail with model not found until someone "
            f"pulls again; {_FIX}"
        )
    return messages


POLICY = Policy(
    name="ollama-model-store-lasts",
    description=(
        "An Ollama server keeps its model store (OLLAMA_MODELS, else /root/.ollama/models) on a volume that outlives "
        "the pod, or something in its pod pulls the models; an emptyDir or the image's layer with no pull in the pod "
        "leaves it with no model after every restart (advice: a pull out of band is not in the files)."
    ),
    catalog="S57",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Mount a PersistentVolumeClaim (or a hostPath) at OLLAMA_MODELS, or pull the models in the pod: an init "
        "container on the same volume, or a postStart hook that waits for the server and runs `ollama pull`."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "ollama/ollama v0.32.15 envconfig/config.go L111-124 Models(): OLLAMA_MODELS, else $HOME/.ollama/models; "
        "`ollama serve` names no model, so models exist only where a pull wrote them. An emptyDir starts empty with "
        "every pod (https://kubernetes.io/docs/concepts/storage/volumes/#emptydir)."
    ),
)
