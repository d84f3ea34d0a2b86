"""S38 engine-options-exist (vLLM, SGLang) and S39 vllm-multi-node-start: each with third-party forms that fire (minimal hand-written shapes
of the cited upstream files) and careful third-party forms that must stay silent."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

FLAGS, START = "engine-options-exist", "vllm-multi-node-start"


def options_found(objs: list[dict], config=None) -> list[tuple[str, str]]:
    """S38's option findings, without its row on args that begin with a word after the preset's `vllm serve` command
    (pattern3's args are a command line of their own: tests/policies/test_policy_args_after_serve_command.py)."""
    return [f for f in found_by(objs, FLAGS, config) if "args begin with" not in f[1]]


def levels(objs: list[dict], policy: str, config=None) -> list[str]:
    return [level for level, _ in found_by(objs, policy, config)]


def deployment(image: str, command=None, args=None) -> dict:
    container: dict = {"name": "vllm", "image": image, "resources": {"limits": {"nvidia.com/gpu": 1}}}
    if command is not None:
        container["command"] = command
    if args is not None:
        container["args"] = args
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "m", "namespace": "llm"},
        "spec": {
            "selector": {"matchLabels": {"app": "m"}},
            "template": {"metadata": {"labels": {"app": "m"}}, "spec": {"containers": [container]}},
        },
    }


# johnahull/llm-d-xks-gke 7630140c deployments/llm-d-infra-xks-gke-tpu-native-gateway/manifests/llmisvc-gpu-pattern3.yaml
# (spent set 5): an LLMInferenceService whose one arg is a script of vLLM flags, --prefix-cache-block-size among them
# (an llm-d scheduler parameter), on Red Hat's vLLM build.
PATTERN3_SCRIPT = (
    "python3 -m vllm.entrypoints.openai.api_server \\\n  --model=/mnt/models \\\n  --dtype=half \\\n"
    "  --max-model-len=2048 \\\n  --gpu-memory-utilization=0.75 \\\n  --enable-prefix-caching \\\n"
    "  --prefix-cache-block-size=16 \\\n  --disable-log-requests\n"
)


def pattern3(image: str = "registry.redhat.io/rhaiis/vllm-cuda-rhel9:3.0.0", script: str = PATTERN3_SCRIPT) -> dict:
    return {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "LLMInferenceService",
        "metadata": {"name": "qwen2-3b-pattern3-gpu", "namespace": "llm-d"},
        "spec": {
            "model": {"uri": "hf://Qwen/Qwen2.5-3B-Instruct", "name": "Qwen/Qwen2.5-3B-Instruct"},
            "replicas": 3,
            "template": {
                "containers": [
                    {
                        "name": "main",
                        "image": image,
                        "args": [script],
                        "resources": {"limits": {"nvidia.com/gpu": "1"}, "requests": {"nvidia.com/gpu": "1"}},
                    }
                ]
            },
        },
    }


def test_s38_an_option_no_release_has_is_advice_on_a_rebuild_and_blocks_on_a_named_release():
    ((level, message),) = options_found([pattern3()])
    assert level == "advisory"
    assert "--prefix-cache-block-size is an option of no vLLM release from 0.4.0 to 0.34.0" in message
    assert "registry.redhat.io/rhaiis/vllm-cuda-rhel9:3.0.0" in message
    # The same spec on the official image of a release the table was read at: that release's parser refuses it.
    ((level, message),) = options_found([pattern3("vllm/vllm-openai:v0.10.1")])
    assert level == "mandatory"
    assert "--prefix-cache-block-size is not an option of vLLM 0.10.1" in message
    assert "no vLLM release from 0.4.0 to 0.34.0 has it" in message
    # A patch release is read like the others (0.10.1.1; the table holds every release from 0.4.0).
    ((level, message),) = options_found([pattern3("vllm/vllm-openai:v0.10.1.1")])
    assert level == "mandatory" and "not an option of vLLM 0.10.1.1, the release of image" in message
    # Without the scheduler's parameter the script is a valid vLLM 0.10.1 line.
    clean = PATTERN3_SCRIPT.replace("  --prefix-cache-block-size=16 \\\n", "")
    assert options_found([pattern3("vllm/vllm-openai:v0.10.1", clean)]) == []
    # ... but its args still begin with `python3 -m ...` after KServe's preset command `vllm serve /mnt/models`:
    # a second positional argument, refused at every release (the same class as set 42's johnahull/llmd-gke pattern1).
    ((level, message),) = [f for f in found_by([pattern3("vllm/vllm-openai:v0.10.1", clean)], FLAGS)]
    assert level == "mandatory" and "args begin with python3 -m vllm.entrypoints.openai.api_server" in message


