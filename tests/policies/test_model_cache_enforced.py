"""S29 judges a claim's size only where the volume enforces it (cold review s24 F2).

Kubernetes does not enforce a volume's capacity; the backend does (kubernetes/kubernetes#61641). So a claim's
``storage`` on EFS, Mountpoint for S3 or NFS is a placeholder, a static PV holds its own capacity, and a claim whose
StorageClass or PV is not in the files read is unproven. Forms below are hand-written after the upstream samples they
cite (the drivers' own examples: a model cache placed on them by the same claims).
"""

from __future__ import annotations

import copy

from policies.framework import Resource
from policies.registry import evaluate

SHA = "0e9e39f249a16976918f6564b8830bc894c89659"
POLICY = "model-cache-fits-checkpoint"


def server(claim: str = "hf") -> Resource:
    """A vLLM Deployment caching Llama-3.1-70B (131 GiB) under HF_HOME on the claim ``claim`` (review s24/s29h.yaml)."""
    container = {
        "name": "server",
        "image": "vllm/vllm-openai:v0.10.1",
        "args": ["--model", "meta-llama/Llama-3.1-70B-Instruct", "--revision", SHA],
        "env": [{"name": "HF_HOME", "value": "/cache"}],
        "resources": {"limits": {"nvidia.com/gpu": "1"}},
        "volumeMounts": [{"name": "c", "mountPath": "/cache"}],
    }
    spec = {"containers": [container], "volumes": [{"name": "c", "persistentVolumeClaim": {"claimName": claim}}]}
    props = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "f", "namespace": "llm"}}
    props["spec"] = {"template": {"spec": spec}}
    return Resource("kubernetes:apps/v1:Deployment", "f", props)


def claim(spec: dict, name: str = "hf") -> Resource:
    props = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": "llm"}, "spec": spec}
    return Resource("kubernetes:core/v1:PersistentVolumeClaim", name, props)


def storage_class(name: str, provisioner: str, default: bool = False) -> Resource:
    meta: dict = {"name": name}
    if default:
        meta["annotations"] = {"storageclass.kubernetes.io/is-default-class": "true"}
    props = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": meta, "provisioner": provisioner}
    return Resource("kubernetes:storage.k8s.io/v1:StorageClass", name, props)


def volume(name: str, spec: dict) -> Resource:
    props = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name}, "spec": spec}
    return Resource("kubernetes:core/v1:PersistentVolume", name, props)


def levels(resources) -> list[tuple[str, str]]:
    return [(v.enforcement, v.message) for v in evaluate(resources) if v.policy == POLICY]


# kubernetes-sigs/aws-ebs-csi-driver examples/kubernetes/dynamic-provisioning/manifests/{storageclass,claim}.yaml at
# dcfdd0d4 / 5a363e1a: class ebs-sc, provisioner ebs.csi.aws.com, a claim on it (an EBS volume is created at the size
# asked for, and the file system on it holds no more).
EBS = storage_class("ebs-sc", "ebs.csi.aws.com")
# kubernetes-sigs/aws-efs-csi-driver v3.4.1 (3fcc6bdd) examples/kubernetes/efs/dynamic_provisioning/specs/
# storageclass.yaml (efs-sc, efs.csi.aws.com) and pod.yaml (efs-claim: ReadWriteMany, 5Gi on efs-sc).
EFS = storage_class("efs-sc", "efs.csi.aws.com")
RWX_5GI = {"accessModes": ["ReadWriteMany"], "resources": {"requests": {"storage": "5Gi"}}}


def test_a_claim_on_an_enforcing_provisioner_blocks():
    ((level, message),) = levels([server(), claim({**RWX_5GI, "storageClassName": "ebs-sc"}), EBS])
    assert level == "mandatory"
    assert message.startswith("container server: PersistentVolumeClaim hf at /cache/hub holds 5 GiB, but the checkpoint")
    # The run's default class stands for an unnamed one.
    default = storage_class("gp3", "ebs.csi.aws.com", default=True)
    assert [lvl for lvl, _ in levels([server(), claim(RWX_5GI), default])] == ["mandatory"]


