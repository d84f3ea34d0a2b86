"""What the AWS Load Balancer Controller (chart 3.5.0) and Istio 1.30.3 do with the ingress path we render."""

from __future__ import annotations

import copy
import json

import pytest

from components.builders import ingress as build
from components.capacity.plan import plan_stack
from components.config import load_stack_config
from components.errors import ConfigError
from tests.conftest import stack_config
from tests.kube_schemas import validate_object


@pytest.fixture(scope="module")
def prod():
    cfg = load_stack_config(stack_config("prod"))
    return cfg, plan_stack(cfg)


def test_readiness_gate_label_is_the_webhooks_namespace_selector(tmp_path):
    # aws/eks-charts 5239609 stable/aws-load-balancer-controller/templates/webhook.yaml:31-34: the pod mutator
    # (readiness gates) matches namespaces labelled elbv2.k8s.aws/pod-readiness-gate-inject In [enabled]
    # (also kubernetes-sigs/aws-load-balancer-controller v3.5.0 config/webhook/pod_mutator_patch.yaml:9).
    assert build.READINESS_GATE_LABEL == {"elbv2.k8s.aws/pod-readiness-gate-inject": "enabled"}
    ns = build.gateway_namespace()
    assert ns["metadata"]["name"] == build.GATEWAY_NAMESPACE
    assert ns["metadata"]["labels"]["elbv2.k8s.aws/pod-readiness-gate-inject"] == "enabled"
    assert validate_object(ns) == []


def test_gateway_idle_timeout_reaches_envoy_under_the_istio_meta_prefix(prod):
    # Istio 1.30.3 pkg/bootstrap/config.go:53,674-675: env (proxyMetadata) keys become node metadata only
    # with the ISTIO_META_ prefix; pkg/model/proxy.go:277 reads IDLE_TIMEOUT from it, and
    # pilot/pkg/networking/core/listener_builder.go:365-368 sets the HTTP connection manager's idle timeout.
    _, plans = prod
    gateway = build.istio_releases(plans, 2)[2]["values"]
    meta = json.loads(gateway["podAnnotations"]["proxy.istio.io/config"])["proxyMetadata"]
    assert "IDLE_TIMEOUT" not in meta
    assert int(meta["ISTIO_META_IDLE_TIMEOUT"][:-1]) > build.front_numbers(plans)[0]


def test_gateway_replicas_and_pdb_reach_the_chart(prod):
    # Istio 1.30.3 manifests/charts/gateway/templates/deployment.yaml:13-16 renders replicas only with
    # autoscaling.enabled false; templates/poddisruptionbudget.yaml:1-3 renders the PDB only when
    # podDisruptionBudget is set and replicaCount > 1 (without autoscaling).
    cfg, plans = prod
    gateway = build.istio_releases(plans, cfg.ingress.gateway_replica_count(cfg.environment))[2]["values"]
    assert gateway["autoscaling"] == {"enabled": False}
    assert gateway["replicaCount"] == 2
    assert gateway["podDisruptionBudget"] == {"maxUnavailable": 1, "unhealthyPodEvictionPolicy": "AlwaysAllow"}


def test_prod_gateway_with_one_replica_is_refused(prod_config):
    raw = copy.deepcopy(prod_config)
    raw["llm-serving:ingress"]["gatewayReplicas"] = 1
    with pytest.raises(ConfigError) as err:
        load_stack_config(raw)
    assert "ingress.gatewayReplicas = 1: a prod Istio ingress gateway runs at least 2 replicas" in str(err.value)


@pytest.mark.parametrize("value, rule", [(0, "greater than or equal to 1"), (21, "less than or equal to 20"), ("two", "integer")])
def test_bad_gateway_replicas_name_the_field(prod_config, value, rule):
    raw = copy.deepcopy(prod_config)
    raw["llm-serving:ingress"]["gatewayReplicas"] = value
    with pytest.raises(ConfigError) as err:
        load_stack_config(raw)
    assert "ingress.gatewayReplicas" in str(err.value) and rule in str(err.value)


def test_connection_limits_are_divided_among_the_gateway_replicas(prod):
    # Istio 1.30.3 pilot/pkg/networking/core/cluster_traffic_policy.go:111-115 turns http2MaxRequests and
    # http1MaxPendingRequests into the Envoy cluster's circuit-breaker thresholds, which each Envoy (each
    # gateway replica) counts on its own.
    cfg, plans = prod
    m = next(x for x in cfg.models if x.name == "chat-8b")
    one = build.connection_limits(m, plans[m.name], 1)
    two = build.connection_limits(m, plans[m.name], 2)
    assert two == (one[0] // 2, one[1] // 2)
    dr = build.destination_rule(m, plans[m.name], "llm", 2)
    pool = dr["spec"]["trafficPolicy"]["connectionPool"]
    assert pool["http"]["http2MaxRequests"] == two[0] and pool["http"]["http1MaxPendingRequests"] == two[1]
    assert validate_object(dr) == []
