"""What Karpenter v1.14.1 does with the pools we render, pinned by its source at that tag
(aws/karpenter-provider-aws v1.14.1, commit bde00654cd316fddb3dccfba3f5ac07039865429)."""

from __future__ import annotations

import copy

import pytest

from components.builders import karpenter
from components.capacity.plan import plan_stack
from components.capacity.pools import plan_pools
from components.config import load_stack_config
from components.errors import ConfigError
from tests.kube_schemas import validate_object


def _rendered(raw, pool_name):
    cfg = load_stack_config(raw)
    plans = plan_stack(cfg)
    pools = plan_pools(cfg.gpu_pools, cfg.models, plans)
    pool = next(p for p in cfg.gpu_pools if p.name == pool_name)
    return karpenter.ec2_node_class(pool, pools[pool_name], cfg.cluster.name, "role"), karpenter.node_pool(pool, pools[pool_name])


def test_reserved_capacity_comes_with_its_selector_terms(prod_config):
    # pkg/controllers/nodeclass/capacityreservation.go:54-58: the reservations Karpenter offers are those the
    # EC2NodeClass's capacityReservationSelectorTerms select; with none, status.capacityReservations is nil.
    node_class, node_pool = _rendered(prod_config, "h100")
    assert node_class["spec"]["capacityReservationSelectorTerms"] == [{"tags": {"llm-serving.io/cluster": "llm-prod"}}]
    reqs = {r["key"]: r["values"] for r in node_pool["spec"]["template"]["spec"]["requirements"]}
    assert "reserved" in reqs["karpenter.sh/capacity-type"]
    assert validate_object(node_class) == []


def test_reservation_by_id(prod_config):
    raw = copy.deepcopy(prod_config)
    raw["llm-serving:gpuPools"][1]["capacityReservations"] = [{"id": "cr-0123456789abcdef0"}]
    node_class, _ = _rendered(raw, "h100")
    assert node_class["spec"]["capacityReservationSelectorTerms"] == [{"id": "cr-0123456789abcdef0"}]
    assert validate_object(node_class) == []


def test_reserved_without_reservations_is_refused(prod_config):
    raw = copy.deepcopy(prod_config)
    del raw["llm-serving:gpuPools"][1]["capacityReservations"]
    with pytest.raises(ConfigError) as err:
        load_stack_config(raw)
    assert (
        "gpuPools[1].capacityReservations = []: required when capacityTypes includes reserved: Karpenter launches "
        "reserved capacity only from the reservations"
    ) in str(err.value)


@pytest.mark.parametrize(
    "term, rule",
    [
        ({"id": "i-123"}, "gpuPools[1].capacityReservations[0].id = 'i-123': must be a capacity reservation id"),
        ({"id": "cr-1", "tags": {"a": "b"}}, "gpuPools[1].capacityReservations[0]"),
        ({}, "needs id or tags"),
        ({"tags": {"a": ""}}, "must hold 1-20 tags with non-empty keys and values"),
        (
            {"tags": {"a": "b"}, "ownerId": "12"},
            "gpuPools[1].capacityReservations[0].ownerId = '12': must be a 12-digit AWS account id",
        ),
    ],
)
def test_bad_reservation_terms_name_the_field(prod_config, term, rule):
    raw = copy.deepcopy(prod_config)
    raw["llm-serving:gpuPools"][1]["capacityReservations"] = [term]
    with pytest.raises(ConfigError) as err:
        load_stack_config(raw)
    assert rule in str(err.value)


def test_a_pool_with_a_multi_node_engine_never_expires(prod_config):
    # Karpenter v1 expiration is forceful, not governed by disruption budgets
    # (website/content/en/docs/concepts/disruption.md:168-191, "Automated Forceful Methods": expiration drains at once; terminationGracePeriod bounds do-not-disrupt), so both nodes of the 405B engine would be
    # replaced together. Drift inside the window rolls AMIs instead.
    _, node_pool = _rendered(prod_config, "h100-ray")
    assert node_pool["spec"]["template"]["spec"]["expireAfter"] == "Never"
    assert any(
        b.get("reasons") == ["Drifted", "Underutilized"] and b.get("schedule") for b in node_pool["spec"]["disruption"]["budgets"]
    )
    # Every GPU pool defaults to Never (cold review of session 23, N10): Karpenter v1.14.1's expiration controller
    # deletes a NodeClaim at creation + expireAfter without looking at budgets or the window
    # (pkg/controllers/nodeclaim/expiration/controller.go:70-84), so nodes launched together expired together.
    _, l40s = _rendered(prod_config, "l40s")
    assert l40s["spec"]["template"]["spec"]["expireAfter"] == "Never"
    budgets = l40s["spec"]["disruption"]["budgets"]
    # Never is safe only where drift gets through in the window: drift blocked outside it, one node at a time inside.
    assert any(b["nodes"] == "0" and "Drifted" in b.get("reasons", []) and b.get("schedule") for b in budgets)
    assert any(b["nodes"] != "0" and "schedule" not in b for b in budgets)
    raw = copy.deepcopy(prod_config)
    index = next(i for i, p in enumerate(raw["llm-serving:gpuPools"]) if p["name"] == "l40s")
    raw["llm-serving:gpuPools"][index]["disruption"] = {"expireAfter": "720h"}
    cfg = load_stack_config(raw)
    assert next(p for p in cfg.gpu_pools if p.name == "l40s").disruption.expire_after == "720h"


def test_expire_after_on_a_multi_node_pool_is_refused(prod_config):
    raw = copy.deepcopy(prod_config)
    raw["llm-serving:gpuPools"][2]["disruption"] = {"expireAfter": "720h"}
    with pytest.raises(ConfigError) as err:
        load_stack_config(raw)
    assert "gpuPools[2].disruption.expireAfter = '720h': must be Never on a pool that hosts a multi-node engine" in str(err.value)


def test_drift_never_rolls_the_multi_node_pool_by_itself(prod_config):
    # website/content/en/docs/concepts/disruption.md:277-278 (v1.14.1): with the NodePool's terminationGracePeriod set, a
    # node may be disrupted via drift even if pods with karpenter.sh/do-not-disrupt (the Ray pods) or blocking PDBs run
    # on it (pkg/controllers/disruption/types.go:189-193). Rolling one node of a two-node engine stops the engine, and
    # the second node's roll stops it again: so the pool that hosts it sets no terminationGracePeriod, holds Drifted at
    # zero nodes, and its nodes roll by the planned procedure (docs/platform.md).
    from components.builders import ray_cluster

    _, node_pool = _rendered(prod_config, "h100-ray")
    spec = node_pool["spec"]
    assert spec["template"]["spec"]["expireAfter"] == "Never"
    assert "terminationGracePeriod" not in spec["template"]["spec"]
    assert {"nodes": "0", "reasons": ["Drifted"]} in spec["disruption"]["budgets"]
    assert ray_cluster.DO_NOT_DISRUPT == {"karpenter.sh/do-not-disrupt": "true"}
    assert validate_object(node_pool) == []
