"""model-pods-network-isolated (G33): a serving namespace whose model pods every pod can reach is reported.

Semantics pinned: Kubernetes NetworkPolicy (networking.k8s.io/v1): a pod is isolated for ingress once a policy with
Ingress in policyTypes (implied when policyTypes is absent) selects it; a rule without ``from`` admits every source;
``namespaceSelector: {}`` selects every namespace. The EKS network policy agent admits the local node always
(aws-network-policy-agent v1.4.1 pkg/fwruleprocessor/fw_rule_processor.go:80-84), so probes need no rule.
"""

from __future__ import annotations

import copy
import json

import pytest
import yaml

from policies.framework import Resource
from policies.ingress.model_pods_network_isolated import POLICY
from policies.registry import evaluate
from tests.conftest import shared_path
from tests.policies.test_policy_check_cli import run_check

NAME = POLICY.name

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm", "namespace": "serving"},
    "spec": {
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.33.0",
                        "command": ["vllm", "serve"],
                        "args": ["m", "--port=8000"],
                        "ports": [{"containerPort": 8000, "name": "http"}, {"containerPort": 5556, "name": "zmq"}],
                    }
                ]
            },
        },
    },
}
DENY = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "NetworkPolicy",
    "metadata": {"name": "deny", "namespace": "serving"},
    "spec": {"podSelector": {}, "policyTypes": ["Ingress"]},
}


def allow(peers=None, ports=None, name="allow"):
    rule = {}
    if peers is not None:
        rule["from"] = peers
    if ports is not None:
        rule["ports"] = ports
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": "serving"},
        "spec": {"podSelector": {"matchLabels": {"app": "vllm"}}, "policyTypes": ["Ingress"], "ingress": [rule]},
    }


GATEWAY_PEER = {
    "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "istio-ingress"}},
    "podSelector": {"matchLabels": {"istio": "ingressgateway"}},
}


def resource(obj):
    group_version = obj["apiVersion"] if "/" in obj["apiVersion"] else f"core/{obj['apiVersion']}"
    return Resource(f"kubernetes:{group_version}:{obj['kind']}", obj["metadata"]["name"], copy.deepcopy(obj))


def findings(*objs):
    return [v.message for v in evaluate([resource(o) for o in objs]) if v.policy == NAME]


def test_a_serving_namespace_without_any_network_policy_is_reported():
    assert findings(DEPLOYMENT) == [
        "Deployment serving/vllm: no NetworkPolicy of namespace serving selects its model pods for Ingress, so every pod "
        "of the cluster reaches them, and with them the paths vLLM's API key does not guard (/invocations, /tokenize, /metrics)"
    ]


def test_the_careful_form_default_deny_and_the_gateway_only_is_silent():
    assert findings(DEPLOYMENT, DENY, allow([GATEWAY_PEER], [{"port": 8000, "protocol": "TCP"}])) == []
    # A default deny alone isolates too (nothing reaches the pods but their node's probes).
    assert findings(DEPLOYMENT, DENY) == []


@pytest.mark.parametrize(
    "policy, where",
    [
        (allow(None, [{"port": 8000}]), "spec.ingress[0] has no from: every source"),
        (allow([{"namespaceSelector": {}}]), "spec.ingress[0].from[0] admits every pod"),
        (allow([{"namespaceSelector": {}, "podSelector": {}}], [{"port": "http"}]), "spec.ingress[0].from[0] admits every pod"),
        (allow([{"ipBlock": {"cidr": "0.0.0.0/0"}}]), "spec.ingress[0].from[0] admits every pod"),
        (allow([{"ipBlock": {"cidr": "::/0"}}]), "spec.ingress[0].from[0] admits every pod"),
    ],
    ids=["no-from", "all-namespaces", "all-namespaces-named-port", "ipblock-v4", "ipblock-v6"],
)
def test_a_rule_that_admits_every_pod_on_the_model_port_is_reported(policy, where):
    (message,) = findings(DEPLOYMENT, DENY, policy)
    assert f"NetworkPolicy allow {where} on the model server's port" in message


