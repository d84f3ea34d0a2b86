"""Edges of session 48 cycle 2 (brief edges48), each a generic third-party form that fires and a careful form that
stays silent.

- G4 serving-readiness-probe: a serving-path app whose readinessProbe GETs a path it answers as soon as its process runs
  (components/serving_apps.toml ``alive_only``: LiteLLM's /health/liveliness and /health/liveness return a constant
  text, while /health/readiness checks the database and answers 503 on failure: BerriAI/litellm
  litellm/proxy/health_endpoints/_health_endpoints.py@1376cc50f5a5ad69c2491ec926115a30283fa9d2, health_liveliness and
  health_readiness). Spent set 63 held the form: a LiteLLM Deployment with readiness on /health/liveliness.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by


def _deployment(name: str, pod: dict, namespace: str = "llm", labels: dict | None = None) -> dict:
    labels = labels or {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": pod},
        },
    }


# --- G4: readiness on a liveness path ---------------------------------------------------------------------------------


def _probe(path: str) -> dict:
    return {"httpGet": {"path": path, "port": 4000}, "periodSeconds": 10}


LITELLM = _deployment(
    "litellm",
    {
        "containers": [
            {
                "name": "litellm",
                "image": "ghcr.io/berriai/litellm-database:main-v1.74.0-stable",
                "args": ["--config", "/app/config.yaml", "--port", "4000"],
                "ports": [{"containerPort": 4000}],
                "readinessProbe": _probe("/health/liveliness"),
                "livenessProbe": _probe("/health/liveliness"),
                "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"memory": "2Gi"}},
            }
        ]
    },
)


def test_readiness_on_a_liveness_path_of_a_proxy_gets_advice():
    found = found_by([LITELLM], "serving-readiness-probe")
    assert found == [
        (
            "advisory",
            "container litellm: readinessProbe GETs /health/liveliness, which LiteLLM proxy answers as soon as its "
            "process runs (a liveness endpoint, no check of its database or configuration), so the pod is Ready and "
            "receives requests it cannot serve; probe GET /health/readiness",
        )
    ]
    kube_name = copy.deepcopy(LITELLM)
    kube_name["spec"]["template"]["spec"]["containers"][0]["readinessProbe"] = _probe("/health/liveness")
    assert len(found_by([kube_name], "serving-readiness-probe")) == 1


def test_readiness_on_the_readiness_path_is_silent():
    careful = copy.deepcopy(LITELLM)
    careful["spec"]["template"]["spec"]["containers"][0]["readinessProbe"] = _probe("/health/readiness")
    assert found_by([careful], "serving-readiness-probe") == []
    tcp = copy.deepcopy(LITELLM)
    tcp["spec"]["template"]["spec"]["containers"][0]["readinessProbe"] = {"tcpSocket": {"port": 4000}}
    assert found_by([tcp], "serving-readiness-probe") == []
