"""G9 (CPU limits), the thread count written: a model server told to run more compute threads than its CPU limit.

A CPU limit is a CFS quota: the container's threads together get ``limit`` CPUs of time per 100 ms period, then wait
for the next (https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#how-pods-with-resource-
limits-are-run). An engine told to compute on N threads splits each matrix product into N parts and waits for the last
one (llama.cpp's ggml threadpool: ggml-org/llama.cpp b8914 ggml/src/ggml-cpu/ggml-cpu.c ggml_graph_compute, each node
ended by ggml_barrier), so with N above the quota every product ends throttled and the threads that spin at the
barrier spend the quota while they wait. The thread count is read where the manifest writes it:

- an engine row's ``threads`` setting (components/serving_engines.toml: llama.cpp ``-t``/``--threads``/
  ``LLAMA_ARG_THREADS``, common/arg.cpp:1115-1123 at b8914; LocalAI ``--threads``/``THREADS``), its value expanded from
  the container's environment as the kubelet does ``$(VAR)``, a ConfigMap of the files included (spent set 111
  rrumana/k8s-homelab-2 cluster/apps/ai/llama-backend/llama-static-a-deployment.yaml: ``--threads $(N_THREADS)``, 8 from
  the ConfigMap llama-static-a-config, under a limit of 2);
- the ``cmd`` of each model of a llama-swap configuration file (mostlygeek/llama-swap: the proxy starts one
  llama-server per model from ``models.<name>.cmd``, README "config.yaml") that the container mounts from a ConfigMap
  of the files (the same repository's llama-swap-deployment.yaml: every cmd runs ``--threads 8`` under a limit of 2);
- ``OMP_NUM_THREADS`` on a server that holds no GPU (OpenMP API 5.2 section 21.1.2: the number of threads of each
  parallel region; PyTorch's CPU kernels, which vLLM's and TGI's CPU paths run, take it as their intra-op threads),
  not on a ggml engine (llama.cpp, Ollama, LocalAI): ggml opens its regions with ``num_threads(n_threads)``, which
  overrides the variable (ggml/src/ggml-cpu/ggml-cpu.c ggml_graph_compute, ``#pragma omp parallel
  num_threads(n_threads)``; n_threads is the server's own thread setting, by default the physical cores:
  common/common.cpp cpu_get_num_math), so there the variable is not the thread count (review54c);
- ``VLLM_CPU_OMP_THREADS_BIND=auto`` on vLLM's CPU backend: vLLM binds one OpenMP thread per physical core of a NUMA
  node among the CPUs the process may run on (vllm 0.34.0 wheel vllm/utils/ompmultiprocessing.py:126 auto_setup,
  :141 one logical CPU per x86 core, :188-260 _get_autobind_cpu_ids, :79 OMP_NUM_THREADS = their count;
  vllm/utils/cpu_resource_utils.py:254-259 os.sched_getaffinity), and a CPU limit is a quota, not a CPU set: the
  process may run on every CPU of the node (unless the kubelet's static CPU manager gives a Guaranteed pod's whole
  CPUs to it alone, which the files do not show), so the threads are the node's cores, not the limit (spent set 112
  rajinikanthvadla-ai/kserve-triton-ray-llm-stack 03-vllm-cpu-lab/manifests/vllm-cpu.yaml, a limit of 2).

Advice: the server still answers, slower. Silent: no CPU limit, a thread count at or under the limit, a value decided
at run time (a variable the files do not give, a Secret), Ray pods (Ray's own processes share them).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator, Mapping
from typing import Optional

import yaml

from components.images import image_repository
from components.quantities import parse_quantity
from policies.framework import Policy, Resource
from policies.kube import as_dict, container_label, containers, fmt_number, get, is_ray, pod_specs, workload_types
from policies.operators import OPERATOR_TYPES
from policies.reading.container_env import env_values
from policies.reading.engines import table_servers
from policies.reading.kserve_runtime import effective_resources
from policies.reading.mounted_scripts import mounted_config_files
from policies.reading.ollama_weights import holds_gpu
from policies.reading.serving import ModelServer, model_servers

_VAR = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)")


def _expanded(value: object, container: Mapping) -> tuple[Optional[int], str]:
    """A thread count as the process gets it: ``$(VAR)`` expanded from the container's environment (the kubelet's
    expansion, a ConfigMap of the files included), and the words that say where it came from; None when it is not a
    whole number once expanded."""
    if not isinstance(value, str):
        return None, ""
    where = ""
    if "$(" in value:
        env = env_values(container)
        names = _VAR.findall(value)
        value = _VAR.sub(lambda m: env.get(m.group(1), m.group(0)), value)
        where = f" (from $({names[0]}))" if names else ""
    value = value.strip()
    return (int(value), where) if value.isdigit() else (None, "")


def _limit(resource: Resource, path: str, container: dict) -> Optional[tuple[float, str, str]]:
    """(CPUs, as written, where the figure comes from) of the container's CPU limit; None where it sets none or it is
    no quantity."""
    resources, merged = effective_resources(resource, path, container)
    raw = get(resources, "limits", "cpu") if resources is not None else None
    if raw is None:
        return None
    try:
        return parse_quantity(raw), str(raw), merged
    except ValueError:
        return None


_SWAP_THREADS = ("--threads", "-t")
# Engines that compute on ggml, whose OpenMP regions name their thread count (components/serving_engines.toml keys).
_GGML_ENGINES = frozenset({"llama-cpp", "ollama", "localai"})


def _swap_threads(text: str) -> Iterator[tuple[str, int]]:
    """(model name, threads) of each model of a llama-swap configuration whose ``cmd`` writes a thread count."""
    try:
        config = yaml.safe_load(text)
    except yaml.YAMLError:
        return
    for name, model in as_dict(as_dict(config).get("models")).items():
        cmd = as_dict(model).get("cmd")
        if not isinstance(cmd, str):
            continue
        try:
            words = shlex.split(cmd, comments=True)
        except ValueError:
            continue
        for i, word in enumerate(words):
            flag, eq, value = word.partition("=")
            if flag not in _SWAP_THREADS:
                continue
            value = value if eq else (words[i + 1] if i + 1 < len(words) else "")
            if value.isdigit():
                yield str(name), int(value)


def _is_swap(container: Mapping) -> bool:
    """True for a container of llama-swap's image (mostlygeek/llama-swap, under any registry or mirror)."""
    image = container.get("image")
    return isinstance(image, str) and image_repository(image).lower().rsplit("/", 1)[-1] == "llama-swap"


