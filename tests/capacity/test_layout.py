"""Multi-node layout: the node rules (refusals name them), vLLM's layer split, per-stage budgets."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from components.capacity.cold_start import FLOOR_S
from components.capacity.layout import RULE_TP_DIVIDES_HEADS, cold_start_seconds, pipeline_partition
from components.capacity.plan import plan_stack
from components.config import load_stack_config
from components.config.placement import RULE_MORE_THAN_ONE_NODE, RULE_ONE_REPLICA, RULE_TP_PP_FILLS_NODES, RULE_TP_WITHIN_NODE
from components.errors import ConfigError
from tests.conftest import parse_python, stack_config


@pytest.mark.parametrize(
    "layers,pp,expected",
    [
        (126, 2, [63, 63]),  # Llama-3.1-405B over two nodes
        (61, 2, [31, 30]),  # DeepSeek-V3: the extra layer goes to the stage before the last
        (61, 4, [15, 15, 16, 15]),
        (10, 4, [2, 3, 3, 2]),
        (80, 1, [80]),
    ],
)
def test_layers_split_as_vllm_get_pp_indices_does(layers, pp, expected):
    assert pipeline_partition(layers, pp) == expected
    assert sum(expected) == layers


@pytest.fixture(scope="module")
def prod_405b():
    cfg = load_stack_config(stack_config("prod"))
    return next(m for m in cfg.models if m.distributed), plan_stack(cfg)["llama-405b"]


def test_prod_two_node_layout(prod_405b):
    m, plan = prod_405b
    layout = plan.layout
    assert (layout.nodes, layout.gpus_per_node) == (2, 8)
    assert (layout.tensor_parallel_size, layout.pipeline_parallel_size) == (
        m.engine.tensor_parallel_size,
        m.engine.pipeline_parallel_size,
    )
    assert layout.gpus == plan.memory.gpus_per_replica == 16
    assert layout.layers_per_stage == (63, 63)
    assert [s.first_layer for s in layout.stages] == [0, 63]
    assert layout.instance_type == "p5.48xlarge" and layout.efa_interfaces_per_node == 32
    # A worker pod takes a whole node; the head takes none of its GPUs.
    assert plan.resources.gpus == 8 and plan.head_resources.gpus == 0


def test_stage_budgets_agree_with_the_capacity_plan(prod_405b):
    # Even split, untied embeddings: each stage holds half the layers and one embedding-sized matrix,
    # which is what the memory model charges its busiest stage; the engine's cache is the same.
    _, plan = prod_405b
    for stage in plan.layout.stages:
        assert stage.weights_gib == pytest.approx(plan.memory.weights_gib, abs=1e-9)
        assert stage.kv_cache_gib == pytest.approx(plan.memory.kv_cache_gib, abs=1e-9)
        assert stage.kv_cache_tokens == plan.memory.kv_cache_tokens
    weights_all_gpus = sum(s.weights_gib for s in plan.layout.stages) * plan.layout.gpus_per_node
    assert weights_all_gpus == pytest.approx(plan.model.checkpoint_gib, rel=0.01)  # + the rotary caches


def test_middle_stages_hold_no_embedding():
    cfg = stack_config("prod")
    cfg["llm-serving:models"][3]["engine"]["pipelineParallelSize"] = 3
    cfg["llm-serving:gpuPools"][2]["gpuLimit"] = 64  # h100-ray, the 405B's pool
    plan = plan_stack(load_stack_config(cfg))["llama-405b"]
    first, middle, last = plan.layout.stages
    assert plan.layout.layers_per_stage == (42, 42, 42)
    assert middle.weights_gib < first.weights_gib == pytest.approx(last.weights_gib)  # embeddings at the ends


def test_startup_budget_covers_a_multi_node_cold_start(prod_405b):
    m, plan = prod_405b
    budget = plan.startup_failure_threshold * plan.startup_period_seconds
    assert budget >= cold_start_seconds(plan.model) > (m.startup.budget_seconds or FLOOR_S)
    derived = {d.setting: d.value for d in plan.derivations}
    assert derived["startup.budgetSeconds"] == cold_start_seconds(plan.model)


def _refusal(cfg: dict) -> list[str]:
    with pytest.raises(ConfigError) as err:
        plan_stack(load_stack_config(cfg))
    return [str(p) for p in err.value.problems]


def _with_405b(**engine):
    cfg = stack_config("prod")
    cfg["llm-serving:models"][3]["engine"].update(engine)
    cfg["llm-serving:gpuPools"][2]["gpuLimit"] = 128  # h100-ray, the 405B's pool
    return cfg


def test_tensor_parallel_beyond_a_node_is_refused():
    assert _refusal(_with_405b(tensorParallelSize=16, pipelineParallelSize=1)) == [
        f"models[3].engine.tensorParallelSize = 16: {RULE_TP_WITHIN_NODE}: pool 'h100-ray' (p5.48xlarge) has 8 GPUs per "
        f"node; tensor parallelism needs NVLink inside one node, pipeline stages cross nodes (use tensorParallelSize 8 "
        f"and raise pipelineParallelSize)"
    ]


def test_ranks_that_do_not_fill_whole_nodes_are_refused():
    assert _refusal(_with_405b(tensorParallelSize=4, pipelineParallelSize=3)) == [
        f"models[3].engine.pipelineParallelSize = 3: {RULE_TP_PP_FILLS_NODES}: 4 x 3 = 12 GPUs, but pool 'h100-ray' "
        f"(p5.48xlarge) has 8 GPUs per node, so 2 nodes hold 16; idle GPUs would be paid for (use "
        f"tensorParallelSize 8 and pipelineParallelSize = the node count)"
    ]


def test_tensor_parallel_that_does_not_divide_the_heads_is_refused():
    # 6 x 4 = 24 GPUs = 3 full nodes, but 128 heads do not split over 6 ranks.
    assert _refusal(_with_405b(tensorParallelSize=6, pipelineParallelSize=4)) == [
        f"models[3].engine.tensorParallelSize = 6: {RULE_TP_DIVIDES_HEADS}: llama-3.1-405b has 128 attention heads, "
        f"which 6 does not divide (vLLM refuses to start)"
    ]


def _head_divisibility_tests(root: Path) -> dict[str, int]:
    """Per file under ``root``: the `x % y` expressions with a model's head count on either side."""
    heads = {"num_attention_heads", "num_kv_heads"}
    found: dict[str, int] = {}
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(parse_python(path.read_text())):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
                sides = (node.left, node.right)
                if any(isinstance(side, ast.Attribute) and side.attr in heads for side in sides):
                    key = str(path.relative_to(root.parent))
                    found[key] = found.get(key, 0) + 1
    return found


