"""G78 webui-data-lasts: an Open WebUI keeps its data directory on a volume that outlives the container.

Open WebUI's DATA_DIR defaults to BACKEND_DIR / "data", /app/backend/data in its image (open-webui/open-webui
backend/open_webui/env.py@3773001f), where its SQLite database, users and chats live.
Fires: spent set 44 (label filed NONE) ullasasindhur/openwebui-ollama-eks k8s/webui.yaml@ddc617a0, no volume at all;
the same on an emptyDir (lost when the pod is replaced).
Careful forms stay silent: arunudaiyar/openweb-ollama-k8s webui-deploy.yaml@85349490 (spent set 39, PVC webui-pvc at
/app/backend/data), a DATA_DIR moved onto a mounted claim, and DATABASE_URL on PostgreSQL.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

G78 = "webui-data-lasts"

# ullasasindhur/openwebui-ollama-eks k8s/webui.yaml@ddc617a0, cut.
WEBUI = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "open-webui-deployment"},
    "spec": {
        "selector": {"matchLabels": {"app": "open-webui"}},
        "template": {
            "metadata": {"labels": {"app": "open-webui"}},
            "spec": {
                "containers": [
                    {
                        "name": "open-webui",
                        "image": "ghcr.io/open-webui/open-webui:main",
                        "ports": [{"containerPort": 8080}],
                        "env": [{"name": "OLLAMA_BASE_URL", "value": "http://ollama:11434"}],
                    }
                ]
            },
        },
    },
}


def _with_volume(volume: dict, mount: str = "/app/backend/data", env: list[dict] | None = None) -> dict:
    webui = copy.deepcopy(WEBUI)
    pod = webui["spec"]["template"]["spec"]
    pod["volumes"] = [{"name": "webui-data", **volume}]
    pod["containers"][0]["volumeMounts"] = [{"name": "webui-data", "mountPath": mount}]
    pod["containers"][0]["env"] += env or []
    return webui


def test_no_volume_loses_everything_at_restart() -> None:
    assert found_by([WEBUI], G78) == [
        (
            "advisory",
            "container open-webui: Open WebUI keeps its users, chats, settings and SQLite database in /app/backend/data, "
            "here the container's writable layer, lost at every restart: the admin account and every conversation are "
            "gone after it; mount a PersistentVolumeClaim at /app/backend/data (or point DATABASE_URL at a database)",
        )
    ]


def test_empty_dir_loses_everything_with_the_pod() -> None:
    [(level, message)] = found_by([_with_volume({"emptyDir": {}})], G78)
    assert level == "advisory" and "here the emptyDir webui-data, lost whenever the pod is replaced" in message


def test_lasting_volume_or_external_database_stays_silent() -> None:
    claim = {"persistentVolumeClaim": {"claimName": "webui-pvc"}}
    assert found_by([_with_volume(claim)], G78) == []
    moved = _with_volume(claim, mount="/data", env=[{"name": "DATA_DIR", "value": "/data/webui"}])
    assert found_by([moved], G78) == []
    postgres = copy.deepcopy(WEBUI)
    postgres["spec"]["template"]["spec"]["containers"][0]["env"].append(
        {"name": "DATABASE_URL", "value": "postgresql://webui@postgres:5432/webui"}
    )
    assert found_by([postgres], G78) == []
