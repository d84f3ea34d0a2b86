"""Where a vLLM replica reads its weights: the model argument, loader flags, environment and cache objects.

* huggingface (the explicit fallback): ``vllm serve <org>/<name> --revision <commit>``; every pod
  downloads into its ephemeral storage.
* s3: ``vllm serve s3://bucket/prefix --load-format runai_streamer``: the Run:ai Model Streamer
  reads the safetensors straight from S3 into GPU memory (run-ai/runai-model-streamer docs/src/benchmarks.md @1e56c33: 15 GB in 8.45 s at
  concurrency 16). ``--load-format`` is in every release the flag table read
  (components/vllm_flags.py); its ``runai_streamer`` value is in vLLM's LoadFormat since before
  0.8.5, and the vllm-openai image installs runai-model-streamer[s3].
* localCache: KServe's LocalModelCache fills each node of a LocalModelNodeGroup once; the pod reads
  the files from ``/mnt/models``. KServe v0.20.0's node agent DaemonSet mounts the fixed host path
  ``/models`` (charts/kserve-localmodel-resources/files/resources.yaml, ``hostPath: {path: /models,
  type: DirectoryOrCreate}``; the chart templates no value for it), so the node group's local volume
  is ``/models`` too, and the pool's EC2NodeClass bind-mounts it onto the instance-store RAID0
  before the kubelet starts (builders/karpenter.py ``cache_user_data``).
"""

from __future__ import annotations

import json
from typing import Any, Optional, Sequence

# The node's cache folders are prepared by the EC2NodeClass user data (builders/karpenter.py cache_user_data).
from ..builders.karpenter import AGENT_HOST_PATH, POOL_LABEL, gpu_tolerations
from ..builders.labels import SKIP_AWAIT, recommended_labels
from ..capacity.cold_start import RUNAI_CONCURRENCY, cache_size_gib
from ..capacity.pools import PoolPlan
from ..config import ModelConfig
from .names import IAM_ROLE_NAME, fit

LOCAL_MODEL_PATH = "/mnt/models"  # where KServe mounts a model's files in the serving container
# The label KServe's local-model node agent selects (kserve-localmodel-resources values, localmodelnode.controller.nodeSelector).
LOCALMODEL_NODE_LABEL = {"kserve/localmodel": "worker"}
# Share of the smallest NVMe array the node group may fill (the rest: images and ephemeral storage).
CACHE_SHARE = 0.5


def reader_role_name(cluster: str, model: str) -> str:
    """The fixed IAM role name of a model's S3 reader (fixed so operators can find it; preflight checks it is free)."""
    return fit(f"llm-serving-{cluster}-{model}-s3", IAM_ROLE_NAME)


def cache_source_uri(m: ModelConfig) -> str:
    """What a LocalModelCache is filled from: the configured URI, or the pinned Hugging Face revision."""
    return m.source.uri or f"hf://{m.model}:{m.revision}"


def model_args(m: ModelConfig) -> list[str]:
    """The model argument of ``vllm serve`` and the flags that go with the source."""
    if m.source.type == "s3":
        return [
            str(m.source.uri),
            "--load-format=runai_streamer",
            "--model-loader-extra-config=" + json.dumps({"concurrency": RUNAI_CONCURRENCY}, separators=(",", ":")),
        ]
    if m.source.type == "localCache":
        return [LOCAL_MODEL_PATH]
    return [m.model, f"--revision={m.revision}"]


def model_env(m: ModelConfig) -> list[dict[str, Any]]:
    """Environment the source needs (the S3 client's region; the URI KServe matches to a LocalModelCache)."""
    if m.source.type == "s3":
        return [
            {"name": "AWS_REGION", "value": str(m.source.region)},
            {"name": "RUNAI_STREAMER_CONCURRENCY", "value": str(RUNAI_CONCURRENCY)},
        ]
    if m.source.type == "localCache":
        return [{"name": "STORAGE_URI", "value": cache_source_uri(m)}]
    return []


