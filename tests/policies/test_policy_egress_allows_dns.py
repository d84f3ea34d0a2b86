"""G81 egress-allows-dns: a pod isolated for Egress reaches the cluster DNS (port 53 over UDP) when it resolves names.

Fires: set 29's vLLM Deployment (JSXSTEWART/rise-local-lead-maker kubernetes/vllm-deployment.yaml
@61b9a0f5f31a2ea7ac4b5bb00a1680574d4f6721, downloading meta-llama/Meta-Llama-3.1-8B-Instruct at start) under the common
"allow internet egress" policy (podSelector {}, 0.0.0.0/0 except the private ranges on TCP 443 and 80, as the code
corpus shows it unattributed) and no rule for port 53: the download reaches the Hub's addresses but no lookup of
huggingface.co gets out. A LiteLLM-style proxy whose env names its backend by Service name: advice.
Silent, the allow-DNS policy in its common forms: codota/terraform-google-gke-tabnine tabnine_cloud_values.yaml.tpl
(kube-system by kubernetes.io/metadata.name + k8s-app: kube-dns, UDP 53), shiftlabs-helm-library
charts/common/templates/_networkpolicy.tpl (namespaceSelector {} on UDP and TCP 53), an ipBlock to the cluster DNS IP
on 53, egress to all on UDP/TCP 53, a separate namespace-wide allow-dns policy; hostNetwork pods.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

_NS = "llm-tenants"
_VLLM = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm-llama3-8b", "namespace": _NS},
    "spec": {
        "selector": {"matchLabels": {"app": "llm-service"}},
        "template": {
            "metadata": {"labels": {"app": "llm-service"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.11.0",
                        "command": ["python", "-m", "vllm.entrypoints.openai.api_server"],
                        "args": ["--model", "meta-llama/Meta-Llama-3.1-8B-Instruct", "--port", "8000"],
                        "ports": [{"containerPort": 8000, "name": "http"}],
                        "resources": {"limits": {"nvidia.com/gpu": "1"}},
                        "volumeMounts": [{"name": "hf-cache", "mountPath": "/root/.cache/huggingface"}],
                    }
                ],
                "volumes": [{"name": "hf-cache", "emptyDir": {}}],
            },
        },
    },
}
_INTERNET = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "NetworkPolicy",
    "metadata": {"name": "allow-internet-egress", "namespace": _NS},
    "spec": {
        "podSelector": {},
        "policyTypes": ["Egress"],
        "egress": [
            {
                "to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"]}}],
                "ports": [{"protocol": "TCP", "port": 443}, {"protocol": "TCP", "port": 80}],
            }
        ],
    },
}
_KUBE_DNS_PEER = {
    "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
    "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}},
}
_UDP_TCP_53 = [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]
_PROXY = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "litellm", "namespace": _NS},
    "spec": {
        "selector": {"matchLabels": {"app": "litellm"}},
        "template": {
            "metadata": {"labels": {"app": "litellm"}},
            "spec": {
                "containers": [
                    {
                        "name": "litellm",
                        "image": "ghcr.io/berriai/litellm:main-v1.74.0-stable",
                        "env": [{"name": "OPENAI_API_BASE", "value": "http://vllm-llama3-8b:8000/v1"}],
                    }
                ]
            },
        },
    },
}
_TO_VLLM = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "NetworkPolicy",
    "metadata": {"name": "litellm-egress", "namespace": _NS},
    "spec": {
        "podSelector": {"matchLabels": {"app": "litellm"}},
        "policyTypes": ["Egress"],
        "egress": [{"to": [{"podSelector": {"matchLabels": {"app": "llm-service"}}}], "ports": [{"port": 8000}]}],
    },
}


def _with_rule(policy: dict, rule: dict) -> dict:
    policy = copy.deepcopy(policy)
    policy["spec"]["egress"].append(rule)
    return policy


def _allow_dns(rule: dict) -> dict:
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": "allow-dns", "namespace": _NS},
        "spec": {"podSelector": {}, "policyTypes": ["Egress"], "egress": [rule]},
    }


def test_a_download_at_start_with_no_dns_blocks():
    ((level, message),) = found_by([_INTERNET, _VLLM], "egress-allows-dns")
    assert level == "mandatory"
    assert "no egress rule of the policies selecting them reaches port 53 (UDP)" in message
    assert "downloads meta-llama/Meta-Llama-3.1-8B-Instruct at start" in message
    # No rule reaches the internet either: G33 egress-allows-model-download reports that, not this policy.
    deny = copy.deepcopy(_INTERNET)
    deny["spec"]["egress"] = []
    assert found_by([deny, _VLLM], "egress-allows-dns") == []
    assert found_by([deny, _VLLM], "egress-allows-model-download") != []


def test_an_init_container_fetching_by_name_blocks():
    waiting = copy.deepcopy(_PROXY)
    waiting["spec"]["template"]["spec"]["initContainers"] = [
        {
            "name": "wait-for-model",
            "image": "curlimages/curl:8.8.0",
            "command": ["sh", "-c", "until curl -sf http://vllm-llama3-8b:8000/health; do sleep 5; done"],
        }
    ]
    ((level, message),) = found_by([_TO_VLLM, waiting], "egress-allows-dns")
    assert level == "mandatory"
    assert "init container wait-for-model calls http://vllm-llama3-8b:8000" in message


def test_a_backend_by_service_name_is_advice():
    ((level, message),) = found_by([_TO_VLLM, _PROXY], "egress-allows-dns")
    assert level == "advisory"
    assert "env OPENAI_API_BASE names http://vllm-llama3-8b:8000" in message


def test_unproven_forms_are_advice():
    tcp_only = _with_rule(_INTERNET, {"to": [_KUBE_DNS_PEER], "ports": [{"port": 53}]})  # protocol defaults to TCP
    ((level, message),) = found_by([tcp_only, _VLLM], "egress-allows-dns")
    assert level == "advisory" and "port 53 over TCP only" in message
    labelled = _with_rule(_INTERNET, {"to": [{"namespaceSelector": {"matchLabels": {"name": "kube-system"}}}]})
    assert [lv for lv, _ in found_by([labelled, _VLLM], "egress-allows-dns")] == ["advisory"]
    cilium = {"apiVersion": "cilium.io/v2", "kind": "CiliumNetworkPolicy", "metadata": {"name": "dns", "namespace": _NS}}
    assert [lv for lv, _ in found_by([_INTERNET, cilium, _VLLM], "egress-allows-dns")] == ["advisory"]
    claim = copy.deepcopy(_VLLM)
    claim["spec"]["template"]["spec"]["volumes"] = [{"name": "hf-cache", "persistentVolumeClaim": {"claimName": "c"}}]
    assert [lv for lv, _ in found_by([_INTERNET, claim], "egress-allows-dns")] == ["advisory"]


def test_the_allow_dns_policy_in_its_forms_stays_silent():
    forms = [
        _with_rule(_INTERNET, {"to": [_KUBE_DNS_PEER], "ports": _UDP_TCP_53}),
        _with_rule(_INTERNET, {"to": [_KUBE_DNS_PEER], "ports": [{"protocol": "UDP", "port": 53}]}),
        _with_rule(_INTERNET, {"to": [{"namespaceSelector": {}}], "ports": _UDP_TCP_53}),
        _with_rule(_INTERNET, {"to": [{"ipBlock": {"cidr": "10.96.0.10/32"}}], "ports": _UDP_TCP_53}),
        _with_rule(_INTERNET, {"ports": _UDP_TCP_53}),
        _with_rule(_INTERNET, {"to": [{"namespaceSelector": {}, "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}]}),
        _with_rule(_INTERNET, {"ports": [{"protocol": "UDP", "port": "dns"}]}),
        _with_rule(_INTERNET, {"ports": [{"protocol": "UDP", "port": 1, "endPort": 1024}]}),
        _with_rule(_INTERNET, {}),
    ]
    for form in forms:
        assert found_by([form, _VLLM], "egress-allows-dns") == [], form["spec"]["egress"][-1]
    separate = _allow_dns({"to": [_KUBE_DNS_PEER], "ports": _UDP_TCP_53})
    assert found_by([_INTERNET, separate, _VLLM], "egress-allows-dns") == []
    assert found_by([_TO_VLLM, separate, _PROXY], "egress-allows-dns") == []
    host = copy.deepcopy(_VLLM)
    host["spec"]["template"]["spec"]["hostNetwork"] = True
    assert found_by([_INTERNET, host], "egress-allows-dns") == []
    ingress_only = copy.deepcopy(_INTERNET)
    ingress_only["spec"]["policyTypes"] = ["Ingress"]
    assert found_by([ingress_only, _VLLM], "egress-allows-dns") == []
    offline = copy.deepcopy(_VLLM)
    offline["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": "HF_HUB_OFFLINE", "value": "1"}]
    assert found_by([_INTERNET, offline], "egress-allows-dns") == []


# Review 46b (reproducers /tmp/review46b/g81-*): forms the files cannot prove broken stay silent or advise.


def test_a_namespace_less_allow_dns_policy_makes_it_advice():
    """Item 1: an allow-dns policy with no metadata.namespace, applied per tenant with ``kubectl apply -n`` (the form of
    ARK322/voxeil-panel tenant/networkpolicy-deny-all.yaml, "namespace is set by the controller per tenant")."""
    for namespace in (None, "${NAMESPACE}", "{{ .Release.Namespace }}"):
        floating = _allow_dns({"to": [_KUBE_DNS_PEER], "ports": _UDP_TCP_53})
        if namespace is None:
            del floating["metadata"]["namespace"]
        else:
            floating["metadata"]["namespace"] = namespace
        ((level, message),) = found_by([_INTERNET, floating, _VLLM], "egress-allows-dns")
        assert level == "advisory" and "leaves its namespace out" in message, namespace
    # A placed allow-dns policy of another namespace does not apply: still blocking.
    elsewhere = _allow_dns({"to": [_KUBE_DNS_PEER], "ports": _UDP_TCP_53})
    elsewhere["metadata"]["namespace"] = "other"
    assert [lv for lv, _ in found_by([_INTERNET, elsewhere, _VLLM], "egress-allows-dns")] == ["mandatory"]


def test_dns_pods_on_their_own_port_stay_silent():
    """Item 2: OpenShift's DNS pods listen on 5353 (the dns-default Service maps 53 to it; the HPE CSI driver's
    documented "# OpenShift DNS" policy allows openshift-dns on 5353), Gardener's CoreDNS on 8053; NetworkPolicy
    matches the pod's port."""
    openshift = {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "openshift-dns"}}}
    gardener = {
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
        "podSelector": {"matchExpressions": [{"key": "k8s-app", "operator": "In", "values": ["kube-dns"]}]},
    }
    operator = {
        "namespaceSelector": {},
        "podSelector": {"matchLabels": {"dns.operator.openshift.io/daemonset-dns": "default"}},
    }
    for peer, port in ((openshift, 5353), (gardener, 8053), (operator, 5353)):
        ports = [{"protocol": "UDP", "port": port}, {"protocol": "TCP", "port": port}]
        form = _with_rule(_INTERNET, {"to": [peer], "ports": ports})
        assert found_by([form, _VLLM], "egress-allows-dns") == [], peer
    # A UDP port to pods that are not DNS's is no DNS rule.
    other = _with_rule(
        _INTERNET, {"to": [{"podSelector": {"matchLabels": {"app": "x"}}}], "ports": [{"protocol": "UDP", "port": 5353}]}
    )
    assert [lv for lv, _ in found_by([other, _VLLM], "egress-allows-dns")] == ["mandatory"]


