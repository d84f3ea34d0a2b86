"""The KubeRay builders: a RayCluster whose numbers are the capacity plan's, valid against the real CRD."""

from __future__ import annotations

import copy
import shlex

import pytest

from components.builders import kuberay_operator
from components.builders import ray_cluster as build
from components.capacity.layout import cold_start_seconds
from components.capacity.plan import plan_stack
from components.config import load_stack_config
from components.images import vllm_release
from policies.framework import Resource
from policies.kube import parse_quantity
from policies.reading.vllm_args import parse_vllm_args, vllm_command_line
from policies.registry import evaluate
from tests.conftest import shared_path, stack_config
from tests.kube_schemas import validate_object


def _render(cfg_raw: dict, name: str = "llama-405b", secret: str | None = "hf-token"):
    cfg = load_stack_config(cfg_raw)
    m = next(m for m in cfg.models if m.name == name)
    plan = plan_stack(cfg)[name]
    return m, plan, build.ray_cluster(m, plan, cfg.namespace, secret)


@pytest.fixture(scope="module")
def prod():
    return _render(stack_config("prod"))


def head_of(cluster):
    return cluster["spec"]["headGroupSpec"]


def workers_of(cluster):
    (group,) = cluster["spec"]["workerGroupSpecs"]
    return group


def pod_container(group):
    (c,) = group["template"]["spec"]["containers"]
    return c


def head_flags(cluster) -> dict:
    line = vllm_command_line(pod_container(head_of(cluster)), image_entrypoint=False)
    return parse_vllm_args(line)


def test_every_ray_object_is_valid_against_the_crd_and_the_api(prod):
    m, _, cluster = prod
    assert validate_object(cluster) == []
    assert validate_object(build.api_service(m, "llm")) == []


def test_variants_stay_valid_too():
    # hostNetwork with its reason, no EFA, no token: every shape the builder can produce.
    cfg = stack_config("prod")
    cfg["llm-serving:models"][3]["distributed"] = {
        "backend": "ray",
        "efa": False,
        "hostNetworkReason": "EFA RDMA tuning under test on these nodes",
    }
    _, _, cluster = _render(cfg, secret=None)
    assert validate_object(cluster) == []


def test_head_requests_no_gpu_and_tells_ray_so(prod):
    _, _, cluster = prod
    head = head_of(cluster)
    assert head["rayStartParams"]["num-gpus"] == "0"
    resources = pod_container(head)["resources"]
    assert "nvidia.com/gpu" not in resources["requests"] and "nvidia.com/gpu" not in resources["limits"]


def test_head_runs_vllm_with_the_layout_of_the_plan(prod):
    m, plan, cluster = prod
    flags = head_flags(cluster)
    assert flags["tensor-parallel-size"] == str(plan.layout.gpus_per_node) == "8"
    assert flags["pipeline-parallel-size"] == str(plan.layout.nodes) == "2"
    assert flags["distributed-executor-backend"] == "ray"
    assert flags["max-num-seqs"] == str(plan.max_num_seqs)
    # vLLM counts running requests against the flag (config/scheduler.py, 0.33.0): the batch plus the queue.
    assert flags["max-num-queued-reqs"] == str(plan.max_num_seqs + plan.max_num_queued_reqs)
    assert flags["port"] == str(build.API_PORT)
    assert flags["revision"] == m.revision


def test_head_waits_for_every_worker_gpu_before_vllm_starts(prod):
    _, plan, cluster = prod
    script = pod_container(head_of(cluster))["args"][0]
    lines = script.splitlines()
    start = next(i for i, line in enumerate(lines) if "KUBERAY_GEN_RAY_START_CMD" in line)
    wait = next(i for i, line in enumerate(lines) if line.startswith("until "))
    serve = next(i for i, line in enumerate(lines) if line.startswith("exec vllm serve "))
    assert start < wait < serve == len(lines) - 1
    assert "--block" in lines[start]  # removed from KubeRay's line so the script goes on
    assert f">= {plan.layout.gpus} else 1" in shlex.split(lines[wait])[3]
    assert pod_container(head_of(cluster))["command"] == ["/bin/bash", "-c"]
    assert head_of(cluster)["template"]["metadata"]["annotations"] == {
        build.OVERWRITE_CMD_ANNOTATION: "true",
        **build.DO_NOT_DISRUPT,
    }
    # Workers keep KubeRay's generated `ray start`: no command of their own, no overwrite annotation.
    assert "command" not in pod_container(workers_of(cluster))
    assert workers_of(cluster)["template"]["metadata"]["annotations"] == build.DO_NOT_DISRUPT


