"""S9 (keep-alive inversion): vLLM must keep an idle connection open longer than the proxy in front of it.

A proxy reuses its pooled connections until its own idle timeout; when the server closes one
first, the proxy's next request on it is reset and the client sees a 502. vLLM's keep-alive is
5 s (VLLM_HTTP_TIMEOUT_KEEP_ALIVE, vllm-project/vllm v0.33.0 section 4); the ALB keeps idle connections 60 s by
default, Envoy 1 h (DestinationRule connectionPool.http.idleTimeout unset). AWS: "configure the
idle timeout of your application to be larger than the idle timeout configured for the load
balancer" (aws-load-balancer-controller v3.5.0 docs/guide/ingress/annotations.md and the ELBv2 API).
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.reading import route_path as path
from policies.reading.vllm_args import runs_worker_module, vllm_servers


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    assumed = float(config["assumedProxyIdleSeconds"])
    selectors = path.service_selectors(resources)
    albs = [r for r in resources if path.is_alb_ingress(r)]
    drs = [r for r in resources if r.type in path.DR_TYPES]
    routed = {s for r in resources if r.type in path.VS_TYPES for route in path.vs_routes(r) for s in route.services}
    findings = []
    for w in resources:
        # A worker behind another program's frontend (Dynamo's dynamo.vllm) runs no HTTP server of its own.
        servers = [s for s in vllm_servers(w) if not runs_worker_module(s.container)]
        if not servers:
            continue
        services = path.workload_services(w, selectors)
        fronts: list[tuple[str, float]] = []
        for alb in albs:
            if set(path.ingress_backends(alb)) & services:
                fronts.append((f"ALB Ingress {alb.name} idle timeout", path.alb_idle_seconds(alb)[0]))
        dr_services = set()
        for dr in drs:
            service, idle, explicit = path.dr_upstream_idle(dr)
            if service in services:
                dr_services.add(service)
                what = (
                    "connectionPool.http.idleTimeout" if explicit else "Envoy's default upstream idle timeout (idleTimeout unset)"
                )
                fronts.append((f"DestinationRule {dr.name} {what}", idle))
        if (routed & services) - dr_services:
            fronts.append(
                (
                    "Envoy's default upstream idle timeout (no DestinationRule sets idleTimeout)",
                    float(path.ENVOY_UPSTREAM_IDLE_DEFAULT),
                )
            )
        if not fronts:
            fronts.append(
                (
                    "the assumed idle timeout of the proxy in front (policy config assumedProxyIdleSeconds; an ALB's default)",
                    assumed,
                )
            )
        for server in servers:
            keep, explicit = path.keep_alive_seconds(server.container)
            shown = (
                f"{path.KEEP_ALIVE_ENV}={path.fmt(keep)[:-1]}"
                if explicit
                else f"{path.KEEP_ALIVE_ENV} unset (vLLM's {path.fmt(keep)})"
            )
            for what, idle in fronts:
                if keep <= idle:
                    findings.append(
                        (
                            w.name,
                            f"{server.label}: {shown} does not outlast {what} of {path.fmt(idle)}: the proxy "
                            f"reuses connections vLLM has closed (502); set it above {path.fmt(idle)}",
                        )
                    )
    return findings


POLICY = Policy(
    name="keep-alive-outlives-proxy",
    description="vLLM's HTTP keep-alive (VLLM_HTTP_TIMEOUT_KEEP_ALIVE) must be longer than the idle timeout of every proxy in front of it.",
    catalog="S9",
    severity="high",
    # A companion of S9's row (timeout-chain-ordered is the row's mandatory policy): the pack's rule
    # makes companions advisory; raise it with the pack config {"<name>": "mandatory"}.
    enforcement="advisory",
    remediation_steps=(
        "Set VLLM_HTTP_TIMEOUT_KEEP_ALIVE on the vLLM container above the ALB's idle_timeout.timeout_seconds and above "
        "the DestinationRule's connectionPool.http.idleTimeout (set one: Envoy's default is 1 h); components/timeouts.py "
        "derives both."
    ),
    config_schema={
        "assumedProxyIdleSeconds": {
            "type": "number",
            "minimum": 0,
            "default": 60,
            "description": (
                "Idle timeout assumed for the proxy in front of a vLLM server when the manifests show none; "
                "default 60 (an ALB's default idle timeout)."
            ),
        },
    },
    check_stack=_check,
    rationale=(
        "AWS ALB docs: the application's keep-alive must exceed the load balancer's idle timeout, else HTTP 502; vLLM "
        "keeps idle connections 5 s by default (vllm-project/vllm v0.33.0 vllm/envs.py VLLM_HTTP_TIMEOUT_KEEP_ALIVE)."
    ),
)
