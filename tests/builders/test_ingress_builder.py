"""The ingress path: ALB Ingress, Istio Gateway / VirtualService / DestinationRule and the Helm releases,
asserted on the rendered fields, against the strict schemas, the pinned charts and the timeout chain."""

from __future__ import annotations

import json

import jsonschema
import pytest
import yaml

from components.builders import ingress as build
from components.capacity.plan import plan_stack
from components.config import load_stack_config
from tests.chart_values import unknown_value_paths
from tests.conftest import shared_path, stack_config
from tests.kube_schemas import validate_object


def stack(name="prod", edit=None):
    raw = stack_config(name)
    if edit:
        edit(raw)
    cfg = load_stack_config(raw)
    plans = plan_stack(cfg)
    siblings = {m.name: p for m in cfg.models if (p := cfg.sibling_of(m.name))}
    return cfg, plans, siblings


def annotations_of(ing):
    return ing["metadata"]["annotations"]


def attr(ing, key, name):
    pairs = dict(kv.split("=", 1) for kv in annotations_of(ing)[f"alb.ingress.kubernetes.io/{key}"].split(","))
    return int(pairs[name]) if pairs[name].isdigit() else pairs[name]


def test_prod_alb_ingress_carries_the_chain_and_targets_the_gateway():
    cfg, plans, sib = stack()
    ing = build.alb_ingress(cfg.ingress, cfg.models, plans, cfg.namespace, sib)
    assert validate_object(ing) == []
    ann = annotations_of(ing)
    assert ing["spec"]["ingressClassName"] == "alb"
    assert ann["alb.ingress.kubernetes.io/target-type"] == "ip"
    idle = attr(ing, "load-balancer-attributes", "idle_timeout.timeout_seconds")
    assert idle == max(p.timeouts.alb_idle_timeout_seconds for p in plans.values()) == 615
    assert attr(ing, "target-group-attributes", "deregistration_delay.timeout_seconds") == max(
        p.timeouts.deregistration_delay_seconds for p in plans.values()
    )
    assert ann["alb.ingress.kubernetes.io/certificate-arn"] == cfg.ingress.certificate_arn
    assert json.loads(ann["alb.ingress.kubernetes.io/listen-ports"]) == [{"HTTP": 80}, {"HTTPS": 443}]
    (rule,) = ing["spec"]["rules"]
    assert rule["host"] == "*.llm.example.com"
    assert rule["http"]["paths"][0]["backend"]["service"] == {"name": "istio-ingressgateway", "port": {"number": 80}}
    assert ing["metadata"]["namespace"] == build.GATEWAY_NAMESPACE


def test_dev_goes_straight_to_the_predictors_with_a_health_check_on_vllm():
    cfg, plans, sib = stack("dev")
    assert cfg.ingress.routing == "direct"
    ing = build.alb_ingress(cfg.ingress, cfg.models, plans, cfg.namespace, sib)
    assert validate_object(ing) == []
    ann = annotations_of(ing)
    assert ann["alb.ingress.kubernetes.io/healthcheck-path"] == "/health"
    assert "alb.ingress.kubernetes.io/certificate-arn" not in ann
    (rule,) = ing["spec"]["rules"]
    assert rule["host"] == "chat-8b.llm.dev.example.com"
    assert rule["http"]["paths"][0]["backend"]["service"]["name"] == "chat-8b-predictor"
    # The pod behind the ALB keeps its connections longer than the ALB does.
    idle = attr(ing, "load-balancer-attributes", "idle_timeout.timeout_seconds")
    assert plans["chat-8b"].timeouts.vllm_keep_alive_seconds > idle


