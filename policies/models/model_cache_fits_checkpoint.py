"""S29: the volume a model server downloads its model into can hold the checkpoint.

A PersistentVolumeClaim of 100Gi for a ~690 GB checkpoint (DeepSeek-V3/R1), or an emptyDir whose sizeLimit is
below the weights, fails the download with "No space left on device" (an emptyDir over its sizeLimit gets the
pod evicted) minutes after the GPU node was bought. The model's checkpoint size comes from the lock file
(`python -m stacks models lock`), then the built-in catalogue (components/capacity/models.py find_model);
models neither knows are judged, as advice, against a lower bound their name gives (``estimate``: the parameter
count it spells x 1 byte; session 51).

Where the model lands: the server's download directory as its engine row says (`--download-dir`, the cache
variable its env sets, or the image's default folder; components/serving_engines.toml downloads, read by
policies/reading/engines.py cache_dirs), or for a local model path the path itself. The volume's size: an emptyDir's sizeLimit, an ephemeral volume's or a StatefulSet claim template's
storage request, or a claimed PersistentVolumeClaim of the same run (same namespace). A claim's size counts only
where it is enforced (claim_capacity): a claim bound to a PV of the run holds the PV's capacity; one on a driver that
ignores sizes (EFS, Mountpoint for S3, NFS) is not judged; one whose StorageClass or PV is not in the run (and no
default class of the run stands for it) is unproven, reported as advice. An NVIDIA NIMCache names its
model by the NGC model puller image (nvcr.io/nim/<org>/<model>) or a Hugging Face repository, and its cache by
spec.storage.pvc (_nim_cache_findings).
"""

from __future__ import annotations

import re
from typing import NamedTuple, Optional

from components.capacity.models import CatalogModel, UnknownModel, find_model
from components.errors import ConfigError
from components.serving_engines import Engine
from policies.framework import Policy, Resource, Unproven, unproven
from policies.gpu.ephemeral_storage import _PARAMS
from policies.kube import (
    WORKLOAD_TYPES,
    as_dict,
    as_list,
    as_quantity,
    get,
    metadata_name,
    requests_gpu,
    split_type,
    viewed_resources,
)
from policies.reading.engines import cache_dirs, hub_model, table_servers, volume_at
from policies.reading.serving import engine_row
from policies.reading.vllm_args import served_model, vllm_servers

GIB = float(1 << 30)


def _model(reference: Optional[str]) -> Optional[CatalogModel]:
    """The catalogue or lock entry a model reference names: a Hub id, or a local path ending in one."""
    if not isinstance(reference, str) or not reference:
        return None
    candidates = [hub_model(reference)]
    parts = [p for p in reference.rstrip("/").split("/") if p]
    if reference.startswith("/") and len(parts) >= 2:
        candidates += ["/".join(parts[-2:]), parts[-1]]
    for candidate in candidates:
        if candidate:
            try:
                return find_model(candidate)
            except (UnknownModel, ConfigError, ValueError, KeyError):
                continue
    return None


