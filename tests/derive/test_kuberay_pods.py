"""The pods KubeRay v1.7.0 builds from our RayCluster (components/derive/kuberay.py), checked like our own.

Each test pins one rule of ray-project/kuberay v1.7.0 ray-operator/controllers/ray/common/pod.go (or the RayCluster
controller) and fails when the derivation drops it.
"""

from __future__ import annotations

import copy

import pytest

from components.builders import karpenter, ray_cluster
from components.capacity.plan import plan_stack
from components.capacity.pools import plan_pools
from components.config import load_stack_config
from components.derive.kuberay import check_pod, edit_effect, ray_pods
from tests.conftest import stack_config
from tests.kube_schemas import validate_object


@pytest.fixture(scope="module")
def prod():
    cfg = load_stack_config(stack_config("prod"))
    plans = plan_stack(cfg)
    pools = plan_pools(cfg.gpu_pools, cfg.models, plans)
    m = next(m for m in cfg.models if m.name == "llama-405b")
    cluster = ray_cluster.ray_cluster(m, plans[m.name], cfg.namespace, "hf-token")
    taints = {p.name: karpenter.node_pool(p, pools[p.name])["spec"]["template"]["spec"]["taints"] for p in cfg.gpu_pools}
    return cluster, taints


def _by_name(pods):
    return dict(pods)


def test_every_derived_pod_is_valid_and_passes_the_pod_checks(prod):
    cluster, taints = prod
    pods = ray_pods(cluster)
    assert [n for n, _ in pods] == ["llama-405b-head", "llama-405b-gpu-workers-worker-0", "llama-405b-gpu-workers-worker-1"]
    for name, pod in pods:
        assert validate_object(pod) == [], name
        assert check_pod(name, pod, taints) == [], name


def test_workers_get_the_generated_ray_start_and_the_gcs_wait(prod):
    # pod.go:874-906: a container that neither runs "ray start" nor is annotated overwrite-container-cmd gets
    # /bin/bash -c -- "ulimit ...; ray start ..."; 1345-1388 adds the head Service address, block and the agent port;
    # 1390-1430 takes num-cpus from the request (no CPU limit) and num-gpus from the GPU limit; 606-654 adds
    # wait-gcs-ready with 200m/256Mi as requests and limits.
    cluster, _ = prod
    worker = _by_name(ray_pods(cluster))["llama-405b-gpu-workers-worker-0"]
    ray = worker["spec"]["containers"][0]
    assert ray["command"] == ["/bin/bash", "-c", "--"]
    (args,) = ray["args"]
    assert args.startswith("ulimit -n ${RAY_START_ULIMIT_OPEN_FILES:-65536}; ray start ")
    assert "--address=llama-405b-head-svc.llm.svc.cluster.local:6379" in args
    assert " --block " in args and " --num-gpus=8 " in args and " --dashboard-agent-listen-port=52365 " in args
    env = {e["name"]: e for e in ray["env"]}
    assert env["KUBERAY_GEN_RAY_START_CMD"]["value"] in args
    (init,) = worker["spec"]["initContainers"]
    assert init["name"] == "wait-gcs-ready"
    assert init["resources"] == {"limits": {"cpu": "200m", "memory": "256Mi"}, "requests": {"cpu": "200m", "memory": "256Mi"}}
    assert worker["metadata"]["labels"]["ray.io/cluster"] == "llama-405b"


