"""The timeout chain: one model of every timeout, keep-alive and drain number on the request path.

A request goes client -> ALB -> (Istio ingress gateway, Envoy) -> vLLM pod. A 504 or a cut stream
comes from two layers that disagree, so every number of every layer is derived here, once, from
the model's SLO, and every builder (ALB Ingress annotations, VirtualService, DestinationRule,
InferenceService, the pod's drain) reads it from a :class:`TimeoutChain`.

Three invariants hold for every chain this module returns (``chain_problems`` checks them, and
the property tests in tests/timeouts/ check them over every valid input):

* request timeouts shrink going inward: ALB idle > route > per-try > longest request. There is no
  KServe layer: in Standard mode KServe reads ``spec.predictor.timeout`` only when it builds a Gateway
  API HTTPRoute (kserve v0.20.0 pkg/controller/v1beta1/inferenceservice/reconcilers/ingress/
  httproute_reconciler.go), and this stack routes through the ALB and Istio, so nothing would enforce it;
* keep-alives grow going inward: the server behind a proxy keeps an idle connection open longer
  than the proxy in front of it does (ALB -> gateway, ALB -> vLLM, Envoy -> vLLM). AWS: "configure
  the idle timeout of your application to be larger than the idle timeout configured for the load
  balancer", else HTTP 502 (aws-load-balancer-controller v3.5.0 docs/guide/ingress/annotations.md and the ELBv2 API, AWS Load Balancer Controller section);
* the drain covers the longest request: the ALB keeps a draining target for the request, the pod
  stops taking traffic before vLLM is signalled, vLLM finishes in-flight requests, and
  terminationGracePeriodSeconds >= preStop + the longest request.

Facts used (kubernetes-sigs/aws-load-balancer-controller v3.5.0 docs/guide/ingress/annotations.md and the
ELBv2 API's LoadBalancerAttribute / TargetGroupAttribute texts; Envoy's RouteAction docs; istio/istio 1.30.3),
unless said otherwise: ALB idle_timeout.timeout_seconds
1-4000 s (default 60); target group deregistration_delay.timeout_seconds 0-3600 s (default 300);
Envoy's route timeout default 15 s, which Istio replaces by "no timeout"; Istio sets Envoy's stream
idle timeout to 0 (off) on every connection manager it builds; Envoy's connection idle timeout
default 1 h; vLLM's keep-alive (VLLM_HTTP_TIMEOUT_KEEP_ALIVE) 5 s and its engine-ready timeout
(VLLM_ENGINE_READY_TIMEOUT_S) 600 s (vllm-project/vllm v0.33.0 section 4). vLLM releases with ``--shutdown-timeout``
abort in-flight requests on SIGTERM unless it is > 0 ("0 = abort, >0 = wait", vllm 0.33.0
engine/arg_utils.py and config/vllm.py); releases before it cancel the HTTP server on SIGTERM
(vllm 0.12.0 entrypoints/launcher.py signal_handler), so there the preStop sleep carries the drain.

This module is pure: no Pulumi, no config models.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# AWS ELBv2 limits (aws-load-balancer-controller v3.5.0 docs/guide/ingress/annotations.md and the ELBv2 API, "AWS Load Balancer Controller").
ALB_IDLE_TIMEOUT_MIN = 1
ALB_IDLE_TIMEOUT_MAX = 4000
ALB_IDLE_TIMEOUT_DEFAULT = 60
DEREGISTRATION_DELAY_MAX = 3600
# Defaults a chain must beat or replace.
ENVOY_ROUTE_TIMEOUT_DEFAULT = 15  # Envoy RouteAction.timeout; Envoy Gateway's HTTPRequestTimeout too
GATEWAY_ROUTE_TIMEOUT_DEFAULT = 60  # KServe's HTTPRoute DefaultTimeout (kserve/kserve v0.20.0, Timeouts)
ENVOY_IDLE_TIMEOUT_DEFAULT = (
    3600  # Envoy HCM idle_timeout (aws-load-balancer-controller v3.5.0 docs/guide/ingress/annotations.md and the ELBv2 API)
)
VLLM_KEEP_ALIVE_DEFAULT = 5  # VLLM_HTTP_TIMEOUT_KEEP_ALIVE (vllm-project/vllm v0.33.0 section 4)
VLLM_ENGINE_READY_TIMEOUT_DEFAULT = 600  # VLLM_ENGINE_READY_TIMEOUT_S (vllm-project/vllm v0.33.0 section 4)

# Seconds for a terminating pod's endpoint to leave every Envoy (EDS push) and kube-proxy.
ENDPOINT_PROPAGATION_SECONDS = 5
# Seconds for the AWS Load Balancer Controller to deregister a terminating pod's IP and for the
# ALB to stop sending it new requests (the controller reconciles on the endpoint change).
TARGET_DEREGISTRATION_SECONDS = 10
# What the pod waits, after the last request ends, for vLLM to free the GPUs and exit.
SHUTDOWN_MARGIN_SECONDS = 15
# Each outer request timeout sits this far above the one inside it, so the inner layer answers
# first with its own status and the outer layer never cuts a request that is still being served.
HOP_MARGIN_SECONDS = 5
# Envoy's TCP connect timeout to a vLLM pod: a dead pod fails fast and the retry goes elsewhere.
CONNECT_TIMEOUT_SECONDS = 2
# Upper bound of a first try that fails fast (connect timeout, or vLLM's 503 admission reject)
# plus Envoy's retry back-off (25 ms base); the route timeout leaves room for it and one retry.
RETRY_WINDOW_SECONDS = 5
# Envoy retry conditions a generation may be retried on: nothing reached the model (connect
# failure, refused stream) or the model refused it before doing any work (503 admission reject,
# --max-num-queued-reqs full, vllm-project/vllm v0.33.0 section 2). Never "5xx", "reset" or "gateway-error": those
# would re-run a prefill that already spent GPU time, or resend a request the model failed.
RETRY_ON = ("connect-failure", "refused-stream", "503")
RETRY_ATTEMPTS = 1
# Keep-alive probes on an upstream connection that carries no bytes for a whole non-streamed
# request, so no middlebox drops it as idle.
TCP_KEEPALIVE_TIME_SECONDS = 60
TCP_KEEPALIVE_INTERVAL_SECONDS = 20
TCP_KEEPALIVE_PROBES = 3

PRE_STOP_BASE_SECONDS = ENDPOINT_PROPAGATION_SECONDS + TARGET_DEREGISTRATION_SECONDS
# Seconds the chain puts above the longest request at the ALB: per-try hop + retry window + ALB hop.
_ALB_OVERHEAD = HOP_MARGIN_SECONDS + RETRY_WINDOW_SECONDS + HOP_MARGIN_SECONDS
# The longest request any chain can serve: the ALB idle timeout must stay within 4000 s, and the
# deregistration delay (<= 3600 s) must cover the preStop window plus the request.
MAX_REQUEST_SECONDS = min(ALB_IDLE_TIMEOUT_MAX - _ALB_OVERHEAD, DEREGISTRATION_DELAY_MAX - PRE_STOP_BASE_SECONDS)


class ChainError(ValueError):
    """An SLO no timeout chain can serve; the message names the limit it breaks."""


def max_request_rule(max_request_seconds: float) -> str | None:
    """Why no chain can serve requests this long, or None when one can."""
    if max_request_seconds <= MAX_REQUEST_SECONDS:
        return None
    return (
        f"no timeout chain can serve it: the ALB idle timeout (idle_timeout.timeout_seconds) must be within "
        f"{ALB_IDLE_TIMEOUT_MIN}-{ALB_IDLE_TIMEOUT_MAX} s and sit {_ALB_OVERHEAD} s above the request, and the ALB "
        f"target group's deregistration_delay.timeout_seconds (at most {DEREGISTRATION_DELAY_MAX} s) must cover the "
        f"{PRE_STOP_BASE_SECONDS} s preStop window plus the request; at most {MAX_REQUEST_SECONDS} s"
    )


@dataclass(frozen=True)
class Layer:
    """One row of the chain: which layer, which setting, its value in seconds, and why."""

    layer: str
    setting: str
    seconds: int
    why: str


@dataclass(frozen=True)
class RetryPolicy:
    """The route's retry policy: at most one retry, only where the model did no work."""

    attempts: int
    retry_on: tuple[str, ...]
    per_try_timeout_seconds: int

    @property
    def retry_on_header(self) -> str:
        """Envoy/Istio's comma-separated retryOn."""
        return ",".join(self.retry_on)