def _with_init(box: dict) -> dict:
    deployment = copy.deepcopy(_PROXY)
    deployment["spec"]["template"]["spec"]["containers"][0]["env"] = [
        {"name": "OPENAI_API_BASE", "value": "http://10.0.0.5:8000/v1"}
    ]
    deployment["spec"]["template"]["spec"]["initContainers"] = [box]
    return deployment


def test_url_text_an_init_container_does_not_fetch_is_advice():
    """Item 3: a busybox init container that writes a config file and echoes a docs link resolves nothing; a native
    sidecar (restartPolicy Always: an OTel collector exporting by name) runs beside the server, not before it."""
    script = (
        "cat > /config/config.yaml <<CFG\nmodel_list:\n- model_name: llama\n"
        "  litellm_params: {model: openai/llama, api_base: http://10.0.0.5:8000/v1}\nCFG\n"
        'echo "docs: https://docs.litellm.ai/docs/proxy/configs"\n'
    )
    render = _with_init({"name": "render-config", "image": "busybox:1.36", "command": ["sh", "-c", script]})
    assert [lv for lv, _ in found_by([_TO_VLLM, render], "egress-allows-dns")] == ["advisory"]
    otel = _with_init(
        {
            "name": "otel",
            "image": "otel/opentelemetry-collector:0.110.0",
            "restartPolicy": "Always",
            "args": ["--config=/conf/otel.yaml", "--set=exporters.otlphttp.endpoint=http://tempo.monitoring:4318"],
        }
    )
    ((level, message),) = found_by([_TO_VLLM, otel], "egress-allows-dns")
    assert level == "advisory" and "sidecar otel calls http://tempo.monitoring:4318" in message
    # A fetch on a continued line still blocks.
    fetch = _with_init(
        {
            "name": "get",
            "image": "curlimages/curl:8.8.0",
            "command": ["sh", "-c", "curl -fL \\\n  https://example.com/m.bin -o /m"],
        }
    )
    assert [lv for lv, _ in found_by([_TO_VLLM, fetch], "egress-allows-dns")] == ["mandatory"]


