"""G68 subset-selects-pods: a VirtualService's weight goes to a DestinationRule subset no pod of the host carries.

Firing third-party form: rmehta2974/LLM_mlops alternate_learning/manifests/40-istio-canary.yaml with
10-triton-deployment.yaml and 31-triton-with-artifactory-initcontainer.yaml (spent set 113): weight 99 to subset v2
(``version: v2``) of host triton-llm while the folder's Deployments label their pods ``app: triton-llm`` and
``version: v3``. Careful form: the same route's subset v3, which Deployment triton-llm-v3's pods carry: silent.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by, manifest

from policies.ingress.subset_selects_pods import POLICY
from policies.registry import evaluate


def _deployment(name, labels):
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "llm-inference"},
        "spec": {
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "triton", "image": "nvcr.io/nvidia/tritonserver:24.01-py3"}]},
            },
        },
    }


STABLE = _deployment("triton-llm", {"app": "triton-llm"})
CANARY = _deployment("triton-llm-v3", {"app": "triton-llm", "version": "v3"})
RULE = {
    "apiVersion": "networking.istio.io/v1beta1",
    "kind": "DestinationRule",
    "metadata": {"name": "triton-llm-dr", "namespace": "llm-inference"},
    "spec": {
        "host": "triton-llm",
        "subsets": [{"name": "v2", "labels": {"version": "v2"}}, {"name": "v3", "labels": {"version": "v3"}}],
    },
}
ROUTE = {
    "apiVersion": "networking.istio.io/v1beta1",
    "kind": "VirtualService",
    "metadata": {"name": "triton-llm-vs", "namespace": "llm-inference"},
    "spec": {
        "hosts": ["triton-llm"],
        "http": [
            {
                "route": [
                    {"destination": {"host": "triton-llm", "subset": "v2"}, "weight": 99},
                    {"destination": {"host": "triton-llm", "subset": "v3"}, "weight": 1},
                ]
            }
        ],
    },
}


def test_weight_to_a_subset_no_pod_carries_is_advice():
    ((level, message),) = found_by([STABLE, CANARY, RULE, ROUTE], POLICY.name)
    assert level == "advisory"
    assert message.startswith("subset v2 of host triton-llm selects version=v2, which no pod of")
    assert "(they carry version=v3)" in message
    assert "while VirtualService triton-llm-vs spec.http[0].route[0].destination sends it weight 99" in message
    # reported on the DestinationRule, whose subset's labels select nothing (where the spent-set label sits)
    (found,) = [v for v in evaluate([manifest(o) for o in (STABLE, CANARY, RULE, ROUTE)]) if v.policy == POLICY.name]
    assert found.resource.endswith(f"DestinationRule/{RULE['metadata']['name']}") or found.resource.endswith(
        RULE["metadata"]["name"]
    )


def test_careful_forms_stay_silent():
    # The stable Deployment labelled for its subset.
    stable = _deployment("triton-llm", {"app": "triton-llm", "version": "v2"})
    assert found_by([stable, CANARY, RULE, ROUTE], POLICY.name) == []
    # No weight to the empty subset.
    route = copy.deepcopy(ROUTE)
    route["spec"]["http"][0]["route"][0]["weight"] = 0
    assert found_by([STABLE, CANARY, RULE, route], POLICY.name) == []
    # No pod of the host in the files: the workloads are elsewhere.
    assert found_by([RULE, ROUTE], POLICY.name) == []
    # The host's Service selects other pods than those named after the host; its selector is read.
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "triton-llm", "namespace": "llm-inference"},
        "spec": {"selector": {"app": "triton"}, "ports": [{"port": 8000}]},
    }
    assert found_by([STABLE, CANARY, RULE, ROUTE, service], POLICY.name) == []
