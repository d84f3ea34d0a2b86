"""LLM app settings that open access or leak data (brief appsettings52), and Open WebUI's debug logging (S36).

S36: Open WebUI's ``GLOBAL_LOG_LEVEL=DEBUG`` (open-webui/open-webui b8912aa67 (0.6.18) backend/open_webui/env.py:69-76,
components/debug_switches.toml); spent set 91 thaynes43/haynes-ops@55ae48c8
kubernetes/main/apps/ai/open-webui/app/helmrelease.yaml and nachtschatt3n/cberg-home-nextgen@b70c8e9b
kubernetes/apps/ai/open-webui/app/helmrelease.yaml (extraEnvVars of the open-webui chart). Silent: INFO, and the same
variable on a container that is not Open WebUI.
"""

from __future__ import annotations

from policy_fixtures import found_by

S36 = "debug-switches-off"


def _deployment(container: dict, name: str = "s", labels: dict | None = None, pod: dict | None = None) -> dict:
    labels = labels or {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {**(pod or {}), "containers": [container]}},
        },
    }


def _webui(env: dict[str, str], image: str = "ghcr.io/open-webui/open-webui:0.6.18") -> dict:
    return {
        "name": "open-webui",
        "image": image,
        "ports": [{"containerPort": 8080}],
        "env": [{"name": k, "value": v} for k, v in env.items()],
    }


def test_open_webui_debug_logging_is_advice():
    ((level, message),) = found_by([_deployment(_webui({"GLOBAL_LOG_LEVEL": "DEBUG"}))], S36)
    assert level == "advisory"
    assert message.startswith("container open-webui: env GLOBAL_LOG_LEVEL=DEBUG sets Open WebUI's root logger to DEBUG")
    assert found_by([_deployment(_webui({"GLOBAL_LOG_LEVEL": "INFO"}))], S36) == []
    other = {"name": "api", "image": "ghcr.io/acme/api:1.0", "env": [{"name": "GLOBAL_LOG_LEVEL", "value": "DEBUG"}]}
    assert found_by([_deployment(other)], S36) == []
