"""S19: a model server (GPU or CPU) that downloads its model onto the node's disk requests ephemeral storage for it.

A download lands in the server's cache, as the engine table says for each engine (components/serving_engines.toml
``[engines.NAME.downloads]``: which model settings mean a download, the cache variables and the images' default
folders: ``--download-dir``, ``HF_HUB_CACHE``/``$HF_HOME/hub`` else ``~/.cache/huggingface/hub`` for vLLM, SGLang and
LMDeploy, ``/data`` or ``/tmp`` in TGI's images, ``LLAMA_CACHE`` for llama.cpp's ``-hf``, ``NIM_CACHE_PATH``
(``/opt/nim/.cache``) for NIM, ``OLLAMA_MODELS`` (``/root/.ollama/models``) for Ollama's pulls) or, for a KServe
storage URI of any scheme but ``pvc://`` and ``oci://`` (and a ``storage:`` spec; policies/reading/kserve_storage.py),
in the storage initializer's ``/mnt/models`` emptyDir: the node's ephemeral storage when
that folder is the container's own layer or a disk-backed emptyDir. An emptyDir with a sizeLimit is bounded (S29
judges its size) but still on the node's disk, which the scheduler counts by requests alone: such a download, or a
model-store-named emptyDir of a GPU pod, whose pod requests less ephemeral storage than the sizeLimit (none, the
common form: a 12Gi or 20Gi model emptyDir) is advice; a request of at least the limit is silent. A cache whose variable comes from a ConfigMap or Secret is not judged: its folder is unknown. Without an ``ephemeral-storage`` request the scheduler does not look at
the node's free disk when it places the pod, so a 15-140 GB checkpoint can land on a node that cannot hold
it, and under disk pressure the kubelet evicts first the pods that use more than they requested
(https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/). Karpenter does not size
a node's disk from pod requests: the EC2NodeClass's ``blockDeviceMappings`` (or the instance store, with
``instanceStorePolicy: RAID0``) does (https://karpenter.sh/docs/concepts/nodeclasses/); the request makes
the scheduler put the pod where the disk fits. A model streamed from object storage
(``--load-format runai_streamer``) or read from a local path downloads nothing. A checkpoint smaller than
SMALL_CHECKPOINT_GIB (the lock file's or catalogue's size, else 2 bytes per parameter of the count its name spells,
"0.5B") is reported as advice: it is below the slack the request asks for, so the manifest does not show the disk short.

A model the image's own start script copies from object storage to a local path on the node's disk (the model path on
no volume, the container's environment naming a bucket or store credentials: policies/reading/image_fetches.py) is
reported as advice: the script is not in the files. A server whose pod requests no GPU is advice too.

A download an init container or sidecar makes for the server (kthena's downloader, ``hf download --local-dir``:
policies/reading/downloaders.py) counts where its folder is; a request of any container of the pod counts for it.

A GPU pod, or a model server's pod with no GPU (session 48: CPU Ollama, llama.cpp, a Transformers server), that mounts
a volume it names as a model cache (``model-cache``, ``/models``, ``hf-cache``, ``/weights``) on an
emptyDir without a sizeLimit, where no download above is read, is advice: the pod is set up to keep a model on the node's
disk, but what fills the folder is not in the files (set 19 antonios-nokia/games ray.yaml: a Ray GPU worker's
``/model-cache``).

Read for every engine row with a downloads table, KServe's Hugging Face server (/mnt/models for storageUri
hf://, else its image's HF_HOME /tmp/huggingface) and Ray Serve's GPU workers
(policies.reading.engines), so a new engine with one is held to this rule without code.
"""

from __future__ import annotations

import re
from typing import Optional

from components.capacity.models import UnknownModel, find_model
from components.errors import ConfigError
from policies.framework import Policy, Resource, unproven
from policies.kube import (
    WORKLOAD_TYPES,
    as_dict,
    as_list,
    as_quantity,
    container_label,
    containers,
    fmt_number,
    name_of,
    pod_specs,
    requests_gpu,
    resource_value,
)
from policies.reading.engines import Download, downloads, hub_model
from policies.reading.image_fetches import image_fetches
from policies.reading.model_ids import generic_downloads
from policies.reading.serving import model_servers

