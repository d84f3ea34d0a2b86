"""A rebuild of an engine's image under another name is the engine (engine table ``image_words``, with the row's port),
so its drain facts reach S10 and S8.

- Spent set 28 (labels S10 and S8): gkoufie1/local-llm-serving-k8s k8s/01-deployment.yaml and k8s/03-hpa.yaml, image
  llm-ollama-baked:latest built FROM ollama/ollama (its ollama-image/Dockerfile), serving on 11434, no preStop, an HPA
  scaling down after 60 s. Ollama closes its server on SIGTERM (ollama/ollama v0.32.15 server/routes.go L2021-2030).
  The base image's OLLAMA_HOST=0.0.0.0 (Dockerfile L317) holds in the rebuild: no S51 (the set's trap).
- Container-name form: spent set 28 tingyunw/llm-on-k8s llm/deployments/ollama.yml (labels S19, G4): container ollama
  running tingyunyun/llm-model:latest (built FROM ollama/ollama:0.7.0, its entrypoint pulls deepseek-r1:1.5B) on 11434.
- Second form: hdiazf/ollama_mlops k8s/ollama-deployment.yaml@32ef154 (ollama-mlops-ollama:latest, 11434), cut
  without its OLLAMA_HOST (which its base image sets anyway).
- Careful forms: clients whose image names the word but serve elsewhere, hdiazf/ollama_mlops
  k8s/backend-deployment.yaml@32ef154 (ollama-mlops-backend:latest on 8000) and vikpl21/ollama-k8s-mlops
  k8s/fastapi/deployment.yaml@faea9b7 (ollama-fastapi:v1.0 on 8000); an HPA at the 300 s floor.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by, manifest

from policies.reading.serving import model_servers

S10, S8, S51 = "termination-drains-streams", "llm-hpa-behavior", "server-listens-on-pod-ip"


def _deployment(name: str, container: dict) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "llm-serving"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
        },
    }


def _http(path: str, port: int) -> dict:
    return {"httpGet": {"path": path, "port": port}, "periodSeconds": 10}


# gkoufie1/local-llm-serving-k8s k8s/01-deployment.yaml, cut to the Ollama container.
BAKED = _deployment(
    "llm-serving",
    {
        "name": "ollama",
        "image": "llm-ollama-baked:latest",
        "imagePullPolicy": "Never",
        "ports": [{"containerPort": 11434}],
        "resources": {"requests": {"cpu": "250m", "memory": "512Mi"}, "limits": {"cpu": "1", "memory": "1Gi"}},
        "readinessProbe": _http("/", 11434),
        "livenessProbe": _http("/", 11434),
    },
)
# gkoufie1/local-llm-serving-k8s k8s/03-hpa.yaml.
HPA = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "llm-serving", "namespace": "llm-serving"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "llm-serving"},
        "minReplicas": 1,
        "maxReplicas": 6,
        "metrics": [
            {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}
        ],
        "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}},
    },
}
# hdiazf/ollama_mlops k8s/ollama-deployment.yaml@32ef154, without OLLAMA_HOST.
MLOPS = _deployment(
    "ollama",
    {
        "name": "ollama",
        "image": "ollama-mlops-ollama:latest",
        "ports": [{"containerPort": 11434}],
        "resources": {"requests": {"memory": "16Gi", "cpu": "1000m"}, "limits": {"memory": "16Gi", "cpu": "2000m"}},
        "livenessProbe": {**_http("/api/tags", 11434), "initialDelaySeconds": 60, "periodSeconds": 30},
    },
)


def _client(name: str, image: str) -> dict:
    return _deployment(
        name,
        {"name": name, "image": image, "ports": [{"containerPort": 8000}], "readinessProbe": _http("/health", 8000)},
    )


# tingyunw/llm-on-k8s llm/deployments/ollama.yml.
NAMED = _deployment("ollama", {"name": "ollama", "image": "tingyunyun/llm-model:latest", "ports": [{"containerPort": 11434}]})


def test_a_rebuilt_ollama_image_serving_on_11434_is_ollama():
    for deployment in (BAKED, MLOPS, NAMED):
        [server] = model_servers(manifest(deployment))
        assert server.engine == "ollama"


def test_its_drain_and_its_hpa_window_are_advice_and_its_bind_is_the_base_image_s():
    drains = found_by([BAKED, HPA], S10)
    assert drains and all(level == "advisory" for level, _ in drains)
    assert any("on SIGTERM Ollama stops at once and its in-flight requests fail" in m for _, m in drains)
    assert found_by([BAKED, HPA], S8) == [
        (
            "advisory",
            "spec.behavior.scaleDown.stabilizationWindowSeconds = 60 is below 300 s: every scale-in on a short dip stops a "
            "replica, and Ollama drops the requests in flight on SIGTERM (engine table drain: aborts), so frequent "
            "scale-ins cut running generations",
        )
    ]
    assert found_by([BAKED, HPA], S51) == []
    [(level, message)] = found_by([NAMED], "serving-readiness-probe")
    assert level == "advisory" and message.startswith("container ollama: no readinessProbe on this ollama server")
    assert found_by([NAMED], S51) == []


def test_clients_naming_the_word_and_a_patient_hpa_are_silent():
    for client in (
        _client("backend", "ollama-mlops-backend:latest"),
        _client("fastapi-app", "docker.io/library/ollama-fastapi:v1.0"),
    ):
        assert model_servers(manifest(client)) == []
        assert found_by([client], S10) == []
    patient = copy.deepcopy(HPA)
    patient["spec"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"] = 300
    assert found_by([BAKED, patient], S8) == []


def test_a_proxy_named_ollama_is_not_ollama():
    # Review 41 item 18: an nginx reverse proxy named `ollama` on 11434 in front of the real server (an auth-proxy
    # form) is not a rebuild of Ollama; a private image under the same name still is (NAMED above).
    # (Open WebUI stays Ollama: its :ollama image bundles the server.)
    for image in ("nginx:1.27.0", "envoyproxy/envoy:v1.31.0", "ghcr.io/berriai/litellm:main-v1.55.0"):
        proxy = _deployment("ollama-gateway", {"name": "ollama", "image": image, "ports": [{"containerPort": 11434}]})
        assert model_servers(manifest(proxy)) == [], image
    assert model_servers(manifest(NAMED))