# CSI drivers and provisioners that do not enforce a volume's capacity: the claim's and the PV's `storage` is a
# placeholder Kubernetes requires, and the volume holds what the file system holds (kubernetes/kubernetes#61641: the
# backend, not Kubernetes, enforces capacity).
_UNENFORCED = {
    # kubernetes-sigs/aws-efs-csi-driver v3.4.1 docs/README.md:34 ("The actual storage capacity value in persistent
    # volume and persistent volume claim is a placeholder value ... not actually used").
    "efs.csi.aws.com": "Amazon EFS (elastic)",
    # awslabs/mountpoint-s3-csi-driver v2.7.0 docs/CONFIGURATION.md:27 ("storage: 1200Gi # Value is ignored but
    # required by Kubernetes").
    "s3.csi.aws.com": "Mountpoint for Amazon S3",
    # kubernetes-csi/csi-driver-nfs v4.13.4 pkg/nfs/controllerserver.go:184 (a subdirectory of the export, MkdirAll,
    # no quota) and :205 (CapacityBytes 0: the provisioner copies the request).
    "nfs.csi.k8s.io": "an NFS export (csi-driver-nfs)",
    # kubernetes-sigs/nfs-subdir-external-provisioner v4.0.2 cmd/nfs-subdir-external-provisioner/provisioner.go:112
    # (a directory on the share, os.MkdirAll, no quota) and :125 (the PV's capacity copied from the claim).
    "k8s-sigs.io/nfs-subdir-external-provisioner": "an NFS share (nfs-subdir-external-provisioner)",
}
# Provisioners that create a block volume of the size asked for (a file system on a disk holds no more than the disk):
# AWS EBS (kubernetes-sigs/aws-ebs-csi-driver examples/kubernetes/dynamic-provisioning/manifests/storageclass.yaml at
# dcfdd0d4 names ebs.csi.aws.com), GCE Persistent Disk and Azure Disk, CSI and in-tree. A claim on any other
# provisioner (one that rounds up to a minimum, such as Filestore's 1 TiB, or a node-directory one that enforces
# nothing) is judged as advice: its size is not known to be what the volume holds.
_SIZED = frozenset(
    {
        "ebs.csi.aws.com",
        "kubernetes.io/aws-ebs",
        "pd.csi.storage.gke.io",
        "kubernetes.io/gce-pd",
        "disk.csi.azure.com",
        "kubernetes.io/azure-disk",
    }
)
# Provisioners a cluster names after itself (csi-driver-nfs's driver name is a flag: <prefix>.nfs.csi.k8s.io).
_UNENFORCED_SUFFIXES = (".nfs.csi.k8s.io",)
# PersistentVolume sources without a capacity of their own (an in-tree NFS export, a node's directory).
_UNENFORCED_SOURCES = ("nfs", "hostPath")


def _unenforced(driver: object) -> str:
    """What a driver or provisioner is when it does not enforce a volume's capacity, else ""."""
    if not isinstance(driver, str):
        return ""
    return _UNENFORCED.get(driver, "an NFS export" if driver.endswith(_UNENFORCED_SUFFIXES) else "")


def _named(kind: str, name: object, namespace: object = None) -> Optional[dict]:
    """The object of ``kind`` named ``name`` in this run (same namespace where ``namespace`` is given), or None."""
    for other in viewed_resources() or ():
        if split_type(other.type) != ("", kind) and split_type(other.type) != ("storage.k8s.io", kind):
            continue
        if metadata_name(other.props) != name:
            continue
        if namespace is not None and get(other.props, "metadata", "namespace") not in (None, namespace):
            continue
        return as_dict(other.props)
    return None


def _default_class() -> Optional[dict]:
    """The StorageClass of this run marked the cluster's default (storageclass.kubernetes.io/is-default-class)."""
    for other in viewed_resources() or ():
        if split_type(other.type) == ("storage.k8s.io", "StorageClass"):
            flag = get(other.props, "metadata", "annotations", "storageclass.kubernetes.io/is-default-class")
            if str(flag).lower() == "true":
                return as_dict(other.props)
    return None


def _pv_unenforced(pv: dict) -> bool:
    return bool(_unenforced(get(pv, "spec", "csi", "driver"))) or any(k in as_dict(pv.get("spec")) for k in _UNENFORCED_SOURCES)


def _static_candidates(class_name: object, claim: Optional[tuple[object, str]]) -> tuple[Optional[dict], list[dict]]:
    """PersistentVolumes of the run a claim can bind without a volumeName: (the one whose claimRef names the claim,
    every PV of the claim's class). Kubernetes binds a claim to a PV of its storageClassName ("" for none) or to the
    PV reserved for it by claimRef (https://kubernetes.io/docs/concepts/storage/persistent-volumes/#reserving-a-
    persistentvolume)."""
    reserved, same_class = None, []
    for other in viewed_resources() or ():
        if split_type(other.type) != ("", "PersistentVolume"):
            continue
        pv = as_dict(other.props)
        ref = as_dict(get(pv, "spec", "claimRef"))
        if claim is not None and ref.get("name") == claim[1] and ref.get("namespace") in (None, claim[0]):
            reserved = pv
        elif (get(pv, "spec", "storageClassName") or "") == (class_name or "") and not ref:
            same_class.append(pv)
    return reserved, same_class


