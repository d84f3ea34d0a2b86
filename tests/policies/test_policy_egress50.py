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

from policy_fixtures import found_by, service, workload

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
        "Deployment/shared-ai-gateway calls Service vertex-kafka-kafka-bootstrap of namespace microservices (nc vertex-kafka-kafka-bootstrap.microservices.svc"
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


# --- G33 egress-allows-provider-calls: hosted providers of a LiteLLM proxy isolated for egress (advice) --------------

PROVIDERS = "egress-allows-provider-calls"
# Spent set 84 brianmlasky/serverless-agentic-platform@8200cc880e1d65976b03b5a12abdacaa98318869
# k8s/litellm-gateway-deployment.yaml (ConfigMap litellm-config, Deployment litellm-gateway) and k8s/network-policies.yaml.
LITELLM_CONFIG = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "litellm-config", "namespace": "litellm"},
    "data": {
        "config.yaml": (
            "model_list:\n"
            "  - model_name: claude-haiku\n"
            "    litellm_params:\n"
            "      model: vertex_ai/us.anthropic.claude-haiku-4-5-20251001-v1:0\n"
            "      vertex_location: us-central1\n"
            "general_settings:\n"
            "  master_key: os.environ/LITELLM_MASTER_KEY\n"
        )
    },
}
LITELLM = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "litellm-gateway", "namespace": "litellm"},
    "spec": {
        "selector": {"matchLabels": {"app": "litellm-gateway"}},
        "template": {
            "metadata": {"labels": {"app": "litellm-gateway"}},
            "spec": {
                "containers": [
                    {
                        "name": "litellm",
                        "image": "ghcr.io/berriai/litellm:v1.77.7-stable",
                        "args": ["--config", "/app/config.yaml", "--port", "4000"],
                        "volumeMounts": [{"name": "litellm-config", "mountPath": "/app/config.yaml", "subPath": "config.yaml"}],
                    }
                ],
                "volumes": [{"name": "litellm-config", "configMap": {"name": "litellm-config"}}],
            },
        },
    },
}


def _egress_policy(name: str, selector: dict, egress: list) -> dict:
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": "litellm"},
        "spec": {"podSelector": selector, "policyTypes": ["Egress"], "egress": egress},
    }


DENY = _egress_policy("default-deny-egress", {}, [])
DNS_ANY = _egress_policy("allow-dns-egress", {}, [{"ports": [{"port": 53, "protocol": "UDP"}, {"port": 53, "protocol": "TCP"}]}])
CLOUDSQL = _egress_policy(
    "allow-cloudsql-egress", {"matchLabels": {"app": "litellm-gateway"}}, [{"ports": [{"port": 3307, "protocol": "TCP"}]}]
)


def test_hosted_provider_routes_under_dns_only_egress_are_advice():
    (level, message), (policy_level, policy_message) = found_by([LITELLM_CONFIG, LITELLM, DENY, DNS_ANY, CLOUDSQL], PROVIDERS)
    assert level == "advisory"
    assert "claude-haiku -> LOCATION-aiplatform.googleapis.com" in message
    # Session 51: said on allow-cloudsql-egress too, the policy written for the proxy's pods (spent set 84 labelled it
    # there); not on the namespace-wide default-deny-egress or allow-dns-egress.
    assert policy_level == "advisory" and policy_message.startswith("selects the pods of Deployment/")
    assert policy_message.endswith(message)
    assert len(found_by([LITELLM_CONFIG, LITELLM, DENY, DNS_ANY], PROVIDERS)) == 1


def test_a_rule_reaching_outside_on_443_is_silent():
    https = _egress_policy("allow-https", {}, [{"to": [{"ipBlock": {"cidr": "0.0.0.0/0"}}], "ports": [{"port": 443}]}])
    assert found_by([LITELLM_CONFIG, LITELLM, DENY, DNS_ANY, https], PROVIDERS) == []


def test_an_in_cluster_api_base_is_silent():
    config = copy.deepcopy(LITELLM_CONFIG)
    config["data"]["config.yaml"] = (
        "model_list:\n  - model_name: llama\n    litellm_params:\n      model: hosted_vllm/llama\n"
        "      api_base: http://vllm.llm.svc.cluster.local:8000/v1\n"
    )
    assert found_by([config, LITELLM, DENY, DNS_ANY], PROVIDERS) == []


def test_an_https_proxy_or_no_egress_isolation_is_silent():
    proxied = copy.deepcopy(LITELLM)
    proxied["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": "HTTPS_PROXY", "value": "http://proxy:3128"}]
    assert found_by([LITELLM_CONFIG, proxied, DENY, DNS_ANY], PROVIDERS) == []
    assert found_by([LITELLM_CONFIG, LITELLM], PROVIDERS) == []


