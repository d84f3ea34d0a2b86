"""S46: a model server's image, when it carries an engine's image name on Docker Hub, comes from that engine's publisher.

Docker Hub namespaces are accounts: ``dganochenko/sglang`` is whatever one person last pushed under SGLang's name,
not SGLang's release (``lmsysorg/sglang``, the image components/serving_engines.toml names for SGLang). Its contents (the engine
release, patches, what else runs at start) and whether it is rebuilt or deleted are outside the team's control, and
an image named like an engine is the usual shape of a typo-squatted or abandoned copy. Reviewers labelled it on
held-out set 6 (bkauf/ai-ml-tooling sglang-deployment.yaml at 4a6caa760d4b693d5c5a86f85a20501b72833749).

Read only on Docker Hub references (no registry host, or docker.io): an image in a registry of the team's own (ECR,
Artifact Registry, a harbor) is a mirror or a build of theirs. The publishers (data below, each cited): the engine's
own account, and accounts of projects that publish a build of it themselves. Advice: a fork can be deliberate.
"""

from __future__ import annotations

import re
from typing import Optional

from components.images import image_repository
from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES
from policies.reading.serving import model_servers

# Docker Hub image name -> the accounts that publish it: the engine's own (the image each row of
# components/serving_engines.toml names, with its source), and projects that publish their own build of it:
# vllm-project/aibrix samples/deepseek-r1/README.md:24 at e3e10f9e4aebe9aac5e7d992fb87d2648e01628b (aibrix/vllm-openai,
# "a custom-built image by AIBrix") and vllm-project/production-stack examples/disaggregated_prefill/pd.yaml:9 at
# a6c01db05f65f556235413ba8dbcfb0c01132fff (LMCache's lmcache/vllm-openai).
PUBLISHERS: dict[str, tuple[str, ...]] = {
    "vllm-openai": ("vllm", "aibrix", "lmcache"),
    # An image named plainly ``vllm`` is vLLM too (set 11: coreweave/kubernetes-cloud online-inference/vllm,
    # rtalaricw/vllm:0.1). Its publishers: AMD's ROCm build (rocm/vllm, https://rocm.docs.amd.com/projects/ai-ecosystem/
    # en/latest/inference/vllm.html "Pull the ROCm vLLM ... Docker image") and OPEA's (opea/vllm, OPEA's GenAIComps
    # vLLM microservice image); the vllm account itself publishes vllm-openai (https://docs.vllm.ai/en/stable/
    # deployment/docker/), which _OFFICIAL names.
    "vllm": ("vllm", "rocm", "opea"),
    "sglang": ("lmsysorg",),
    "ollama": ("ollama",),
    "lmdeploy": ("openmmlab",),
    "local-ai": ("localai",),
    "localai": ("localai",),
    "aphrodite-openai": ("alpindale",),
}
# The engine's release image where the image name is not one its publisher uses (PUBLISHERS' first account, else).
_OFFICIAL = {"vllm": "vllm/vllm-openai"}
_HUB = ("docker.io", "index.docker.io", "registry-1.docker.io")
# A variant word that names another program beside the engine, not a build of it (``vllm-benchmark``, ``ollama-proxy``,
# ``vllm-router``): review 41 item 16.
_OTHER_PROGRAM = re.compile(
    r"-(?:bench(?:mark)?s?|proxy|router|gateway|ui|webui|web|exporter|client|operator|controller|sidecar|loader|"
    r"downloader|tester|test|load-?test|monitor|dashboard|chat|frontend|api-gateway)(?:-|$)"
)


def _hub_path(image: str) -> Optional[tuple[str, str]]:
    """(account, name) of a Docker Hub reference with an account, else None (another registry, or a library image)."""
    parts = image_repository(image).split("/")
    if len(parts) > 1 and ("." in parts[0] or ":" in parts[0] or parts[0] == "localhost"):
        if parts[0] not in _HUB:
            return None
        parts = parts[1:]
    if len(parts) != 2 or parts[0] == "library":
        return None
    return parts[0].lower(), parts[1].lower()


def _engine_name(name: str) -> Optional[str]:
    """The engine image name of PUBLISHERS an image name is, or begins with as ``<name>-<variant>`` (a build named after
    the engine plus a model or a platform: ``vllm-gptoss``, ``sglang-blackwell``; spent set 26, VIDA-NYU/data-gatherer
    k8s/vllm-deployment.yaml, pietromarini/vllm-gptoss); the longest such name, or None."""
    if name in PUBLISHERS:
        return name
    found = [key for key in PUBLISHERS if name.startswith(key + "-") and not _OTHER_PROGRAM.search(name[len(key) :])]
    return max(found, key=len) if found else None


def _check(resource: Resource, config: dict) -> list[str]:
    messages = []
    for server in model_servers(resource):
        image = server.container.get("image")
        hub = _hub_path(image) if isinstance(image, str) else None
        engine = _engine_name(hub[1]) if hub is not None else None
        if hub is None or engine is None or hub[0] in PUBLISHERS[engine]:
            continue
        if server.container.get("imagePullPolicy") == "Never":
            continue  # built on the node (local/vllm-cpu: spent set 18 kimun608/k8s-llm-serving): no account serves it
        account, name = hub
        official = _OFFICIAL.get(engine) or "/".join((PUBLISHERS[engine][0], engine))
        messages.append(
            f"{server.label}: image {image} is {name} as the Docker Hub account {account} publishes it, not the engine's "
            f"release ({official}): what it holds and whether it changes or disappears is that account's; use the "
            "engine's image, or build your own into a registry you control"
        )
    return messages


POLICY = Policy(
    name="engine-image-from-publisher",
    description=(
        "A model server's Docker Hub image that carries an engine's name (vllm-openai, vllm, sglang, ollama, ...) comes from "
        "that engine's publisher, not another account (advice)."
    ),
    rationale=(
        "A Docker Hub account other than the engine's publishes whatever it pushes under the engine's name; the team "
        "controls neither its contents nor its lifetime."
    ),
    catalog="S46",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Use the engine's own image (vllm/vllm-openai, lmsysorg/sglang, ollama/ollama, ...) at a version tag or digest, "
        "or build the image you need and push it to a registry you control."
    ),
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
)