def test_bash_accepts_the_head_script(prod):
    import subprocess

    script = pod_container(head_of(prod[2]))["args"][0]
    assert subprocess.run(["bash", "-n", "-c", script], capture_output=True).returncode == 0


def test_worker_group_is_fixed_at_the_node_count_with_a_node_of_gpus_each(prod):
    _, plan, cluster = prod
    group = workers_of(cluster)
    assert group["replicas"] == group["minReplicas"] == group["maxReplicas"] == plan.layout.nodes
    assert group["numOfHosts"] == 1
    c = pod_container(group)
    gpus = plan.layout.gpus_per_node
    assert c["resources"]["limits"]["nvidia.com/gpu"] == c["resources"]["requests"]["nvidia.com/gpu"] == str(gpus)
    assert group["rayStartParams"]["num-gpus"] == str(gpus)
    # Every rank of the engine has exactly one GPU.
    assert group["replicas"] * gpus == plan.memory.gpus_per_replica
    assert c["resources"]["requests"]["cpu"] == str(plan.resources.cpu)
    assert c["resources"]["limits"]["memory"] == f"{plan.resources.memory_gib}Gi"


@pytest.mark.parametrize("role", ["head", "worker"])
def test_every_ray_pod_has_a_bounded_memory_shm_inside_its_memory_limit(prod, role):
    _, _, cluster = prod
    group = head_of(cluster) if role == "head" else workers_of(cluster)
    pod = group["template"]["spec"]
    c = pod_container(group)
    (mount,) = [v for v in c["volumeMounts"] if v["mountPath"] == "/dev/shm"]
    (volume,) = [v for v in pod["volumes"] if v["name"] == mount["name"]]
    assert volume["emptyDir"]["medium"] == "Memory"
    shm = parse_quantity(volume["emptyDir"]["sizeLimit"])
    assert 0 < shm < parse_quantity(c["resources"]["limits"]["memory"])
    # Ray's object store lives in /dev/shm too: capped at half of it, NCCL keeps the rest.
    assert int(group["rayStartParams"]["object-store-memory"]) == shm // 2


@pytest.mark.parametrize("role", ["head", "worker"])
def test_every_ray_pod_lands_on_the_pool_and_tolerates_its_gpu_taint(prod, role):
    m, _, cluster = prod
    pod = (head_of(cluster) if role == "head" else workers_of(cluster))["template"]["spec"]
    assert pod["nodeSelector"]["karpenter.sh/nodepool"] == m.pool
    assert pod["nodeSelector"]["karpenter.k8s.aws/instance-gpu-name"] == "h100"
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in pod["tolerations"]
    assert "hostNetwork" not in pod
    env = {e["name"]: e.get("value") for e in pod["containers"][0]["env"]}
    assert env["NCCL_SOCKET_IFNAME"] == env["GLOO_SOCKET_IFNAME"] == "eth0"


def test_efa_interfaces_requested_where_the_node_has_them(prod):
    _, plan, cluster = prod
    c = pod_container(workers_of(cluster))
    assert c["resources"]["limits"][build.EFA_RESOURCE] == c["resources"]["requests"][build.EFA_RESOURCE] == "32"
    assert build.EFA_RESOURCE not in pod_container(head_of(cluster))["resources"]["limits"]


def test_efa_off_requests_none():
    cfg = stack_config("prod")
    cfg["llm-serving:models"][3]["distributed"] = {"backend": "ray", "efa": False}
    _, _, cluster = _render(cfg)
    assert build.EFA_RESOURCE not in pod_container(workers_of(cluster))["resources"]["limits"]


def test_host_network_only_with_an_exemption_that_carries_the_reason(prod):
    assert build.EXEMPTION_PREFIX + build.HOST_NETWORK_POLICY not in prod[2]["metadata"]["annotations"]
    cfg = stack_config("prod")
    reason = "EFA RDMA tuning under test on these nodes"
    cfg["llm-serving:models"][3]["distributed"] = {"backend": "ray", "hostNetworkReason": reason}
    _, _, cluster = _render(cfg)
    assert cluster["metadata"]["annotations"][build.EXEMPTION_PREFIX + build.HOST_NETWORK_POLICY] == reason
    for group in (head_of(cluster), workers_of(cluster)):
        assert group["template"]["spec"]["hostNetwork"] is True
        assert group["template"]["spec"]["dnsPolicy"] == "ClusterFirstWithHostNet"


