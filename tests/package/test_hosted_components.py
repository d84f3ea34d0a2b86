"""The components a platform team uses alone, hosted for every language (components/hosted/).

Each case takes one realistic configuration from a stack file (a model and its pool as the file
writes them, numbers as floats as the engine sends them), constructs the hosted component through
the package's provider under the offline engine, and constructs the library's component with the
same inputs in a Python program (its Kubernetes provider made from the same kubeconfig, a secret).
Both must register the same resources: types, names, parents (the hosted wrapper aside), inputs,
dependencies and the explicit provider each goes through.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pulumi
import pytest

from components.config import load_stack_config
from stacks.offline import REDACTED, load_stack_file, run_program
from tests.conftest import STACKS, stack_config
from tests.package.test_component_package import GOLDEN
from tests.package.test_component_package import floats as _floats

NAME = "svc"
KUBECONFIG = "apiVersion: v1\nkind: Config\nclusters: []\n"


def _stack(stack_name: str):
    """The stack file's raw config (slo.traffic made absolute) and its validated StackConfig."""
    raw = stack_config(stack_name)
    return raw, load_stack_config(raw)


def _raw_model(raw: dict, name: str) -> dict:
    return _floats(next(m for m in raw["llm-serving:models"] if m["name"] == name))


def _raw_pool(raw: dict, name: str) -> dict:
    return _floats(next(p for p in raw["llm-serving:gpuPools"] if p["name"] == name))


def _rows(recording, wrapper_token: str | None) -> list:
    """Each resource as (type, name, parent, inputs, dependencies, provider), the hosted wrapper left out."""
    wrapper = next((r for r in recording.resources if r.type == wrapper_token), None)
    rows = []
    for r in recording.resources:
        if r is wrapper:
            continue
        parent = wrapper.parent if wrapper is not None and r.parent_urn == wrapper.urn else r.parent
        rows.append(
            (r.type, r.name, parent, json.dumps(r.inputs, sort_keys=True, default=str), tuple(sorted(r.dependencies)), r.provider)
        )
    return sorted(rows)


def _compare(stack_name: str, token: str, inputs: dict, library: Callable[[pulumi.ResourceOptions], Any]) -> tuple[dict, Any]:
    """Construct ``token`` through the provider and ``library`` in a program; assert the same resources.

    Returns the state Construct handed the engine and the hosted recording.
    """
    import pulumi_kubernetes as k8s

    from components.hosted import COMPONENTS, PACKAGE
    from components.hosted.provider import HostedProvider

    stack = load_stack_file(stack_name)
    states: list = []

    def hosted_program():
        provider = HostedProvider(COMPONENTS, PACKAGE)
        states.append(provider.construct(NAME, token, {**inputs, "kubeconfig": KUBECONFIG}, pulumi.ResourceOptions()).state)

    def python_program():
        cluster = k8s.Provider(f"{NAME}-k8s", kubeconfig=pulumi.Output.secret(KUBECONFIG))
        library(pulumi.ResourceOptions(provider=cluster))

    hosted = run_program(stack, hosted_program)
    python = run_program(stack, python_program)
    assert [r.name for r in hosted.resources if r.type == token] == [NAME]
    assert len(python.resources) > 2
    assert _rows(hosted, token) == _rows(python, None)
    # The kubeconfig reached the provider as a secret: marked secret in the schema, wrapped in Construct.
    provider = next(r for r in hosted.resources if r.type == "pulumi:providers:kubernetes")
    assert provider.inputs["kubeconfig"] == REDACTED
    # The state holds every output the schema declares.
    assert set(states[0]) == set(json.loads(GOLDEN.read_text())["resources"][token]["properties"])
    return states[0], hosted


@pytest.mark.parametrize(("stack_name", "model"), [("dev", None), ("prod", "llama-70b")])
def test_vllm_service_registers_what_the_library_component_registers(stack_name, model):
    from components.vllm_service import VllmService, VllmServiceArgs

    raw, cfg = _stack(stack_name)
    m = next(x for x in cfg.models if model is None or x.name == model)
    pool = next(p for p in cfg.gpu_pools if p.name == m.pool)
    inputs = {
        "model": _raw_model(raw, m.name),
        "gpuPool": _raw_pool(raw, pool.name),
        "namespace": "llm",
        "hfTokenSecret": "hf-token",
        "apiKeySecret": "vllm-api-key",
        "baseDir": str(STACKS),
    }

    def library(opts):
        VllmService(
            NAME,
            VllmServiceArgs(
                model=m,
                gpu_pool=pool,
                namespace="llm",
                hf_token_secret="hf-token",
                api_key_secret="vllm-api-key",
                base_dir=Path(STACKS),
            ),
            opts=opts,
        )

    _compare(stack_name, "llm-serving:index:VllmService", inputs, library)