def test_a_download_through_a_proxy_by_address_is_advice():
    """Item 4: HTTPS_PROXY by IP: the client sends CONNECT huggingface.co:443 and the proxy resolves the name."""
    proxied = copy.deepcopy(_VLLM)
    proxied["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": "HTTPS_PROXY", "value": "http://10.20.0.5:3128"}]
    ((level, message),) = found_by([_INTERNET, proxied], "egress-allows-dns")
    assert level == "advisory" and "HTTPS_PROXY names a proxy by address" in message
    # A proxy by name still needs DNS.
    proxied["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": "HTTPS_PROXY", "value": "http://proxy.corp:3128"}]
    assert [lv for lv, _ in found_by([_INTERNET, proxied], "egress-allows-dns")] == ["mandatory"]


def test_ip_blocks_that_may_hold_pod_ranges_are_advice():
    """Item 6: 100.64.0.0/10 (CGNAT pod ranges) and the 0.0.0.0/1 + 128.0.0.0/1 pair may reach the DNS pods."""
    for cidrs in (["100.64.0.0/10"], ["0.0.0.0/1", "128.0.0.0/1"]):
        form = _with_rule(_INTERNET, {"to": [{"ipBlock": {"cidr": c}} for c in cidrs]})
        assert [lv for lv, _ in found_by([form, _VLLM], "egress-allows-dns")] == ["advisory"], cidrs
    public = _with_rule(_INTERNET, {"to": [{"ipBlock": {"cidr": "8.8.8.0/24"}}]})
    assert [lv for lv, _ in found_by([public, _VLLM], "egress-allows-dns")] == ["mandatory"]


