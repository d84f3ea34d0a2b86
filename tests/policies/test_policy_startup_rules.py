"""vLLM's start-up rules as policy rows (S21-S25, components/capacity/startup.py): per rule a form someone else
writes that fires (a plain Deployment, a LeaderWorkerSet shell script, a Ray Serve LLM RayService, KServe's
Hugging Face server) and the careful form beside it that must not; S2 keeps only the KV-cache fit."""

from __future__ import annotations

import copy

from policy_fixtures import (
    DEPLOYMENT_TYPE,
    ISVC_TYPE,
    LWS_TYPE,
    RAY_CLUSTER_TYPE,
    deployment_props,
    isvc,
    isvc_props,
    messages,
    ray_serve_llm,
    resource,
    set_arg,
    vllm_container,
)

from policies.vllm.max_model_len_fits_kv_cache import POLICY as S2
from policies.vllm.startup_batched_tokens_cover_seqs import POLICY as BATCH
from policies.vllm.startup_context_within_model_limit import POLICY as CONTEXT
from policies.vllm.startup_dtype_supported_by_gpu import POLICY as DTYPE
from policies.vllm.startup_quantization_supported import POLICY as QUANT
from policies.vllm.startup_tp_divides_attention_heads import POLICY as HEADS

RULES = (BATCH, HEADS, CONTEXT, QUANT, DTYPE)


def fired(res) -> dict[str, list[str]]:
    """Every start-up row and S2 over one resource, by policy name (rows that stay quiet left out)."""
    found = {p.name: messages(p, res) for p in (*RULES, S2)}
    return {name: found_messages for name, found_messages in found.items() if found_messages}


def third_party_deployment(*args: str, env: list | None = None, node_selector: dict | None = None):
    """A Deployment as a tutorial writes it: `vllm serve MODEL` with flags as separate tokens, no annotations."""
    container = {
        "name": "vllm",
        "image": "vllm/vllm-openai:v0.33.0",
        "command": ["vllm", "serve"],
        "args": list(args),
        "resources": {"limits": {"nvidia.com/gpu": "1"}},
    }
    if env:
        container["env"] = env
    spec = {"containers": [container]}
    if node_selector:
        spec["nodeSelector"] = node_selector
    props = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "vllm"}, "spec": {"template": {"spec": spec}}}
    return resource(DEPLOYMENT_TYPE, props)


def test_our_rendered_forms_break_no_rule():
    assert fired(isvc()) == {}
    assert fired(resource(DEPLOYMENT_TYPE, deployment_props())) == {}


# --- S21 max-num-batched-tokens covers max-num-seqs ----------------------------------------------------


def test_batched_tokens_below_seqs_fires_on_a_plain_deployment():
    res = third_party_deployment("meta-llama/Llama-3.1-8B-Instruct", "--max-num-seqs", "512", "--max-num-batched-tokens", "256")
    assert fired(res) == {
        BATCH.name: [
            "container vllm: meta-llama/Llama-3.1-8B-Instruct does not start: --max-num-batched-tokens 256 is below "
            "--max-num-seqs 512; vLLM's scheduler config refuses it (SchedulerConfig: max_num_batched_tokens must be >= "
            "max_num_seqs)"
        ]
    }
    careful = third_party_deployment(
        "meta-llama/Llama-3.1-8B-Instruct", "--max-num-seqs", "512", "--max-num-batched-tokens", "512"
    )
    assert fired(careful) == {}


def test_an_unset_batch_size_takes_the_default_of_the_pinned_gpu():
    # vLLM 0.33 on a 22 GiB L4 defaults max_num_batched_tokens to 2048 (engine/arg_utils.py get_batch_defaults).
    res = third_party_deployment(
        "meta-llama/Llama-3.1-8B-Instruct",
        "--max-model-len",
        "4096",
        "--max-num-seqs",
        "4096",
        node_selector={"karpenter.k8s.aws/instance-gpu-name": "l4"},
    )
    assert messages(BATCH, res) == [
        "container vllm: meta-llama/Llama-3.1-8B-Instruct does not start: --max-num-batched-tokens 2,048 is below "
        "--max-num-seqs 4,096; vLLM's scheduler config refuses it (SchedulerConfig: max_num_batched_tokens must be >= "
        "max_num_seqs)"
    ]
    # Without a pinned GPU the default is unknown: not judged rather than guessed.
    assert messages(BATCH, third_party_deployment("meta-llama/Llama-3.1-8B-Instruct", "--max-num-seqs", "4096")) == []


