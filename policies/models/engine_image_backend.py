"""S56: a server's image ships the backend its files prove the models need.

Triton's NGC images come in flavours with different backends (components/serving_engines.toml [engines.triton]
image_backends, judged_backends; triton-inference-server/server v2.53.0 docs/customization_guide/compose.md L103-107:
the TensorRT-LLM and vLLM backends are not in the full YY.MM-py3 image but in YY.MM-trtllm-python-py3 and
YY.MM-vllm-python-py3). A model whose config.pbtxt says ``backend: "tensorrtllm"`` on the plain -py3 image fails to
load ("unable to find backend library for backend 'tensorrtllm'"): with the default model control mode Triton then
exits at start and the pod restarts in a loop; in explicit mode the load call fails and the pod serves nothing.

Proof is what the files say the models need, never a name or a comment: a config.pbtxt (``backend: "NAME"``) in a
ConfigMap of the files mounted into the container blocks; a ``--backend-config=NAME,...`` on the server's command line
shows the intent to serve such models (advice: the repository is not in the files). A container that brings the
backend itself is silent: its command line or a mounted script writes /opt/tritonserver/backends/NAME (the vLLM
backend is Python files copied there, vllm_backend README.md at 0144d33), a volume is mounted there, or
``--backend-directory`` points Triton elsewhere. The image must be the publisher's own (nvcr.io/nvidia/tritonserver) at a flavour the table lists: a rebuild
may add backends. Spent set 33 all-day-and-night/llm-serve k8s/triton/deployment.yaml@1873f15 (tritonserver:24.12-py3,
labelled NONE: the TRT-LLM engines can never load) shows the need only in a comment and a deployment name, so it stays
silent here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Optional

from components.images import image_repository, image_tag
from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, name_of
from policies.reading.engines import EngineServer, table_servers
from policies.reading.mounted_scripts import config_maps, mounted_scripts
from policies.reading.serving import container_argv

# The publisher's repositories whose tags name the flavour (YY.MM-<flavour>).
_PUBLISHER = ("nvcr.io/nvidia/tritonserver",)
_RELEASE_FLAVOUR = re.compile(r"^(\d{2}\.\d{2})-(.+)$")
_BACKEND_CONFIG = re.compile(r"^--backend-config=([A-Za-z0-9_]+),")
_PBTXT_BACKEND = re.compile(r"""(?m)^\s*backend\s*:\s*["']?([A-Za-z0-9_]+)["']?""")
# Where Triton looks for backends (its --backend-directory, default /opt/tritonserver/backends): a command line or a
# mounted script that writes a backend's folder there, a volume mounted there, or another backend directory means the
# container brings the backend itself. triton-inference-server/vllm_backend README.md (0144d33, "Build the vLLM
# Backend"): a Python backend needs no build, only its files copied to /opt/tritonserver/backends/vllm.
_BACKENDS_DIR = "/opt/tritonserver/backends"
_OTHER_BACKEND_DIR = re.compile(r"--backend-directory\b")


def _flavour(image: object) -> Optional[tuple[str, str]]:
    """(release, flavour) of a publisher's image reference, else None."""
    if not isinstance(image, str) or image_repository(image).lower() not in _PUBLISHER:
        return None
    found = _RELEASE_FLAVOUR.match((image_tag(image) or "").lower())
    return (found.group(1), found.group(2)) if found else None


def _needed(server: EngineServer) -> dict[str, tuple[str, bool]]:
    """Backend -> (the evidence that the server's models need it, whether it proves it: a model's config does; a
    --backend-config for the backend shows only the intent to serve such models)."""
    needed: dict[str, tuple[str, bool]] = {}
    argv = container_argv(server.container)
    for i, word in enumerate(argv):
        found = _BACKEND_CONFIG.match(word)
        if found is None and word == "--backend-config" and i + 1 < len(argv):
            found = re.match(r"^([A-Za-z0-9_]+),", argv[i + 1])
        if found:
            needed.setdefault(found.group(1).lower(), (f"--backend-config configures the {found.group(1)} backend", False))
    maps = config_maps(server.podspec)
    mounted = {name_of(m) for m in as_list(server.container.get("volumeMounts"))}
    for volume in as_list(server.podspec.get("volumes")):
        volume = as_dict(volume)
        name = name_of(volume.get("configMap"))
        if name_of(volume) not in mounted or name not in maps:
            continue
        items = as_list(as_dict(volume.get("configMap")).get("items"))
        # key -> the file name it is projected as (its own name without items)
        projected = {name_of(i, "key"): str(name_of(i, "path") or "") for i in items}
        for key, text in sorted(maps[name].items()):
            file = projected.get(key) if items else str(key)
            if file is None or not (file.endswith("pbtxt") or str(key).endswith("pbtxt")):
                continue  # (a model's config is config.pbtxt; an app's YAML may say `backend: vllm` too)
            for backend in _PBTXT_BACKEND.findall(text):
                needed[backend.lower()] = (f"ConfigMap {name} key {key} (mounted here) says backend: {backend}", True)
    return needed


def _brings_own(server: EngineServer, backend: str) -> bool:
    """True when the container installs or mounts ``backend`` itself, or points Triton at another backend directory."""
    texts = [" ".join(container_argv(server.container)), *mounted_scripts(server.podspec, server.container)]
    if any(_OTHER_BACKEND_DIR.search(t) or f"{_BACKENDS_DIR}/{backend}" in t for t in texts):
        return True
    return any(
        str(as_dict(m).get("mountPath") or "").rstrip("/") in (_BACKENDS_DIR, f"{_BACKENDS_DIR}/{backend}")
        for m in as_list(server.container.get("volumeMounts"))
    )


def _judge(server: EngineServer) -> list[str]:
    row = server.row
    if row is None or not row.judged_backends:
        return []
    image = server.container.get("image")
    flavour = _flavour(image)
    ships = dict(row.image_backends)
    if flavour is None or flavour[1] not in ships:
        return []
    release, kind = flavour
    messages = []
    for backend, (evidence, proven) in sorted(_needed(server).items()):
        if backend not in row.judged_backends or backend in ships[kind] or _brings_own(server, backend):
            continue
        home = next((f for f, b in row.image_backends if backend in b), None)
        fix = f"use nvcr.io/nvidia/tritonserver:{release}-{home}" if home else "use an image that ships it"
        message = (
            f"{server.label}: image {image} is {row.display}'s {kind} flavour, which ships no {backend} backend, but "
            f"{evidence}: the model fails to load (unable to find the {backend} backend library), so Triton exits at "
            f"start in its default model control mode, or serves nothing in explicit mode; {fix}"
        )
        messages.append(message if proven else unproven(message))
    return messages


def _check(resource: Resource, config: Mapping) -> list[str]:
    return [m for server in table_servers(resource) for m in _judge(server)]


POLICY = Policy(
    name="engine-image-has-backend",
    description=(
        "A Triton server's image flavour ships the backend its files prove the models need (tensorrtllm, vllm: "
        "the engine table's image_backends)."
    ),
    catalog="S56",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Serve TensorRT-LLM models from nvcr.io/nvidia/tritonserver:<YY.MM>-trtllm-python-py3 and vLLM models from "
        "<YY.MM>-vllm-python-py3; the plain <YY.MM>-py3 image has neither backend."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "Triton loads a model through the backend its config names and fails the load when the image has no such "
        "backend (triton-inference-server/server docs/customization_guide/compose.md at v2.53.0: TensorRT-LLM and "
        "vLLM are in their own images)."
    ),
)
