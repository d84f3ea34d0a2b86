"""A pack config (Pulumi's `--policy-pack-config` shape) checked against each policy's schema.

Apart from policies.framework (which re-exports what is here) so that the evaluation core stays one module; the
policies are read by duck typing (``name``, ``config_schema``), so nothing here imports the framework.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

ENFORCEMENT_LEVELS = ("mandatory", "advisory", "disabled")
# Pulumi's policy config reserves "all" for "set every policy's enforcement level".
ALL_POLICIES = "all"


def policy_config_schema(policy: Any) -> dict[str, Any]:
    """The JSON schema of one policy's entry in a pack config.

    Unknown properties are rejected: a misspelt threshold would otherwise be ignored in
    silence and the default would apply.
    """
    level = {"type": "string", "enum": list(ENFORCEMENT_LEVELS)}
    return {
        "oneOf": [
            level,
            {
                "type": "object",
                "properties": {**policy.config_schema, "enforcementLevel": level},
                "additionalProperties": False,
            },
        ],
    }


def config_errors(config: Mapping[str, Any] | None, policies: Sequence[Any]) -> list[str]:
    """Check a pack config against every policy's schema; return readable errors, sorted.

    The Python policy SDK never validates config (the Pulumi CLI does), so the offline plan
    and the tests call this. Each error names the path (`policy.property`), the value and the
    rule. An empty list means the config is valid.
    """
    if config is None:
        return []
    if not isinstance(config, Mapping):
        return [f"policy config must be a mapping of policy name to settings, not {type(config).__name__}"]
    by_name = {p.name: p for p in policies}
    errors: list[str] = []
    for name, entry in config.items():
        if name == ALL_POLICIES:
            if entry not in ENFORCEMENT_LEVELS:
                errors.append(f"{name}: {entry!r} is not one of {list(ENFORCEMENT_LEVELS)}")
            continue
        policy = by_name.get(name)
        if policy is None:
            errors.append(f"{name}: no such policy in the llm-serving pack")
            continue
        errors.extend(_schema_errors(name, entry, policy))
    return sorted(errors)


def _schema_errors(name: str, entry: Any, policy: Any) -> list[str]:
    if isinstance(entry, str):
        if entry in ENFORCEMENT_LEVELS:
            return []
        return [f"{name}: {entry!r} is not one of {list(ENFORCEMENT_LEVELS)}"]
    if not isinstance(entry, Mapping):
        return [f"{name}: {entry!r} is neither an enforcement level nor a mapping of settings"]
    # Validate the object branch directly: oneOf errors would only say "not valid under any".
    schema = policy_config_schema(policy)["oneOf"][1]
    # Imported here: only a pack config needs it, and it is a tenth of the plan's import time.
    import jsonschema

    validator = jsonschema.Draft7Validator(schema)
    errors = []
    for error in validator.iter_errors(dict(entry)):
        path = ".".join(str(p) for p in (name, *error.absolute_path))
        errors.append(f"{path}: {error.message}")
    return errors
