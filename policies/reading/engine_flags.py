"""An engine recognised by the flags it is given: a container that passes the args of its image's own entrypoint (no
``command``) with every flag of one of an engine's ``flag_sets`` (components/serving_engines.toml) runs that engine,
whatever the image is called: a private registry's copy of vllm/vllm-openai, llm-d's image (its entrypoint is vLLM's
server), an in-house ``llm-serving:gpu``.

The table guarantees each set names a flag no other engine's option table has (engine_flag_sets.check_flag_sets_exclusive,
at import); here a flag match also gives way to every row that recognises the container by its image or its env prefix,
so an engine's own image, run with flags it shares with vLLM, stays that engine's.

A flag set decides only for a container that asks for an accelerator (a GPU, TPU, Neuron or Gaudi resource, or a DRA
claim): "only this engine parses them" was read against the engines of the table, not every program. llm-d's vLLM
simulator (llm-d/llm-d-inference-sim, ghcr.io/llm-d/llm-d-inference-sim: a Go program that imitates vLLM's CLI and API
with no GPU and no weights; manifests/vllm-config.yaml@86ce94f takes max-num-seqs) parses --max-num-seqs too, and
runs on CPU; its image is named here as no engine.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Optional

from components.engine_image_names import OTHER_PROGRAM_WORDS, image_names
from components.images import names_image, names_repository
from components.serving_engines import ENGINES, Engine
from policies.framework import UNKNOWN
from policies.kube import as_dict, as_list, as_quantity, name_of, port_number

# Images that take an engine's flags without being that engine (llm-d's CPU-only vLLM simulator).
_NOT_ENGINES = ("llm-d-inference-sim",)
# Substrings of the extended-resource names of accelerators (nvidia.com/gpu, amd.com/gpu, gpu.intel.com/i915,
# nvidia.com/mig-1g.5gb, google.com/tpu, aws.amazon.com/neuron, habana.ai/gaudi).
_ACCELERATORS = ("gpu", "mig-", "tpu", "neuron", "gaudi")


def _asks_accelerator(container: Mapping) -> bool:
    """True when the container requests or limits an accelerator resource, or claims a DRA device."""
    resources = as_dict(container.get("resources"))
    if as_list(resources.get("claims")):
        return True
    for section in ("limits", "requests"):
        for name, value in as_dict(resources.get(section)).items():
            if isinstance(name, str) and any(a in name.lower() for a in _ACCELERATORS):
                quantity = as_quantity(value)
                if quantity is None or quantity > 0:
                    return True
    return False


def runs_engine_image(container: Mapping, engine: Engine) -> bool:
    """True when the container's image is the engine's: one of the row's ``images`` markers names it, or, where the
    container keeps the image's entrypoint (no ``command``: a command that does not start the engine runs another
    program), its repository's own name is one of the row's ``image_names`` (myorg/vllm, vllm-cpu, ghcr.io/x/sglang;
    not vllm-router, not an owner named vllm: components.images.names_repository)."""
    raw = container.get("image")
    if not isinstance(raw, str) or not raw:
        return False
    image = raw.lower()
    if names_image(image, engine.images):
        return True
    return not container.get("command") and names_repository(image, image_names(engine), OTHER_PROGRAM_WORDS)


def _claimed_by_image_or_env(container: Mapping, engines: tuple[Engine, ...]) -> bool:
    """True when some row recognises the container without flags: its image, or a variable under its env prefix."""
    names = [as_dict(e).get("name") for e in as_list(container.get("env"))]
    for engine in engines:
        if runs_engine_image(container, engine):
            return True
        if any(isinstance(n, str) and n.startswith(engine.env_prefixes) for n in names if engine.env_prefixes):
            return True
    return False


def flag_set_engine(
    container: Mapping, args: Mapping[str, Optional[str]], engines: tuple[Engine, ...] = ENGINES
) -> Optional[Engine]:
    """The engine whose flag set ``args`` (the container's parsed args, flag_name keys) carry in full, when the
    container runs its image's entrypoint (no ``command``), asks for an accelerator, is no simulator's image, and no
    row claims it by image or env prefix; else None."""
    if container.get("command") or not args or _claimed_by_image_or_env(container, engines):
        return None
    image = container.get("image")
    if not _asks_accelerator(container) or (isinstance(image, str) and any(n in image.lower() for n in _NOT_ENGINES)):
        return None
    for engine in engines:
        if any(all(flag in args for flag in flags) for flags in engine.flag_sets):
            return engine
    return None


# A host setting that binds every address of the pod: 0.0.0.0 or :: (bracketed or not), with or without a port.
_WILDCARD_BIND = re.compile(r"^(?:0\.0\.0\.0|::|\[::\])(?::(\d{1,5}))?$")


def binds_by_env(container: Mapping, engine: Engine) -> bool:
    """True for a container that tells the engine, through the engine's own host variable (Ollama's OLLAMA_HOST), to
    bind every address of the pod, and declares the port so bound (the value's, else the row's): the engine's server
    under an image no row names (a rebuild FROM ollama/ollama with a model baked in: set 29, hdiazf/ollama_mlops
    k8s/ollama-deployment.yaml@32ef154, image ollama-mlops-ollama:latest, OLLAMA_HOST 0.0.0.0, containerPort 11434). A
    client of the engine sets the same variable to the server's address (http://ollama:11434), never to a wildcard,
    and declares no such port."""
    names = engine.env.get("host", ())
    if not names:
        return False
    declared = {
        p.get("containerPort")
        for p in as_list(container.get("ports"))
        if isinstance(p, dict) and isinstance(p.get("containerPort"), (int, float, str))
    }
    for item in as_list(container.get("env")):
        item = as_dict(item)
        value = item.get("value")
        if name_of(item) in names and isinstance(value, str) and (bound := _WILDCARD_BIND.match(value.strip())):
            port = int(bound.group(1)) if bound.group(1) else engine.port
            return port in declared or str(port) in declared
    return False


# The words of an image's name: the last part of its repository (no registry, path or tag), split at - _ .
_NAME_WORDS = re.compile(r"[-_.]+")


def _declared_ports(container: Mapping) -> set[int]:
    """The ports the container declares it serves on: its containerPorts and the ports its probes ask (numbers)."""
    ports = [as_dict(p).get("containerPort") for p in as_list(container.get("ports"))]
    for field in ("livenessProbe", "readinessProbe", "startupProbe"):
        probe = as_dict(container.get(field))
        ports += [as_dict(probe.get(kind)).get("port") for kind in ("httpGet", "tcpSocket", "grpc")]
    return {n for p in ports if (n := port_number(p)) is not None}


# Images of other programs (proxies, gateways, web UIs, metrics exporters): a container of one named after the engine
# is not the engine (spent set 88 amey2025/ollama@26c52f4c ollama_deployment_nfs.yaml: sidecar ollama-metrics runs
# prom/node-exporter:v1.7.0 with probes on Ollama's 11434 misplaced on it).
_OTHER_PROGRAMS = frozenset(
    {
        "nginx",
        "nginx-unprivileged",
        "openresty",
        "envoy",
        "haproxy",
        "traefik",
        "caddy",
        "httpd",
        "kong",
        "oauth2-proxy",
        "litellm",
        "busybox",
        "alpine",
        "curl",
        "socat",
        "node-exporter",
        "process-exporter",
        "dcgm-exporter",
    }
)


def rebuilt_image(container: Mapping, engine: Engine) -> bool:
    """True for a container that runs a rebuild of the engine's image under another name (the row's ``image_words`` in
    the image's name: llm-ollama-baked:latest built FROM ollama/ollama, set 28 gkoufie1/local-llm-serving-k8s; or in the
    container's own name: container ollama running tingyunyun/llm-model:latest, set 28 tingyunw/llm-on-k8s) and that
    declares the engine's default port (11434), as a containerPort or a probe's: a word alone is no evidence (an
    ollama-webui client names it too, and serves elsewhere)."""
    image = container.get("image")
    if not engine.image_words or not isinstance(image, str):
        return False
    name = image.lower().split("@", 1)[0].rsplit("/", 1)[-1].split(":", 1)[0]
    own = set(_NAME_WORDS.split(name))
    if not own & set(engine.image_words) and name in _OTHER_PROGRAMS:
        return False  # a container named ollama running nginx is a proxy in front of it (review 41 item 18)
    words = own | set(_NAME_WORDS.split(str(container.get("name") or "").lower()))
    return bool(words & set(engine.image_words)) and engine.port in _declared_ports(container)


def rebuilt_or_bound(container: Mapping, engine: Engine) -> bool:
    """The engine's server under an image no row names: a rebuild of its image (rebuilt_image), or a container that
    binds the engine's port through the engine's own host variable (binds_by_env)."""
    return rebuilt_image(container, engine) or binds_by_env(container, engine)


def named_server(container: Mapping, engine: Engine) -> bool:
    """True for a container that runs the engine under an image no row names, by its own name: no ``command`` (the
    image's entrypoint runs), an accelerator asked, the engine's default port declared (a containerPort or a probe's),
    an image no row claims and no other program's (a placeholder the pipeline fills, ``IMAGE_NAME``, or an in-house
    build FROM the engine's image), and a container name with one of the row's ``image_names`` as a word followed by no
    word of ``other_program_words`` (``qwen-app-vllm-container``, ``vllm``; not ``vllm-router``, ``vllm-proxy``).
    Spent set 70 ngthecoder/qwen_serving k8s/vllm/deployment.yaml: image IMAGE_NAME (its Dockerfile, not among the
    files, is FROM vllm/vllm-openai:v0.19.1), container qwen-app-vllm-container on 8000 with one GPU and vLLM's
    --model/--max-model-len. A word alone is no evidence: the port and the GPU come with it, and args (the command
    line the image's entrypoint is given; with none, an in-house script starts the server with options the files do not
    show, and the vLLM rules that read options would misjudge it)."""
    if container.get("command") or not _asks_accelerator(container) or engine.port is None:
        return False
    if not any(isinstance(a, str) and a for a in as_list(container.get("args"))):
        return False  # no args: the image's own script starts the server, with options the files do not show
    image = container.get("image")
    if image is UNKNOWN:
        image = ""  # a placeholder the pack read as unknown (IMAGE_NAME, ${IMAGE})
    if (
        not isinstance(image, str)
        or any(n in image.lower() for n in _NOT_ENGINES)
        or _claimed_by_image_or_env(container, ENGINES)
    ):
        return False
    image_name = image.lower().split("@", 1)[0].rsplit("/", 1)[-1].split(":", 1)[0]
    if set(_NAME_WORDS.split(image_name)) & (_OTHER_PROGRAMS | OTHER_PROGRAM_WORDS):
        return False
    words = [w for w in _NAME_WORDS.split(str(container.get("name") or "").lower()) if w]
    names = set(image_names(engine))
    at = next((i for i, w in enumerate(words) if w in names), None)
    if at is None or set(words[at + 1 :]) & OTHER_PROGRAM_WORDS:
        return False
    return engine.port in _declared_ports(container)