def test_same_named_policies_of_two_namespaces_are_two_findings():
    """Item 7: findings are keyed by (namespace, name)."""
    other_policy, other_vllm = copy.deepcopy(_INTERNET), copy.deepcopy(_VLLM)
    other_policy["metadata"]["namespace"] = other_vllm["metadata"]["namespace"] = "team-b"
    assert len(found_by([_INTERNET, _VLLM, other_policy, other_vllm], "egress-allows-dns")) == 2


def test_g33_reads_a_namespace_less_policy_as_maybe():
    """Item 1 through the shared reader: G33 egress-allows-model-download advises when a namespace-less policy that
    would select the pod allows the internet."""
    deny = copy.deepcopy(_INTERNET)
    deny["metadata"]["name"], deny["spec"]["egress"] = "deny-egress", []
    floating = copy.deepcopy(_INTERNET)
    del floating["metadata"]["namespace"]
    found = found_by([deny, floating, _VLLM], "egress-allows-model-download")
    assert found and all(level == "advisory" for level, _ in found)
    # On the namespace-wide policy, and (session 51) as advice on the server's workload too.
    assert sorted(lv for lv, _ in found_by([deny, _VLLM], "egress-allows-model-download")) == ["advisory", "mandatory"]


# Session 51: spent set 88 amey2025/ollama@26c52f4c7eacd4bbae78893b28b649128a08eea0 network_policy_ollama.yaml allows
# UDP/TCP 53 only to kube-system pods labelled app: kube-dns, while CoreDNS's pods carry k8s-app: kube-dns
# (coredns/deployment coredns-1.14.0 kubernetes/coredns.yaml.sed:89-90; coredns/helm coredns-1.46.2
# charts/coredns/templates/deployment.yaml:44-49 k8s-app, app.kubernetes.io/name, app.kubernetes.io/instance); the Ollama
# server (no model at start) pulls from the Ollama library when a client asks. Labelled G81 on the NetworkPolicy.
_OLLAMA = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "ollama", "namespace": _NS},
    "spec": {
        "selector": {"matchLabels": {"app": "ollama"}},
        "template": {
            "metadata": {"labels": {"app": "ollama"}},
            "spec": {
                "containers": [
                    {"name": "ollama", "image": "ollama/ollama:0.12.6", "ports": [{"containerPort": 11434, "name": "http"}]}
                ]
            },
        },
    },
}


