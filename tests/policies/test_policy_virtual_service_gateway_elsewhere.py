"""G32 on an Istio VirtualService bound to a Gateway the files do not hold: possibly public when its hosts name a DNS
name outside the cluster, or when the server behind it asks no key (as a Gateway API route is read).

Firing form: spent set 112 IMOKURI/vllm-lws@a8fe5bef483699524f281f9ce352bc59defb1bdb virtualService.yaml (hosts
vllm-lws.ezua.tf-ai.io on Gateway istio-system/ezaf-gateway, to the LWS leader's Service; vLLM started without
--api-key; label G32 missed). Careful forms: cluster-internal hosts in front of a server that asks a key, the mesh
gateway, and a keyed server behind a public host (guarded by its key, so no finding).
"""

from __future__ import annotations

from test_policy_public_model_endpoint import found, service, vllm

from policies.reading.external_hosts import external_host, external_hosts_phrase


def virtual_service(hosts, gateway="istio-system/ezaf-gateway"):
    route = {"destination": {"host": "vllm-service.vllm.svc.cluster.local", "port": {"number": 80}}}
    return {
        "apiVersion": "networking.istio.io/v1",
        "kind": "VirtualService",
        "metadata": {"name": "vllm-lws", "namespace": "vllm"},
        "spec": {"gateways": [gateway], "hosts": hosts, "http": [{"match": [{"uri": {"prefix": "/"}}], "route": [route]}]},
    }


def test_external_host_makes_the_route_possibly_public():
    objs = [virtual_service(["vllm-lws.ezua.tf-ai.io"]), vllm(), service("vllm-service", "vllm")]
    ((level, message),) = found(objs)
    assert level == "advisory"
    assert "its hosts name DNS names outside the cluster: vllm-lws.ezua.tf-ai.io" in message


def test_keyless_server_behind_an_unknown_gateway_is_advice_whatever_the_host():
    objs = [virtual_service(["vllm.vllm.svc.cluster.local"]), vllm(), service("vllm-service", "vllm")]
    ((level, message),) = found(objs)
    assert level == "advisory" and "its Gateway istio-system/ezaf-gateway is not in these files" in message


def test_careful_forms_are_silent():
    keyed = vllm(
        args=["--api-key", "$(VLLM_API_KEY)"],
        env=[{"name": "VLLM_API_KEY", "valueFrom": {"secretKeyRef": {"name": "k", "key": "k"}}}],
    )
    for hosts in (["vllm.internal"], ["vllm.home.arpa"], ["vllm"], ["10.0.0.5"], ["vllm.vllm.svc.cluster.local"]):
        assert found([virtual_service(hosts), keyed, service("vllm-service", "vllm")]) == [], hosts
    assert found([virtual_service(["vllm.example.org"], gateway="mesh"), vllm(), service("vllm-service", "vllm")]) == []
    assert found([virtual_service(["llm.acme.io"]), keyed, service("vllm-service", "vllm")]) == []  # its key guards it


def test_external_host_reading():
    assert external_host("vllm-lws.ezua.tf-ai.io") and external_host("*.models.acme.com") and external_host("api.acme.ai.")
    for host in ("vllm", "vllm.local", "a.b.svc", "x.svc.cluster.local", "10.1.2.3", "*", "a.internal", "a.lan", "", None, 7):
        assert not external_host(host), host
    assert not external_host("a" * 300 + ".com")
    assert external_hosts_phrase({"spec": {"hostnames": ["chat.acme.com", "x.local"]}}).endswith("chat.acme.com")
    assert external_hosts_phrase({"spec": "x"}) == "" and external_hosts_phrase({"spec": {"hosts": "a.com"}}) == ""
