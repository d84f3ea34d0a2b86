"""S1, S10, S16 and S17 read the engine table (components/serving_engines.toml): every engine it lists is held to
them, and a new engine is one row (the last test adds one, in the test, and the rules apply to it).

Container forms are written from each engine's docs at the row's release: TGI's launcher flags and env (v3.3.7
launcher/src/main.rs), Triton's `tritonserver --model-repository` (v2.71.0), `sglang serve` (SGLang's CLI),
`llama-server -hf ... -c ...` (llama.cpp tools/server/README.md), NIM's image with NIM_MODEL_NAME.
"""

from __future__ import annotations

from pathlib import Path

from components.serving_engines import TABLE, load_engines
from policies.framework import Resource
from policies.models import model_source_pinned
from policies.reading.engines import table_servers
from policies.reading.serving import model_server_engine, use_engine_table
from policies.registry import evaluate
from policies.timeouts import termination_drains_streams
from policies.vllm import gpu_memory_utilization_bounds, startup_probe_budget

SHA = "0e9e39f249a16976918f6564b8830bc894c89659"


def deployment(container: dict, **pod) -> Resource:
    props = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "llm", "namespace": "llm"},
        "spec": {"template": {"spec": {"containers": [container], **pod}}},
    }
    return Resource(type="kubernetes:apps/v1:Deployment", name="llm", props=props)


def messages(policy, resource: Resource) -> list[str]:
    return policy.POLICY.check_resource(resource, policy.POLICY.defaults())


TGI = {
    "name": "tgi",
    "image": "ghcr.io/huggingface/text-generation-inference:3.3.7",
    "args": ["--model-id", "Qwen/Qwen3-8B", "--num-shard", "1", "--max-total-tokens", "8192"],
}
TRITON = {
    "name": "triton",
    "image": "nvcr.io/nvidia/tritonserver:25.10-trtllm-python-py3",
    "command": ["tritonserver", "--model-repository=s3://models/llama"],
}


def test_each_engine_is_recognised_by_its_row():
    assert model_server_engine(TGI) == "tgi"
    assert model_server_engine(TRITON) == "triton"
    assert (
        model_server_engine({"image": "lmsysorg/sglang:v0.5.3", "command": ["sglang", "serve", "--model-path", "m"]}) == "sglang"
    )
    assert model_server_engine({"image": "ghcr.io/ggml-org/llama.cpp:server-cuda", "args": ["-hf", "a/b-GGUF"]}) == "llama-cpp"
    assert model_server_engine({"image": "nvcr.io/nim/meta/llama-3.1-8b-instruct:1.8.4"}) == "nim"
    assert model_server_engine({"image": "python:3.12", "command": ["trtllm-serve", "/models/llama"]}) == "tensorrt-llm"
    # An engine's image running its own script still serves a model; another module in it (SGLang's router) does not.
    assert (
        model_server_engine({"image": "nvcr.io/nvidia/tensorrt-llm/release:1.0.0", "command": ["python3", "server.py"]})
        == "tensorrt-llm"
    )
    assert (
        model_server_engine({"image": "lmsysorg/sglang:v0.5.3", "command": ["python3", "-m", "sglang_router.launch_router"]})
        is None
    )
    assert model_server_engine({"image": "busybox", "command": ["sleep", "3600"]}) is None


def test_tgi_settings_read_from_flags_and_env_in_vllms_names():
    env_form = dict(
        TGI, args=[], env=[{"name": "MODEL_ID", "value": "Qwen/Qwen3-8B"}, {"name": "TRUST_REMOTE_CODE", "value": "true"}]
    )
    (server,) = table_servers(deployment(env_form))
    assert server.model == "Qwen/Qwen3-8B" and "trust-remote-code" in server.args
    (server,) = table_servers(deployment(TGI))
    assert server.args["max-model-len"] == "8192" and server.args["tensor-parallel-size"] == "1"


def test_startup_probe_is_required_of_tgi_triton_and_nim():
    # Each message names the engine's readiness endpoint from its row (TGI router/src/server.rs /health, Triton
    # src/http_server.cc /v2/health/ready).
    for container, engine, path in (
        (TGI, "Hugging Face TGI", "/health"),
        (TRITON, "Triton Inference Server", "/v2/health/ready"),
    ):
        (message,) = messages(startup_probe_budget, deployment(container))
        assert message == (
            f"container {container['name']}: no startupProbe; {engine} serves nothing until the model is downloaded, "
            f"loaded and compiled, so add a startupProbe on GET {path} with a budget of at least 600s"
        )
    nim = {
        "name": "nim",
        "image": "nvcr.io/nim/meta/llama-3.1-8b-instruct:1.8.4",
        "livenessProbe": {"httpGet": {"path": "/v1/health/live"}},
    }
    (message,) = messages(startup_probe_budget, deployment(nim))
    assert "livenessProbe without a startupProbe restarts the pod while NVIDIA NIM is still loading" in message
    assert "add a startupProbe on GET /v1/health/ready" in message
    careful = dict(
        TRITON, startupProbe={"httpGet": {"path": "/v2/health/ready", "port": 8000}, "failureThreshold": 90, "periodSeconds": 10}
    )
    assert messages(startup_probe_budget, deployment(careful)) == []