def test_readiness_on_the_heads_health_and_a_startup_budget_for_the_cold_start(prod):
    _, plan, cluster = prod
    head = pod_container(head_of(cluster))
    budget = plan.startup_failure_threshold * plan.startup_period_seconds
    assert head["readinessProbe"]["httpGet"] == {"path": "/health", "port": build.API_PORT}
    assert head["startupProbe"]["httpGet"] == {"path": "/health", "port": build.API_PORT}
    assert head["startupProbe"]["failureThreshold"] * head["startupProbe"]["periodSeconds"] == budget
    env = {e["name"]: e.get("value") for e in head["env"]}
    # vLLM itself must not give up on the multi-node load (default 600 s): the chain's engine-ready
    # timeout is the plan's startup budget (the probe rounds it up to whole periods).
    assert env["VLLM_ENGINE_READY_TIMEOUT_S"] == str(plan.timeouts.engine_ready_timeout_seconds)
    assert budget - plan.startup_period_seconds < plan.timeouts.engine_ready_timeout_seconds <= budget
    assert plan.timeouts.engine_ready_timeout_seconds >= cold_start_seconds(plan.model)
    # Workers have their own probes, so KubeRay injects none (its injected ones call wget).
    worker = pod_container(workers_of(cluster))
    assert "exec" in worker["readinessProbe"] and "exec" in worker["livenessProbe"]


def test_drain_numbers_come_from_the_plan_and_workers_outlive_the_heads_drain(prod):
    _, plan, cluster = prod
    head, workers = head_of(cluster)["template"]["spec"], workers_of(cluster)["template"]["spec"]
    assert head["terminationGracePeriodSeconds"] == workers["terminationGracePeriodSeconds"] == plan.termination_grace_seconds
    head_sleep = head["containers"][0]["lifecycle"]["preStop"]["sleep"]["seconds"]
    worker_sleep = workers["containers"][0]["lifecycle"]["preStop"]["sleep"]["seconds"]
    assert head_sleep == plan.pre_stop_seconds
    assert head_sleep < worker_sleep < plan.termination_grace_seconds


def test_service_selects_the_head_on_the_api_port(prod):
    m, _, cluster = prod
    svc = build.api_service(m, "llm")
    assert svc["spec"]["selector"] == {"ray.io/cluster": cluster["metadata"]["name"], "ray.io/node-type": "head"}
    (port,) = svc["spec"]["ports"]
    assert port["port"] == build.API_PORT and port["targetPort"] == "http"
    assert {"name": "http", "containerPort": build.API_PORT, "protocol": "TCP"} in pod_container(head_of(cluster))["ports"]


def test_the_whole_pack_passes_the_rendered_cluster(prod):
    _, _, cluster = prod
    resource = Resource(type="kubernetes:ray.io/v1:RayCluster", name="llama-405b", props=copy.deepcopy(cluster))
    # Alone, the cluster lacks the PDB and the NetworkPolicies the stack renders beside it; as a plain manifest its
    # annotation names the EFA plugin's release, and without that annotation the plugin's absence is reported too
    # (issue 18's policies).
    assert {v.policy for v in evaluate([resource])} == {"kuberay-cluster-pdb", "model-pods-network-isolated"}
    bare = copy.deepcopy(cluster)
    del bare["metadata"]["annotations"][build.EFA_PLUGIN_ANNOTATION]
    bare_resource = Resource(type="kubernetes:ray.io/v1:RayCluster", name="llama-405b", props=bare)
    assert {v.policy for v in evaluate([bare_resource])} == {
        "kuberay-cluster-pdb",
        "gpu-efa-device-plugin-present",
        "model-pods-network-isolated",
    }
    m, _, _ = prod
    pdb = Resource(
        type="kubernetes:policy/v1:PodDisruptionBudget", name="llama-405b-pdb", props=build.pod_disruption_budget(m, "llm")
    )
    efa = Resource(
        type="kubernetes:helm.sh/v3:Release", name="efa", props={"chart": "aws-efa-k8s-device-plugin", "version": "v0.5.30"}
    )
    # And the namespace's default deny with the head's allow, as builders/network_policy.py renders them (routing istio).
    from components.builders import network_policy

    netpols = [
        Resource(type="kubernetes:networking.k8s.io/v1:NetworkPolicy", name=p["metadata"]["name"], props=p)
        for p in [network_policy.default_deny("llm"), *network_policy.model_policy(m, "llm", "monitoring")]
    ]
    assert evaluate([resource, pdb, efa, *netpols]) == []


