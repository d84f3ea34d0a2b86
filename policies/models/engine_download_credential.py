"""S37 (engine credentials): a server whose engine needs a credential to download its model has one, or a cache.

The engine table states which variables an engine needs one of to download its model at start
(components/serving_engines.toml ``[engines.NAME.downloads] credentials``; NVIDIA NIM: NGC_API_KEY, "To use your API
key when starting the NIM container, you must make it available as an environment variable", NIM LLM docs
get-started/configuration). A container of such an engine that sets none of them (no ``env`` entry by that name, no
``envFrom`` that could carry it) and mounts no volume at the engine's cache folder that could already hold the model
(a claim, a host path, a CSI volume: "a serving container can start offline without an NGC key when its cache or local
model store already contains every required file", 2.1.5-pb7) cannot fetch its model profile and never becomes ready.

Spent set 33 funtastic1234/SkyGuardian k8s/nim.yaml@e620a00 embedding-nim (no NGC_API_KEY, no cache; labelled NONE,
blocking). Advice: NIMs from 2.0.10 on need the key only for Production Branch models (same page), and an image may
carry its model; a local model path (NIM_MODEL_PATH=/models/...) downloads nothing and is silent, as is an operator's
resource (the NIM Operator adds the key from its authSecret).
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, is_custom_type, name_of
from policies.reading.engines import EngineServer, cache_dirs, table_servers

# Volume sources whose files may be there before the pod starts (an emptyDir or a memory volume starts empty).
_PREFILLED = (
    "persistentVolumeClaim",
    "hostPath",
    "csi",
    "nfs",
    "ephemeral",
    "image",
    "awsElasticBlockStore",
    "gcePersistentDisk",
    "azureDisk",
    "azureFile",
)


def _credential_set(container: Mapping, names: tuple[str, ...]) -> bool:
    """True when the container names one of ``names`` in its env, or takes envFrom a source that may carry it."""
    if as_list(container.get("envFrom")):
        return True
    return any(name_of(item) in names for item in as_list(container.get("env")))


def _cache_mounted(server: EngineServer, dirs: tuple[str, ...]) -> bool:
    """True when a volume that may hold files before the pod starts is mounted at (or above) a cache folder."""
    kinds = {n: as_dict(v) for v in as_list(server.podspec.get("volumes")) if isinstance(n := as_dict(v).get("name"), str)}
    for mount in as_list(server.container.get("volumeMounts")):
        path = str(as_dict(mount).get("mountPath") or "").rstrip("/") or "/"
        name = as_dict(mount).get("name")
        volume = kinds.get(name, {}) if isinstance(name, str) else {}
        if not any(k in volume for k in _PREFILLED):
            continue
        if not dirs or any(d == path or d.startswith(path + "/") or path.startswith(d.rstrip("/") + "/") for d in dirs):
            return True
    return False


def _judge(server: EngineServer) -> list[str]:
    row = server.row
    spec = row.downloads if row is not None else None
    if row is None or spec is None or not spec.credentials:
        return []
    if server.model and posixpath.isabs(server.model):
        return []  # a local model: nothing is downloaded
    if _credential_set(server.container, spec.credentials):
        return []
    dirs = cache_dirs(server.container, server.args, row)
    if _cache_mounted(server, dirs):
        return []
    names = " or ".join(spec.credentials)
    where = dirs[0] if dirs else "its cache folder"
    return [
        unproven(
            f"{server.label}: {row.display} downloads its model from {spec.source} at start and needs {names} for it, "
            f"but the container sets no {names} and mounts nothing at {where} that could already hold the model, so "
            f"the download is refused and the server never becomes ready; set env {spec.credentials[0]} from a Secret "
            f"(valueFrom.secretKeyRef), or mount a volume pre-filled with the model at {where}"
        )
    ]


def _check(resource: Resource, config: dict) -> list[str]:
    if is_custom_type(resource.type):
        return []  # an operator's resource: the operator adds the credential (the NIM Operator's authSecret)
    return [m for server in table_servers(resource) for m in _judge(server)]


POLICY = Policy(
    name="engine-download-credential",
    description=(
        "A server whose engine needs a credential to download its model (the engine table's downloads credentials: "
        "NIM's NGC_API_KEY) sets it, or mounts a cache that may already hold the model."
    ),
    catalog="S37",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Set `env: [{name: NGC_API_KEY, valueFrom: {secretKeyRef: {name: ngc-api, key: NGC_API_KEY}}}]` on the NIM "
        "container (a Secret created out of band), or mount a claim pre-filled with the model at /opt/nim/.cache."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "NIM downloads its model profile from NGC at start with the NGC_API_KEY the container is given (NIM LLM docs, "
        "get-started/configuration); without it, and without a cache holding the model, the start fails."
    ),
)