def test_the_head_keeps_our_command_because_of_the_overwrite_annotation(prod):
    # pod.go:884-906: with ray.io/overwrite-container-cmd "true" the command stays ours (the head script runs vllm serve);
    # without it KubeRay would append its ray start to our script.
    cluster, _ = prod
    head = _by_name(ray_pods(cluster))["llama-405b-head"]
    template = cluster["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    assert head["spec"]["containers"][0]["args"] == template["args"]
    bare = copy.deepcopy(cluster)
    del bare["spec"]["headGroupSpec"]["template"]["metadata"]["annotations"]["ray.io/overwrite-container-cmd"]
    args = _by_name(ray_pods(bare))["llama-405b-head"]["spec"]["containers"][0]["args"][0]
    assert args.endswith(" ") and "&& ulimit -n" in args and "ray start --head" in args


def test_our_shm_is_kept_and_kuberays_comes_only_without_it(prod):
    # pod.go:852-858 and 1548-1572: KubeRay mounts a memory emptyDir at /dev/shm only where none is mounted.
    cluster, _ = prod
    worker = _by_name(ray_pods(cluster))["llama-405b-gpu-workers-worker-0"]
    assert "shared-mem" not in {v["name"] for v in worker["spec"]["volumes"]}
    bare = copy.deepcopy(cluster)
    c = bare["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]
    c["volumeMounts"] = [v for v in c["volumeMounts"] if v["mountPath"] != "/dev/shm"]
    worker = _by_name(ray_pods(bare))["llama-405b-gpu-workers-worker-0"]
    (shm,) = [v for v in worker["spec"]["volumes"] if v["name"] == "shared-mem"]
    assert shm["emptyDir"]["medium"] == "Memory" and shm["emptyDir"]["sizeLimit"] == c["resources"]["limits"]["memory"]


def test_the_checks_fire_on_a_request_above_its_limit_and_on_an_untolerated_soft_taint(prod):
    cluster, taints = prod
    bad = copy.deepcopy(cluster)
    c = bad["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]
    c["resources"]["limits"]["memory"] = "1Gi"
    worker = _by_name(ray_pods(bad))["llama-405b-gpu-workers-worker-0"]
    (problem,) = check_pod("w", worker, taints)
    assert "resources.requests.memory" in problem and "above its limit 1Gi" in problem
    soft = {"h100-ray": [{"key": "nvidia.com/gpu", "value": "true", "effect": "PreferNoSchedule"}]}
    only_hard = copy.deepcopy(cluster)
    spec = only_hard["spec"]["workerGroupSpecs"][0]["template"]["spec"]
    spec["tolerations"] = [t for t in spec["tolerations"] if t["effect"] == "NoSchedule"]
    worker = _by_name(ray_pods(only_hard))["llama-405b-gpu-workers-worker-0"]
    assert check_pod("w", worker, soft) == ["w: does not tolerate the nvidia.com/gpu:PreferNoSchedule taint of NodePool h100-ray"]


def test_what_an_edit_does_under_the_upgrade_strategy(prod):
    # util.go:645-668 hashes the spec without replicas, tolerations, scheduling gates and the strategy;
    # raycluster_controller.go:1463-1500 recreates every pod on a hash change only under Recreate.
    cluster, _ = prod
    new_image = copy.deepcopy(cluster)
    for c in [new_image["spec"]["headGroupSpec"], *new_image["spec"]["workerGroupSpecs"]]:
        c["template"]["spec"]["containers"][0]["image"] = "vllm/vllm-openai:v0.33.1"
    assert edit_effect(cluster, new_image) == "recreate"
    without = copy.deepcopy(new_image)
    del without["spec"]["upgradeStrategy"]
    assert edit_effect(cluster, without) == "none"
    tolerations = copy.deepcopy(cluster)
    tolerations["spec"]["workerGroupSpecs"][0]["template"]["spec"]["tolerations"] = []
    tolerations["spec"]["workerGroupSpecs"][0]["replicas"] = 3
    assert edit_effect(cluster, tolerations) == "reconcile"


def test_the_ray_pods_are_derived_objects_that_every_per_object_policy_checks(prod):
    # Review of issue 30, item 4: KubeRay's pods go through the same per-object policies as our objects and KServe's
    # Deployment (stacks/plan.py derived_violations), not only through policies of their own.
    from components.derive import Rendered, derive
    from policies.framework import Resource
    from policies.registry import POLICIES, evaluate

    cluster, _ = prod
    derived = [d for d in derive(Rendered(objects=(cluster,))) if d.controller == "kuberay"]
    assert sorted(d.name for d in derived) == [
        "llama-405b-gpu-workers-worker-0",
        "llama-405b-gpu-workers-worker-1",
        "llama-405b-head",
    ]
    assert {d.path for d in derived} == {f"derived/llm/pod-{d.name}.yaml" for d in derived}
    per_object = [p for p in POLICIES if not p.is_stack_policy]

    def findings(manifest):
        resource = Resource(type="kubernetes:core/v1:Pod", name="derived", props=manifest, urn="u")
        return [v for v in evaluate([resource], policies=per_object) if v.enforcement == "mandatory"]

    for d in derived:
        assert findings(dict(d.manifest)) == [], d.name
    # The GPU-less head runs `vllm serve --distributed-executor-backend=ray` with TP 8 x PP 2: Ray places the ranks on
    # the workers (vLLM 0.33.0 RayExecutorV2, components/image_facts.py), which the RayCluster's own check counts. A
    # pod that KubeRay did not create (no RayCluster owner) gets no such pass.
    head = next(dict(d.manifest) for d in derived if d.name == "llama-405b-head")
    stray = copy.deepcopy(head)
    stray["metadata"]["ownerReferences"] = []
    # (gpu-engine-has-gpu-limit, G13: advice, for the head selects GPU nodes by karpenter.k8s.aws/instance-gpu-name.)
    found = evaluate([Resource(type="kubernetes:core/v1:Pod", name="derived", props=stray, urn="u")])
    assert [(v.policy, v.enforcement) for v in found if v.catalog == "G13"] == [("gpu-engine-has-gpu-limit", "advisory")]
