"""S30 single-attach-volume-rolls when the claim is in a file the set does not hold (advice).

Third-party forms (held-out set 10, now development material, /work/eval10/PROVENANCE.md): idvoretskyi/ollama-k8s
k8s/standard/deployment.yaml@1d0dfc65052f5cc036894e5342aecf4de86f5e7f (Ollama, claim ollama-pvc in k8s/standard/
pvc.yaml, not in the set) and sriharshapy/NVIDIA_triton-trtllm-prometheus-k8s- k8s/deployment.yaml@aa33db1e (Triton,
claim model-storage), both with the default RollingUpdate. Minimal hand-written forms below.
"""

import copy

from policy_fixtures import manifest

from policies.gpu.single_attach_rollout import POLICY
from policies.registry import evaluate

OLLAMA = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "ollama", "namespace": "ollama"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "ollama"}},
        "template": {
            "metadata": {"labels": {"app": "ollama"}},
            "spec": {
                "containers": [
                    {
                        "name": "ollama",
                        "image": "ollama/ollama:0.5.7",
                        "volumeMounts": [{"name": "ollama-data", "mountPath": "/root/.ollama"}],
                    }
                ],
                "volumes": [{"name": "ollama-data", "persistentVolumeClaim": {"claimName": "ollama-pvc"}}],
            },
        },
    },
}


def _found(*objs):
    return [(v.enforcement, v.message) for v in evaluate([manifest(o) for o in objs], None, policies=[POLICY])]


def test_a_model_server_on_a_claim_outside_the_set_is_advice():
    ((level, message),) = _found(OLLAMA)
    assert level == "advisory" and "ollama-pvc is not in the files read" in message


def test_the_claim_in_another_file_of_the_set_is_read():
    pvc = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "ollama-pvc", "namespace": "ollama"},
        "spec": {"accessModes": ["ReadWriteMany"], "resources": {"requests": {"storage": "50Gi"}}},
    }
    assert _found(OLLAMA, pvc) == []


def test_careful_forms_stay_silent():
    recreate = copy.deepcopy(OLLAMA)
    recreate["spec"]["strategy"] = {"type": "Recreate"}
    assert _found(recreate) == []
    shared = copy.deepcopy(OLLAMA)
    shared["spec"]["template"]["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"] = "efs-models"
    assert _found(shared) == []
    read_only = copy.deepcopy(OLLAMA)
    read_only["spec"]["template"]["spec"]["containers"][0]["volumeMounts"][0]["readOnly"] = True
    assert _found(read_only) == []
    not_a_server = copy.deepcopy(OLLAMA)
    not_a_server["spec"]["template"]["spec"]["containers"][0]["image"] = "postgres:16.4"
    assert _found(not_a_server) == []


def _claim(volume_name=None):
    spec = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "50Gi"}}}
    if volume_name:
        spec["volumeName"] = volume_name
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "ollama-pvc", "namespace": "ollama"},
        "spec": spec,
    }


def _pv(source: dict, claim_ref: bool = False):
    spec = {"capacity": {"storage": "50Gi"}, "accessModes": ["ReadWriteOnce"], **source}
    if claim_ref:
        spec["claimRef"] = {"name": "ollama-pvc", "namespace": "ollama"}
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "models-pv"}, "spec": spec}


def test_a_host_path_or_local_volume_has_nothing_to_attach():
    # Set 38 (held out, measured at the freeze, then read): sandervanvugt/kubeai llama-deployment.yaml and
    # models-pv-pvc.yaml@c34ba5cf24574ae2cbf98c98847d665ef41d70a0: two replicas on a claim bound by volumeName to a
    # hostPath PV; no attach, so no Multi-Attach error (what goes wrong there is G31's: each node's own directory).
    two = copy.deepcopy(OLLAMA)
    two["spec"]["replicas"] = 2
    two["spec"]["template"]["spec"]["topologySpreadConstraints"] = [
        {"topologyKey": "kubernetes.io/hostname", "maxSkew": 1, "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {}}
    ]
    assert [lv for lv, _ in _found(two, _claim())] == ["mandatory"]
    assert _found(two, _claim("models-pv"), _pv({"hostPath": {"path": "/opt/models"}})) == []
    local = {"local": {"path": "/mnt/disks/ssd1"}, "nodeAffinity": {"required": {"nodeSelectorTerms": []}}}
    assert _found(two, _claim(), _pv(local, claim_ref=True)) == []
    # A network volume bound the same way still attaches to one node.
    assert [
        lv for lv, _ in _found(two, _claim("models-pv"), _pv({"csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-1"}}))
    ] == ["mandatory"]
