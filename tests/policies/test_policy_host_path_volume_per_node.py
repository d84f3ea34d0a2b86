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


def test_a_claim_matched_without_a_volume_name_may_bind():
    # Several claims may match one PV and the controller binds one of them: "may bind", not "is bound".
    ((_, name, message), _) = _found(_deployment(), *_by_class("manual", "manual"))
    assert name == "Deployment/llama-server"
    assert "PersistentVolumeClaim models-pvc matches (the controller may bind it to) PersistentVolume models-pv" in message


def test_a_claim_with_no_class_does_not_match_a_pv_of_a_class():
    # review47a item 5 (/tmp/review47a/g31-class-unset.yaml): an unset claim class is "" for the controller
    # (component-helpers storage/volume/pv_helpers.go FindMatchingVolume), or the default class admission sets; either
    # way it never binds a PV of class manual: the claim is provisioned dynamically, not on the hostPath, so the
    # workload is not advised. The PV is (session 49): spent set 61 farrukhshafique87/master-thesis-llm-kubernetes
    # @ kubernetes/base/storage/persistent-volume.yaml (PV ollama-pv, class manual, hostPath /var/lib/ollama) and
    # persistent-volume-claim.yaml (claim ollama-pvc, no class), labelled G31 on PersistentVolume/ollama-pv.
    for replicas in (1, 2):
        ((level, name, message),) = _found(_deployment(replicas), *_by_class("manual", None))
        assert (level, name) == ("advisory", "PersistentVolume/models-pv")
        assert "claim models-pvc, which Deployment llama-server (a model server) mounts, names no storageClassName" in message
        assert "never binds this PV" in message and "storageClassName: manual" in message


def test_a_claim_the_files_do_not_define_on_a_host_path_pv_is_advice_on_the_volume():
    # Spent set 51 HaxxonHax/ollama-k8s-RPi ollama/k8s/ollama-pv-volume.yaml and ollama-deployment.yaml: PV
    # ollama-pv-volume (class manual, hostPath /var/lib/k3s/pv/ollama-models, no nodeAffinity); the one Ollama replica
    # mounts claim ollama-pv-claim, which no file defines. Labelled G31 on PersistentVolume/ollama-pv-volume.
    pv = _pv()
    pv["spec"]["storageClassName"] = "manual"
    ((level, name, message),) = _found(_deployment(1), pv)
    assert (level, name) == ("advisory", "PersistentVolume/models-pv")
    assert "mounts claim models-pvc, which the files do not define and this PV may be bound to" in message
    ((_, _, message),) = _found(_deployment(1), _pv(claim_ref=True))
    assert "which the files do not define and this PV its claimRef names" in message


def test_an_unclaimed_host_path_pv_careful_forms_stay_silent():
    pinned = _deployment(1)
    pinned["spec"]["template"]["spec"]["nodeSelector"] = {"kubernetes.io/hostname": "gpu-1"}
    assert _found(pinned, *_by_class("manual", None)) == []
    assert _found(pinned, _pv()) == []
    assert _found(_deployment(1), _pv(affinity=True)) == []
    # A claim of the files that states another class (provisioned), or that another PV of the files takes.
    assert _found(_deployment(1), *_by_class("manual", "gp3")) == []
    pv, claim = _by_class("manual", None)
    other = _pv()
    other["metadata"]["name"] = "other-pv"
    other["spec"].pop("hostPath")
    other["spec"]["nfs"] = {"server": "nfs.local", "path": "/models"}
    assert _found(_deployment(1), claim, pv, other) == []
    # A claim that differs from the PV in more than its class (asks more than the PV holds).
    pv, claim = _by_class("manual", None, resources={"requests": {"storage": "500Gi"}})
    assert _found(_deployment(1), claim, pv) == []
    # The PV's claimRef names another claim; no model server at all.
    reserved = _pv()
    reserved["spec"]["claimRef"] = {"name": "other", "namespace": "default"}
    assert _found(_deployment(1), reserved) == []
    busybox = _deployment(1)
    busybox["spec"]["template"]["spec"] = _pod("busybox:1.36")
    assert _found(busybox, _pv()) == []


def test_a_claim_the_controller_would_not_match_is_not_joined():
    assert _found(_deployment(), *_by_class("manual", "fast-ssd")) == []
    assert _found(_deployment(), *_by_class("manual", "manual", volumeMode="Block")) == []
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
    # One pod that is no model server (a busybox, a database, a web UI), alone on the volume: its data, not models;
    # the one-user advice is for model servers, on the PV as on the workload (review47a item 10).
    busybox = _deployment(1)
    busybox["spec"]["template"]["spec"] = _pod("busybox:1.36")
    assert _found(busybox, _claim(), _pv()) == []
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
    # The same device paths on hostPath PVs (no nodeAffinity) bound to claims the pod mounts read-only: G31 joins a
    # claim to its PV, so this form reaches the rule (review47a item 10: the test above has no PV).
    pvs, claims = [], []
    for name, path in (("dri", "/dev/dri"), ("ib", "/dev/infiniband")):
        pv = _pv()
        pv["metadata"]["name"] = f"{name}-pv"
        pv["spec"]["hostPath"] = {"path": path}
        claim = _claim(f"{name}-pv")
        claim["metadata"]["name"] = f"{name}-pvc"
        pvs.append(pv)
        claims.append(claim)
    pod["volumes"] = [{"name": n, "persistentVolumeClaim": {"claimName": f"{n}-pvc", "readOnly": True}} for n in ("dri", "ib")]
    assert _found(server, *claims, *pvs) == []


def test_one_reader_of_a_model_named_host_path_is_advice_on_the_volume():
    """Session 51: donggi22/Capa-Agent k8s/05-agent.yaml (spent set 83, labelled G31): PV model-gguf-pv, hostPath
    /model-gguf, no nodeAffinity, mounted read-only by an agent (no model server image) that loads the GGUF in-process.
    The same pod writing there (its own data) stays silent, as does a read-only folder not named for models."""
    agent = _deployment(1)
    agent["spec"]["template"]["spec"] = _pod("ghcr.io/example/capa-agent:latest")
    agent["spec"]["template"]["spec"]["containers"][0]["volumeMounts"][0]["readOnly"] = True
    ((level, where, message),) = _found(agent, _claim(), _pv())
    assert level == "advisory" and where.endswith("PersistentVolume/models-pv")
    assert message.startswith("spec.hostPath /opt/models has no nodeAffinity and its claim default/models-pvc is mounted")
    writer = _deployment(1)
    writer["spec"]["template"]["spec"] = _pod("ghcr.io/example/capa-agent:latest")
    assert _found(writer, _claim(), _pv()) == []
    data = _pv()
    data["spec"]["hostPath"]["path"] = "/srv/app-data"
    assert _found(agent, _claim(), data) == []
