"""Karpenter's node choice, derived from the objects a stack renders (components/derive/karpenter.py).

Each test pins one rule of kubernetes-sigs/karpenter v1.14.1's provisioning scheduler
(pkg/controllers/provisioning/scheduling/) and fails when the derivation drops it.
"""

from __future__ import annotations

import copy

import pytest

from components.builders import buffer, karpenter, ray_cluster, vllm_service
from components.capacity.plan import plan_stack
from components.capacity.pools import plan_pools
from components.config import load_stack_config
from components.derive.karpenter import allocatable, node_choice, pods_of
from tests.conftest import stack_config


def objects_of(raw: dict) -> list[dict]:
    """What the stack renders that the provisioning scheduler reads: NodePools, the model objects, the buffer."""
    cfg = load_stack_config(raw)
    plans = plan_stack(cfg)
    pools = plan_pools(cfg.gpu_pools, cfg.models, plans)
    out: list[dict] = [karpenter.node_pool(p, pools[p.name]) for p in cfg.gpu_pools]
    for m in cfg.models:
        if m.distributed is not None:
            out.append(ray_cluster.ray_cluster(m, plans[m.name], cfg.namespace, None))
        else:
            out.append(vllm_service.inference_service(m, plans[m.name], cfg.namespace, m.pool, None))
    out += [buffer.placeholder_deployment(pools[p.name], cfg.namespace) for p in cfg.gpu_pools if pools[p.name].buffer_replicas]
    return out


@pytest.fixture(scope="module")
def prod() -> list[dict]:
    return objects_of(stack_config("prod"))


def _min_replicas(name: str) -> int:
    return next(m["replicas"]["min"] for m in stack_config("prod")["llm-serving:models"] if m["name"] == name)


def _model(choice: dict, name: str) -> dict:
    return next(m for m in choice["models"] if m["model"] == name)


def _pool(choice: dict, name: str) -> dict:
    return next(p for p in choice["pools"] if p["pool"] == name)


