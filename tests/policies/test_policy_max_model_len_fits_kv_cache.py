"""S2 vllm-max-model-len-fits-kv-cache and the S1 budget check: one compliant fixture, one mutation per case."""

import pytest
import yaml
from policy_fixtures import DEPLOYMENT_TYPE, isvc, isvc_props, messages, resource, set_arg, vllm_container

from components.capacity.gpus import find_gpu
from components.capacity.memory import EngineArgs, plan_memory
from components.capacity.models import find_model
from policies.reading.vllm_args import vllm_servers
from policies.reading.vllm_capacity import server_plan
from policies.registry import evaluate
from policies.vllm.kv_cache_headroom import POLICY as HEADROOM
from policies.vllm.max_model_len_fits_kv_cache import POLICY


def on_gpu(gpu_label="l40s", **flags):
    props = isvc_props()
    props["spec"]["predictor"]["nodeSelector"]["karpenter.k8s.aws/instance-gpu-name"] = gpu_label
    for flag, value in flags.items():
        set_arg(vllm_container(props), flag.replace("_", "-"), value)
    return isvc(props)


def test_compliant_inference_service_passes():
    assert messages(POLICY, on_gpu()) == []
    assert messages(HEADROOM, on_gpu()) == []


def test_unknown_gpu_or_model_is_not_applicable():
    assert messages(POLICY, isvc()) == []  # no GPU label: nothing to size against
    props = isvc_props()
    props["spec"]["predictor"]["nodeSelector"]["karpenter.k8s.aws/instance-gpu-name"] = "l4"
    vllm_container(props)["args"][0] = "acme/private-model"
    assert messages(POLICY, isvc(props)) == []


def test_context_beyond_the_kv_cache_is_blocked_with_the_numbers_and_the_fix():
    assert messages(POLICY, on_gpu("l4", max_model_len="131072", max_num_seqs=None, max_num_batched_tokens=None)) == [
        "container kserve-container: meta-llama/Llama-3.1-8B-Instruct on 1x L4 (22.04 GiB) does not start: maxModelLen "
        "131,072 exceeds the KV cache (26,768 tokens, 3.27 GiB per GPU); lower maxModelLen, raise tensorParallelSize, use an "
        "fp8 KV cache, or a bigger GPU [budget 19.84 GiB = weights 14.99 + activation 0.52 + non-torch 0.25 + CUDA graphs "
        "0.81 + KV 3.27]"
    ]


def test_weights_that_do_not_fit_are_blocked():
    props = isvc_props()
    props["spec"]["predictor"]["nodeSelector"]["karpenter.k8s.aws/instance-gpu-name"] = "l40s"
    vllm_container(props)["args"][0] = "meta-llama/Llama-3.3-70B-Instruct"
    (msg,) = messages(POLICY, isvc(props))
    assert msg.startswith(
        "container kserve-container: meta-llama/Llama-3.3-70B-Instruct on 1x L40S (44.42 GiB) does not start: weights need "
    )
    assert "raise tensorParallelSize, quantize, or use a bigger GPU" in msg


def test_the_policy_agrees_with_the_capacity_plan():
    # One source of truth: the policy's figures are the capacity module's for the same flags.
    m = find_model("meta-llama/Llama-3.1-8B-Instruct")
    # The fixture's image is vllm/vllm-openai:v0.33.0, so 0.33's accounting applies.
    args = EngineArgs(gpu_memory_utilization=0.9, max_model_len=131072, dtype="bfloat16", vllm_version="0.33.0")
    plan = plan_memory(m.arch, m.checkpoint_bytes, find_gpu("L4"), args)
    (msg,) = messages(POLICY, on_gpu("l4", max_model_len="131072", max_num_seqs=None, max_num_batched_tokens=None))
    assert plan.reason in msg


def test_fp8_kv_cache_is_the_documented_fix():
    assert messages(POLICY, on_gpu("l4", max_model_len="32768", max_num_seqs=None, max_num_batched_tokens=None)) != []
    assert (
        messages(
            POLICY, on_gpu("l4", max_model_len="32768", max_num_seqs=None, max_num_batched_tokens=None, kv_cache_dtype="fp8")
        )
        == []
    )


def test_gpu_from_the_component_annotation():
    props = isvc_props()
    props["metadata"]["annotations"]["llm-serving.io/gpu"] = "L4"
    set_arg(vllm_container(props), "max-model-len", "131072")
    assert len(messages(POLICY, isvc(props))) == 1


