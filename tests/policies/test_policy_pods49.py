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


# -- Engine recognition by the image repository's own name (image_names), S51 on it ------------------------------------


# hasb73/hdfs-anomaly-detection@ba263385cca23ab05e771571c2cbb292395573a4 k8s/vllm-deployment.yaml and
# k8s/vllm-service.yaml (abridged): vllm/vllm:latest given args only, no --port (vLLM's default 8000), while the
# containerPort and the Service's targetPort say 8080. The model is a docs' fill-in (/models/your-llm), which the reader
# turns into a placeholder: without a shell it stays one argument and moves no port.
def _hasb73(args: list[str] | None = None, image: str = "vllm/vllm:latest") -> list[dict]:
    container = {
        "name": "vllm",
        "image": image,
        "args": args if args is not None else ["--model", "/models/your-llm"],
        "ports": [{"containerPort": 8080}],
        "resources": {"limits": {"nvidia.com/gpu": 1}},
    }
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "vllm-deployment"},
        "spec": {
            "selector": {"matchLabels": {"app": "vllm"}},
            "template": {"metadata": {"labels": {"app": "vllm"}}, "spec": {"containers": [container]}},
        },
    }
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "vllm-service"},
        "spec": {"selector": {"app": "vllm"}, "type": "LoadBalancer", "ports": [{"port": 80, "targetPort": 8080}]},
    }
    return [deployment, service]


def test_s51_a_vllm_image_outside_the_publishers_repository_listening_on_its_default_port():
    [(level, message)] = found_by(_hasb73(), "service-port-reaches-server")
    assert level == "advisory"
    assert message.startswith(
        "spec.ports: port 80 targets 8080 on the pods of Deployment/vllm-deployment, where vLLM listens on 8000"
    )
    # The same under an owner's repository named after the engine, with no tag or by digest.
    for image in ("myorg/vllm", "registry.local:5000/ml/vllm-cuda12@sha256:" + "a" * 64, "vllm_tpu:v1"):
        assert len(found_by(_hasb73(image=image), "service-port-reaches-server")) == 1, image


def test_s51_careful_forms_stay_silent():
    # --port 8080 given; the engine's name in the owner only; another program named after the engine (a router).
    assert found_by(_hasb73(["--model", "/models/your-llm", "--port", "8080"]), "service-port-reaches-server") == []
    assert found_by(_hasb73(image="vllm-org/chat-api:1.2"), "service-port-reaches-server") == []
    assert found_by(_hasb73(image="myorg/vllm-router:1.2"), "service-port-reaches-server") == []


def _engines(container: dict) -> list[str]:
    from policies.reading.serving import model_servers
    from tests.policies.policy_fixtures import manifest

    return [s.engine for s in model_servers(manifest(_deployment("x", {"containers": [container]})))]


def test_image_names_recognise_the_engine_by_the_repository_name_and_a_command_that_runs_another_program_wins():
    gpu = {"resources": {"limits": {"nvidia.com/gpu": 1}}}
    assert _engines({"name": "a", "image": "ghcr.io/x/sglang-cu12@sha256:" + "b" * 64, **gpu}) == ["sglang"]
    assert _engines({"name": "a", "image": "myorg/vllm-cpu", "args": ["--model", "Qwen/Qwen3-0.6B"]}) == ["vllm"]
    assert _engines({"name": "a", "image": "myorg/lmdeploy:v1"}) == ["lmdeploy"]
    # Not the engine: a router or web UI named after it, a name in the owner only, a command of another program.
    assert _engines({"name": "a", "image": "myorg/sglang-router:1"}) == []
    assert _engines({"name": "a", "image": "myorg/ollama-webui:1"}) == []
    assert _engines({"name": "a", "image": "ghcr.io/homeiac/vllm-scripts:0835164"}) == []
    assert _engines({"name": "a", "image": "vllm-project/chat-api:1"}) == []
    assert _engines({"name": "a", "image": "myorg/vllm-cpu:1", "command": ["python", "app.py"]}) == []