def test_image_names_the_release_the_flags_were_checked_against(prod):
    # Every flag of the head (ray_vllm_args) was read in the vllm==0.33.0 wheel's engine/arg_utils.py and
    # entrypoints/common/cli_args.py; a different image tag must be checked again.
    m, _, _ = prod
    assert vllm_release(m.image) == "0.33.0"


def test_operator_release_is_pinned_to_the_shared_chart_and_its_values_exist():
    import yaml

    rel = kuberay_operator.operator_release(load_stack_config(stack_config("prod")).kuberay)
    chart_dir = shared_path("charts", rel["chart"], rel["version"])
    chart = yaml.safe_load((chart_dir / "Chart.yaml").read_text())
    defaults = yaml.safe_load((chart_dir / "values.yaml").read_text())
    assert chart["name"] == rel["chart"] and chart["version"] == rel["version"]
    assert defaults["image"]["tag"] == f"v{rel['version']}"

    def leaves(values, prefix=()):
        for key, value in values.items():
            if isinstance(value, dict) and value:
                yield from leaves(value, (*prefix, key))
            else:
                yield (*prefix, key), value

    for path, value in leaves(rel["values"]):
        node = defaults
        for part in path:
            assert isinstance(node, dict) and part in node, f"{'.'.join(path)} is not a key of the chart's values"
            node = node[part]
            if node in ({}, [], None):
                break  # free-form below (PROVENANCE.md: stop at empty defaults)
        else:
            assert type(value) is type(node), f"{'.'.join(path)}: {value!r} is not of the default's type {type(node).__name__}"


@pytest.mark.parametrize("tag", ["v0.12.0", "v0.18.0", "v0.29.0", "v0.33.0"])
def test_every_flag_and_env_of_the_head_exists_in_the_images_release(tag, monkeypatch):
    from components import image_facts
    from components.vllm_flags import has

    # The plan refuses a Ray model on a release whose GPU-less driver was not read (components/image_facts.py, tested
    # below); this test is about the flag table alone, so it states the fact for the older releases.
    version = tag[1:]
    if version not in image_facts.IMAGE_FACTS:
        fact = image_facts.ImageFact(release=version, ray_default=None, provenance="test", ray_driver_needs_gpu=False)
        monkeypatch.setitem(image_facts.IMAGE_FACTS, version, fact)
    cfg = stack_config("prod")
    cfg["llm-serving:models"][3]["image"] = f"vllm/vllm-openai:{tag}"
    _, plan, cluster = _render(cfg)
    assert plan.release.version == tag[1:]
    flags = [f"--{name}" for name in head_flags(cluster)]
    head_env = [e["name"] for e in pod_container(head_of(cluster))["env"] if e["name"].startswith("VLLM_")]
    assert "--distributed-executor-backend" in flags
    assert [n for n in flags + head_env if not has(n, plan.release.version)] == []
    assert validate_object(cluster) == []


def test_edits_apply_under_an_explicit_recreate_upgrade_strategy(prod):
    # KubeRay v1.7.0 recreates pods on a spec change only when upgradeStrategy.type is Recreate
    # (ray-operator/controllers/ray/raycluster_controller.go:1463-1467 returns false otherwise); the RayCluster enum
    # is Recreate;None (ray-operator/apis/ray/v1/raycluster_types.go:86-92), NewCluster belongs to RayService.
    from components.builders import ray_cluster as ray

    m, plan, cluster = prod
    assert cluster["spec"]["upgradeStrategy"] == {"type": "Recreate"}
    cost = ray.edit_cost(m, plan)
    assert cost["setting"] == "RayCluster edit"
    assert f"all {plan.layout.nodes + 1} pods" in cost["value"]
    budget = plan.startup_failure_threshold * plan.startup_period_seconds
    assert str(budget) in cost["reason"]