def _ollama_policy(dns_pods: dict) -> dict:
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": "ollama-network-policy", "namespace": _NS},
        "spec": {
            "podSelector": {"matchLabels": {"app": "ollama"}},
            "policyTypes": ["Ingress", "Egress"],
            "egress": [
                {
                    "to": [
                        {
                            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
                            "podSelector": {"matchLabels": dns_pods},
                        }
                    ],
                    "ports": _UDP_TCP_53,
                }
            ],
        },
    }


def test_dns_pods_selected_by_a_label_coredns_does_not_carry_reach_no_dns():
    ((level, message),) = found_by([_ollama_policy({"app": "kube-dns"}), _OLLAMA], "egress-allows-dns")
    assert level == "advisory"  # the pulls happen when a client asks, not at start
    assert "its rule to port 53 selects pods app=kube-dns in kube-system, a label the cluster DNS pods do not carry" in message
    assert "container ollama pulls models from the Ollama library" in message


def test_dns_pods_selected_by_their_own_labels_are_reached():
    # review51a: kubernetes.io/name (the addons' kube-dns Service label) may be on an install's pods: silent too
    for labels in (
        {"k8s-app": "kube-dns"},
        {"k8s-app": "coredns"},
        {"app.kubernetes.io/name": "coredns"},
        {"kubernetes.io/name": "coredns"},
    ):
        assert found_by([_ollama_policy(labels), _OLLAMA], "egress-allows-dns") == [], labels


def test_an_ollama_server_pulling_at_run_time_with_no_https_egress_is_g33_advice():
    # The same set-88 policy: egress to DNS (here the right pods) and nothing outside on 443.
    policy = _ollama_policy({"k8s-app": "kube-dns"})
    ((level, message),) = found_by([policy, _OLLAMA], "egress-allows-model-download")
    assert level == "advisory"
    assert "(container ollama: Ollama, started with no model)" in message
    assert "gets its models from the Ollama library (pulled at run time) when a client asks" in message
    # A rule reaching outside on 443: silent; a client container of Ollama (Open WebUI) is no server: silent.
    internet = _with_rule(policy, {"to": [{"ipBlock": {"cidr": "0.0.0.0/0"}}], "ports": [{"port": 443}]})
    assert found_by([internet, _OLLAMA], "egress-allows-model-download") == []
    assert found_by([policy, _PROXY], "egress-allows-model-download") == []
