"""Key routing: which stack-file key fills which StackConfig field, and which keys are refused.

A stack file's ``config:`` holds namespaced keys. This project's own (``llm-serving:models``, ...)
fill the StackConfig field of that alias; its secrets (``llm-serving:hfToken``, ``apiKey``) only set
a flag, their value never enters the config; ``aws:region`` and the AWS identity kubectl must
share are read from the AWS provider's keys; other providers' keys pass through untouched.

Pure: no pydantic, no Pulumi.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from ..aws_ids import placeholder_problem
from ..errors import Problem
from ..secrets import is_secret
from .base import PROJECT

# Keys of the stack file without the "llm-serving:" prefix; each fills the StackConfig field of that alias.
_KEYS = frozenset(
    {
        "cluster",
        "namespace",
        "gpuPools",
        "models",
        "ingress",
        "monitoring",
        "karpenter",
        "addons",
        "kuberay",
        "environment",
        "deploy",
    }
)
SECRET_KEYS = {"hfToken", "apiKey"}
# Which StackConfig flag says a secret key is set.
_SECRET_FLAGS = {"hfToken": "hasHfToken", "apiKey": "hasApiKey"}
# Provider keys the program reads besides aws:region: the identity kubectl's exec plugin must share.
_AWS_IDENTITY_KEYS = ("aws:profile", "aws:assumeRoles", "aws:assumeRole")
# Namespaces whose keys belong to providers and are passed through untouched.
_PROVIDER_NAMESPACES = {"aws", "kubernetes", "pulumi"}


def route_keys(raw: Mapping[str, Any]) -> tuple[dict[str, Any], list[Problem]]:
    """The StackConfig input (by alias) that the stack file's keys fill, and the keys refused on the way."""
    problems: list[Problem] = []
    data: dict[str, Any] = {}
    for key in sorted(raw, key=str):
        namespace, _, name = str(key).partition(":")
        if not name:
            problems.append(Problem(str(key), "config keys must be namespaced, e.g. llm-serving:models", has_value=False))
        elif namespace == PROJECT:
            if name in _KEYS:
                data[name] = raw[key]
            elif name in SECRET_KEYS:
                if not is_secret(raw[key]):
                    problems.append(
                        Problem(
                            key,
                            "must be a Pulumi secret (pulumi config set --secret); a clear-text token is refused",
                            has_value=False,
                        )
                    )
                data[_SECRET_FLAGS[name]] = True
            else:
                allowed = ", ".join(f"{PROJECT}:{k}" for k in sorted([*_KEYS, *SECRET_KEYS]))
                problems.append(Problem(str(key), f"unknown key; allowed keys: {allowed}", has_value=False))
        elif key == "aws:region":
            data["region"] = raw[key]
        elif key in _AWS_IDENTITY_KEYS:
            problems.extend(_aws_identity(str(key), raw[key], data))
        elif namespace not in _PROVIDER_NAMESPACES:
            problems.append(Problem(str(key), f"unknown config namespace {namespace!r}", has_value=False))
    return data, problems


def _aws_identity(key: str, value: Any, data: dict[str, Any]) -> list[Problem]:
    """Read the AWS provider's profile or assumed role into ``data`` (awsProfile / awsRoleArn).

    ``aws eks get-token`` takes one ``--role-arn`` and nothing else of an assume-role setting, so a
    chain of roles, an external id, a session policy or tags cannot be carried to kubectl: refused,
    naming the field, rather than letting kubectl reach the cluster as another identity.
    """
    if key == "aws:profile":
        data["awsProfile"] = value
        return []
    roles = value if key == "aws:assumeRoles" else [value]
    if isinstance(roles, str):
        return [Problem(key, "must be a list of {roleArn: ...} objects (as pulumi-aws reads it)", roles)]
    if not isinstance(roles, list) or not roles or not all(isinstance(r, Mapping) for r in roles):
        return [Problem(key, "must be a list of {roleArn: ...} objects (as pulumi-aws reads it)", has_value=False)]
    if len(roles) > 1:
        return [
            Problem(
                key,
                "chains several roles; kubectl's exec plugin (aws eks get-token --role-arn) assumes one. Assume the "
                "chain in a profile of ~/.aws/config and set aws:profile instead",
                has_value=False,
            )
        ]
    role = roles[0]
    where = f"{key}[0]" if key == "aws:assumeRoles" else key
    extra = sorted(k for k in role if k not in ("roleArn", "sessionName", "duration"))
    if extra:
        return [
            Problem(
                f"{where}.{extra[0]}",
                "cannot be passed to aws eks get-token, so kubectl would reach the cluster as another "
                "identity; put the role in a profile of ~/.aws/config and set aws:profile instead",
                has_value=False,
            )
        ]
    if "roleArn" not in role:
        return [Problem(f"{where}.roleArn", "is required", has_value=False)]
    arn = role["roleArn"]
    if not isinstance(arn, str) or not re.fullmatch(
        r"arn:aws(-[a-z]+(-[a-z]+)?)?:iam::[0-9]{12}:role/[A-Za-z0-9+=,.@_/-]{1,512}", arn
    ):
        return [Problem(f"{where}.roleArn", "must be an IAM role ARN such as arn:aws:iam::<account>:role/<name>", arn)]
    rule = placeholder_problem(arn)
    if rule:
        return [Problem(f"{where}.roleArn", rule, arn)]
    data["awsRoleArn"] = arn
    return []