# Below this the checkpoint is smaller than the slack the rule asks for beyond it (~10 GiB): whether the node's disk
# runs short then depends on its images and logs, which the manifest does not show, not on this download.
SMALL_CHECKPOINT_GIB = 4.0
# A parameter count in a model name ("Qwen2.5-0.5B-Instruct", "Llama-3.1-8B", "Mixtral-8x7B", "Qwen3-30B-A3B"), in
# billions, or in millions ("opt-125m", "SmolLM2-135M", "pythia-70m").
_PARAMS = re.compile(r"(?<![A-Za-z0-9.])(?:\d+x)?(\d+(?:\.\d+)?)([bBmM])(?![A-Za-z0-9])")


def checkpoint_estimate_gib(model: str) -> Optional[float]:
    """The checkpoint size of a downloaded model in GiB: the lock file's or catalogue's, else 2 bytes per parameter
    (16-bit weights, the largest common checkpoint dtype below fp32) of the largest parameter count its name
    spells; None when neither says."""
    repo = hub_model(model.split("://", 1)[-1]) or model
    try:
        return find_model(repo).checkpoint_gib
    except (UnknownModel, ConfigError, ValueError, KeyError):
        pass
    counts = [float(m.group(1)) / (1 if m.group(2) in "bB" else 1000) for m in _PARAMS.finditer(repo.rsplit("/", 1)[-1])]
    if not counts:
        return None
    experts = re.search(r"(\d+)x\d+(?:\.\d+)?[bB]", repo)
    total = max(counts) * (int(experts.group(1)) if experts else 1)
    return total * 1e9 * 2 / (1 << 30)


def _pod_requests(download: Download) -> bool:
    """True when another container of the pod (an init container or sidecar too) requests ephemeral-storage: the
    scheduler and the kubelet's eviction ranking count the pod's requests, not one container's
    (https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#local-ephemeral-storage)."""
    return any(resource_value(c, "requests", "ephemeral-storage") is not None for c in containers(download.podspec, init=True))


# A volume or folder named as a model store: "model-cache", "/models", "hf-cache", "huggingface", "/weights".
_MODEL_STORE = re.compile(r"model|huggingface|hf[-_]?(cache|home)|(^|[\s/_-])hf($|[\s/_-])|weights|checkpoint", re.IGNORECASE)


def _model_cache(podspec: dict) -> tuple[dict, str, str, str] | None:
    """(container, volume, mount path, sizeLimit or "") of the first container mounting a model-store-named disk
    emptyDir that the pod's ephemeral-storage request does not cover (no request for one without a sizeLimit, less than
    the limit for one with), or None."""
    volumes = {name_of(v): as_dict(v) for v in as_list(podspec.get("volumes"))}
    asked = pod_ephemeral_request(podspec)
    for container in containers(podspec, init=True):
        for mount in as_list(container.get("volumeMounts")):
            name, at = name_of(mount), str(as_dict(mount).get("mountPath") or "")
            volume = volumes.get(name, {})
            empty = as_dict(volume.get("emptyDir")) if "emptyDir" in volume else None
            if empty is None or empty.get("medium") == "Memory" or not _MODEL_STORE.search(f"{name} {at}"):
                continue
            limit = empty.get("sizeLimit")
            if limit is None and asked is None:
                return container, str(name), at, ""
            size = as_quantity(limit) if limit is not None else None
            if size is not None and size > 0 and (asked is None or asked < size):
                return container, str(name), at, str(limit)
    return None


