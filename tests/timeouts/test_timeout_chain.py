"""The timeout chain: every valid SLO gives a chain that holds every invariant; an unservable one is refused."""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from components import timeouts as t
from components.timeouts import ChainError, chain_problems, timeout_chain

valid_requests = st.floats(min_value=0.01, max_value=t.MAX_REQUEST_SECONDS, allow_nan=False)


@st.composite
def slos(draw):
    r = draw(valid_requests)
    ttft = draw(st.floats(min_value=0.001, max_value=max(0.001, r * 0.999), allow_nan=False))
    return dict(
        max_request_seconds=r,
        time_to_first_token_seconds=ttft,
        streaming=draw(st.booleans()),
        startup_budget_seconds=draw(st.integers(min_value=60, max_value=7200)),
        server_drain=draw(st.booleans()),
    )


@settings(max_examples=300, deadline=None)
@given(slos())
def test_every_valid_slo_gives_a_chain_that_holds_every_invariant(slo):
    chain = timeout_chain(**slo)
    assert chain_problems(chain) == []
    r = math.ceil(slo["max_request_seconds"])
    # Request timeouts shrink going inward, down to the longest request.
    assert chain.alb_idle_timeout_seconds > chain.route_timeout_seconds > chain.per_try_timeout_seconds
    assert chain.per_try_timeout_seconds > r
    # Keep-alives grow going inward.
    assert chain.vllm_keep_alive_seconds > chain.upstream_idle_timeout_seconds > chain.alb_idle_timeout_seconds
    assert chain.gateway_idle_timeout_seconds > chain.alb_idle_timeout_seconds
    # The drain covers the longest request, within AWS's ranges.
    assert chain.termination_grace_seconds >= t.PRE_STOP_BASE_SECONDS + r
    assert chain.termination_grace_seconds > chain.pre_stop_seconds + chain.shutdown_timeout_seconds
    assert chain.pre_stop_seconds + chain.shutdown_timeout_seconds >= t.PRE_STOP_BASE_SECONDS + r
    assert 1 <= chain.alb_idle_timeout_seconds <= 4000
    assert r <= chain.deregistration_delay_seconds <= 3600
    assert chain.engine_ready_timeout_seconds >= slo["startup_budget_seconds"]


@settings(max_examples=100, deadline=None)
@given(st.floats(min_value=t.MAX_REQUEST_SECONDS + 0.001, max_value=1e9, allow_nan=False))
def test_an_slo_beyond_what_an_alb_carries_is_refused_naming_the_limit(r):
    with pytest.raises(ChainError, match="ALB idle timeout .*1-4000 s.*deregistration_delay.timeout_seconds"):
        timeout_chain(r, 1.0)


def test_the_longest_servable_request_is_3585_seconds():
    assert t.MAX_REQUEST_SECONDS == 3585
    chain = timeout_chain(3585, 5)
    assert chain.deregistration_delay_seconds == 3600 and chain.alb_idle_timeout_seconds == 3600
    assert t.max_request_rule(3585) is None and t.max_request_rule(3585.5)


def test_the_default_slo_chain():
    chain = timeout_chain(300, 5)
    assert (
        chain.alb_idle_timeout_seconds,
        chain.route_timeout_seconds,
        chain.per_try_timeout_seconds,
        chain.longest_request_seconds,
    ) == (315, 310, 305, 300)
    assert (chain.upstream_idle_timeout_seconds, chain.vllm_keep_alive_seconds) == (320, 325)
    assert (chain.pre_stop_seconds, chain.shutdown_timeout_seconds, chain.termination_grace_seconds) == (15, 300, 330)
    assert chain.deregistration_delay_seconds == 315
    assert chain.retry.retry_on_header == "connect-failure,refused-stream,503" and chain.retry.attempts == 1


def test_without_a_server_drain_the_pre_stop_sleep_carries_the_request():
    chain = timeout_chain(300, 5, server_drain=False)
    assert (chain.pre_stop_seconds, chain.shutdown_timeout_seconds, chain.termination_grace_seconds) == (315, 0, 330)


@pytest.mark.parametrize(
    "field,value,problem",
    [
        ("route_timeout_seconds", 400, "request timeouts must shrink going inward: ALB idle timeout 315s <= route timeout 400s"),
        ("vllm_keep_alive_seconds", 5, "keep-alives must grow going inward: vLLM keep-alive 5s <= ALB idle timeout 315s"),
        ("termination_grace_seconds", 30, "terminationGracePeriodSeconds 30s < preStop window 15s + longest request 300s"),
        ("deregistration_delay_seconds", 4000, "deregistration delay 4000s must cover the longest request 300s and be <= 3600s"),
    ],
)
def test_the_invariant_checker_catches_a_broken_layer(field, value, problem):
    broken = dataclasses.replace(timeout_chain(300, 5), **{field: value})
    assert problem in chain_problems(broken)


def test_a_retry_on_any_5xx_breaks_the_chain():
    chain = timeout_chain(300, 5)
    broken = dataclasses.replace(chain, retry=dataclasses.replace(chain.retry, retry_on=("5xx",)))
    assert "retries must be at most one, on connect-failure,refused-stream,503 only" in chain_problems(broken)


def test_every_layer_has_a_reason():
    rows = timeout_chain(600, 10, streaming=False).layers()
    assert [r.setting for r in rows][:3] == ["idle_timeout.timeout_seconds", "deregistration_delay.timeout_seconds", "timeout"]
    assert all(r.why for r in rows)
    assert any("TCP keep-alive" in r.why for r in rows)


def test_no_kserve_layer_in_the_chain():
    """KServe v0.20.0 reads spec.predictor.timeout (json "timeout", TimeoutSeconds) only in
    pkg/controller/v1beta1/inferenceservice/reconcilers/ingress/httproute_reconciler.go:277 (Gateway API
    HTTPRoute) and reconcilers/knative/ksvc_reconciler.go:209 (Knative); this stack uses neither, so
    the chain has no KServe row and Envoy's per-try timeout sits directly above the longest request."""
    chain = timeout_chain(300, 5)
    assert not any(r.layer == "KServe" for r in chain.layers())
    assert "kserve_timeout_seconds" not in chain.as_dict()
    assert chain.per_try_timeout_seconds == chain.longest_request_seconds + t.HOP_MARGIN_SECONDS