def test_ray_vllm_service_registers_what_the_library_component_registers():
    from components.capacity.plan import plan_model
    from components.kuberay import RayVllmService, RayVllmServiceArgs

    raw, cfg = _stack("prod")
    m = next(x for x in cfg.models if x.name == "llama-405b")
    pool = next(p for p in cfg.gpu_pools if p.name == m.pool)
    inputs = {"model": _raw_model(raw, m.name), "gpuPool": _raw_pool(raw, pool.name), "namespace": "llm", "poolName": "h100"}

    def library(opts):
        plan = plan_model(m, pool, "model", Path("."))
        RayVllmService(NAME, RayVllmServiceArgs(model=m, plan=plan, namespace="llm", pool_name="h100"), opts=opts)

    _compare("prod", "llm-serving:index:RayVllmService", inputs, library)


@pytest.mark.parametrize("pool_name", ["l40s", "h100"])
def test_gpu_pool_registers_what_the_platform_gives_the_library_component(pool_name):
    """prod's pools as LlmPlatform plans them: l40s with a warm buffer and a cached model, h100 with EFA."""
    from components.capacity.plan import plan_stack
    from components.capacity.pools import plan_pools
    from components.gpu_pool import GpuPool, GpuPoolArgs

    raw, cfg = _stack("prod")
    pool = next(p for p in cfg.gpu_pools if p.name == pool_name)
    on_pool = [m for m in cfg.models if m.pool == pool_name]
    plans = plan_stack(cfg, STACKS)
    efa = pool_name == "h100"
    inputs = {
        "pool": _raw_pool(raw, pool_name),
        "models": [_raw_model(raw, m.name) for m in on_pool],
        "clusterName": cfg.cluster.name,
        "namespace": "llm",
        "baseDir": str(STACKS),
        **({"efaVpcId": "vpc-0a1b2c3d4e5f60718"} if efa else {}),
    }

    def library(opts):
        GpuPool(
            NAME,
            GpuPoolArgs(
                pool=pool,
                plan=plan_pools(cfg.gpu_pools, cfg.models, plans)[pool_name],
                cluster_name=cfg.cluster.name,
                namespace="llm",
                cache_models=tuple((m, plans[m.name].model.checkpoint_gib) for m in on_pool if m.source.type == "localCache"),
                subnets=cfg.cluster.subnets,
                security_groups=cfg.cluster.security_groups,
                efa_vpc_id="vpc-0a1b2c3d4e5f60718" if efa else None,
            ),
            opts=opts,
        )

    state, hosted = _compare("prod", "llm-serving:index:GpuPool", inputs, library)
    kinds = {r.inputs.get("kind") for r in hosted.resources}
    assert {"EC2NodeClass", "NodePool"} <= kinds
    if pool_name == "l40s":
        assert "LocalModelCache" in kinds  # chat-8b's source is localCache
    else:
        assert any(r.type == "aws:ec2/securityGroup:SecurityGroup" for r in hosted.resources)


@pytest.mark.parametrize("model", ["chat-8b", "qwen3-32b"])
def test_model_autoscaling_registers_what_the_library_component_registers(model):
    """prod's chat-8b (HPA through the Prometheus Adapter) and qwen3-32b (KEDA), with prod's monitoring."""
    from components.autoscaling import ModelAutoscaling, ModelAutoscalingArgs
    from components.capacity.plan import plan_model

    raw, cfg = _stack("prod")
    m = next(x for x in cfg.models if x.name == model)
    pool = next(p for p in cfg.gpu_pools if p.name == m.pool)
    inputs = {
        "model": _raw_model(raw, model),
        "gpuPool": _raw_pool(raw, pool.name),
        "namespace": "llm",
        "monitoring": _floats(raw["llm-serving:monitoring"]),
        "metricsModels": [x.name for x in cfg.models],
        "baseDir": str(STACKS),
    }

    def library(opts):
        plan = plan_model(m, pool, "model", Path(STACKS))
        args = ModelAutoscalingArgs(model=m, plan=plan, namespace="llm", monitoring=cfg.monitoring, metric_served_elsewhere=True)
        ModelAutoscaling(NAME, args, opts=opts)

    _, hosted = _compare("prod", "llm-serving:index:ModelAutoscaling", inputs, library)
    scaler = "HorizontalPodAutoscaler" if m.autoscaling.backend == "prometheus-adapter" else "ScaledObject"
    assert scaler in {r.inputs.get("kind") for r in hosted.resources} | {r.type.rpartition(":")[2] for r in hosted.resources}


