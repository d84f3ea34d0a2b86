"""The AWS side of `python -m stacks preflight`: sessions and clients that answer in seconds, and what every check reads with.

A session is opened from boto3's usual chain (or the stack's ``aws:profile``) and refused plainly
(:class:`NoCredentials`, exit 2) when no credentials are found, AWS rejects them or STS cannot be
reached. Every client has short connect and read timeouts and few retries, and the instance-metadata
lookup of the credential chain is bounded to one attempt of one second. A check reports a
:class:`Check`; a read that fails becomes a missing check naming the permission it needs (:func:`could_not`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Mapping, Optional

OK, MISSING, SKIPPED = "ok", "missing", "skipped"

NO_CREDENTIALS = (
    "no AWS credentials found. preflight reads the account with your own credentials: set aws:profile in the "
    "stack file or AWS_PROFILE (then `aws sso login --profile NAME` if it is an SSO profile), or export "
    "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN); read-only access is enough "
    "(docs/preflight.md lists the actions)"
)


class NoCredentials(Exception):
    """No usable credentials: none found, rejected by STS, or STS unreachable (exit 2)."""


@dataclass(frozen=True)
class Check:
    """One row of the report: what was checked, the result, what was found, and how to fix it."""

    check: str
    result: str
    detail: str
    fix: str = ""


def bound_metadata_waits(environ: Optional[dict] = None) -> None:
    """One attempt of one second for the credential chain's instance-metadata lookup (caller's values win)."""
    env = os.environ if environ is None else environ
    env.setdefault("AWS_METADATA_SERVICE_TIMEOUT", "1")
    env.setdefault("AWS_METADATA_SERVICE_NUM_ATTEMPTS", "1")


def client_config():
    """Short timeouts and few retries for every client: preflight answers in seconds or says why not."""
    from botocore.config import Config

    return Config(connect_timeout=3, read_timeout=10, retries={"max_attempts": 2, "mode": "standard"})


class Clients:
    """boto3 clients of one session, one per (service, region), all with :func:`client_config`."""

    def __init__(self, session: Any, region: str):
        self.session, self.region = session, region
        self._clients: dict[tuple[str, str], Any] = {}

    def __call__(self, service: str, region: Optional[str] = None) -> Any:
        key = (service, region or self.region)
        if key not in self._clients:
            self._clients[key] = self.session.client(service, region_name=key[1], config=client_config())
        return self._clients[key]

    def put(self, service: str, client: Any, region: Optional[str] = None) -> None:
        """Use ``client`` for ``service`` (tests put botocore-stubbed clients here)."""
        self._clients[(service, region or self.region)] = client


def open_session(profile: Optional[str], region: Optional[str]) -> tuple[Any, str]:
    """A boto3 session with usable credentials and the account id they belong to, or NoCredentials."""
    import boto3
    from botocore.exceptions import BotoCoreError, ClientError, ProfileNotFound

    bound_metadata_waits()
    try:
        session = boto3.Session(profile_name=profile, region_name=region)
        credentials = session.get_credentials()
    except ProfileNotFound:
        named = profile or os.environ.get("AWS_PROFILE") or os.environ.get("AWS_DEFAULT_PROFILE")
        raise NoCredentials(
            f"AWS profile {named!r} (aws:profile or AWS_PROFILE) is not in ~/.aws/config or ~/.aws/credentials; " + NO_CREDENTIALS
        ) from None
    except BotoCoreError as exc:  # an SSO token that expired, a credential_process that failed, ...
        raise NoCredentials(f"the AWS credentials could not be loaded ({exc}); " + NO_CREDENTIALS) from None
    if credentials is None:
        raise NoCredentials(NO_CREDENTIALS)
    try:
        identity = session.client("sts", region_name=region, config=client_config()).get_caller_identity()
    except ClientError as exc:
        raise NoCredentials(
            f"AWS rejected the credentials ({error_code(exc)}: {error_message(exc)}); " + NO_CREDENTIALS
        ) from None
    except BotoCoreError as exc:
        raise NoCredentials(f"could not reach AWS STS in {region} to check the credentials ({exc})") from None
    return session, identity["Account"]


def error_code(exc: Exception) -> str:
    """The AWS error code of a botocore ClientError (else the exception's class name)."""
    return str(getattr(exc, "response", {}).get("Error", {}).get("Code", type(exc).__name__))


def error_message(exc: Exception) -> str:
    """The AWS error message of a botocore ClientError (else the exception's text)."""
    return str(getattr(exc, "response", {}).get("Error", {}).get("Message", exc))


def could_not(check: str, action: str, exc: Exception) -> Check:
    """A check whose read failed: missing, naming the error and the permission it needs."""
    code = error_code(exc)
    if code in ("AccessDenied", "AccessDeniedException", "UnauthorizedOperation", "UnauthorizedException"):
        return Check(check, MISSING, f"could not check: {code} on {action}", f"run preflight with credentials allowed {action}")
    return Check(check, MISSING, f"could not check: {code}: {error_message(exc)[:200]}", f"retry; {action} must succeed")


def tag_filters(tags: Mapping[str, str]) -> list[dict[str, Any]]:
    """EC2 Describe* filters for a selector's tags ('*' matches any value, as in Karpenter)."""
    return [
        {"Name": "tag-key", "Values": [k]} if v == "*" else {"Name": f"tag:{k}", "Values": [v]} for k, v in sorted(tags.items())
    ]


def describe_all(client: Any, operation: str, key: str, **kwargs: Any) -> list[dict[str, Any]]:
    """Every item under ``key`` of every page of a paginated Describe* call."""
    out: list[dict[str, Any]] = []
    for page in client.get_paginator(operation).paginate(**kwargs):
        out.extend(page.get(key, []))
    return out
