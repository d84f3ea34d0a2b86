"""S2, the start-up rules (S22, S23), image pinning (G1) and model pinning (S17) read the engine table
(components/serving_engines.toml) for every engine, not only vLLM: each rule fires on a third-party form and stays
silent on its careful form.

Third-party forms: the corpus (../shared/corpus/manifests-v2, provenance in PROVENANCE-v2.md), and containers written
from each engine's own docs at the row's release: SGLang's `python3 -m sglang.launch_server --model-path M --tp N
--context-length L` (python/sglang/srt/server_args.py), TGI's launcher environment (MODEL_ID, NUM_SHARD, QUANTIZE:
text-generation-inference v3.3.7 launcher/src/main.rs), llama.cpp's server images (docs/docker.md).
"""

from __future__ import annotations

import copy

import yaml

from policies.framework import Resource
from policies.k8s_generic import image_tag_pinned
from policies.models import model_source_pinned
from policies.registry import evaluate
from policies.timeouts import termination_drains_streams
from policies.vllm import (
    max_model_len_fits_kv_cache,
    max_model_len_unset,
    startup_context_within_model_limit,
    startup_tp_divides_attention_heads,
    tp_matches_gpu_limit,
)
from tests.conftest import shared_path

V2 = ("corpus", "manifests-v2")
SHA = "a09a35458c702241afdd5dd84d6e6c3d3e6e3e8a"


def resource(obj: dict) -> Resource:
    group_version = obj["apiVersion"] if "/" in obj["apiVersion"] else f"core/{obj['apiVersion']}"
    return Resource(f"kubernetes:{group_version}:{obj['kind']}", obj["metadata"]["name"], copy.deepcopy(obj))


def corpus(*parts: str) -> list[dict]:
    """The Kubernetes objects of a corpus file."""
    return [d for d in yaml.safe_load_all(shared_path(*V2, *parts).read_text()) if isinstance(d, dict)]


def messages(policy, obj: dict) -> list[str]:
    return policy.POLICY.check_resource(resource(obj), policy.POLICY.defaults())


def deployment(container: dict, **pod) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "llm", "namespace": "llm"},
        "spec": {"template": {"spec": {"containers": [container], **pod}}},
    }


def sglang(*args: str, env: list | None = None) -> dict:
    container = {
        "name": "sglang",
        "image": "lmsysorg/sglang:v0.5.3-cu126",
        "command": ["python3", "-m", "sglang.launch_server", "--host", "0.0.0.0", "--port", "30000", *args],
        "resources": {"limits": {"nvidia.com/gpu": 1}},
    }
    if env:
        container["env"] = env
    return deployment(container)


# --- the GKE TGI sample (corpus v2 row 8): Llama 3 70B on 2x L4, 4-bit bitsandbytes, NUM_SHARD 2 -----------------


def gke_tgi(**env: str | None) -> dict:
    """The GKE sample's TGI Deployment with its model swapped for Llama 3.1 70B (the same architecture: 64 heads,
    8 KV heads, which the catalogue knows) and ``env`` set (None removes a variable)."""
    (obj,) = corpus(
        "GoogleCloudPlatform__kubernetes-engine-samples", "ai-ml__llm-multiple-gpus__llama3-70b__text-generation-inference.yaml"
    )
    (container,) = obj["spec"]["template"]["spec"]["containers"]
    values = {e["name"]: e for e in container["env"]}
    values["MODEL_ID"]["value"] = "meta-llama/Llama-3.1-70B-Instruct"
    for name, value in env.items():
        if value is None:
            values.pop(name, None)
        else:
            values[name] = {"name": name, "value": value}
    container["env"] = list(values.values())
    return obj


def test_tgi_sample_as_published_is_silent_on_s2_and_the_startup_rules():
    # NUM_SHARD 2 divides 64 heads and 8 KV heads; QUANTIZE bitsandbytes-nf4 shrinks the weights while loading (not
    # judged); TGI fits an unset MAX_TOTAL_TOKENS to the memory (launcher/src/main.rs L693), so S2's unset advisory
    # does not apply to it.
    obj = gke_tgi()
    for policy in (max_model_len_fits_kv_cache, max_model_len_unset, startup_tp_divides_attention_heads):
        assert messages(policy, obj) == [], policy.POLICY.name


