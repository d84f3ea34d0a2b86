"""G6 readiness-waits-for-model on a serving-path app's probes (components/serving_apps.toml): a livenessProbe on
LiteLLM's database-checking /health/readiness, and a probe on /health, which calls every configured model (PyPI wheel
litellm 1.77.7 proxy/health_endpoints/_health_endpoints.py:412-512 health_endpoint, :731-787 health_readiness;
proxy/_types.py:455-469 public routes)."""

from __future__ import annotations

import pytest
from policy_fixtures import found_by

from components.serving_apps import load

POLICY = "readiness-waits-for-model"


def _litellm(liveness: str | None, readiness: str | None, env: list | None = None) -> dict:
    container: dict = {
        "name": "litellm",
        "image": "ghcr.io/berriai/litellm:main-v1.84.0",
        "args": ["--config", "/app/config.yaml", "--port", "4000"],
        "ports": [{"containerPort": 4000}],
        "env": env or [],
    }
    if liveness:
        container["livenessProbe"] = {"httpGet": {"path": liveness, "port": 4000}}
    if readiness:
        container["readinessProbe"] = {"httpGet": {"path": readiness, "port": 4000}}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "litellm"},
        "spec": {
            "selector": {"matchLabels": {"app": "litellm"}},
            "template": {"metadata": {"labels": {"app": "litellm"}}, "spec": {"containers": [container]}},
        },
    }


# brianmlasky/serverless-agentic-platform k8s/litellm-gateway-deployment.yaml (spent set 84, labelled G6): DATABASE_URL
# through a cloud-sql-proxy sidecar, liveness and readiness both on /health/readiness.
_DB = [{"name": "DATABASE_URL", "value": "postgresql://$(DB_USERNAME):$(DB_PASSWORD)@127.0.0.1:5432/$(DB_NAME)"}]


def test_liveness_on_the_database_checking_readiness_is_advice():
    found = found_by([_litellm("/health/readiness", "/health/readiness", _DB)], POLICY)
    assert [level for level, m in found if "fails liveness on every replica" in m] == ["advisory"], found


@pytest.mark.parametrize(
    "liveness, env",
    [
        ("/health/liveliness", _DB),  # the chart's form (and set 84's k8s/litellm-deployment.yaml)
        ("/health/liveness", _DB),
        ("/health/readiness", []),  # no database: readiness answers as liveliness does
    ],
)
def test_careful_liveness_is_silent(liveness, env):
    assert not [m for _, m in found_by([_litellm(liveness, "/health/readiness", env)], POLICY)]


# Yusful33/sa-call-analyzer infra/k8s/litellm-deployment.yaml@fbc9abfe79fac1c0bd1d6156f2cf7d226180d4ea (spent set 85,
# labelled blocking, none): liveness and readiness GET /health.
def test_a_probe_on_health_is_advice():
    found = found_by([_litellm("/health", "/health")], POLICY)
    assert [level for level, m in found if "calling every model" in m] == ["advisory"], found
    assert "livenessProbe and readinessProbe GET /health" in found[0][1]


def test_a_readiness_on_health_alone_is_advice():
    found = found_by([_litellm("/health/liveliness", "/health")], POLICY)
    assert len([m for _, m in found if "calling every model" in m and "out of the Service" in m]) == 1, found


def test_the_table_cites_the_probe_facts():
    litellm = next(a for a in load() if a.name == "litellm")
    assert litellm.calls_models == ("/health",)
    assert "_health_endpoints.py:412" in dict(litellm.sources)["probes"]


# G92 litellm-master-key-sent: the kubelet is a client that sends no key. With a master key the files prove, a probe
# on /health (not a public route: litellm 1.77.7 proxy/_types.py:455-469) is answered 401 (user_api_key_auth.py:589-602).
_KEY = [{"name": "LITELLM_MASTER_KEY", "value": "sk-1234"}]


@pytest.mark.parametrize("liveness, readiness, expected", [(None, "/health", 1), ("/health", "/health", 2)])
def test_a_keyless_probe_on_health_with_a_proven_master_key_blocks(liveness, readiness, expected):
    found = [(lvl, m) for lvl, m in found_by([_litellm(liveness, readiness, _KEY)], "litellm-master-key-sent") if "401" in m]
    assert [lvl for lvl, _ in found] == ["mandatory"] * expected, found


def test_a_probe_sending_a_header_or_a_key_the_files_do_not_show_does_not_block():
    with_header = _litellm(None, "/health", _KEY)
    probe = with_header["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]
    probe["httpGet"]["httpHeaders"] = [{"name": "Authorization", "value": "Bearer sk-1234"}]
    unseen = [{"name": "LITELLM_MASTER_KEY", "valueFrom": {"secretKeyRef": {"name": "litellm-secrets", "key": "k"}}}]
    for objs in ([with_header], [_litellm(None, "/health", unseen)], [_litellm(None, "/health/readiness", _KEY)]):
        assert not [m for _, m in found_by(objs, "litellm-master-key-sent") if "401" in m]
