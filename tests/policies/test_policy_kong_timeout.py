"""S9 llm-route-timeout-not-default on a Kong Ingress: the Kong service an Ingress backend becomes waits 60 s between two
reads unless the Kubernetes Service carries konghq.com/read-timeout (milliseconds): Kong/kubernetes-ingress-controller
v3.5.13 internal/dataplane/translator/subtranslator/ingress.go:371, subtranslator_vars.go:18 (DefaultServiceTimeout
60000), internal/dataplane/kongstate/service.go:119-131, 181.

Fixture: set 39 (spent early this session), drai-inn/kong-vllm-demo @ddda66294b63d595f7653b24cc8f86f068652ee4
kong-ingress-vllm-gptoss-chat-completions.yaml (ingressClassName kong, path /v1/chat/completions to
vllm-gptoss-service:8000, no timeout anywhere) in front of gpt-oss-20b. Silent: the Service with
konghq.com/read-timeout "600000" (Kong's documented form, ten minutes).
"""

from __future__ import annotations

from test_policy_edge_forms import S9, TGI, found, ingress, service

_KONG = ingress("vllm-gptoss-ingress", "tgi-service", 8080, class_name="kong")


def test_a_kong_ingress_left_at_its_60_second_read_timeout_is_advice():
    ((level, message),) = found([_KONG, TGI, service("tgi-service", {"app": "tgi-server"}, 8080)], S9)
    assert level == "advisory"
    assert message.startswith(
        "Kong read timeout (Service annotation konghq.com/read-timeout) 60s (unset on the Service: Kong's default) in "
        "front of an LLM (tgi-service) cuts a request that sends no byte for 60s"
    )


def test_a_long_read_timeout_on_the_service_stays_silent():
    careful = service("tgi-service", {"app": "tgi-server"}, 8080, annotations={"konghq.com/read-timeout": "600000"})
    assert found([_KONG, TGI, careful], S9) == []


def test_a_short_read_timeout_on_the_service_is_named():
    short = service("tgi-service", {"app": "tgi-server"}, 8080, annotations={"konghq.com/read-timeout": "30000"})
    ((_, message),) = found([_KONG, TGI, short], S9)
    assert message.startswith("Kong read timeout (Service annotation konghq.com/read-timeout) 30s in front of an LLM")