@dataclass(frozen=True)
class TimeoutChain:
    """Every timeout, keep-alive and drain number of one model's request path (seconds)."""

    longest_request_seconds: int
    first_token_seconds: float
    streaming: bool
    startup_budget_seconds: int
    server_drain: bool
    # Request timeouts, outer to inner.
    alb_idle_timeout_seconds: int
    route_timeout_seconds: int
    retry: RetryPolicy
    connect_timeout_seconds: int
    # Keep-alives / idle timeouts, outer to inner.
    gateway_idle_timeout_seconds: int
    upstream_idle_timeout_seconds: int
    vllm_keep_alive_seconds: int
    # Drain.
    pre_stop_seconds: int
    shutdown_timeout_seconds: int
    deregistration_delay_seconds: int
    termination_grace_seconds: int
    # Start-up.
    engine_ready_timeout_seconds: int

    @property
    def per_try_timeout_seconds(self) -> int:
        """Envoy's timeout for one attempt."""
        return self.retry.per_try_timeout_seconds

    @property
    def longest_silence_seconds(self) -> int:
        """The longest a connection carries no byte: a streamed response sends every token, a
        non-streamed one nothing until the end; the queue wait + prefill before the first token
        is bounded by the request itself."""
        return self.longest_request_seconds

    def layers(self) -> tuple[Layer, ...]:
        """The chain as a table, outer layer first (the plan report's rows)."""
        return (*self._proxy_layers(), *self._server_layers())

    def _proxy_layers(self) -> tuple[Layer, ...]:
        """The load balancer, the mesh and the gateway, outer first."""
        r = self.longest_request_seconds
        return (
            Layer(
                "ALB",
                "idle_timeout.timeout_seconds",
                self.alb_idle_timeout_seconds,
                (
                    f"route timeout {self.route_timeout_seconds}s + {HOP_MARGIN_SECONDS}s"
                    if self.alb_idle_timeout_seconds == self.route_timeout_seconds + HOP_MARGIN_SECONDS
                    else f"shared with longer models behind the same ALB (this model needs {self.route_timeout_seconds + HOP_MARGIN_SECONDS}s)"
                )
                + f": the ALB (default {ALB_IDLE_TIMEOUT_DEFAULT}s, max {ALB_IDLE_TIMEOUT_MAX}s) never cuts a request Envoy still serves",
            ),
            Layer(
                "ALB",
                "deregistration_delay.timeout_seconds",
                self.deregistration_delay_seconds,
                f"preStop window {PRE_STOP_BASE_SECONDS}s + longest request {r}s: a draining target keeps its streams",
            ),
            Layer(
                "Envoy route",
                "timeout",
                self.route_timeout_seconds,
                f"per-try {self.per_try_timeout_seconds}s + {RETRY_WINDOW_SECONDS}s for one fast-failing try "
                f"(replaces Envoy's {ENVOY_ROUTE_TIMEOUT_DEFAULT}s / a gateway's {GATEWAY_ROUTE_TIMEOUT_DEFAULT}s)",
            ),
            Layer(
                "Envoy route",
                "retries.perTryTimeout",
                self.per_try_timeout_seconds,
                f"longest request {r}s (the SLO's maxRequestSeconds, rounded up; {'streamed' if self.streaming else 'not streamed'}, "
                f"TTFT target {self.first_token_seconds:g}s) + {HOP_MARGIN_SECONDS}s: the innermost request timeout; {self.retry.attempts} retry, "
                f"only on {self.retry.retry_on_header} (the model did no work)",
            ),
            Layer(
                "Envoy route",
                "stream idle",
                0,
                "off: Istio sets Envoy's stream idle timeout to 0 on every connection manager, so a slow "
                "first token is not cut"
                + ("" if self.streaming else "; responses are not streamed, so TCP keep-alive probes guard the silent upstream"),
            ),
            Layer(
                "Envoy",
                "connectionPool.tcp.connectTimeout",
                self.connect_timeout_seconds,
                "a dead pod fails fast and the retry goes to another pod",
            ),
            Layer(
                "Istio gateway",
                "downstream idle timeout",
                self.gateway_idle_timeout_seconds,
                f"ALB idle {self.alb_idle_timeout_seconds}s + {HOP_MARGIN_SECONDS}s: the gateway outlives the ALB's pooled connections",
            ),
            Layer(
                "Envoy -> vLLM",
                "connectionPool.http.idleTimeout",
                self.upstream_idle_timeout_seconds,
                f"ALB idle {self.alb_idle_timeout_seconds}s + {HOP_MARGIN_SECONDS}s: keep-alives grow going inward",
            ),
        )

    def _server_layers(self) -> tuple[Layer, ...]:
        """vLLM and its pod: keep-alive, drain on scale-down, startup."""
        r = self.longest_request_seconds
        drain = (
            f"vLLM --shutdown-timeout {self.shutdown_timeout_seconds}s finishes in-flight requests after SIGTERM"
            if self.server_drain
            else "this vLLM release cancels requests on SIGTERM, so the preStop sleep carries the whole drain"
        )
        return (
            Layer(
                "vLLM",
                "VLLM_HTTP_TIMEOUT_KEEP_ALIVE",
                self.vllm_keep_alive_seconds,
                f"above every proxy in front (ALB {self.alb_idle_timeout_seconds}s, Envoy {self.upstream_idle_timeout_seconds}s); "
                f"vLLM's {VLLM_KEEP_ALIVE_DEFAULT}s default gives 502s behind an ALB",
            ),
            Layer(
                "pod",
                "preStop sleep",
                self.pre_stop_seconds,
                f"endpoint removal {ENDPOINT_PROPAGATION_SECONDS}s + ALB target deregistration {TARGET_DEREGISTRATION_SECONDS}s"
                + ("" if self.server_drain else f" + longest request {r}s"),
            ),
            Layer("vLLM", "--shutdown-timeout", self.shutdown_timeout_seconds, drain),
            Layer(
                "pod",
                "terminationGracePeriodSeconds",
                self.termination_grace_seconds,
                f"preStop {self.pre_stop_seconds}s + drain {self.shutdown_timeout_seconds}s + {SHUTDOWN_MARGIN_SECONDS}s "
                f"to free the GPUs: >= preStop + longest request {r}s",
            ),
            Layer(
                "vLLM",
                "VLLM_ENGINE_READY_TIMEOUT_S",
                self.engine_ready_timeout_seconds,
                f"the startup budget {self.startup_budget_seconds}s (vLLM's {VLLM_ENGINE_READY_TIMEOUT_DEFAULT}s "
                "default would stop a slow load the startup probe still allows)",
            ),
        )

    def as_dict(self) -> dict:
        """JSON-ready figures (the plan report's ``timeouts``)."""
        return {
            "alb_idle_timeout_seconds": self.alb_idle_timeout_seconds,
            "deregistration_delay_seconds": self.deregistration_delay_seconds,
            "route_timeout_seconds": self.route_timeout_seconds,
            "per_try_timeout_seconds": self.per_try_timeout_seconds,
            "retry_attempts": self.retry.attempts,
            "retry_on": self.retry.retry_on_header,
            "connect_timeout_seconds": self.connect_timeout_seconds,
            "gateway_idle_timeout_seconds": self.gateway_idle_timeout_seconds,
            "upstream_idle_timeout_seconds": self.upstream_idle_timeout_seconds,
            "vllm_keep_alive_seconds": self.vllm_keep_alive_seconds,
            "pre_stop_seconds": self.pre_stop_seconds,
            "shutdown_timeout_seconds": self.shutdown_timeout_seconds,
            "termination_grace_seconds": self.termination_grace_seconds,
            "engine_ready_timeout_seconds": self.engine_ready_timeout_seconds,
            "longest_request_seconds": self.longest_request_seconds,
            "streaming": self.streaming,
            "layers": [{"layer": x.layer, "setting": x.setting, "seconds": x.seconds, "why": x.why} for x in self.layers()],
        }


