"""The AWS side of `python -m stacks preflight`: sessions and clients that answer in seconds, and what every check reads with.

A session is opened from boto3's usual chain (or the stack's ``aws:profile``) and refused plainly
(:class:`NoCredentials`, exit 2) when no credentials are found or AWS rejects them. Every client has
short connect and read timeouts and two attempts, a service that does not answer (refused, timed out,
still throttled) becomes :class:`Unreachable` and a row of the report (exit 1), and the instance-metadata
lookup of the credential chain is bounded to one attempt of one second. A check reports a
:class:`Check`; a read that fails becomes a missing check naming the permission it needs (:func:`could_not`).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional

OK, MISSING, SKIPPED = "ok", "missing", "skipped"
# A prerequisite preflight cannot read (it has no Kubernetes client, or the cluster answers another way): the row says
# how to check it by hand. It does not fail the run.
UNCHECKED = "unchecked"

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


# Every AWS call: a TCP connect bounded to CONNECT_TIMEOUT_S, each socket read to READ_TIMEOUT_S, and at most
# ATTEMPTS attempts in botocore's "standard" retry mode. The count is `total_max_attempts`, which includes the first
# request (botocore 1.44.18 botocore/config.py:147-151; botocore/retries/standard.py:451, `attempt_number <
# max_attempts`). The older `max_attempts` key counts retries only: botocore/args.py:615-620 turns it into
# total_max_attempts = max_attempts + 1, so `max_attempts: 2` meant 3 attempts (issue 31). Between the attempts of a
# timed-out or refused call botocore waits rand(0, 1) x 0.05 s (retries/standard.py:350-353 and 392-396; throttling:
# rand(0, 1) x 1 s). So one call to an endpoint that accepts and never answers costs ATTEMPTS x READ_TIMEOUT_S + 0.05 s
# (about 10 s), one that refuses the connection a few milliseconds; tests/preflight/test_preflight_moto.py measures both.
CONNECT_TIMEOUT_S, READ_TIMEOUT_S, ATTEMPTS = 3, 5, 2
# Once an endpoint has failed to answer, a service whose endpoint has not answered yet is tried only within this many
# seconds of the start: with one silent call costing at most ~10 s, preflight ends within 20 s of its start.
NEW_ENDPOINT_CUTOFF_S = 8.0
# Error codes botocore counts as throttling (botocore 1.44.18 retries/standard.py:510-525), and HTTP 429 (:549): after
# the retries, still throttled is a service that did not answer, not a missing prerequisite.
THROTTLED = frozenset(
    (
        "Throttling",
        "ThrottlingException",
        "ThrottledException",
        "RequestThrottledException",
        "TooManyRequestsException",
        "ProvisionedThroughputExceededException",
        "TransactionInProgressException",
        "RequestLimitExceeded",
        "BandwidthLimitExceeded",
        "LimitExceededException",
        "RequestThrottled",
        "SlowDown",
        "PriorRequestNotComplete",
        "EC2ThrottledException",
    )
)


# What each botocore network error means, in the row (its own text repeats the endpoint URL).
_WHY = {
    "EndpointConnectionError": "connection refused, or the host name did not resolve",
    "ConnectTimeoutError": f"no connection within {CONNECT_TIMEOUT_S} s",
    "ReadTimeoutError": f"connected, no answer within {READ_TIMEOUT_S} s",
    "ConnectionClosedError": "the connection was closed before an answer",
    "ProxyConnectionError": "the proxy refused or failed the connection",
    "SSLError": "the TLS handshake failed",
}


def client_config():
    """Short timeouts and two attempts for every client: preflight answers in seconds or says why not."""
    from botocore.config import Config

    return Config(
        connect_timeout=CONNECT_TIMEOUT_S,
        read_timeout=READ_TIMEOUT_S,
        retries={"total_max_attempts": ATTEMPTS, "mode": "standard"},
    )


class Unreachable(Exception):
    """An AWS service that did not answer: connection refused or timed out, the read timed out, or still throttled."""

    def __init__(self, service: str, endpoint: str, reason: str, earlier: bool = False):
        super().__init__(f"could not reach {service} at {endpoint}: {reason}")
        self.service, self.endpoint, self.reason, self.earlier = service, endpoint, reason, earlier

    def row(self, check: str) -> Check:
        """The report's row for the check this stopped."""
        if self.earlier:
            fix = f"see the first row naming {self.endpoint}"
        elif self.reason.startswith("throttled"):
            fix = f"run preflight again in a minute ({self.service} throttles this account's calls)"
        elif self.reason.startswith("HTTP"):
            fix = f"run preflight again later ({self.service} answered with a server error)"
        else:
            fix = (
                f"check the network path to {self.endpoint} (VPN, proxy, firewall, AWS_ENDPOINT_URL*), and that "
                f"{self.service} serves this region; then run preflight again"
            )
        return Check(check, MISSING, str(self), fix)


