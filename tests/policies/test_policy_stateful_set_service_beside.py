"""G86 stateful-set-headless-service: serviceName names no Service while a Service of the same folder selects the pods.

Firing form: MichaelCade/UpTheStack-ArgoCD@6b984aa6c71d1cc4f73502a24ca6160ae66a83e8 apps/ollama/ollama-statefulset.yaml
(``serviceName: "ollama"``) and apps/ollama/ollama-svc.yaml (ClusterIP ``ollama-service`` selecting app=ollama), spent
set 121, G86 advisory. Careful forms that stay silent: a headless Service named as serviceName (kubernetes.io
StatefulSet tutorial, nginx/web), no Service of the folder selecting the pods (the governing Service may be in another
repository), and the Service in another folder (a sibling overlay's).
"""

from __future__ import annotations

import copy

from policy_fixtures import manifest

from policies.framework import Resource
from policies.k8s_generic.stateful_set_headless_service import POLICY
from policies.registry import evaluate

OLLAMA_SET = {
    "apiVersion": "apps/v1",
    "kind": "StatefulSet",
    "metadata": {"name": "ollama", "namespace": "open-webui"},
    "spec": {
        "serviceName": "ollama",
        "replicas": 1,
        "selector": {"matchLabels": {"app": "ollama"}},
        "template": {
            "metadata": {"labels": {"app": "ollama"}},
            "spec": {"containers": [{"name": "ollama", "image": "ollama/ollama:latest", "ports": [{"containerPort": 11434}]}]},
        },
    },
}
OLLAMA_SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "ollama-service", "namespace": "open-webui"},
    "spec": {"selector": {"app": "ollama"}, "ports": [{"protocol": "TCP", "port": 11434, "targetPort": 11434}]},
}


def _at(path: str, obj: dict) -> Resource:
    return Resource(type=manifest(obj).type, name=f"{path}#0 {obj['kind']}/{obj['metadata']['name']}", props=obj)


def _found(*resources: Resource) -> list[str]:
    return [v.message for v in evaluate(list(resources), None, policies=[POLICY])]


def test_service_of_the_folder_under_another_name_is_advised() -> None:
    found = _found(_at("apps/ollama/ollama-statefulset.yaml", OLLAMA_SET), _at("apps/ollama/ollama-svc.yaml", OLLAMA_SERVICE))
    assert len(found) == 1
    assert found[0].startswith(
        "spec.serviceName names Service ollama, which the files do not define, while Service ollama-service of the "
        "same folder selects this set's pods: the per-pod names ollama-0.ollama ..."
    )
    assert [
        v.enforcement for v in evaluate([_at("a/s.yaml", OLLAMA_SET), _at("a/v.yaml", OLLAMA_SERVICE)], None, policies=[POLICY])
    ] == ["advisory"]


def test_headless_service_of_that_name_is_silent() -> None:
    headless = copy.deepcopy(OLLAMA_SERVICE)
    headless["metadata"]["name"] = "ollama"
    headless["spec"]["clusterIP"] = "None"
    assert _found(_at("apps/ollama/s.yaml", OLLAMA_SET), _at("apps/ollama/svc.yaml", headless)) == []


def test_no_service_selecting_the_pods_is_silent() -> None:
    other = copy.deepcopy(OLLAMA_SERVICE)
    other["spec"]["selector"] = {"app": "open-webui"}
    assert _found(_at("apps/ollama/s.yaml", OLLAMA_SET), _at("apps/ollama/svc.yaml", other)) == []
    assert _found(_at("apps/ollama/s.yaml", OLLAMA_SET)) == []


def test_service_in_another_folder_is_silent() -> None:
    assert _found(_at("overlays/a/s.yaml", OLLAMA_SET), _at("overlays/b/svc.yaml", OLLAMA_SERVICE)) == []


def test_service_of_another_namespace_is_silent() -> None:
    elsewhere = copy.deepcopy(OLLAMA_SERVICE)
    elsewhere["metadata"]["namespace"] = "models"
    assert _found(_at("apps/ollama/s.yaml", OLLAMA_SET), _at("apps/ollama/svc.yaml", elsewhere)) == []