def test_without_chunked_prefill_the_batch_must_hold_a_prompt():
    args = (
        "meta-llama/Llama-3.1-8B-Instruct",
        "--max-model-len",
        "8192",
        "--max-num-seqs",
        "64",
        "--max-num-batched-tokens",
        "4096",
    )
    assert messages(BATCH, third_party_deployment(*args)) == []
    assert messages(BATCH, third_party_deployment(*args, "--no-enable-chunked-prefill")) == [
        "container vllm: meta-llama/Llama-3.1-8B-Instruct does not start: --max-num-batched-tokens 4,096 is below "
        "--max-model-len 8,192 with chunked prefill disabled; vLLM's scheduler config refuses it (a prompt must fit one "
        "batch)"
    ]
    # Turned back on later on the line: argparse keeps the last of --no-X / --X (one BooleanOptionalAction field).
    assert messages(BATCH, third_party_deployment(*args, "--no-enable-chunked-prefill", "--enable-chunked-prefill")) == []


# --- S22 tensor parallel size divides the attention heads ---------------------------------------------


def lws(tp: str):
    leader = {
        "name": "vllm-leader",
        "image": "vllm/vllm-openai:v0.33.0",
        "command": ["sh", "-c"],
        "args": [
            "bash multi-node-serving.sh leader --ray_cluster_size=$(LWS_GROUP_SIZE); "
            f"python3 -m vllm.entrypoints.openai.api_server --port 8080 --model Qwen/Qwen2.5-7B-Instruct "
            f"--tensor-parallel-size {tp}"
        ],
        "resources": {"limits": {"nvidia.com/gpu": tp}},
    }
    props = {
        "metadata": {"name": "vllm"},
        "spec": {"leaderWorkerTemplate": {"size": 1.0, "leaderTemplate": {"spec": {"containers": [leader]}}}},
    }
    return resource(LWS_TYPE, props)


def test_tp_that_splits_no_heads_evenly_fires_on_a_leader_worker_set():
    assert fired(lws("3")) == {
        HEADS.name: [
            "spec.leaderWorkerTemplate.leaderTemplate.spec container vllm-leader: Qwen/Qwen2.5-7B-Instruct does not start: "
            "--tensor-parallel-size 3 does not divide the model's 28 attention heads; vLLM refuses to start (use a divisor)"
        ]
    }
    # 7 divides the 28 attention heads but not the 4 KV heads (nor they it).
    assert messages(HEADS, lws("7")) == [
        "spec.leaderWorkerTemplate.leaderTemplate.spec container vllm-leader: Qwen/Qwen2.5-7B-Instruct does not start: "
        "--tensor-parallel-size 7 and the model's 4 KV heads do not divide one another; vLLM refuses to start"
    ]
    assert fired(lws("4")) == {}


def ray_cluster(tp: int):
    """A RayCluster whose GPU-less head runs `vllm serve` over Ray's placement (a bash script, as KubeRay examples do)."""
    head = {
        "name": "ray-head",
        "image": "vllm/vllm-openai:v0.33.0",
        "command": ["/bin/bash", "-c"],
        "args": [
            f"ray start --head && vllm serve meta-llama/Llama-3.3-70B-Instruct --tensor-parallel-size {tp} "
            f"--distributed-executor-backend ray"
        ],
    }
    worker = {"name": "ray-worker", "image": "vllm/vllm-openai:v0.33.0", "resources": {"limits": {"nvidia.com/gpu": 8.0}}}
    props = {
        "metadata": {"name": "big"},
        "spec": {
            "headGroupSpec": {"template": {"spec": {"containers": [head]}}},
            "workerGroupSpecs": [{"replicas": 1.0, "template": {"spec": {"containers": [worker]}}}],
        },
    }
    return resource(RAY_CLUSTER_TYPE, props)


def test_tp_over_a_ray_cluster():
    # Llama-3.3-70B: 64 attention heads, 8 KV heads. 6 divides neither.
    assert messages(HEADS, ray_cluster(6)) == [
        "spec.headGroupSpec.template.spec container ray-head: meta-llama/Llama-3.3-70B-Instruct does not start: "
        "--tensor-parallel-size 6 does not divide the model's 64 attention heads; vLLM refuses to start (use a divisor)"
    ]
    assert messages(HEADS, ray_cluster(8)) == []