def test_tgi_weights_that_cannot_fit_two_l4s_without_quantization():
    assert messages(max_model_len_fits_kv_cache, gke_tgi(QUANTIZE=None)) == [
        "container llm: meta-llama/Llama-3.1-70B-Instruct on 2x L4 (22.04 GiB) does not start: its weights take 65.71 GiB "
        "per GPU (131.42 GiB over tensor parallel 2 x pipeline parallel 1), more than all of the GPU's memory (22.04 "
        "GiB), so Hugging Face TGI cannot load them; raise --num-shard (more GPUs per replica), serve a quantized "
        "checkpoint or use a GPU with more memory"
    ]


def test_tgi_shards_kv_heads_without_replicating_them():
    # 16 shards divide the 64 attention heads but not the 8 KV heads: vLLM would replicate them, TGI refuses
    # (server/text_generation_server/models/custom_modeling/flash_llama_modeling.py L172-175 at v3.3.7).
    assert messages(startup_tp_divides_attention_heads, gke_tgi(NUM_SHARD="16")) == [
        "container llm: meta-llama/Llama-3.1-70B-Instruct does not start: --num-shard 16 does not divide the model's "
        "8 KV heads; Hugging Face TGI refuses to start (it shards KV heads without replicating them)"
    ]


# --- SGLang ---------------------------------------------------------------------------------------------------------


def test_sglang_tp_that_does_not_divide_the_heads():
    found = messages(startup_tp_divides_attention_heads, sglang("--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--tp", "3"))
    assert found == [
        "container sglang: meta-llama/Llama-3.1-8B-Instruct does not start: --tp-size 3 does not divide the model's 32 "
        "attention heads; SGLang refuses to start (use a divisor)"
    ]
    # 16 ranks over 8 KV heads: SGLang replicates them (layers/linear.py QKVParallelLinear), so it starts.
    careful = sglang("--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--tp-size", "16")
    assert messages(startup_tp_divides_attention_heads, careful) == []


def test_sglang_context_above_the_model_unless_its_override_is_set():
    # Qwen2.5-7B-Instruct derives 32,768 tokens; SGLang raises on 65,536 unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN
    # (configs/model_config.py ModelConfig._derive_context_length).
    args = ("--model-path", "Qwen/Qwen2.5-7B-Instruct", "--context-length", "65536")
    assert messages(startup_context_within_model_limit, sglang(*args)) == [
        "container sglang: Qwen/Qwen2.5-7B-Instruct does not start: --context-length 65,536 exceeds the model's maximum "
        "of 32,768 tokens; SGLang refuses it (unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1); lower --context-length"
    ]
    allowed = sglang(*args, env=[{"name": "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN", "value": "1"}])
    assert messages(startup_context_within_model_limit, allowed) == []
    # vLLM's variable does not lift SGLang's limit.
    other = sglang(*args, env=[{"name": "VLLM_ALLOW_LONG_MAX_MODEL_LEN", "value": "1"}])
    assert len(messages(startup_context_within_model_limit, other)) == 1


def test_sglang_weights_above_its_memory_fraction():
    pinned = {"nodeSelector": {"cloud.google.com/gke-accelerator": "nvidia-h100-80gb"}}
    obj = sglang("--model-path", "meta-llama/Llama-3.1-70B-Instruct", "--tp", "1", "--mem-fraction-static", "0.85")
    obj["spec"]["template"]["spec"].update(pinned)
    (message,) = messages(max_model_len_fits_kv_cache, obj)
    assert "its weights take 131.42 GiB per GPU" in message and "more than --mem-fraction-static=0.85 of" in message
    careful = sglang("--model-path", "meta-llama/Llama-3.1-70B-Instruct", "--tp", "2", "--mem-fraction-static", "0.85")
    careful["spec"]["template"]["spec"].update(pinned)
    assert messages(max_model_len_fits_kv_cache, careful) == []