# Holds the model server until its node has the model's files (localCache): an init container and the
# read-only host-path volume it reads them from.
CACHE_WAIT_CONTAINER = "wait-for-node-cache"
CACHE_WAIT_VOLUME = "node-model-cache"
CACHE_WAIT_MOUNT = "/node-cache"
# Done when config.json is there and every weight file: the shards the index names, or the single
# model.safetensors. Hugging Face downloads each file under .cache/ and moves it into place whole, so a
# file that exists is complete (huggingface_hub snapshot_download with local_dir, which KServe's storage
# initializer uses for hf:// URIs). Polls every 10 s, saying what it still waits for.
_CACHE_WAIT_SCRIPT = """import json, os, sys, time
d = sys.argv[1]
def missing():
    if not os.path.isfile(os.path.join(d, "config.json")):
        return "config.json"
    index = os.path.join(d, "model.safetensors.index.json")
    if os.path.isfile(index):
        try:
            shards = sorted(set(json.load(open(index))["weight_map"].values()))
        except (OSError, ValueError, KeyError):
            return "a readable model.safetensors.index.json"
        return next((s for s in shards if not os.path.isfile(os.path.join(d, s))), "")
    return "" if os.path.isfile(os.path.join(d, "model.safetensors")) else "model.safetensors"
while True:
    m = missing()
    if not m:
        print("model files present in", d, flush=True)
        break
    print("waiting for", m, "in", d, flush=True)
    time.sleep(10)
"""


def storage_key(source_uri: str) -> str:
    """The folder KServe keeps a cached model in: the first 16 hex digits of SHA-256 of the cache's source URI
    (kserve/kserve v0.20.0 pkg/apis/serving/v1alpha1/local_model_cache_types.go:29-32 GetStorageKey); the download
    job writes to ``models/<key>`` of the node group's volume (pkg/controller/v1alpha1/localmodelnode/controller.go:148-158)."""
    import hashlib

    return hashlib.sha256(source_uri.encode()).hexdigest()[:16]


def cache_storage_key(m: ModelConfig) -> str:
    """A localCache model's folder in its node group's volume (``storage_key`` of its cache's source URI)."""
    return storage_key(cache_source_uri(m))