def timeout_chain(
    max_request_seconds: float,
    time_to_first_token_seconds: float,
    streaming: bool = True,
    startup_budget_seconds: int = 900,
    server_drain: bool = True,
    shared_alb_idle_seconds: int | None = None,
) -> TimeoutChain:
    """Derive every layer's timeout from a model's SLO and start-up budget.

    ``server_drain`` says whether the vLLM release has ``--shutdown-timeout`` (it then drains
    in-flight requests after SIGTERM); without it the preStop sleep covers the longest request.
    ``shared_alb_idle_seconds``: models behind one ALB share its idle timeout (the largest any of
    them needs, see ``shared_alb_idle``); every keep-alive behind it then grows from that value.
    Raises ChainError when the SLO cannot be served (see ``max_request_rule``).
    """
    if not max_request_seconds > 0:
        raise ChainError("maxRequestSeconds must be above 0")
    rule = max_request_rule(max_request_seconds)
    if rule:
        raise ChainError(rule)
    r = math.ceil(max_request_seconds)
    per_try = r + HOP_MARGIN_SECONDS
    route = per_try + RETRY_WINDOW_SECONDS
    alb_idle = max(route + HOP_MARGIN_SECONDS, shared_alb_idle_seconds or 0)
    if alb_idle > ALB_IDLE_TIMEOUT_MAX:
        raise ChainError(f"a shared ALB idle timeout of {alb_idle} s is above the ALB's maximum {ALB_IDLE_TIMEOUT_MAX} s")
    pre_stop = PRE_STOP_BASE_SECONDS if server_drain else PRE_STOP_BASE_SECONDS + r
    shutdown = r if server_drain else 0
    return TimeoutChain(
        longest_request_seconds=r,
        first_token_seconds=time_to_first_token_seconds,
        streaming=streaming,
        startup_budget_seconds=startup_budget_seconds,
        server_drain=server_drain,
        alb_idle_timeout_seconds=alb_idle,
        route_timeout_seconds=route,
        retry=RetryPolicy(attempts=RETRY_ATTEMPTS, retry_on=RETRY_ON, per_try_timeout_seconds=per_try),
        connect_timeout_seconds=CONNECT_TIMEOUT_SECONDS,
        gateway_idle_timeout_seconds=alb_idle + HOP_MARGIN_SECONDS,
        upstream_idle_timeout_seconds=alb_idle + HOP_MARGIN_SECONDS,
        vllm_keep_alive_seconds=alb_idle + 2 * HOP_MARGIN_SECONDS,
        pre_stop_seconds=pre_stop,
        shutdown_timeout_seconds=shutdown,
        deregistration_delay_seconds=PRE_STOP_BASE_SECONDS + r,
        termination_grace_seconds=pre_stop + shutdown + SHUTDOWN_MARGIN_SECONDS,
        engine_ready_timeout_seconds=max(VLLM_ENGINE_READY_TIMEOUT_DEFAULT, startup_budget_seconds),
    )


