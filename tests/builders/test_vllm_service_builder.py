"""The vLLM InferenceService builder: the fields that keep vLLM up, asserted on the rendered dict."""

from __future__ import annotations

import pytest

from components.builders import vllm_service as build
from components.capacity.plan import plan_stack
from components.config import load_stack_config
from tests.conftest import stack_config
from tests.kube_schemas import validate_object


@pytest.fixture(scope="module")
def prod():
    cfg = load_stack_config(stack_config("prod"))
    return cfg, plan_stack(cfg)


def render(prod, name):
    cfg, plans = prod
    m = next(m for m in cfg.models if m.name == name)
    return m, plans[name], build.inference_service(m, plans[name], cfg.namespace, m.pool, "hf-token")


def container(isvc):
    (c,) = isvc["spec"]["predictor"]["containers"]
    return c


def flag(c, name):
    values = [a.split("=", 1)[1] for a in c["args"] if a.startswith(name + "=")]
    assert len(values) == 1, f"{name} appears {len(values)} times"
    return values[0]


def test_standard_mode_and_external_autoscaler(prod):
    _, _, isvc = render(prod, "chat-8b")
    ann = isvc["metadata"]["annotations"]
    # kserve v0.20.0 pkg/apis/serving/v1beta1/inference_service_defaults.go:168-170 rewrites RawDeployment to Standard.
    assert ann["serving.kserve.io/deploymentMode"] == "Standard"
    assert ann["serving.kserve.io/autoscalerClass"] == "external"
    assert isvc["apiVersion"] == "serving.kserve.io/v1beta1"


def test_vllm_serve_with_typed_engine_args_from_the_plan(prod):
    m, plan, isvc = render(prod, "llama-70b")
    c = container(isvc)
    assert c["image"] == "vllm/vllm-openai:v0.33.0"
    assert c["command"] == ["vllm", "serve"]
    # prod streams this model from its S3 mirror of the pinned revision (builders/model_source.py).
    assert c["args"][0] == m.source.uri and m.revision in m.source.uri
    assert flag(c, "--load-format") == "runai_streamer"
    assert flag(c, "--tensor-parallel-size") == "4"
    assert flag(c, "--max-model-len") == "65536"
    assert flag(c, "--max-num-seqs") == str(plan.max_num_seqs)
    assert flag(c, "--max-num-batched-tokens") == str(plan.max_num_batched_tokens) == "8192"
    # vLLM counts running requests against the flag (config/scheduler.py, 0.33.0): the batch plus the queue.
    assert flag(c, "--max-num-queued-reqs") == str(plan.max_num_seqs + plan.max_num_queued_reqs)


def test_gpu_request_equals_limit_equals_tp_times_pp(prod):
    _, plan, isvc = render(prod, "qwen3-32b")
    res = container(isvc)["resources"]
    assert res["requests"]["nvidia.com/gpu"] == res["limits"]["nvidia.com/gpu"] == "4" == str(plan.resources.gpus)
    assert res["requests"]["memory"] == res["limits"]["memory"] == f"{plan.resources.memory_gib}Gi"
    assert res["requests"]["ephemeral-storage"] == f"{plan.resources.ephemeral_storage_gib}Gi"


def test_cpu_limit_equals_the_request_unless_kserve_adds_none(prod):
    """KServe v0.20.0 fills a missing CPU limit from inferenceservice-config (inference_service_defaults.go:59-96,
    1 CPU in the chart): by default the limit equals the request, so the defaulter cannot put it below; without it
    (the platform's own kserve release clears that default) no CPU limit, so tokenization is never throttled."""
    m, plan, isvc = render(prod, "qwen3-32b")
    res = container(isvc)["resources"]
    assert res["limits"]["cpu"] == res["requests"]["cpu"] == str(plan.resources.cpu)
    cleared = build.inference_service(m, plan, prod[0].namespace, m.pool, "hf-token", cpu_limit=False)
    assert "cpu" not in container(cleared)["resources"]["limits"]


def test_dev_shm_is_a_memory_emptydir_within_the_memory_limit(prod):
    _, plan, isvc = render(prod, "qwen3-32b")
    pred = isvc["spec"]["predictor"]
    (shm,) = [v for v in pred["volumes"] if v["name"] == "dshm"]
    assert shm["emptyDir"] == {"medium": "Memory", "sizeLimit": f"{plan.resources.shm_gib}Gi"}
    assert {"name": "dshm", "mountPath": "/dev/shm"} in container(isvc)["volumeMounts"]
    assert plan.resources.shm_gib * 4 <= plan.resources.memory_gib