def test_llmisvc_args_reach_vllm_as_the_presets_eval_splits_them():
    # kserve v0.20.0 config/llmisvcconfig/config-llm-template.yaml:166-179 evals "exec vllm serve ... $@": the one-string
    # script becomes flags, so S1 now reads its --gpu-memory-utilization=0.75 (it used to say "not set").
    messages = [m for _, m in found_by([pattern3()], "vllm-gpu-memory-utilization-bounds")]
    assert any("--gpu-memory-utilization=0.75" in m for m in messages), messages
    assert found_by([pattern3()], "vllm-gpu-memory-utilization-explicit") == []


def test_s38_an_option_the_release_dropped_or_added():
    # --disable-log-requests: vLLM 0.16.0 still adds it (vllm/engine/arg_utils.py:2088); 0.17.0 to 0.32.0 have only
    # --enable-log-requests; 0.33.0's EnableDisableAction accepts the --disable- half of every --enable- pair again.
    line = ["vllm", "serve", "Qwen/Qwen2.5-3B-Instruct", "--disable-log-requests"]
    ((level, message),) = found_by([deployment("vllm/vllm-openai:v0.20.0", command=line)], FLAGS)
    assert level == "mandatory"
    assert "vLLM has it in 0.4.0 to 0.16.0, 0.33.0 to 0.34.0" in message
    assert "--disable-log-requests is not an option of vLLM 0.20.0" in message
    for ok in ("v0.16.0", "v0.33.0", "latest", "nightly"):
        assert found_by([deployment(f"vllm/vllm-openai:{ok}", command=line)], FLAGS) == [], ok
    # --shutdown-timeout arrived in 0.18.0.
    late = ["vllm", "serve", "m", "--shutdown-timeout", "30"]
    assert levels([deployment("vllm/vllm-openai:v0.17.1", command=late)], FLAGS) == ["mandatory"]
    assert found_by([deployment("vllm/vllm-openai:v0.18.0", command=late)], FLAGS) == []


def test_s38_careful_forms_stay_silent():
    forms = [
        # kubernetes-sigs/lws v0.10.0 docs/examples/vllm/GPU/lws.yaml:24-25 (vLLM 0.8.5; --pipeline_parallel_size with
        # underscores, which FlexibleArgumentParser turns into dashes).
        deployment(
            "vllm/vllm-openai:v0.8.5",
            command=[
                "sh",
                "-c",
                "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh leader --ray_cluster_size=2; "
                "python3 -m vllm.entrypoints.openai.api_server --port 8080 --model meta-llama/Llama-3.1-405B-Instruct "
                "--tensor-parallel-size 8 --pipeline_parallel_size 2",
            ],
        ),
        # args after `vllm serve MODEL`, --flag=value and --flag value, a JSON option's key, a --no- form, an
        # abbreviation argparse accepts, and an option named from a variable.
        deployment(
            "vllm/vllm-openai:v0.33.0",
            args=[
                "serve",
                "Qwen/Qwen2.5-3B-Instruct",
                "--max-model-len=4096",
                "--max-num-seq",
                "8",
                "--compilation-config.mode",
                "3",
                "--no-enable-prefix-caching",
                "--$(EXTRA_FLAG)",
            ],
        ),
        # Options after a bare `--` (ends vLLM's options) and options of the next shell command are not vLLM's.
        deployment(
            "vllm/vllm-openai:v0.10.1",
            command=["bash", "-c", "vllm serve m --port 8000 -- --not-an-option; /app/report --prefix-cache-block-size 1"],
        ),
        # A wrapper script's own options.
        deployment("vllm/vllm-openai:v0.10.1", command=["/app/start.sh", "--prefix-cache-block-size=16"]),
    ]
    for form in forms:
        assert found_by([form], FLAGS) == [], form


