"""G62 caller-egress-reaches-service widened (session 50, brief egress50): every destination the files show, not only
an env URL of an app container to a Service of the files.

- an init container's calls (its env, a script's `nc HOST PORT` or curl/wget URL) and scheme-less host:port env values
  (KAFKA_BROKERS=kafka.ns.svc:9092) are callers too; an init container's dropped call keeps the pod from starting;
- a Service the files do not hold, named NAME.NS.svc[.cluster.local] (certainly in-cluster, in namespace NS): blocking
  when no egress rule of the policies isolating the caller may reach any pod of NS (every peer names another namespace
  by kubernetes.io/metadata.name, or pods of the policy's own namespace), whatever its target port
  (kubernetes/api networking/v1/types.go:82-87@v0.34.0).
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

EGRESS = "caller-egress-reaches-service"

# Spent set 87 maxjeffwell/shared-ai-gateway@8e24b467cb826bdacafbdcd9510ce20a63e6ccd7 k8s/deployment.yaml (trimmed).
GATEWAY = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "shared-ai-gateway"},
    "spec": {
        "selector": {"matchLabels": {"app": "shared-ai-gateway"}},
        "template": {
            "metadata": {"labels": {"app": "shared-ai-gateway", "portfolio": "true"}},
            "spec": {
                "initContainers": [
                    {
                        "name": "wait-for-kafka",
                        "image": "busybox:1.37",
                        "command": [
                            "sh",
                            "-c",
                            'until nc -z vertex-kafka-kafka-bootstrap.microservices.svc 9092; do echo "Waiting for Kafka...";'
                            " sleep 5; done",
                        ],
                    }
                ],
                "containers": [
                    {
                        "name": "ai-gateway",
                        "image": "maxjeffwell/shared-ai-gateway:latest",
                        "ports": [{"containerPort": 8002}],
                        "env": [
                            {"name": "KAFKA_BROKERS", "value": "vertex-kafka-kafka-bootstrap.microservices.svc:9092"},
                            {"name": "LUNARY_API_URL", "value": "http://lunary-backend.lunary.svc.cluster.local:3333"},
                        ],
                    }
                ],
            },
        },
    },
}
TO_LUNARY = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "NetworkPolicy",
    "metadata": {"name": "allow-gateway-to-lunary"},
    "spec": {
        "podSelector": {"matchLabels": {"app": "shared-ai-gateway"}},
        "policyTypes": ["Egress"],
        "egress": [
            {
                "to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "lunary"}}}],
                "ports": [{"protocol": "TCP", "port": 3333}],
            },
            {
                "to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}}}],
                "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}],
            },
        ],
    },
}


def test_an_init_wait_for_kafka_in_a_namespace_no_rule_reaches_blocks():
    ((level, message),) = found_by([GATEWAY, TO_LUNARY], EGRESS)
    assert level == "mandatory"
    assert message.startswith(
        "calls Service vertex-kafka-kafka-bootstrap of namespace microservices (nc vertex-kafka-kafka-bootstrap.microservices.svc"
    )
    assert "the pod never starts" in message


def test_a_host_port_env_value_alone_blocks():
    gateway = copy.deepcopy(GATEWAY)
    del gateway["spec"]["template"]["spec"]["initContainers"]
    ((level, message),) = found_by([gateway, TO_LUNARY], EGRESS)
    assert level == "mandatory"
    assert "(KAFKA_BROKERS=vertex-kafka-kafka-bootstrap.microservices.svc:9092)" in message


def test_a_rule_to_the_namespace_is_silent():
    policy = copy.deepcopy(TO_LUNARY)
    policy["spec"]["egress"].append(
        {"to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "microservices"}}}]}
    )
    assert found_by([GATEWAY, policy], EGRESS) == []


def test_a_namespace_selector_on_other_labels_or_an_ip_block_is_silent():
    for peer in ({"namespaceSelector": {"matchLabels": {"team": "data"}}}, {"ipBlock": {"cidr": "10.0.0.0/8"}}):
        policy = copy.deepcopy(TO_LUNARY)
        policy["spec"]["egress"].append({"to": [peer], "ports": [{"port": 9092}]})
        assert found_by([GATEWAY, policy], EGRESS) == []


def test_a_short_host_of_no_service_in_the_files_is_silent():
    # `kafka:9092` (no .svc): the files do not say which namespace or that it is a Service at all.
    gateway = copy.deepcopy(GATEWAY)
    spec = gateway["spec"]["template"]["spec"]
    spec["initContainers"][0]["command"][2] = "until nc -z kafka 9092; do sleep 5; done"
    spec["containers"][0]["env"][0]["value"] = "kafka:9092"
    assert found_by([gateway, TO_LUNARY], EGRESS) == []


def test_a_proxied_caller_is_advice():
    gateway = copy.deepcopy(GATEWAY)
    del gateway["spec"]["template"]["spec"]["initContainers"]
    gateway["spec"]["template"]["spec"]["containers"][0]["env"].append({"name": "HTTPS_PROXY", "value": "http://proxy:3128"})
    ((level, _),) = found_by([gateway, TO_LUNARY], EGRESS)
    assert level == "advisory"


def test_no_egress_isolation_is_silent():
    assert found_by([GATEWAY], EGRESS) == []


def test_bad_script_and_values_do_not_traceback():
    gateway = copy.deepcopy(GATEWAY)
    spec = gateway["spec"]["template"]["spec"]
    spec["initContainers"][0]["command"] = ["sh", "-c", "nc -z ' unbalanced"]
    spec["containers"][0]["env"] = [{"name": "A", "value": "x:99999999"}, {"name": "B", "value": ":"}, "junk"]
    assert found_by([gateway, TO_LUNARY], EGRESS) == []
