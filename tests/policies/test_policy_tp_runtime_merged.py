"""S3 vllm-tp-matches-gpu-limit on a KServe predictor ``model``: the parallel sizes KServe's runtime supplies.

KServe appends the model's args to its ServingRuntime's (kserve v0.20.0 pkg/controller/v1beta1/inferenceservice/utils/
utils.go:253-263), and its Hugging Face server sets tensor_parallel_size to torch.cuda.device_count()
(python/huggingfaceserver/huggingfaceserver/vllm/vllm_model.py:106-107), so the model's own args are not the sizes.
"""

import copy

from policy_fixtures import found_by

POLICY = "vllm-tp-matches-gpu-limit"

# kwkoo/kserve-vllm yaml/base/inferenceservice/inference.yaml and serving-runtime.yaml (dev set 25): the model asks
# for 4 GPUs with no --tensor-parallel-size; the runtime's script passes --tensor-parallel-size $GPU_COUNT, counted
# from NVIDIA_VISIBLE_DEVICES at start (trimmed to the fields the rule reads).
ISVC = {
    "apiVersion": "serving.kserve.io/v1beta1",
    "kind": "InferenceService",
    "metadata": {"name": "llm"},
    "spec": {
        "predictor": {
            "minReplicas": 1,
            "maxReplicas": 1,
            "model": {
                "modelFormat": {"name": "vllm"},
                "runtime": "llm",
                "resources": {
                    "requests": {"cpu": "1", "memory": "16Gi", "nvidia.com/gpu": "4"},
                    "limits": {"cpu": "2", "memory": "64Gi", "nvidia.com/gpu": "4"},
                },
                "storage": {"key": "aws-connection-models", "path": "/vicuna/"},
            },
        }
    },
}
SCRIPT = (
    "GPU_COUNT=\"$(echo -n $NVIDIA_VISIBLE_DEVICES | awk -F, '{ print NF }')\"\n"
    'if [ -z "$GPU_COUNT" ]; then\n  GPU_COUNT=1\nfi\n'
    "exec python3 -m vllm.entrypoints.openai.api_server \\\n  --port 8080 \\\n  --model /mnt/models \\\n"
    "  --tensor-parallel-size $GPU_COUNT $@\n"
)
RUNTIME = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "ServingRuntime",
    "metadata": {"name": "llm"},
    "spec": {
        "multiModel": False,
        "supportedModelFormats": [{"name": "vllm", "autoSelect": True}],
        "containers": [
            {
                "name": "kserve-container",
                "image": "docker.io/vllm/vllm-openai:latest",
                "command": ["bash", "-c", SCRIPT],
                "ports": [{"containerPort": 8080, "protocol": "TCP"}],
            }
        ],
    },
}


def _runtime(args: list[str]) -> dict:
    runtime = copy.deepcopy(RUNTIME)
    container = runtime["spec"]["containers"][0]
    container["command"] = ["python3", "-m", "vllm.entrypoints.openai.api_server"]
    container["args"] = args
    return runtime


def test_runtime_sizing_at_run_time_is_not_judged():
    assert found_by([ISVC, RUNTIME], POLICY) == []


def test_runtime_written_size_is_judged_with_the_model():
    found = found_by([ISVC, _runtime(["--port=8080", "--model=/mnt/models", "--tensor-parallel-size=2"])], POLICY)
    # Judged (the runtime's size with the model's 4 GPUs); spare GPUs leave the engine serving: advice.
    assert [level for level, _ in found] == ["advisory"]
    assert "tensor parallel 2 × pipeline parallel 1 = 2 GPUs, but resources.limits nvidia.com/gpu is 4" in found[0][1]


def test_model_args_win_over_the_runtime():
    isvc = copy.deepcopy(ISVC)
    isvc["spec"]["predictor"]["model"]["args"] = ["--tensor-parallel-size", "4"]
    assert found_by([isvc, _runtime(["--model=/mnt/models", "--tensor-parallel-size=2"])], POLICY) == []


def test_runtime_not_in_the_files_is_advice():
    found = found_by([ISVC], POLICY)
    assert [level for level, _ in found] == ["advisory"]


def test_builtin_hugging_face_server_sizes_itself():
    isvc = copy.deepcopy(ISVC)
    model = isvc["spec"]["predictor"]["model"]
    del model["runtime"]
    model["modelFormat"] = {"name": "huggingface"}
    model["args"] = ["--model_name=llama3", "--model_id=meta-llama/meta-llama-3-8b-instruct"]
    assert found_by([isvc], POLICY) == []


def test_an_option_and_its_value_in_one_item_is_s38s_not_s3s():
    # Fresh set 32 eliran89c/self-hosted-llm-on-eks vllm-deepseek-32b.yaml: `- --tensor-parallel-size 2 # Run on 2 GPUs`
    # is one argument; argparse reads it as a positional and the server exits (S38), so no tensor-parallel size applies.
    from policy_fixtures import found_by

    container = {
        "name": "vllm",
        "image": "vllm/vllm-openai:v0.7.0",
        "args": ["--model=deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", "--tensor-parallel-size 2", "--max-model-len=16000"],
        "resources": {"limits": {"nvidia.com/gpu": 2}},
    }
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "deepseek-r1-32b"},
        "spec": {
            "selector": {"matchLabels": {"app": "d"}},
            "template": {"metadata": {"labels": {"app": "d"}}, "spec": {"containers": [container]}},
        },
    }
    assert found_by([deployment], "vllm-tp-matches-gpu-limit") == []
    assert any("is one argument" in m for _, m in found_by([deployment], "engine-options-exist"))
