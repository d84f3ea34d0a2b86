"""S7: every custom metric an HPA scales on is served by an adapter rule, and a monitor scrapes the pods.

An HPA whose Pods/Object/External metric no Prometheus Adapter rule produces shows `<unknown>`
and never scales; a rule with nothing scraping the pods returns no series, to the same effect
(policy catalogue S7, and row 42 "dangling ServiceMonitor"). KEDA's Prometheus triggers query
Prometheus directly, so for a ScaledObject only the monitor half applies.

"The same stack" is the set of resources the pack sees at once: a Pulumi stack's resources (the
adapter is a Helm release whose values hold its rules), or every manifest given to one `python -m
policies check` run (the adapter's ConfigMap or a Release document). A set that holds no adapter
configuration at all, or no monitor at all, may get them from elsewhere (a cluster-wide
adapter, a shared monitoring repository): for the monitor half it is not judged (and where the set holds monitors
that select none of the scaled pods, that is advice: a scrape outside the files may still collect them, unless
`requireInSameSet`), and an HPA's
custom metric in a set with no adapter configuration is advice (``no_adapter_findings``, brief
autoscale50: spent set 78's DCGM_FI_DEV_GPU_UTIL Pods metric with no adapter in the repository), unless the
`requireInSameSet` option asks for both to be in the set. Once a set holds an adapter, every HPA's custom metric in
it must be served by its rules.
"""

from __future__ import annotations

import re

from components.vllm_metrics import retired_in
from policies.autoscaling.query_series import (
    dcgm_pods_findings,
    nim_per_pod_findings,
    prometheus_queries,
    series_findings,
    target_engines,
    unscoped_findings,
)
from policies.autoscaling.scalers import (
    AdapterRules,
    adapter_rules,
    hpa_metrics,
    is_hpa,
    is_scaled_object,
    max_replicas,
    monitored_by,
    monitors,
    scale_target,
    scalers,
    triggers,
    workloads,
)
from policies.framework import Policy, Resource, unproven
from policies.kube import ISVC_TYPE, get
from policies.reading.engine_metric_names import (
    foreign_prefixed,
    gateway_unexported,
    misspelled,
    servers_near,
    vllm_exports_retired,
)
from policies.reading.promql import server_series, shape

_UNSERVED = "the HPA shows <unknown> for it and never scales"
_UNSCRAPED = "no series reach Prometheus, so the autoscaler sees no load and never scales"
# The monitor half proves only what the files hold: a scrape configured outside them (the Prometheus chart's
# annotation-based `kubernetes-pods` job, a PodMonitor of a shared monitoring repository) may still collect the pods'
# series, and the model serves at the autoscaler's floor meanwhile. Independent labellers of held-out sets 107 to 118
# filed 7 of their 8 S7 labels advisory (the one blocking: an adapter configuration that is not valid YAML).
_ELSEWHERE = (
    " (advice: a scrape configured outside these files, such as Prometheus's annotation-based pod job or a monitor of "
    "another repository, may still collect them; requireInSameSet makes this block where monitors live beside the HPAs)"
)


def _custom_metrics(scaler: Resource) -> list:
    return [m for m in hpa_metrics(scaler) if m.type in ("Pods", "Object", "External")]


def per_pod_query_findings(scaler: Resource) -> list[str]:
    """KEDA prometheus queries (query_series.prometheus_queries) that return one series per model-server pod: a server's load
    series (policies/reading/promql.py: the engine table's metric families, DCGM's) not aggregated over pods. KEDA's
    prometheus scaler refuses a result of more than one element ("prometheus query ... returned multiple elements",
    kedacore/keda v2.20.2 pkg/scalers/prometheus_scaler.go L273-274), so the trigger fails as soon as a second replica
    runs (an aggregate, sum(vllm:num_requests_waiting), errors never; that it selects every tenant's pods is
    query_series.unscoped_findings' advice)."""
    found = []
    for path, query, _ in prometheus_queries(scaler):
        series = server_series(query)
        if not series:
            continue
        engine = series[0][1]
        if shape(query) == "per-pod":
            who = {"vllm": "vLLM pod", "DCGM GPU": "GPU (DCGM)"}.get(engine, f"{engine} pod")
            found.append(
                f"{path} {query.strip()} returns one series per {who}, and KEDA's prometheus scaler fails on a result "
                f"of more than one element, so the trigger errors as soon as two replicas run; aggregate it (sum(...) or "
                f"avg(...))"
            )
    # At most one replica (review 32 R19): two pods run only while a rollout's surge pod starts beside the old one,
    # so the error is brief and the set does not prove it happens: advice that says so.
    if max_replicas(scaler)[1] == 1:
        note = " (max replicas 1: two pods run only during a rollout's surge, when the trigger errors)"
        found = [unproven(m + note) for m in found]
    return found