def cache_wait(m: ModelConfig) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(init containers, volumes) that hold a localCache model's server until its node has the files.

    KServe mounts the cache's PVC on the model container as soon as the pod starts
    (pkg/webhook/admission/pod/storage_initializer_injector.go:723-737, 528-540): on a new node the node agent's
    download job has not finished, so vLLM would start on an empty ``/mnt/models`` and crash-loop. The init
    container (the model's own image, already pulled by the pool's pre-pull DaemonSet) reads the node's cache
    folder through a read-only host path and returns once the files are complete. Empty for other sources.
    """
    from .karpenter import AGENT_HOST_PATH

    if m.source.type != "localCache":
        return [], []
    folder = f"{CACHE_WAIT_MOUNT}/models/{cache_storage_key(m)}"
    container = {
        "name": CACHE_WAIT_CONTAINER,
        "image": m.image,
        "command": ["python3", "-c", _CACHE_WAIT_SCRIPT, folder],
        "resources": {"requests": {"cpu": "10m", "memory": "64Mi"}, "limits": {"cpu": "100m", "memory": "128Mi"}},
        "volumeMounts": [{"name": CACHE_WAIT_VOLUME, "mountPath": CACHE_WAIT_MOUNT, "readOnly": True}],
    }
    volume = {"name": CACHE_WAIT_VOLUME, "hostPath": {"path": AGENT_HOST_PATH, "type": "Directory"}}
    return [container], [volume]


def s3_read_policy(
    uri: str, partition: str = "aws", kms_key_arn: str | None = None, region: str | None = None, dns_suffix: str = "amazonaws.com"
) -> dict[str, Any]:
    """Read-only access to the mirror's prefix: objects under it, and listing only that prefix.

    ARNs are in the account's ``partition`` (aws, aws-cn, aws-us-gov...). With ``kms_key_arn`` (an
    SSE-KMS mirror) the role may also decrypt with that key, and only through S3 in the bucket's
    ``region`` (condition kms:ViaService ``s3.<region>.<dns suffix>``, the KMS developer guide's
    form for "use the key only from this service"); S3 calls kms:Decrypt on GetObject of such objects.
    """
    bucket, _, prefix = uri.removeprefix("s3://").partition("/")
    prefix = prefix.strip("/")
    arn = f"arn:{partition}:s3:::{bucket}"
    objects = f"{arn}/{prefix}/*" if prefix else f"{arn}/*"
    listing: dict[str, Any] = {"Sid": "ListMirrorPrefix", "Effect": "Allow", "Action": "s3:ListBucket", "Resource": arn}
    if prefix:
        listing["Condition"] = {"StringLike": {"s3:prefix": [prefix, f"{prefix}/*"]}}
    statements = [{"Sid": "ReadMirror", "Effect": "Allow", "Action": "s3:GetObject", "Resource": objects}, listing]
    if kms_key_arn:
        if not region:
            raise ValueError("a KMS key needs the bucket's region (kms:ViaService)")
        statements.append(
            {
                "Sid": "DecryptMirror",
                "Effect": "Allow",
                "Action": "kms:Decrypt",
                "Resource": kms_key_arn,
                "Condition": {"StringEquals": {"kms:ViaService": f"s3.{region}.{dns_suffix}"}},
            }
        )
    return {"Version": "2012-10-17", "Statement": statements}


def reader_service_account(m: ModelConfig, namespace: str) -> dict[str, Any]:
    """The ServiceAccount a model's pods read its S3 mirror as."""
    return {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {
            "name": str(m.source.service_account),
            "namespace": namespace,
            "labels": recommended_labels(m.name, component="model-reader"),
        },
        "automountServiceAccountToken": False,
    }


def local_model_node_group(plan: PoolPlan) -> dict[str, Any]:
    """A LocalModelNodeGroup over the pool's nodes, backed by their NVMe array."""
    size = f"{int(plan.local_nvme_gb * 1e9 / 2**30 * CACHE_SHARE)}Gi"
    return {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "LocalModelNodeGroup",
        "metadata": {"name": plan.name, "labels": recommended_labels(plan.name, component="model-cache")},
        "spec": {
            "storageLimit": size,
            "persistentVolumeSpec": {
                "accessModes": ["ReadWriteOnce"],
                "volumeMode": "Filesystem",
                "capacity": {"storage": size},
                "persistentVolumeReclaimPolicy": "Delete",
                "storageClassName": "local-storage",
                "local": {"path": AGENT_HOST_PATH},
                "nodeAffinity": {
                    "required": {
                        "nodeSelectorTerms": [
                            {"matchExpressions": [{"key": POOL_LABEL, "operator": "In", "values": [plan.name]}]}
                        ]
                    }
                },
            },
            "persistentVolumeClaimSpec": {
                "accessModes": ["ReadWriteOnce"],
                "volumeMode": "Filesystem",
                "storageClassName": "local-storage",
                "resources": {"requests": {"storage": size}},
            },
        },
    }


def local_model_cache(m: ModelConfig, checkpoint_gib: float, service_account: Optional[str] = None) -> dict[str, Any]:
    """A LocalModelCache of one model on its pool's node group.

    ``service_account`` names the account (in KServe's job namespace) whose Secrets the download job
    gets: KServe injects credentials only when the cache names one (kserve v0.20.0
    pkg/controller/v1alpha1/localmodelnode/controller.go:173-179), so a gated model needs it.
    """
    spec: dict[str, Any] = {
        "sourceModelUri": cache_source_uri(m),
        "modelSize": f"{cache_size_gib(checkpoint_gib)}Gi",
        "nodeGroups": [m.pool],
    }
    if service_account:
        spec["serviceAccountName"] = service_account
    return {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "LocalModelCache",
        "metadata": {"name": m.name, "labels": recommended_labels(m.name, component="model-cache")},
        "spec": spec,
    }


