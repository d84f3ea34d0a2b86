"""S19: a GPU model server that downloads its model onto the node's disk requests ephemeral storage for it.

A download lands in the server's cache, as the engine table says for each engine (components/serving_engines.toml
``[engines.NAME.downloads]``: which model settings mean a download, the cache variables and the images' default
folders: ``--download-dir``, ``HF_HUB_CACHE``/``$HF_HOME/hub`` else ``~/.cache/huggingface/hub`` for vLLM, SGLang and
LMDeploy, ``/data`` or ``/tmp`` in TGI's images, ``LLAMA_CACHE`` for llama.cpp's ``-hf``, ``NIM_CACHE_PATH``
(``/opt/nim/.cache``) for NIM, ``OLLAMA_MODELS`` (``/root/.ollama/models``) for Ollama's pulls) or, for a KServe
storage URI of any scheme but ``pvc://`` and ``oci://`` (and a ``storage:`` spec; policies/reading/kserve_storage.py),
in the storage initializer's ``/mnt/models`` emptyDir: the node's ephemeral storage when
that folder is the container's own layer or an emptyDir without a sizeLimit (an emptyDir with one is bounded, and
S29 judges its size). A cache whose variable comes from a ConfigMap or Secret is not judged: its folder is unknown. Without an ``ephemeral-storage`` request the scheduler does not look at
the node's free disk when it places the pod, so a 15-140 GB checkpoint can land on a node that cannot hold
it, and under disk pressure the kubelet evicts first the pods that use more than they requested
(https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/). Karpenter does not size
a node's disk from pod requests: the EC2NodeClass's ``blockDeviceMappings`` (or the instance store, with
``instanceStorePolicy: RAID0``) does (https://karpenter.sh/docs/concepts/nodeclasses/); the request makes
the scheduler put the pod where the disk fits. A model streamed from object storage
(``--load-format runai_streamer``) or read from a local path downloads nothing.

A download an init container or sidecar makes for the server (kthena's downloader, ``hf download --local-dir``:
policies/reading/downloaders.py) counts where its folder is; a request of any container of the pod counts for it.

Read for every engine row with a downloads table, KServe's Hugging Face server (/mnt/models for storageUri
hf://, else its image's HF_HOME /tmp/huggingface) and Ray Serve's GPU workers
(policies.reading.engines), so a new engine with one is held to this rule without code.
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, containers, resource_value
from policies.reading.engines import Download, downloads


def _pod_requests(download: Download) -> bool:
    """True when another container of the pod (an init container or sidecar too) requests ephemeral-storage: the
    scheduler and the kubelet's eviction ranking count the pod's requests, not one container's
    (https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#local-ephemeral-storage)."""
    return any(resource_value(c, "requests", "ephemeral-storage") is not None for c in containers(download.podspec, init=True))


def _check(resource: Resource, config: dict) -> list[str]:
    messages = []
    for download in downloads(resource):
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
        if download.assumed:
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
        "sizeLimit, where the engine table says its cache is) must request ephemeral-storage for it."
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
    enforcement="mandatory",
    remediation_steps="Request resources.requests.ephemeral-storage of at least the checkpoint size plus ~10 GiB and size the "
    "EC2NodeClass blockDeviceMappings (or use instance store) to hold it; or mount a PersistentVolumeClaim "
    "at the Hugging Face cache (or HF_HOME), or stream the weights (--load-format runai_streamer).",
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    operator_fills="a model cache volume or an ephemeral-storage request",
)