def test_token_comes_from_a_secret_never_a_literal(prod):
    _, _, isvc = render(prod, "chat-8b")
    (tok,) = [e for e in container(isvc)["env"] if e["name"] == "HF_TOKEN"]
    assert tok == {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf-token", "key": "HF_TOKEN"}}}


def test_probes_startup_budget_covers_the_derived_load(prod):
    m, plan, isvc = render(prod, "llama-70b")
    c = container(isvc)
    s = c["startupProbe"]
    assert s["httpGet"] == {"path": "/health", "port": 8080}
    assert m.startup.budget_seconds is None and plan.startup.derived
    assert s["periodSeconds"] * s["failureThreshold"] >= plan.startup.seconds >= plan.startup.sum_seconds
    assert c["readinessProbe"]["httpGet"]["path"] == "/health"
    assert c["livenessProbe"]["failureThreshold"] * c["livenessProbe"]["periodSeconds"] >= 30


def test_drain_grace_covers_the_longest_request_after_pre_stop(prod):
    m, plan, isvc = render(prod, "chat-8b")
    pred = isvc["spec"]["predictor"]
    pre_stop = container(isvc)["lifecycle"]["preStop"]["sleep"]["seconds"]
    assert pred["terminationGracePeriodSeconds"] >= pre_stop + m.slo.max_request_seconds
    assert pred["terminationGracePeriodSeconds"] == plan.termination_grace_seconds


def test_replicas_tolerations_and_node_selection(prod):
    m, _, isvc = render(prod, "llama-70b")
    pred = isvc["spec"]["predictor"]
    assert (pred["minReplicas"], pred["maxReplicas"]) == (m.replicas.min, m.replicas.max) == (5, 6)
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in pred["tolerations"]
    assert pred["nodeSelector"] == {"karpenter.sh/nodepool": "h100", "karpenter.k8s.aws/instance-gpu-name": "h100"}


def test_recommended_labels(prod):
    _, _, isvc = render(prod, "chat-8b")
    labels = isvc["metadata"]["labels"]
    assert labels["app.kubernetes.io/name"] == "chat-8b"
    assert labels["app.kubernetes.io/part-of"] == "llm-serving"
    assert labels["app.kubernetes.io/version"] == "v0.33.0"


def test_pdb_always_allows_evicting_unhealthy_pods(prod):
    cfg, _ = prod
    pdb = build.pod_disruption_budget(cfg.models[0], cfg.namespace)
    assert pdb["spec"]["unhealthyPodEvictionPolicy"] == "AlwaysAllow"
    assert pdb["spec"]["maxUnavailable"] == 1
    assert pdb["spec"]["selector"]["matchLabels"] == {"serving.kserve.io/inferenceservice": "chat-8b"}


@pytest.mark.parametrize("name", ["chat-8b", "qwen3-32b", "llama-70b"])
def test_rendered_objects_match_the_real_schemas(prod, name):
    cfg, plans = prod
    m, _, isvc = render(prod, name)
    assert validate_object(isvc) == []
    assert validate_object(build.pod_disruption_budget(m, cfg.namespace)) == []


def test_schema_check_can_fail(prod):
    _, _, isvc = render(prod, "chat-8b")
    isvc["spec"]["predictor"]["containers"][0]["startupProbes"] = {}
    isvc["spec"]["predictor"]["minReplicas"] = "two"
    errors = validate_object(isvc)
    assert any("startupProbes" in e for e in errors)
    assert any("minReplicas" in e for e in errors)


@pytest.mark.parametrize(
    "image,version",
    [
        ("vllm/vllm-openai:v0.33.0", "v0.33.0"),
        ("registry.local:5000/vllm/vllm-openai:v0.33.0", "v0.33.0"),
        ("registry.local:5000/vllm/vllm-openai", None),
        ("vllm/vllm-openai@sha256:" + "0" * 64, None),
    ],
)
def test_version_label_is_a_valid_label_value_or_absent(prod, image, version):
    cfg, plans = prod
    m = cfg.models[0].model_copy(update={"image": image})
    isvc = build.inference_service(m, plans[m.name], cfg.namespace, m.pool, "hf-token")
    assert isvc["metadata"]["labels"].get("app.kubernetes.io/version") == version
    assert validate_object(isvc) == []


def test_metadata_check_can_fail(prod):
    _, _, isvc = render(prod, "chat-8b")
    isvc["metadata"]["labels"]["app.kubernetes.io/version"] = "vllm/vllm-openai"
    assert validate_object(isvc) == ["metadata.labels['app.kubernetes.io/version'] = 'vllm/vllm-openai': not a valid label value"]