def test_prod_takes_the_nodes_its_cost_reasoning_assumes(prod):
    choice = node_choice(prod)
    assert choice["unschedulable"] == [] and choice["findings"] == []
    # TP4 llama-70b replicas share 8-GPU p5s two by two (prod runs five at rest: three nodes, the last half idle);
    # the 405B takes two p5s of its own pool (head beside a worker).
    replicas = _model(choice, "llama-70b")["pods"]
    assert replicas == _min_replicas("llama-70b") and _model(choice, "llama-70b")["nodes"] == -(-replicas // 2)
    assert _model(choice, "llama-405b") | {"node_names": None} == {
        **_model(choice, "llama-405b"),
        "node_names": None,
        "pods": 3,
        "nodes": 2,
    }
    nodes = -(-replicas // 2)
    assert _pool(choice, "h100") == {
        "pool": "h100",
        "nodes": nodes,
        "instance_types": {"p5.48xlarge": nodes},
        "gpus": 8 * nodes,
        "gpus_requested": 4 * replicas,
        "idle_gpus": 8 * nodes - 4 * replicas,
    }
    assert _pool(choice, "h100-ray") == {
        "pool": "h100-ray",
        "nodes": 2,
        "instance_types": {"p5.48xlarge": 2},
        "gpus": 16,
        "gpus_requested": 16,
        "idle_gpus": 0,
    }
    # chat-8b (TP1) takes the 1-GPU g6e.2xlarge, one per node: the cheapest type that holds it.
    assert _model(choice, "chat-8b")["instance_types"] == ["g6e.2xlarge"] and _model(choice, "chat-8b")["nodes"] == 2
    assert _pool(choice, "l40s")["idle_gpus"] == 0


def test_a_schedule_anyway_hostname_spread_is_required_while_provisioning(prod):
    # topologygroup.go:238-252: for a new node the count must stay within maxSkew (global minimum taken as 0), and
    # topology.go:461-490 keeps ScheduleAnyway constraints unless the preference policy is Ignore. So the hostname spread
    # the two TP4 replicas had before issue 30 puts each on its own p5, half of each idle.
    objs = copy.deepcopy(prod)
    isvc = next(o for o in objs if o["kind"] == "InferenceService" and o["metadata"]["name"] == "llama-70b")
    spread = isvc["spec"]["predictor"]["topologySpreadConstraints"]
    spread.append({**spread[0], "maxSkew": 1, "topologyKey": "kubernetes.io/hostname"})
    choice = node_choice(objs)
    replicas = _min_replicas("llama-70b")
    # One p5 per replica, half idle each, until the pool's GPU limit (24) stops new nodes; only then does Karpenter
    # relax the spread (scheduler.go:543, preferences.go:90-100) and put the fourth and fifth replicas beside others.
    fit = 24 // 8
    assert replicas == fit + 2
    assert _model(choice, "llama-70b")["nodes"] == fit
    assert _pool(choice, "h100")["idle_gpus"] == 8 * fit - 4 * replicas
    assert choice["unschedulable"] == []
    # The first ScheduleAnyway constraint goes first (the zone's, preferences.go:91-97), then the hostname's.
    assert _model(choice, "llama-70b")["relaxations"] == [
        "removed ScheduleAnyway spread on kubernetes.io/hostname",
        "removed ScheduleAnyway spread on topology.kubernetes.io/zone",
    ]


def test_the_zone_spread_picks_the_least_loaded_zone(prod):
    # topologygroup.go:254-297: among the zones within maxSkew, the one with the fewest matching pods. qwen3-32b's two
    # replicas (one per g6e.12xlarge) land in two zones; llama-70b's zone spread of maxSkew 2 keeps both on one node.
    choice = node_choice(prod)
    zones = {n["zone"] for n in choice["nodes"] if any("qwen3-32b" in p for p in n["pods"])}
    assert len(zones) == 2
    objs = copy.deepcopy(prod)
    isvc = next(o for o in objs if o["kind"] == "InferenceService" and o["metadata"]["name"] == "llama-70b")
    isvc["spec"]["predictor"]["minReplicas"] = 2
    assert _model(node_choice(objs), "llama-70b")["nodes"] == 1  # maxSkew 2: both in one zone, on one p5
    isvc["spec"]["predictor"]["topologySpreadConstraints"][0]["maxSkew"] = 1
    # maxSkew 1: the second replica must open the next zone, so two p5s, each half idle.
    assert _model(node_choice(objs), "llama-70b")["nodes"] == 2


def test_a_prefer_no_schedule_taint_is_tolerated_only_after_the_spread_is_dropped(prod):
    # pkg/scheduling/taints.go:83-95 checks every taint whatever its effect; preferences.go:38-57 relaxes one
    # ScheduleAnyway constraint at a time and adds the PreferNoSchedule toleration last (132-146), offered only when a
    # NodePool has such a taint (scheduler.go:144-153). A pod tolerating NoSchedule alone loses its zone spread.
    objs = copy.deepcopy(prod)
    pool = next(o for o in objs if o["kind"] == "NodePool" and o["metadata"]["name"] == "l40s")
    assert pool["spec"]["template"]["spec"]["taints"][0]["effect"] == "PreferNoSchedule"
    isvc = next(o for o in objs if o["kind"] == "InferenceService" and o["metadata"]["name"] == "chat-8b")
    isvc["spec"]["predictor"]["tolerations"] = [
        t for t in isvc["spec"]["predictor"]["tolerations"] if t["effect"] == "NoSchedule"
    ]
    choice = node_choice(objs)
    assert _model(choice, "chat-8b")["relaxations"] == [
        "added a toleration of every PreferNoSchedule taint",
        "removed ScheduleAnyway spread on kubernetes.io/hostname",
        "removed ScheduleAnyway spread on topology.kubernetes.io/zone",
    ]
    assert any("chat-8b-predictor-0 (chat-8b): Karpenter added a toleration" in f for f in choice["findings"])


def test_the_pool_limit_bounds_what_karpenter_launches(prod):
    # scheduler.go:708-727 filters instance types past the NodePool's remaining limits; 786 subtracts the most a new
    # NodeClaim could add. With 16 GPUs the h100 pool holds the 405B's two nodes and nothing for llama-70b.
    objs = copy.deepcopy(prod)
    pool = next(o for o in objs if o["kind"] == "NodePool" and o["metadata"]["name"] == "h100")
    pool["spec"]["limits"]["nvidia.com/gpu"] = 16
    choice = node_choice(objs)
    assert {u["owner"] for u in choice["unschedulable"]} == {"llama-70b"}
    assert "within the pool's limits" in choice["unschedulable"][0]["reason"]


def test_the_queue_goes_by_cpu_then_memory(prod):
    # queue.go:72-107: the largest CPU request first, so the 405B's workers open the first h100-ray nodes (the head,
    # 8 CPUs, comes after them and joins one).
    choice = node_choice(prod)
    first = next(n for n in choice["nodes"] if n["name"] == "h100-ray-1")
    assert first["pods"][0].startswith("llm/llama-405b-gpu-workers-worker-")


def test_pods_come_from_the_controllers_rules(prod):
    pods = pods_of(prod)
    by_owner: dict[str, int] = {}
    for p in pods:
        by_owner[p.owner] = by_owner.get(p.owner, 0) + 1
    # minReplicas predictor pods; a head plus replicas x numOfHosts workers (KubeRay pod.go); the buffer's replicas.
    assert by_owner == {
        "chat-8b": _min_replicas("chat-8b"),
        "qwen3-32b": _min_replicas("qwen3-32b"),
        "llama-70b": _min_replicas("llama-70b"),
        "llama-405b": 3,
        "buffer/l40s": 1,
    }
    head = next(p for p in pods if p.name == "llama-405b-head")
    assert head.labels["ray.io/cluster"] == "llama-405b" and head.labels["ray.io/node-type"] == "head"


def test_allocatable_takes_the_vm_overhead_and_kube_reserved():
    # aws/karpenter-provider-aws v1.14.1 pkg/providers/instancetype/types.go:356-366 (7.5 % VM overhead) and 522-558
    # (kube-reserved CPU by core ranges, 11 MiB a pod + 255 MiB, 100Mi eviction).
    a = allocatable("p5.48xlarge")
    assert a["nvidia.com/gpu"] == 8
    assert a["cpu"] == pytest.approx(192 - (0.06 + 0.01 + 0.01 + 0.0025 * 188))  # 550m reserved
    assert a["memory"] < 2048 * 2**30 * 0.925


# --- DaemonSet overhead (scheduler.go:969-1004 buildDaemonOverheadGroups, 1019-1043 isDaemonPodCompatible;
# nodeclaim.go:563-582 adds the overhead to the pods' requests before an instance type must fit them) ---------------


def _releases(device_plugin_requests=None):
    from components.builders import addons
    from components.derive import Release

    nvidia = addons.device_plugin_values()
    if device_plugin_requests is not None:
        nvidia = {**nvidia, "resources": {"requests": device_plugin_requests}}
    return [
        Release("nvidia-device-plugin", "nvidia-device-plugin", "0.20.0", "kube-system", nvidia),
        Release(
            "aws-efa-k8s-device-plugin", "aws-efa-k8s-device-plugin", "v0.5.30", "kube-system", addons.efa_device_plugin_values()
        ),
        Release("kserve-localmodel", "oci://ghcr.io/kserve/charts/kserve-localmodel-resources", "v0.20.0", "kserve", {}),
    ]


def test_the_daemonsets_a_node_runs_take_room_from_the_pods(prod):
    # llama-70b's TP4 replicas share a p5 two by two; a device plugin that requests 100 CPUs of each node leaves room
    # for one replica per p5 (each asks for more than a quarter of its vCPUs), so three nodes hold three replicas and the
    # pool's limit (24 GPUs) leaves two without a node. Drop the overhead and they share again.
    plain = node_choice(prod, releases=_releases())
    assert _model(plain, "llama-70b")["nodes"] == 3 and plain["unschedulable"] == []
    heavy_releases = _releases({"cpu": "100"})
    heavy_releases[0].values["nodeSelector"] = {"karpenter.sh/nodepool": "h100"}  # only the 70B's nodes
    heavy = node_choice(prod, releases=heavy_releases)
    assert _model(heavy, "llama-70b")["nodes"] == 3
    assert [u["owner"] for u in heavy["unschedulable"]] == ["llama-70b", "llama-70b"]
    (plugin,) = [d for d in heavy["daemonsets"] if d["owner"] == "helm/nvidia-device-plugin"]
    assert plugin["requests"] == {"cpu": "100000m"} and plugin["pools"] == ["h100"]


def test_a_daemonset_counts_only_where_it_runs(prod):
    # isDaemonPodCompatible: the node agent of KServe's cache selects kserve/localmodel=worker (chart default), which only
    # the cache pool's NodePool puts on its nodes; the EFA plugin's chart requires an EFA instance type; each image
    # pre-pull DaemonSet selects its own pool; PreferNoSchedule taints count as tolerated (1022-1023).
    objs = copy.deepcopy(prod)
    # The cache pool's nodes carry the agent's label (components/gpu_pool.py passes LOCALMODEL_NODE_LABEL).
    from components.builders.model_source import LOCALMODEL_NODE_LABEL

    l40s_pool = next(o for o in objs if o["kind"] == "NodePool" and o["metadata"]["name"] == "l40s")
    l40s_pool["spec"]["template"]["metadata"]["labels"].update(LOCALMODEL_NODE_LABEL)
    choice = node_choice(objs, releases=_releases())
    pools = {d["pod"]: d["pools"] for d in choice["daemonsets"]}
    assert pools["kserve/kserve-localmodel"] == ["l40s"]
    assert pools["kube-system/aws-efa-k8s-device-plugin"] == ["h100", "h100-ray", "l40s"]
    from components.derive.karpenter import _pools, daemon_fits_node, daemonset_pods

    (efa,) = [d for d in daemonset_pods(prod, _releases()) if d.name == "aws-efa-k8s-device-plugin"]
    (l40s,) = [p for p in _pools(objs) if p.name == "l40s"]
    assert daemon_fits_node(efa, l40s, "g6e.12xlarge") and not daemon_fits_node(efa, l40s, "g6e.2xlarge")


def test_the_chart_defaults_counted_are_the_pinned_charts():
    # The defaults the derivation carries (CHART_DAEMONSETS) against each chart's values.yaml at the pinned version.
    import yaml

    from components.capacity.gpus import INSTANCES
    from components.derive.karpenter import CHART_DAEMONSETS
    from tests.conftest import shared_path

    where = {
        "nvidia-device-plugin": ("nvidia-device-plugin", "0.20.0"),
        "aws-efa-k8s-device-plugin": ("aws-efa-k8s-device-plugin", "v0.5.30"),
        "kserve-localmodel-resources": ("kserve-localmodel-resources", "v0.20.0"),
    }
    for chart in CHART_DAEMONSETS:
        values = yaml.safe_load(shared_path("charts", *where[chart.chart], "values.yaml").read_text())
        for key in chart.values_path:
            values = values[key]
        assert dict((values.get("resources") or {}).get("requests") or {}) == dict(chart.requests), chart.chart
        assert dict(values.get("nodeSelector") or {}) == dict(chart.node_selector), chart.chart
        if chart.efa_instance_types_only:
            listed = set(values["supportedInstanceLabels"]["values"])
            assert {t for t, i in INSTANCES.items() if i.efa} == {t for t in INSTANCES if t in listed}
