"""G10: a CPU model server whose memory limit is below the model it loads (blocking where the published download alone
exceeds it on an ollama/ollama release v0.2.0 to before v0.30.0, advice where the estimate or the KV cache does, or on
the latest tag and later releases, whose llama-server maps the weights: policies/reading/cpu_model_memory.py).

The readers: policies/reading/cpu_model_memory.py (Ollama, llama.cpp, LocalAI handed no GPU: the Ollama library
table's published download sizes, tags naming a size, and its KV cache per token at Ollama's default context) and
policies/reading/vllm_cpu_memory.py (vLLM's CPU backend: bfloat16 weights plus VLLM_CPU_KVCACHE_SPACE, 4 GiB unset).
Every pod template the engine readers reach gets it.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import workload_types
from policies.operators import OPERATOR_TYPES
from policies.reading.cpu_model_memory import cpu_model_shortfalls
from policies.reading.vllm_cpu_memory import vllm_cpu_shortfalls


def _check(resource: Resource, config: dict) -> list[str]:
    return cpu_model_shortfalls(resource) + vllm_cpu_shortfalls(resource)


POLICY = Policy(
    name="cpu-model-memory-fits",
    description=(
        "A CPU model server's memory limit holds the model it loads: blocking when the published download alone "
        "exceeds it on an Ollama release before v0.30.0, advice when estimated weights or the default KV cache do, "
        "or on the latest tag."
    ),
    catalog="G10",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Raise the memory limit above the model's weights plus its context cache (Ollama's default context, vLLM's "
        "VLLM_CPU_KVCACHE_SPACE), give the server a GPU, or load a smaller model or quantization."
    ),
    resource_types=workload_types(*OPERATOR_TYPES),
    check_resource=_check,
    rationale=(
        "A CPU model server holds its weights and KV cache in host memory, counted against the container's memory "
        "limit (https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/); Ollama v0.13.0 to "
        "v0.24 reads that limit (discover/cpu_linux.go getCPUMemByCgroups) and refuses a model above it, earlier "
        "releases read CPU models into memory with mmap off and are OOM-killed; from v0.30.0 llama-server maps the "
        "weights as page cache, so a shortfall there is advice."
    ),
)