# Spent set 91 2coolkalamkaar/k8s-SRE-Agent@3b9c5017c73ac1118048b3162c807a6b768b16bb k8s/network-policy.yaml,
# k8s/ollama-model-init-job.yaml and k8s/ollama-statefulset.yaml (trimmed): the labeller filed G62 on the NetworkPolicy,
# whose egress rules are what to change; the finding sat on the Job and counted as a wrong blocking finding.
SRE_POLICY = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "NetworkPolicy",
    "metadata": {"name": "isolate-ai-infra", "namespace": "ai-infra"},
    "spec": {
        "podSelector": {},
        "policyTypes": ["Ingress", "Egress"],
        "ingress": [{"from": [{"namespaceSelector": {"matchLabels": {"name": "monitoring"}}}], "ports": [{"port": 11434}]}],
        "egress": [
            {
                "to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}}}],
                "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}],
            }
        ],
    },
}
SRE_JOB = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "ollama-pull-model", "namespace": "ai-infra"},
    "spec": {
        "template": {
            "spec": {
                "restartPolicy": "OnFailure",
                "containers": [
                    {
                        "name": "model-puller",
                        "image": "curlimages/curl:8.11.1",
                        "command": [
                            "/bin/sh",
                            "-c",
                            "until curl -sf http://ollama-service.ai-infra.svc.cluster.local:11434/api/tags > /dev/null; do sleep 5;"
                            " done\ncurl -X POST http://ollama-service.ai-infra.svc.cluster.local:11434/api/pull -d '{}'",
                        ],
                    }
                ],
            }
        }
    },
}
SRE_OLLAMA = [
    service("ollama-service", "ollama", [{"name": "http", "port": 11434, "targetPort": 11434}], namespace="ai-infra"),
    workload(
        "ollama",
        [{"name": "ollama", "image": "ollama/ollama:0.5.7", "ports": [{"name": "http", "containerPort": 11434}]}],
        kind="StatefulSet",
        namespace="ai-infra",
        service_name="ollama-service",
    ),
]


def test_the_finding_sits_on_the_policy_that_isolates_the_caller(tmp_path, capsys):
    import io
    import json

    import yaml

    from policies.check import main

    (tmp_path / "network-policy.yaml").write_text(yaml.safe_dump(SRE_POLICY))
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(SRE_JOB))
    (tmp_path / "ollama.yaml").write_text(yaml.safe_dump_all(SRE_OLLAMA))
    main([str(tmp_path), "--format", "json"], stdin=io.BytesIO())
    found = [v for v in json.loads(capsys.readouterr().out)["violations"] if v["policy"] == EGRESS]
    assert [(v["file"].rsplit("/", 1)[-1], v["resource"].rsplit("/", 1)[-1]) for v in found] == [
        ("network-policy.yaml", "isolate-ai-infra")
    ], found
    assert found[0]["message"].startswith("Job/ollama-pull-model calls Service ollama-service"), found[0]["message"]
    # an egress rule to the Ollama pods on 11434 is the fix: silent
    fixed = copy.deepcopy(SRE_POLICY)
    fixed["spec"]["egress"].append({"to": [{"podSelector": {"matchLabels": {"app": "ollama"}}}], "ports": [{"port": 11434}]})
    assert found_by([fixed, SRE_JOB, *SRE_OLLAMA], EGRESS) == []


def test_a_fault_said_on_several_isolating_policies_is_advice_on_each():
    """Review 51a: where two policies isolate the caller (here the set 91 deny and a second namespace-wide DNS policy),
    the rule may go in either, and one blocking finding per policy would block the run twice for one fault (spent set
    67 Envision-Construction/Open-OS dlp-proxy, whose labeller filed it on the Deployment): advice on each. One
    isolating policy keeps it blocking (set 91)."""
    dns = copy.deepcopy(SRE_POLICY)
    dns["metadata"]["name"] = "allow-dns"
    dns["spec"].pop("ingress")
    dns["spec"]["policyTypes"] = ["Egress"]
    found = found_by([SRE_POLICY, dns, SRE_JOB, *SRE_OLLAMA], EGRESS)
    assert [level for level, _ in found] == ["advisory", "advisory"], found
    assert all("said on each of the 2 policies" in m for _, m in found)
    assert [level for level, _ in found_by([SRE_POLICY, SRE_JOB, *SRE_OLLAMA], EGRESS)] == ["mandatory"]