def test_virtual_service_timeouts_and_retries_come_from_the_chain():
    cfg, plans, sib = stack()
    idle, _ = build.front_numbers(plans)
    for m in cfg.models:
        vs = build.virtual_service(m, plans, cfg.ingress, cfg.namespace)
        assert validate_object(vs) == []
        chain = plans[m.name].timeouts
        (route,) = vs["spec"]["http"]
        assert route["timeout"] == f"{chain.route_timeout_seconds}s"
        assert int(route["timeout"][:-1]) < idle
        assert route["retries"] == {
            "attempts": 1,
            "perTryTimeout": f"{chain.per_try_timeout_seconds}s",
            "retryOn": "connect-failure,refused-stream,503",
            "retryIgnorePreviousHosts": True,
        }
        assert vs["spec"]["gateways"] == ["istio-ingress/llm-gateway"]
        service = m.name if m.distributed else f"{m.name}-predictor"  # a multi-node model: its Ray head Service
        assert route["route"][0]["destination"]["host"] == f"{service}.llm.svc.cluster.local"


def test_destination_rule_sizes_the_pool_from_the_batch_and_queue_and_never_ejects_a_busy_pod():
    cfg, plans, _ = stack()
    m = next(m for m in cfg.models if m.name == "chat-8b")
    plan = plans[m.name]
    dr = build.destination_rule(m, plan, cfg.namespace)
    assert validate_object(dr) == []
    pool = dr["spec"]["trafficPolicy"]["connectionPool"]
    per_pod = plan.max_num_seqs + plan.max_num_queued_reqs
    assert pool["http"]["http2MaxRequests"] == pool["tcp"]["maxConnections"] == per_pod * m.replicas.max
    assert pool["http"]["http1MaxPendingRequests"] == plan.max_num_queued_reqs * m.replicas.max
    assert pool["http"]["idleTimeout"] == f"{plan.timeouts.upstream_idle_timeout_seconds}s"
    assert plan.timeouts.upstream_idle_timeout_seconds < plan.timeouts.vllm_keep_alive_seconds
    assert "tcpKeepalive" not in pool["tcp"]  # streamed by default
    od = dr["spec"]["trafficPolicy"]["outlierDetection"]
    # Both 5xx detectors count 503, vLLM's admission reject: off. Connect failures eject.
    assert od["consecutive5xxErrors"] == 0 and od["consecutiveGatewayErrors"] == 0
    assert od["splitExternalLocalOriginErrors"] is True and od["consecutiveLocalOriginFailures"] == 3


def test_a_non_streamed_model_gets_tcp_keepalive_probes():
    cfg, plans, _ = stack("dev", lambda c: c["llm-serving:models"][0]["slo"].update(streaming=False))
    m = cfg.models[0]
    tcp = build.destination_rule(m, plans[m.name], cfg.namespace)["spec"]["trafficPolicy"]["connectionPool"]["tcp"]
    assert tcp["tcpKeepalive"] == {"time": "60s", "interval": "20s", "probes": 3}


def test_a_schema_mutation_of_a_virtual_service_is_caught():
    cfg, plans, _ = stack()
    vs = build.virtual_service(cfg.models[0], plans, cfg.ingress, cfg.namespace)
    vs["spec"]["http"][0]["timeouts"] = "300s"
    assert validate_object(vs) != []


def long_sibling(c):
    c["llm-serving:models"][0]["longContext"] = {"maxModelLen": 32768, "replicas": {"min": 2, "max": 2}}


def test_long_context_sibling_is_planned_and_routed_by_header_through_istio():
    cfg, plans, sib = stack("prod", long_sibling)
    assert sib == {"chat-8b-long": "chat-8b"}
    assert plans["chat-8b-long"].memory.max_model_len == 32768 and plans["chat-8b"].memory.max_model_len == 16384
    assert plans["chat-8b-long"].max_num_seqs <= plans["chat-8b"].max_num_seqs
    m = next(m for m in cfg.models if m.name == "chat-8b")
    long = next(m for m in cfg.models if m.name == "chat-8b-long")
    vs = build.virtual_service(m, plans, cfg.ingress, cfg.namespace, long)
    assert validate_object(vs) == []
    first, default = vs["spec"]["http"]
    assert first["match"] == [{"headers": {"x-llm-context": {"exact": "long"}}}]
    assert first["route"][0]["destination"]["host"] == "chat-8b-long-predictor.llm.svc.cluster.local"
    assert default["route"][0]["destination"]["host"] == "chat-8b-predictor.llm.svc.cluster.local"