def test_s2_leaves_a_refused_start_to_the_rules_row():
    # Our own InferenceService on an L40S with TP 3: before, S2 reported "does not start: tensorParallelSize 3 ...";
    # now S22 says it under its name and S2, which judges the KV cache, is quiet.
    props = isvc_props()
    props["spec"]["predictor"]["nodeSelector"]["karpenter.k8s.aws/instance-gpu-name"] = "l40s"
    set_arg(vllm_container(props), "tensor-parallel-size", "3")
    found = fired(isvc(props))
    assert list(found) == [HEADS.name]
    # The same server with a KV cache too small for its context still fails S2 (the memory is S2's).
    set_arg(vllm_container(props), "tensor-parallel-size", "1")
    set_arg(vllm_container(props), "max-model-len", "131072")
    props["spec"]["predictor"]["nodeSelector"]["karpenter.k8s.aws/instance-gpu-name"] = "l4"
    assert list(fired(isvc(props))) == [S2.name]


# --- S23 max-model-len within the model's limit -------------------------------------------------------


def ray_service(engine_kwargs: str):
    return ray_serve_llm(f"engine_kwargs: {{{engine_kwargs}}}")


def test_context_beyond_the_model_fires_on_ray_serve_llm_engine_kwargs():
    assert fired(ray_service("max_model_len: 65536, tensor_parallel_size: 2")) == {
        CONTEXT.name: [
            "serveConfigV2 application llms llm_configs[0]: Qwen/Qwen2.5-7B-Instruct does not start: max_model_len 65,536 "
            "exceeds the model's maximum of 32,768 tokens; vLLM refuses it (unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1); lower "
            "max_model_len"
        ]
    }
    assert fired(ray_service("max_model_len: 32768, tensor_parallel_size: 2")) == {}
    # engine_kwargs are read for every rule, in their own spelling.
    assert messages(HEADS, ray_service("tensor_parallel_size: 3")) == [
        "serveConfigV2 application llms llm_configs[0]: Qwen/Qwen2.5-7B-Instruct does not start: tensor_parallel_size 3 "
        "does not divide the model's 28 attention heads; vLLM refuses to start (use a divisor)"
    ]


def test_ray_serve_llm_with_chunked_prefill_off_must_hold_a_prompt_in_a_batch():
    # enable_chunked_prefill: false is --no-enable-chunked-prefill, not the default (chunked).
    batch = "max_model_len: 8192, max_num_seqs: 64, max_num_batched_tokens: 4096"
    assert messages(BATCH, ray_service(batch)) == []
    assert messages(BATCH, ray_service(f"{batch}, enable_chunked_prefill: true")) == []
    assert messages(BATCH, ray_service(f"{batch}, enable_chunked_prefill: false")) == [
        "serveConfigV2 application llms llm_configs[0]: Qwen/Qwen2.5-7B-Instruct does not start: max_num_batched_tokens "
        "4,096 is below max_model_len 8,192 with chunked prefill disabled; vLLM's scheduler config refuses it (a prompt "
        "must fit one batch)"
    ]


def test_the_long_context_override_is_honoured():
    args = ("Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "65536")
    assert len(messages(CONTEXT, third_party_deployment(*args))) == 1
    assert messages(CONTEXT, third_party_deployment(*args, env=[{"name": "VLLM_ALLOW_LONG_MAX_MODEL_LEN", "value": "1"}])) == []
    assert (
        messages(CONTEXT, third_party_deployment(*args, env=[{"name": "VLLM_ALLOW_LONG_MAX_MODEL_LEN", "value": "True"}])) == []
    )
    assert (
        len(messages(CONTEXT, third_party_deployment(*args, env=[{"name": "VLLM_ALLOW_LONG_MAX_MODEL_LEN", "value": "0"}]))) == 1
    )


def test_kserve_hugging_face_server_on_its_vllm_backend():
    props = {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "hf"},
        "spec": {
            "predictor": {
                "model": {
                    "modelFormat": {"name": "huggingface"},
                    "args": ["--model_id=meta-llama/Llama-3.1-8B-Instruct", "--max_model_len=262144"],
                    "resources": {"limits": {"nvidia.com/gpu": "1"}},
                }
            }
        },
    }
    assert messages(CONTEXT, resource(ISVC_TYPE, props)) == [
        "spec.predictor.model: meta-llama/Llama-3.1-8B-Instruct does not start: --max-model-len 262,144 exceeds the "
        "model's maximum of 131,072 tokens; vLLM refuses it (unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1); lower --max-model-len"
    ]
    careful = copy.deepcopy(props)
    careful["spec"]["predictor"]["model"]["args"][1] = "--max_model_len=131072"
    assert messages(CONTEXT, resource(ISVC_TYPE, careful)) == []