def misspelled_series_findings(scaler: Resource) -> list[str]:
    """Prometheus queries (query_series.prometheus_queries) naming an engine series in a spelling the engine does not export
    (policies/reading/engine_metric_names.py): ``vllm_num_requests_running`` where vLLM exports
    ``vllm:num_requests_running`` (vllm v0.33.0 vllm/v1/metrics/loggers.py L527, components/vllm_metrics.py).
    Prometheus stores the name with its colon, so the query returns no series and the trigger never fires: blocking
    when the colon spelling is a series the engine exports, advice when the pack's table does not hold it."""
    found = []
    for path, query, _ in prometheus_queries(scaler):
        for miss in misspelled(query):
            if miss.right:
                found.append(
                    f"{path} names {miss.name}, which {miss.engine} does not export: it exports {miss.right} (Prometheus "
                    f"keeps the colon), so the query returns no series and the autoscaler never sees load; query "
                    f"{miss.right}"
                )
            else:
                found.append(
                    unproven(
                        f"{path} names {miss.name}, a {miss.engine} metric spelled with an underscore where "
                        f"{miss.engine} names its series with a colon ({', '.join(miss.exported[:4])}, ...); unless "
                        f"a recording rule defines it, the query returns no series and the autoscaler never scales"
                    )
                )
    return found


def retired_series_findings(scaler: Resource, candidates: list) -> list[str]:
    """Prometheus queries (query_series.prometheus_queries) naming a vLLM family the server's release no longer exports by
    default (components/vllm_metrics.RETIRED: vllm:gpu_cache_usage_perc, hidden from 0.11 unless the server runs with
    --show-hidden-metrics-for-version, renamed vllm:kv_cache_usage_perc in 0.9.2; set 35 kandakji/sample-aws-eks-auto-mode
    examples/gpu/prometheus-scaledObject.yaml), or an engine series under a prefix the engine does not use
    (triton_... where Triton exports nv_...). Blocking where the target's image names a release that hides it (or a
    moving tag: the newest release); advice where its release is not known; silent where it still exports it."""
    found: list[str] = []
    for path, query, _ in prometheus_queries(scaler):
        for family in retired_in(query):
            target = scaler if scaler.type == ISVC_TYPE else getattr(scale_target(scaler, candidates), "resource", None)
            exports = vllm_exports_retired(family, [target] if target is not None else [])
            if exports:
                continue
            text = (
                f"{path} names {family.name}, which vLLM renamed {family.replacement} in 0.9.2 and stops exporting by "
                f"default from {family.hidden_from} (created only with --show-hidden-metrics-for-version; a later "
                f"release drops it)"
            )
            if exports is False:
                found.append(
                    f"{text}, and the scaled vLLM server runs such a release (its tag, or a moving one: the newest): "
                    f"the query returns no series and the autoscaler never sees load; query {family.replacement}"
                )
            else:
                found.append(
                    unproven(
                        f"{text}; the scaled server's release is not known here (a digest, a tag that names none, or "
                        f"a target outside the files), and on {family.hidden_from} or later the query returns no series "
                        f"and the autoscaler never sees load; query {family.replacement} (exported since 0.9.2)"
                    )
                )
        for miss in gateway_unexported(query):
            found.append(
                unproven(
                    f"{path} names {miss.name}, a series LiteLLM's Prometheus integration does not export (its request "
                    f"counters are {' and '.join(miss.exported)}; components/litellm_metrics.json); unless a recording "
                    f"rule or another exporter defines it, the query returns no series and the autoscaler never sees load"
                )
            )
        for miss in foreign_prefixed(query):
            found.append(
                unproven(
                    f"{path} names {miss.name}, which {miss.engine} does not export: its series are named "
                    f"{miss.prefix}... ({', '.join(miss.exported)}, ...); unless something else defines the name, the query returns no "
                    f"series and the autoscaler never sees load"
                )
            )
    return found