def claim_capacity(spec: dict, shown: str, claim: Optional[tuple[object, str]] = None) -> tuple[Optional[float], str]:
    """The bytes a claim's volume holds, judged from a PVC (or claim template) ``spec``: (None, "") when its volume
    does not enforce a capacity, and an unproven ``shown`` when what provisions it is not in the run.

    A claim bound by ``volumeName`` holds its PV's capacity (a PV in the run), else at least its request (Kubernetes
    binds a PV no smaller than the request), so a PV outside the run is unproven. A dynamically provisioned claim
    holds its request on a provisioner that enforces sizes: its StorageClass (named, else the run's default class)
    must be in the run and its provisioner not one of _UNENFORCED. A PV of the run reserved for the claim (claimRef)
    holds its own capacity; static PVs of the claim's class that all ignore sizes leave it unjudged."""
    request = as_quantity(get(spec, "resources", "requests", "storage"))
    volume_name = spec.get("volumeName")
    if isinstance(volume_name, str) and volume_name:
        pv = _named("PersistentVolume", volume_name)
        if pv is None:
            return request, unproven(f"{shown} (bound to PersistentVolume {volume_name}, not in the files read)")
        if _pv_unenforced(pv):
            return None, ""
        return as_quantity(get(pv, "spec", "capacity", "storage")), f"{shown} (PersistentVolume {volume_name})"
    name = spec.get("storageClassName")
    reserved, same_class = _static_candidates(name, claim)
    if reserved is not None:
        if _pv_unenforced(reserved):
            return None, ""
        pv_name = get(reserved, "metadata", "name")
        return as_quantity(get(reserved, "spec", "capacity", "storage")), f"{shown} (PersistentVolume {pv_name})"
    if same_class and all(_pv_unenforced(pv) for pv in same_class):
        return None, ""  # the static PVs it can bind (EFS, S3, NFS) enforce no size
    if name == "":
        return request, unproven(f"{shown} (a static PersistentVolume, not in the files read)")
    storage_class = _named("StorageClass", name) if isinstance(name, str) else _default_class()
    if storage_class is None:
        where = f"StorageClass {name}" if isinstance(name, str) else "the cluster's default StorageClass"
        return request, unproven(f"{shown} ({where} not in the files read: its provisioner may not enforce sizes)")
    provisioner = storage_class.get("provisioner")
    if _unenforced(provisioner):
        return None, ""
    if provisioner not in _SIZED:
        return request, unproven(f"{shown} (provisioner {provisioner}: whether it sizes volumes as asked is not known)")
    return request, shown


def _claim_size(resource: Resource, claim: str) -> tuple[Optional[float], str]:
    namespace = get(resource.props, "metadata", "namespace")
    pvc = _named("PersistentVolumeClaim", claim, namespace)
    if pvc is None:
        return None, ""
    return claim_capacity(as_dict(pvc.get("spec")), f"PersistentVolumeClaim {claim}", (namespace, claim))


def volume_size(resource: Resource, volume: dict) -> tuple[Optional[float], str]:
    """The bytes a pod volume can hold, and how a message names it; (None, "") when unknown or unbounded."""
    name = volume.get("name")
    empty = volume.get("emptyDir")
    if isinstance(empty, dict) and "sizeLimit" in empty:
        return as_quantity(empty.get("sizeLimit")), f"emptyDir {name} (sizeLimit)"
    template = get(volume, "ephemeral", "volumeClaimTemplate", "spec")
    if get(template, "resources", "requests", "storage") is not None:
        return claim_capacity(as_dict(template), f"ephemeral volume {name}")
    claim = get(volume, "persistentVolumeClaim", "claimName")
    if isinstance(claim, str):
        return _claim_size(resource, claim)
    for template in as_list(get(resource.props, "spec", "volumeClaimTemplates")):
        if get(template, "metadata", "name") == name:
            return claim_capacity(as_dict(get(template, "spec")), f"volumeClaimTemplate {name}")
    return None, ""


