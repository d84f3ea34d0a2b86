"""Model servers recognised by what they run, not by their image's name: NVIDIA Dynamo's `python3 -m dynamo.vllm`
(a module of vLLM's row of the engine table) and args alone carrying a flag set only one engine has (the row's
``flag_sets``). Each cause with the third-party form that fires (a minimal hand-written shape of the cited file, not a
copy) and the careful forms that stay silent."""

from __future__ import annotations

import pytest
from policy_fixtures import RAISED
from policy_fixtures import found_by as _pack_found_by

from components.engine_flag_sets import check_flag_sets_exclusive
from components.serving_engines import ENGINES, EngineTableError, engine_named
from policies.reading.serving import model_server_engine


def found_by(objs: list[dict], policy: str, config: dict | None = None) -> list[tuple[str, str]]:
    """The pack's findings with the advisory hygiene rows raised (policy_fixtures.RAISED), so this file's
    proven-blocks / unproven-advises pairs stay told apart."""
    return _pack_found_by(objs, policy, RAISED if config is None else config)


def _dgd(worker_args: str, image: str = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.5.0") -> dict:
    # sjm446/ai-on-eks blueprints/inference/nvidia-dynamo/vllm/vllm-aggregated-default.yaml at
    # 7e3047ed33d4ae72c509d92900ce4eb4753eb501: a Dynamo frontend and one vLLM worker (2 GPUs) that loads its model
    # from the Hub with no revision, in a shell line piped to tee.
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "vllm-aggregated-default", "namespace": "dynamo-cloud"},
        "spec": {
            "services": {
                "Frontend": {
                    "componentType": "main",
                    "replicas": 1,
                    "extraPodSpec": {
                        "mainContainer": {
                            "image": image,
                            "command": ["/bin/sh", "-c"],
                            "args": ["python3 -m dynamo.frontend --http-port 8000"],
                        }
                    },
                },
                "VllmWorker": {
                    "componentType": "worker",
                    "replicas": 1,
                    "resources": {"requests": {"cpu": "10", "memory": "20Gi", "gpu": "2"}, "limits": {"gpu": "2"}},
                    "extraPodSpec": {"mainContainer": {"image": image, "command": ["/bin/sh", "-c"], "args": [worker_args]}},
                },
            }
        },
    }


def test_a_dynamo_vllm_worker_is_read_as_vllm():
    manifest = _dgd("python3 -m dynamo.vllm --model Qwen/Qwen3-8B --tensor-parallel-size 2 2>&1 | tee /tmp/vllm.log")
    ((level, message),) = found_by([manifest], "model-source-pinned")
    assert level == "mandatory"
    assert "spec.services.VllmWorker container main: model Qwen/Qwen3-8B comes from the Hugging Face Hub" in message
    disk = found_by([manifest], "gpu-pod-ephemeral-storage")
    assert [m for _, m in disk if "downloads Qwen/Qwen3-8B" in m]


def test_a_pinned_dynamo_worker_and_the_frontend_stay_silent():
    pinned = _dgd(
        "python3 -m dynamo.vllm --model Qwen/Qwen3-8B --revision 9c925d6b6e3f0a9e0a1d4c1d3f2b5e6a7c8d9e0f --tensor-parallel-size 2"
    )
    assert found_by([pinned], "model-source-pinned") == []
    frontend = {"image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.5.0", "args": ["-m", "dynamo.frontend"]}
    assert model_server_engine({**frontend, "command": ["python3"]}) is None


def test_dynamo_own_options_are_no_vllm_option_finding():
    # ai-dynamo/dynamo components/src/dynamo/vllm/args.py@000a36a parse_args: Dynamo's parser takes its own options
    # (--is-prefill-worker in the 0.4 workers of the same repository's multi-replica-vllm.yaml), vLLM's the rest.
    manifest = _dgd(
        "python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B --revision 0123456789abcdef0123456789abcdef01234567 --is-prefill-worker"
    )
    assert found_by([manifest], "engine-options-exist") == []


def _decode(image: str, args: list[str], command: list[str] | None = None) -> dict:
    # The decode Deployment of llm-d's P/D guides as public write-ups quote it (image ghcr.io/llm-d/llm-d:0.0.8, args
    # only: the image's entrypoint is the server), cut down; the code index holds the excerpt without its repository.
    container: dict = {"name": "vllm", "image": image, "args": args, "resources": {"limits": {"nvidia.com/gpu": "1"}}}
    if command:
        container["command"] = command
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "vllm-decode", "namespace": "llm"},
        "spec": {
            "selector": {"matchLabels": {"app": "decode"}},
            "template": {"metadata": {"labels": {"app": "decode"}}, "spec": {"containers": [container]}},
        },
    }