def _model_caches(resource: Resource, read: list) -> list[str]:
    """Advice for each GPU pod that mounts a model-cache-named emptyDir without a sizeLimit and no ephemeral-storage
    request, in a workload with no download ``read`` (module docstring): one finding per pod."""
    if read:
        return []  # a download the rule reads is reported for itself (an operator may render its pod anew)
    out: list[str] = []
    served = {server.path for server in model_servers(resource)}
    for path, podspec in pod_specs(resource):
        if not requests_gpu(podspec) and path not in served:
            continue  # neither a GPU pod nor a model server's (a CPU server's model store counts: session 48)
        found = _model_cache(podspec)
        if found is None:
            continue
        container, name, at, limit = found
        if limit and not requests_gpu(podspec):
            continue  # a CPU pod's bounded folder places no GPU node at stake (as for a download, _bounded)
        if limit:
            out.append(
                unproven(
                    f"{container_label(path, container)}: mounts the emptyDir {name} at {at} as a model store, with "
                    f"sizeLimit {limit} on the node's disk but a pod ephemeral-storage request below it: the sizeLimit "
                    f"only evicts the pod once the folder outgrows it, while the scheduler places the pod by requests "
                    f"alone, so a node without room for the checkpoint takes it and fills up (what fills the folder is "
                    f"not in these files); request ephemeral-storage of at least the sizeLimit, or mount a "
                    f"PersistentVolumeClaim"
                )
            )
            continue
        out.append(
            unproven(
                f"{container_label(path, container)}: mounts the emptyDir {name} at {at} as a model store, with no "
                f"sizeLimit and no ephemeral-storage request in the pod: a checkpoint put there fills the node's disk "
                f"unaccounted, the scheduler does not look for room for it, and under disk pressure the kubelet evicts "
                f"this pod first (what fills the folder is not in these files); request ephemeral-storage for the "
                f"checkpoint plus ~10 GiB, set a sizeLimit, or mount a PersistentVolumeClaim"
            )
        )
    return out


def pod_ephemeral_request(podspec: dict) -> Optional[float]:
    """The pod's ephemeral-storage request in bytes as the scheduler sums it (its containers' requests, a limit standing
    for an unset request as the API server defaults it, and the largest init container's if larger), or None when no
    container names one (a value that is not a quantity counts as none)."""

    def one(container: dict) -> Optional[float]:
        value = resource_value(container, "requests", "ephemeral-storage")
        value = resource_value(container, "limits", "ephemeral-storage") if value is None else value
        return as_quantity(value) if value is not None else None

    app = [one(c) for c in containers(podspec)]
    init = [one(c) for c in as_list(podspec.get("initContainers")) if isinstance(c, dict)]
    if all(v is None for v in app + init):
        return None
    return max([sum(v or 0.0 for v in app)] + [v or 0.0 for v in init])


# Download.model when no setting names the model (policies/reading/engines.py fetches: the engine pulls at run time).
UNNAMED_MODEL = "its model"


def _large_named(download: Download) -> bool:
    """True when the files name the downloaded checkpoint and it is at least SMALL_CHECKPOINT_GIB."""
    if download.model == UNNAMED_MODEL:
        return False
    size = checkpoint_estimate_gib(download.model)
    return size is not None and size >= SMALL_CHECKPOINT_GIB


def _bounded(download: Download) -> Optional[str]:
    """Advice for a download into a disk-backed emptyDir with a sizeLimit whose pod requests less ephemeral storage
    than that limit (none at all, the common form): the kubelet evicts the pod past the limit, but the scheduler
    places it by requests alone, so a node whose disk holds less than the limit can take it and fill up (spent sets:
    a GPU pod's model emptyDir of sizeLimit 12Gi or 20Gi and no request). A CPU server's download the files show is
    the same advice (spent set 56 namphuongtran/llm-serving-stack models/ornith-9b/overlays/local/
    patch-resources.yaml: an init container curls a 9B GGUF into a 12Gi emptyDir, no request) when the files name a
    checkpoint of at least SMALL_CHECKPOINT_GIB (checkpoint_estimate_gib); a CPU pod's download of a model they do not
    name (an Ollama pulled at run time) or whose size they do not show, and its model-store-named emptyDir that
    nothing shown fills, stay silent (_model_caches). None when the request covers the limit, or the limit is not a
    quantity."""
    limit = as_quantity(download.limit)
    if limit is None or limit <= 0 or not (requests_gpu(download.podspec) or _large_named(download)):
        return None  # a CPU pod's bounded folder of a checkpoint not shown large: nothing shown to outgrow the node
    asked = pod_ephemeral_request(download.podspec)
    if asked is not None and asked >= limit:
        return None
    has = (
        "requests no ephemeral-storage" if asked is None else f"requests {fmt_number(asked / (1 << 30))} GiB of ephemeral-storage"
    )
    return unproven(
        f"{download.label}: downloads {download.model} from {download.source} into {download.into}, an emptyDir with "
        f"sizeLimit {download.limit} on the node's disk, but the pod {has}, below that limit: the sizeLimit only "
        f"evicts the pod once the folder outgrows it; the scheduler places the pod by requests alone, so a node whose "
        f"free disk is smaller than the download takes it, fills up, and its pods are evicted under disk pressure; "
        f"request ephemeral-storage of at least the sizeLimit, or mount a PersistentVolumeClaim at the cache"
    )