def test_worker_probes_depend_on_ray_default_only_where_the_image_is_known_to_ship_it(prod):
    # KubeRay's own worker check reads the dashboard agent (ray-project/kuberay v1.7.0 pod.go:732-830, port 52365), which
    # only ray[default] installs. The vLLM 0.33.0 wheel declares no ray at all and the image's Dockerfile at the tag was
    # not read (components/image_facts.py): a probe on port 52365 with that fact not True would restart healthy workers.
    from components.image_facts import IMAGE_FACTS, ray_default

    _, plan, cluster = prod
    fact = IMAGE_FACTS[plan.release.version]
    assert "4b6bdec4ab269990bf70d45a3c1e94c3760a27064513760193b26d6f0da883aa" in fact.provenance
    c = pod_container(workers_of(cluster))
    for probe in (c["readinessProbe"], c["livenessProbe"]):
        code = probe["exec"]["command"][-1]
        if str(build.DASHBOARD_AGENT_PORT) in code:
            assert ray_default(plan.release.version) is True, "worker probe reads the dashboard agent without ray[default]"
        else:
            assert "'raylet'" in code and "/proc" in code
    # The probe's own Python is valid and, run here (no raylet), reports unhealthy rather than crashing.
    import subprocess
    import sys

    code = c["livenessProbe"]["exec"]["command"][-1]
    assert subprocess.run([sys.executable, "-c", code], timeout=10).returncode == 1


# --- Does the GPU-less head start? Read in the vLLM 0.33.0 wheel (components/image_facts.py, WHEEL_0_33_0). -------------
# v1/executor/abstract.py:76-79: backend "ray" is RayExecutorV2; v1/executor/ray_utils.py:266-384 initialize_ray_cluster
# has no "Current node has no GPU available" check and pins no bundle to the driver's node (PACK over {GPU: 1} bundles,
# 371-379); platforms/interface.py:304-306 names a CPU-only engine on a GPU node a valid Ray setup. Older executors raised
# on a GPU-less driver, so the plan accepts the head's design (num-gpus 0, CUDA_VISIBLE_DEVICES "") only on a release
# whose fact was read as False.


def test_the_gpu_less_head_rests_on_the_release_fact_that_the_ray_driver_needs_no_gpu(prod):
    from components.image_facts import IMAGE_FACTS, ray_driver_needs_gpu

    _, plan, cluster = prod
    assert ray_driver_needs_gpu(plan.release.version) is False
    prov = IMAGE_FACTS[plan.release.version].executor_provenance
    for cite in ("v1/executor/abstract.py:76-79", "v1/executor/ray_utils.py:266-384", "platforms/interface.py:304-306"):
        assert cite in prov
    head = pod_container(head_of(cluster))
    assert head_of(cluster)["rayStartParams"]["num-gpus"] == "0"
    assert build.HEAD_NO_GPU_ENV in head["env"]


@pytest.mark.parametrize(
    "change, rule",
    [
        ({"ray_driver_needs_gpu": None}, "whether vLLM 0.33.0's Ray executor starts on a node without a GPU is not established"),
        ({"ray_driver_needs_gpu": True}, "whether vLLM 0.33.0's Ray executor starts on a node without a GPU is not established"),
        ({"ray": False}, "the vLLM 0.33.0 image ships no ray"),
    ],
)
def test_a_ray_model_is_refused_where_its_release_cannot_start_the_gpu_less_head_or_has_no_ray(monkeypatch, change, rule):
    import dataclasses

    from components import image_facts
    from components.errors import ConfigError

    fact = image_facts.IMAGE_FACTS["0.33.0"]
    monkeypatch.setitem(image_facts.IMAGE_FACTS, "0.33.0", dataclasses.replace(fact, **change))
    cfg = load_stack_config(stack_config("prod"))
    with pytest.raises(ConfigError) as exc:
        plan_stack(cfg)
    (problem,) = [p for p in exc.value.problems if rule in p.rule]
    assert problem.path == "models[3].image"


def test_ray_in_the_pinned_image_is_reported_not_established_rather_than_assumed():
    # The wheel declares no ray; the image's Dockerfile at v0.33.0 could not be read (components/image_facts.py). None
    # is not False: the plan keeps the model and the docs say what to check before deploying.
    from components.image_facts import IMAGE_FACTS, ray_in_image

    assert ray_in_image("0.33.0") is None
    assert "ray_utils.py:46-52" in IMAGE_FACTS["0.33.0"].provenance
