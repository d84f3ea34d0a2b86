"""Wrap the pack's pure `Policy` objects as pulumi_policy policies for the Pulumi CLI.

The wrappers turn the SDK's arguments into `Resource`s and call the same
`run_resource_policy` / `run_stack_policy` as `evaluate`, so config defaults and exemptions
behave identically in `pulumi preview --policy-pack` and in the offline plan. The enforcement
level is left to the engine, which applies the user's `enforcementLevel` config itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    Severity,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.proxy import (
    UNKNOWN_ARRAY_VALUE,
    UNKNOWN_BOOLEAN_VALUE,
    UNKNOWN_NUMBER_VALUE,
    UNKNOWN_OBJECT_VALUE,
    UNKNOWN_STRING_VALUE,
)
from pulumi_policy.secret import Secret

from policies.framework import UNKNOWN, Policy, Resource, run_resource_policy, run_stack_policy

_UNKNOWN_SENTINELS = frozenset(
    {UNKNOWN_ARRAY_VALUE, UNKNOWN_BOOLEAN_VALUE, UNKNOWN_NUMBER_VALUE, UNKNOWN_OBJECT_VALUE, UNKNOWN_STRING_VALUE}
)


def plain(value: Any) -> Any:
    """Copy SDK props (dict/list proxies, Secret wrappers) into plain dicts, lists and values.

    The SDK's proxies raise when an unknown value is read; reading the wrapped target instead
    lets the copy replace each unknown sentinel with `framework.UNKNOWN`, which checks skip, so
    one unknown field does not stop a whole policy during preview.
    """
    if isinstance(value, Secret):
        return plain(value.value)
    if isinstance(value, Mapping):
        target = _target(value)
        return {str(k): plain(target[k]) for k in target}
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        return [plain(v) for v in _target(value)]
    if isinstance(value, str) and value in _UNKNOWN_SENTINELS:
        return UNKNOWN
    return value


def _target(proxy: Any) -> Any:
    """The container a pulumi_policy proxy wraps, or the value itself."""
    if isinstance(proxy, (dict, list)):
        return proxy
    try:
        return proxy["__target"]
    except (KeyError, IndexError, TypeError):
        return proxy


def _settings(policy: Policy, config: Mapping[str, Any] | None) -> dict[str, Any]:
    # The CLI fills schema defaults, but a pack run without config gets none at all.
    values = policy.defaults()
    values.update({k: v for k, v in plain(config or {}).items() if k != "enforcementLevel"})
    return values


def _resource_validator(policy: Policy):
    def validate(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
        resource = Resource(
            type=args.resource_type,
            name=args.name,
            props=plain(args.props),
            urn=args.urn,
            parent=getattr(args.opts, "parent", None),
        )
        for message in run_resource_policy(policy, resource, _settings(policy, args.get_config())):
            report_violation(message, None)

    return validate


def _stack_validator(policy: Policy):
    def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
        resources = [
            Resource(
                type=r.resource_type,
                name=r.name,
                props=plain(r.props),
                urn=r.urn,
                parent=r.parent.urn if r.parent is not None else None,
            )
            for r in args.resources
        ]
        urns: dict[str, str] = {}
        for resource in resources:
            urns.setdefault(resource.name, resource.urn)
        for name, message in run_stack_policy(policy, resources, _settings(policy, args.get_config())):
            report_violation(message, urns.get(name) or None)

    return validate


class _Metadata(TypedDict):
    """The keyword arguments both pulumi_policy policy classes take from a pack `Policy`."""

    name: str
    description: str
    enforcement_level: EnforcementLevel
    severity: Severity
    remediation_steps: str
    config_schema: PolicyConfigSchema


def to_pulumi(policy: Policy) -> ResourceValidationPolicy | StackValidationPolicy:
    """The pulumi_policy object for one pack policy (resource or stack validation)."""
    common = _Metadata(
        name=policy.name,
        description=policy.description,
        enforcement_level=EnforcementLevel(policy.enforcement),
        severity=Severity(policy.severity),
        remediation_steps=policy.remediation_steps,
        config_schema=PolicyConfigSchema(properties=dict(policy.config_schema)),
    )
    if policy.is_stack_policy:
        return StackValidationPolicy(validate=_stack_validator(policy), **common)
    return ResourceValidationPolicy(validate=_resource_validator(policy), **common)
