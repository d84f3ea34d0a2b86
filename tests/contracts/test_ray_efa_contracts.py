"""What KubeRay v1.7.0, the EFA device plugin (eks-charts v0.5.30) and vLLM 0.33.0 do with the multi-node engine."""

from __future__ import annotations

import copy

import pytest

from components.builders import addons
from components.builders import ray_cluster as build
from components.builders.buffer import SERVING_PRIORITY_CLASS, priority_classes
from components.capacity.plan import plan_stack
from components.config import load_stack_config
from policies.reading.serving import selector_matches
from tests.conftest import stack_config
from tests.kube_schemas import validate_object


@pytest.fixture(scope="module")
def prod():
    cfg = load_stack_config(stack_config("prod"))
    plans = plan_stack(cfg)
    m = next(x for x in cfg.models if x.name == "llama-405b")
    return cfg, plans, m, build.ray_cluster(m, plans[m.name], "llm", "hf-token")


def _pods(cluster):
    return [cluster["spec"]["headGroupSpec"]["template"], *[g["template"] for g in cluster["spec"]["workerGroupSpecs"]]]


def test_ray_pods_run_at_the_serving_priority(prod):
    # KubeRay v1.7.0 copies the group's pod template as given (ray-operator/controllers/ray/common/pod.go:214,595
    # DefaultHeadPodTemplate/DefaultWorkerPodTemplate) and sets no priority, so without ours they run at 0
    # beside serving pods at 1000 with PreemptLowerPriority.
    *_, cluster = prod
    serving = next(pc for pc in priority_classes() if pc["metadata"]["name"] == SERVING_PRIORITY_CLASS)
    assert serving["value"] == 1000
    assert all(t["spec"]["priorityClassName"] == SERVING_PRIORITY_CLASS for t in _pods(cluster))
    assert validate_object(cluster) == []


def test_ray_pods_are_not_disrupted_by_karpenter_and_have_a_pdb(prod):
    # ray-operator/controllers/ray/common/pod.go:1170 labels every pod ray.io/cluster=<RayCluster name>
    # (utils/constant.go:19), which the PDB selects; KubeRay creates no PDB for a RayCluster.
    _, _, m, cluster = prod
    assert all(t["metadata"]["annotations"]["karpenter.sh/do-not-disrupt"] == "true" for t in _pods(cluster))
    pdb = build.pod_disruption_budget(m, "llm")
    assert pdb["spec"]["selector"]["matchLabels"] == {"ray.io/cluster": cluster["metadata"]["name"]}
    assert pdb["spec"]["maxUnavailable"] == 1 and pdb["spec"]["unhealthyPodEvictionPolicy"] == "AlwaysAllow"
    assert validate_object(pdb) == []


def test_every_ray_pod_is_packed_into_one_zone_not_spread(prod):
    # The model's one replica (capacity/layout.py), each worker a whole node: nothing to spread, and the engine's
    # NCCL traffic (EFA here) must stay in one zone (builders/ray_cluster.py zone_labels). KubeRay v1.7.0 copies the
    # template's spec, affinity included, to the pod (ray-operator/controllers/ray/common/pod.go:218,596; BuildPod
    # 846-853) and labels every pod ray.io/cluster=<RayCluster name> (pod.go:1170), which no template label overrides
    # (labelPod, 1167-1191). So the term selects the pods themselves, and the first one placed picks the zone:
    # Karpenter v1.14.1 bootstraps a self-selecting pod affinity in an empty domain (kubernetes-sigs/karpenter
    # pkg/controllers/provisioning/scheduling/topologygroup.go nextDomainAffinity, 365-367).
    _, _, m, cluster = prod
    terms = []
    for template in _pods(cluster):
        spec = template["spec"]
        assert "topologySpreadConstraints" not in spec
        assert list(spec["affinity"]) == ["podAffinity"]
        (term,) = spec["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        assert term == {
            "labelSelector": {"matchLabels": {"ray.io/cluster": m.name}},
            "topologyKey": "topology.kubernetes.io/zone",
        }
        labels = {**template["metadata"]["labels"], "ray.io/cluster": cluster["metadata"]["name"]}
        assert selector_matches(term["labelSelector"], labels)
        terms.append(term)
    assert len(terms) == 2 and terms[0] == terms[1]  # the head too: one zone for the whole cluster
    assert validate_object(cluster) == []


