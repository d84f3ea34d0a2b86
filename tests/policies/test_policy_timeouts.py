"""S9 timeout-chain-ordered, keep-alive-outlives-proxy, llm-route-timeout-not-default and S10
termination-drains-streams: the rendered chain passes, one mutation per case fails with its message."""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import deployment_props, messages, resource

from components.builders import ingress as ing
from components.builders import vllm_service as vllm
from components.capacity.plan import plan_stack
from components.config import load_stack_config
from policies.timeouts import keep_alive_outlives_proxy, llm_route_timeout, termination_drains_streams, timeout_chain_ordered
from tests.conftest import stack_config

ISVC = "kubernetes:serving.kserve.io/v1beta1:InferenceService"
INGRESS = "kubernetes:networking.k8s.io/v1:Ingress"
VS = "kubernetes:networking.istio.io/v1:VirtualService"
DR = "kubernetes:networking.istio.io/v1:DestinationRule"
HTTPROUTE = "kubernetes:gateway.networking.k8s.io/v1:HTTPRoute"
DEPLOYMENT = "kubernetes:apps/v1:Deployment"


def rendered(stack="prod"):
    """chat-8b's objects as the components render them: ISVC, ALB Ingress, VirtualService, DestinationRule."""
    cfg = load_stack_config(stack_config(stack))
    plans = plan_stack(cfg)
    m = next(m for m in cfg.models if m.name == "chat-8b")
    objs = {
        "isvc": vllm.inference_service(m, plans[m.name], cfg.namespace, m.pool, "hf-token"),
        "alb": ing.alb_ingress(cfg.ingress, [m], {m.name: plans[m.name]}, cfg.namespace, {}),
    }
    if cfg.ingress.routing == "istio":
        objs["vs"] = ing.virtual_service(m, plans, cfg.ingress, cfg.namespace)
        objs["dr"] = ing.destination_rule(m, plans[m.name], cfg.namespace)
    return objs


TYPES = {"isvc": ISVC, "alb": INGRESS, "vs": VS, "dr": DR}


def as_resources(objs):
    return [resource(TYPES[k], copy.deepcopy(v), name=f"{k}-{v['metadata']['name']}") for k, v in objs.items()]


@pytest.fixture
def prod():
    return rendered("prod")


@pytest.fixture
def dev():
    return rendered("dev")


def container(objs):
    return objs["isvc"]["spec"]["predictor"]["containers"][0]


ALL = (
    timeout_chain_ordered.POLICY,
    keep_alive_outlives_proxy.POLICY,
    llm_route_timeout.POLICY,
    termination_drains_streams.POLICY,
)


@pytest.mark.parametrize("policy", ALL, ids=lambda p: p.name)
@pytest.mark.parametrize("stack", ["prod", "dev"])
def test_the_rendered_chain_is_compliant(policy, stack):
    assert messages(policy, *as_resources(rendered(stack))) == []


# --- S9 timeout-chain-ordered -------------------------------------------------------------------


def test_route_timeout_above_the_alb_idle_timeout(prod):
    prod["vs"]["spec"]["http"][0]["timeout"] = "900s"
    assert messages(timeout_chain_ordered.POLICY, *as_resources(prod)) == [
        "spec.http[0] (chat-8b): route timeout 900s is above the idle timeout 615s of ALB Ingress alb-llm, which cuts the request first (504)"
    ]


def test_per_try_timeout_above_the_route_timeout(prod):
    prod["vs"]["spec"]["http"][0]["retries"]["perTryTimeout"] = "400s"
    assert messages(timeout_chain_ordered.POLICY, *as_resources(prod)) == [
        "spec.http[0] (chat-8b): perTryTimeout 400s is above the route timeout 310s"
    ]


def test_route_below_the_kserve_timeout(prod):
    prod["isvc"]["spec"]["predictor"]["timeout"] = 308
    assert messages(timeout_chain_ordered.POLICY, *as_resources(prod)) == [
        "spec.http[0] (chat-8b): perTryTimeout 305s is below isvc-chat-8b's spec.predictor.timeout 308s"
    ]


def test_alb_idle_below_the_longest_request(dev):
    # Our InferenceServices set no spec.predictor.timeout (KServe reads it only for a Gateway API route); a
    # third party's may, and the policy still orders it.
    dev["isvc"]["spec"]["predictor"]["timeout"] = 300
    dev["alb"]["metadata"]["annotations"]["alb.ingress.kubernetes.io/load-balancer-attributes"] = (
        "idle_timeout.timeout_seconds=120"
    )
    found = messages(timeout_chain_ordered.POLICY, *as_resources(dev))
    assert "serves requests up to 300s but ALB Ingress alb-llm (idle_timeout.timeout_seconds=120) cuts them at 120s" in found
    assert "spec.predictor.timeout 300s is above the idle timeout 120s of ALB Ingress alb-llm" in found


