"""S2 (unset case): say so when vLLM takes the model's full context as --max-model-len.

Unset, max_model_len is the model's own context (131,072 tokens for Llama 3.1, 163,840 for
DeepSeek-R1), and vLLM refuses to start when one sequence of that length does not fit the KV
cache ("The model's max seq len (N) is larger than the maximum number of tokens that can be
stored in KV cache"). When the GPU is known, vllm-max-model-len-fits-kv-cache checks the fit;
this check says the length was never chosen. The same holds for every engine of the engine table whose row
says an unset context length is the model's own (components/serving_engines.toml context_unset: SGLang's
--context-length); TGI fits its default to the memory it finds, so it is not asked.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import workload_types
from policies.operators import OPERATOR_TYPES, operator_server
from policies.reading.engines import table_servers
from policies.reading.serving import engine_configs
from policies.vllm.engine_defaults import model_context

FLAG = "max-model-len"


def _check(resource: Resource, config: dict) -> list[str]:
    messages = []
    for engine in engine_configs(resource):
        if FLAG in engine.args:
            continue
        context = model_context(engine.model)
        size = f"{context:,} tokens for {engine.model}" if context else f"from {engine.model or 'the model'}'s config.json"
        shown = "max_model_len" if engine.extra else f"--{FLAG}"
        messages.append(
            f"{engine.label}: {shown} is not set, so vLLM serves the model's full context ({size}); "
            f"one such request must fit the KV cache or the engine refuses to start; set the length "
            f"you serve"
        )
    # Every other engine of the table whose row says an unset length is the model's whole context
    # (components/serving_engines.toml context_unset "model"); one that fits it to the memory (TGI) is not asked.
    for server in table_servers(resource):
        row = server.row
        if row is None or row.context_unset != "model" or "max-model-len" not in row.shown or "max-model-len" in server.args:
            continue
        context = model_context(server.model)
        size = f"{context:,} tokens for {server.model}" if context else f"from {server.model or 'the model'}'s config.json"
        messages.append(
            f"{server.label}: {row.spelling('max-model-len')} is not set, so {row.display} serves the model's full "
            f"context ({size}); its KV cache must hold one such request or long prompts are refused; set the length "
            f"you serve"
        )
    operator = operator_server(resource)
    if operator is not None and operator.max_model_len_set is False:
        context = model_context(operator.model)
        size = f"{context:,} tokens for {operator.model}" if context else f"from {operator.model or 'the model'}'s config.json"
        messages.append(
            f"spec.model.maxModelLen is not set, so the {operator.kind} operator passes no --max-model-len and "
            f"vLLM serves the model's full context ({size}); set the length you serve"
        )
    return messages


POLICY = Policy(
    name="vllm-max-model-len-explicit",
    description="vLLM's --max-model-len should be set explicitly rather than defaulting to the model's full context.",
    catalog="S2",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Set --max-model-len (Ray Serve LLM: engine_kwargs.max_model_len) to the longest prompt + completion you "
        "serve; check it with `python -m stacks size --model <id> --gpu <type> --max-model-len N`."
    ),
    resource_types=workload_types(*OPERATOR_TYPES),
    check_resource=_check,
    rationale=(
        "max_model_len defaults to the model's context from its config (https://docs.vllm.ai/en/latest/cli/serve.html), "
        "and vLLM refuses to start when one such sequence does not fit the KV cache "
        "(https://github.com/vllm-project/vllm/issues/2418)."
    ),
)
