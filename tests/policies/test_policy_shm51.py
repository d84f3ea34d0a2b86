"""Pod-level facts of serving pods in the forms third parties write them (brief shm51).

Firing forms, from spent sets:
- S36: LiteLLM's ``--detailed_debug`` (click flag with envvar DETAILED_DEBUG, litellm 1.77.7 wheel
  litellm/proxy/proxy_cli.py:349-356, :805-806; proxy_server.py:3333-3344 sets its loggers to DEBUG; set 84
  brianmlasky/serverless-agentic-platform@8200cc88 k8s/litellm/deployment.yaml, args [--config, /app/config.yaml,
  --port, "4000", --detailed_debug]).

Careful forms that stay silent: LiteLLM with --debug only (INFO, proxy_server.py:3320-3332), DETAILED_DEBUG=false.
"""

from __future__ import annotations

from policy_fixtures import found_by

S36 = "debug-switches-off"


def _deployment(container: dict) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "litellm-gateway"},
        "spec": {
            "selector": {"matchLabels": {"app": "g"}},
            "template": {"metadata": {"labels": {"app": "g"}}, "spec": {"containers": [container]}},
        },
    }


def _litellm(args: list, env: list | None = None) -> dict:
    return {
        "name": "litellm",
        "image": "docker.io/litellm/litellm:v1.84.0",
        "args": args,
        "env": env or [{"name": "STORE_MODEL_IN_DB", "value": "true"}],
        "ports": [{"containerPort": 4000}],
        "readinessProbe": {"httpGet": {"path": "/health/readiness", "port": 4000}},
        "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"cpu": "2", "memory": "2Gi"}},
    }


def test_litellm_detailed_debug_flag_is_advice():
    args = ["--config", "/app/config.yaml", "--port", "4000", "--detailed_debug"]
    ((level, message),) = found_by([_deployment(_litellm(args))], S36)
    assert level == "advisory"
    assert message.startswith("container litellm: --detailed_debug sets the LiteLLM proxy's package, router and proxy")


def test_litellm_detailed_debug_env_is_advice_once():
    env = [{"name": "DETAILED_DEBUG", "value": "True"}]
    ((level, message),) = found_by([_deployment(_litellm(["--detailed_debug"], env))], S36)
    assert level == "advisory" and "env DETAILED_DEBUG=True" in message


def test_litellm_careful_forms_stay_silent():
    assert found_by([_deployment(_litellm(["--config", "/app/config.yaml", "--debug"]))], S36) == []
    env = [{"name": "DETAILED_DEBUG", "value": "false"}]
    assert found_by([_deployment(_litellm(["--config", "/app/config.yaml"], env))], S36) == []
