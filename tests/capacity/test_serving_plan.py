"""Derived serving settings: every number unset in the stack comes from the capacity plan, with a reason."""

from __future__ import annotations

import pytest

from components.capacity.plan import plan_stack
from components.config import load_stack_config
from components.errors import ConfigError
from components.images import vllm_release as image_version


def plans_of(cfg_dict):
    return plan_stack(load_stack_config(cfg_dict))


def test_unset_numbers_are_derived_with_reasons(dev_config):
    plan = plans_of(dev_config)["chat-8b"]
    derived = {d.setting: d for d in plan.derivations}
    assert set(derived) >= {
        "maxNumSeqs",
        "maxNumBatchedTokens",
        "autoscaling.targetInFlightPerPod",
        "maxNumQueuedReqs",
        "terminationGracePeriodSeconds",
    }
    assert derived["maxNumBatchedTokens"].value == plan.max_num_batched_tokens == 2048  # L40S: vLLM's small tier
    assert derived["maxNumSeqs"].value == plan.max_num_seqs
    assert all(d.reason for d in plan.derivations)


def test_max_num_seqs_is_bounded_by_the_cache_and_the_hardware_default(dev_config):
    plan = plans_of(dev_config)["chat-8b"]
    typical = 2048
    assert plan.max_num_seqs <= 256  # vLLM's default for L40S
    assert plan.max_num_seqs * typical <= plan.memory.kv_cache_tokens
    assert plan.max_num_seqs % 8 == 0


def test_a_short_cache_lowers_max_num_seqs(dev_config):
    # A longer typical request leaves room for fewer of them.
    dev_config["llm-serving:models"][0]["traffic"] = {"typicalRequestTokens": 8192}
    short = plans_of(dev_config)["chat-8b"]
    assert short.max_num_seqs <= short.memory.kv_cache_tokens // 8192


def test_hpa_target_and_queue_follow_max_num_seqs(dev_config):
    plan = plans_of(dev_config)["chat-8b"]
    assert plan.target_in_flight_per_pod == int(plan.max_num_seqs * 0.8)
    # A queued request waits for a slot; slots free at maxNumSeqs per typical request (20 s):
    # within the 5 s TTFT objective a quarter of maxNumSeqs can be served from the queue.
    assert plan.max_num_queued_reqs == plan.max_num_seqs * 5 // 20


def test_user_values_win_over_derived_ones(dev_config):
    engine = dev_config["llm-serving:models"][0]["engine"]
    engine.update(maxNumSeqs=32, maxNumBatchedTokens=4096, maxNumQueuedReqs=7)
    dev_config["llm-serving:models"][0]["autoscaling"] = {"targetInFlightPerPod": 20}
    plan = plans_of(dev_config)["chat-8b"]
    assert (plan.max_num_seqs, plan.max_num_batched_tokens, plan.max_num_queued_reqs, plan.target_in_flight_per_pod) == (
        32,
        4096,
        7,
        20,
    )
    dev_config["llm-serving:models"][0]["startup"] = {"budgetSeconds": 900}
    plan = plans_of(dev_config)["chat-8b"]
    assert {d.setting for d in plan.derivations} == {"terminationGracePeriodSeconds"}


def test_more_sequences_than_batched_tokens_is_an_input_error(dev_config):
    dev_config["llm-serving:models"][0]["engine"].update(maxNumSeqs=512, maxNumBatchedTokens=256)
    with pytest.raises(ConfigError) as err:
        plans_of(dev_config)
    assert [str(p) for p in err.value.problems] == [
        "models[0].engine.maxNumSeqs = 512: exceeds maxNumBatchedTokens (256); vLLM requires max_num_batched_tokens >= max_num_seqs"
    ]


def test_derived_max_num_seqs_never_exceeds_the_batch(dev_config):
    dev_config["llm-serving:models"][0]["engine"]["maxNumBatchedTokens"] = 64
    plan = plans_of(dev_config)["chat-8b"]
    assert plan.max_num_seqs <= 64


def test_pod_fits_its_node_and_shm_fits_the_memory_limit(prod_config):
    from components.capacity.gpus import INSTANCES

    for plan in plans_of(prod_config).values():
        node = INSTANCES[plan.node_instance_type]
        share = plan.resources.gpus / node.gpu_count
        assert plan.resources.cpu <= node.vcpu * share
        assert plan.resources.memory_gib <= node.memory_gib * share
        assert plan.resources.shm_gib * 4 <= plan.resources.memory_gib
        # Only a Hugging Face download lands in ephemeral storage; S3 and node-cached weights do not.
        if config_of_source(prod_config, plan.name) == "huggingface":
            assert plan.resources.ephemeral_storage_gib > plan.model.checkpoint_gib
        else:
            assert plan.resources.ephemeral_storage_gib == 10


def test_the_release_comes_from_the_image_tag():
    assert image_version("vllm/vllm-openai:v0.33.0") == "0.33.0"
    assert image_version("registry.local:5000/vllm/vllm-openai:v0.19.1-cu128") == "0.19.1"
    assert image_version("vllm/vllm-openai@sha256:" + "a" * 64) is None
    assert image_version("vllm/vllm-openai:latest") is None


def test_the_plan_uses_the_images_release(dev_config):
    assert plans_of(dev_config)["chat-8b"].memory.accounting == "0.20-0.33"
    dev_config["llm-serving:models"][0]["image"] = "vllm/vllm-openai:v0.10.1"
    assert plans_of(dev_config)["chat-8b"].memory.accounting == "0.8-0.16"


def config_of_source(raw: dict, name: str) -> str:
    """The source type a stack file gives the model ``name``."""
    m = next(m for m in raw["llm-serving:models"] if m["name"] == name)
    return (m.get("source") or {}).get("type", "huggingface")


def test_the_plan_sizes_the_sampler_warm_up_of_vllms_own_image(dev_config):
    # vLLM 0.9.0-0.11.0 sample with FlashInfer where it is installed, and vllm/vllm-openai installs it
    # (accounting.py image_flashinfer_sampler); a custom image of the same release keeps the PyTorch sort's charge.
    from components.capacity.plan import engine_args

    model = dev_config["llm-serving:models"][0]
    plans = {}
    for image in ("vllm/vllm-openai:v0.10.2", "ghcr.io/acme/vllm:v0.10.2"):
        model["image"] = image
        cfg = load_stack_config(dev_config)
        plans[image] = plan_stack(cfg)["chat-8b"], engine_args(cfg.models[0], None, None)
    (upstream, upstream_args), (custom, custom_args) = plans.values()
    assert (upstream_args.flashinfer_sampler, custom_args.flashinfer_sampler) == (True, None)
    assert any("sampler warm-up sized as FlashInfer's top-k/top-p over 96 rows" in n for n in upstream.memory.notes)
    assert any("sized as the PyTorch sort of an install without it" in n for n in custom.memory.notes)
    # More KV cache (24.56 against 24.37 GiB), so the derived batch grows too.
    assert upstream.memory.kv_cache_gib > custom.memory.kv_cache_gib + 0.15
    assert (upstream.max_num_seqs, custom.max_num_seqs) == (96, 88)