def _servers(resource: Resource) -> list[tuple[str, dict, dict, dict, Optional[str], Optional[Engine]]]:
    vllm = engine_row("vllm")
    found = [
        (s.label, s.podspec, s.container, s.args, served_model(s), vllm) for s in vllm_servers(resource) if not s.runtime_merged
    ]
    found += [(s.label, s.podspec, s.container, s.args, s.model, s.row) for s in table_servers(resource)]
    return found


NIM_CACHE = ("apps.nvidia.com", "NIMCache")
_NGC_IMAGE = re.compile(r"^nvcr\.io/nim/(?P<org>[a-z0-9._-]+)/(?P<name>[a-z0-9._-]+)(?::[^/@]*)?(?:@.*)?$", re.IGNORECASE)
# NGC names Meta's models meta/<name> (nvcr.io/nim/meta/llama-3.1-70b-instruct); the Hub, meta-llama/<Name>.
_NGC_ORGS = {"meta": "meta-llama"}
# Bytes per parameter of the lightest profile a NIM may cache (4-bit weights), against which a cache is judged when
# the NIMCache caches NGC profiles whose precision the manifest does not fix.
_LIGHTEST_PROFILE_BYTES = 0.5


def _nim_cache_findings(resource: Resource) -> list[str]:
    """A NIMCache whose PVC cannot hold the model it caches (k8s-nim-operator v3.1.2 api/apps/v1alpha1/nimcache_types.go:
    spec.source.{ngc.modelPuller, hf.{namespace, modelName}} :64-124, spec.storage.pvc.{size, name} with size "in Gi"
    used to create the PVC, common_types.go:481-493). A Hugging Face source downloads the repository: its checkpoint must
    fit. An NGC source caches the NIM's engine profiles, whose precision the manifest need not say: only a cache below
    the model's weights at 4 bits (its parameters x 0.5 byte, the lightest profile) is judged, so no profile fits."""
    spec = as_dict(get(resource.props, "spec"))
    pvc = as_dict(get(spec, "storage", "pvc"))
    raw = pvc.get("size")
    size, field = None, ""
    if isinstance(raw, str) and re.search(r"[A-Za-z]$", raw.strip()):
        # The operator creates the PVC of this size in spec.storage.pvc.storageClass, left unset (the cluster's
        # default class) when empty (k8s-nim-operator v3.1.2 internal/shared/pvc.go:31-50 ConstructPVC): judged as
        # any claim, so a cache on EFS or NFS (no enforced size) is not held to it.
        claim = {"resources": {"requests": {"storage": raw}}}
        if pvc.get("storageClass"):
            claim["storageClassName"] = pvc["storageClass"]
        size, field = claim_capacity(claim, f"spec.storage.pvc.size {raw}")
    elif isinstance(pvc.get("name"), str) and pvc.get("create") is not True:
        size, field = _claim_size(resource, pvc["name"])
    if size is None:
        return []
    hf = as_dict(get(spec, "source", "hf"))
    if isinstance(hf.get("namespace"), str) and isinstance(hf.get("modelName"), str):
        model = _model(f"{hf['namespace']}/{hf['modelName']}")
        need, what = (model.checkpoint_bytes, "its checkpoint") if model else (0.0, "")
    else:
        match = _NGC_IMAGE.match(str(get(spec, "source", "ngc", "modelPuller") or ""))
        model = _model(f"{_NGC_ORGS.get(match['org'].lower(), match['org'])}/{match['name']}") if match else None
        if model is None:
            return []
        per_param = 1.0 if model.arch.quant_method in ("fp8", "int8") else 2.0
        need = model.checkpoint_bytes * _LIGHTEST_PROFILE_BYTES / per_param
        what = f"its weights at 4 bits, the lightest NIM profile (the {model.checkpoint_gib:,.0f} GiB checkpoint x {_LIGHTEST_PROFILE_BYTES / per_param:g})"
    if model is None or size >= need:
        return []
    message = (
        f"{field}: the cache holds {size / GIB:,.0f} GiB, but {model.hf_id} needs {need / GIB:,.0f} GiB for {what}: "
        f"caching fails with no space left on the device and the NIMService never starts; size the cache above the model"
    )
    return [unproven(message) if isinstance(field, Unproven) else message]


