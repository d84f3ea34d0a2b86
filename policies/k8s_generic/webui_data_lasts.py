"""G78: an Open WebUI keeps its data directory on a volume that outlives the container.

Open WebUI keeps its users, chats, settings, uploads and the first (admin) account in ``DATA_DIR`` (default
``BACKEND_DIR / "data"``, /app/backend/data in its image: open-webui/open-webui backend/open_webui/env.py@3773001f,
``DATA_DIR = Path(os.getenv("DATA_DIR", BACKEND_DIR / "data"))``), its SQLite database ``webui.db`` included unless
``DATABASE_URL`` points elsewhere. Without a volume there, all of it lives in the container's writable layer and is
lost at every restart (a new admin sign-up page, every account and conversation gone); on an emptyDir it is lost
whenever the pod is replaced (spent set 44 ullasasindhur/openwebui-ollama-eks k8s/webui.yaml: no volume, label filed
NONE).

Advice: a deployment may be meant to be throwaway. Judged on containers of the publisher's image
(ghcr.io/open-webui/open-webui); silent with a PersistentVolumeClaim, hostPath or other lasting volume at the data
directory or above it, and with a DATABASE_URL that is not SQLite.
"""

from __future__ import annotations

import posixpath

from components.images import image_repository
from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, container_label, containers, pod_specs
from policies.reading.engines import env_values, volume_at

_IMAGES = ("ghcr.io/open-webui/open-webui", "open-webui/open-webui")
_DEFAULT_DATA = "/app/backend/data"
_FRESH = ("emptyDir", "ephemeral")


def _check(resource: Resource, config: dict) -> list[str]:
    messages: list[str] = []
    for path, podspec in pod_specs(resource):
        for container in containers(podspec):
            if image_repository(str(container.get("image") or "")) not in _IMAGES:
                continue
            env = env_values(container)
            database = env.get("DATABASE_URL", "")
            if database and not database.startswith("sqlite"):
                continue
            data = posixpath.normpath(env.get("DATA_DIR", _DEFAULT_DATA))
            volume = volume_at(podspec, container, data)
            label = container_label(path, container)
            if volume is None:
                where = "the container's writable layer, lost at every restart"
            elif any(kind in volume for kind in _FRESH):
                where = f"the emptyDir {volume.get('name')}, lost whenever the pod is replaced"
            else:
                continue
            messages.append(
                unproven(
                    f"{label}: Open WebUI keeps its users, chats, settings and SQLite database in {data}, here "
                    f"{where}: the admin account and every conversation are gone after it; mount a "
                    f"PersistentVolumeClaim at {data} (or point DATABASE_URL at a database)"
                )
            )
    return messages


POLICY = Policy(
    name="webui-data-lasts",
    description=(
        "An Open WebUI keeps its data directory (/app/backend/data, DATA_DIR) on a volume that outlives the container (advice)."
    ),
    catalog="G78",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Mount a PersistentVolumeClaim at /app/backend/data (or DATA_DIR), or set DATABASE_URL to a database.",
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "Open WebUI stores users, chats and its SQLite database under DATA_DIR (/app/backend/data by default: "
        "open-webui/open-webui backend/open_webui/env.py); the container's writable layer is discarded at restart."
    ),
)
