"""Exemptions: the annotation ``llm-serving.io/exempt-<policy name>: "<reason>"`` that silences one policy on one
resource, and the two ways a policy runs with it (policies.framework re-exports every name here; the Pulumi adapter and
evaluate_policies call run_resource_policy and run_stack_policy through it).

A reasoned exemption skips the resource; a blank one is reported and does not exempt.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from typing import Any

EXEMPTION_PREFIX = "llm-serving.io/exempt-"


def exemption_reason(resource: Any, policy: Any) -> str | None:
    """The reason given in the resource's exemption annotation for `policy`.

    None when the annotation is absent; "" when it is present but blank.
    """
    metadata = resource.props.get("metadata")
    if type(metadata) is dict or (metadata is not None and isinstance(metadata, Mapping)):  # ABC checks cost ~0.25 us
        annotations = metadata.get("annotations")
    else:
        annotations = None
    if (
        annotations is None
        or (type(annotations) is not dict and not isinstance(annotations, Mapping))
        or policy.exemption_annotation not in annotations
    ):
        return None  # most objects carry no annotations: ~4,000 calls a corpus run end at the first test
    reason = annotations[policy.exemption_annotation]
    return reason.strip() if isinstance(reason, str) else ""


# The ids of the resources of the evaluation under way that carry no exemption annotation of any policy (evaluate_policies
# sets it; its resources live as long as it runs): run_resource_policy and run_stack_policy pass over them without
# exemption_reason, ~7,400 calls a manifests-v2 run (173 policies x 15 scopes). Empty outside an evaluation.
UNEXEMPT: ContextVar[frozenset[int]] = ContextVar("policies_unexempt", default=frozenset())


def unexempt(resource: Any) -> bool:
    """True when exemption_reason is None for every policy: plain dicts whose annotations hold no key starting with
    EXEMPTION_PREFIX, or none. Anything else (another Mapping, a key that is no plain str) is left to exemption_reason."""
    props = resource.props
    metadata = props.get("metadata") if type(props) is dict else False
    if metadata is None:
        return True
    if type(metadata) is not dict:
        return False
    annotations = metadata.get("annotations")
    if annotations is None:
        return True
    return type(annotations) is dict and not any(type(k) is not str or k.startswith(EXEMPTION_PREFIX) for k in annotations)


def blank_exemption_message(policy: Any) -> str:
    """The violation reported for an exemption annotation without a reason."""
    return f"metadata.annotations: exemption annotation {policy.exemption_annotation} needs a reason; the policy still applies"


def run_resource_policy(policy: Any, resource: Any, values: Mapping[str, Any]) -> list[str]:
    """Run a resource policy on one resource, honouring its exemption annotation.

    A reasoned exemption skips the resource; a blank one is reported and does not exempt.
    """
    check = policy.check_resource
    if check is None or resource.type not in policy.resource_types:
        return []
    reason = None if id(resource) in UNEXEMPT.get() else exemption_reason(resource, policy)
    if reason:
        return []
    messages = list(check(resource, dict(values)))
    if reason == "":
        messages.append(blank_exemption_message(policy))
    return messages


def run_stack_policy(policy: Any, resources: Sequence[Any], values: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Run a stack policy, dropping findings on resources with a reasoned exemption.

    Findings name resources by their Pulumi name; a finding is exempt when a resource of
    that name carries the policy's exemption annotation with a reason. Every resource whose
    annotation is blank is reported.
    """
    check = policy.check_stack
    if check is None:
        return []
    resources = list(resources)
    # Read once, not once per use below; only the resources whose annotation is there (most carry none).
    unexempt = UNEXEMPT.get()
    reasons = [
        (r.name, reason) for r in resources if id(r) not in unexempt and (reason := exemption_reason(r, policy)) is not None
    ]
    exempt = {name for name, reason in reasons if reason} if reasons else ()
    findings = [(name, message) for name, message in check(resources, dict(values)) if not (name and name in exempt)]
    if reasons:
        findings.extend((name, blank_exemption_message(policy)) for name, reason in reasons if reason == "")
    return findings