def test_deregistration_delay_below_the_longest_request(dev):
    dev["alb"]["metadata"]["annotations"]["alb.ingress.kubernetes.io/target-group-attributes"] = (
        "deregistration_delay.timeout_seconds=30"
    )
    assert messages(timeout_chain_ordered.POLICY, *as_resources(dev)) == [
        "ALB Ingress alb-llm deregistration_delay.timeout_seconds=30 is below the longest request 300s: a draining pod's streams are cut"
    ]


# --- S9 keep-alive-outlives-proxy ---------------------------------------------------------------


def test_keep_alive_below_the_alb_idle_timeout(dev):
    env = container(dev)["env"]
    next(e for e in env if e["name"] == "VLLM_HTTP_TIMEOUT_KEEP_ALIVE")["value"] = "75"
    assert messages(keep_alive_outlives_proxy.POLICY, *as_resources(dev)) == [
        "container kserve-container: VLLM_HTTP_TIMEOUT_KEEP_ALIVE=75 does not outlast ALB Ingress alb-llm idle timeout of 315s: "
        "the proxy reuses connections vLLM has closed (502); set it above 315s"
    ]


def test_keep_alive_unset_behind_a_destination_rule(prod):
    container(prod)["env"] = [e for e in container(prod)["env"] if e["name"] != "VLLM_HTTP_TIMEOUT_KEEP_ALIVE"]
    assert messages(keep_alive_outlives_proxy.POLICY, *as_resources(prod)) == [
        "container kserve-container: VLLM_HTTP_TIMEOUT_KEEP_ALIVE unset (vLLM's 5s) does not outlast DestinationRule dr-chat-8b "
        "connectionPool.http.idleTimeout of 620s: the proxy reuses connections vLLM has closed (502); set it above 620s"
    ]


def test_destination_rule_without_idle_timeout_leaves_envoys_hour(prod):
    del prod["dr"]["spec"]["trafficPolicy"]["connectionPool"]["http"]["idleTimeout"]
    assert messages(keep_alive_outlives_proxy.POLICY, *as_resources(prod)) == [
        "container kserve-container: VLLM_HTTP_TIMEOUT_KEEP_ALIVE=625 does not outlast DestinationRule dr-chat-8b Envoy's default "
        "upstream idle timeout (idleTimeout unset) of 3600s: the proxy reuses connections vLLM has closed (502); set it above 3600s"
    ]


def test_a_bare_deployment_is_held_to_the_assumed_proxy_idle_timeout():
    props = deployment_props()
    props["spec"]["template"]["spec"]["containers"][0]["env"] = []
    found = messages(keep_alive_outlives_proxy.POLICY, resource(DEPLOYMENT, props))
    assert found == [
        "container kserve-container: VLLM_HTTP_TIMEOUT_KEEP_ALIVE unset (vLLM's 5s) does not outlast the assumed idle timeout of "
        "the proxy in front (policy config assumedProxyIdleSeconds; an ALB's default) of 60s: the proxy reuses connections "
        "vLLM has closed (502); set it above 60s"
    ]
    assert messages(keep_alive_outlives_proxy.POLICY, resource(DEPLOYMENT, props), config={"assumedProxyIdleSeconds": 4}) == []


# --- S9 llm-route-timeout-not-default -----------------------------------------------------------


def test_route_left_at_envoys_15_seconds(prod):
    prod["vs"]["spec"]["http"][0]["timeout"] = "15s"
    assert messages(llm_route_timeout.POLICY, *as_resources(prod)) == [
        "spec.http[0] (chat-8b): timeout 15s (Envoy's default) on a route to an LLM (chat-8b-predictor) cuts generations; "
        "set it above the longest request"
    ]


def test_alb_left_at_its_60_second_default(dev):
    del dev["alb"]["metadata"]["annotations"]["alb.ingress.kubernetes.io/load-balancer-attributes"]
    assert messages(llm_route_timeout.POLICY, *as_resources(dev)) == [
        "ALB idle_timeout.timeout_seconds 60 (unset: the ALB's default) in front of an LLM cuts a request that sends no byte "
        "for 60s (a long prefill, a non-streamed reply)"
    ]


def test_httproute_without_a_request_timeout(dev):
    route = {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "HTTPRoute",
        "metadata": {"name": "chat", "namespace": "llm"},
        "spec": {"rules": [{"backendRefs": [{"name": "chat-8b-predictor", "port": 80}]}]},
    }
    found = messages(llm_route_timeout.POLICY, *as_resources(dev), resource(HTTPROUTE, route))
    assert found == [
        "spec.rules[0]: no timeouts.request on a route to an LLM: the gateway's default applies (Envoy Gateway 15s, KServe 60s); "
        "set it above the longest request"
    ]
    route["spec"]["rules"][0]["timeouts"] = {"request": "60s"}
    assert messages(llm_route_timeout.POLICY, *as_resources(dev), resource(HTTPROUTE, route)) == [
        "spec.rules[0]: timeouts.request 60s (a gateway's / the ALB's default) on a route to an LLM cuts generations"
    ]