LLM_D_ARGS = ["--model=Qwen/Qwen3-0.6B", "--port=8001", "--enforce-eager", '--kv-transfer-config={"kv_connector":"x"}']


@pytest.mark.parametrize("image", ["ghcr.io/llm-d/llm-d:0.0.8", "llm-serving:gpu", "registry.internal/ml/serving:1.4"])
def test_args_with_a_vllm_only_flag_make_any_image_a_vllm_server(image):
    ((level, message),) = found_by([_decode(image, LLM_D_ARGS)], "model-source-pinned")
    assert level == "mandatory" and "model Qwen/Qwen3-0.6B comes from the Hugging Face Hub" in message
    gmu = _decode(image, ["--model", "/models/qwen", "--gpu-memory-utilization", "0.9"])
    assert model_server_engine(gmu["spec"]["template"]["spec"]["containers"][0]) == "vllm"


def test_flags_two_engines_share_or_another_engines_image_do_not_make_vllm():
    # --model and --tensor-parallel-size are SGLang's too: no engine is named by them.
    shared = _decode("registry.internal/ml/serving:1.4", ["--model", "Qwen/Qwen3-0.6B", "--tensor-parallel-size", "2"])
    assert model_server_engine(shared["spec"]["template"]["spec"]["containers"][0]) is None
    # SGLang's own flag set names SGLang.
    sglang = _decode("registry.internal/ml/serving:1.4", ["--model-path", "Qwen/Qwen3-0.6B", "--mem-fraction-static", "0.8"])
    assert model_server_engine(sglang["spec"]["template"]["spec"]["containers"][0]) == "sglang"
    # An engine's own image keeps its engine (Aphrodite, a vLLM fork, parses --gpu-memory-utilization too).
    aphrodite = _decode("alpindale/aphrodite-openai:v0.9.0", ["--model", "x/y", "--gpu-memory-utilization", "0.9"])
    assert model_server_engine(aphrodite["spec"]["template"]["spec"]["containers"][0]) == "aphrodite"
    # A command of another program (TRL's vllm-serve has its own parser) is not read by flags.
    trl = _decode("registry.internal/ml/trl:1", ["vllm-serve", "--model", "x/y", "--gpu_memory_utilization", "0.9"], ["trl"])
    assert model_server_engine(trl["spec"]["template"]["spec"]["containers"][0]) is None


def test_the_committed_flag_sets_are_exclusive():
    # Checked here, not on import of components.serving_engines (that read every option table on each run).
    from components.engine_options import cli_options

    check_flag_sets_exclusive(ENGINES, lambda file, flag: bool(cli_options(file).releases_having(f"--{flag}")))


def test_a_flag_set_another_engines_options_hold_fails_the_table():
    vllm = engine_named("vllm")
    assert vllm is not None
    from dataclasses import replace

    shared = replace(vllm, flag_sets=(("tensor-parallel-size",),))
    table = tuple(shared if e.name == "vllm" else e for e in ENGINES)
    from components.engine_options import cli_options

    with pytest.raises(
        EngineTableError, match=r"\[engines.vllm\].flag_sets: \['tensor-parallel-size'\] are all options of SGLang"
    ):
        check_flag_sets_exclusive(table, lambda file, flag: bool(cli_options(file).releases_having(f"--{flag}")))


def test_a_dynamo_sglang_worker_is_read_as_sglang():
    # sjm446/ai-on-eks blueprints/inference/nvidia-dynamo/sglang/sglang-disaggregated-default.yaml at
    # 7e3047ed33d4ae72c509d92900ce4eb4753eb501: SGLang decode and prefill workers of a DynamoGraphDeployment.
    line = "python3 -m dynamo.sglang --model-path deepseek-ai/DeepSeek-R1-Distill-Llama-8B --tp 1 --disaggregation-mode decode"
    image = "nvcr.io/nvidia/ai-dynamo/sglang-runtime:0.5.0"
    manifest = _dgd(line, image)
    container = {"image": image, "command": ["/bin/sh", "-c"], "args": [line]}
    assert model_server_engine(container) == "sglang"
    # The command line decides, not an image name that mentions vllm (Dynamo's vllm-runtime image).
    assert model_server_engine({**container, "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.5.0"}) == "sglang"
    messages = [m for level, m in found_by([manifest], "model-source-pinned") if level == "mandatory"]
    assert any("model deepseek-ai/DeepSeek-R1-Distill-Llama-8B comes from the Hugging Face Hub" in m for m in messages)
    # Dynamo's own options (--disaggregation-transfer-backend is SGLang's; Dynamo's parser takes its own first).
    assert found_by([_dgd(line + " --dyn-reasoning-parser deepseek_r1", image)], "engine-options-exist") == []
    pinned = _dgd(line.replace(" --tp 1", " --revision 0123456789abcdef0123456789abcdef01234567 --tp 1"), image)
    assert found_by([pinned], "model-source-pinned") == []