def localmodel_values() -> dict[str, Any]:
    """kserve-localmodel-resources: the node agent tolerates the GPU taint of the pools it runs on.

    ``kserve.localmodel.enabled`` is not here: this chart's templates never read it; the
    ``inferenceservice-config`` ConfigMap that carries it is rendered by kserve-resources
    (builders/addons.py ``kserve_values``).
    """
    return {"kserve": {"localmodelnode": {"controller": {"tolerations": gpu_tolerations()}}}}


# The node agent's DaemonSet, as the kserve-localmodel-resources chart names it (kserve/kserve v0.20.0
# charts/kserve-localmodel-resources/files/resources.yaml:318-326).
AGENT_DAEMONSET = "kserve-localmodelnode-agent"


def agent_user_patch(namespace: str) -> dict[str, Any]:
    """A server-side-apply patch of the chart's node agent DaemonSet: run it as the download Job's uid and gid
    (builders/karpenter.py ``AGENT_UID``: the chart offers no value that does it), so that it can delete the model
    folders the Job wrote when a model leaves the node's cache.

    It owns only the two fields it sets; Helm's three-way merge on upgrade keeps fields its chart does not render.
    Not awaited by `pulumi up`: the agent's pods run only on the cache nodes, which may not exist yet.
    """
    from .karpenter import AGENT_GID, AGENT_UID

    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": AGENT_DAEMONSET, "namespace": namespace, "annotations": dict(SKIP_AWAIT)},
        "spec": {"template": {"spec": {"securityContext": {"runAsUser": AGENT_UID, "runAsGroup": AGENT_GID}}}},
    }


def prepull_daemonset(plan: PoolPlan, images: Sequence[str], namespace: str) -> dict[str, Any]:
    """A DaemonSet that pulls the pool's vLLM images onto every node of the pool as it joins.

    One init container per image (exiting at once) makes the kubelet pull it; a pause container keeps
    the pod, so a serving pod that lands later finds the image on the node (image pull times: the public reports cited in components/capacity/cold_start.py).
    """
    name = f"image-prepull-{plan.name}"
    labels = {**recommended_labels(name, component="image-prepull"), POOL_LABEL: plan.name}
    small = {"requests": {"cpu": "10m", "memory": "16Mi"}, "limits": {"memory": "64Mi"}}
    secure = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        # Not awaited by `pulumi up`: its pods come only with GPU nodes, which may not exist yet.
        "metadata": {"name": name, "namespace": namespace, "labels": labels, "annotations": dict(SKIP_AWAIT)},
        "spec": {
            "selector": {"matchLabels": {"app.kubernetes.io/name": name}},
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "100%"}},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "automountServiceAccountToken": False,
                    "nodeSelector": {"karpenter.sh/nodepool": plan.name},
                    "tolerations": gpu_tolerations(),
                    "terminationGracePeriodSeconds": 0,
                    "initContainers": [
                        {
                            "name": f"pull-{i}",
                            "image": image,
                            "command": ["/bin/sh", "-c", "exit 0"],
                            "resources": small,
                            "securityContext": secure,
                        }
                        for i, image in enumerate(images)
                    ],
                    "containers": [
                        {
                            "name": "pause",
                            "image": "registry.k8s.io/pause:3.10",
                            "resources": small,
                            "securityContext": {
                                **secure,
                                "readOnlyRootFilesystem": True,
                                "runAsNonRoot": True,
                                "runAsUser": 65535,
                            },
                        }
                    ],
                },
            },
        },
    }