def _construct(stack_name: str, token: str, inputs: dict) -> dict:
    """Construct ``token`` through the provider under the offline engine; the state, its Outputs resolved.

    An input given as a function is called inside the program (an Output belongs to the run's event loop).
    """
    from components.hosted import COMPONENTS, PACKAGE
    from components.hosted.provider import HostedProvider

    resolved: dict = {}

    def program():
        given = {k: v() if callable(v) else v for k, v in inputs.items()}
        state = HostedProvider(COMPONENTS, PACKAGE).construct(NAME, token, given, pulumi.ResourceOptions()).state
        pulumi.export("state", pulumi.Output.from_input(dict(state)).apply(resolved.update))

    run_program(load_stack_file(stack_name), program)
    return resolved


def _autoscaling_inputs(model: str, **extra: Any) -> dict:
    raw, cfg = _stack("prod")
    m = next(x for x in cfg.models if x.name == model)
    return {
        "model": _raw_model(raw, model),
        "gpuPool": _raw_pool(raw, m.pool),
        "namespace": "llm",
        "baseDir": str(STACKS),
        **extra,
    }


def test_an_hpa_on_a_metric_no_adapter_serves_is_refused_by_argument():
    token = "llm-serving:index:ModelAutoscaling"
    with pytest.raises(Exception, match=r"metricsModels: model 'chat-8b' scales on the Pods metric vllm_requests_in_flight_"):
        _construct("prod", token, _autoscaling_inputs("chat-8b"))
    with pytest.raises(Exception, match=r"metricsModels = \[\"qwen3-32b\"\]: does not include model 'chat-8b'"):
        _construct("prod", token, _autoscaling_inputs("chat-8b", metricsModels=["qwen3-32b"]))
    # Another resource's output (unknown until it resolves) is checked when it resolves.
    with pytest.raises(Exception, match=r"metricsModels = \[\"qwen3-32b\"\]: does not include model 'chat-8b'"):
        _construct("prod", token, _autoscaling_inputs("chat-8b", metricsModels=lambda: pulumi.Output.from_input(["qwen3-32b"])))
    served = _construct(
        "prod", token, _autoscaling_inputs("chat-8b", metricsModels=lambda: pulumi.Output.from_input(["chat-8b"]))
    )
    assert served["autoscalerName"] == "chat-8b" and served["backend"] == "prometheus-adapter"
    # KEDA queries Prometheus itself: no adapter needed.
    assert _construct("prod", token, _autoscaling_inputs("qwen3-32b"))["backend"] == "keda"


def _mapped(component: str, inputs: dict) -> dict:
    """``inputs`` as Construct hands them to the component: Python names, ints and enum members (the provider's mapping)."""
    from components.hosted import COMPONENTS, PACKAGE
    from components.hosted.provider import HostedProvider

    provider = HostedProvider(COMPONENTS, PACKAGE)
    return dict(provider.map_inputs(inputs, provider._component_defs[component]))