def test_s38_an_option_and_its_value_in_one_argument_is_advice():
    # kubernetes-sigs/inference-perf 7de5ef2e demos/kubecon-na-2025/vllm+quantization/manifests.yaml: args item
    # "--quantization bitsandbytes" on vllm/vllm-openai:v0.11.0; argparse takes an argument holding a space as positional.
    line = ["python3", "-m", "vllm.entrypoints.openai.api_server"]
    args = ["--model=$(MODEL_ID)", "--gpu_memory_utilization=0.9", "--max-model-len=512", "--quantization bitsandbytes"]
    ((level, message),) = found_by([deployment("vllm/vllm-openai:v0.11.0", command=line, args=args)], FLAGS)
    assert level == "advisory" and "'--quantization bitsandbytes' is one argument" in message
    assert "--quantization=bitsandbytes" in message
    fixed = [*args[:3], "--quantization", "bitsandbytes"]
    assert found_by([deployment("vllm/vllm-openai:v0.11.0", command=line, args=fixed)], FLAGS) == []


def test_s38_kserve_huggingface_server_ignores_unknown_options():
    # kserve v0.20.0 python/huggingfaceserver/huggingfaceserver/__main__.py:213: args, _ = parser.parse_known_args().
    isvc = {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "qwen", "namespace": "llm"},
        "spec": {
            "predictor": {
                "model": {
                    "modelFormat": {"name": "huggingface"},
                    "storageUri": "hf://Qwen/Qwen2.5-3B-Instruct",
                    "args": ["--prefix-cache-block-size=16", "--max_model_len=4096"],
                    "resources": {"limits": {"nvidia.com/gpu": "1"}},
                }
            }
        },
    }
    assert found_by([isvc], FLAGS) == []


def test_s38_entry_module_of_the_release():
    # GoogleCloudPlatform/ai-on-gke e54c80c tutorials-and-examples/metaflow/serve_model/vllm_deplyment.yaml (spent set 4):
    # vLLM's demo server on a Vertex build.
    demo = ["python3", "-m", "vllm.entrypoints.api_server", "--model", "google/gemma-2b", "--tensor-parallel-size", "2"]
    ((level, message),) = found_by(
        [
            deployment(
                "us-docker.pkg.dev/vertex-ai/vertex-vision-model-garden-dockers/pytorch-vllm-serve:20240220_0936_RC01",
                command=demo,
            )
        ],
        FLAGS,
    )
    assert level == "advisory" and "demo server" in message and "vLLM 0.25.0 and later no longer ship it" in message
    # vllm/entrypoints/api_server.py is in the wheels up to 0.24.0 and in none from 0.25.0.
    ((level, message),) = found_by([deployment("vllm/vllm-openai:v0.30.0", command=demo)], FLAGS)
    assert level == "mandatory" and "No module named vllm.entrypoints.api_server" in message
    assert levels([deployment("vllm/vllm-openai:v0.24.0", command=demo)], FLAGS) == ["advisory"]
    openai = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "m"]
    assert found_by([deployment("vllm/vllm-openai:v0.34.0", command=openai)], FLAGS) == []


def test_s38_allowed_options_and_exemption():
    config = {FLAGS: {"allowedOptions": ["prefix-cache-block-size"]}}
    assert options_found([pattern3("vllm/vllm-openai:v0.10.1")], config) == []
    exempt = pattern3("vllm/vllm-openai:v0.10.1")
    exempt["metadata"]["annotations"] = {f"llm-serving.io/exempt-{FLAGS}": "our build adds it"}
    assert found_by([exempt], FLAGS) == []