def test_the_sglang_sample_is_asked_for_its_context_length():
    # sgl-project/sglang docker/k8s-sglang-service.yaml (corpus v2 row 1) leaves --context-length unset.
    found = [v.message for v in evaluate([resource(o) for o in corpus("sgl-project__sglang", "docker__k8s-sglang-service.yaml")])]
    assert any("--context-length is not set, so SGLang serves the model's full context (131,072 tokens" in m for m in found)


# --- image and model pinning ----------------------------------------------------------------------------------------


def test_moving_engine_tags_from_the_table():
    dev = sglang("--model-path", "Qwen/Qwen3-8B")
    dev["spec"]["template"]["spec"]["containers"][0]["image"] = "lmsysorg/sglang:dev"
    (message,) = messages(image_tag_pinned, dev)
    assert message.startswith("container sglang: image lmsysorg/sglang:dev uses dev, a tag SGLang moves to each new build")
    llama = {"name": "llama", "image": "ghcr.io/ggml-org/llama.cpp:server-cuda", "args": ["-hf", "ggml-org/gemma-3-1b-it-GGUF"]}
    (message,) = messages(image_tag_pinned, deployment(llama))
    assert "server-cuda, a tag llama.cpp server moves to each new build" in message
    # The versioned build of the same image (server-cuda-b<N>), and SGLang's `dev-cu13` on an image no engine row names
    # (G1's own default list holds branch-like tags such as `dev` for every image; engine tags stay the engine's).
    assert messages(image_tag_pinned, deployment(dict(llama, image="ghcr.io/ggml-org/llama.cpp:server-cuda-b6000"))) == []
    assert messages(image_tag_pinned, deployment({"name": "tool", "image": "example.com/tool:dev-cu13"})) == []


def test_a_moving_build_word_inside_a_tag_and_a_node_local_image():
    """Held-out set 8 (after its measurement): crusoecloud/vllm-rayservice-model-serving-examples
    qwen3_5-35b-vllm/vllm-deployment.yaml runs vllm/vllm-openai:cu130-nightly-x86_64, and aatchison/deploy-vllm-k8s
    deploy-gemma4-31B-bf16-tp2.yaml runs docker.io/library/vllm-gemma4:local with imagePullPolicy Never."""
    nightly = {"name": "vllm", "image": "vllm/vllm-openai:cu130-nightly-x86_64", "args": ["--model", "m"]}
    (message,) = messages(image_tag_pinned, deployment(nightly))
    assert "uses cu130-nightly-x86_64, a moving build tag (no version or date in it)" in message
    # Careful forms: a dated nightly and a versioned one name one build.
    for tag in ("nightly-2024-06-01", "v0.9.0-cu130", "0.9.0-nightly"):
        assert messages(image_tag_pinned, deployment(dict(nightly, image=f"vllm/vllm-openai:{tag}"))) == []
    local = {"name": "vllm", "image": "docker.io/library/vllm-gemma4:local", "imagePullPolicy": "Never"}
    found = evaluate([resource(deployment(local))], policies=[image_tag_pinned.POLICY])
    assert [(v.enforcement, "imagePullPolicy Never and a tag naming no version" in v.message) for v in found] == [
        ("advisory", True)
    ]
    # A versioned tag pre-loaded on air-gapped nodes stays silent; the same unversioned tag pulled from a registry is
    # no node-local image, only a build label that names no release (advice, hygiene).
    assert messages(image_tag_pinned, deployment(dict(local, image="registry.local/vllm-gemma4:0.11.0"))) == []
    pulled = evaluate([resource(deployment(dict(local, imagePullPolicy="IfNotPresent")))], policies=[image_tag_pinned.POLICY])
    # ``local`` is a tag each local build moves (MOVING_TAGS, session 50: spent set 79 inference:local, label G1).
    assert [(v.enforcement, "uses the mutable tag local" in v.message) for v in pulled] == [("advisory", True)]