def one_line(text: object, limit: int = 160) -> str:
    """An error body on one short line: whitespace collapsed, cut at ``limit`` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3].rstrip() + "..."


class Clients:
    """boto3 clients of one session, one per (service, region), all with :func:`client_config`.

    Every call goes through :meth:`call`, which turns a service that does not answer into :class:`Unreachable` and keeps
    the run bounded in time: an endpoint that failed once is not tried again, and once one has failed, endpoints not
    contacted yet are tried only in the first NEW_ENDPOINT_CUTOFF_S seconds.
    """

    def __init__(self, session: Any, region: str, clock: Callable[[], float] = time.monotonic):
        self.session, self.region = session, region
        self._clients: dict[tuple[str, str], Any] = {}
        self._clock = clock
        self._started = clock()
        self.failed: dict[str, str] = {}  # endpoint -> why it did not answer
        self.answered: set[str] = set()

    def __call__(self, service: str, region: Optional[str] = None) -> Any:
        key = (service, region or self.region)
        if key not in self._clients:
            self._clients[key] = self.session.client(service, region_name=key[1], config=client_config())
        return _Guarded(self, service, self._clients[key])

    def put(self, service: str, client: Any, region: Optional[str] = None) -> None:
        """Use ``client`` for ``service`` (tests put botocore-stubbed clients here)."""
        self._clients[(service, region or self.region)] = client

    def call(self, service: str, client: Any, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)`` on ``client``; Unreachable when the service does not answer (ClientError passes)."""
        from botocore.exceptions import ClientError, ConnectionError, HTTPClientError

        endpoint = str(client.meta.endpoint_url)
        if endpoint in self.failed:
            reason = f"{self.failed[endpoint].split(' after ')[0]} earlier in this run; not tried again"
            raise Unreachable(service, endpoint, reason, earlier=True)
        if endpoint not in self.answered and self.failed and self._clock() - self._started > NEW_ENDPOINT_CUTOFF_S:
            gone = ", ".join(sorted(self.failed))
            reason = f"not tried: {gone} did not answer and preflight's time bound ran out"
            raise Unreachable(service, endpoint, reason, earlier=True)
        try:
            result = fn(*args, **kwargs)
        except (ConnectionError, HTTPClientError) as exc:  # refused, connect or read timeout, connection closed
            kind = type(exc).__name__
            self.failed[endpoint] = f"{kind} after {ATTEMPTS} attempts ({_WHY.get(kind, one_line(exc, 100))})"
            raise Unreachable(service, endpoint, self.failed[endpoint]) from None
        except ClientError as exc:
            self.answered.add(endpoint)
            status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
            if error_code(exc) in THROTTLED or status == 429:
                raise Unreachable(service, endpoint, f"throttled ({error_code(exc)}) after {ATTEMPTS} attempts") from None
            if isinstance(status, int) and status >= 500:
                reason = f"HTTP {status} {error_code(exc)} after {ATTEMPTS} attempts ({error_message(exc)})"
                raise Unreachable(service, endpoint, reason) from None
            raise
        self.answered.add(endpoint)
        return result


class _Guarded:
    """A boto3 client whose calls (and paginations) go through :meth:`Clients.call`."""

    def __init__(self, clients: Clients, service: str, client: Any):
        self._clients, self._service, self._client = clients, service, client

    @property
    def meta(self) -> Any:
        return self._client.meta

    def get_paginator(self, operation: str) -> "_GuardedPaginator":
        return _GuardedPaginator(self, self._client.get_paginator(operation))

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._client, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            return self._clients.call(self._service, self._client, method, *args, **kwargs)

        return call


class _GuardedPaginator:
    """A paginator whose pages are all read inside one guarded call."""

    def __init__(self, guarded: _Guarded, paginator: Any):
        self._guarded, self._paginator = guarded, paginator

    def paginate(self, **kwargs: Any) -> list[Any]:
        g = self._guarded
        return g._clients.call(g._service, g._client, lambda: list(self._paginator.paginate(**kwargs)))


def open_session(profile: Optional[str], region: Optional[str]) -> Any:
    """A boto3 session with credentials found (not yet checked: see :func:`caller_identity`), or NoCredentials."""
    import boto3
    from botocore.exceptions import BotoCoreError, ProfileNotFound

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
        raise NoCredentials(f"the AWS credentials could not be loaded ({one_line(exc)}); " + NO_CREDENTIALS) from None
    if credentials is None:
        raise NoCredentials(NO_CREDENTIALS)
    return session


def caller_identity(clients: Clients) -> dict[str, str]:
    """STS GetCallerIdentity (Account, Arn, UserId); NoCredentials when AWS rejects the credentials.

    STS that does not answer raises :class:`Unreachable` (a row and exit 1, like any other service), not NoCredentials:
    the credentials may be fine and the network not.
    """
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        identity = clients("sts").get_caller_identity()
    except ClientError as exc:
        raise NoCredentials(
            f"AWS rejected the credentials ({error_code(exc)}: {error_message(exc)}); " + NO_CREDENTIALS
        ) from None
    except Unreachable:
        raise
    except BotoCoreError as exc:  # credentials that fail when first used (an expired SSO token refreshed lazily)
        raise NoCredentials(f"the AWS credentials could not be used ({one_line(exc)}); " + NO_CREDENTIALS) from None
    return {k: str(identity.get(k, "")) for k in ("Account", "Arn", "UserId")}


def error_code(exc: Exception) -> str:
    """The AWS error code of a botocore ClientError (else the exception's class name)."""
    return str(getattr(exc, "response", {}).get("Error", {}).get("Code", type(exc).__name__))


def error_message(exc: Exception) -> str:
    """The AWS error message of a botocore ClientError (else the exception's text), on one short line."""
    return one_line(getattr(exc, "response", {}).get("Error", {}).get("Message", exc))


def could_not(check: str, action: str, exc: Exception) -> Check:
    """A check whose read failed: missing, naming the error and the permission it needs."""
    code = error_code(exc)
    if code in ("AccessDenied", "AccessDeniedException", "UnauthorizedOperation", "UnauthorizedException"):
        return Check(check, MISSING, f"could not check: {code} on {action}", f"run preflight with credentials allowed {action}")
    return Check(check, MISSING, f"could not check: {code}: {error_message(exc)}", f"retry; {action} must succeed")


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