def test_head_hides_the_nodes_gpus_from_cuda_but_not_nvml(prod):
    # vllm 0.33.0 platforms/__init__.py cuda_platform_plugin: an NVML error (no libnvidia-ml, as with
    # NVIDIA_VISIBLE_DEVICES=void) leaves is_cuda False and resolve_current_platform_cls_qualname falls back to
    # UnspecifiedPlatform, so `vllm serve` on the head would not start. An empty CUDA_VISIBLE_DEVICES hides
    # the devices from CUDA; platforms/interface.py device_id_to_physical_device_id treats it as unset, and
    # v1/executor/ray_utils.py WORKER_SPECIFIC_ENV_VARS keeps it off the Ray workers.
    *_, cluster = prod
    head = cluster["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e.get("value") for e in head["env"]}
    assert env["CUDA_VISIBLE_DEVICES"] == ""
    assert "NVIDIA_VISIBLE_DEVICES" not in env
    assert "nvidia.com/gpu" not in head["resources"]["requests"]
    assert cluster["spec"]["headGroupSpec"]["rayStartParams"]["num-gpus"] == "0"
    for group in cluster["spec"]["workerGroupSpecs"]:
        worker_env = {e["name"] for e in group["template"]["spec"]["containers"][0]["env"]}
        assert "CUDA_VISIBLE_DEVICES" not in worker_env


def test_efa_requests_come_with_the_device_plugin(prod):
    # Nothing but the aws-efa-k8s-device-plugin DaemonSet advertises vpc.amazonaws.com/efa; eks-charts 5239609
    # stable/aws-efa-k8s-device-plugin/templates/daemonset.yaml:34-38 tolerates only CriticalAddonsOnly plus
    # .Values.tolerations, so it gets the GPU taint's toleration.
    cfg, *_, cluster = prod
    worker = cluster["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]
    assert int(worker["resources"]["requests"]["vpc.amazonaws.com/efa"]) > 0
    releases = {r["name"]: r for r in addons.addon_releases(cfg.addons, efa=True)}
    efa = releases["aws-efa-k8s-device-plugin"]
    assert (efa["chart"], efa["version"]) == ("aws-efa-k8s-device-plugin", "v0.5.30")
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in efa["values"]["tolerations"]
    assert "aws-efa-k8s-device-plugin" not in {r["name"] for r in addons.addon_releases(cfg.addons)}


def test_efa_plugin_can_be_left_to_the_cluster(prod_config):
    raw = copy.deepcopy(prod_config)
    raw.setdefault("llm-serving:addons", {})["efaDevicePlugin"] = {"install": False}
    cfg = load_stack_config(raw)
    assert "aws-efa-k8s-device-plugin" not in {r["name"] for r in addons.addon_releases(cfg.addons, efa=True)}


def test_report_states_the_nccl_transport(prod):
    from components.builders.notes import controller_notes

    cfg, plans, m, _ = prod
    (row,) = [r for r in controller_notes(m, plans[m.name], cfg) if r["setting"] == "NCCL transport"]
    assert row["value"].startswith("EFA (")
    no_efa = m.model_copy(update={"distributed": m.distributed.model_copy(update={"efa": False})})
    (row,) = [r for r in controller_notes(no_efa, plans[m.name], cfg) if r["setting"] == "NCCL transport"]
    assert row["value"] == "TCP sockets on eth0"


@pytest.mark.parametrize(
    "value, rule",
    [({"install": "sometimes"}, "addons.efaDevicePlugin.install"), ({"instal": True}, "addons.efaDevicePlugin.instal")],
)
def test_bad_efa_plugin_config_names_the_field(prod_config, value, rule):
    from components.errors import ConfigError

    raw = copy.deepcopy(prod_config)
    raw["llm-serving:addons"] = {"efaDevicePlugin": value}
    with pytest.raises(ConfigError) as err:
        load_stack_config(raw)
    assert rule in str(err.value)