def test_an_llm_inference_service_hub_uri_without_a_revision():
    (obj,) = corpus("kserve__kserve", "docs__samples__llmisvc__single-node-gpu__llm-inference-service-qwen2-7b-gpu.yaml")
    assert messages(model_source_pinned, obj) == [
        "spec.model.uri: model Qwen/Qwen2.5-7B-Instruct comes from the Hugging Face Hub with no revision, so each pod "
        "serves whatever the repository holds when it starts; pin the revision in spec.model.uri "
        "(hf://<org>/<model>:<revision>) to a commit SHA"
    ]
    # KServe's storage initializer reads the part after ':' as the revision (kserve v0.20.0 kserve_storage.py L650-657).
    obj["spec"]["model"]["uri"] = f"hf://Qwen/Qwen2.5-7B-Instruct:{SHA}"
    assert messages(model_source_pinned, obj) == []


def test_nim_trust_custom_code_counts_only_for_a_model_from_a_repository():
    # The k8s-nim-operator multi-node sample (corpus v2 row 19) sets NIM_TRUST_CUSTOM_CODE for the image's own
    # DeepSeek-R1 profile, pulled from NGC with the pinned image: no moving repository, but the model's code still runs
    # with no allow-list, so it is reported as advice (unproven), never as a block.
    (_, nim_service) = corpus(
        "NVIDIA__k8s-nim-operator", "config__samples__nim__serving__advanced__multi-node__multi-node-nimservice.yaml"
    )
    own = evaluate([resource(nim_service)], policies=[model_source_pinned.POLICY])
    assert [v.enforcement for v in own] == ["advisory"] and "deepseek-ai/deepseek-r1" in own[0].message
    # The same NIM pointed at a Hub repository (NIM 2.0 NIM_MODEL_PATH hf://...) runs that repository's code.
    nim_service["spec"]["env"].append({"name": "NIM_MODEL_PATH", "value": "hf://deepseek-ai/DeepSeek-R1"})
    (message,) = messages(model_source_pinned, nim_service)
    assert message.startswith("spec.env: env NIM_TRUST_CUSTOM_CODE imports Python from the repository of deepseek-ai/DeepSeek-R1")


# --- tensor parallel against the GPU limit (S3) -----------------------------------------------------------------------


def test_multi_node_sglang_samples_hold_their_ranks():
    # SGLang's own 2-node StatefulSet (corpus v2 row 2: --tp 16 --nnodes 2, 8 GPUs a pod), llm-d's Kimi StatefulSet
    # (row 24: --tp-size 16 --nnodes 2), LWS's SGLang example (corpus 1: --tp 2 --nnodes 2, one GPU a pod) and the GKE
    # TGI sample (NUM_SHARD 2 on 2 GPUs) are careful forms.
    forms = [
        corpus("sgl-project__sglang", "docker__k8s-sglang-distributed-sts.yaml"),
        corpus("llm-d__llm-d", "guides__agentic-serving__modelserver__gpu__sglang__kimi-k3__base__statefulset.yaml"),
        [gke_tgi()],
        [
            d
            for d in yaml.safe_load_all(
                shared_path("corpus", "manifests", "kubernetes-sigs__lws", "docs__examples__sglang__lws.yaml").read_text()
            )
            if d
        ],
    ]
    for objs in forms:
        for obj in objs:
            assert messages(tp_matches_gpu_limit, obj) == [], obj["metadata"]["name"]


