"""Every policy of the llm-serving pack, in catalogue order.

Add a policy by importing its module's POLICY here; the order (S-series by number, then the
general-table rows G<n>) is the order of reports and of the pack the CLI loads.
"""

from __future__ import annotations

from policies.autoscaling import custom_metric_is_served, gpu_workload_no_resource_metric_hpa, hpa_behavior, no_scale_to_zero
from policies.framework import Policy
from policies.k8s_generic import image_tag_pinned, no_literal_secret_env
from policies.ray import kuberay_gpu_hygiene
from policies.vllm import (
    gpu_memory_utilization_bounds,
    kv_cache_headroom,
    max_model_len_fits_kv_cache,
    startup_probe_budget,
    tensor_parallel_requires_dshm,
    tp_matches_gpu_limit,
)


def catalog_order(policy: Policy) -> tuple[int, int]:
    """Sort key: S1..S20 first, then G<n>, each by number."""
    return (0 if policy.catalog.startswith("S") else 1, int(policy.catalog[1:]))


def _collect(*policies: Policy) -> tuple[Policy, ...]:
    names = [p.name for p in policies]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"duplicate policy names: {', '.join(duplicates)}")
    return tuple(sorted(policies, key=catalog_order))


POLICIES: tuple[Policy, ...] = _collect(
    gpu_memory_utilization_bounds.POLICY,
    kv_cache_headroom.POLICY,
    max_model_len_fits_kv_cache.POLICY,
    tp_matches_gpu_limit.POLICY,
    tensor_parallel_requires_dshm.POLICY,
    no_scale_to_zero.POLICY,
    gpu_workload_no_resource_metric_hpa.POLICY,
    custom_metric_is_served.POLICY,
    hpa_behavior.POLICY,
    startup_probe_budget.POLICY,
    kuberay_gpu_hygiene.POLICY,
    image_tag_pinned.POLICY,
    no_literal_secret_env.POLICY,
)
