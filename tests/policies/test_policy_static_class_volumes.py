"""G100 static-class-has-volumes: claims on a StorageClass whose provisioner is kubernetes.io/no-provisioner, with no
PersistentVolume of that class in the files.

Firing form: JakeBx/hardened-llm-deployment@88313865be9ebd1d217f01671dc3621fcd6e64c7
deployments/manifests/base/storage-class.yaml (StorageClass fast-ssd, provisioner kubernetes.io/no-provisioner, "Change
to your cloud provider's SSD provisioner") with deployments/manifests/models/kimi-k2.5/pvc.yaml (claim
kimi-k2-5-model-storage, storageClassName fast-ssd, 500Gi); spent set 88, labelled none. NotSupportedProvisioner:
kubernetes component-helpers storage/volume (code index stored version id 66897335449).
Careful forms: a local PV of the class in the files, a claim naming its volume, a class with a real provisioner.
"""

from __future__ import annotations

from policy_fixtures import found_by

G100 = "static-class-has-volumes"
FAST_SSD = {
    "apiVersion": "storage.k8s.io/v1",
    "kind": "StorageClass",
    "metadata": {"name": "fast-ssd"},
    "provisioner": "kubernetes.io/no-provisioner",
    "volumeBindingMode": "WaitForFirstConsumer",
    "reclaimPolicy": "Retain",
}


def _claim(name="kimi-k2-5-model-storage", **spec):
    body = {"accessModes": ["ReadWriteOnce"], "storageClassName": "fast-ssd", "resources": {"requests": {"storage": "500Gi"}}}
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": "ml-inference"},
        "spec": body | spec,
    }


LOCAL_PV = {
    "apiVersion": "v1",
    "kind": "PersistentVolume",
    "metadata": {"name": "nvme-0"},
    "spec": {
        "capacity": {"storage": "1Ti"},
        "accessModes": ["ReadWriteOnce"],
        "storageClassName": "fast-ssd",
        "local": {"path": "/mnt/nvme0"},
        "nodeAffinity": {
            "required": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["gpu-1"]}]}
                ]
            }
        },
    },
}


def test_a_claim_on_a_no_provisioner_class_with_no_volume_is_advice_on_both():
    found = found_by([FAST_SSD, _claim()], G100)
    assert [level for level, _ in found] == ["advisory", "advisory"]
    messages = sorted(m for _, m in found)
    assert messages[0].startswith("provisioner kubernetes.io/no-provisioner: this class creates no volumes")
    assert "(kimi-k2-5-model-storage) stay Pending" in messages[0]
    assert messages[1].startswith("spec: StorageClass fast-ssd has provisioner kubernetes.io/no-provisioner")


def test_a_claim_template_and_a_default_class_count():
    sts = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "vllm"},
        "spec": {
            "serviceName": "vllm",
            "selector": {"matchLabels": {"app": "vllm"}},
            "template": {"metadata": {"labels": {"app": "vllm"}}, "spec": {"containers": [{"name": "vllm", "image": "x"}]}},
            "volumeClaimTemplates": [{"metadata": {"name": "cache"}, "spec": {"accessModes": ["ReadWriteOnce"]}}],
        },
    }
    default = FAST_SSD | {
        "metadata": {"name": "fast-ssd", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}}
    }
    found = found_by([default, sts], G100)
    assert any(m.startswith("spec.volumeClaimTemplates cache: StorageClass fast-ssd") for _, m in found)
    assert found_by([FAST_SSD, sts], G100) == []  # no class, and fast-ssd is not the default


def test_careful_forms_stay_silent():
    assert found_by([FAST_SSD, _claim(), LOCAL_PV], G100) == []
    assert found_by([FAST_SSD, _claim(volumeName="nvme-0")], G100) == []
    assert found_by([FAST_SSD | {"provisioner": "ebs.csi.aws.com"}, _claim()], G100) == []
    assert found_by([FAST_SSD], G100) == []
    assert found_by([FAST_SSD, _claim(storageClassName="gp3")], G100) == []