# kubernetes-sigs/lws v0.10.0 docs/examples/sglang/lws.yaml:21-37 (the leader's command line).
SGLANG_LEADER = [
    "python3",
    "-m",
    "sglang.launch_server",
    "--model-path",
    "meta-llama/Meta-Llama-3.1-8B-Instruct",
    "--tp",
    "2",
    "--dist-init-addr",
    "$(LWS_LEADER_ADDRESS):20000",
    "--nnodes",
    "$(LWS_GROUP_SIZE)",
    "--node-rank",
    "$(LWS_WORKER_INDEX)",
    "--trust-remote-code",
    "--host",
    "0.0.0.0",
    "--port",
    "40000",
]


def test_s38_sglang_reads_its_own_release_table():
    assert found_by([deployment("lmsysorg/sglang:latest", command=SGLANG_LEADER)], FLAGS) == []
    # SGLang 0.5.2 has no --tp of its own, but --tp abbreviates --tp-size there (argparse allow_abbrev).
    assert found_by([deployment("lmsysorg/sglang:v0.5.2-cu126", command=SGLANG_LEADER)], FLAGS) == []
    # vLLM's memory option handed to SGLang (SGLang's is --mem-fraction-static): no SGLang release has it.
    wrong = [*SGLANG_LEADER, "--gpu-memory-utilization", "0.9"]
    ((level, message),) = found_by([deployment("lmsysorg/sglang:v0.5.5.post1-cu129", command=wrong)], FLAGS)
    assert level == "mandatory"
    assert "--gpu-memory-utilization is not an option of SGLang 0.5.5.post1" in message
    assert "no SGLang release from 0.2.0 to 0.5.23 has it" in message
    assert levels([deployment("lmsysorg/sglang:latest", command=wrong)], FLAGS) == ["advisory"]
    # The image's own entrypoint with args: what reaches SGLang's parser is not shown.
    assert found_by([deployment("lmsysorg/sglang:v0.5.5", args=wrong[3:])], FLAGS) == []


# S39 vllm-multi-node-start ----------------------------------------------------------------------------------------------


def lws(leader: dict, worker: dict, size: int = 2) -> dict:
    return {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": "g", "namespace": "llm"},
        "spec": {
            "replicas": 1,
            "leaderWorkerTemplate": {
                "size": size,
                "leaderTemplate": {"metadata": {"labels": {"role": "leader"}}, "spec": {"containers": [leader]}},
                "workerTemplate": {"spec": {"containers": [worker]}},
            },
        },
    }


def vllm(name: str, command: list, gpus: int = 1, env=None) -> dict:
    container = {"name": name, "image": "vllm/vllm-openai:v0.10.1", "command": command}
    container["resources"] = {"limits": {"nvidia.com/gpu": gpus}}
    if env:
        container["env"] = env
    return container


# johnahull/llm-d-xks-gke 7630140c deployments/gateway-api/pattern4-moe/manifests/pattern4-poc-lws.yaml (spent set 5):
# TP 8 over 8 one-GPU pods with the Ray backend; no pod starts Ray, RAY_ADDRESS=auto on the leader, and every worker runs
# the API server too.
SERVER = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model=mistralai/Mixtral-8x7B-Instruct-v0.1"]
PATTERN4_ARGS = ["--tensor-parallel-size=8", "--pipeline-parallel-size=1", "--distributed-executor-backend=ray"]


def pattern4() -> dict:
    leader = vllm("vllm-leader", SERVER + PATTERN4_ARGS, env=[{"name": "RAY_ADDRESS", "value": "auto"}])
    worker = vllm("vllm-worker", SERVER + PATTERN4_ARGS, env=[{"name": "RAY_ADDRESS", "value": "$(LWS_LEADER_ADDRESS):6379"}])
    return lws(leader, worker, size=8)