def test_the_dynamo_operator_mounts_dev_shm_unless_disabled():
    # The operator gives every component /dev/shm (8Gi emptyDir, medium Memory) unless sharedMemory.disabled
    # (ai-dynamo/dynamo deploy/operator/internal/consts/consts.go at d195d280e13e): S4 was a wrong blocking finding on
    # sjm446/ai-on-eks vllm-aggregated-default.yaml's TP 2 worker.
    line = "python3 -m dynamo.vllm --model Qwen/Qwen3-8B --tensor-parallel-size 2"
    assert found_by([_dgd(line)], "tensor-parallel-requires-dshm") == []
    disabled = _dgd(line)
    disabled["spec"]["services"]["VllmWorker"]["sharedMemory"] = {"disabled": True}
    assert [level for level, _ in found_by([disabled], "tensor-parallel-requires-dshm")] == ["mandatory"]


def test_a_dynamo_worker_serves_no_http_so_keep_alive_is_not_its_concern():
    # ai-dynamo/dynamo components/src/dynamo/vllm/args.py@000a36a adds vLLM's engine options only (no FrontendArgs):
    # the worker runs no HTTP server; Dynamo's frontend serves the API. A vLLM server of its own still gets S9.
    assert found_by([_dgd("python3 -m dynamo.vllm --model Qwen/Qwen3-8B")], "keep-alive-outlives-proxy") == []
    assert found_by([_decode("vllm/vllm-openai:v0.8.5", ["--model", "/models/q"])], "keep-alive-outlives-proxy") != []


def test_a_worker_module_outside_the_rows_modules_fails_the_table():
    from components.serving_engines import TABLE, load_engines

    text = TABLE.read_text(encoding="utf-8").replace('worker_modules = ["dynamo.vllm"]', 'worker_modules = ["dynamo.vllmx"]')
    with pytest.raises(
        EngineTableError, match=r"\[engines.vllm\].worker_modules: 'dynamo.vllmx' is not one of the row's modules"
    ):
        load_engines(text)


def _simulator(image: str = "ghcr.io/llm-d/llm-d-inference-sim:v0.5.0", resources: dict | None = None) -> dict:
    # llm-d/llm-d-inference-sim manifests/vllm-config.yaml@86ce94f (max-num-seqs: 5, time-to-first-token) as args of
    # the simulator's image in a Deployment (the reviewer's /tmp/review/sim/sim.yaml shape): a Go program that imitates
    # vLLM's CLI and API on CPU, with no GPU and no weights.
    manifest = _decode(
        image, ["--model", "Qwen/Qwen3-0.6B", "--port", "8000", "--max-num-seqs", "5", "--time-to-first-token", "200"]
    )
    container = manifest["spec"]["template"]["spec"]["containers"][0]
    container["resources"] = resources or {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}}
    return manifest


@pytest.mark.parametrize("image", ["ghcr.io/llm-d/llm-d-inference-sim:v0.5.0", "registry.internal/ml/sim:1"])
def test_the_llm_d_simulator_is_no_vllm_server(image):
    # A flag set decides only for a container that asks for an accelerator; the simulator's image never does.
    manifest = _simulator(image)
    assert model_server_engine(manifest["spec"]["template"]["spec"]["containers"][0]) is None
    for policy in ("vllm-tp-matches-gpu-limit", "model-source-pinned", "llm-startup-probe-budget", "no-literal-secret-env"):
        assert found_by([manifest], policy) == [], policy
    gpu = _simulator(resources={"limits": {"nvidia.com/gpu": "1"}})
    assert model_server_engine(gpu["spec"]["template"]["spec"]["containers"][0]) is None


@pytest.mark.parametrize(
    "resources", [{"limits": {"amd.com/gpu": "1"}}, {"requests": {"google.com/tpu": "4"}}, {"claims": [{"name": "gpu"}]}]
)
def test_a_flag_set_with_any_accelerator_is_still_vllm(resources):
    manifest = _simulator("registry.internal/ml/serving:1.4", resources)
    assert model_server_engine(manifest["spec"]["template"]["spec"]["containers"][0]) == "vllm"


def test_counted_token_names_are_no_credentials():
    from policies.k8s_generic.no_literal_secret_env import NAME_PATTERNS, looks_secret

    for name in ("time-to-first-token", "TIME_PER_OUTPUT_TOKEN", "max_new_token"):
        assert not looks_secret(name.replace("-", "_"), NAME_PATTERNS), name
    for name in ("HF_TOKEN", "GITHUB_TOKEN", "ACCESS_TOKEN", "FIRST_TOKEN_SECRET"):
        assert looks_secret(name, NAME_PATTERNS), name