@pytest.mark.parametrize(
    "policy",
    [
        allow(None, [{"port": 5556}]),  # another port of the pod, not the API
        allow([{"podSelector": {}}]),  # the namespace's own pods, not the cluster's
        allow([{"ipBlock": {"cidr": "0.0.0.0/0", "except": ["10.0.0.0/8"]}}]),
        allow([{"namespaceSelector": {"matchLabels": {"team": "ml"}}}]),
    ],
    ids=["other-port", "same-namespace", "ipblock-except", "labelled-namespaces"],
)
def test_a_narrower_rule_is_not_every_pod(policy):
    assert findings(DEPLOYMENT, DENY, policy) == []


def test_a_policy_of_another_namespace_or_egress_only_does_not_isolate():
    other = copy.deepcopy(DENY)
    other["metadata"]["namespace"] = "elsewhere"
    egress = copy.deepcopy(DENY)
    egress["spec"]["policyTypes"] = ["Egress"]
    assert len(findings(DEPLOYMENT, other)) == 1
    assert len(findings(DEPLOYMENT, egress)) == 1


def test_the_llm_d_sample_leaves_its_api_port_open_to_every_pod():
    # ai-on-eks llm-d cache-aware routing: its NetworkPolicy restricts the ZMQ port 5556 to the EPP pods, and its second
    # rule admits port 8000 from every source (no from), so the policy reports it.
    path = shared_path(
        "corpus",
        "manifests-v2",
        "awslabs__ai-on-eks",
        "infra__solutions__llm-d-cache-aware-routing__manifests__vllm-deployment.yaml",
    )
    proc = run_check(str(path), "--format", "json")
    found = [v for v in json.loads(proc.stdout)["violations"] if v["policy"] == NAME]
    assert [v["resource"] for v in found] == ["Deployment/vllm-inference"]
    assert "NetworkPolicy restrict-zmq-kv-events spec.ingress[1] has no from: every source" in found[0]["message"]
    # The same file with that rule narrowed to the gateway's namespace is the careful form.
    docs = list(yaml.safe_load_all(path.read_text()))
    (netpol,) = [d for d in docs if d and d.get("kind") == "NetworkPolicy"]
    netpol["spec"]["ingress"][1]["from"] = [GATEWAY_PEER]
    assert findings(*[d for d in docs if d]) == []


def test_the_prod_plan_isolates_every_model_and_a_loosened_allow_is_reported():
    from stacks.offline import load_stack_file, run_program
    from stacks.plan import policy_resources

    resources = policy_resources(run_program(load_stack_file("prod")))
    assert [v.message for v in evaluate(resources) if v.policy == NAME] == []
    resources = copy.deepcopy(resources)  # evaluation memoizes what it read of each resource
    (chat,) = [r for r in resources if r.type.endswith(":NetworkPolicy") and r.props["metadata"]["name"] == "chat-8b-api-ingress"]
    chat.props["spec"]["ingress"][0]["from"].append({"namespaceSelector": {}})
    assert [v.message for v in evaluate(resources) if v.policy == NAME] == [
        "InferenceService llm/chat-8b: NetworkPolicy chat-8b-api-ingress spec.ingress[0].from[2] admits every pod on the "
        "model server's port, so every pod of the cluster reaches its model pods (and the paths vLLM's API key does not "
        "guard: /invocations, /tokenize, /metrics)"
    ]


def test_a_ray_head_without_a_policy_is_reported():
    ray = {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": "big", "namespace": "serving"},
        "spec": {
            "headGroupSpec": {
                "template": {
                    "spec": {
                        "containers": [
                            {
                                "name": "head",
                                "image": "vllm/vllm-openai:v0.33.0",
                                "command": ["vllm", "serve", "m", "--tensor-parallel-size", "8"],
                                "ports": [{"containerPort": 8000, "name": "http"}],
                            }
                        ]
                    }
                }
            },
            "workerGroupSpecs": [],
        },
    }
    assert [m.split(":")[0] for m in findings(ray)] == ["RayCluster serving/big"]
    head_only = allow([GATEWAY_PEER])
    head_only["spec"]["podSelector"] = {"matchLabels": {"ray.io/cluster": "big", "ray.io/node-type": "head"}}
    assert findings(ray, head_only) == []