class Estimate(NamedTuple):
    """A lower bound on the checkpoint of a model neither the lock file nor the catalogue knows, from the parameter
    count its name spells (``estimate``), reported as advice only."""

    hf_id: str
    checkpoint_bytes: float
    source: str

    @property
    def checkpoint_gib(self) -> float:
        return self.checkpoint_bytes / GIB


# Names of checkpoints below 8 bits a parameter (or of formats whose size the name does not fix): no lower bound.
_LOW_BIT = re.compile(
    r"awq|gptq|int4|w4a|4bit|4-bit|bnb|nf4|gguf|ggml|exl2|mlx|quant|q[2-6]_|[-_.]q[2-6]\b|3bit|2bit|1\.58|bitnet|mxfp4|fp4",
    re.IGNORECASE,
)


def estimate(reference: str) -> Optional[Estimate]:
    """A lower bound on the checkpoint of a Hub model from its name: its largest parameter count in billions
    (policies.gpu.ephemeral_storage's reading of "Qwen2.5-72B-Instruct", "Llama-3.1-70B") x 1 byte, the least a
    parameter takes at 8 bits or more (16-bit checkpoints hold twice that). None for a name that spells no count, a
    mixture written NxMB (its total is below N x M), or one naming a format under 8 bits (AWQ, GPTQ, bnb 4-bit, GGUF,
    MXFP4)."""
    repo = hub_model(reference)
    if not repo:
        return None
    name = repo.rsplit("/", 1)[-1]
    if _LOW_BIT.search(name) or re.search(r"\d+x\d", name):
        return None
    counts = [float(m.group(1)) for m in _PARAMS.finditer(name) if m.group(2) in "bB"]
    if not counts:
        return None
    params = max(counts)
    return Estimate(
        repo, params * 1e9, f"its name spells {params:g}B parameters, at least 1 byte each: 8-bit weights; 16-bit ones twice"
    )


def _too_small(
    resource: Resource,
    podspec: dict,
    container: dict,
    directory: str,
    model: "CatalogModel | Estimate",
    label: str,
    twice: float = 0.0,
) -> str:
    """The finding when the volume at ``directory`` is known and holds less than the download (the checkpoint, plus
    ``twice``: the bytes of a consolidated copy the engine downloads beside the shards), else ""."""
    volume = volume_at(podspec, container, directory)
    if volume is None:
        return ""
    size, shown = volume_size(resource, as_dict(volume))
    if size is None or size >= model.checkpoint_bytes + twice:
        return ""
    holds = "asks for" if isinstance(shown, Unproven) else "holds"
    what = f"the checkpoint of {model.hf_id} is {model.checkpoint_gib:,.0f} GiB ({model.source})"
    if isinstance(model, Estimate):
        what = f"the checkpoint of {model.hf_id} is at least {model.checkpoint_gib:,.0f} GiB ({model.source})"
    if twice:
        what = (
            f"vLLM downloads every *.safetensors file of {model.hf_id} before it drops duplicates, the sharded "
            f"checkpoint ({model.checkpoint_gib:,.0f} GiB) and its consolidated copy ({twice / GIB:,.0f} GiB): "
            f"{(model.checkpoint_bytes + twice) / GIB:,.0f} GiB (vllm model_loader/weight_utils.py "
            f"download_weights_from_hf, v0.6.6.post2 L215-262; filter_duplicate_safetensors_files L301-306)"
        )
    message = (
        f"{label}: {shown} at {directory} {holds} {size / GIB:,.0f} GiB, but {what}: the download fails with no "
        f"space left on the device; size the volume above the download"
        + (" (or pass --load-format mistral, which fetches consolidated*.safetensors only)" if twice else "")
    )
    return unproven(message) if isinstance(shown, Unproven) or isinstance(model, Estimate) else message