# --- S10 termination-drains-streams -------------------------------------------------------------


def test_no_pre_stop(dev):
    del container(dev)["lifecycle"]
    found = messages(termination_drains_streams.POLICY, *as_resources(dev))
    assert found[0] == (
        "container kserve-container: no preStop hook: the pod gets SIGTERM while the Service and load balancers "
        "still send it requests; sleep in preStop until they have deregistered it"
    )


def test_grace_below_pre_stop_plus_the_request(dev):
    dev["isvc"]["spec"]["predictor"]["terminationGracePeriodSeconds"] = 30
    assert messages(termination_drains_streams.POLICY, *as_resources(dev)) == [
        "container kserve-container: terminationGracePeriodSeconds 30 < preStop 15s + longest request 300s: streams in flight "
        "are killed on scale-down"
    ]


def test_shutdown_timeout_unset_on_a_release_that_aborts(dev):
    c = container(dev)
    c["args"] = [a for a in c["args"] if not a.startswith("--shutdown-timeout")]
    assert messages(termination_drains_streams.POLICY, *as_resources(dev)) == [
        "container kserve-container: --shutdown-timeout is unset (0 = abort): vLLM aborts in-flight requests on SIGTERM; set "
        "--shutdown-timeout to the longest request (300s)"
    ]


def test_an_old_release_must_sleep_through_the_request(dev):
    c = container(dev)
    c["image"] = "vllm/vllm-openai:v0.12.0"
    c["args"] = [a for a in c["args"] if not a.startswith("--shutdown-timeout")]
    assert messages(termination_drains_streams.POLICY, *as_resources(dev)) == [
        "container kserve-container: this vLLM release cancels requests on SIGTERM (no --shutdown-timeout), so the preStop "
        "sleep 15s must last through the longest request (300s)"
    ]


def test_a_public_deployment_without_drain_settings():
    props = deployment_props()
    pod = props["spec"]["template"]["spec"]
    del pod["terminationGracePeriodSeconds"]
    del pod["containers"][0]["lifecycle"]
    found = messages(termination_drains_streams.POLICY, resource(DEPLOYMENT, props))
    assert (
        "container kserve-container: terminationGracePeriodSeconds 30 < preStop 0s + longest request 300s: streams in "
        "flight are killed on scale-down" in found
    )
    assert len(found) == 2  # the fixture passes --shutdown-timeout


# A LiteLLM proxy config.yaml in a ConfigMap: every model_list route is a route to an LLM. Spent set 28:
# paytm-temp/deepseek-using-vllm-on-eks llm-proxy/litellm-config.yaml@21da7bc92ebd754f091f350396bf7ac7c5447181 sets
# router_settings.timeout 30 with num_retries 3.
def litellm_config_map(router="  num_retries: 3\n  timeout: 30\n", extra=""):
    text = (
        "model_list:\n  - model_name: gpt-3.5-turbo\n    litellm_params:\n      model: local-model\n"
        f'      api_base: "http://localhost:8000/v1"\n{extra}router_settings:\n{router}'
    )
    props = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "litellm-config"}, "data": {"config.yaml": text}}
    return resource("kubernetes:core/v1:ConfigMap", props, name="ConfigMap/litellm-config")


def test_a_litellm_router_timeout_of_30s_is_reported():
    assert messages(llm_route_timeout.POLICY, litellm_config_map()) == [
        "ConfigMap data config.yaml (a LiteLLM proxy config): router_settings.timeout 30s cuts an LLM call that runs "
        "longer (a long generation, a non-streamed reply) and retries replay it; set it above the longest request"
    ]


@pytest.mark.parametrize(
    "router, extra",
    [
        ("  timeout: 600\n", ""),  # the careful form: above the longest request
        ("  routing_strategy: simple-shuffle\n", ""),  # unset: LiteLLM's request_timeout default (6000 s)
        ("  timeout: os.environ/ROUTER_TIMEOUT\n", ""),  # not a figure the files give
        ("  timeout: 900\n", "litellm_settings:\n  request_timeout: 600\n"),
    ],
)
def test_a_litellm_config_with_a_long_or_unset_timeout_passes(router, extra):
    assert messages(llm_route_timeout.POLICY, litellm_config_map(router, extra)) == []


def test_a_config_map_that_is_not_a_litellm_config_is_not_read():
    props = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "c"},
        "data": {"a.yaml": "router_settings:\n  timeout: 5\n"},
    }
    assert messages(llm_route_timeout.POLICY, resource("kubernetes:core/v1:ConfigMap", props, name="ConfigMap/c")) == []
