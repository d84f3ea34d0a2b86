"""G74 (a GPU stack's variable): a ROCm setting on a model server whose image is built for another GPU backend.

``HSA_OVERRIDE_GFX_VERSION`` (and its per-node form ``HSA_OVERRIDE_GFX_VERSION_<node>``) tells ROCm's kernel-driver
thunk which gfx target to report for an AMD GPU (ROCm/ROCR-Runtime@c7785a6da1c10c25bc8d527c00b1fe79bfbd84c9
libhsakmt/src/topology.c:1218-1224, read with getenv while the topology is built): only a process that loads ROCm's
runtime reads it. An image whose tag names another GPU backend (``-vulkan``, ``-cuda``: llama.cpp's and llama-swap's
build tags, the GPU API the server is compiled against) loads no ROCm runtime, so the override the author meant (an
unsupported RDNA part run as a supported one) never applies, and whatever the Vulkan or CUDA build does with the GPU is
unchanged. Spent set 111 rrumana/k8s-homelab-2@3e8775d5 cluster/apps/ai/llama-backend/llama-static-a-deployment.yaml:
``HSA_OVERRIDE_GFX_VERSION=11.5.1`` on mostlygeek/llama-swap:v174-vulkan.

Advice, on model servers only. Silent: a tag naming ROCm or HIP (``ollama/ollama:rocm``: spent set 107
dysonfrost/arkollama-k3s@6d0bfad9 k8s/ollama/deployment.yaml), a tag naming no backend (``latest``: the image may
carry ROCm), a variable the container's command, args or hooks name (a script's).
"""

from __future__ import annotations

import json
import re

from components.images import image_tag
from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, as_dict, as_list
from policies.reading.serving import model_servers

_ROCM_ONLY = re.compile(r"^HSA_OVERRIDE_GFX_VERSION(?:_\d+)?$")
# Words of an image tag that name the GPU API the build uses; a tag holding a ROCm word is never judged.
_OTHER_BACKENDS = {"vulkan": "Vulkan", "cuda": "CUDA"}
_ROCM_WORDS = frozenset({"rocm", "hip", "hipblas", "amd"})


def _backend(image: object) -> str | None:
    """The non-ROCm GPU backend an image's tag names (``v174-vulkan``: Vulkan), None where it names none or ROCm."""
    tag = image_tag(image) if isinstance(image, str) else None
    if not tag:
        return None
    words = {w for w in re.split(r"[-_.]", tag.lower()) if w}
    words |= {w.rstrip("0123456789") for w in words}  # cuda12 -> cuda
    if words & _ROCM_WORDS:
        return None
    return next((name for word, name in _OTHER_BACKENDS.items() if word in words), None)


def _check(resource: Resource, config: dict) -> list[str]:
    found = []
    for server in model_servers(resource):
        backend = _backend(server.container.get("image"))
        if backend is None:
            continue
        rest = json.dumps({k: v for k, v in server.container.items() if k in ("command", "args", "lifecycle")}, default=str)
        for entry in map(as_dict, as_list(server.container.get("env"))):
            name = entry.get("name")
            if not isinstance(name, str) or not _ROCM_ONLY.match(name) or name in rest:
                continue
            found.append(
                f"{server.label}: env {name} is a setting of ROCm's runtime (libhsakmt reads it to report an AMD GPU's "
                f"gfx target), but image {server.container.get('image')} is a {backend} build, which loads no ROCm "
                f"runtime: the override never applies; drop it, or run the image's ROCm build if the GPU needs it"
            )
    return found


POLICY = Policy(
    name="rocm-env-on-rocm-image",
    description=(
        "A ROCm runtime setting (HSA_OVERRIDE_GFX_VERSION) is set only on a model server whose image runs ROCm, not on "
        "a Vulkan or CUDA build (its tag), which never reads it."
    ),
    catalog="G74",
    severity="low",
    enforcement="advisory",
    remediation_steps="Drop the variable, or use the image's ROCm build (llama.cpp server-rocm, ollama/ollama:rocm).",
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "ROCm/ROCR-Runtime@c7785a6da1c10c25bc8d527c00b1fe79bfbd84c9 libhsakmt/src/topology.c:1218-1224 reads "
        "HSA_OVERRIDE_GFX_VERSION[_<node>]; a Vulkan or CUDA build of an engine loads no ROCm runtime."
    ),
)
