"""G62 read from both ends (brief netpol49): NetworkPolicies that cut the serving path.

- caller-egress-reaches-service (G62, mandatory): a client pod isolated for Egress (a namespace-wide allow-DNS policy with
  ``podSelector: {}`` and policyTypes Egress makes every pod isolated) whose egress rules admit nothing to the pods of
  the Service its env URL names, on the port the Service forwards to. The form of Envision-Construction/Open-OS
  k8s/network-policies.yaml, k8s/services.yaml, k8s/open-webui-deployment.yaml and k8s/dlp-proxy-deployment.yaml
  @3107d69b4ec252da595fa3788c46f1ae5554460f (spent set 67): allow-dns-egress and an HTTPS/HTTP-only egress policy, while
  Open WebUI calls http://dlp-proxy:8080/v1. Kubernetes: a pod isolated for egress opens only what some egress rule
  allows (kubernetes/api networking/v1/types.go:82-87@v0.34.0), rules name the pod's port (:160-161).
- ingress-controller-admitted (G62, advice) for callers from outside the cluster: a LoadBalancer/NodePort Service whose
  pods admit only pod and namespace peers (Josh-Archer/swe-agent k8s/networkpolicy.yaml and k8s/service.yaml
  @83f04a51a9a95a63f1d31cf89349ebfe328b40f1, spent set 67), and an Ingress of an in-cluster controller whose backend
  pods admit only a narrow address block (jakepage91/operating-llms-on-kubernetes kubernetes/network-policies.yaml
  @1a140d0fccab698c73f71dec8cd9e66575b12156 with kubernetes/open-webui-ingress.yaml@fcf2a878c871081d0fc1d745c9f47ad9841a3033,
  spent set 68: ipBlock 192.168.1.0/24 behind Traefik).
"""

from __future__ import annotations

import copy
import json

from policy_fixtures import found_by, network_policy

from policies.check import main

EGRESS = "caller-egress-reaches-service"
G62 = "ingress-controller-admitted"
NS = "open-os"


def _netpol(name: str, selector: dict, types: list, ingress: list | None = None, egress: list | None = None) -> dict:
    return network_policy(name, NS, selector, types, ingress, egress)


def _deployment(name: str, container: dict) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": NS},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
        },
    }


def _service(name: str, port: int, target: object, kind: str = "ClusterIP") -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": NS},
        "spec": {"type": kind, "selector": {"app": name}, "ports": [{"port": port, "targetPort": target}]},
    }


DNS = _netpol(
    "allow-dns-egress",
    {},
    ["Egress"],
    egress=[{"to": [], "ports": [{"port": 53, "protocol": "UDP"}, {"port": 53, "protocol": "TCP"}]}],
)
HTTPS_OUT = _netpol(
    "allow-external-https-egress",
    {"matchExpressions": [{"key": "app", "operator": "In", "values": ["dlp-proxy", "open-webui"]}]},
    ["Egress"],
    egress=[{"ports": [{"port": 443, "protocol": "TCP"}, {"port": 80, "protocol": "TCP"}]}],
)
WEBUI = _deployment(
    "open-webui",
    {
        "name": "open-webui",
        "image": "ghcr.io/open-webui/open-webui:v0.6.18",
        "ports": [{"containerPort": 8080, "name": "http"}],
        "env": [
            {"name": "OPENAI_API_BASE_URL", "value": "http://dlp-proxy:8080/v1"},
            {"name": "WEBUI_URL", "value": "https://os.example.com"},
        ],
    },
)
PROXY = _deployment(
    "dlp-proxy",
    {"name": "dlp-proxy", "image": "example/dlp-proxy:1.0", "ports": [{"containerPort": 8080, "name": "http"}]},
)
PROXY_SERVICE = _service("dlp-proxy", 8080, "http")
OPEN_OS = [DNS, HTTPS_OUT, WEBUI, PROXY, PROXY_SERVICE]


def test_dns_and_https_only_egress_drops_the_call_to_a_service_of_the_files():
    found = found_by(OPEN_OS, EGRESS)
    assert len(found) == 1
    level, message = found[0]
    assert level == "mandatory"
    assert message.startswith(
        "Deployment/open-webui calls Service dlp-proxy (OPENAI_API_BASE_URL=http://dlp-proxy:8080), but its pods are "
        "isolated for Egress by "
        "NetworkPolicy allow-dns-egress, allow-external-https-egress and no egress rule of those policies reaches the "
        "pods of Deployment/dlp-proxy on port 8080"
    )