def test_long_context_sibling_in_direct_mode_uses_an_alb_header_condition():
    cfg, plans, sib = stack("dev", long_sibling)
    ing = build.alb_ingress(cfg.ingress, cfg.models, plans, cfg.namespace, sib)
    assert validate_object(ing) == []
    cond = json.loads(annotations_of(ing)["alb.ingress.kubernetes.io/conditions.chat-8b-long-predictor"])
    assert cond == [{"field": "http-header", "httpHeaderConfig": {"httpHeaderName": "x-llm-context", "values": ["long"]}}]
    (rule,) = ing["spec"]["rules"]
    assert [p["backend"]["service"]["name"] for p in rule["http"]["paths"]] == ["chat-8b-long-predictor", "chat-8b-predictor"]


def test_a_sibling_no_longer_than_its_model_is_refused():
    from components.errors import ConfigError

    with pytest.raises(ConfigError, match="longContext.maxModelLen \\(8192\\) must be above engine.maxModelLen \\(8192\\)"):
        stack("dev", lambda c: c["llm-serving:models"][0].update(longContext={"maxModelLen": 8192}))


# Maps whose keys are the user's (annotations, labels), even where the chart ships a few defaults in them.
FREE_FORM = {"podAnnotations", "podLabels"}


def releases(plans):
    return [build.lb_controller_release("llm-prod", "us-east-1", "vpc-0123"), *build.istio_releases(plans)]


@pytest.mark.parametrize("index", range(4))
def test_helm_values_exist_in_the_pinned_charts(index):
    _, plans, _ = stack()
    rel = releases(plans)[index]
    chart = rel["chart"]
    folder = shared_path("charts", chart.name, chart.version)
    defaults = yaml.safe_load((folder / "values.yaml").read_text())
    if chart.name in ("base", "istiod", "gateway"):
        # Istio keeps its defaults under one key; users set the same paths at the top level (PROVENANCE.md).
        defaults = defaults["_internal_defaults_do_not_set"]
    assert unknown_value_paths(rel["values"], defaults, FREE_FORM) == []
    schema_file = folder / "values.schema.json"
    if schema_file.exists():
        errors = list(jsonschema.Draft7Validator(json.loads(schema_file.read_text())).iter_errors(rel["values"]))
        assert [e.message for e in errors] == []


def test_gateway_drains_like_the_longest_model_and_outlives_the_alb():
    _, plans, _ = stack()
    gateway = build.istio_releases(plans)[2]["values"]
    config = json.loads(gateway["podAnnotations"]["proxy.istio.io/config"])
    idle, deregistration = build.front_numbers(plans)
    assert config["terminationDrainDuration"] == f"{deregistration}s"
    assert int(config["proxyMetadata"]["ISTIO_META_IDLE_TIMEOUT"][:-1]) > idle
    assert gateway["terminationGracePeriodSeconds"] > deregistration
    assert gateway["service"]["type"] == "ClusterIP"


def test_controller_policy_and_trust_are_pod_identity():
    trust = build.pod_identity_trust_policy("arn:aws:eks:us-east-1:123456789012:cluster/llm-prod")
    assert trust["Statement"][0]["Principal"] == {"Service": "pods.eks.amazonaws.com"}
    assert (
        trust["Statement"][0]["Condition"]["StringEquals"]["aws:RequestTag/kubernetes-service-account"]
        == "aws-load-balancer-controller"
    )
    actions = {a for s in build.lb_controller_policy()["Statement"] for a in s["Action"]}
    assert {
        "elasticloadbalancing:CreateLoadBalancer",
        "elasticloadbalancing:ModifyTargetGroupAttributes",
        "elasticloadbalancing:RegisterTargets",
        "elasticloadbalancing:DeregisterTargets",
    } <= actions