def test_the_head_divisibility_rule_is_written_once():
    # S22 (capacity/startup.py unsharded_heads) owns whether TP shards the heads; the layout's refusal above asks it
    # rather than testing attention heads % TP again.
    repo = Path(__file__).resolve().parents[2]
    found = {}
    for package in ("components", "policies", "stacks"):
        found.update(_head_divisibility_tests(repo / package))
    assert found == {"components/capacity/startup.py": 3}


def test_a_model_that_fits_one_node_does_not_opt_in():
    assert _refusal(_with_405b(tensorParallelSize=8, pipelineParallelSize=1)) == [
        f'models[3].distributed = {{"backend": "ray"}}: {RULE_MORE_THAN_ONE_NODE}: 8 x 1 = 8 GPUs fit on one node '
        f"(pool 'h100-ray' (p5.48xlarge) has 8 GPUs per node); remove distributed to serve it from one pod"
    ]


def test_multi_node_replicas_are_fixed_at_one():
    cfg = _with_405b()
    cfg["llm-serving:models"][3]["replicas"] = {"min": 1, "max": 3, "singleReplicaReason": "two p5.48xlarge nodes per replica"}
    assert _refusal(cfg) == [
        f'models[3].replicas = {{"max": 3, "min": 1}}: {RULE_ONE_REPLICA} ({{min: 1, max: 1}}): autoscaling '
        f"multi-node replicas is out of scope, as in KServe and NIM"
    ]