def test_claims_on_efs_s3_and_nfs_are_silent():
    """The EFS sample's 5Gi claim as a model cache (review s24/s29h.yaml); the same on csi-driver-nfs (v4.13.4
    deploy/example/storageclass-nfs.yaml: nfs.csi.k8s.io), a renamed NFS driver and nfs-subdir-external-provisioner."""
    assert levels([server(), claim({**RWX_5GI, "storageClassName": "efs-sc"}), EFS]) == []
    for provisioner in ("nfs.csi.k8s.io", "corp.nfs.csi.k8s.io", "k8s-sigs.io/nfs-subdir-external-provisioner"):
        nfs = storage_class("nfs", provisioner)
        assert levels([server(), claim({**RWX_5GI, "storageClassName": "nfs"}), nfs]) == [], provisioner
    assert levels([server(), claim(RWX_5GI), storage_class("efs", "efs.csi.aws.com", default=True)]) == []


def test_a_static_pv_is_judged_by_its_own_capacity_and_driver():
    """awslabs/mountpoint-s3-csi-driver v2.7.0 (a2d4b067) examples/kubernetes/static_provisioning/caching.yaml: PV
    s3-pv (capacity 1200Gi "ignored, required", csi.driver s3.csi.aws.com) bound by the claim's volumeName; the EFS
    static form of review s24/s29g.yaml; an in-tree NFS PV. A static EBS PV holds its capacity, not the claim's."""
    bound = {**RWX_5GI, "storageClassName": "", "volumeName": "pv"}
    s3 = volume("pv", {"capacity": {"storage": "1200Gi"}, "csi": {"driver": "s3.csi.aws.com", "volumeHandle": "v"}})
    efs = volume("pv", {"capacity": {"storage": "5Gi"}, "csi": {"driver": "efs.csi.aws.com", "volumeHandle": "fs-1"}})
    nfs = volume("pv", {"capacity": {"storage": "5Gi"}, "nfs": {"server": "10.0.0.2", "path": "/models"}})
    for pv in (s3, efs, nfs):
        assert levels([server(), claim(bound), pv]) == []
    ebs = volume("pv", {"capacity": {"storage": "500Gi"}, "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-1"}})
    assert levels([server(), claim(bound), ebs]) == []
    small = copy.deepcopy(ebs.props)
    small["spec"]["capacity"]["storage"] = "50Gi"
    ((level, message),) = levels([server(), claim(bound), Resource(ebs.type, "pv", small)])
    assert level == "mandatory" and "PersistentVolumeClaim hf (PersistentVolume pv) at /cache/hub holds 50 GiB" in message


def test_static_pvs_bound_by_class_or_claim_ref_are_read():
    """kubernetes-sigs/aws-efs-csi-driver v3.4.1 examples/kubernetes/efs/static_provisioning/specs/{pv,claim}.yaml:
    PV efs-pv (5Gi, storageClassName efs-sc, csi.driver efs.csi.aws.com) and a 5Gi claim on efs-sc, the StorageClass
    in another file; and a PV reserved for the claim by claimRef (Kubernetes docs, reserving a PersistentVolume)."""
    pv = {
        "capacity": {"storage": "5Gi"},
        "storageClassName": "efs-sc",
        "csi": {"driver": "efs.csi.aws.com", "volumeHandle": "efs:fs-e8a95a42"},
    }
    assert levels([server(), claim({**RWX_5GI, "storageClassName": "efs-sc"}), volume("efs-pv", pv)]) == []
    reserved = {
        "capacity": {"storage": "50Gi"},
        "claimRef": {"name": "hf", "namespace": "llm"},
        "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-1"},
    }
    ((level, message),) = levels([server(), claim({**RWX_5GI, "storageClassName": ""}), volume("ebs-pv", reserved)])
    assert level == "mandatory" and "PersistentVolumeClaim hf (PersistentVolume ebs-pv) at /cache/hub holds 50 GiB" in message


def test_a_provisioner_not_known_to_size_volumes_is_advice():
    """Rancher's local-path provisioner (a node directory, no quota) and GKE Filestore (rounded up to its tier's
    minimum) in the run: the claim's request is not known to be the volume's size."""
    for provisioner in ("rancher.io/local-path", "filestore.csi.storage.gke.io"):
        ((level, message),) = levels([server(), claim({**RWX_5GI, "storageClassName": "c"}), storage_class("c", provisioner)])
        assert level == "advisory" and f"provisioner {provisioner}" in message


