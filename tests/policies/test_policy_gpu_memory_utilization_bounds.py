"""S1 vllm-gpu-memory-utilization-bounds: one compliant fixture, one mutation per case."""

import pytest
from policy_fixtures import (
    DEPLOYMENT_TYPE,
    deployment_props,
    isvc,
    isvc_props,
    messages,
    resource,
    set_arg,
    vllm_container,
)

from policies.vllm.gpu_memory_utilization_bounds import POLICY

HIGH = "CUDA graphs, NCCL buffers and other processes need the rest of the GPU, or the engine runs out of memory"
LOW = 'too little is left for the KV cache: "No available memory for the cache blocks" (vllm-project/vllm#2248)'


def with_utilization(value):
    props = isvc_props()
    set_arg(vllm_container(props), "gpu-memory-utilization", value)
    return isvc(props)


def test_compliant_inference_service_passes():
    assert messages(POLICY, isvc()) == []


def test_above_maximum():
    assert messages(POLICY, with_utilization("0.99")) == [
        f"container kserve-container: --gpu-memory-utilization=0.99 is above the maximum 0.95; {HIGH}"
    ]


def test_below_minimum():
    assert messages(POLICY, with_utilization("0.5")) == [
        f"container kserve-container: --gpu-memory-utilization=0.5 is below the minimum 0.8; {LOW}"
    ]


@pytest.mark.parametrize("value", ["0.8", "0.95"])
def test_bounds_are_inclusive(value):
    assert messages(POLICY, with_utilization(value)) == []


def test_absent_uses_vllm_default_which_is_inside_the_default_band():
    assert messages(POLICY, with_utilization(None)) == []


def test_absent_default_checked_against_a_tighter_band():
    assert messages(POLICY, with_utilization(None), config={"max": 0.9}) == [
        "container kserve-container: --gpu-memory-utilization is not set, so vLLM uses its default "
        f"0.92 (vLLM 0.33.0), which is above the maximum 0.9; {HIGH}"
    ]


def test_not_a_number():
    assert messages(POLICY, with_utilization("high")) == [
        "container kserve-container: --gpu-memory-utilization=high is not a number"
    ]


def test_space_separated_flag_with_underscores_is_read():
    props = isvc_props()
    container = vllm_container(props)
    set_arg(container, "gpu-memory-utilization", None)
    container["args"] += ["--gpu_memory_utilization", "0.97"]
    assert messages(POLICY, isvc(props)) == [
        f"container kserve-container: --gpu-memory-utilization=0.97 is above the maximum 0.95; {HIGH}"
    ]


def test_shell_script_command_is_read():
    props = isvc_props()
    container = vllm_container(props)
    container["command"] = ["/bin/sh", "-c"]
    container["args"] = ["exec vllm serve meta-llama/Llama-3.1-8B-Instruct --gpu-memory-utilization 0.99"]
    assert messages(POLICY, isvc(props)) == [
        f"container kserve-container: --gpu-memory-utilization=0.99 is above the maximum 0.95; {HIGH}"
    ]


def test_deployment_is_checked_too():
    props = deployment_props()
    set_arg(props["spec"]["template"]["spec"]["containers"][0], "gpu-memory-utilization", "0.99")
    assert messages(POLICY, resource(DEPLOYMENT_TYPE, props)) == [
        f"container kserve-container: --gpu-memory-utilization=0.99 is above the maximum 0.95; {HIGH}"
    ]


def test_serving_runtime_model_spec_args_are_checked():
    props = isvc_props()
    predictor = props["spec"]["predictor"]
    predictor["containers"] = []
    predictor["model"] = {"modelFormat": {"name": "vLLM"}, "args": ["--gpu-memory-utilization=0.99"]}
    assert messages(POLICY, isvc(props)) == [
        f"spec.predictor.model: --gpu-memory-utilization=0.99 is above the maximum 0.95; {HIGH}"
    ]


def test_non_vllm_container_is_ignored():
    props = isvc_props()
    container = vllm_container(props)
    container["image"] = "nginx:1.27"
    container["command"] = ["nginx"]
    container["args"] = ["--gpu-memory-utilization=0.99"]
    assert messages(POLICY, isvc(props)) == []


def test_config_band_override():
    assert messages(POLICY, with_utilization("0.9"), config={"min": 0.92, "max": 0.95}) == [
        f"container kserve-container: --gpu-memory-utilization=0.9 is below the minimum 0.92; {LOW}"
    ]


def test_above_the_band_without_cuda_graphs_is_advice(tmp_path):
    """KServe v0.20.0's dp-ep P/D sample (kserve/kserve@v0.20.0 docs/samples/llmisvc/dp-ep/deepseek-r1-gpu-rdma-roce/
    llm-inference-service-dp-ep-deepseek-r1-pd-gpu-p-deepep-ht-d-pplx.yaml) passes, through VLLM_ADDITIONAL_ARGS,
    --gpu-memory-utilization 0.99 with --enforce-eager: no CUDA graphs, so the rest of the GPU is unproven, advice."""
    import yaml

    from policies.check import resources_of
    from policies.manifests import read_manifests
    from policies.registry import evaluate

    def found(extra: str) -> list[str]:
        svc = {
            "apiVersion": "serving.kserve.io/v1alpha1",
            "kind": "LLMInferenceService",
            "metadata": {"name": "deepseek-r1-0528-pd"},
            "spec": {
                "model": {"uri": "hf://deepseek-ai/DeepSeek-R1-0528", "name": "deepseek-ai/DeepSeek-R1-0528"},
                "template": {"containers": [{"name": "main", "env": [{"name": "VLLM_ADDITIONAL_ARGS", "value": extra}]}]},
            },
        }
        path = tmp_path / "svc.yaml"
        path.write_text(yaml.safe_dump(svc))
        return [
            v.enforcement
            for v in evaluate(resources_of(read_manifests([str(path)])))
            if v.policy == "vllm-gpu-memory-utilization-bounds"
        ]

    assert found("--gpu-memory-utilization 0.99 --max-model-len 4096 --enforce-eager") == ["advisory"]
    assert found("--gpu-memory-utilization 0.99 --max-model-len 4096") == ["mandatory"]
