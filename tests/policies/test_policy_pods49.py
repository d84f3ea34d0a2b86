"""Session 49 (brief pods49): model-server pod rules that stopped at one form.

Each class is written from the third-party forms spent sets 64-66 labelled (cited repo@commit:path), with careful forms
that must stay silent:

- G27: every model-server, serving-app and chat UI container with no allowPrivilegeEscalation: false, published or not
  (dndeyeabsa-wq/k8s-llm-deployment@e9b7d221 manifests/04-deployment-ollama.yaml, belonghim/vllm-optimizer@957ed8cd
  openshift/vllm-dependency/base/vllm-inferenceservice.yaml, xuhuan51/llm-serving-stack@02e578f6
  deploy/vllm/vllm-pod.yaml).
"""

from __future__ import annotations

from tests.policies.policy_fixtures import found_by


def _deployment(name: str, pod: dict, labels: dict | None = None, namespace: str = "llm") -> dict:
    labels = labels or {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"selector": {"matchLabels": labels}, "template": {"metadata": {"labels": labels}, "spec": pod}},
    }


def _service(name: str, selector: dict, port: int, target: int | str, kind: str | None = None, ns: str = "llm") -> dict:
    spec: dict = {"selector": selector, "ports": [{"port": port, "targetPort": target}]}
    if kind:
        spec["type"] = kind
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": ns}, "spec": spec}


# -- G27: every serving container, published or not --------------------------------------------------------------------

# dndeyeabsa-wq/k8s-llm-deployment@e9b7d221f2adf34b63c7839c59b72d7740abf3e8 manifests/04-deployment-ollama.yaml
# (abridged): an Ollama Deployment with no securityContext, behind a ClusterIP Service only.
_OLLAMA = {
    "name": "ollama",
    "image": "ollama/ollama:latest",
    "ports": [{"containerPort": 11434, "name": "http"}],
    "volumeMounts": [{"name": "ollama-storage", "mountPath": "/root/.ollama"}],
}

# belonghim/vllm-optimizer@957ed8cddf17efa812aa80011d304e79938ba0cd openshift/vllm-dependency/base/
# vllm-inferenceservice.yaml (abridged): a KServe predictor model with no securityContext (OpenShift SCC assumed).
_ISVC = {
    "apiVersion": "serving.kserve.io/v1beta1",
    "kind": "InferenceService",
    "metadata": {"name": "llm-ov", "namespace": "llm"},
    "spec": {
        "predictor": {
            "model": {
                "modelFormat": {"name": "vLLM"},
                "runtime": "vllm-openvino-runtime",
                "storageUri": "oci://quay.io/joopark/ai1/modelcar-phi-4-mini-instruct-int4-ov",
                "args": ["--served-model-name=OpenVINO/Phi-4-mini-instruct-int4-ov", "--max-model-len=8192"],
            }
        }
    },
}

# xuhuan51/llm-serving-stack@02e578f6daa65a48e13b483c2fd5605ed8261db5 deploy/vllm/vllm-pod.yaml (abridged): a bare Pod
# whose labels a NodePort Service selects.
_POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "vllm-qwen-k8s", "labels": {"app": "vllm"}},
    "spec": {
        "containers": [
            {
                "name": "vllm",
                "image": "vllm/vllm-openai:latest",
                "args": ["--model", "/models/Qwen2.5-7B-Instruct-AWQ", "--port", "8000"],
                "ports": [{"containerPort": 8000}],
                "resources": {"limits": {"nvidia.com/gpu": 1}},
            }
        ]
    },
}


def test_g27_an_unpublished_ollama_with_no_security_context_is_advice():
    objs = [_deployment("ollama", {"containers": [_OLLAMA]}), _service("ollama", {"app": "ollama"}, 11434, 11434)]
    [(level, message)] = found_by(objs, "serving-privilege-escalation")
    assert level == "advisory"
    assert message.startswith(
        "container ollama: no securityContext.allowPrivilegeEscalation on this Ollama server (a caller of its API "
        "reaches it first)"
    )


def test_g27_a_kserve_predictor_with_no_security_context_is_advice():
    [(level, message)] = found_by([_ISVC], "serving-privilege-escalation")
    assert level == "advisory"
    assert message.startswith("spec.predictor.model: no securityContext.allowPrivilegeEscalation on this vLLM server")


def test_g27_a_bare_pod_is_published_by_the_node_port_service_selecting_its_own_labels():
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "vllm-svc"},
        "spec": {"type": "NodePort", "selector": {"app": "vllm"}, "ports": [{"port": 8000, "targetPort": 8000}]},
    }
    [(_, message)] = found_by([_POD, service], "serving-privilege-escalation")
    assert "on this vLLM server, published through Service vllm-svc (its NodePort type)" in message


def test_g27_one_finding_per_container_and_pod_level_settings_do_not_stand_in():
    # runAsNonRoot at pod and container level does not set no_new_privs: still advice, once.
    pod = {"securityContext": {"runAsNonRoot": True}, "containers": [{**_OLLAMA, "securityContext": {"runAsNonRoot": True}}]}
    assert len(found_by([_deployment("ollama", pod)], "serving-privilege-escalation")) == 1
    # allowPrivilegeEscalation: true is named as such.
    pod = {"containers": [{**_OLLAMA, "securityContext": {"allowPrivilegeEscalation": True}}]}
    [(_, message)] = found_by([_deployment("ollama", pod)], "serving-privilege-escalation")
    assert message.startswith("container ollama: allowPrivilegeEscalation: true on this Ollama server")


def test_g27_careful_forms_stay_silent():
    # The flag set false; a privileged container (G26's finding); a container that serves no model (a sidecar).
    safe = {**_OLLAMA, "securityContext": {"allowPrivilegeEscalation": False}}
    assert found_by([_deployment("ollama", {"containers": [safe]})], "serving-privilege-escalation") == []
    privileged = {**_OLLAMA, "securityContext": {"privileged": True}}
    assert found_by([_deployment("ollama", {"containers": [privileged]})], "serving-privilege-escalation") == []
    sidecar = {"name": "exporter", "image": "prom/node-exporter:v1.8.2"}
    assert found_by([_deployment("ollama", {"containers": [safe, sidecar]})], "serving-privilege-escalation") == []
