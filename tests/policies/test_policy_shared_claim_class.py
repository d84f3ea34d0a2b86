"""G71 shared-claim-class-shares: a ReadWriteMany claim on a class that provisions single-node volumes, or on the
cluster's default class."""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import found_by

POLICY = "shared-claim-class-shares"

# Minimal form of natifridman/kserve-demo models/example-model/pvc.yaml @ 32d39dce5d3efd2a87de28183b5179f122c087ec
# (set 28, label filed none): ReadWriteMany on local-path.
LOCAL_PATH = {
    "apiVersion": "v1",
    "kind": "PersistentVolumeClaim",
    "metadata": {"name": "example-model-pvc"},
    "spec": {
        "accessModes": ["ReadWriteMany"],
        "resources": {"requests": {"storage": "50Gi"}},
        "storageClassName": "local-path",
        "volumeMode": "Filesystem",
    },
}
# Minimal form of aabhimittal/Ray-serve-multi-model-GPU-autoscaling deploy/kuberay/rayservice.yaml @
# ebb90e5973fa698cb41708be6fd641a52a3472f6 (set 38, label filed none): ReadWriteMany with no storageClassName.
NO_CLASS = {
    "apiVersion": "v1",
    "kind": "PersistentVolumeClaim",
    "metadata": {"name": "rsa-model-cache"},
    "spec": {"accessModes": ["ReadWriteMany"], "resources": {"requests": {"storage": "100Gi"}}},
}
ALTERNATIVES = "use a ReadWriteMany class (EFS, Filestore, Azure Files, NFS, CephFS) or ReadWriteOnce with one replica per claim"


def test_local_path_is_advised():
    assert found_by([LOCAL_PATH], POLICY) == [
        (
            "advisory",
            "spec.accessModes ReadWriteMany: storageClassName local-path is k3s' and kind's local-path provisioner, which "
            "provisions no volume many nodes mount, so the claim stays Pending, and every pod that mounts it with it; "
            + ALTERNATIVES,
        )
    ]


def test_the_default_class_is_advised():
    (found,) = found_by([NO_CLASS], POLICY)
    assert found == (
        "advisory",
        "spec.accessModes ReadWriteMany with no storageClassName takes the cluster's default class, and the defaults of "
        "EKS (gp2, EBS), GKE (standard-rwo, PD), AKS (managed-csi, Azure Disk) and k3s (local-path) make volumes one node "
        "mounts, so unless the default is a shared file system the claim stays Pending, and every pod that mounts it "
        "with it; name a ReadWriteMany class (EFS, Filestore, Azure Files, NFS, CephFS)",
    )


def test_a_class_of_the_files_on_ebs_is_advised():
    storage_class = {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": "fast"},
        "provisioner": "ebs.csi.aws.com",
    }
    claim = copy.deepcopy(LOCAL_PATH)
    claim["spec"]["storageClassName"] = "fast"
    (found,) = found_by([storage_class, claim], POLICY)
    assert "StorageClass fast of the files provisions with ebs.csi.aws.com, the EBS CSI driver" in found[1]


def test_a_statefulset_claim_template_is_read():
    sts = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "ollama"},
        "spec": {
            "serviceName": "ollama",
            "selector": {"matchLabels": {"app": "ollama"}},
            "template": {"metadata": {"labels": {"app": "ollama"}}, "spec": {"containers": [{"name": "o", "image": "x:1"}]}},
            "volumeClaimTemplates": [{"metadata": {"name": "models"}, "spec": copy.deepcopy(LOCAL_PATH["spec"])}],
        },
    }
    (found,) = found_by([sts], POLICY)
    assert found[1].startswith("spec.volumeClaimTemplates[0] (models).accessModes ReadWriteMany: storageClassName local-path")


@pytest.mark.parametrize(
    "change",
    [
        {"accessModes": ["ReadWriteOnce"]},  # opea-project style: RWO on local-path, RWX left for Ceph/EFS/Azure Files
        {"storageClassName": "efs-sc"},
        {"storageClassName": "rook-cephfs"},  # set 23 tgmorton/knowledge-politeness-llms kubernetes/pvcs.yaml
        {"storageClassName": "fast-ssd"},  # set 38 Ting-YuChou: a class the files do not define, not judged
        {"storageClassName": ""},  # static provisioning only
        {"volumeName": "model-pv"},  # bound by name (set 29 Trin9/gate-service deploy/fsx-static-pv.yaml)
        {"volumeMode": "Block"},
    ],
)
def test_a_shared_or_unjudged_claim_is_silent(change):
    claim = copy.deepcopy(LOCAL_PATH)
    claim["spec"].update(change)
    assert found_by([claim], POLICY) == []


def test_a_static_volume_beside_the_claim_is_silent():
    pv = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": "nfs-models"},
        "spec": {"capacity": {"storage": "100Gi"}, "accessModes": ["ReadWriteMany"], "nfs": {"server": "nfs", "path": "/m"}},
    }
    assert found_by([pv, NO_CLASS], POLICY) == []