def _message(label: str, what: str, threads: int, limit: tuple[float, str, str]) -> str:
    cpus, raw, merged = limit
    return (
        f"{label}: {what} runs {threads} compute threads, but resources.limits.cpu is {raw}{merged}: the {threads} "
        f"threads share {fmt_number(cpus)} CPU{'s' if cpus != 1 else ''} of time per scheduling period, so the part of "
        f"each token computed on the CPU (every layer not offloaded to a GPU) ends throttled, waiting for the next "
        f"period; set the thread count to the limit or below, or raise the limit"
    )


def _check(resource: Resource, config: dict) -> list[str]:
    if is_ray(resource.type):
        return []
    found = []
    seen: set[int] = set()
    for server in table_servers(resource):
        threads, where = _expanded(server.args.get("threads"), server.container)
        limit = _limit(resource, server.path, server.container) if threads else None
        if threads and limit is not None and threads > limit[0]:
            seen.add(id(server.container))
            display = server.row.display if server.row is not None else server.engine
            display = display if display.endswith("server") else f"{display} server"
            found.append(_message(server.label, f"this {display}'s thread setting{where}", threads, limit))
    for path, podspec in pod_specs(resource):
        for container in containers(podspec):
            if not _is_swap(container):
                continue
            limit = _limit(resource, path, container)
            if limit is None:
                continue
            for file, text in sorted(mounted_config_files(podspec, container).items()):
                over = [(name, n) for name, n in _swap_threads(text) if n > limit[0]]
                if over:
                    names = ", ".join(f"{name} ({n})" for name, n in over)
                    what = f"every llama-server llama-swap starts from {file} for the models {names}"
                    found.append(_message(container_label(path, container), what, max(n for _, n in over), limit))
    for model in model_servers(resource):
        if id(model.container) in seen or holds_gpu(model.podspec):
            continue
        env = env_values(model.container)
        if model.engine == "vllm" and env.get("VLLM_CPU_OMP_THREADS_BIND", "").strip() == "auto" and "OMP_NUM_THREADS" not in env:
            found.extend(_auto_bind(resource, model))
            continue
        if model.engine in _GGML_ENGINES:
            continue  # ggml's num_threads clause overrides OMP_NUM_THREADS
        threads, where = _expanded(env.get("OMP_NUM_THREADS"), model.container)
        limit = _limit(resource, model.path, model.container) if threads else None
        if threads and limit is not None and threads > limit[0]:
            found.append(_message(model.label, "this CPU-only model server's OMP_NUM_THREADS", threads, limit))
    return found


