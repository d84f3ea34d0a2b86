"""Behind an API key the edge forwards only what vLLM's key guards: the ALB rules and every VirtualService route
match the release's GUARDED_PREFIX with explicit ``uri`` prefixes (issue 31).

Upstream facts (vLLM wheels read with tools/read_vllm_auth.py; Istio fetched, ``git show 1.30.3:<path>``):
- vllm 0.33.0 ``vllm/entrypoints/serve/middleware/authenticate.py:11`` GUARDED_PREFIX = ("/v1", "/v2", "/inference",
  "/cohere"), ``:59`` ``url_path.startswith(GUARDED_PREFIX)``: every other path answers without the key;
- vllm 0.20.0 ``vllm/entrypoints/openai/server_utils.py:83`` ``url_path.startswith("/v1")``: /v1 alone;
- Istio 1.30.3 ``pilot/pkg/networking/core/listener_builder.go:339-345``: an unset meshConfig.pathNormalization is
  DEFAULT, which turns on Envoy's normalize_path, so ``/v1/../invocations`` is matched (and forwarded) as
  ``/invocations``: a route with a ``/v1`` prefix match never forwards it.
"""

from __future__ import annotations

from components.builders import ingress as build
from components.vllm_auth import EVERY_RELEASE, guarded_prefixes, image_guarded_prefixes, path_guarded, provenance
from tests.builders.test_ingress_builder import long_sibling, stack
from tests.kube_schemas import validate_object

V033 = ["/cohere", "/inference", "/v1", "/v2"]


def test_each_release_guards_what_its_wheel_says():
    assert guarded_prefixes("0.8.5") == ("/v1",)
    assert guarded_prefixes("0.20.0") == ("/v1",)
    assert guarded_prefixes("0.22.0") == ("/v1", "/v2", "/inference")
    assert guarded_prefixes("0.27.0") == ("/v1", "/v2", "/inference", "/cohere")
    assert guarded_prefixes("0.33.0") == ("/v1", "/v2", "/inference", "/cohere")
    assert provenance("0.33.0") == "vllm/entrypoints/serve/middleware/authenticate.py:11 (0.29.0-0.33.0)"


def test_an_unknown_or_newer_release_gets_only_what_every_release_guards():
    assert EVERY_RELEASE == ("/v1",)
    assert image_guarded_prefixes("vllm/vllm-openai:latest") == ("/v1",)
    assert image_guarded_prefixes("vllm/vllm-openai:v0.99.0") == ("/v1",)
    assert image_guarded_prefixes("vllm/vllm-openai:v0.33.0") == ("/v1", "/v2", "/inference", "/cohere")


def test_a_path_is_guarded_when_every_request_under_it_starts_with_a_guarded_prefix():
    # vLLM's check is str.startswith: "/v1" guards "/v1x" as well as "/v1/x".
    assert path_guarded("/v1", ["/v1"]) and path_guarded("/v1/*", ["/v1"]) and path_guarded("/v1/chat", ["/v1"])
    assert not path_guarded("/", ["/v1"]) and not path_guarded("/*", ["/v1"]) and not path_guarded("/v", ["/v1"])
    assert not path_guarded("/invocations", V033) and not path_guarded("/*/v1", ["/v1"])


def test_prod_forwards_the_guarded_prefixes_and_every_route_matches_them():
    cfg, plans, sib = stack()
    ing = build.alb_ingress(cfg.ingress, cfg.models, plans, cfg.namespace, sib, api_key=True)
    assert validate_object(ing) == []
    assert [p["path"] for p in ing["spec"]["rules"][0]["http"]["paths"]] == V033
    for m in cfg.models:
        vs = build.virtual_service(m, plans, cfg.ingress, cfg.namespace, api_key=True)
        assert validate_object(vs) == []
        (route,) = vs["spec"]["http"]
        assert route["match"] == [{"uri": {"prefix": p}} for p in V033]


def test_without_a_key_the_routes_forward_everything():
    cfg, plans, sib = stack()
    vs = build.virtual_service(cfg.models[0], plans, cfg.ingress, cfg.namespace)
    assert "match" not in vs["spec"]["http"][0]
    ing = build.alb_ingress(cfg.ingress, cfg.models, plans, cfg.namespace, sib)
    assert [p["path"] for p in ing["spec"]["rules"][0]["http"]["paths"]] == ["/"]


def test_the_long_context_route_needs_the_header_and_a_guarded_prefix():
    cfg, plans, _ = stack("prod", long_sibling)
    m = next(m for m in cfg.models if m.name == "chat-8b")
    long = next(m for m in cfg.models if m.name == "chat-8b-long")
    vs = build.virtual_service(m, plans, cfg.ingress, cfg.namespace, long, api_key=True)
    assert validate_object(vs) == []
    first, default = vs["spec"]["http"]
    # Conditions of one match are ANDed, the matches ORed (Istio HTTPMatchRequest).
    assert first["match"] == [{"uri": {"prefix": p}, "headers": {"x-llm-context": {"exact": "long"}}} for p in V033]
    assert default["match"] == [{"uri": {"prefix": p}} for p in V033]


def test_an_older_release_is_forwarded_only_its_own_prefix():
    def older(c):
        c["llm-serving:models"][0]["image"] = "vllm/vllm-openai:v0.20.0"

    cfg, plans, sib = stack("dev", older)
    ing = build.alb_ingress(cfg.ingress, cfg.models, plans, cfg.namespace, sib, api_key=True)
    by_host = {r["host"]: [p["path"] for p in r["http"]["paths"]] for r in ing["spec"]["rules"]}
    assert by_host[f"{cfg.models[0].name}.{cfg.ingress.host}"] == ["/v1"]
    vs = build.virtual_service(cfg.models[0], plans, cfg.ingress, cfg.namespace, api_key=True)
    assert vs["spec"]["http"][0]["match"] == [{"uri": {"prefix": "/v1"}}]