def _check(resource: Resource, config: dict) -> list[str]:
    messages = []
    read = downloads(resource) + image_fetches(resource) + generic_downloads(resource)
    messages += _model_caches(resource, read)
    for download in read:
        if download.limit:
            found = _bounded(download)
            messages += [found] if found else []
            continue
        if resource_value(download.container, "requests", "ephemeral-storage") is not None or _pod_requests(download):
            continue
        message = (
            f"{download.label}: downloads {download.model} from {download.source} into {download.into} on the "
            f"node's ephemeral storage but requests no ephemeral-storage, so the scheduler may place it on a node "
            f"whose disk cannot hold the checkpoint, and under disk pressure the kubelet evicts it first; request "
            f"the checkpoint size plus ~10 GiB (the node's disk itself comes from the EC2NodeClass "
            f"blockDeviceMappings or instance store, not from this request), or mount a PersistentVolumeClaim "
            f"at the cache"
        )
        size = checkpoint_estimate_gib(download.model)
        if size is not None and size < SMALL_CHECKPOINT_GIB:
            # A small checkpoint does not prove the node's disk short: advice, not a block.
            message = unproven(
                f"{message} (the checkpoint is about {size:.1f} GiB, below the ~10 GiB of slack the request adds: "
                f"the node's images and logs, not in the manifest, decide whether its disk runs short)"
            )
        elif download.assumed:
            # The folder is the engine's default in its own images for their user; another image or user may move it.
            why = download.why or (
                f"{download.into} is where the engine's own images keep it for their own user; this image or user may "
                f"keep it elsewhere"
            )
            message = unproven(f"{message} ({why})")
        messages.append(message)
    return messages


POLICY = Policy(
    name="gpu-pod-ephemeral-storage",
    description=(
        "A GPU model server that downloads its model onto the node's disk (its own layer or an emptyDir without a "
        "sizeLimit, where the engine table says its cache is) must request ephemeral-storage for it (advice for a "
        "server with no GPU request, for a model its image's own script fetches from object storage, for a GPU pod's "
        "emptyDir with a sizeLimit its ephemeral-storage request does not cover, and for a model "
        "server's model-store emptyDir, GPU or CPU, that neither a sizeLimit nor an ephemeral-storage request bounds)."
    ),
    rationale=(
        "Without an ephemeral-storage request the scheduler ignores the node's free disk when placing the pod, and "
        "the kubelet evicts pods above their request first under disk pressure "
        "(https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/); a model download is "
        "15-140 GB. Karpenter sizes the node's disk from the EC2NodeClass blockDeviceMappings or instance store "
        "(https://karpenter.sh/docs/concepts/nodeclasses/#specblockdevicemappings), so the request places the pod "
        "where that disk fits; a cache on a PersistentVolumeClaim needs neither."
    ),
    catalog="S19",
    severity="high",
    # Advisory: a risk, not a failure the files prove (docs/policies.md "Enforcement levels"); --config raises it.
    enforcement="advisory",
    remediation_steps="Request resources.requests.ephemeral-storage of at least the checkpoint size plus ~10 GiB and size the "
    "EC2NodeClass blockDeviceMappings (or use instance store) to hold it; or mount a PersistentVolumeClaim "
    "at the Hugging Face cache (or HF_HOME), or stream the weights (--load-format runai_streamer).",
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    operator_fills="a model cache volume or an ephemeral-storage request",
)
