"""S58 keda-trigger-metadata-complete: every trigger of a KEDA ScaledObject or ScaledJob gives the metadata its scaler
requires.

KEDA builds each trigger's scaler from a typed config: a field of the scaler's metadata struct with neither
``optional``, a ``default=`` nor ``deprecated=`` in its ``keda`` tag is required, looked up in the order its tag names
(the trigger's ``metadata``; ``resolvedEnv`` through ``<name>FromEnv``, the target container's env; ``authParams``
from the TriggerAuthentication of ``authenticationRef``). A required one found nowhere fails with ``missing required
parameter "<name>" in [<order>]`` (kedacore/keda v2.20.2 pkg/scalers/scalersconfig/typed_config.go:247-271): the
scaler is not built, the ScaledObject never becomes Ready and KEDA creates no HPA, so nothing scales. A parameter
tagged ``deprecated=`` that is given fails the same way with the deprecation message (:249-251): advice, since that
depends on the KEDA release installed (the cpu trigger's ``type``, removed in v2.18).

Which scaler requires what is components/keda_scalers.json, read from kedacore/keda at the release the pack pins
(tools/read_keda_scalers.py: pkg/scaling/scalers_builder.go's trigger types and each scaler file's ``keda`` tags).
Set 42: fuhengwu2021/coderepo 08/code/keda_scaledobject.yaml@b874b44, a prometheus trigger with serverAddress,
metricName and threshold but no ``query`` (pkg/scalers/prometheus_scaler.go:49-52 at v2.20.2).

Silent for a trigger type the table does not list (an external scaler's own metadata, a scaler that parses by hand),
for metadata that is not a mapping (a template), and where a parameter may come from a TriggerAuthentication
(``authenticationRef`` set, the parameter looked up in authParams) or the target's env (``<name>FromEnv``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from components.keda_scalers import Scaler, ScalerParam, scaler_table
from policies.framework import Policy, Resource, unproven
from policies.kube import SCALED_OBJECT_TYPE, as_dict, as_list, get

SCALED_JOB_TYPE = "kubernetes:keda.sh/v1alpha1:ScaledJob"


def _given(param: ScalerParam, metadata: Mapping, trigger: Mapping) -> bool:
    """Whether KEDA may find the parameter: a non-empty metadata value, ``<name>FromEnv``, or a TriggerAuthentication
    (typed_config.go:500-525 configParamValue)."""
    for name in param.names:
        if "triggerMetadata" in param.order and str(metadata.get(name) if metadata.get(name) is not None else "").strip():
            return True
        if "resolvedEnv" in param.order and metadata.get(f"{name}FromEnv") not in (None, ""):
            return True
    return "authParams" in param.order and bool(trigger.get("authenticationRef"))


def _trigger_findings(i: int, trigger: Mapping, scaler: Scaler, kind: str, release: str) -> list[str]:
    metadata: Any = trigger.get("metadata")
    if metadata is None:
        metadata = {}
    if not isinstance(metadata, Mapping):
        return []
    kind_of = trigger.get("type")
    where = f"spec.triggers[{i}] ({kind_of})"
    found = []
    missing = [p for p in scaler.required if p.order and not _given(p, metadata, trigger)]
    if missing:
        names = ", ".join(" or ".join(p.names) for p in missing)
        looked = "; ".join(f"{'/'.join(p.names)} in [{', '.join(p.order)}]" for p in missing)
        found.append(
            f"{where}: the trigger gives no {names}, which KEDA's {kind_of} scaler requires ({looked}; kedacore/keda "
            f"{release} {scaler.file}); KEDA fails with 'missing required parameter' and never builds the scaler, so "
            f"the {kind} never becomes Ready and {'no HPA is created: nothing scales' if kind == 'ScaledObject' else 'no Job is started'}; "
            f"set {names} in the trigger's metadata"
        )
    for param in scaler.deprecated:
        name = next((n for n in param.names if n in metadata), None)
        if name is not None:
            found.append(
                unproven(
                    f"{where}: metadata.{name} is a parameter KEDA refuses from the release its deprecation names "
                    f"({param.message.strip()} - kedacore/keda {release} {scaler.file}); on such a KEDA the scaler is "
                    f"not built and the {kind} never becomes Ready; remove it"
                )
            )
    return found


def _check(resource: Resource, config: dict) -> list[str]:
    table = scaler_table()
    kind = "ScaledJob" if resource.type == SCALED_JOB_TYPE else "ScaledObject"
    found: list[str] = []
    for i, trigger in enumerate(as_list(get(resource.props, "spec", "triggers"))):
        trigger = as_dict(trigger)
        kind_of = trigger.get("type")
        scaler = table.scalers.get(kind_of) if isinstance(kind_of, str) else None
        if scaler is not None:
            found += _trigger_findings(i, trigger, scaler, kind, table.release)
    return found


POLICY = Policy(
    name="keda-trigger-metadata-complete",
    description="Every trigger of a KEDA ScaledObject or ScaledJob gives the metadata its scaler requires (a "
    "prometheus trigger's query, a cron trigger's timezone, ...), else KEDA never builds the scaler and nothing "
    "scales; advice for a parameter KEDA's newer releases refuse as deprecated.",
    catalog="S58",
    severity="high",
    enforcement="mandatory",
    remediation_steps="Give the trigger every parameter its scaler requires (KEDA's scaler docs list them), in metadata, "
    "as <name>FromEnv, or from a TriggerAuthentication where the scaler reads it there.",
    resource_types=(SCALED_OBJECT_TYPE, SCALED_JOB_TYPE),
    check_resource=_check,
    rationale=(
        "KEDA parses each trigger into its scaler's typed config and refuses a missing required parameter "
        "(kedacore/keda v2.20.2 pkg/scalers/scalersconfig/typed_config.go:247-271); the ScaledObject then reports "
        "Ready False and KEDA creates no HPA for it."
    ),
)
