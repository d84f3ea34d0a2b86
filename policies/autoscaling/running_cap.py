"""S6: an autoscaler target on vLLM's running requests above what one pod's vLLM runs at once is never reached.

``vllm:num_requests_running`` counts the sequences in the running batch, which the scheduler keeps at or below
``--max-num-seqs`` ("Maximum number of sequences to be processed in a single iteration"; vllm/config/scheduler.py
``max_num_seqs``): every request beyond it waits in ``vllm:num_requests_waiting``. So a per-pod target above the cap
(an HPA ``Pods`` metric's ``averageValue``, an ``External`` one's ``averageValue``, a KEDA prometheus trigger's
``threshold``, which KEDA hands the HPA as an AverageValue per replica unless ``metricType: Value``) is never reached:
the HPA's desired count, replicas x average / target, stays below the current one, so it never scales out and scales in
toward its floor instead, however long the queue grows.

Proven only where the files show it: the scaler's target is a workload of the files whose vLLM sets ``--max-num-seqs``
to a literal (times ``--data-parallel-size``, each rank running its own batch; pipeline parallelism is left out), the
metric is the bare series (a KEDA query that aggregates it with sum, avg or max and nothing else), and the target is
an average per pod. Anything else is silent: a target the files do not bound is not judged.

The per-pod bound holds only for the target's own pods. An HPA ``Pods`` metric is read from the pods of the target's
selector; but a KEDA query's value, and an HPA ``External`` metric's, is whatever the query sums, which the HPA divides
by the target's replica count (an External metric's AverageValue). A query over the namespace or the fleet
(``{namespace="llm"}``, no selector) also sums other servers' requests, so a threshold above one pod's cap is reachable.
So these block only where the query's selector names the target: an equality matcher on its name, on one of its pod
template's label values, or on the model name it serves (vLLM's ``model_name`` label), or a pod-name regex of its name
(``pod=~"NAME-.*"``); any other selector is advice.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from policies.autoscaling.scalers import hpa_metrics, is_hpa, is_scaled_object, target_number, triggers
from policies.framework import Resource, unproven
from policies.kube import as_dict, as_int, as_list, as_quantity, get
from policies.reading.vllm_args import parallel_size, served_model, vllm_servers

# The running-requests gauge in vLLM's spelling, the Prometheus adapter's and GKE's (prometheus.googleapis.com|...|gauge).
_RUNNING = re.compile(r"(?<![\w])vllm[:_]num_requests_running(?![\w])")
# A KEDA query that is the series alone, or one aggregation of it (by labels allowed): its value per replica is bounded
# by the per-pod cap.
_BOUNDED_QUERY = re.compile(
    r"^\s*(?:(?:sum|avg|max)\s*(?:(?:by|without)\s*\([^)]*\)\s*)?\(\s*)?vllm[:_]num_requests_running\s*(?:\{[^}]*\})?"
    r"\s*\)?\s*(?:(?:by|without)\s*\([^)]*\)\s*)?$"
)
_MATCHER = re.compile(r"""([A-Za-z_][\w.]*)\s*(=~|!~|!=|=)\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')""")
# Labels that never name one workload's pods (a namespace, a scrape job, a node...).
_SCOPE_LABELS = {"namespace", "exported_namespace", "job", "instance", "endpoint", "container", "cluster", "node"}
# A pod-name regex of the workload's name: NAME-.* and the like.
_POD_REGEX_TAILS = ("", ".*", ".+", "-.*", "-.+")
_POD_LABELS = {"pod", "pod_name", "kubernetes_pod_name", "exported_pod"}

_FLAG_VALUES = {"true", "false", "yes", "no", "1", "0", "enabled", "disabled"}  # label values that name nothing

Matchers = list[tuple[str, str, str]]


def batch_cap(resource: Any) -> Optional[tuple[int, str]]:
    """(requests one pod's vLLM runs at once, the flags that say so): a literal --max-num-seqs times
    --data-parallel-size, from the first vLLM server; None when --max-num-seqs is not a literal or pipeline
    parallelism is on (its default depends on the GPU and the release)."""
    for server in vllm_servers(resource):
        seqs = as_int(server.args.get("max-num-seqs"))
        if seqs is None or seqs <= 0 or parallel_size(server.args, "pipeline-parallel-size") != 1:
            return None
        dp = parallel_size(server.args, "data-parallel-size")
        if dp is None:
            return None
        return seqs * dp, f"--max-num-seqs {seqs}" + (f" x --data-parallel-size {dp}" if dp > 1 else "")
    return None