def shared_alb_idle(chains: "list[TimeoutChain] | tuple[TimeoutChain, ...]") -> int:
    """The idle timeout of an ALB in front of several models: the largest any of their chains needs."""
    return max(c.alb_idle_timeout_seconds for c in chains)


def chain_problems(c: TimeoutChain) -> list[str]:
    """Every invariant the chain breaks (empty for a sound chain); the property tests' oracle."""
    out: list[str] = []
    r = c.longest_request_seconds
    requests = [
        ("ALB idle timeout", c.alb_idle_timeout_seconds),
        ("route timeout", c.route_timeout_seconds),
        ("per-try timeout", c.per_try_timeout_seconds),
        ("longest request", r),
    ]
    for (outer, o), (inner, i) in zip(requests, requests[1:]):
        if not o > i:
            out.append(f"request timeouts must shrink going inward: {outer} {o}s <= {inner} {i}s")
    if c.route_timeout_seconds < c.per_try_timeout_seconds * c.retry.attempts + RETRY_WINDOW_SECONDS and c.retry.attempts:
        out.append("route timeout leaves no room for the retry")
    if not ALB_IDLE_TIMEOUT_MIN <= c.alb_idle_timeout_seconds <= ALB_IDLE_TIMEOUT_MAX:
        out.append(f"ALB idle timeout {c.alb_idle_timeout_seconds}s is outside {ALB_IDLE_TIMEOUT_MIN}-{ALB_IDLE_TIMEOUT_MAX}s")
    if c.alb_idle_timeout_seconds < c.longest_silence_seconds:
        out.append("ALB idle timeout is below the longest silence of a request")
    keep = [
        ("ALB idle timeout", c.alb_idle_timeout_seconds, "gateway idle timeout", c.gateway_idle_timeout_seconds),
        ("ALB idle timeout", c.alb_idle_timeout_seconds, "vLLM keep-alive", c.vllm_keep_alive_seconds),
        ("Envoy upstream idle timeout", c.upstream_idle_timeout_seconds, "vLLM keep-alive", c.vllm_keep_alive_seconds),
    ]
    for outer, o, inner, i in keep:
        if not i > o:
            out.append(f"keep-alives must grow going inward: {inner} {i}s <= {outer} {o}s")
    if c.retry.attempts > 1 or set(c.retry.retry_on) - set(RETRY_ON):
        out.append(f"retries must be at most one, on {','.join(RETRY_ON)} only")
    if c.pre_stop_seconds < PRE_STOP_BASE_SECONDS:
        out.append("preStop does not cover endpoint removal and target deregistration")
    if c.pre_stop_seconds + c.shutdown_timeout_seconds < PRE_STOP_BASE_SECONDS + r:
        out.append("preStop + server drain do not cover the longest request")
    # The pod stops taking traffic after the endpoint/target window; from then on the longest
    # request must still finish before SIGKILL.
    if c.termination_grace_seconds < PRE_STOP_BASE_SECONDS + r:
        out.append(
            f"terminationGracePeriodSeconds {c.termination_grace_seconds}s < preStop window {PRE_STOP_BASE_SECONDS}s + longest request {r}s"
        )
    if c.termination_grace_seconds < c.pre_stop_seconds + c.shutdown_timeout_seconds:
        out.append("terminationGracePeriodSeconds kills vLLM before its drain ends")
    if not r <= c.deregistration_delay_seconds <= DEREGISTRATION_DELAY_MAX:
        out.append(
            f"deregistration delay {c.deregistration_delay_seconds}s must cover the longest request {r}s and be <= {DEREGISTRATION_DELAY_MAX}s"
        )
    if c.deregistration_delay_seconds > c.termination_grace_seconds:
        out.append("deregistration delay outlasts the pod")
    if c.engine_ready_timeout_seconds < c.startup_budget_seconds:
        out.append("the engine-ready timeout is below the startup budget")
    return out