# --- S24 quantization supported -----------------------------------------------------------------------


def test_an_offline_method_on_a_16_bit_checkpoint_fires():
    assert fired(third_party_deployment("meta-llama/Llama-3.1-8B-Instruct", "-q", "awq")) == {
        QUANT.name: [
            "container vllm: meta-llama/Llama-3.1-8B-Instruct does not start: --quantization awq needs a checkpoint "
            "quantized with it, and this one is bfloat16; use a pre-quantized checkpoint or --quantization fp8"
        ]
    }
    assert fired(third_party_deployment("meta-llama/Llama-3.1-8B-Instruct", "--quantization", "fp8")) == {}
    # A checkpoint quantized with the method (gpt-oss ships MXFP4 weights) is read from its config.
    assert messages(QUANT, third_party_deployment("openai/gpt-oss-20b", "--quantization", "mxfp4")) == []


# --- S25 dtype supported by the GPU --------------------------------------------------------------------


def test_bfloat16_on_a_t4_fires_on_a_plain_deployment():
    # A g4dn node (T4, compute capability 7.5) pinned by instance type, as a tutorial's Deployment does.
    t4 = {"node.kubernetes.io/instance-type": "g4dn.xlarge"}
    res = third_party_deployment("Qwen/Qwen2.5-7B-Instruct", "--dtype", "bfloat16", "--max-model-len", "4096", node_selector=t4)
    assert messages(DTYPE, res) == [
        "container vllm: Qwen/Qwen2.5-7B-Instruct does not start: --dtype bfloat16 needs a GPU of compute capability "
        '8.0 or above, and the T4 has 7.5; vLLM refuses it at start-up ("Bfloat16 is only supported on GPUs with '
        'compute capability of at least 8.0"); use --dtype float16'
    ]
    # The careful forms: float16 (or auto, which falls back to float16) on the T4, bfloat16 on an Ampere part.
    for dtype in ("float16", "auto"):
        careful = third_party_deployment(
            "Qwen/Qwen2.5-7B-Instruct", "--dtype", dtype, "--max-model-len", "4096", node_selector=t4
        )
        assert messages(DTYPE, careful) == [], dtype
    for label in ("a10g", "l4", "a100", "h100"):
        res = third_party_deployment(
            "Qwen/Qwen2.5-7B-Instruct",
            "--dtype",
            "bfloat16",
            "--max-model-len",
            "4096",
            node_selector={"karpenter.k8s.aws/instance-gpu-name": label},
        )
        assert messages(DTYPE, res) == [], label
    # Without a pinned GPU the device is unknown: not judged.
    assert messages(DTYPE, third_party_deployment("Qwen/Qwen2.5-7B-Instruct", "--dtype", "bfloat16")) == []


# --- a model the catalogue does not know --------------------------------------------------------------


def test_a_stamped_refusal_is_reported_by_its_rule_and_not_by_s2():
    props = isvc_props()
    vllm_container(props)["args"][0] = "acme/private-70b"
    props["metadata"]["annotations"]["llm-serving.io/capacity-plan"] = (
        '{"accounting":"0.20-0.33","fits":false,"gpusPerReplica":3,"kvCacheGib":3.1,"kvCacheTokens":20000,'
        '"reason":"tensorParallelSize 3 does not divide the model\'s 64 attention heads; vLLM refuses to start (use a '
        'divisor)","startupRule":"vllm-tp-divides-attention-heads"}'
    )
    assert fired(isvc(props)) == {
        HEADS.name: [
            "container kserve-container: acme/private-70b does not start: tensorParallelSize 3 does not divide the model's 64 "
            "attention heads; vLLM refuses to start (use a divisor) [capacity plan stamped by llm-serving]"
        ]
    }
