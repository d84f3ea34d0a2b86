"""G9 (CPU limits), adapted to model servers: a CPU limit must not be below what the engine's own processes keep busy.

The catalogue's G9 row does not ask model servers for a CPU limit (docs/policy-catalogue.md: CPU throttling hurts
tokenisation and time to first token). What it can prove is a limit below the engine's floor: vLLM V1 runs its API
server (HTTP, tokenisation, detokenisation, streaming) and its engine core, whose scheduler is a busy loop, as two
processes, and from two GPUs one worker process per GPU besides (components/serving_engines.toml ``[engines.vllm.cpus]``
read by components/engine_cpus.py, with its source: vLLM's "CPU Resources for GPU Deployments", at least 2 + N processes
and 2 + N physical cores; vllm/config/parallel.py, one GPU runs inside the engine core). A container whose
``resources.limits.cpu`` is below that count gets less CPU time per CFS period than its busy processes use: the
kernel throttles it every period and every token waits (https://kubernetes.io/docs/concepts/configuration/
manage-resources-containers/#how-pods-with-resource-limits-are-run: the limit is a hard ceiling enforced by
throttling).

Advice: the engine still serves, slower. The GPUs per server are its tensor x pipeline parallel size, no more than the
container's GPU limit (a multi-node engine's pod holds its share); an unreadable size counts one GPU (the lowest
floor). A CPU-only server (no GPU in any form, policies.reading.ollama_weights.holds_gpu) of an engine that computes
the model on CPU threads (the engine table's ``[engines.NAME.cpu_inference]``: Ollama, llama.cpp, LocalAI, threads
defaulting to the physical cores) is advised under ``min_cpus`` (1): every token is computed inside that share (spent
set 61: an Ollama Deployment limited to 500m), and so is a llama.cpp server told ``--n-gpu-layers 0`` whatever GPUs it
holds (spent set 80 josevictorferreira/homelab .k8s/apps/llama-cpp.yaml, an embeddings server at 500m). A limit of at
least ``min_cpus`` but under 2 CPUs with the engine's thread count left to its default (the engine table's ``threads``
setting: llama.cpp -t/--threads, LLAMA_ARG_THREADS, common/arg.cpp:1115-1123 at b8914; LocalAI --threads, THREADS) is
advice too: one thread per physical core of the node shares that quota, so on a node of two or more cores every period
ends throttled (spent set 81 TrainWithShubham/AI-BankApp-DevOps k8s/ollama-deployment.yaml, Ollama at 1000m). An
engine with a ``cpus`` row that holds no GPU (vLLM's CPU backend) keeps the same processes busy, its engine core now
computing every token itself: a limit below ``processes`` (vLLM 2) is advised too (session 51, spent set 50
Torence7/llm-kserve-autoscaling manifests/kserve/facebook-opt-125m.yaml, an LLMInferenceService of
quay.io/pierdipi/vllm-cpu limited to 1 CPU). Silent: no CPU limit; a limit at or above the floor (4 CPUs on one GPU;
2 on a CPU-only vLLM); a container with no GPU whose image is only named like vLLM's and that gives the engine no
model or options (a client: vllm-consumer, review51b); a GPU held in a form whose count is not read (a DRA claim); Ray pods (Ray's own processes share them) and a worker module without the API server
(Dynamo's dynamo.vllm).
"""

from __future__ import annotations

from components.engine_cpus import CPU_INFERENCE, CPUS
from components.quantities import parse_quantity
from policies.framework import Policy, Resource
from policies.kube import as_int, fmt_number, get, gpu_count, is_ray, workload_types
from policies.operators import OPERATOR_TYPES
from policies.reading.engines import table_servers
from policies.reading.kserve_runtime import effective_resources
from policies.reading.ollama_weights import holds_gpu
from policies.reading.serving import ModelServer, container_argv, engine_row, model_servers
from policies.reading.vllm_args import vllm_command_line, vllm_servers


def _gpus(resource: Resource, container: dict, limit: int) -> int:
    """The GPUs one server drives: tensor x pipeline parallel size where readable (vLLM's parser), within the
    container's GPU limit; 1 otherwise."""
    args = next((s.args for s in vllm_servers(resource) if s.container is container), {})
    size = (as_int(args.get("tensor-parallel-size")) or 1) * (as_int(args.get("pipeline-parallel-size")) or 1)
    return max(1, min(size, limit))


def _visibly_cpu_engine(container: dict) -> bool:
    """A container with no GPU judged as vLLM's CPU backend only on evidence beyond an image named like vLLM's: a
    command line or args that give the engine a model or options, or an image naming a CPU build (vllm-cpu). Spent set
    93 xinhangl44-blip/llm-inference-optimization k8s/consumer-deployment.yaml runs vllm-consumer:v1, a Redis stream
    consumer that calls vLLM (VLLM_ENDPOINT), with no command or args: no vLLM server (review51b)."""
    image = container.get("image")
    if isinstance(image, str) and "cpu" in image.rsplit("/", 1)[-1].split("@", 1)[0].split(":", 1)[0].lower():
        return True
    return bool(vllm_command_line(container, image_entrypoint=True))