# kubernetes-sigs/lws v0.10.0 docs/examples/vllm/GPU/lws.yaml:21-25, :54-57.
GUIDE_LEADER = [
    "sh",
    "-c",
    "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh leader --ray_cluster_size=$(LWS_GROUP_SIZE); "
    "python3 -m vllm.entrypoints.openai.api_server --port 8080 --model meta-llama/Llama-3.1-405B-Instruct "
    "--tensor-parallel-size 8 --pipeline_parallel_size 2",
]
GUIDE_WORKER = [
    "sh",
    "-c",
    "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh worker --ray_address=$(LWS_LEADER_ADDRESS)",
]


def test_s39_no_ray_head_and_workers_serving_blocks():
    ((level, message),) = found_by([pattern4()], START)
    assert level == "mandatory"
    assert "tensor parallel 8 × pipeline parallel 1 = 8 GPUs over a group of 8 pods (1 in the leader)" in message
    assert "nothing in the leader pod starts a Ray head" in message
    assert "the workers each run a vLLM server of their own" in message


def test_s39_head_started_but_workers_serve_instead_of_joining():
    leader = vllm("leader", ["bash", "-c", "ray start --head --port=6379; " + " ".join(SERVER + PATTERN4_ARGS)])
    worker = vllm("worker", SERVER + PATTERN4_ARGS)
    ((level, message),) = found_by([lws(leader, worker, size=8)], START)
    assert level == "mandatory" and "instead of joining it" in message
    joined = vllm("worker", ["bash", "-c", "ray start --address=$(LWS_LEADER_ADDRESS):6379 --block"])
    assert found_by([lws(leader, joined, size=8)], START) == []
    # Without --block ray start returns and the container ends with its raylet (kuberay v1.7.0 pod.go:1377-1378).
    returns = vllm("worker", ["bash", "-c", "ray start --address=$(LWS_LEADER_ADDRESS):6379"])
    ((level, message),) = found_by([lws(leader, returns, size=8)], START)
    assert level == "mandatory" and "without --block" in message
    direct = vllm("worker", ["ray", "start", "--address=$(LWS_LEADER_ADDRESS):6379", "--num-gpus=1"])
    assert levels([lws(leader, direct, size=8)], START) == ["mandatory"]
    for held in (
        "ray start --address=$(LWS_LEADER_ADDRESS):6379; sleep infinity",
        "ray start --address=$(LWS_LEADER_ADDRESS):6379 && tail -f /dev/null",
    ):
        assert found_by([lws(leader, vllm("worker", ["bash", "-c", held]), size=8)], START) == [], held


def test_s39_careful_forms_stay_silent():
    guide = lws(vllm("vllm-leader", GUIDE_LEADER, gpus=8), vllm("vllm-worker", GUIDE_WORKER, gpus=8), size=2)
    # vLLM's own multi-node start: --nnodes/--node-rank, the workers --headless.
    nnodes = ["vllm", "serve", "m", "--tensor-parallel-size", "16", "--nnodes", "2", "--node-rank", "0"]
    own = lws(vllm("l", nnodes, gpus=8), vllm("w", [*nnodes[:-1], "1", "--headless"], gpus=8), size=2)
    # A Ray head elsewhere (a KubeRay cluster's address).
    remote = copy.deepcopy(pattern4())
    leader = remote["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"]["containers"][0]
    leader["env"] = [{"name": "RAY_ADDRESS", "value": "ray://kuberay-head-svc:10001"}]
    # The engine fits the leader pod.
    fits = lws(vllm("l", ["vllm", "serve", "m", "--tensor-parallel-size", "8"], gpus=8), vllm("w", GUIDE_WORKER, gpus=8))
    # kubernetes-sigs/lws v0.10.0 docs/examples/sglang/lws.yaml: SGLang's --nnodes/--node-rank/--dist-init-addr.
    sglang_line = ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--tp", "2", "--nnodes", "$(LWS_GROUP_SIZE)"]
    sglang = lws(
        {**vllm("l", sglang_line), "image": "lmsysorg/sglang:latest"},
        {**vllm("w", sglang_line), "image": "lmsysorg/sglang:latest"},
    )
    for form in (guide, own, remote, fits, sglang):
        assert found_by([form], START) == [], form


