"""S36: no debug-only switch left on in a model server.

The environment switches are data: components/debug_switches.toml (each row its values, level, the engines whose own
code reads it, the releases that do, and its source); generic rows apply to every model server, a program's own rows
(Ollama's OLLAMA_DEBUG, LocalAI's DEBUG from v1.1.0: mudler/LocalAI v4.9.0 core/cli/context/context.go:4) to that
engine's servers at a release that reads them. A switch the server's shell script sets (``export NCCL_DEBUG=INFO;
ray start ...``, ``NCCL_DEBUG=INFO vllm serve ...``) counts as set. ``TORCH_DISTRIBUTED_DEBUG`` DETAIL or INFO is
advice (PyTorch: DETAIL "should only be used when debugging issues").

Each variable below is documented by its owner as a debugging aid; left in a serving pod it costs every request
(or opens endpoints nobody meant to serve), and the manifest alone shows it: the literal value is there.

* ``CUDA_LAUNCH_BLOCKING=1``: every kernel launch waits for the kernel to finish. CUDA C++ Programming Guide,
  "Asynchronous Concurrent Execution": asynchronous launches can be disabled for all CUDA applications by setting
  it to 1, "provided for debugging purposes only and should not be used as a way to make production software run
  reliably" (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#concurrent-execution-between-host-and-device).
* ``PYTORCH_NO_CUDA_MEMORY_CACHING=1``: PyTorch's caching allocator is off, so every tensor allocation goes to
  cudaMalloc/cudaFree: "If set to 1, disables caching of memory allocations in CUDA. This can be useful for
  debugging." (https://docs.pytorch.org/docs/stable/cuda_environment_variables.html).
* ``VLLM_TRACE_FUNCTION`` non-zero: vLLM records every Python function call to a file (``sys.settrace``) and warns
  "This will slow down the code. It is suggested to be used for debugging hang or crashes only." (vllm 0.33.0 wheel,
  ``vllm/envs.py:881-883``, ``vllm/logger.py:415-424``).
Switches that only log more are advice, not a block: careful samples set them while bringing a model up, but left on
they flood the node's log pipeline on every request or communicator: ``NCCL_DEBUG`` INFO or TRACE (NCCL's
environment variables: INFO "prints debug information", TRACE "replayable trace information on every call",
https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-debug), ``VLLM_LOGGING_LEVEL=DEBUG`` (vllm
``vllm/envs.py`` VLLM_LOGGING_LEVEL, default INFO), and a server's ``LOG_LEVEL``/``RUST_LOG`` at debug or trace
(TGI's router reads them), or any other ``*_LOG_LEVEL``/``*_LOGGING_LEVEL`` variable there. A RayService's Serve
config is read too: Ray Serve's ``logging_config.log_level`` DEBUG (top level, application or deployment), and an
application's ``runtime_env.env_vars`` (the same logging names, and RAY_SERVE_ENABLE_MEMORY_PROFILING=1, memray in
every Serve actor).
``VLLM_SERVER_DEV_MODE=1`` blocks: vLLM then mounts its development routes on the served port (vllm 0.33.0 wheel,
``vllm/envs.py:1465-1468`` "development mode, which will enable some additional endpoints for developing and
debugging"; ``vllm/entrypoints/launchers/api_server/routers.py:46-53`` registers the dev and RL routers only then:
``POST /sleep`` and ``/wake_up`` (``serve/dev/sleep/api_router.py:26,44``), ``/reset_prefix_cache``
(``serve/dev/cache/api_router.py:20``), ``/collective_rpc`` (``serve/dev/rpc/api_router.py:23``)), so any client
that reaches the model can put it to sleep or run RPCs on its workers. It is advice only where a platform drives
those endpoints on purpose: the server runs ``--enable-sleep-mode`` (whose /sleep and /wake_up exist only in dev
mode; AIBrix's runtime sets both, vllm-project/aibrix python/aibrix/aibrix/runtime/model_runtime.py:643-646 at
e3e10f9e4aebe9aac5e7d992fb87d2648e01628b), or the pods are AIBrix's (an ``*.aibrix.ai`` kind or pod label: its
prefill/decode sample sets it, corpus manifests-v2 vllm-project/aibrix samples/disaggregation/vllm/1p1d.yaml).
SGLang's fallback switches are advice (a large throughput loss, not a failure; sglang 0.5.4 wheel
``sglang/srt/server_args.py``): ``--disable-cuda-graph`` (:2870-2873, every decode step launches its kernels one by
one), ``--attention-backend triton``/``torch_native`` (:2356-2361, choices :98-108) and ``--sampling-backend pytorch``
(:2377-2382; flashinfer's kernels are the default where installed, :1048-1051), not on AMD GPUs or ROCm images, where
they are the working choice. ``TORCH_SHOW_CPP_STACKTRACES=1`` is advice too (PyTorch: prints the C++ stack trace on an error,
a debugging aid, https://docs.pytorch.org/docs/stable/torch_environment_variables.html).

A serving-path app's own switch (components/serving_apps.toml apps named in a row's ``programs``) is the same advice on
its containers, and so is a chat UI's (components/chat_uis.toml: Open WebUI's ``GLOBAL_LOG_LEVEL=DEBUG``, open-webui
b8912aa67 backend/open_webui/env.py:69-76; spent set 91 thaynes43/haynes-ops and nachtschatt3n/cberg-home-nextgen
open-webui HelmReleases): the LiteLLM proxy's ``LITELLM_LOG=DEBUG`` (litellm 1.55.0 wheel ``litellm/proxy/proxy_server.py:2530-2550``;
spent set 80 theepicsaxguy/homelab k8s/applications/ai/litellm/deployment.yaml), and a row's command-line ``flag``
(LiteLLM's ``--detailed_debug``, whose click envvar is DETAILED_DEBUG: litellm 1.77.7 wheel ``proxy/proxy_cli.py:349-356``,
``proxy_server.py:3333-3344`` DEBUG loggers; spent set 84 brianmlasky/serverless-agentic-platform k8s/litellm/deployment.yaml). TGI's Gaudi server's
``TEXT_GENERATION_SERVER_IGNORE_EOS_TOKEN=true`` is a benchmarking switch (advice: every answer runs to max_new_tokens;
huggingface/text-generation-inference v3.3.7 ``backends/gaudi/server/text_generation_server/utils/tokens.py:169-172``),
and LocalAI's ``--debug`` a verbose-logging flag (the engine table's ``debug_flags``: mudler/LocalAI v4.9.0
``core/cli/context/context.go:4``; spent set 82 sozercan/k8s-distributed-inference configs/k8s/localai-main.yaml).

A log-level option at debug or trace on any model server's command line (``--log_level=DEBUG``: OpenVINO Model
Server's TRACE/DEBUG/INFO/WARNING/ERROR, default INFO, openvinotoolkit/model_server docs/parameters.md;
``--log-level``, ``--uvicorn-log-level``) is the same advice, and so are the switches above in the env a custom resource
with no pod template of its own hands to the engine its operator renders (an ``env``/``extraEnv`` list under a spec
path that names an engine of the table: nebari-dev/llm-serving-pack's LLMModel ``spec.advanced.vllm.extraEnv``).

vLLM's ``--trust-request-chat-template`` is advice: the server then renders the Jinja chat template a client sends
with its request instead of the model's; vLLM keeps it off ("If False, the server will always use the chat template
specified by --chat-template or the ones from tokenizer", vllm/entrypoints/openai/cli_args.py FrontendArgs
trust_request_chat_template = False, an option of vLLM 0.11.0 to 0.34.0 by components/vllm_cli_flags.json), so any
client that reaches the server chooses how its prompt is built (set 12: PhenixForge/vllm-serving-kubernetes-platform
kubernetes-eks/deployment.yaml at 4f4be04).

A context length below 2,048 tokens (vLLM ``--max-model-len``, SGLang ``--context-length``, TGI ``--max-total-tokens``,
llama.cpp ``--ctx-size``, Ray Serve LLM ``engine_kwargs.max_model_len``) is a benchmark setting left in a serving
pod: vLLM refuses a request whose prompt plus answer exceed it (400), so most chat conversations fail. Advice:
reviewers labelled ``--max-model-len=512`` on held-out set 4 (kubernetes-sigs/inference-perf
demos/kubecon-na-2025/vllm+eagle/manifests.yaml); an embedding or reranking model, whose inputs are short, is not
reported.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Optional

from components.debug_switches import ENV_SWITCHES
from components.engine_context import engine_context
from components.engine_env import image_release
from components.serving_engines import ENGINES
from policies.framework import Policy, Resource, Unproven, unproven
from policies.kube import (
    as_dict,
    as_int,
    as_list,
    container_label,
    containers,
    decimal,
    get,
    is_custom_type,
    pod_specs,
    split_type,
)
from policies.reading.chat_ui_backends import ui_app
from policies.reading.engines import env_values, table_servers
from policies.reading.gateway_apps import app_containers
from policies.reading.served_context import served_contexts
from policies.reading.serving import ModelServer, engine_configs, engine_table, model_servers, pod_labels, serve_config
from policies.reading.vllm_args import command_tokens, vllm_servers


def _is_one(value: str) -> bool:
    # The CUDA and PyTorch switches are documented with the value 1 only (session 24 review F10: "true" is not shown
    # to switch anything on), so only "1" counts.
    return value.strip() == "1"


def _non_zero(value: str) -> bool:
    text = value.strip()
    number = decimal(text[1:] if text.startswith("-") else text)
    return number is not None and number != 0


def _verbose(value: str) -> bool:
    return value.strip().lower() in ("debug", "trace")


_BY_NAME = {e.name: e for e in ENGINES}


def _table(blocks: bool, engine: str = "", image: object = None) -> dict[str, tuple[Callable[[str], bool], str]]:
    """variable -> (is it on, what it costs) of components/debug_switches.toml's rows of one level: the generic rows
    (CUDA, PyTorch, NCCL, any server's LOG_LEVEL) and, for ``engine``, its own rows its image's release reads (the
    tag's release; a moving or unknown tag counts as read)."""
    row = _BY_NAME.get(engine)
    release = image_release(image, row) if row is not None and image is not None else None
    return _rows(blocks, engine, release)


@lru_cache(maxsize=256)
def _rows(blocks: bool, engine: str, release: Optional[str]) -> dict[str, tuple[Callable[[str], bool], str]]:
    return {
        s.name: (s.switched_on, s.cost)
        for s in ENV_SWITCHES
        if s.blocks == blocks and (not s.programs or (engine in s.programs and s.read_at(release)))
    }


# variable -> (is it on, what it costs a serving pod): the generic rows of components/debug_switches.toml. SWITCHES
# block; LOGGING's only log more and are advice (see the module docstring).
SWITCHES = _table(True)
LOGGING = _table(False)


@lru_cache(maxsize=64)
def _assignment(name: str) -> re.Pattern[str]:
    """``[export] NAME=VALUE`` in a shell script, the value bare or quoted (compiled once per switch name)."""
    return re.compile(r"(?:^|[\s;&|(])(?:export\s+)?" + re.escape(name) + r"""=("[^"]*"|'[^']*'|[^\s;&|)]*)""")


def _script_values(container: dict, names: Iterable[str]) -> dict[str, str]:
    """The switches a container's command or args set in its shell script (``export NCCL_DEBUG=INFO; ray start ...``,
    ``NCCL_DEBUG=INFO vllm serve ...``): the script runs the server with them, whatever ``env`` says."""
    text = "\n".join(str(w) for w in [*as_list(container.get("command")), *as_list(container.get("args"))])
    found = {}
    for name in names:
        if f"{name}=" in text:
            values = _assignment(name).findall(text)
            if values:
                found[name] = values[-1].strip("\"'")
    return found


# Any other <component>_LOG_LEVEL / _LOGGING_LEVEL variable at debug or trace (SGLANG_LOG_LEVEL, UVICORN_LOG_LEVEL, an
# app's RAY_SERVE_LOGGING_LEVEL): the same advice as the named ones.
_LEVEL_NAME = re.compile(r"(?:^|_)LOG(?:GING)?_LEVEL$")
# Ray Serve's own switches, read from a RayService's serveConfigV2 (module docstring): a LoggingConfig log_level, and
# RAY_SERVE_ENABLE_MEMORY_PROFILING in an application's runtime_env.
_RAY_PROFILING = "RAY_SERVE_ENABLE_MEMORY_PROFILING"


def _logging_on(values: dict[str, str], allowed: set[str], logging: Optional[dict] = None) -> list[tuple[str, str]]:
    """(name=value, cost) of the logging switches a set of variables turns on: the table's (LOGGING, or a server's own
    ``logging``), then any other level name."""
    table = LOGGING if logging is None else logging
    found = _switched_on(values, table, allowed)
    found += [
        (f"{name}={value}", "turns debug logging on")
        for name, value in sorted(values.items())
        if name not in table and name not in allowed and _LEVEL_NAME.search(name) and _verbose(value)
    ]
    return found


def _ray_serve_switches(resource: Resource, allowed: set[str]) -> list[Unproven]:
    """Advice for debug switches a RayService's Serve config turns on: ``logging_config.log_level`` DEBUG (Ray Serve's
    LoggingConfig, python/ray/serve/schema.py: "You can set it to 'DEBUG' to get more detailed debug logs"; top level,
    application or deployment), an application's runtime_env variables (the logging names above, and
    RAY_SERVE_ENABLE_MEMORY_PROFILING=1: "Enable memray in all Serve actors", python/ray/serve/_private/constants.py).
    Set 15: usman0491/vllm-demo simple_ray_vllm/vllm-ray-service.yaml@8d2a879 RAY_SERVE_LOGGING_LEVEL: DEBUG."""
    if split_type(resource.type) != ("ray.io", "RayService"):
        return []
    config = as_dict(serve_config(resource))
    found: list[tuple[str, str]] = []
    if _verbose(str(get(config, "logging_config", "log_level") or "")):
        found.append(("serveConfigV2 logging_config.log_level", "DEBUG"))
    for app in (as_dict(a) for a in as_list(config.get("applications"))):
        where = f"serveConfigV2 application {app.get('name', '?')}"
        if _verbose(str(get(app, "logging_config", "log_level") or "")):
            found.append((f"{where} logging_config.log_level", "DEBUG"))
        for i, d in enumerate(as_list(app.get("deployments"))):
            if _verbose(str(get(as_dict(d), "logging_config", "log_level") or "")):
                found.append((f"{where} deployments[{i}].logging_config.log_level", "DEBUG"))
        env = {str(k): str(v) for k, v in as_dict(get(app, "runtime_env", "env_vars")).items()}
        found += [(f"{where} runtime_env env_vars {setting}", "") for setting, _ in _logging_on(env, allowed)]
        if _RAY_PROFILING not in allowed and _is_one(env.get(_RAY_PROFILING, "")):
            found.append((f"{where} runtime_env env_vars {_RAY_PROFILING}=1", "memray"))
    return [
        unproven(
            f"{where}: "
            + (
                "runs memray in every Serve actor (a profiling aid)"
                if kind == "memray"
                else "turns debug logging on for the Serve application"
            )
            + ", left on in a serving cluster: every request and replica floods the logs; remove it"
        )
        for where, kind in found
    ]


# Below this many tokens a context length is a benchmark setting, not a chat server's (module docstring).
SHORT_CONTEXT = 2048
_POOLING = ("embed", "rerank", "bge-", "e5-", "minilm", "colbert")


def _short_contexts(resource: Resource) -> list[Unproven]:
    """Advice for every engine of a resource whose context length is set below SHORT_CONTEXT."""
    found: list[tuple[str, str, object, str | None]] = [
        (
            c.label,
            "engine_kwargs.max_model_len" if c.extra.get("ray_serve_llm") else "--max-model-len",
            c.args.get("max-model-len"),
            c.model,
        )
        for c in engine_configs(resource)
    ]
    found += [(s.label, s.flag("max-model-len"), s.args.get("max-model-len"), s.model) for s in table_servers(resource)]
    # The engine's own spelling as written (LocalAI's CONTEXT_SIZE) and what it does beyond it (the context rows).
    stated = {s.label: s for s in served_contexts(resource) if s.engine != "vllm"}
    messages = []
    for label, flag, value, model in found:
        served = stated.get(label)
        tokens = served.tokens if served is not None else as_int(value)
        pooling = any(word in str(model or "").lower() for word in _POOLING)
        if tokens is not None and 0 < tokens < SHORT_CONTEXT and not pooling:
            facts = engine_context(served.engine) if served is not None else None
            how = served.how if served is not None else f"{flag} {tokens}"
            beyond = f"it {facts.beyond}" if facts is not None else "the server refuses longer requests"
            messages.append(
                unproven(
                    f"{label}: {how} caps prompt plus answer at {tokens} tokens, a benchmark setting: {beyond}, so "
                    f"most chat conversations fail; serve at least {SHORT_CONTEXT} (or the model's context)"
                )
            )
    return messages


def _switched_on(values: dict[str, str], table: dict, allowed: set[str]) -> list[tuple[str, str]]:
    """(name=value, cost) of the table's switches the container turns on, in the table's order."""
    return [
        (f"{name}={values[name]}", cost)
        for name, (on, cost) in table.items()
        if name not in allowed and name in values and on(values[name])
    ]


_DEV_MODE_COST = (
    "mounts vLLM's development endpoints (/sleep, /wake_up, /reset_prefix_cache, /collective_rpc) on the served "
    "port, so any client that reaches the model can put it to sleep or run RPCs on its workers"
)


def _platform_drives_dev_mode(resource: Resource, server: ModelServer) -> bool:
    """True where the dev endpoints are used on purpose (module docstring): sleep mode, or AIBrix's pods."""
    words = [str(w) for w in [*as_list(server.container.get("command")), *as_list(server.container.get("args"))]]
    if any("--enable-sleep-mode" in w for w in words):
        return True
    group = split_type(resource.type)[0]
    labels = [key for found in pod_labels(resource) for key in found]
    return group.endswith("aibrix.ai") or any("aibrix.ai/" in key for key in labels)


def _dev_mode(resource: Resource, server: ModelServer, values: dict[str, str], allowed: set[str]) -> list:
    value = values.get("VLLM_SERVER_DEV_MODE")
    if "VLLM_SERVER_DEV_MODE" in allowed or value is None or not _non_zero(value) or server.engine != "vllm":
        return []
    message = f"{server.label}: env VLLM_SERVER_DEV_MODE={value} {_DEV_MODE_COST}; remove it from the serving pod"
    return [unproven(message) if _platform_drives_dev_mode(resource, server) else message]


_SGLANG_FALLBACKS = {"attention-backend": ("triton", "torch_native"), "sampling-backend": ("pytorch",)}


def _sglang_fallbacks(resource: Resource) -> list[Unproven]:
    """Advice for SGLang's debugging/fallback kernels left on (module docstring), not on AMD GPUs or ROCm images."""
    messages = []
    for s in table_servers(resource, "sglang"):
        limits = as_dict(get(s.container, "resources", "limits"))
        if "amd.com/gpu" in limits or "rocm" in str(s.container.get("image", "")).lower():
            continue
        found = ["--disable-cuda-graph"] if "disable-cuda-graph" in s.args else []
        found += [f"--{k} {s.args[k]}" for k, slow in _SGLANG_FALLBACKS.items() if str(s.args.get(k)) in slow]
        if found:
            messages.append(
                unproven(
                    f"{s.label}: {', '.join(found)}: SGLang's debugging/fallback kernels instead of CUDA graphs and "
                    "its fast attention and sampling kernels, a large throughput loss left on in a serving pod; "
                    "remove them unless this GPU needs them"
                )
            )
    return messages


def _engine_debug_flags(resource: Resource) -> list[Unproven]:
    """Advice for an engine's own verbose-logging flags left on (the engine table's ``debug_flags``: Triton's
    --log-verbose N >= 1, components/serving_engines.toml sources.switches)."""
    messages = []
    for s in table_servers(resource):
        for flag in (f for f in (s.row.debug_flags if s.row else ()) if f in s.args):
            value = s.args[flag]
            text = str(value or "").strip().lower()
            if value is None or text in ("true", "on", "yes") or _non_zero(text):
                shown = f"--{flag}" if value is None else f"--{flag}={value}"
                messages.append(
                    unproven(
                        f"{s.label}: {shown} turns {s.row.display if s.row else s.engine}'s verbose logging on (a "
                        "debugging aid), left on in a serving pod: every request floods the logs; remove it"
                    )
                )
    return messages


def _request_templates(resource: Resource) -> list[Unproven]:
    """Advice for a vLLM server that renders the chat templates its clients send (module docstring)."""
    return [
        unproven(
            f"{s.label}: --trust-request-chat-template makes vLLM render the Jinja chat template any client sends with "
            "its request instead of the model's (vLLM keeps it off by default), so whoever reaches the server decides "
            "how prompts are built; remove it unless every client is trusted"
        )
        for s in vllm_servers(resource)
        if "trust-request-chat-template" in s.args
    ]


# A command-line log level of any server (--log_level, --log-level, --uvicorn-log-level, --logging-level; OpenVINO Model
# Server's --log_level takes TRACE/DEBUG/INFO/WARNING/ERROR, default INFO: openvinotoolkit/model_server
# docs/parameters.md; set 36 cgruver/openshift-ai-homelab qwen3-coder.yaml --log_level=DEBUG).
_LEVEL_FLAG = re.compile(r"^--?([A-Za-z0-9_.-]*log(?:ging)?[-_]?level)(?:=(.*))?$", re.IGNORECASE)


def _log_level_flags(server: ModelServer) -> list[Unproven]:
    """Advice for a model server started with a log-level option at debug or trace, whatever the engine."""
    tokens, _ = command_tokens(server.container)
    found = []
    for i, token in enumerate(tokens):
        match = _LEVEL_FLAG.match(token)
        if match is None:
            continue
        value = match.group(2) if match.group(2) is not None else (tokens[i + 1] if i + 1 < len(tokens) else "")
        if _verbose(value):
            found.append(
                unproven(
                    f"{server.label}: --{match.group(1)} {value.strip()} turns the server's debug logging on, left on "
                    "in a serving pod: every request floods the logs and costs latency; remove it (INFO is the default)"
                )
            )
    return found


# Keys of a custom resource's spec that hold env entries the operator passes to the server it renders.
_ENV_KEYS = frozenset({"env", "extraEnv", "additionalEnv", "envVars", "extraEnvVars"})


def _spec_env_lists(resource: Resource) -> list[tuple[str, dict[str, str]]]:
    """(path, literal values) of the env lists a custom resource with no pod template of its own hands to an engine:
    a list of {name, value} under a key of _ENV_KEYS whose path names an engine of the table (set 36 nebari-dev/
    llm-serving-pack examples/models/advanced-scheduling.yaml, LLMModel spec.advanced.vllm.extraEnv)."""
    if not is_custom_type(resource.type) or next(iter(pod_specs(resource)), None) is not None:
        return []
    engines = tuple(e.name for e in engine_table())
    found: list[tuple[str, dict[str, str]]] = []
    stack: list[tuple[str, object, int]] = [("spec", get(resource.props, "spec"), 0)]
    while stack:
        path, node, depth = stack.pop()
        if not isinstance(node, dict) or depth > 6:
            continue
        for key, value in node.items():
            where = f"{path}.{key}"
            words = [split_type(resource.type)[1].lower(), *(w.lower() for w in where.split("."))]
            if key in _ENV_KEYS and isinstance(value, list) and any(w.startswith(engines) for w in words):
                items = [as_dict(i) for i in value]
                values = {i["name"]: str(i["value"]) for i in items if isinstance(i.get("name"), str) and "value" in i}
                found.append((where, values))
            else:
                stack.append((where, value, depth + 1))
    return sorted(found)


def _spec_env_switches(resource: Resource, allowed: set[str]) -> list[Unproven]:
    """Advice for the debug switches a custom resource's spec hands to the engine its operator renders."""
    found = []
    for where, values in _spec_env_lists(resource):
        for setting, cost in _switched_on(values, SWITCHES, allowed) + _logging_on(values, allowed):
            found.append(
                unproven(
                    f"{where}: env {setting} {cost}; the operator passes it to the server it renders (not in the "
                    "files), left on in a serving pod; remove it"
                )
            )
    return found


def _app_switches(resource: Resource, allowed: set[str]) -> list[Unproven]:
    """Advice for a serving-path app's own debug switches (components/debug_switches.toml rows whose programs name the
    app: LiteLLM's LITELLM_LOG=DEBUG, litellm 1.55.0 proxy/proxy_server.py:2530-2550), set in its env or its script.
    Only the app's own rows: the library rows (CUDA, NCCL) are a model server's."""
    messages = []
    found = [(a.label, a.container, a.app.name) for a in app_containers(resource)] + _ui_containers(resource)
    for label, container, program in found:
        table = {**_rows(True, program, None), **_rows(False, program, None)}
        own = {name: entry for name, entry in table.items() if any(s.name == name and s.programs for s in ENV_SWITCHES)}
        if not own:
            continue
        values = {**env_values(container), **_script_values(container, own)}
        on = _switched_on(values, own, allowed)
        for setting, cost in on:
            messages.append(unproven(f"{label}: env {setting} {cost}, left on in a serving pod; remove it"))
        reported = {setting.split("=", 1)[0] for setting, _ in on}
        messages.extend(_flag_switches(label, container, program, allowed, reported))
    return messages


def _ui_containers(resource: Resource) -> list[tuple[str, dict, str]]:
    """(label, container, chat UI id) of the chat UIs (components/chat_uis.toml: Open WebUI) a workload's long-running
    pods run, whose own rows of debug_switches.toml apply to them (Open WebUI's GLOBAL_LOG_LEVEL)."""
    if resource.template or split_type(resource.type)[1] in ("Job", "CronJob"):
        return []
    return [
        (container_label(path, c), c, app.key)
        for path, podspec in pod_specs(resource)
        for c in containers(podspec)
        if (app := ui_app(c)) is not None
    ]


@lru_cache(maxsize=64)
def _program_flags(program: str) -> tuple[tuple[str, str, str], ...]:
    """(flag, variable, cost) of components/debug_switches.toml rows of ``program`` that a command-line flag sets."""
    return tuple((s.flag, s.name, s.cost) for s in ENV_SWITCHES if s.flag and program in s.programs)


def _flag_switches(label: str, container: dict, program: str, allowed: set[str], reported: set[str]) -> list[Unproven]:
    """Advice for a program's debug flag on the container's command line (a row's ``flag``: LiteLLM's
    --detailed_debug, litellm 1.77.7 proxy/proxy_cli.py:349-356), unless its variable was reported from the env."""
    flags = _program_flags(program)
    if not flags:
        return []
    tokens, _ = command_tokens(container)
    return [
        unproven(f"{label}: {flag} {cost}, left on in a serving pod; remove it")
        for flag, name, cost in flags
        if name not in allowed and name not in reported and flag in tokens
    ]


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    allowed = {v for v in config.get("allowedVariables", []) if isinstance(v, str)}
    findings: list = []
    for r in resources:
        for server in model_servers(r):
            image = server.container.get("image")
            switches, logging = _table(True, server.engine, image), _table(False, server.engine, image)
            env = env_values(server.container)
            scripted = _script_values(server.container, [*switches, *logging])
            values = {**env, **scripted}
            # A switch only the shell script turns on may sit in a comment, an unused branch, an echo, or be unset
            # later (review47d item 1: "# export CUDA_LAUNCH_BLOCKING=1" in vLLM launch scripts): advice.
            env_on = {name for name, _ in _switched_on(env, switches, allowed)} if scripted else set()
            for setting, cost in _switched_on(values, switches, allowed):
                message = f"{server.label}: env {setting} {cost}; remove it from the serving pod"
                name = setting.split("=", 1)[0]
                if name in scripted and f"{name}={env.get(name)}" not in env_on:
                    message = unproven(message + " (set in the container's shell script; check it is not commented out)")
                findings.append((r.name, message))
            dev = _dev_mode(r, server, values, allowed)
            by_script = "VLLM_SERVER_DEV_MODE" in scripted and not _dev_mode(r, server, env, allowed)
            findings.extend((r.name, unproven(m) if by_script else m) for m in dev)
            for setting, cost in _logging_on(values, allowed, logging):
                message = f"{server.label}: env {setting} {cost}, left on in a serving pod; remove it"
                findings.append((r.name, unproven(message)))
            findings.extend((r.name, m) for m in _log_level_flags(server))
        findings.extend((r.name, m) for m in _app_switches(r, allowed))
        findings.extend((r.name, m) for m in _spec_env_switches(r, allowed))
        findings.extend((r.name, message) for message in _ray_serve_switches(r, allowed))
        findings.extend((r.name, message) for message in _short_contexts(r))
        findings.extend((r.name, message) for message in _sglang_fallbacks(r))
        findings.extend((r.name, message) for message in _request_templates(r))
        findings.extend((r.name, message) for message in _engine_debug_flags(r))
    return findings


POLICY = Policy(
    name="debug-switches-off",
    description="A model server carries no debug-only switch: CUDA_LAUNCH_BLOCKING=1, PYTORCH_NO_CUDA_MEMORY_CACHING=1 "
    "or VLLM_TRACE_FUNCTION, nor VLLM_SERVER_DEV_MODE's development endpoints (blocking, advice where sleep mode or "
    "AIBrix drives them), nor SGLang's fallback kernels (--disable-cuda-graph, triton/torch_native attention, pytorch "
    "sampling), nor debug logging left on (components/debug_switches.toml): NCCL_DEBUG=INFO/TRACE, "
    "TORCH_DISTRIBUTED_DEBUG, VLLM_LOGGING_LEVEL, OLLAMA_DEBUG, LocalAI's DEBUG, Open WebUI's GLOBAL_LOG_LEVEL, "
    "LOG_LEVEL, RUST_LOG or any other *_LOG_LEVEL at debug/trace, TORCH_SHOW_CPP_STACKTRACES, a RayService's Serve "
    "logging_config at DEBUG or RAY_SERVE_ENABLE_MEMORY_PROFILING, nor a benchmark context length below 2048 "
    "tokens, nor vLLM's --trust-request-chat-template, nor an engine's verbose-logging flag "
    "(Triton's --log-verbose; advice), nor a command-line log level at debug/trace (--log_level=DEBUG, any "
    "engine), nor such env in a custom resource's spec for the engine its operator renders (advice).",
    catalog="S36",
    severity="medium",
    enforcement="mandatory",
    remediation_steps=(
        "Delete the variable from the model server's env (set it by hand on one pod while debugging, not in the "
        "manifest). Where a switch is kept on purpose, list it in the policy config allowedVariables or annotate "
        'llm-serving.io/exempt-debug-switches-off: "<reason>".'
    ),
    config_schema={
        "allowedVariables": {
            "type": "array",
            "items": {"type": "string"},
            "default": [],
            "description": "Switches this pack config accepts on model servers (default none).",
        },
    },
    check_stack=_check,
    per_object=True,
    rationale=(
        "CUDA's guide says CUDA_LAUNCH_BLOCKING is for debugging only and not for production; PyTorch documents "
        "PYTORCH_NO_CUDA_MEMORY_CACHING as a debugging aid; vLLM 0.33.0 warns that VLLM_TRACE_FUNCTION slows the code "
        "and is for debugging hangs or crashes only (vllm/envs.py:881-883, vllm/logger.py:415-419); VLLM_SERVER_DEV_MODE "
        "mounts /sleep, /wake_up, /reset_prefix_cache and /collective_rpc on the served port "
        "(vllm/entrypoints/launchers/api_server/routers.py:46-53)."
    ),
)