def _check(resource: Resource, config: dict) -> list[str]:
    if is_ray(resource.type):
        return []
    found = []
    settings = {id(s.container): s.args for s in table_servers(resource)}
    for server in model_servers(resource):
        row, cpus_row = engine_row(server.engine), CPUS.get(server.engine)
        limit = gpu_count(server.container) or 0
        args = settings.get(id(server.container), {})
        no_layers = str(args.get("gpu-layers", "")).strip() == "0"
        if row is not None and server.engine in CPU_INFERENCE and (no_layers or (limit < 1 and not holds_gpu(server.podspec))):
            floor = CPU_INFERENCE[server.engine].min_cpus
            found.extend(_cpu_server(resource, server, row.display, floor, args.get("threads"), no_layers))
            continue
        if row is None or cpus_row is None:
            continue
        cpu_only = limit < 1
        if cpu_only and holds_gpu(server.podspec):
            continue  # a GPU in another form (a DRA claim, a runtime class): how many is not read
        if cpu_only and not _visibly_cpu_engine(server.container):
            continue  # only an image name like vLLM's, nothing given to an engine: a client (vllm-consumer) as likely
        argv = " ".join(container_argv(server.container))
        if any(module in argv for module in row.worker_modules):
            continue  # a worker behind another program's frontend: no API server process of its own
        resources, merged = effective_resources(resource, server.path, server.container)
        raw = get(resources, "limits", "cpu") if resources is not None else None
        if raw is None:
            continue
        try:
            cpus = parse_quantity(raw)
        except ValueError:
            continue  # not a quantity (a template's placeholder): G45 and S26 read it
        gpus = 0 if cpu_only else _gpus(resource, server.container, limit)
        floor = cpus_row.min_cpus(gpus)
        if 0 < cpus < floor and cpu_only:
            found.append(
                f"{server.label}: resources.limits.cpu {raw}{merged} is below the {floor} CPUs this {row.display} "
                f"server's own processes keep busy (its API server, which tokenises and streams, and its engine core, "
                f"which here holds no GPU and computes every token on the CPU): the kernel throttles the container "
                f"every period, so latency grows with every concurrent request; raise the limit to {floor} or more "
                f"(a few cores for the CPU backend), or set only a request"
            )
        elif 0 < cpus < floor:
            workers = f" and {gpus} GPU worker processes" if gpus >= cpus_row.worker_per_gpu_from else ""
            found.append(
                f"{server.label}: resources.limits.cpu {raw}{merged} is below the {floor} CPUs this {row.display} "
                f"server's own processes keep busy with {gpus} GPU{'s' if gpus > 1 else ''} (its API server and its "
                f"engine core's busy loop{workers}; {row.display}'s docs ask 2 + N physical cores): the kernel throttles "
                f"the container every period and time to first token grows; raise the limit to {floor} or more, or set "
                f"only a request"
            )
    return found


# A CPU-computing server whose threads are left to their default (one per physical core of the node) and whose limit is
# under this many CPUs runs more compute threads than its quota on any node of two cores or more (module docstring).
_THREADS_QUOTA = 2


def _cpu_server(
    resource: Resource, server: ModelServer, display: str, floor: int, threads: object = None, no_layers: bool = False
) -> list[str]:
    """A CPU-only server (no GPU in any form, or told to offload no layer: llama.cpp --n-gpu-layers 0) of an engine that
    computes the model on CPU threads: a limit below ``floor`` CPUs (the engine table's ``cpu_inference.min_cpus``) caps
    every token's computation at that share; a limit below _THREADS_QUOTA with the threads left to their default (the
    engine table's ``threads`` setting unset) runs a thread per physical core of the node inside it."""
    resources, merged = effective_resources(resource, server.path, server.container)
    raw = get(resources, "limits", "cpu") if resources is not None else None
    if raw is None:
        return []
    try:
        cpus = parse_quantity(raw)
    except ValueError:
        return []  # not a quantity (a template's placeholder)
    why = "is told to offload no layer to a GPU (gpu layers 0)" if no_layers else "holds no GPU"
    display = display if display.endswith("server") else f"{display} server"
    if 0 < cpus and floor <= cpus < _THREADS_QUOTA and threads is None:
        return [
            f"{server.label}: resources.limits.cpu {raw}{merged} on this {display}, which {why} and so computes "
            f"every token on the CPU with its threads left to their default, one per physical core of the node: those "
            f"threads share {fmt_number(cpus)} CPU per period, so on any node of two or more cores the kernel throttles "
            f"them every period and each answer crawls; raise the limit to a few cores, or set the server's thread "
            f"count to the limit"
        ]
    if not 0 < cpus < floor:
        return []
    return [
        f"{server.label}: resources.limits.cpu {raw}{merged} on this {display}, which {why} and so "
        f"computes every token on the CPU (its threads default to one per physical core of the node): the kernel lets "
        f"it run {fmt_number(cpus)} of a CPU per period and throttles it for the rest, so each answer takes "
        f"{fmt_number(floor / cpus)}x or more the time one core would and clients time out under load; raise the limit "
        f"to {floor} CPU or more (a few cores for a 7B model), or set only a request"
    ]


POLICY = Policy(
    name="serving-cpu-limit-floor",
    description=(
        "A model server's CPU limit must not be below the CPUs its engine's own processes keep busy (vLLM: its API "
        "server and engine core, and a worker per GPU from two GPUs), nor, on a CPU-only Ollama, llama.cpp or LocalAI "
        "server, below one CPU; no CPU limit is fine."
    ),
    catalog="G9",
    severity="medium",
    # Advisory: the server still serves, throttled.
    enforcement="advisory",
    remediation_steps=(
        "Raise resources.limits.cpu to the engine's floor or more (vLLM: 2 + N physical cores for N GPUs), or drop the "
        "CPU limit and keep a CPU request."
    ),
    resource_types=workload_types(*OPERATOR_TYPES),
    check_resource=_check,
    rationale=(
        'vLLM\'s "CPU Resources for GPU Deployments" (docs/configuration/optimization.md): at least 2 + N processes '
        "compete for CPU time and fewer cores than processes degrade throughput and latency; a CPU limit is enforced "
        "by CFS throttling (https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/). "
        "Catalogue row 9 (Polaris cpuLimitsMissing, Checkov CKV_K8S_11), adapted: no limit is not asked for."
    ),
)
