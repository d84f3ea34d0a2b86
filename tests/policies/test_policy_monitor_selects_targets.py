"""G42 monitor-selects-targets: a ServiceMonitor or PodMonitor whose selector matches no Service (pod) of its run.

Fixture that fires: set 34, SimpsonRoss/aks-llm-serving-vllm k8s/monitoring/vllm-servicemonitor.yaml and
k8s/service.yaml @8c9fc04e6657aa48999b2da27f1f89ede21f5cac: the ServiceMonitor selects Services labelled app=vllm in
namespace vllm and scrapes port http; vllm-service there has a port named http but no metadata.labels (only
spec.selector app=vllm), so prometheus-operator keeps no endpoint (v0.93.0 pkg/prometheus/promcfg.go:2043-2097).
Careful third-party form that stays silent: hanasobi/self-hosted-llms-tutorial 06-lora-serving/kubernetes/
servicemonitor.yaml and service.yaml @12391198e8ed55a9b257a7ab7dbb6547220b1180 (the Service carries app=vllm and a port
named metrics). Also silent: a monitor whose Service is not in the files, namespaceSelector any with a matching Service
in another namespace, an operator's custom resource in the namespace.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by, manifest

from policies.framework import Resource
from policies.registry import evaluate

_MONITOR = {
    "apiVersion": "monitoring.coreos.com/v1",
    "kind": "ServiceMonitor",
    "metadata": {"name": "vllm-monitor", "namespace": "monitoring"},
    "spec": {
        "selector": {"matchLabels": {"app": "vllm"}},
        "namespaceSelector": {"matchNames": ["vllm"]},
        "endpoints": [{"port": "http", "path": "/metrics", "interval": "15s"}],
    },
}
_SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "vllm-service", "namespace": "vllm"},
    "spec": {
        "type": "LoadBalancer",
        "selector": {"app": "vllm"},
        "ports": [{"name": "http", "protocol": "TCP", "port": 80, "targetPort": 8000}],
    },
}
# hanasobi/self-hosted-llms-tutorial 06-lora-serving/kubernetes (the careful form).
_CAREFUL_MONITOR = {
    "apiVersion": "monitoring.coreos.com/v1",
    "kind": "ServiceMonitor",
    "metadata": {"name": "vllm", "namespace": "ml-models", "labels": {"app": "vllm", "component": "monitoring"}},
    "spec": {
        "selector": {"matchLabels": {"app": "vllm"}},
        "endpoints": [{"port": "metrics", "path": "/metrics", "interval": "30s"}],
        "namespaceSelector": {"matchNames": ["ml-models"]},
    },
}
_CAREFUL_SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "vllm-service", "namespace": "ml-models", "labels": {"app": "vllm", "component": "service"}},
    "spec": {
        "type": "ClusterIP",
        "selector": {"app": "vllm"},
        "ports": [{"name": "http", "port": 8000, "targetPort": 8000}, {"name": "metrics", "port": 9090, "targetPort": 8000}],
    },
}


def _g42(*objs: dict) -> list[tuple[str, str, str]]:
    return [
        (v.enforcement, v.resource, v.message)
        for v in evaluate([manifest(o) for o in objs], None)
        if v.policy == "monitor-selects-targets"
    ]


def test_a_service_monitor_selecting_a_service_without_labels_is_advice():
    ((level, resource, message),) = _g42(_MONITOR, _SERVICE)
    assert level == "advisory"
    assert "vllm-monitor" in resource
    assert message == (
        "spec.selector app=vllm matches no Service of the files read in namespace vllm; Service/vllm-service, which has "
        "the port the endpoints scrape, carries no labels (its spec.selector app=vllm chooses its pods; a ServiceMonitor "
        "selects Services by their own metadata.labels), so Prometheus discovers no target and the server's metrics "
        "never arrive (an autoscaler or alert on them never moves); label the Service to match, or select the labels it "
        "carries"
    )


def test_a_pod_monitor_selecting_labels_no_pod_carries_is_advice():
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "vllm", "namespace": "vllm"},
        "spec": {
            "selector": {"matchLabels": {"app.kubernetes.io/name": "vllm"}},
            "template": {
                "metadata": {"labels": {"app.kubernetes.io/name": "vllm"}},
                "spec": {
                    "containers": [
                        {"name": "vllm", "image": "vllm/vllm-openai:v0.8.5", "ports": [{"name": "http", "containerPort": 8000}]}
                    ]
                },
            },
        },
    }
    monitor = {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PodMonitor",
        "metadata": {"name": "vllm", "namespace": "vllm"},
        "spec": {"selector": {"matchLabels": {"app": "vllm"}}, "podMetricsEndpoints": [{"port": "http"}]},
    }
    ((level, _, message),) = _g42(monitor, deployment)
    assert level == "advisory"
    assert message.startswith("spec.selector app=vllm matches no pod of the files read in namespace vllm; Deployment/vllm")
    labelled = copy.deepcopy(monitor)
    labelled["spec"]["selector"] = {"matchLabels": {"app.kubernetes.io/name": "vllm"}}
    assert _g42(labelled, deployment) == []


def test_careful_forms_stay_silent():
    assert _g42(_CAREFUL_MONITOR, _CAREFUL_SERVICE) == []
    labelled = copy.deepcopy(_SERVICE)
    labelled["metadata"]["labels"] = {"app": "vllm"}
    assert _g42(_MONITOR, labelled) == []
    # The Service it was written for is not in the files: no Service there has the port it scrapes.
    assert _g42(_MONITOR) == []
    other_port = copy.deepcopy(_SERVICE)
    other_port["spec"]["ports"][0]["name"] = "web"
    assert _g42(_MONITOR, other_port) == []
    # Another namespace than those it discovers in.
    elsewhere = copy.deepcopy(_SERVICE)
    elsewhere["metadata"]["namespace"] = "serving"
    assert _g42(_MONITOR, elsewhere) == []
    # namespaceSelector any: a Service of any namespace that carries the labels is found.
    anywhere = copy.deepcopy(_MONITOR)
    anywhere["spec"]["namespaceSelector"] = {"any": True}
    assert _g42(anywhere, _SERVICE, {**_CAREFUL_SERVICE, "metadata": {**_CAREFUL_SERVICE["metadata"], "namespace": "x"}}) == []
    # An operator's custom resource in the namespace may create the Service (KServe labels its own).
    isvc = {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "vllm", "namespace": "vllm"},
        "spec": {"predictor": {"model": {"modelFormat": {"name": "huggingface"}}}},
    }
    assert _g42(_MONITOR, _SERVICE, isvc) == []
    # An empty selector selects every Service.
    everything = copy.deepcopy(_MONITOR)
    everything["spec"]["selector"] = {}
    assert _g42(everything, _SERVICE) == []


# Spent set 32: eliran89c/self-hosted-llm-on-eks serviceMonitor-deepseek-7b.yaml and vllm-deepseek-7b.yaml
# @87198d8afa9d40b3ae929ff5458e504b03a8a658: the monitor selects app=deepseek-r1-7b and scrapes port http, which the
# Service (labelled app=deepseek-r1-7b) names: a careful form (labelled a trap there).
_ELIRAN_MONITOR = {
    "apiVersion": "monitoring.coreos.com/v1",
    "kind": "ServiceMonitor",
    "metadata": {"name": "deepseek-r1-7b", "labels": {"release": "kube-prometheus-stack"}},
    "spec": {"endpoints": [{"path": "/metrics/", "port": "http"}], "selector": {"matchLabels": {"app": "deepseek-r1-7b"}}},
}
_ELIRAN_SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "deepseek-r1-7b", "labels": {"app": "deepseek-r1-7b"}},
    "spec": {
        "selector": {"app": "deepseek-r1-7b"},
        "ports": [{"protocol": "TCP", "port": 8000, "name": "http"}],
        "type": "ClusterIP",
    },
}


def test_a_matched_service_without_the_scraped_port_name_is_advice():
    assert _g42(_ELIRAN_MONITOR, _ELIRAN_SERVICE) == []
    # The endpoint's port is a Service port *name* (promcfg.go:2086-2097): one the matched Service does not name.
    unnamed = copy.deepcopy(_ELIRAN_SERVICE)
    del unnamed["spec"]["ports"][0]["name"]
    [(level, _, message)] = _g42(_ELIRAN_MONITOR, unnamed)
    assert level == "advisory"
    assert message == (
        "spec.endpoints scrape port http, which no Service the selector matches names (Service/deepseek-r1-7b names no "
        "port): Prometheus keeps only the endpoints on a port of that name, so it discovers no target and the server's "
        "metrics never arrive; name the Service port, or scrape the name it has"
    )
    # hanasobi's careful Service names both http and metrics: a monitor scraping either is silent.
    assert (
        _g42({**_CAREFUL_MONITOR, "spec": {**_CAREFUL_MONITOR["spec"], "endpoints": [{"port": "http"}]}}, _CAREFUL_SERVICE) == []
    )
    # An unrendered port name may be the one scraped: not judged.
    templated = copy.deepcopy(unnamed)
    templated["spec"]["ports"][0]["name"] = "{{ .Values.portName }}"
    assert _g42(_ELIRAN_MONITOR, templated) == []


# Spent set 44: ibranibeny/Kaito-Deployment servicemonitor.yaml (labelled G42): an Azure Monitor ServiceMonitor selecting
# kaito.sh/workspace=workspace-phi-4-mini-instruct. KAITO's Services carry no labels (kaito-project/kaito v0.12.0
# pkg/workspace/manifests/manifests.go:43-63, :66-133): the key is only in their spec.selector. Public AKS labs run
# `kubectl label service workspace-... kaito.sh/workspace=...` before applying the same monitor, which says as much.
def _kaito_monitor(group: str = "azmonitoring.coreos.com", kind: str = "ServiceMonitor") -> dict:
    spec: dict = {
        "selector": {"matchLabels": {"kaito.sh/workspace": "workspace-phi-4-mini-instruct"}},
        "namespaceSelector": {"matchNames": ["default"]},
    }
    if kind == "ServiceMonitor":
        spec["endpoints"] = [{"port": "http", "path": "/metrics", "interval": "30s"}]
    else:
        spec["podMetricsEndpoints"] = [{"targetPort": 5000, "path": "/metrics"}]
    return {
        "apiVersion": f"{group}/v1",
        "kind": kind,
        "metadata": {"name": "workspace-phi-4-mini-instruct-monitor", "namespace": "default"},
        "spec": spec,
    }


def _selector_only(objs: list[dict]) -> list[tuple[str, str]]:
    return [f for f in found_by(objs, "monitor-selects-targets") if "only in their spec.selector" in f[1]]


def test_a_service_monitor_on_kaitos_selector_only_key_is_advice():
    assert [lv for lv, _ in _selector_only([_kaito_monitor()])] == ["advisory"]
    # Same class under prometheus-operator's own group.
    assert [lv for lv, _ in _selector_only([_kaito_monitor("monitoring.coreos.com")])] == ["advisory"]


def test_a_pod_monitor_or_a_labelled_service_stays_silent():
    assert _selector_only([_kaito_monitor(kind="PodMonitor")]) == []
    labelled = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "phi", "namespace": "default", "labels": {"kaito.sh/workspace": "workspace-phi-4-mini-instruct"}},
        "spec": {"selector": {"kaito.sh/workspace": "workspace-phi-4-mini-instruct"}, "ports": [{"name": "http", "port": 80}]},
    }
    assert _selector_only([_kaito_monitor(), labelled]) == []


def test_kaitos_selector_only_key_is_read_through_match_expressions():
    # kaito.sh/workspace In [workspace-phi-4-mini-instruct]: the same selector (tools/form_variants.py match-expressions).
    monitor = _kaito_monitor("monitoring.coreos.com")
    monitor["spec"]["selector"] = {
        "matchExpressions": [{"key": "kaito.sh/workspace", "operator": "In", "values": ["workspace-phi-4-mini-instruct"]}]
    }
    [(level, message)] = _selector_only([monitor])
    assert level == "advisory" and message.startswith("spec.selector kaito.sh/workspace=workspace-phi-4-mini-instruct:")


# kubernetes/examples@279e8e4fe314f6cb7bc55fa3fbc21bbeaa48c0ea AI/vllm-deployment (spent set 118, G42 advisory): the
# Service states no namespace, carries no labels and an unnamed port; the monitor in hpa/ repeats its pod selector.
_GEMMA_MONITOR = {
    "apiVersion": "monitoring.coreos.com/v1",
    "kind": "ServiceMonitor",
    "metadata": {"name": "vllm-gemma-servicemonitor", "namespace": "monitoring", "labels": {"release": "prometheus"}},
    "spec": {
        "namespaceSelector": {"matchNames": ["vllm-example"]},
        "selector": {"matchLabels": {"app": "gemma-server"}},
        "endpoints": [{"port": "http", "path": "/metrics", "interval": "15s"}],
    },
}
_GEMMA_SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "vllm-service"},
    "spec": {
        "selector": {"app": "gemma-server"},
        "type": "ClusterIP",
        "ports": [{"protocol": "TCP", "port": 8080, "targetPort": 8080}],
    },
}


def _placed(path: str, obj: dict) -> Resource:
    return Resource(type=manifest(obj).type, name=f"{path}#0 {obj['kind']}/{obj['metadata']['name']}", props=obj)


def _g42_placed(*resources: Resource) -> list[str]:
    return [v.message for v in evaluate(list(resources)) if v.policy == "monitor-selects-targets"]


def test_an_unplaced_service_whose_selector_the_monitor_copies_is_advice():
    findings = [
        v
        for v in evaluate(
            [
                _placed("AI/vllm-deployment/hpa/vllm-service-monitor.yaml", _GEMMA_MONITOR),
                _placed("AI/vllm-deployment/vllm-service.yaml", _GEMMA_SERVICE),
            ]
        )
        if v.policy == "monitor-selects-targets"
    ]
    # on the monitor, and on the Service, where the labels and the port name go
    assert [v.resource.rsplit(" ", 1)[-1] for v in findings] == [
        "ServiceMonitor/vllm-gemma-servicemonitor",
        "Service/vllm-service",
    ]
    assert {v.enforcement for v in findings} == {"advisory"}
    found = [v.message for v in findings]
    assert found[0].startswith(
        "spec.selector app=gemma-server with endpoints on port http matches no Service of the files read in namespace "
        "vllm-example; Service/vllm-service, whose spec.selector is what the monitor repeats, carries no labels and names "
        "no port"
    )


def test_an_unplaced_service_elsewhere_or_labelled_stays_silent():
    monitor = _placed("AI/vllm-deployment/hpa/m.yaml", _GEMMA_MONITOR)
    # a sibling folder (another overlay or cluster): never joined
    assert _g42_placed(monitor, _placed("AI/other/vllm-service.yaml", _GEMMA_SERVICE)) == []
    # the careful form: labelled and its port named (hanasobi/self-hosted-llms-tutorial's shape), placed by -n
    careful = copy.deepcopy(_GEMMA_SERVICE)
    careful["metadata"]["labels"] = {"app": "gemma-server"}
    careful["spec"]["ports"][0]["name"] = "http"
    assert _g42_placed(monitor, _placed("AI/vllm-deployment/vllm-service.yaml", careful)) == []
    # a Service stating another namespace is not the one the monitor was written for
    placed = copy.deepcopy(_GEMMA_SERVICE)
    placed["metadata"]["namespace"] = "default"
    assert _g42_placed(monitor, _placed("AI/vllm-deployment/vllm-service.yaml", placed)) == []
