"""Every policy of the llm-serving pack, in catalogue order.

Add a policy by importing its module here and passing its POLICY to `_collect` below; its
`catalog` id must be listed in policies/catalog.py, whose order (S-series by number, then the general-table
rows G<n>) is the order of reports, of docs/policies.md and of the pack the CLI loads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from policies import catalog
from policies.autoscaling import (
    alert_metric_is_exported,
    custom_metric_is_served,
    gpu_workload_no_resource_metric_hpa,
    hpa_behavior,
    monitor_selects_targets,
    no_scale_to_zero,
    one_autoscaler,
    throughput_signal,
)
from policies.crd import validation_rules, validation_rules_unevaluated
from policies.derived import derived_object_valid, progress_deadline, requests_within_limits
from policies.framework import Policy, Resource, Violation, config_errors, evaluate_policies
from policies.gpu import (
    efa_device_plugin,
    engine_gpu_limit,
    ephemeral_storage,
    group_restart_policy,
    pinned_to_one_node,
    recreate_rollout,
    rollout_surge,
    single_attach_rollout,
    tolerates_and_targets,
    visible_devices_env,
)
from policies.ingress import (
    external_gce_ingress_guarded,
    internet_facing_alb_guarded,
    model_pods_network_isolated,
    network_policy_reach,
    nginx_regex_path_type,
    public_model_endpoint_guarded,
    rewrite_keeps_api_path,
)
from policies.input import manifest_is_kubernetes, manifest_readable
from policies.k8s_generic import (
    api_object_valid,
    api_schema_valid,
    api_version_served,
    arch_image_selected,
    capabilities_allow_list,
    claim_in_run,
    container_can_start,
    defined_once,
    gpu_image_pull_policy,
    gpu_memory_request_equals_limit,
    gpu_request_equals_limit,
    host_path_read_only,
    image_tag_pinned,
    job_ttl,
    limit_range_device_default,
    memory_emptydir_size_limit,
    model_server_memory_ratio,
    no_bare_pods,
    no_default_namespace,
    no_host_namespaces,
    no_literal_credential,
    no_literal_secret_env,
    no_load_balancer_service,
    no_privileged,
    pdb_allows_disruption,
    pdb_autoscaler_floor,
    pdb_unhealthy_pod_eviction,
    pod_security_admission,
    pod_template_api_valid,
    post_start_hook_waits,
    probe_tolerates_slow_answer,
    readiness_waits_for_model,
    run_as_non_root_image,
    secret_data_base64,
    service_selects_pods,
    serving_app_pdb,
    serving_app_service,
    serving_memory_limit,
    serving_priority_class,
    serving_readiness_probe,
    serving_resource_requests,
    serving_topology_spread,
    tolerates_node_pressure,
)
from policies.karpenter import (
    gpu_expiry,
    gpu_node_disk,
    gpu_nodepool_disruption_budget,
    gpu_nodepool_limits,
    gpu_nodepool_tainted,
    limits_admit_instances,
    multi_node_expiry,
    node_choice,
    pool_fits_models,
    spot_serving,
)

# Issue 18: what KServe, KubeRay, the EFA plugin and Karpenter do with what a stack renders.
from policies.models import (
    debug_switches_off,
    downloads_fail_loudly,
    engine_download_credential,
    engine_image_publisher,
    gated_model_token,
    hf_token_not_empty,
    hf_token_on_service_account,
    model_cache_fits_checkpoint,
    model_path_downloaded,
    model_source_pinned,
    offline_cache_starts_empty,
    registry_pull_auth,
    serving_code_pinned,
    serving_start_installs,
)
from policies.ray import (
    cluster_pdb,
    derived_pods,
    kuberay_gpu_hygiene,
    serve_capacity,
    serve_config_keys_current,
    serving_priority,
)
from policies.timeouts import keep_alive_outlives_proxy, llm_route_timeout, termination_drains_streams, timeout_chain_ordered
from policies.vllm import (
    client_context_within_server,
    engine_supports_architecture,
    flags_exist,
    gpu_memory_utilization_bounds,
    gpu_memory_utilization_unset,
    kv_cache_headroom,
    listen_address,
    max_model_len_fits_kv_cache,
    max_model_len_unset,
    multi_node_start,
    names_its_model,
    service_links_port,
    startup_batched_tokens_cover_seqs,
    startup_context_within_model_limit,
    startup_dtype_supported_by_gpu,
    startup_probe_budget,
    startup_quantization_supported,
    startup_tp_divides_attention_heads,
    tensor_parallel_requires_dshm,
    tp_matches_gpu_limit,
)


def catalog_order(policy: Policy) -> tuple[int, int, str]:
    """Sort key: the catalogue's order of ids (policies/catalog.py: S-series, then G), then the name within a row."""
    return (*catalog.sort_key(policy.catalog), policy.name)