def retired_rule_findings(rules: AdapterRules, resources: list[Resource]) -> list[tuple[str, str]]:
    """Prometheus Adapter rules whose seriesQuery or metricsQuery names a vLLM family the run's vLLM servers no longer
    export by default (components/vllm_metrics.RETIRED; silent where every one of them is known to export it: set 15
    AyeniOluwatosinOlawale/vllm-k8s-stack vllm/hpa.yaml serves vllm:gpu_cache_usage_perc to a v0.6.3 server). Advice:
    the rule serves nothing on a release that hides it, whichever HPA reads it."""
    found: list[tuple[str, str]] = []
    for source, path, query in rules.queries:
        near = servers_near(query, resources)
        for family in retired_in(query):
            if vllm_exports_retired(family, near):
                continue
            found.append(
                (
                    source,
                    unproven(
                        f"adapter rule {path} queries {family.name}, which vLLM renamed {family.replacement} in 0.9.2 "
                        f"and stops exporting by default from {family.hidden_from} (only --show-hidden-metrics-for-"
                        f"version keeps it); on such a release the rule serves no series and {_UNSERVED}; query "
                        f"{family.replacement}"
                    ),
                )
            )
    return found


def unknown_engine_name_findings(scaler: Resource) -> list[str]:
    """HPA Pods/Object metric names under an engine's underscore prefix (``vllm_...``) whose colon spelling is no series
    the engine exports, in a set with no adapter configuration (read only then: a rule's name.as may call its output
    anything). The usual adapter rename, ``vllm_num_requests_waiting`` for ``vllm:num_requests_waiting``, stays silent;
    ``vllm_kv_cache_utilization`` or ``vllm_time_per_output_token_ms`` (held-out set 17, kevinmeix1/kserve-model-serving-
    platform) names nothing vLLM exports, so only a rule that renames some other series could serve it. Advice: the
    pack's vLLM table (components/vllm_metrics.py) holds the series the pack reads, not every one."""
    found: list[str] = []
    for metric in _custom_metrics(scaler):
        if metric.type == "External" or metric.name is None:
            continue
        for miss in misspelled(metric.name):
            if miss.right:
                continue
            shown = [n for n in miss.exported if not n.endswith(("_bucket", "_sum", "_count"))][:4]
            found.append(
                unproven(
                    f"{metric.path}.metric.name {metric.name} matches no {miss.engine} series of the pack's table, "
                    f"with its colon or without ({', '.join(shown)}, ...: components/vllm_metrics.py, read from each "
                    f"release's vllm/v1/metrics/loggers.py), and the files hold no Prometheus "
                    f"Adapter rule that renames a series to it; unless a rule elsewhere does, {_UNSERVED}"
                )
            )
    return found


# Metric names another adapter serves, not Prometheus Adapter: Google's Stackdriver adapter ("prometheus.googleapis.com|
# vllm:num_requests_running|gauge", "custom.googleapis.com|..."), Datadog's ("datadogmetric@ns:name"), and KEDA's own
# metrics server, which answers only the names of the HPAs it renders ("s0-prometheus-...").
_OTHER_ADAPTER = re.compile(r"[|@]|googleapis\.com|^s\d+-")