def test_an_egress_rule_to_the_pods_on_the_port_is_silent():
    to_proxy = _netpol(
        "webui-to-proxy",
        {"matchLabels": {"app": "open-webui"}},
        ["Egress"],
        egress=[{"to": [{"podSelector": {"matchLabels": {"app": "dlp-proxy"}}}], "ports": [{"port": "http"}]}],
    )
    assert found_by([*OPEN_OS, to_proxy], EGRESS) == []
    # every destination on that port, a namespaceSelector on labels the files cannot check, an ipBlock: silent
    for peers in ([], [{"namespaceSelector": {"matchLabels": {"team": "ai"}}}], [{"ipBlock": {"cidr": "10.0.0.0/8"}}]):
        rule = copy.deepcopy(to_proxy)
        rule["spec"]["egress"][0]["to"] = peers
        assert found_by([*OPEN_OS, rule], EGRESS) == []
    # a Service port and a target port that differ: the rule names the pod's port
    wrong = copy.deepcopy(to_proxy)
    wrong["spec"]["egress"][0]["ports"] = [{"port": 9090}]
    # one problem, reported on each policy that names the caller's pods (webui-to-proxy and the HTTPS one)
    assert len(set(found_by([*OPEN_OS, wrong], EGRESS))) == 1


def test_what_the_files_cannot_prove_is_advice_or_silent():
    # no policy isolates the caller for Egress: silent
    assert found_by([HTTPS_OUT, WEBUI, PROXY, PROXY_SERVICE][1:], EGRESS) == []
    # the Service is not among the files: silent (in-cluster-url-resolves' business)
    assert found_by([DNS, HTTPS_OUT, WEBUI, PROXY], EGRESS) == []
    # a Cilium policy of the files may allow it: advice
    cilium = {"apiVersion": "cilium.io/v2", "kind": "CiliumNetworkPolicy", "metadata": {"name": "x", "namespace": NS}, "spec": {}}
    assert [level for level, _ in found_by([*OPEN_OS, cilium], EGRESS)] == ["advisory"]
    # the URL comes from a ConfigMap: advice
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "cfg", "namespace": NS},
        "data": {"BASE": "http://dlp-proxy:8080"},
    }
    webui = copy.deepcopy(WEBUI)
    container = webui["spec"]["template"]["spec"]["containers"][0]
    container["env"] = [{"name": "OPENAI_API_BASE_URL", "valueFrom": {"configMapKeyRef": {"name": "cfg", "key": "BASE"}}}]
    assert [level for level, _ in found_by([DNS, HTTPS_OUT, webui, PROXY, PROXY_SERVICE, config], EGRESS)] == ["advisory"]
    # a proxy variable: advice
    proxied = copy.deepcopy(WEBUI)
    proxied["spec"]["template"]["spec"]["containers"][0]["env"].append({"name": "HTTP_PROXY", "value": "http://squid:3128"})
    assert [level for level, _ in found_by([DNS, HTTPS_OUT, proxied, PROXY, PROXY_SERVICE], EGRESS)] == ["advisory"]
    # a caller on the host network is not isolated
    host = copy.deepcopy(WEBUI)
    host["spec"]["template"]["spec"]["hostNetwork"] = True
    assert found_by([DNS, HTTPS_OUT, host, PROXY, PROXY_SERVICE], EGRESS) == []
    # a compared URL (WEBUI_URL) is not a call
    assert all("WEBUI_URL" not in m for _, m in found_by(OPEN_OS, EGRESS))


# --- callers from outside the cluster (advice) -----------------------------------------------------------------------

AGENT = _deployment("ai-agent", {"name": "agent", "image": "example/agent:1.0", "ports": [{"containerPort": 8000}]})
AGENT_LB = _service("ai-agent", 80, 8000, kind="LoadBalancer")
AGENT_POLICY = _netpol(
    "ai-agent-network-policy",
    {"matchLabels": {"app": "ai-agent"}},
    ["Ingress"],
    ingress=[{"from": [{"podSelector": {}}], "ports": [{"protocol": "TCP", "port": 8000}]}],
)


def _outside(objs: list[dict]) -> list[tuple[str, str]]:
    return [(level, m) for level, m in found_by(objs, G62) if "behind" in m]


def test_a_load_balancer_whose_pods_admit_only_pods_gets_advice():
    found = _outside([AGENT, AGENT_LB, AGENT_POLICY])
    assert [level for level, _ in found] == ["advisory"]
    assert found[0][1].startswith(
        "isolates the pods of Deployment/ai-agent (behind LoadBalancer Service ai-agent) for Ingress, and the ingress "
        "rules of the policies selecting them admit on port 8000 only pods and namespaces"
    )
    node_port = copy.deepcopy(AGENT_LB)
    node_port["spec"]["type"] = "NodePort"
    assert len(_outside([AGENT, node_port, AGENT_POLICY])) == 1