# From vLLM 0.14.0 download_weights_from_hf fetches only the files the safetensors index lists (0.14.0
# model_executor/model_loader/weight_utils.py L456; 0.11.0-0.13.0 still fetch every match: cold review 29b, finding 6,
# read in the wheels), so the consolidated copy is charged only on a release the image tag names before it.
_INDEX_ONLY_FROM = (0, 14, 0)


def _consolidated_copy(model: CatalogModel, args: dict, row: Optional[Engine], image: object) -> float:
    """The bytes of a consolidated copy of the weights that vLLM downloads beside the shards (catalogue
    consolidated_copy_bytes), when its load format is the default: "auto" downloads the first pattern of
    ["*.safetensors", "*.bin"] that matches, every file of it (vllm v0.6.6.post2 model_loader/loader.py L232; L236-238
    "mistral" takes consolidated*.safetensors only, other formats other files), on a release before 0.14.0."""
    from components.capacity.model_catalog import MODELS
    from components.engine_options import tagged_release, version_key

    if row is None or row.name != "vllm" or args.get("load-format", "auto") not in ("auto", "safetensors"):
        return 0.0
    release = tagged_release(str(image or ""), row.options.images) if row.options is not None else None
    if release is None or version_key(release) >= _INDEX_ONLY_FROM:
        return 0.0
    extra = MODELS.get(model.id, {}).get("consolidated_copy_bytes")
    return float(extra) if isinstance(extra, int) and not isinstance(extra, bool) else 0.0


def _check(resource: Resource, config: dict) -> list[str]:
    if split_type(resource.type) == NIM_CACHE:
        return _nim_cache_findings(resource)
    messages = []
    for label, podspec, container, args, reference, row in _servers(resource):
        if not requests_gpu(podspec):
            continue  # a Ray head (num-gpus 0) reads the config and tokenizer only: the GPU workers load the weights
        model: "CatalogModel | Estimate | None" = _model(reference)
        if model is None and isinstance(reference, str) and not reference.startswith("/"):
            model = estimate(reference)
        if model is None:
            continue
        assert isinstance(reference, str)
        dirs = (reference,) if reference.startswith("/") else cache_dirs(container, args, row) if row else ()
        # Where the image decides between folders (TGI's /data or /tmp), every one must be too small to be sure.
        twice = (
            _consolidated_copy(model, args, row, container.get("image"))
            if isinstance(model, CatalogModel) and not reference.startswith("/")
            else 0.0
        )
        found = [_too_small(resource, podspec, container, d, model, label, twice) for d in dirs]
        if found and all(found):
            messages.append(found[0])
    return messages


POLICY = Policy(
    name="model-cache-fits-checkpoint",
    description=(
        "The volume a model server downloads its model into, and a NIMCache's PVC, are at least as large as the model "
        "(a NIMCache of NGC profiles: as its weights at 4 bits, the lightest profile); a claim's size counts where it "
        "is enforced: a bound PV's capacity, or a StorageClass of the run whose provisioner creates volumes of that "
        "size; claims on EFS, S3 or NFS are not judged, and a claim whose class or PV is not in the files is advice."
    ),
    catalog="S29",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Request more storage on the claim (or the emptyDir sizeLimit) than the checkpoint holds, with room for the "
        "Hub cache's temporary files; `python -m stacks size --model <id>` prints the checkpoint's weights_gib."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "A download larger than its volume fails part-way (ENOSPC), and an emptyDir over its sizeLimit gets the pod "
        "evicted (https://kubernetes.io/docs/concepts/storage/volumes/#emptydir); either way the server never starts, "
        "after the node, the image pull and part of the download were paid for (issue 32: a 100Gi cache for a "
        "~690 GB model)."
    ),
)