def no_adapter_findings(scaler: Resource, already: list[str], has_keda: bool) -> list[str]:
    """Advice on each custom metric (Pods, Object; External unless the run holds KEDA, whose metrics server answers
    external metrics) of an HPA in a run that holds no Prometheus Adapter configuration at all: spent set 78
    ishaangulati8/kubernetes-gpu-inference@af4c161a hpa.yaml and run.yaml (Pods metric DCGM_FI_DEV_GPU_UTIL, no adapter
    anywhere in the repository). The custom metrics API answers only the names an installed adapter's rules serve
    (https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/#support-for-custom-metrics); one may be
    installed cluster-wide from elsewhere, so this is advice. A metric another finding of this set already names
    (``already``), and a name another adapter's form (Stackdriver, Datadog, KEDA's) are left alone."""
    found: list[str] = []
    for metric in _custom_metrics(scaler):
        name = metric.name
        if not isinstance(name, str) or not name or "{" in name or _OTHER_ADAPTER.search(name):
            continue
        if (metric.type == "External" and has_keda) or any(f"{metric.path}.metric.name {name} " in m for m in already):
            continue
        api = "external.metrics.k8s.io" if metric.type == "External" else "custom.metrics.k8s.io"
        found.append(
            unproven(
                f"{metric.path}.metric.name {name}: the files hold no Prometheus Adapter configuration (no adapter "
                f"ConfigMap, chart release or rules) to serve it on {api}; unless an adapter installed elsewhere in "
                f"the cluster has a rule that names it, {_UNSERVED}"
            )
        )
    return found


def engine_query_findings(scaler: Resource, candidates: list, resources: list[Resource]) -> list[str]:
    """The readings of policies/autoscaling/query_series.py for one scaler's Prometheus queries, against the engines its
    target runs: unscoped, another engine's or no engine's series, one series per NIM pod."""
    if not prometheus_queries(scaler):
        return []
    engines, only_servers = target_engines(scaler, candidates, resources)
    return (
        unscoped_findings(scaler, engines)
        + series_findings(scaler, engines, only_servers)
        + nim_per_pod_findings(scaler, engines)
    )


def _exporter_series(name: object) -> bool:
    """A DCGM GPU series: dcgm-exporter's pods export it (the GPU's user is a label), not the model server's, so whether
    a monitor scrapes the model server's pods says nothing about it (dcgm_pods_findings judges how it is served)."""
    return isinstance(name, str) and "dcgm_fi_" in name.lower()


def _exporter_query(trigger: object) -> bool:
    """A KEDA prometheus trigger whose query names DCGM GPU series and no other series family of the table."""
    query = get(trigger, "metadata", "query")
    found = server_series(query) if isinstance(query, str) else []
    return bool(found) and all(engine == "DCGM GPU" for _, engine in found)


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    require = bool(config.get("requireInSameSet"))
    rules = adapter_rules(resources)
    has_monitors = bool(monitors(resources))
    candidates = workloads(resources)
    has_keda = any(is_scaled_object(r) for r in resources)
    findings: list[tuple[str, str]] = retired_rule_findings(rules, resources)
    for isvc in (r for r in resources if r.type == ISVC_TYPE):
        findings.extend((isvc.name, m) for m in per_pod_query_findings(isvc) + misspelled_series_findings(isvc))
        findings.extend((isvc.name, m) for m in retired_series_findings(isvc, candidates))
        findings.extend((isvc.name, m) for m in engine_query_findings(isvc, candidates, resources))
    for scaler in scalers(resources):
        if is_scaled_object(scaler):
            findings.extend((scaler.name, m) for m in per_pod_query_findings(scaler) + misspelled_series_findings(scaler))
            findings.extend((scaler.name, m) for m in retired_series_findings(scaler, candidates))
            findings.extend((scaler.name, m) for m in engine_query_findings(scaler, candidates, resources))
        findings.extend((scaler.name, m) for m in dcgm_pods_findings(scaler, resources))
        custom = _custom_metrics(scaler) if is_hpa(scaler) else []
        if custom and not rules.present and not require:
            misnamed = unknown_engine_name_findings(scaler)
            findings.extend((scaler.name, m) for m in misnamed + no_adapter_findings(scaler, misnamed, has_keda))
        if (rules.present or require) and not scaler.type.startswith("kubernetes:autoscaling/v1:"):
            for metric in custom:
                external = metric.type == "External"
                served = rules.external if external else rules.custom
                if metric.name is None or metric.name in served or (rules.external_any if external else rules.custom_any):
                    continue
                api = "external.metrics.k8s.io" if external else "custom.metrics.k8s.io"
                where = (
                    f"the adapter rules in this stack serve {', '.join(sorted(served)) or 'no such metric'}"
                    if rules.present
                    else "this stack holds no Prometheus Adapter configuration"
                )
                findings.append(
                    (
                        scaler.name,
                        f"{metric.path}.metric.name {metric.name} is not produced by any Prometheus "
                        f"Adapter rule on {api} ({where}); {_UNSERVED}",
                    )
                )
        uses_prometheus = any(not _exporter_series(m.name) for m in custom) or (
            is_scaled_object(scaler)
            and any(t.get("type") == "prometheus" and not _exporter_query(t) for _, t in triggers(scaler))
        )
        if not uses_prometheus or not (has_monitors or require):
            continue
        target = scale_target(scaler, candidates)
        if target is None:
            continue  # the workload is not in the set: nothing to match a monitor against
        if not monitored_by(target, resources):
            message = (
                f"no PodMonitor or ServiceMonitor in this stack selects the pods of "
                f"{target.kind}/{target.name} (labels {dict(sorted(target.pod_labels.items()))}); {_UNSCRAPED}"
            )
            findings.append((scaler.name, message if require else unproven(message + _ELSEWHERE)))
    return findings


