"""G107 keda-metric-name-unread: a KEDA trigger's ``metadata.metricName`` that its scaler no longer reads.

KEDA 2.10 deprecated setting ``metricName`` in a trigger's metadata and 2.12 removed it ("Remove deprecated
`metricName` from trigger metadata section (#4899)", kedacore/keda v2.20.2 CHANGELOG.md:866, the v2.12.0 Breaking
Changes): each scaler names its metric itself (the prometheus scaler ``GenerateMetricNameWithIndex(triggerIndex,
"prometheus")``, pkg/scalers/prometheus_scaler.go:153 at v2.20.2). KEDA's typed config reads only the parameters of
the scaler's metadata struct and by default ignores the rest (pkg/scalers/scalersconfig/typed_config.go:526-529: the
check for unexpected parameters is off unless KEDA_CHECK_UNEXPECTED_SCALERS_PARAMS is enabled), so the setting does
nothing: the HPA's external metric is s<index>-prometheus whatever it says, and a dashboard, alert or Prometheus
Adapter rule written for the name the author chose finds no such metric. Advice: the scaler still works.

Silent for the scalers whose metadata struct still reads ``metricName`` at v2.20.2 (``_READS``: a ``keda:"name=
metricName"`` tag), for ``external`` and ``external-push`` (KEDA hands their metadata to the author's scaler, which may
read it), and for a trigger type components/keda_scalers.json does not list (a scaler that parses by hand).
Spent sets 115 (PhenixForge/vllm-serving-kubernetes-platform, Kelvinskell/k8s-llm-serving-platform) and 122
(ahmedwaleedmalik/k8s-llm-inference-platform), all prometheus triggers, labelled G107 advisory.
"""

from __future__ import annotations

from components.keda_scalers import scaler_table
from policies.framework import Policy, Resource
from policies.kube import SCALED_OBJECT_TYPE, as_dict, as_list, get

SCALED_JOB_TYPE = "kubernetes:keda.sh/v1alpha1:ScaledJob"

# Scalers whose metadata struct reads metricName at kedacore/keda v2.20.2 (68a5b502): aws_cloudwatch_scaler.go:34,
# azure_monitor_scaler.go:52, elasticsearch_scaler.go:45, huawei_cloudeye_scaler.go:30, mysql_scaler.go:36,
# opensearch_scaler.go:49, solarwinds_scaler.go:30; and the external scalers, whose metadata KEDA passes on.
_READS = frozenset(
    {
        "aws-cloudwatch",
        "azure-monitor",
        "elasticsearch",
        "huawei-cloudeye",
        "mysql",
        "opensearch",
        "solarwinds",
        "external",
        "external-push",
    }
)


def _check(resource: Resource, config: dict) -> list[str]:
    table = scaler_table()
    found: list[str] = []
    for i, trigger in enumerate(as_list(get(resource.props, "spec", "triggers"))):
        trigger = as_dict(trigger)
        kind_of, metadata = trigger.get("type"), as_dict(trigger.get("metadata"))
        if not isinstance(kind_of, str) or kind_of in _READS or kind_of not in table.scalers:
            continue
        name = metadata.get("metricName")
        if name is None or name == "":
            continue
        generated = f" (s{i}-prometheus)" if kind_of == "prometheus" else ""
        found.append(
            f"spec.triggers[{i}] ({kind_of}).metadata.metricName {name!r}: KEDA removed metricName from trigger "
            f"metadata in 2.12 (kedacore/keda#4899) and the {kind_of} scaler names its metric itself{generated}, so "
            f"the setting does nothing and a dashboard or rule written for {name!r} finds no such metric; remove it"
        )
    return found


POLICY = Policy(
    name="keda-metric-name-unread",
    description=(
        "A KEDA trigger does not set metadata.metricName, which KEDA removed in 2.12 and its scaler ignores (the "
        "metric is named by KEDA)."
    ),
    catalog="G107",
    severity="low",
    enforcement="advisory",
    remediation_steps="Remove metricName from the trigger's metadata; refer to the metric KEDA generates (s<index>-<scaler>).",
    resource_types=(SCALED_OBJECT_TYPE, SCALED_JOB_TYPE),
    check_resource=_check,
    rationale=(
        "KEDA removed the trigger metadata's metricName in 2.12 (kedacore/keda v2.20.2 CHANGELOG.md:866, #4899) and "
        "ignores parameters its scaler's typed config does not read (pkg/scalers/scalersconfig/typed_config.go:526-529)."
    ),
)