def test_outside_clients_admitted_or_not_taken_are_silent():
    cluster_ip = copy.deepcopy(AGENT_LB)
    cluster_ip["spec"]["type"] = "ClusterIP"
    assert _outside([AGENT, cluster_ip, AGENT_POLICY]) == []
    for peers in ([{"ipBlock": {"cidr": "0.0.0.0/0"}}], [{"ipBlock": {"cidr": "35.191.0.0/16"}}, {"podSelector": {}}]):
        policy = copy.deepcopy(AGENT_POLICY)
        policy["spec"]["ingress"][0]["from"] = peers
        assert _outside([AGENT, AGENT_LB, policy]) == []
    every = copy.deepcopy(AGENT_POLICY)
    del every["spec"]["ingress"][0]["from"]
    assert _outside([AGENT, AGENT_LB, every]) == []


WEBUI_SERVICE = _service("open-webui", 8080, "http")
WEBUI_POLICY = _netpol(
    "open-webui-policy",
    {"matchLabels": {"app": "open-webui"}},
    ["Ingress", "Egress"],
    ingress=[{"from": [{"ipBlock": {"cidr": "192.168.1.0/24"}}], "ports": [{"protocol": "TCP", "port": 8080}]}],
    egress=[],
)


def _ingress(cls: str, annotation: bool = True) -> dict:
    meta: dict = {"name": "open-webui", "namespace": NS}
    spec: dict = {
        "rules": [
            {
                "http": {
                    "paths": [
                        {
                            "path": "/",
                            "pathType": "Prefix",
                            "backend": {"service": {"name": "open-webui", "port": {"number": 8080}}},
                        }
                    ]
                }
            }
        ]
    }
    if annotation:
        meta["annotations"] = {"kubernetes.io/ingress.class": cls}
    else:
        spec["ingressClassName"] = cls
    return {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": meta, "spec": spec}


def test_an_in_cluster_controller_outside_a_narrow_address_block_gets_advice():
    found = _outside([WEBUI, WEBUI_SERVICE, WEBUI_POLICY, _ingress("traefik")])
    assert [level for level, _ in found] == ["advisory"]
    assert "admit on port 8080 only the address blocks 192.168.1.0/24" in found[0][1]
    assert len(_outside([WEBUI, WEBUI_SERVICE, WEBUI_POLICY, _ingress("nginx", annotation=False)])) == 1


def test_the_controller_admitted_or_a_cloud_balancer_is_silent():
    # a cloud load balancer's class connects from its own ranges (GCE: 35.191.0.0/16, 130.211.0.0/22)
    gce = copy.deepcopy(WEBUI_POLICY)
    gce["spec"]["ingress"][0]["from"] = [{"ipBlock": {"cidr": "130.211.0.0/22"}}]
    assert _outside([WEBUI, WEBUI_SERVICE, gce, _ingress("gce")]) == []
    for peers in (
        [{"ipBlock": {"cidr": "0.0.0.0/0"}}],
        [{"ipBlock": {"cidr": "10.42.0.0/16"}}],
        [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}}}],
        [{"ipBlock": {"cidr": "192.168.1.0/24"}}, {"namespaceSelector": {}}],
    ):
        policy = copy.deepcopy(WEBUI_POLICY)
        policy["spec"]["ingress"][0]["from"] = peers
        assert _outside([WEBUI, WEBUI_SERVICE, policy, _ingress("traefik")]) == [], peers
    # no Ingress routes to it: silent
    assert _outside([WEBUI, WEBUI_SERVICE, WEBUI_POLICY]) == []


# --- a Kustomize overlay that changes the caller's egress policy (review 49b item 3) -----------------------------------