POLICY = Policy(
    name="hpa-custom-metric-is-served",
    description=(
        "Every custom metric an HPA scales on must be produced by a Prometheus Adapter rule of the same stack, "
        "a PodMonitor or ServiceMonitor must scrape the scaled pods (advice where the files hold monitors that select none "
        "of them: a scrape outside the files may collect them), and a KEDA Prometheus query (a ScaledObject's, "
        "or a KServe InferenceService's external metric) must return one series, not one per model-server pod (the "
        "engine table's series of any engine, DCGM's per GPU), and name an engine's series as the engine exports them "
        "(vllm:num_requests_running, not vllm_num_requests_running; vllm:kv_cache_usage_perc, not the "
        "vllm:gpu_cache_usage_perc vLLM hides from 0.11; nv_..., not triton_...); advice, for every engine of "
        "components/engine_metrics.json, on a query selecting a model-server series with no label matcher (every tenant's "
        "pods), naming another engine's series or one no engine exports, or a bare NIM series unaggregated; an HPA Pods "
        "metric on a DCGM series (the exporter's pods own it)."
    ),
    catalog="S7",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Add a Prometheus Adapter rule whose name.as is the HPA's metric name (rules.custom for Pods/Object "
        'metrics, rules.external for External ones), e.g. seriesQuery vllm:num_requests_running{namespace!="",pod!=""} '
        "renamed without colons, and a PodMonitor whose selector matches the predictor pods' labels "
        "(serving.kserve.io/inferenceservice: <name>) in their namespace. Set requireInSameSet to true where the "
        "adapter and monitors must live beside the HPAs."
    ),
    config_schema={
        "requireInSameSet": {
            "type": "boolean",
            "default": False,
            "description": "Judge HPAs even when the set holds no adapter configuration or no monitor at all "
            "(default false: such a set is assumed to rely on ones deployed elsewhere).",
        },
    },
    check_stack=_check,
    rationale=(
        "An HPA metric that no adapter serves shows `<unknown>` and the HPA never scales "
        "(https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/#support-for-custom-metrics); Prometheus "
        "Adapter only serves series its rules name (https://github.com/kubernetes-sigs/prometheus-adapter/blob/master/docs/config.md), "
        "and a rule returns nothing when no ServiceMonitor or PodMonitor scrapes the pods. vLLM creates "
        "vllm:gpu_cache_usage_perc and vllm:gpu_prefix_cache_queries/_hits only with --show-hidden-metrics-for-version "
        "from 0.11 (vllm/v1/metrics/loggers.py, 0.11 line: 'Deprecated in 0.9.2 - Renamed as vllm:kv_cache_usage_perc'; "
        "components/vllm_metrics.RETIRED). Catalogue S7 and row 42."
    ),
)