def test_s39_workers_joining_a_head_the_engine_never_uses_is_advice():
    # mitzenjeremywoo/deepseek-llama-huge llama405b.yaml at aefde6163571e23c1793db982a89393645a62952 (spent set 22, cut
    # down): the leader runs vLLM's multi-node-serving.sh leader for LWS_GROUP_SIZE 2, then a server with no
    # --tensor-parallel-size or --pipeline-parallel-size; the worker joins the head and is never given a rank.
    line = (
        "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh leader --ray_cluster_size=$(LWS_GROUP_SIZE);"
        " python3 -m vllm.entrypoints.openai.api_server --port 8080 --model meta-llama/Meta-Llama-3.1-405B-Instruct"
    )
    group = lws(vllm("vllm-leader", ["sh", "-c", line], gpus=8), vllm("vllm-worker", GUIDE_WORKER, gpus=8))
    ((level, message),) = found_by([group], START)
    assert level == "advisory"
    assert (
        "the leader starts a Ray head for a group of 2 pods and the workers join it, but the engine is tensor parallel 1"
        in message
    )
    # TP 8 within the leader's 8 GPUs: still one pod's ranks.
    within = lws(vllm("l", ["sh", "-c", line + " --tensor-parallel-size 8"], gpus=8), vllm("w", GUIDE_WORKER, gpus=8))
    assert levels([within], START) == ["advisory"]
    # LWS's guide spans the group (TP 8 x PP 2 over 2 x 8 GPUs, the underscore spelling included): silent.
    guide = lws(vllm("vllm-leader", GUIDE_LEADER, gpus=8), vllm("vllm-worker", GUIDE_WORKER, gpus=8))
    assert found_by([guide], START) == []
    # Data parallel ranks may use the other pods: not judged.
    data = lws(vllm("l", ["sh", "-c", line + " --data-parallel-size 2"], gpus=8), vllm("w", GUIDE_WORKER, gpus=8))
    assert found_by([data], START) == []


def test_s39_an_unknown_script_in_the_way_is_advice():
    leader = vllm("leader", ["bash", "-c", "/scripts/bootstrap.sh; " + " ".join(SERVER + PATTERN4_ARGS)])
    worker = vllm("worker", SERVER + PATTERN4_ARGS)
    assert levels([lws(leader, worker, size=8)], START) == ["advisory"]


def test_s38_an_engine_installed_before_serving_leaves_the_release_unknown():
    """Review 32 R3 (probes /work/review/s25/v2.yaml pipup, gitinstall): a script that pip-installs vLLM before
    `vllm serve` runs the release it installed, not the image tag's; options some release has stay silent, and one no
    release read has is advice, never a block on the image's release."""
    upgrade = (
        "pip install --upgrade vllm==0.10.1 && vllm serve Qwen/Qwen3-8B --reasoning-parser deepseek_r1 --enable-expert-parallel"
    )
    later = (
        "pip install -U 'vllm>=0.11' && python3 -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-8B "
        '--structured-outputs-config \'{"backend": "xgrammar"}\' --async-scheduling'
    )
    wheel = (
        "uv pip install https://example.com/vllm-0.10.1-cp38-abi3-manylinux1_x86_64.whl; vllm serve m --enable-expert-parallel"
    )
    for image, script in (("v0.6.3", upgrade), ("v0.9.2", later), ("v0.6.3", wheel)):
        assert found_by([deployment(f"vllm/vllm-openai:{image}", command=["/bin/bash", "-c", script])], FLAGS) == []
    unknown = upgrade + " --prefix-cache-block-size 16"
    ((level, message),) = found_by([deployment("vllm/vllm-openai:v0.6.3", command=["sh", "-c", unknown])], FLAGS)
    assert level == "advisory" and "installs vLLM itself before serving" in message
    # Installing something else (a kernel package, a router) leaves the image's release in force.
    for other in ("pip install vllm-flash-attn && ", "pip install sglang-router && "):
        script = other + "vllm serve Qwen/Qwen3-8B --reasoning-parser deepseek_r1"
        assert levels([deployment("vllm/vllm-openai:v0.6.3", command=["sh", "-c", script])], FLAGS) == ["mandatory"], other
    # A requirements file the files do not show may name vLLM (cold review 29, finding 4): the release run is unknown,
    # so an option some release has is not judged against the tag's.
    script = "pip install -r requirements.txt && vllm serve Qwen/Qwen3-8B --reasoning-parser deepseek_r1"
    assert levels([deployment("vllm/vllm-openai:v0.6.3", command=["sh", "-c", script])], FLAGS) == []