KUSTOMIZE_BASE = """apiVersion: apps/v1
kind: Deployment
metadata: {name: ollama, namespace: llm}
spec:
  selector: {matchLabels: {app: ollama}}
  template:
    metadata: {labels: {app: ollama}}
    spec:
      containers:
      - {name: ollama, image: ollama/ollama:0.5.7, ports: [{name: http, containerPort: 11434}]}
---
apiVersion: v1
kind: Service
metadata: {name: ollama, namespace: llm}
spec:
  selector: {app: ollama}
  ports: [{port: 80, targetPort: http}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: webui, namespace: llm}
spec:
  selector: {matchLabels: {app: webui}}
  template:
    metadata: {labels: {app: webui}}
    spec:
      containers:
      - name: webui
        image: ghcr.io/open-webui/open-webui:v0.5.20
        env: [{name: OLLAMA_BASE_URL, value: "http://ollama.llm.svc.cluster.local:80"}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: default-deny, namespace: llm}
spec:
  podSelector: {}
  policyTypes: [Ingress, Egress]
  egress:
  - to: [{namespaceSelector: {}, podSelector: {matchLabels: {k8s-app: kube-dns}}}]
    ports: [{port: 53, protocol: UDP}]
"""
TO_OLLAMA = """  - to: [{podSelector: {matchLabels: {app: ollama}}}]
    ports: [{port: 11434}]
"""
DENY_PATCH = (
    "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: default-deny, namespace: llm}\nspec:\n"
    "  egress:\n  - to: [{namespaceSelector: {}, podSelector: {matchLabels: {k8s-app: kube-dns}}}]\n"
    "    ports: [{port: 53, protocol: UDP}]\n" + TO_OLLAMA
)
ALLOW_POLICY = (
    "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: webui-egress, namespace: llm}\nspec:\n"
    "  podSelector: {matchLabels: {app: webui}}\n  policyTypes: [Egress]\n  egress:\n" + TO_OLLAMA
)


def _tree(root, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _egress_levels(root, capsys) -> list[tuple[str, bool]]:
    main([str(root), "--format", "json"])
    rows = json.loads(capsys.readouterr().out)["violations"]
    return [(r["enforcement"], bool(r.get("built"))) for r in rows if r["policy"] == EGRESS]


def test_a_base_deny_policy_an_overlay_patches_is_advice(tmp_path, capsys):
    # Review 49b's /work/r49b/g62p: the overlay's strategic-merge patch of default-deny adds the egress rule to the
    # ollama pods; the base alone is never applied, so its finding is advice and the built overlay is silent.
    _tree(
        tmp_path,
        {
            "base/all.yaml": KUSTOMIZE_BASE,
            "base/kustomization.yaml": "resources: [all.yaml]\n",
            "overlays/prod/kustomization.yaml": "resources: [../../base]\npatches: [{path: patch.yaml}]\n",
            "overlays/prod/patch.yaml": DENY_PATCH,
        },
    )
    assert _egress_levels(tmp_path, capsys) == [("advisory", False)]
    # A JSON 6902 patch naming the policy in `target` marks it the same way.
    (tmp_path / "overlays" / "prod" / "patch.yaml").unlink()
    (tmp_path / "overlays" / "prod" / "kustomization.yaml").write_text(
        "resources: [../../base]\npatches:\n- target: {kind: NetworkPolicy, name: default-deny}\n"
        "  patch: |-\n    - op: add\n      path: /spec/egress/-\n"
        "      value: {to: [{podSelector: {matchLabels: {app: ollama}}}], ports: [{port: 11434}]}\n"
    )
    assert [level for level, built in _egress_levels(tmp_path, capsys) if not built] == ["advisory"]
    # Careful form: the same base with no overlay changing the policy is applied as written, and the call is dropped.
    (tmp_path / "overlays" / "prod" / "kustomization.yaml").write_text("resources: [../../base]\n")
    assert _egress_levels(tmp_path, capsys) == [("mandatory", False)]


def test_an_overlay_adding_a_separate_allow_policy_is_silent(tmp_path, capsys):
    # Review 49b's /work/r49b/g62k: the overlay lists an allow policy of its own beside the base.
    _tree(
        tmp_path,
        {
            "base/all.yaml": KUSTOMIZE_BASE,
            "base/kustomization.yaml": "resources: [all.yaml]\n",
            "overlays/prod/kustomization.yaml": "resources: [../../base, allow.yaml]\n",
            "overlays/prod/allow.yaml": ALLOW_POLICY,
        },
    )
    assert _egress_levels(tmp_path, capsys) == []


def test_the_caller_hears_it_on_its_own_workload_as_advice():
    """Session 51 (caller-egress-calls-fail): spent set 67 labelled the dlp-proxy and open-webui Deployments, not the
    policies that isolate them; the same finding is said on the caller as advice, and nothing when the call is admitted."""
    on_policies = found_by(OPEN_OS, EGRESS)
    ((level, message),) = found_by(OPEN_OS, "caller-egress-calls-fail")
    assert level == "advisory" and message.startswith("Deployment/open-webui calls Service dlp-proxy")
    assert message in {text for _, text in on_policies}
    admitted = copy.deepcopy(HTTPS_OUT)
    admitted["spec"]["egress"].append({"to": [{"podSelector": {}}]})
    assert found_by([DNS, admitted, WEBUI, PROXY, PROXY_SERVICE], "caller-egress-calls-fail") == []