def test_tensor_parallel_beyond_the_gpus_of_a_pod():
    (sts, *_) = corpus("sgl-project__sglang", "docker__k8s-sglang-distributed-sts.yaml")
    (container,) = sts["spec"]["template"]["spec"]["containers"]
    # Without --nnodes the 16 ranks would all be asked of one pod's 8 GPUs.
    container["args"] = [container["args"][0].replace("--nnodes 2 \\\n", "")]
    assert messages(tp_matches_gpu_limit, sts) == [
        "container sglang-container: --tp-size 16 × --pp-size 1 = 16 GPUs, but resources.limits nvidia.com/gpu is 8; "
        "SGLang runs one rank per GPU, so spare GPUs sit idle and missing ones stop the engine at startup"
    ]
    assert messages(tp_matches_gpu_limit, gke_tgi(NUM_SHARD="4")) == [
        "container llm: --num-shard 4 × --pipeline-parallel-size 1 = 4 GPUs, but resources.limits nvidia.com/gpu is 2; "
        "Hugging Face TGI runs one rank per GPU, so spare GPUs sit idle and missing ones stop the engine at startup"
    ]


# --- drain on SIGTERM (S10) -------------------------------------------------------------------------------------------

LLAMA = {
    # llama.cpp tools/server/README.md and docs/docker.md: the server image runs llama-server; -hf pulls a GGUF repo.
    "name": "llama",
    "image": "ghcr.io/ggml-org/llama.cpp:server-cuda-b6000",
    "args": ["-hf", "ggml-org/gemma-3-1b-it-GGUF", "--port", "8080", "-c", "8192"],
    "resources": {"limits": {"nvidia.com/gpu": 1}},
}


def test_llama_cpp_stops_at_once_so_the_prestop_hook_must_wait_out_the_requests():
    # tools/server/server.cpp (00dd0816): SIGTERM -> ctx_server.terminate(); nothing in flight is waited for.
    found = messages(termination_drains_streams, deployment(copy.deepcopy(LLAMA), terminationGracePeriodSeconds=60))
    assert found == [
        "container llama: no preStop hook: the pod gets SIGTERM while the Service and load balancers still send it "
        "requests; sleep in preStop until they have deregistered it",
        "container llama: on SIGTERM llama.cpp server stops at once and its in-flight requests fail (engine table drain: "
        "aborts), so the preStop hook must hold SIGTERM back through the longest request 300s (setting "
        "maxRequestSeconds): sleep that long, or loop until llamacpp:requests_processing and llamacpp:requests_deferred "
        "read 0",
        "container llama: terminationGracePeriodSeconds 60 < the longest request 300s (setting maxRequestSeconds) the "
        "preStop hook must wait out: the kubelet kills llama.cpp server's streams in flight on scale-down",
    ]
    # Careful forms: an exec sleep through the longest request, or a loop on the server's own gauges.
    sleeping = dict(LLAMA, lifecycle={"preStop": {"exec": {"command": ["/bin/sh", "-c", "sleep 310"]}}})
    assert messages(termination_drains_streams, deployment(sleeping, terminationGracePeriodSeconds=330)) == []
    loop = "while curl -s localhost:8080/metrics | grep -E 'llamacpp:requests_processing [1-9]|llamacpp:requests_deferred [1-9]'; do sleep 1; done"
    draining = dict(LLAMA, lifecycle={"preStop": {"exec": {"command": ["/bin/sh", "-c", loop]}}})
    assert messages(termination_drains_streams, deployment(draining, terminationGracePeriodSeconds=330)) == []
    assert len(messages(termination_drains_streams, deployment(draining, terminationGracePeriodSeconds=120))) == 1


def test_an_exec_sleep_prestop_counts_for_every_engine():
    # TGI waits --graceful-termination-timeout (set to the longest request here) after an exec preStop sleep of 15 s.
    obj = gke_tgi(GRACEFUL_TERMINATION_TIMEOUT="300")
    spec = obj["spec"]["template"]["spec"]
    spec["terminationGracePeriodSeconds"] = 330
    spec["containers"][0]["lifecycle"] = {"preStop": {"exec": {"command": ["sleep", "15"]}}}
    assert messages(termination_drains_streams, obj) == []
    spec["terminationGracePeriodSeconds"] = 310  # 15 s + 300 s does not fit
    (message,) = messages(termination_drains_streams, obj)
    assert message.startswith("container llm: terminationGracePeriodSeconds 310 < preStop 15s + longest request 300s")
