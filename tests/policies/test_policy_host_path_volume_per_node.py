"""G31 through a PersistentVolume: a hostPath PV with no nodeAffinity is each node's own directory.

Fire: set 38 sandervanvugt/kubeai llama-deployment.yaml + models-pv-pvc.yaml@c34ba5cf24574ae2cbf98c98847d665ef41d70a0
(two llama-server replicas on claim models-pvc, bound by volumeName to hostPath /opt/models; label G31 on
Deployment/llama-server); set 41 colinjlacy/tofu-proxmox-gpu-ubuntu-k3s
k8s/common/model-storage.yaml@8f96eb1c9cf20fb6a28cba5bea6866a8831b9d81 (PersistentVolume model-pv, hostPath
/data/models, filled by Job download-model and read by the vLLM Deployment; label G31 on PersistentVolume/model-pv).
Silent: spent set 34 kimduquan/JavaEE OpenUP/Ollama/ollama.yaml@3b870ee282549c70d9057276f9eaef183968e447 (one Ollama
replica alone on a hostPath PV), and the same forms pinned to a node or with a PV nodeAffinity. Minimal
hand-written forms below.
"""

import copy

from policy_fixtures import manifest

from policies.k8s_generic.host_path_volume_per_node import POLICY
from policies.registry import evaluate


def _pv(claim_ref=False, affinity=False):
    spec = {"capacity": {"storage": "50Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/opt/models"}}
    if claim_ref:
        spec["claimRef"] = {"name": "models-pvc", "namespace": "default"}
    if affinity:
        term = {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["gpu-1"]}]}
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [term]}}
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "models-pv"}, "spec": spec}


def _claim(volume_name="models-pv"):
    spec = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "50Gi"}}}
    if volume_name:
        spec["volumeName"] = volume_name
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "models-pvc", "namespace": "default"},
        "spec": spec,
    }


def _pod(image="ghcr.io/ggerganov/llama.cpp:server"):
    return {
        "containers": [{"name": "llama", "image": image, "volumeMounts": [{"name": "models", "mountPath": "/models"}]}],
        "volumes": [{"name": "models", "persistentVolumeClaim": {"claimName": "models-pvc"}}],
    }


def _deployment(replicas=2):
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "llama-server", "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "llama"}},
            "template": {"metadata": {"labels": {"app": "llama"}}, "spec": _pod()},
        },
    }


def _job():
    spec = _pod("python:3.12-alpine")
    spec["restartPolicy"] = "OnFailure"
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "download-model", "namespace": "default"},
        "spec": {"template": {"spec": spec}},
    }


def _found(*objs):
    return [
        (v.enforcement, v.resource.split("#")[-1], v.message)
        for v in evaluate([manifest(o) for o in objs], None, policies=[POLICY])
    ]


def test_replicas_on_a_host_path_volume_are_advice_on_the_workload():
    ((level, name, message),) = _found(_deployment(), _claim(), _pv())
    assert (level, name) == ("advisory", "Deployment/llama-server")
    assert "bound to PersistentVolume models-pv, hostPath /opt/models with no nodeAffinity, and spec.replicas 2" in message


def test_a_claim_ref_binds_too_and_an_autoscaler_spreads_the_pods():
    hpa = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "llama-hpa", "namespace": "default"},
        "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "llama-server"}, "minReplicas": 1, "maxReplicas": 8},
    }
    ((_, name, message),) = _found(_deployment(1), hpa, _claim(None), _pv(claim_ref=True))
    assert name == "Deployment/llama-server" and "HorizontalPodAutoscaler llama-hpa scales it up to 8" in message


def test_a_download_job_and_a_server_on_one_host_path_volume_are_advice_on_the_volume():
    ((level, name, message),) = _found(_deployment(1), _job(), _claim(), _pv())
    assert (level, name) == ("advisory", "PersistentVolume/models-pv")
    assert "mounted by Deployment llama-server, Job download-model" in message


def test_careful_forms_stay_silent():
    # One replica alone on the volume (set 34 kimduquan/JavaEE ollama.yaml).
    assert _found(_deployment(1), _claim(), _pv()) == []
    # A PV pinned to a node.
    assert _found(_deployment(), _job(), _claim(), _pv(affinity=True)) == []
    # Every pod pinned to the node that holds the path.
    pinned, job = _deployment(), _job()
    for obj in (pinned, job):
        obj["spec"]["template"]["spec"]["nodeSelector"] = {"kubernetes.io/hostname": "gpu-1"}
    assert _found(pinned, job, _claim(), _pv()) == []
    # A claim bound to another volume, or to none the files show.
    assert _found(_deployment(), _job(), _claim("other-pv"), _pv()) == []
    network = _pv()
    network["spec"].pop("hostPath")
    network["spec"]["nfs"] = {"server": "nfs.local", "path": "/models"}
    assert _found(_deployment(), _job(), _claim(), network) == []


def test_a_daemonset_is_every_node_on_purpose():
    daemon = copy.deepcopy(_deployment())
    daemon["kind"] = "DaemonSet"
    daemon["spec"].pop("replicas")
    assert _found(daemon, _claim(), _pv()) == []