def test_headroom_warns_when_little_kv_is_left():
    # (0.84: the CUDA graph reserve follows the graphs the fixture's max_num_seqs captures, so 0.85 now leaves 2.04 GiB.)
    tight = on_gpu("l4", max_model_len="4096", gpu_memory_utilization="0.84")
    assert messages(POLICY, tight) == []  # it starts...
    assert messages(HEADROOM, tight) == [  # ...with little room for requests
        "container kserve-container: --gpu-memory-utilization=0.84 leaves 1.82 GiB of KV cache per GPU (14,864 tokens) on "
        "L4, below 2 GiB; raise the utilization or tensorParallelSize, or use an fp8 KV cache"
    ]
    assert messages(HEADROOM, tight, config={"minKvCacheGib": 1}) == []


def test_the_exact_gpu_annotation_wins_over_the_family_label():
    # Karpenter's label says "a100" for both the 40 GB and the 80 GB part.
    props = isvc_props()
    props["spec"]["predictor"]["nodeSelector"]["karpenter.k8s.aws/instance-gpu-name"] = "a100"
    props["metadata"]["annotations"]["llm-serving.io/gpu"] = "A100-80GB"
    vllm_container(props)["args"][0] = "Qwen/Qwen3-32B"
    set_arg(vllm_container(props), "max-model-len", "8192")
    assert messages(POLICY, isvc(props)) == []
    del props["metadata"]["annotations"]["llm-serving.io/gpu"]
    (msg,) = messages(POLICY, isvc(props))
    assert msg.startswith("container kserve-container: Qwen/Qwen3-32B on 1x A100-40GB (39.39 GiB) does not start: weights need ")


def test_a_model_outside_the_catalogue_is_judged_by_the_stamped_plan():
    props = isvc_props()
    vllm_container(props)["args"][0] = "acme/private-70b"
    props["metadata"]["annotations"]["llm-serving.io/capacity-plan"] = (
        '{"accounting":"0.20-0.33","fits":false,"gpusPerReplica":1,"kvCacheGib":-3.5,"kvCacheTokens":0,'
        '"reason":"weights need 60.00 GiB per GPU but 0.9 x 44.42 GiB = 39.98 GiB is the budget"}'
    )
    assert messages(POLICY, isvc(props)) == [
        "container kserve-container: acme/private-70b does not start: weights need 60.00 GiB per GPU but 0.9 x 44.42 GiB "
        "= 39.98 GiB is the budget [capacity plan stamped by llm-serving, -3.5 GiB KV per GPU]"
    ]
    props["metadata"]["annotations"]["llm-serving.io/capacity-plan"] = '{"fits": true}'
    assert messages(POLICY, isvc(props)) == []


# A third-party Deployment as GPUStack's performance lab ran it (gpustack/gpustack docs/performance-lab/gpt-oss-120b/
# h100.md: `vllm serve openai/gpt-oss-120b --max-model-len 32768` on one H100 SXM, vLLM 0.10.2), pinned to p5 nodes.
GPT_OSS_ON_ONE_H100 = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: gpt-oss-120b, namespace: inference}
spec:
  replicas: 1
  selector: {matchLabels: {app: gpt-oss-120b}}
  template:
    metadata: {labels: {app: gpt-oss-120b}}
    spec:
      nodeSelector: {node.kubernetes.io/instance-type: p5.48xlarge}
      containers:
      - name: vllm
        image: IMAGE
        args: [--model, openai/gpt-oss-120b, --max-model-len, "32768"]
        resources:
          limits: {nvidia.com/gpu: 1}
