"""S9 (defaults): a route to an LLM left at Envoy's 15 s or a gateway's 60 s cuts generations.

Envoy's route timeout defaults to 15 s, which Envoy Gateway keeps; KServe's HTTPRoute defaults
to 60 s; an ALB's idle timeout defaults to 60 s (Envoy RouteAction docs; kserve/kserve v0.20.0; ELBv2 API). A
streamed generation runs minutes. Istio is the exception: an unset VirtualService timeout
disables Envoy's (no timeout), which timeout-chain-ordered then relates to the ALB.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.reading import route_path as path
from policies.reading.vllm_args import vllm_servers


def _named(seconds: float) -> str:
    if seconds == path.ENVOY_ROUTE_DEFAULT:
        return " (Envoy's default)"
    if seconds == path.KSERVE_HTTPROUTE_DEFAULT:
        return " (a gateway's / the ALB's default)"
    return ""


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    minimum = float(config["minimumSeconds"])
    selectors = path.service_selectors(resources)
    llm = set()
    for w in resources:
        if vllm_servers(w):
            llm |= path.workload_services(w, selectors)
    findings = []
    for r in resources:
        if r.type in path.VS_TYPES:
            for route in path.vs_routes(r):
                if set(route.services) & llm and route.timeout is not None and route.timeout <= minimum:
                    findings.append(
                        (
                            r.name,
                            f"{route.label}: timeout {path.fmt(route.timeout)}{_named(route.timeout)} on a route to "
                            f"an LLM ({', '.join(sorted(set(route.services) & llm))}) cuts generations; set it "
                            f"above the longest request",
                        )
                    )
        elif r.type in path.HTTPROUTE_TYPES:
            for route in path.httproute_routes(r):
                if not set(route.services) & llm and not route.inference_pools:
                    continue
                if route.timeout is None:
                    findings.append(
                        (
                            r.name,
                            f"{route.label}: no timeouts.request on a route to an LLM"
                            f"{' (InferencePool ' + ', '.join(route.inference_pools) + ')' if route.inference_pools else ''}: "
                            f"the gateway's default "
                            f"applies (Envoy Gateway {path.ENVOY_ROUTE_DEFAULT}s, KServe {path.KSERVE_HTTPROUTE_DEFAULT}s); "
                            f"set it above the longest request",
                        )
                    )
                elif route.timeout <= minimum:
                    findings.append(
                        (
                            r.name,
                            f"{route.label}: timeouts.request {path.fmt(route.timeout)}{_named(route.timeout)} on a "
                            f"route to an LLM cuts generations",
                        )
                    )
        elif path.is_alb_ingress(r) and set(path.ingress_backends(r)) & llm:
            idle, explicit = path.alb_idle_seconds(r)
            if idle <= minimum:
                state = "" if explicit else " (unset: the ALB's default)"
                findings.append(
                    (
                        r.name,
                        f"ALB idle_timeout.timeout_seconds {path.fmt(idle)[:-1]}{state} in front of an LLM cuts a "
                        f"request that sends no byte for {path.fmt(idle)} (a long prefill, a non-streamed reply)",
                    )
                )
    return findings


POLICY = Policy(
    name="llm-route-timeout-not-default",
    description="A route or ALB in front of an LLM must not be left at Envoy's 15 s or a gateway's / ALB's 60 s default timeout.",
    catalog="S9",
    severity="high",
    # A companion of S9's row (timeout-chain-ordered is the row's mandatory policy): the pack's rule
    # makes companions advisory; raise it with the pack config {"<name>": "mandatory"}.
    enforcement="advisory",
    remediation_steps=(
        "Set the VirtualService http[].timeout, the HTTPRoute rules[].timeouts.request and the ALB's "
        "idle_timeout.timeout_seconds from the model's longest request (components/timeouts.py)."
    ),
    config_schema={
        "minimumSeconds": {
            "type": "number",
            "minimum": 0,
            "default": 60,
            "description": "Route timeouts at or below this many seconds are refused on LLM routes; default 60 (a gateway's and the ALB's default).",
        },
    },
    check_stack=_check,
    rationale="Envoy route timeout default 15 s; KServe HTTPRoute and ALB idle default 60 s (Envoy RouteAction docs; kserve/kserve v0.20.0; ELBv2 API).",
)
