"""S7 (widened): alerting and analysis queries name engine series as the engine exports them (advice).

S7's hpa-custom-metric-is-served reads the queries an autoscaler runs. The same misspelling in the queries that judge a
model server, not scale it, leaves them blind: an alert whose expression selects no series never fires, and a canary
analysis whose query returns nothing errors or aborts. Read here:

* Prometheus Operator ``PrometheusRule`` (and VictoriaMetrics ``VMRule``): ``spec.groups[].rules[].expr``;
* Argo Rollouts ``AnalysisTemplate`` / ``ClusterAnalysisTemplate``: ``spec.metrics[].provider.prometheus.query``;
* Flagger ``MetricTemplate``: ``spec.query`` (its provider is Prometheus unless it names another);
* a ConfigMap whose data holds a Prometheus rules file (``groups: [{rules: [{expr: ...}]}]``), as a Prometheus
  deployed without the operator mounts it.

A name is judged by policies/reading/engine_metric_names.py against the engine table (components/serving_engines.toml,
components/vllm_metrics.py: vLLM's families read from each release's vllm/v1/metrics/loggers.py): an underscore
spelling of a colon-named engine series (``vllm_time_to_first_token_seconds_bucket`` where vLLM exports
``vllm:time_to_first_token_seconds_bucket``; Prometheus keeps the colon, https://prometheus.io/docs/concepts/data_model/
#metric-names-and-labels) selects nothing. A name some recording rule of the files defines (``record:``) is silent.
Advice throughout: a blind alert or analysis does not stop serving. Set 17: kevinmeix1/kserve-model-serving-platform
kserve/llm-inference-readiness.yaml (vllm_time_to_first_token_seconds_bucket, vllm_prefix_cache_hit_rate,
vllm_active_lora_adapters).
"""

from __future__ import annotations

from collections.abc import Iterator

import yaml

from components.vllm_metrics import retired_in
from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, as_list, get, split_type
from policies.reading.engine_metric_names import (
    foreign_prefixed,
    gateway_unexported,
    misspelled,
    servers_near,
    vllm_exports_retired,
)

_RULE_KINDS = {("monitoring.coreos.com", "PrometheusRule"), ("operator.victoriametrics.com", "VMRule")}
_ANALYSIS_KINDS = {("argoproj.io", "AnalysisTemplate"), ("argoproj.io", "ClusterAnalysisTemplate")}
_FLAGGER = ("flagger.app", "MetricTemplate")


def _rule_groups(groups: object, prefix: str) -> Iterator[tuple[str, dict]]:
    for g, group in enumerate(as_list(groups)):
        for r, rule in enumerate(as_list(as_dict(group).get("rules"))):
            if isinstance(rule, dict):
                yield f"{prefix}groups[{g}].rules[{r}]", rule


def _config_map_rules(resource: Resource) -> Iterator[tuple[str, dict]]:
    for key, text in sorted(as_dict(get(resource.props, "data")).items()):
        if not isinstance(text, str) or "expr:" not in text or "groups:" not in text:
            continue
        try:
            doc = yaml.safe_load(text)
        except yaml.YAMLError:
            continue
        if isinstance(doc, dict):
            yield from _rule_groups(doc.get("groups"), f"data[{key}].")


def _rules(resource: Resource) -> Iterator[tuple[str, dict]]:
    """(path, rule) of every Prometheus rule the resource holds."""
    kind = split_type(resource.type)
    if kind in _RULE_KINDS:
        yield from _rule_groups(get(resource.props, "spec", "groups"), "spec.")
    elif kind == ("", "ConfigMap"):
        yield from _config_map_rules(resource)