def test_s38_a_dropped_option_that_is_now_an_ambiguous_prefix_is_advice():
    """Review 32 R10 (probe /work/review/s25/recall.yaml sgl): SGLang 0.5.20 dropped the alias --cuda-graph-max-bs (0.5.19
    server_args.py:3929-3934 DeprecatedAliasStoreAction) and keeps --cuda-graph-max-bs-decode and -prefill
    (arg_groups/fields/exec_.py:482-487); its plain argparse parser (server_args.py:701, allow_abbrev) then exits with
    "ambiguous option". The option table is generous (a literal of another program counts), so this is advice."""
    line = ["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen2.5-7B-Instruct", "--cuda-graph-max-bs", "256"]
    ((level, message),) = found_by([deployment("lmsysorg/sglang:v0.5.20-cu129", command=line)], FLAGS)
    assert level == "advisory"
    assert "only a prefix of --cuda-graph-max-bs-decode and --cuda-graph-max-bs-prefill" in message
    assert "SGLang has it in 0.3.5 to 0.5.19" in message
    assert found_by([deployment("lmsysorg/sglang:v0.5.19-cu129", command=line)], FLAGS) == []


def test_s38_device_after_vllm_dropped_it_blocks_at_a_named_release():
    """Cold review 18: the table records --device as only a DeviceConfig field from 0.10.0 (advice by default), but the
    0.10.1 wheel's vllm/engine/arg_utils.py adds no DeviceConfig group (DeviceConfig comes from current_platform at
    :1055-1056), so argparse refuses it; 0.33.0 declares --device-ids (:1195) and --device-memory-utilization (:1390),
    so it is ambiguous there."""
    args = ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--device", "cuda"]
    ((level, message),) = found_by([deployment("vllm/vllm-openai:v0.10.1", args=args)], FLAGS)
    assert level == "mandatory" and "the parser dropped it in 0.10.0" in message
    assert levels([deployment("vllm/vllm-openai:v0.33.0", args=args)], FLAGS) == ["mandatory"]
    # 0.9.2 still declares it (deprecated); :latest is judged at the newest release, as advice.
    assert found_by([deployment("vllm/vllm-openai:v0.9.2", args=args)], FLAGS) == []
    assert levels([deployment("vllm/vllm-openai:latest", args=args)], FLAGS) == ["advisory"]


def test_s38_vllm_serve_before_the_command_existed_blocks():
    """Cold review 7: the `vllm` console script first ships in 0.5.2 (v0.5.2 setup.py:491-493; 0.5.1 has none)."""
    line = ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "4096"]
    ((level, message),) = found_by([deployment("vllm/vllm-openai:v0.4.2", command=line)], FLAGS)
    assert level == "mandatory" and "the `vllm` command first ships in 0.5.2" in message
    shell = ["sh", "-c", "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 4096"]
    assert levels([deployment("vllm/vllm-openai:v0.5.1", command=shell)], FLAGS) == ["mandatory"]
    # From 0.5.2 the command exists; the module form runs on every release; a tag naming no release is not judged.
    assert found_by([deployment("vllm/vllm-openai:v0.5.2", command=line)], FLAGS) == []
    module = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "meta-llama/Llama-3.1-8B-Instruct"]
    assert found_by([deployment("vllm/vllm-openai:v0.4.2", command=module)], FLAGS) == []
    assert found_by([deployment("my/vllm:prod", command=line)], FLAGS) == []