def test_drain_reads_each_engines_sigterm_behaviour():
    # Triton waits --exit-timeout-secs (default 30 s) for in-flight requests: below the longest request (300 s).
    found = messages(termination_drains_streams, deployment(TRITON))
    assert any("--exit-timeout-secs unset (Triton Inference Server's default 30 s)" in m for m in found), found
    careful = dict(
        TRITON,
        command=[*TRITON["command"], "--exit-timeout-secs=330"],
        lifecycle={"preStop": {"sleep": {"seconds": 15}}},
    )
    assert messages(termination_drains_streams, deployment(careful, terminationGracePeriodSeconds=360)) == []
    # TGI's default --graceful-termination-timeout is 90 s.
    found = messages(
        termination_drains_streams,
        deployment(dict(TGI, lifecycle={"preStop": {"sleep": {"seconds": 15}}}), terminationGracePeriodSeconds=360),
    )
    assert found == [
        "container tgi: --graceful-termination-timeout unset (Hugging Face TGI's default 90 s): on SIGTERM Hugging Face TGI "
        "waits for in-flight requests only that long, below the longest request 300s (setting maxRequestSeconds); set "
        "--graceful-termination-timeout to it"
    ]


def test_trust_remote_code_on_sglang_serve_and_with_a_local_model_path():
    sglang_serve = {
        "name": "sglang",
        "image": "lmsysorg/sglang:v0.5.3",
        "command": ["sglang", "serve", "--model-path", "/models/deepseek-v3", "--trust-remote-code"],
    }
    (message,) = messages(model_source_pinned, deployment(sglang_serve))
    assert message.startswith("container sglang: --trust-remote-code imports Python from the repository of /models/deepseek-v3")
    careful = dict(sglang_serve, command=["sglang", "serve", "--model-path", "/models/deepseek-v3"])
    assert messages(model_source_pinned, deployment(careful)) == []


def test_nim_model_names_are_not_held_to_a_revision_it_cannot_take():
    nim = {
        "name": "nim",
        "image": "nvcr.io/nim/meta/llama-3.1-8b-instruct:1.8.4",
        "env": [{"name": "NIM_MODEL_NAME", "value": "meta/llama-3.1-8b-instruct"}],
    }
    assert messages(model_source_pinned, deployment(nim)) == []


def test_sglang_memory_fraction_above_the_band():
    sglang = {
        "name": "sglang",
        "image": "lmsysorg/sglang:v0.5.3",
        "command": ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--mem-fraction-static", "0.98"],
    }
    (message,) = messages(gpu_memory_utilization_bounds, deployment(sglang))
    assert message.startswith("container sglang: --mem-fraction-static=0.98 is above the maximum 0.95")
    sglang["command"][-1] = "0.7"  # below the band only means fewer KV tokens: not blocked
    assert messages(gpu_memory_utilization_bounds, deployment(sglang)) == []


NEW_ROW = """
[engines.toyserve]
display = "ToyServe"
release = "v1.0.0"
images = ["example.com/toyserve"]
commands = ["toyserve"]
modules = []
model_positional = true
loads_before_serving = true
port = 9000
health = "/healthz"
readiness = "/ready"
drain = "flag"
drain_flag = "drain-seconds"
drain_env = ""
drain_default = 10
memory_fraction_of = "total"
metrics_path = "/metrics"
metrics_port = 9000
queue_metric = ""
running_metric = ""
context_unset = "model"
context_override_env = "TOY_LONG_CONTEXT"
startup_rules = ["vllm-tp-divides-attention-heads", "vllm-context-within-model-limit"]
kv_heads_replicated = false
moving_tags = ["edge"]

[engines.toyserve.settings]
revision = ["rev"]
gpu-memory-utilization = ["mem"]
trust-remote-code = ["remote-code"]
max-model-len = ["ctx"]
tensor-parallel-size = ["shards", "env:TOY_SHARDS"]

[engines.toyserve.downloads]
models = ["hub"]
dirs = ["/var/toy/cache"]
env = ["TOY_CACHE"]
source = "the Hugging Face Hub"

[engines.toyserve.sources]
recognise = "written for this test"
settings = "written for this test"
endpoints = "written for this test"
drain = "written for this test"
metrics = "written for this test"
startup = "written for this test"
tags = "written for this test"
downloads = "written for this test"
"""