def _queries(resource: Resource) -> list[tuple[str, str]]:
    """(path, PromQL) of the alerting, recording and analysis queries the resource holds."""
    kind = split_type(resource.type)
    found = [(f"{path}.expr", rule["expr"]) for path, rule in _rules(resource) if isinstance(rule.get("expr"), str)]
    if kind in _ANALYSIS_KINDS:
        for i, metric in enumerate(as_list(get(resource.props, "spec", "metrics"))):
            query = get(metric, "provider", "prometheus", "query")
            if isinstance(query, str):
                found.append((f"spec.metrics[{i}].provider.prometheus.query", query))
    elif kind == _FLAGGER:
        provider = str(get(resource.props, "spec", "provider", "type") or "prometheus").lower()
        query = get(resource.props, "spec", "query")
        if provider == "prometheus" and isinstance(query, str):
            found.append(("spec.query", query))
    return found


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    recorded = {rule["record"] for r in resources for _, rule in _rules(r) if isinstance(rule.get("record"), str)}
    findings: list[tuple[str, str]] = []
    for resource in resources:
        for path, query in _queries(resource):
            for miss in misspelled(query):
                if miss.name in recorded:
                    continue
                if miss.right:
                    message = (
                        f"{path} names {miss.name}, which {miss.engine} does not export: it exports {miss.right} "
                        "(Prometheus keeps the colon), so the query selects no series and the alert never fires (an "
                        f"analysis gets no result); query {miss.right}"
                    )
                else:
                    shown = [n for n in miss.exported if not n.endswith(("_bucket", "_sum", "_count"))][:4]
                    message = (
                        f"{path} names {miss.name}, a {miss.engine} metric spelled with an underscore where "
                        f"{miss.engine} names its series with a colon ({', '.join(shown)}, ...), and no recording rule "
                        "of these files defines it; unless one elsewhere does, the query selects no series and the "
                        "alert never fires (an analysis gets no result)"
                    )
                findings.append((resource.name, unproven(message)))
            findings.extend((resource.name, unproven(m)) for m in _other_findings(path, query, resources, recorded))
    return findings


def _other_findings(path: str, query: str, resources: list[Resource], recorded: set) -> list[str]:
    """A vLLM family the run's servers no longer export by default (components/vllm_metrics.RETIRED; silent where every
    vLLM server of the run is known to export it), and an engine series under a prefix the engine does not use
    (triton_... where Triton exports nv_...: set 35 nbethala/triton-mlops-gpu-platform triton-alerts.yaml)."""
    found = []
    near = servers_near(query, resources)
    for family in retired_in(query):
        if family.name in recorded or vllm_exports_retired(family, near):
            continue
        found.append(
            f"{path} names {family.name}, which vLLM renamed {family.replacement} in 0.9.2 and stops exporting by "
            f"default from {family.hidden_from} (only --show-hidden-metrics-for-version keeps it; a later release drops "
            f"it); on such a release the query selects no series and the alert never fires; query {family.replacement}"
        )
    for miss in gateway_unexported(query):
        if miss.name not in recorded:
            found.append(
                unproven(
                    f"{path} names {miss.name}, a series LiteLLM's Prometheus integration does not export (its request "
                    f"counters are {' and '.join(miss.exported)}; components/litellm_metrics.json), and no recording rule "
                    "of these files defines it; unless another exporter does, the query selects no series and the alert "
                    "never fires"
                )
            )
    for miss in foreign_prefixed(query):
        if miss.name in recorded:
            continue
        found.append(
            f"{path} names {miss.name}, which {miss.engine} does not export: its series are named "
            f"{miss.prefix}... ({', '.join(miss.exported)}, ...), and no recording rule of these files defines it; unless one elsewhere "
            "does, the query selects no series and the alert never fires (an analysis gets no result)"
        )
    return found


POLICY = Policy(
    name="alert-metric-is-exported",
    description=(
        "Alerting rules (PrometheusRule, VMRule, a rules file in a ConfigMap) and canary analyses (Argo Rollouts "
        "AnalysisTemplate, Flagger MetricTemplate) name model-server series as the engine exports them."
    ),
    catalog="S7",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Spell engine series as the engine exports them (vllm:time_to_first_token_seconds_bucket, "
        "vllm:num_requests_waiting), or add the recording rule that defines the name the query uses."
    ),
    check_stack=_check,
    rationale=(
        "Prometheus stores a scraped name as exposed, colon included (https://prometheus.io/docs/concepts/data_model/"
        "#metric-names-and-labels), and vLLM names every series vllm:... (vllm v0.33.0 vllm/v1/metrics/loggers.py; "
        "components/vllm_metrics.py), so an underscore spelling selects nothing: the alert never fires and a canary "
        "analysis has no data; so does a family vLLM hides from 0.11 (vllm:gpu_cache_usage_perc, components/vllm_metrics.RETIRED), "
        "and a name under an engine's own name where its series carry another prefix (Triton's nv_..., the engine "
        "table's metrics). Advice: monitoring, not serving, is blind."
    ),
)
