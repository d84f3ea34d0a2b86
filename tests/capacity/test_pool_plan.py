"""The pool capacity plan: buffer size, peak GPUs and the pool-fit check, from the serving plans."""

from __future__ import annotations

from components.capacity.plan import plan_stack
from components.capacity.pools import plan_pools
from components.config import load_stack_config
from tests.conftest import stack_config


def pools(raw):
    cfg = load_stack_config(raw)
    plans = plan_stack(cfg)
    return plans, plan_pools(cfg.gpu_pools, cfg.models, plans)


def test_buffer_holds_one_replica_of_the_largest_model_on_the_pool():
    plans, pool_plans = pools(stack_config("prod"))
    l40s = pool_plans["l40s"]
    assert [m.name for m in l40s.models] == ["chat-8b", "qwen3-32b"]
    # qwen3-32b runs TP4 (capacity plan: GPUs per replica = TP x PP); the placeholder is its pod.
    assert l40s.buffer_pod == plans["qwen3-32b"].resources
    assert l40s.buffer_gpus == 1 * plans["qwen3-32b"].resources.gpus == 4
    assert l40s.peak_gpus == 8 * 1 + 3 * 4 + 4 == 24
    assert pool_plans["h100"].buffer_gpus == 0


def test_prod_models_fit_their_pools():
    _, pool_plans = pools(stack_config("prod"))
    assert all(p.fit_problems() == [] for p in pool_plans.values())


def test_a_model_that_cannot_fit_names_the_pool_and_the_numbers():
    raw = stack_config("prod")
    raw["llm-serving:models"][1]["replicas"]["max"] = 6  # qwen3-32b: 6 x 4 GPUs + 4 buffer = 28 > 24
    _, pool_plans = pools(raw)
    assert pool_plans["l40s"].fit_problems() == [
        "pool l40s: model qwen3-32b needs 6 replicas.max x 4 GPUs + 4 buffer GPUs = 28 GPUs, above gpuLimit 24; "
        "raise gpuLimit or lower replicas.max"
    ]


def test_a_pool_without_models_keeps_no_buffer():
    raw = stack_config("prod")
    raw["llm-serving:gpuPools"].append(
        {"name": "spare", "instanceTypes": ["g6.xlarge"], "gpuLimit": 2, "buffer": {"replicas": 2}}
    )
    _, pool_plans = pools(raw)
    assert pool_plans["spare"].buffer_gpus == 0 and pool_plans["spare"].models == ()