"""


def gpt_oss_deployment(image: str, env: list | None = None):
    props = yaml.safe_load(GPT_OSS_ON_ONE_H100.replace("IMAGE", image))
    if env is not None:
        props["spec"]["template"]["spec"]["containers"][0]["env"] = env
    return resource(DEPLOYMENT_TYPE, props)


SORT_REFUSAL = (
    "container vllm: openai/gpt-oss-120b on 1x H100 (79.18 GiB) does not start: no memory left for the KV cache (-2.27 "
    "GiB after weights, activations, non-torch memory and CUDA graphs); raise gpuMemoryUtilization or "
    "tensorParallelSize, lower maxNumBatchedTokens/maxNumSeqs, or use a bigger GPU [budget 71.26 GiB = weights 65.94 + "
    "activation 7.44 + non-torch 0.15 + CUDA graphs 0.00 + KV -2.27] (an estimate: the accounting is not calibrated "
    "for sliding-window layers beside full attention)"
)


def test_a_shortfall_on_an_uncalibrated_architecture_is_advice():
    # shawnawshk/llm-on-eks k8s-manifest/vllm/gpt-oss-120b.yaml (held-out set 10): gpt-oss-120b (MXFP4 experts,
    # sliding-window layers beside full attention: its config.json, components/capacity/model_catalog.py) on one
    # H100; the labellers found it starts, and the accounting is calibrated only on dense full-attention models.
    deployment = gpt_oss_deployment("vllm/vllm-openai:gptoss")
    container = deployment.props["spec"]["template"]["spec"]["containers"][0]
    container.pop("args", None)
    container["command"] = ["/bin/sh", "-c"]
    container["args"] = ["vllm serve openai/gpt-oss-120b --gpu-memory-utilization 0.95 --max-model-len 109792"]
    found = evaluate([deployment], None, policies=[POLICY])
    assert [v.enforcement for v in found] == ["advisory"]
    assert "KV cache (24,624 tokens" in found[0].message and "not calibrated for sliding-window" in found[0].message


def test_vllms_own_010_image_samples_with_flashinfer_so_gpt_oss_120b_starts_on_one_h100():
    # vllm/vllm-openai:v0.10.2 installs FlashInfer, and 0.10.2 samples top-k/top-p with it, also in the profile's
    # warm-up: 14 bytes per logit where the PyTorch sort holds 38.3 (accounting.py image_flashinfer_sampler). GPUStack
    # ran this start; sized as the sort, S2 refused it at -2.27 GiB.
    deployment = gpt_oss_deployment("vllm/vllm-openai:v0.10.2")
    assert messages(POLICY, deployment) == []
    (server,) = vllm_servers(deployment)
    plan = server_plan(deployment, server)
    assert plan is not None and plan.plan.kv_cache_gib == pytest.approx(2.39, abs=0.01)
    assert plan.plan.kv_cache_tokens >= 32768


def test_a_custom_image_of_the_same_release_is_sized_as_the_sort():
    # Whether a custom image installs FlashInfer is unknown (a pip install does not): the larger charge, refused.
    assert messages(POLICY, gpt_oss_deployment("ghcr.io/acme/vllm:v0.10.2")) == [SORT_REFUSAL]
    # So is vLLM's own image where the environment turns the sampler off, or sets it from where the manifest does
    # not show.
    off = [{"name": "VLLM_USE_FLASHINFER_SAMPLER", "value": "0"}]
    assert messages(POLICY, gpt_oss_deployment("vllm/vllm-openai:v0.10.2", off)) == [SORT_REFUSAL]
    hidden = [{"name": "VLLM_USE_FLASHINFER_SAMPLER", "valueFrom": {"configMapKeyRef": {"name": "vllm", "key": "s"}}}]
    assert messages(POLICY, gpt_oss_deployment("vllm/vllm-openai:v0.10.2", hidden)) == [SORT_REFUSAL]
    on = [{"name": "VLLM_USE_FLASHINFER_SAMPLER", "value": "1"}, {"name": "HF_HOME", "value": "/cache"}]
    assert messages(POLICY, gpt_oss_deployment("vllm/vllm-openai:v0.10.2", on)) == []


def test_an_image_of_the_default_release_takes_the_rule_too():
    # A tag that names no release is sized with defaultVllmRelease; vLLM's own image of 0.10.2 samples with FlashInfer.
    latest = gpt_oss_deployment("vllm/vllm-openai:latest")
    assert messages(POLICY, latest, config={"defaultVllmRelease": "0.10.2"}) == []
    assert messages(POLICY, latest) != []  # unset: the most conservative accounting


def test_the_sampler_rule_leaves_033_images_as_they_were():
    # 0.17 on sample with FlashInfer or Triton in every install: the accounting's own constant, image or not.
    plans = []
    for image in ("vllm/vllm-openai:v0.33.0", "ghcr.io/acme/vllm:v0.33.0"):
        deployment = gpt_oss_deployment(image)
        (server,) = vllm_servers(deployment)
        plan = server_plan(deployment, server)
        assert plan is not None
        plans.append(plan.plan.as_dict())
    assert plans[0] == plans[1] and plans[0]["fits"] is True