def test_other_program_words_are_checked_words():
    import pytest

    from components.engine_image_names import IMAGE_NAMES, image_names_of, other_program_words

    assert "router" in other_program_words({"other_program_words": ["router"]})
    with pytest.raises(ValueError, match="other_program_words"):
        other_program_words({"other_program_words": ["vllm-router"]})
    with pytest.raises(ValueError, match=r"\[engines.vllm\].image_names"):
        image_names_of({"engines": {"vllm": {"image_names": ["VLLM"]}}})
    assert IMAGE_NAMES["vllm"] == ("vllm",) and "ollama" not in IMAGE_NAMES


# -- G4 router-readiness-probe: an app in front of model servers, itself published ---------------------------------


# Codewithaiyan/LLMesh@a2cfe6ec52adf8beb2b7b2c07667a62eee4f833d k8s/router-deployment.yaml and
# k8s/ollama-deployment.yaml (abridged): a router whose OLLAMA_PODS is the Ollama Service's URL, behind a NodePort
# Service of its own, with no readinessProbe.
def _llmesh(router_env: list[dict] | None = None, kind: str = "NodePort", probe: bool = False) -> list[dict]:
    ollama = {
        "name": "ollama",
        "image": "llmesh-ollama:latest",
        "ports": [{"containerPort": 11434}],
        "readinessProbe": {"httpGet": {"path": "/api/tags", "port": 11434}},
    }
    router = {
        "name": "router",
        "image": "llmesh-router:latest",
        "ports": [{"containerPort": 8000}],
        "env": router_env
        if router_env is not None
        else [{"name": "OLLAMA_PODS", "value": "http://ollama.llmesh.svc.cluster.local:11434"}],
    }
    if probe:
        router["readinessProbe"] = {"httpGet": {"path": "/health", "port": 8000}}
    return [
        _deployment("ollama", {"containers": [ollama]}, namespace="llmesh"),
        _service("ollama", {"app": "ollama"}, 11434, 11434, ns="llmesh"),
        _deployment("llmesh-router", {"containers": [router]}, namespace="llmesh"),
        _service("llmesh-router", {"app": "llmesh-router"}, 8000, 8000, kind=kind, ns="llmesh"),
    ]


def test_g4_a_published_router_in_front_of_ollama_with_no_readiness_probe_is_advice():
    [(level, message)] = found_by(_llmesh(), "router-readiness-probe")
    assert level == "advisory"
    assert message.startswith(
        "container router: no readinessProbe on this app in front of model servers (OLLAMA_PODS reaches Service ollama, "
        "which selects the Ollama server of Deployment/ollama), published through Service llmesh-router (its NodePort type)"
    )
    # A URL from a ConfigMap of the files, a short host in the router's own namespace.
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "router", "namespace": "llmesh"},
        "data": {"BACKEND_URL": "http://ollama:11434/api"},
    }
    objs = _llmesh([{"name": "BACKEND_URL", "valueFrom": {"configMapKeyRef": {"name": "router", "key": "BACKEND_URL"}}}])
    assert len(found_by([*objs, config], "router-readiness-probe")) == 1


def test_g4_router_careful_forms_stay_silent():
    # A readinessProbe; an unpublished router (ClusterIP); a URL that is no model server's Service; a CORS origin.
    assert found_by(_llmesh(probe=True), "router-readiness-probe") == []
    assert found_by(_llmesh(kind="ClusterIP"), "router-readiness-probe") == []
    assert found_by(_llmesh([{"name": "DB_URL", "value": "postgres://db.llmesh:5432/x"}]), "router-readiness-probe") == []
    origin = [{"name": "CORS_ALLOWED_ORIGINS", "value": "http://ollama.llmesh:11434"}]
    assert found_by(_llmesh(origin), "router-readiness-probe") == []
