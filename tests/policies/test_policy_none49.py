"""Classes the labellers of spent sets 50-66 filed as NONE (brief none49), each a third-party form that fires and a
careful form that stays silent.

- G86 stateful-set-headless-service: a StatefulSet whose serviceName names a Service that is not headless, or none of
  the files while a pod is addressed as NAME-0.SERVICE (kubernetes/api v0.33.0 apps/v1/types.go L218-224: the
  governing Service gives the pods their DNS names; the cluster DNS publishes them only for a headless Service).
  Spent set 64: AdityaKhari1001/borgos@ef24cf9e:k8s/ollama-deployment.yaml (ClusterIP ollama-service).
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

G86 = "stateful-set-headless-service"


def _stateful_set(name: str, service: str, args: list | None = None) -> dict:
    container = {"name": "ollama", "image": "ollama/ollama:0.6.5", "ports": [{"containerPort": 11434}]}
    if args:
        container["args"] = args
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": name, "namespace": "borgos"},
        "spec": {
            "serviceName": service,
            "replicas": 2,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
        },
    }


def _service(name: str, selector: str, headless: bool = False) -> dict:
    spec: dict = {"type": "ClusterIP", "ports": [{"port": 11434, "targetPort": 11434}], "selector": {"app": selector}}
    if headless:
        spec["clusterIP"] = "None"
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": "borgos"}, "spec": spec}


def test_a_stateful_set_governed_by_a_cluster_ip_service_is_advice():
    objs = [_stateful_set("borgos-ollama", "ollama-service"), _service("ollama-service", "borgos-ollama")]
    ((level, message),) = found_by(objs, G86)
    assert level == "advisory"
    assert message.startswith("spec.serviceName names Service ollama-service, a ClusterIP Service with a cluster IP")
    assert "borgos-ollama-0.ollama-service" in message


def test_a_headless_governing_service_is_silent():
    objs = [
        _stateful_set("borgos-ollama", "ollama-headless"),
        _service("ollama-headless", "borgos-ollama", headless=True),
        _service("ollama-service", "borgos-ollama"),  # the load-balanced Service under another name
    ]
    assert found_by(objs, G86) == []
    other_namespace = _service("ollama-service", "borgos-ollama")
    other_namespace["metadata"]["namespace"] = "elsewhere"
    assert found_by([_stateful_set("borgos-ollama", "ollama-service"), other_namespace], G86) == []


def test_a_missing_service_is_advice_only_where_a_pod_is_addressed_by_it():
    leader = ["--leader-address", "ray-0.ray-headless.borgos.svc.cluster.local:6379"]
    ((level, message),) = found_by([_stateful_set("ray", "ray-headless", args=leader)], G86)
    assert level == "advisory" and "addresses a pod as ray-0.ray-headless" in message
    # Careful: nobody addresses a pod (the Service may be created elsewhere), a longer name that only starts alike.
    assert found_by([_stateful_set("ray", "ray-headless")], G86) == []
    assert found_by([_stateful_set("ray", "ray-headless", args=["--peer", "xray-0.ray-headless-2:1"])], G86) == []


def test_an_unrendered_cluster_ip_is_silent():
    service = _service("ollama-service", "borgos-ollama")
    service["spec"]["clusterIP"] = "${CLUSTER_IP}"
    assert found_by([_stateful_set("borgos-ollama", "ollama-service"), copy.deepcopy(service)], G86) == []