def test_a_claim_whose_class_or_volume_is_not_in_the_files_is_advice():
    """review s24/s29f.yaml: the EFS class is in another file; an unnamed class with no default in the run; a PV
    named by volumeName that is not in the run (Kubernetes binds one no smaller than the request)."""
    for spec in (
        {**RWX_5GI, "storageClassName": "efs-sc"},
        RWX_5GI,
        {**RWX_5GI, "storageClassName": "", "volumeName": "elsewhere"},
        {**RWX_5GI, "storageClassName": ""},
    ):
        ((level, message),) = levels([server(), claim(spec)])
        assert level == "advisory", spec
        assert "asks for 5 GiB" in message and "not in the files read" in message


def test_a_nim_cache_on_efs_is_silent():
    """k8s-nim-operator v3.1.2 NIMCache spec.storage.pvc {create, size, storageClass} (common_types.go:481-493): the
    operator creates the claim in that class, so an EFS class is not held to the size."""
    props = {
        "apiVersion": "apps.nvidia.com/v1alpha1",
        "kind": "NIMCache",
        "metadata": {"name": "cache", "namespace": "llm"},
        "spec": {
            "source": {"hf": {"endpoint": "https://huggingface.co", "namespace": "deepseek-ai", "modelName": "DeepSeek-R1"}},
            "storage": {"pvc": {"create": True, "size": "100Gi", "storageClass": "efs-sc"}},
        },
    }
    nim = Resource("kubernetes:apps.nvidia.com/v1alpha1:NIMCache", "cache", props)
    assert levels([nim, EFS]) == []
    ((level, _),) = levels([nim, storage_class("efs-sc", "ebs.csi.aws.com")])
    assert level == "mandatory"
    ((level, _),) = levels([nim])
    assert level == "advisory"
    # An empty storageClass leaves the claim's class unset: the cluster's default (internal/shared/pvc.go:48-50), as in
    # the operator's multi-node sample (config/samples/nim/serving/advanced/multi-node, storageClass: '', 100Gi RWX).
    unset = copy.deepcopy(props)
    unset["spec"]["storage"]["pvc"]["storageClass"] = ""
    nim = Resource(nim.type, "cache", unset)
    assert levels([nim, storage_class("efs", "efs.csi.aws.com", default=True)]) == []
    ((level, message),) = levels([nim])
    assert level == "advisory" and "the cluster's default StorageClass not in the files read" in message


# Session 51: a model neither the lock file nor the catalogue knows is judged, as advice, against the lower bound its
# name gives (policies.models.model_cache_fits_checkpoint.estimate: the parameter count it spells x 1 byte).
def named(model: str) -> Resource:
    resource = server()
    resource.props["spec"]["template"]["spec"]["containers"][0]["args"] = ["--model", model]
    return resource


def test_an_unknown_model_is_judged_as_advice_against_its_named_parameter_count():
    small = claim({**RWX_5GI, "storageClassName": "ebs-sc", "resources": {"requests": {"storage": "50Gi"}}})
    ((level, message),) = levels([named("deepseek-ai/DeepSeek-R1-Distill-Llama-70B"), small, EBS])
    assert level == "advisory"
    assert "the checkpoint of deepseek-ai/DeepSeek-R1-Distill-Llama-70B is at least 65 GiB" in message
    assert "its name spells 70B parameters, at least 1 byte each" in message


def test_a_named_count_the_volume_holds_or_a_low_bit_name_stays_silent():
    big = claim({**RWX_5GI, "storageClassName": "ebs-sc", "resources": {"requests": {"storage": "80Gi"}}})
    assert levels([named("deepseek-ai/DeepSeek-R1-Distill-Llama-70B"), big, EBS]) == []
    small = claim({**RWX_5GI, "storageClassName": "ebs-sc", "resources": {"requests": {"storage": "30Gi"}}})
    assert levels([named("TheBloke/Llama-2-70B-AWQ"), small, EBS]) == []
    assert levels([named("mistralai/Mixtral-8x22B-v0.1"), small, EBS]) == []
    assert levels([named("moonshotai/Kimi-K2.5"), small, EBS]) == []
