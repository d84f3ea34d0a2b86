"""The vLLM servers and other model servers the capacity plan cannot size, with the reason.

A report must say that S1 and S2 did not judge them rather than read as a pass.
"""

from __future__ import annotations

import os
from typing import Any, Optional

from policies.kube import evaluation_memo
from policies.operators import operator_server
from policies.reading.engines import sglang_servers
from policies.reading.serving import engine_configs
from policies.reading.vllm_args import served_model, vllm_servers
from policies.reading.vllm_capacity import SizingGap, _gpu_gap, _model_gap, server_plan


def sizing_gaps(resources: list, failed: Optional[list[str]] = None) -> list[SizingGap]:
    """Every vLLM server whose memory plan cannot be made, with the reason: the capacity policies
    (S1 budget, S2) say nothing about them, and a report must say so rather than read as a pass. With ``failed`` (a
    list), a resource whose servers cannot be read without an exception is a gap of its own ("could not be sized") and
    the exception's type is added there (`policies check`: exit 3); without it, and under LLM_SERVING_DEBUG, it raises."""
    # Its own memo (policies.kube.memoized): each resource's servers and plans are derived once here too, as in an
    # evaluation (manifests-v2: 8.7 -> 5.5 ms). `policies check` calls it after the evaluation, outside any cluster view,
    # inside the evaluation's memo: the facts read from no view are the evaluation's (manifests-v2: 5.3 -> 2.0 ms).
    with evaluation_memo():
        return _sizing_gaps(resources, failed)


def _sizing_gaps(resources: list, failed: Optional[list[str]]) -> list[SizingGap]:
    gaps = []
    for resource in resources:
        try:
            gaps.extend(_resource_gaps(resource))
        except Exception as exc:  # a reader's bug: the policies that share the reader report it too (CHECK_FAILED)
            if failed is None or os.environ.get("LLM_SERVING_DEBUG"):
                raise
            failed.append(type(exc).__name__)
            reason = f"could not be sized: {type(exc).__name__} (an internal error of the pack)"
            gaps.append(SizingGap(resource.name, "its model servers", None, None, reason))
    return gaps


def _resource_gaps(resource: Any) -> list[SizingGap]:
    gaps = []
    model: Optional[str]
    model_reason: Optional[str]
    for server in vllm_servers(resource):
        if server.runtime_merged and not served_model(server):
            model, model_reason = None, "a KServe predictor whose model the ServingRuntime names"
        else:
            model, model_reason = _model_gap(resource, server)
        gpu, gpu_reason = _gpu_gap(resource, server)
        if model_reason is None and gpu_reason is None:
            if server_plan(resource, server) is not None:
                continue
            gpu_reason = "the memory accounting could not read the engine flags"
        reason = "; ".join(r for r in (model_reason, gpu_reason) if r)
        gaps.append(SizingGap(resource.name, server.label, model, gpu, reason))
    gaps.extend(_other_engine_gaps(resource))
    return gaps


def _other_engine_gaps(resource: Any) -> list[SizingGap]:
    """Model servers the capacity plan does not model at all: SGLang, Ray Serve LLM applications and the
    servers NIMService and VLLMRuntime operators render (their memory is not vLLM's accounting of a
    container the pack can see)."""
    gaps = [
        SizingGap(
            resource.name, s.label, s.model, None, "an SGLang server: the capacity plan models vLLM's memory accounting only"
        )
        for s in sglang_servers(resource)
    ]
    gaps += [
        SizingGap(
            resource.name,
            e.label,
            e.model,
            None,
            "a Ray Serve LLM application: the capacity plan does not size engine_kwargs on Ray workers",
        )
        for e in engine_configs(resource)
        if e.server is None
    ]
    operator = operator_server(resource)
    if operator is not None:
        gaps.append(
            SizingGap(
                resource.name,
                "spec",
                operator.model,
                None,
                f"a {operator.kind}: its operator renders the server, which the capacity plan does not size",
            )
        )
    return gaps