def _auto_bind(resource: Resource, server: ModelServer) -> list[str]:
    """A CPU-only vLLM server told VLLM_CPU_OMP_THREADS_BIND=auto under a CPU limit that may not be its own CPUs."""
    limit = _limit(resource, server.path, server.container)
    if limit is None:
        return []
    requests = get(effective_resources(resource, server.path, server.container)[0] or {}, "requests", "cpu")
    if limit[0] == int(limit[0]) and (requests is None or str(requests) == limit[1]):
        return []  # a Guaranteed pod's whole CPUs: under the static CPU manager they are the process's CPU set
    cpus, raw, merged = limit
    return [
        f"{server.label}: VLLM_CPU_OMP_THREADS_BIND=auto makes vLLM's CPU backend run one OpenMP thread per physical "
        f"core of a NUMA node the process may run on, and a CPU limit ({raw}{merged}) is a quota, not a CPU set: the "
        f"process may run on every CPU of the node, so on any node with more than {fmt_number(cpus)} cores per NUMA "
        f"node the threads outnumber the quota and every forward pass ends throttled; set VLLM_CPU_OMP_THREADS_BIND to "
        f"as many CPU ids as the limit (0-{max(int(cpus) - 1, 0)}), or give the pod whole CPUs with requests equal to "
        f"limits under the static CPU manager"
    ]


POLICY = Policy(
    name="engine-threads-within-cpu-limit",
    description=(
        "A model server told how many compute threads to run (llama.cpp --threads, LocalAI THREADS, a llama-swap "
        "model's cmd, OMP_NUM_THREADS on a CPU-only server, vLLM's VLLM_CPU_OMP_THREADS_BIND=auto, a thread per core of "
        "the node) runs no more of them than its CPU limit; no CPU limit is fine."
    ),
    catalog="G9",
    severity="medium",
    # Advisory: the server still serves, throttled.
    enforcement="advisory",
    remediation_steps=(
        "Set the thread count to the CPU limit or below (llama.cpp: --threads N, LLAMA_ARG_THREADS), or raise "
        "resources.limits.cpu to the threads the server runs, or drop the CPU limit and keep a request."
    ),
    resource_types=workload_types(*OPERATOR_TYPES),
    check_resource=_check,
    rationale=(
        "A CPU limit is a CFS quota shared by all of the container's threads "
        "(https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/); llama.cpp splits each "
        "matrix product over its --threads and waits for every part (ggml-org/llama.cpp b8914 ggml/src/ggml-cpu/"
        "ggml-cpu.c, ggml_barrier), so threads above the quota throttle every product. Catalogue row 9, adapted."
    ),
)