def test_a_bad_part_is_named_by_the_components_argument():
    from components.errors import ConfigError
    from components.hosted.convert import parts_config

    raw, _ = _stack("prod")
    model, pool = _raw_model(raw, "chat-8b"), _raw_pool(raw, "l40s")
    bad = _mapped(
        "VllmService",
        {"model": {**model, "engine": {**model["engine"], "maxModelLen": -1.0}}, "gpuPool": pool, "namespace": "llm"},
    )
    with pytest.raises(ConfigError, match=r"model\.engine\.maxModelLen = -1: input should be greater than 0"):
        parts_config(pools=[("gpuPool", bad["gpu_pool"])], models=[("model", bad["model"])])
    two = _mapped("GpuPool", {"pool": pool, "models": [model, _raw_model(raw, "llama-70b")], "clusterName": "c"})
    with pytest.raises(ConfigError, match=r"models\[1\]\.pool = 'h100': no gpuPools entry has this name"):
        parts_config(pools=[("pool", two["pool"])], models=[(f"models[{i}]", m) for i, m in enumerate(two["models"])])
    with pytest.raises(ConfigError, match=r"subnets\.ids\[0\] = 'not-a-subnet'"):
        parts_config(pools=[("pool", two["pool"])], cluster={"subnets": ("subnets", {"ids": ["not-a-subnet"]})})
    with pytest.raises(ConfigError, match=r"gpuPool = 'l40s': must be an object \(a GpuPoolConfig\)"):
        parts_config(pools=[("gpuPool", "l40s")])


def test_a_choice_outside_an_enum_list_is_refused_by_the_provider_naming_the_item():
    from pulumi.errors import InputPropertyError

    raw, _ = _stack("prod")
    with pytest.raises(InputPropertyError) as err:
        _mapped("GpuPool", {"pool": {**_raw_pool(raw, "l40s"), "capacityTypes": ["spot", "spot-ish"]}, "clusterName": "c"})
    assert err.value.property_path == "pool.capacityTypes[1]"


def test_kuberay_operator_registers_what_the_library_component_registers():
    from components.kuberay import KubeRay, KubeRayArgs

    raw, cfg = _stack("prod")
    inputs = {"config": {"namespace": "ray-operator"}}

    def library(opts):
        KubeRay(NAME, KubeRayArgs(config=cfg.kuberay.model_copy(update={"namespace": "ray-operator"})), opts=opts)

    state, hosted = _compare("prod", "llm-serving:index:KubeRay", inputs, library)
    assert any(r.type == "kubernetes:helm.sh/v3:Release" for r in hosted.resources)


def test_bad_operator_settings_are_named_under_config():
    from components.config import KubeRayConfig
    from components.errors import ConfigError
    from components.hosted.convert import validated

    with pytest.raises(ConfigError) as err:
        validated(KubeRayConfig, {"namespace": "Not_A_Name", "chart": "x"}, "config")
    assert [p.path for p in err.value.problems] == ["config.namespace", "config.chart"]
    assert err.value.problems[1].rule == "unknown key"
    with pytest.raises(ConfigError, match=r"config = 'kuberay-system': must be an object \(a KubeRayConfig\)"):
        validated(KubeRayConfig, "kuberay-system", "config")


def test_the_cluster_from_the_providers_option_and_depends_on_reach_the_children():
    """Without a kubeconfig input, every Kubernetes child goes through the `kubernetes` provider the caller passed in
    the component's `providers` option (as Construct hands it over), and the pods wait for the component's dependsOn."""
    import pulumi_kubernetes as k8s

    from components.hosted import COMPONENTS, PACKAGE
    from components.hosted.provider import HostedProvider

    raw, cfg = _stack("dev")
    m = cfg.models[0]
    inputs = {"model": _raw_model(raw, m.name), "gpuPool": _raw_pool(raw, m.pool), "namespace": "llm"}

    def program():
        cluster = k8s.Provider("callers-cluster", kubeconfig=pulumi.Output.secret(KUBECONFIG))
        namespace = k8s.core.v1.Namespace(
            "llm-namespace", metadata={"name": "llm"}, opts=pulumi.ResourceOptions(provider=cluster)
        )
        opts = pulumi.ResourceOptions(providers={"kubernetes": cluster}, depends_on=[namespace])
        HostedProvider(COMPONENTS, PACKAGE).construct(NAME, "llm-serving:index:VllmService", inputs, opts)

    recording = run_program(load_stack_file("dev"), program)
    children = [r for r in recording.resources if r.custom and r.type.startswith("kubernetes:") and r.name != "llm-namespace"]
    assert {r.type for r in children} >= {"kubernetes:serving.kserve.io/v1beta1:InferenceService"}
    assert {r.provider for r in children} == {"callers-cluster"}
    assert not any(r.type == "pulumi:providers:kubernetes" and r.name == f"{NAME}-k8s" for r in recording.resources)
    isvc = next(r for r in children if r.type.endswith(":InferenceService"))
    assert "llm-namespace" in isvc.dependencies