def _query_matchers(query: str) -> Matchers:
    """The label matchers of a bounded query's selector, (label, operator, value)."""
    selector = query[query.index("{") + 1 : query.index("}")] if "{" in query and "}" in query else ""
    return [(m.group(1), m.group(2), m.group(3) if m.group(3) is not None else m.group(4)) for m in _MATCHER.finditer(selector)]


def _external_matchers(scaler: Resource, path: str) -> Matchers:
    """An HPA External metric's selector as matchers (matchLabels, and an In with one value)."""
    index = int(path.rsplit("metrics[", 1)[1].split("]", 1)[0])
    selector = as_dict(get(as_list(get(scaler.props, "spec", "metrics"))[index], "external", "metric", "selector"))
    found = [(str(k), "=", str(v)) for k, v in as_dict(selector.get("matchLabels")).items()]
    for expression in as_list(selector.get("matchExpressions")):
        expression = as_dict(expression)
        values = as_list(expression.get("values"))
        if expression.get("operator") == "In" and len(values) == 1:
            found.append((str(expression.get("key")), "=", str(values[0])))
    return found


def _targets(scaler: Resource) -> list[tuple[str, str, float, Optional[Matchers]]]:
    """(field, metric, per-pod target, the selector's matchers: None where the metric is read from the target's own
    pods) of every target on the running-requests gauge that is an average per pod."""
    found: list[tuple[str, str, float, Optional[Matchers]]] = []
    if is_hpa(scaler):
        for metric in hpa_metrics(scaler):
            if metric.type not in ("Pods", "External") or not metric.name or not _RUNNING.search(metric.name):
                continue
            key, value = target_number(metric.target)
            if key == "averageValue" and value is not None:
                matchers = _external_matchers(scaler, metric.path) if metric.type == "External" else None
                found.append((f"{metric.path}.target.averageValue", metric.name, value, matchers))
    elif is_scaled_object(scaler):
        for path, trigger in triggers(scaler):
            meta = as_dict(trigger.get("metadata"))
            query, value = meta.get("query"), as_quantity(meta.get("threshold"))
            if trigger.get("type") != "prometheus" or not isinstance(query, str) or value is None:
                continue
            if str(trigger.get("metricType") or "AverageValue") != "AverageValue" or not _BOUNDED_QUERY.match(query):
                continue
            found.append((f"{path}.metadata.threshold", query.strip(), value, _query_matchers(query)))
    return found


def _names_target(matchers: Matchers, target: Any) -> bool:
    """Whether a selector picks the target's pods alone (module docstring): an equality on its name, a pod label
    value of its template or the model its vLLM serves, or a pod-name regex of its name."""
    names = {target.name} | {str(v) for v in target.pod_labels.values() if str(v).lower() not in _FLAG_VALUES}
    for server in vllm_servers(target.resource):
        names |= set(str(server.args.get("served-model-name") or "").split()) | {served_model(server) or ""}
    names.discard("")
    for label, op, value in matchers:
        key = label.rsplit(".", 1)[-1]
        if op == "=" and key not in _SCOPE_LABELS and value in names:
            return True
        if op == "=~" and key in _POD_LABELS and any(value == target.name + tail for tail in _POD_REGEX_TAILS):
            return True
    return False


def running_cap_findings(scaler: Resource, target: Optional[Any]) -> list[str]:
    """Findings for an HPA or ScaledObject whose per-pod target on vLLM's running requests exceeds the target
    workload's batch cap (``target``: the Workload of the files the scaler names, or None)."""
    if target is None:
        return []
    cap = batch_cap(target.resource)
    if cap is None:
        return []
    limit, flags = cap
    found = []
    for field, metric, value, matchers in _targets(scaler):
        if value <= limit:
            continue
        bound = (
            f"vLLM runs at most {limit} requests at once per pod ({flags} in {target.kind}/{target.name}), so the "
            f"running-requests average never reaches {value:g}; the HPA never scales out and scales in toward its floor "
            f"instead, while the queue grows in vllm:num_requests_waiting; aim it below {limit} or scale on the queue"
        )
        if matchers is None or _names_target(matchers, target):
            found.append(f"{field} = {value:g} on {metric}: {bound}")
            continue
        found.append(
            unproven(
                f"{field} = {value:g} on {metric}: the selector does not name {target.kind}/{target.name}'s pods (its "
                f"name, a pod label value or its served model), so the sum may count other servers' requests, and then "
                f"{value:g} is reachable; if it counts this workload's pods alone, {bound}"
            )
        )
    return found