def test_a_new_engine_is_one_table_row():
    container = {
        "name": "toy",
        "image": "example.com/toyserve:1.0.0",
        "command": ["toyserve", "org/model", "--remote-code", "--mem", "0.99"],
    }
    resource = deployment(container)
    before = {v.catalog for v in evaluate([resource])}
    assert not before & {"S1", "S10", "S16", "S17"}  # an engine nobody described: not a model server
    engines = load_engines(Path(TABLE).read_text(encoding="utf-8") + NEW_ROW)
    with use_engine_table(engines):
        violations = evaluate([deployment(container)])
    by_catalog = {v.catalog: v.message for v in violations}
    assert {"S1", "S10", "S16", "S17"} <= set(by_catalog), sorted(by_catalog)
    toy = [v.message for v in violations if v.catalog in ("S1", "S10", "S16", "S17")]
    assert "container toy: --mem=0.99 is above the maximum 0.95; " in "".join(toy)
    assert any("--drain-seconds unset (ToyServe's default 10 s)" in m for m in toy)
    assert any("no startupProbe; ToyServe serves nothing" in m for m in toy)
    assert any(
        m.startswith("container toy: model org/model comes from the Hugging Face Hub with no revision") and "pin --rev" in m
        for m in toy
    )
    assert any("--remote-code imports Python from the repository of org/model" in m for m in toy)


def test_a_new_row_drives_s2_and_the_startup_rules():
    """The row above names its context-length and tensor-parallel spellings, the start-up rules it enforces, how it
    shards KV heads, its context override variable, its moving tags and where it downloads: S2, S22, S23, G1 and S19
    follow it, unchanged."""
    engines = load_engines(Path(TABLE).read_text(encoding="utf-8") + NEW_ROW)
    pinned = {"nodeSelector": {"cloud.google.com/gke-accelerator": "nvidia-l4"}}

    def toy(*args: str, env=(), image="example.com/toyserve:1.0.0", gpus=1):
        container = {
            "name": "toy",
            "image": image,
            "command": ["toyserve", *args],
            "env": list(env),
            "resources": {"limits": {"nvidia.com/gpu": gpus}},
        }
        with use_engine_table(engines):
            return {v.catalog: v.message for v in evaluate([deployment(container, **pinned)])}

    model = "meta-llama/Llama-3.1-8B-Instruct"
    found = toy(model, "--rev", SHA)
    assert found["S2"] == (
        "container toy: --ctx is not set, so ToyServe serves the model's full context (131,072 tokens for "
        "meta-llama/Llama-3.1-8B-Instruct); its KV cache must hold one such request or long prompts are refused; set "
        "the length you serve"
    )
    # 16 shards over 8 KV heads: the row says the engine does not replicate them (vLLM's own row would start).
    found = toy(model, "--rev", SHA, "--ctx", "8192", env=[{"name": "TOY_SHARDS", "value": "16"}], gpus=16)
    assert found["S22"] == (
        f"container toy: {model} does not start: --shards 16 does not divide the model's 8 KV heads; ToyServe refuses to "
        "start (it shards KV heads without replicating them)"
    )
    found = toy(model, "--rev", SHA, "--ctx", "262144")
    assert found["S23"] == (
        f"container toy: {model} does not start: --ctx 262,144 exceeds the model's maximum of 131,072 tokens; ToyServe "
        "refuses it (unless TOY_LONG_CONTEXT=1); lower --ctx"
    )
    assert "S23" not in toy(model, "--rev", SHA, "--ctx", "262144", env=[{"name": "TOY_LONG_CONTEXT", "value": "1"}])
    # Weights above the memory fraction of the pinned GPU: S2's blocking row.
    found = toy("meta-llama/Llama-3.1-70B-Instruct", "--rev", SHA, "--ctx", "8192", "--mem", "0.9")
    assert found["S2"].startswith(
        "container toy: meta-llama/Llama-3.1-70B-Instruct on 1x L4 (22.04 GiB) does not start: its weights take 131.42 GiB"
    )
    assert "raise --shards (more GPUs per replica)" in found["S2"]
    found = toy(model, "--rev", SHA, "--ctx", "8192", image="example.com/toyserve:edge")
    assert "uses edge, a tag ToyServe moves to each new build" in found["G1"]
    # The downloads table: the Hub model lands in the row's cache folder, on the container's own layer (S19), and a
    # cache variable pointing at a PersistentVolumeClaim's folder is honoured without code.
    assert found["S19"].startswith(
        f"container toy: downloads {model} from the Hugging Face Hub into /var/toy/cache on the node's ephemeral storage"
    )
    # The careful form: every setting chosen within what the row says the engine accepts.
    found = toy(model, "--rev", SHA, "--ctx", "8192", "--shards", "1", "--mem", "0.9")
    assert not {"S2", "S22", "S23", "G1"} & set(found), found