def _collect(*policies: Policy) -> tuple[Policy, ...]:
    names = [p.name for p in policies]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"duplicate policy names: {', '.join(duplicates)}")
    return tuple(sorted(policies, key=catalog_order))


POLICIES: tuple[Policy, ...] = _collect(
    hf_token_not_empty.POLICY,
    hf_token_not_empty.SECRET_POLICY,
    gated_model_token.POLICY,
    engine_download_credential.POLICY,
    offline_cache_starts_empty.POLICY,
    debug_switches_off.POLICY,
    downloads_fail_loudly.POLICY,
    engine_image_publisher.POLICY,
    flags_exist.POLICY,
    engine_supports_architecture.POLICY,
    multi_node_start.POLICY,
    names_its_model.POLICY,
    model_cache_fits_checkpoint.POLICY,
    model_path_downloaded.POLICY,
    service_links_port.POLICY,
    single_attach_rollout.POLICY,
    serving_code_pinned.POLICY,
    serving_start_installs.POLICY,
    manifest_readable.POLICY,
    manifest_is_kubernetes.POLICY,
    requests_within_limits.POLICY,
    derived_object_valid.POLICY,
    progress_deadline.POLICY,
    hf_token_on_service_account.POLICY,
    efa_device_plugin.POLICY,
    multi_node_expiry.POLICY,
    spot_serving.POLICY,
    listen_address.POLICY,
    listen_address.SERVICE_PORT_POLICY,
    registry_pull_auth.POLICY,
    cluster_pdb.POLICY,
    derived_pods.POLICY,
    serving_priority.POLICY,
    gpu_nodepool_tainted.POLICY,
    gpu_nodepool_disruption_budget.POLICY,
    gpu_nodepool_limits.POLICY,
    limits_admit_instances.POLICY,
    limits_admit_instances.BIGGEST,
    pool_fits_models.POLICY,
    node_choice.POLICY,
    gpu_expiry.POLICY,
    tolerates_and_targets.POLICY,
    pinned_to_one_node.POLICY,
    ephemeral_storage.POLICY,
    group_restart_policy.POLICY,
    gpu_node_disk.POLICY,
    rollout_surge.POLICY,
    recreate_rollout.POLICY,
    timeout_chain_ordered.POLICY,
    keep_alive_outlives_proxy.POLICY,
    llm_route_timeout.POLICY,
    termination_drains_streams.POLICY,
    gpu_memory_utilization_bounds.POLICY,
    gpu_memory_utilization_unset.POLICY,
    kv_cache_headroom.POLICY,
    max_model_len_fits_kv_cache.POLICY,
    max_model_len_unset.POLICY,
    tp_matches_gpu_limit.POLICY,
    tensor_parallel_requires_dshm.POLICY,
    no_scale_to_zero.POLICY,
    gpu_workload_no_resource_metric_hpa.POLICY,
    throughput_signal.POLICY,
    custom_metric_is_served.POLICY,
    monitor_selects_targets.POLICY,
    alert_metric_is_exported.POLICY,
    hpa_behavior.POLICY,
    hpa_behavior.UNSET_POLICY,
    one_autoscaler.POLICY,
    startup_probe_budget.POLICY,
    model_source_pinned.POLICY,
    kuberay_gpu_hygiene.POLICY,
    serve_config_keys_current.POLICY,
    serve_capacity.POLICY,
    image_tag_pinned.POLICY,
    gpu_image_pull_policy.POLICY,
    serving_readiness_probe.POLICY,
    limit_range_device_default.POLICY,
    probe_tolerates_slow_answer.POLICY,
    claim_in_run.POLICY,
    readiness_waits_for_model.POLICY,
    serving_resource_requests.POLICY,
    serving_memory_limit.POLICY,
    gpu_memory_request_equals_limit.POLICY,
    model_server_memory_ratio.POLICY,
    gpu_request_equals_limit.POLICY,
    engine_gpu_limit.POLICY,
    serving_app_pdb.POLICY,
    serving_app_service.POLICY,
    pdb_allows_disruption.POLICY,
    pdb_autoscaler_floor.POLICY,
    pdb_unhealthy_pod_eviction.POLICY,
    serving_priority_class.POLICY,
    serving_topology_spread.POLICY,
    no_host_namespaces.POLICY,
    pod_security_admission.POLICY,
    no_privileged.POLICY,
    capabilities_allow_list.POLICY,
    host_path_read_only.POLICY,
    no_load_balancer_service.POLICY,
    internet_facing_alb_guarded.POLICY,
    external_gce_ingress_guarded.POLICY,
    public_model_endpoint_guarded.POLICY,
    rewrite_keeps_api_path.POLICY,
    nginx_regex_path_type.POLICY,
    model_pods_network_isolated.POLICY,
    network_policy_reach.POLICY,
    network_policy_reach.NAMESPACE_LABEL_POLICY,
    memory_emptydir_size_limit.POLICY,
    pod_template_api_valid.POLICY,
    container_can_start.POLICY,
    secret_data_base64.POLICY,
    arch_image_selected.POLICY,
    visible_devices_env.POLICY,
    post_start_hook_waits.POLICY,
    run_as_non_root_image.POLICY,
    no_literal_secret_env.POLICY,
    no_literal_credential.POLICY,
    service_selects_pods.POLICY,
    defined_once.POLICY,
    tolerates_node_pressure.POLICY,
    no_default_namespace.POLICY,
    no_bare_pods.POLICY,
    job_ttl.POLICY,
    api_version_served.POLICY,
    api_version_served.DEPRECATED_POLICY,
    startup_batched_tokens_cover_seqs.POLICY,
    client_context_within_server.POLICY,
    startup_tp_divides_attention_heads.POLICY,
    startup_context_within_model_limit.POLICY,
    startup_quantization_supported.POLICY,
    startup_dtype_supported_by_gpu.POLICY,
    validation_rules.POLICY,
    validation_rules_unevaluated.POLICY,
    api_object_valid.POLICY,
    api_schema_valid.POLICY,
)


def evaluate(
    resources: Sequence[Resource],
    config: Mapping[str, Mapping] | None = None,
    policies: Sequence[Policy] | None = None,
    *,
    scopes: Sequence[Sequence[Resource]] | None = None,
    reported: Sequence[frozenset[str] | None] | None = None,
) -> list[Violation]:
    """Run the pack (or `policies`) over the resources; the sorted violations (framework.evaluate_policies)."""
    return evaluate_policies(resources, config, POLICIES if policies is None else policies, scopes=scopes, reported=reported)


def validate_config(config: Mapping[str, Any] | None, policies: Sequence[Policy] | None = None) -> list[str]:
    """Check a pack config against the pack's (or `policies`') schemas (framework.config_errors)."""
    return config_errors(config, POLICIES if policies is None else policies)
