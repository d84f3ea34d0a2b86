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

from policy_fixtures import found_by, manifest

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
    # The PV has its own finding (one workload mounts its claim): see the single-server test.
    ((level, name, message), _) = _found(_deployment(), _claim(), _pv())
    assert (level, name) == ("advisory", "Deployment/llama-server")
    assert "bound to PersistentVolume models-pv, hostPath /opt/models with no nodeAffinity, and spec.replicas 2" in message


def test_a_claim_ref_binds_too_and_an_autoscaler_spreads_the_pods():
    hpa = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "llama-hpa", "namespace": "default"},
        "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "llama-server"}, "minReplicas": 1, "maxReplicas": 8},
    }
    ((_, name, message), _) = _found(_deployment(1), hpa, _claim(None), _pv(claim_ref=True))
    assert name == "Deployment/llama-server" and "HorizontalPodAutoscaler llama-hpa scales it up to 8" in message


def test_a_download_job_and_a_server_on_one_host_path_volume_are_advice_on_the_volume():
    # The one server is advised on its own too (the single-server form).
    (_, (level, name, message)) = _found(_deployment(1), _job(), _claim(), _pv())
    assert (level, name) == ("advisory", "PersistentVolume/models-pv")
    assert "mounted by Deployment llama-server, Job download-model" in message


def test_one_model_server_alone_on_a_host_path_volume_is_advice_on_the_volume_and_the_server():
    # Set 34 kimduquan/JavaEE OpenUP/Ollama/ollama.yaml: one replica alone on the volume. Held silent until session 47;
    # labellers label it (a reschedule lands the pod on a node whose own directory is empty, the pulled models gone).
    found = _found(_deployment(1), _claim(), _pv())
    assert [(level, name) for level, name, _ in found] == [
        ("advisory", "Deployment/llama-server"),
        ("advisory", "PersistentVolume/models-pv"),
    ]
    assert "nothing pins this model server's pod to one node" in found[0][2]
    assert "is mounted by Deployment llama-server, which nothing pins to one node" in found[1][2]


def _by_class(pv_class, claim_class, **claim_spec):
    pv, claim = _pv(), _claim(None)
    if pv_class is not None:
        pv["spec"]["storageClassName"] = pv_class
    if claim_class is not None:
        claim["spec"]["storageClassName"] = claim_class
    claim["spec"].update(claim_spec)
    return pv, claim


def test_a_claim_matched_by_storage_class_binds_without_a_volume_name():
    # The static form tutorials write (mhprasanna-spec/zzzzz "pv+pvc": PV ollama-pv, hostPath /mnt/ollama-data, and a
    # claim with no volumeName; the volume controller binds them by class, modes and size).
    for pv_class, claim_class in (("manual", "manual"), (None, None), (None, "")):
        pv, claim = _by_class(pv_class, claim_class)
        assert [name for _, name, _ in _found(_deployment(1), claim, pv)] == [
            "Deployment/llama-server",
            "PersistentVolume/models-pv",
        ], (pv_class, claim_class)


def test_a_claim_the_controller_would_not_match_is_not_joined():
    assert _found(_deployment(), *_by_class("manual", "fast-ssd")) == []
    assert _found(_deployment(), *_by_class(None, "standard")) == []
    assert _found(_deployment(), *_by_class("manual", "manual", accessModes=["ReadWriteMany"])) == []
    assert _found(_deployment(), *_by_class("manual", "manual", resources={"requests": {"storage": "500Gi"}})) == []
    selected = {"matchLabels": {"type": "nvme"}}
    assert _found(_deployment(), *_by_class("manual", "manual", selector=selected)) == []
    # A PV already reserved for another claim.
    pv, claim = _by_class("manual", "manual")
    pv["spec"]["claimRef"] = {"name": "other", "namespace": "default"}
    assert _found(_deployment(), claim, pv) == []


def test_careful_forms_stay_silent():
    # One pod that is no model server (a busybox), alone on the volume: advice on the PV only.
    busybox = _deployment(1)
    busybox["spec"]["template"]["spec"] = _pod("busybox:1.36")
    assert [name for _, name, _ in _found(busybox, _claim(), _pv())] == ["PersistentVolume/models-pv"]
    # One model server pinned to the node that holds the path; the PV pinned there too.
    pinned = _deployment(1)
    pinned["spec"]["template"]["spec"]["nodeSelector"] = {"kubernetes.io/hostname": "gpu-1"}
    assert _found(pinned, _claim(), _pv()) == []
    assert _found(pinned, _claim(), _pv(affinity=True)) == []
    assert _found(_deployment(1), _claim(), _pv(affinity=True)) == []
    # A local PV (spec.local) with nodeAffinity.
    local = _pv(affinity=True)
    local["spec"]["local"] = local["spec"].pop("hostPath")
    assert _found(_deployment(), _claim(), local) == []
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


def test_read_only_device_paths_of_a_serving_pod_stay_silent():
    # A device plugin's or a GPU runtime's device nodes mounted read-only from the host (/dev/dri, /dev/infiniband):
    # no hostPath rule of G31 judges them.
    pod = _pod("vllm/vllm-openai:v0.10.1")
    pod["containers"][0]["args"] = ["--model", "Qwen/Qwen3-8B"]
    pod["containers"][0]["volumeMounts"] = [
        {"name": "dri", "mountPath": "/dev/dri", "readOnly": True},
        {"name": "ib", "mountPath": "/dev/infiniband", "readOnly": True},
    ]
    pod["volumes"] = [
        {"name": "dri", "hostPath": {"path": "/dev/dri", "type": "Directory"}},
        {"name": "ib", "hostPath": {"path": "/dev/infiniband"}},
    ]
    server = _deployment(3)
    server["spec"]["template"]["spec"] = pod
    assert [f for f in found_by([server], "host-path-read-only")] == []
    assert [f for f in found_by([server], "host-path-volume-per-node")] == []
