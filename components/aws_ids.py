"""AWS identifiers in stack config: ARNs, account ids, placeholders, ALB TLS policies, CIDRs.

Pure (no Pulumi, no boto3): config validation and the policy pack ask here, so a stack file and a
third-party manifest are judged by one rule.

* An ARN is ``arn:<partition>:<service>:<region>:<account>:<resource>``; the partitions are
  ``aws``, ``aws-cn``, ``aws-us-gov`` (and the isolated ``aws-iso*`` ones), never assumed to be
  ``aws``.
* A *placeholder* is an identifier copied from documentation or a template that names nothing in
  any account: AWS's documentation account ``123456789012``, an account of one repeated digit or
  counting digits, and a UUID of zeros (optionally with only the version and variant nibbles
  set, e.g. ``00000000-0000-4000-8000-000000000000``) or counting digits. A deploy with one fails
  late (the controller cannot find the certificate; the role cannot be assumed), so config
  refuses it and names the field.
* ALB security policies: Application Load Balancers take only the predefined policies, whose
  names carry the lowest TLS version they accept (``...TLS13-1-2...``: TLS 1.3 and 1.2;
  ``...TLS-1-1...``: from 1.1; ``ELBSecurityPolicy-2016-08``: from 1.0). AWS's
  "Security policies for your Application Load Balancer"
  (https://docs.aws.amazon.com/elasticloadbalancing/latest/application/describe-ssl-policies.html)
  lists them, recommends ``ELBSecurityPolicy-TLS13-1-2-2021-06`` and states that ALBs do not
  support custom policies.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Iterable, Optional

ARN = re.compile(
    r"arn:(?P<partition>aws(-[a-z]+(-[a-z]+)?)?):(?P<service>[a-z0-9-]+):(?P<region>[a-z0-9-]*):(?P<account>[0-9]{12}|):(?P<resource>.+)"
)
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
REGION = re.compile(r"[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d")

# AWS's documentation account (IAM user guide, every ARN example) and template stand-ins.
_PLACEHOLDER_ACCOUNTS = frozenset({"123456789012", "012345678901", "210987654321", "098765432109"})
_COUNTING = "0123456789012345678901234567890123456789"

# The policy the ALB gets unless the stack says otherwise: TLS 1.3 and 1.2 only (AWS's recommendation).
DEFAULT_SSL_POLICY = "ELBSecurityPolicy-TLS13-1-2-2021-06"
# The controller's own default (aws-load-balancer-controller v3.5.0 pkg/config/controller_config.go:49,
# defaultSSLPolicy), which still accepts TLS 1.0.
CONTROLLER_DEFAULT_SSL_POLICY = "ELBSecurityPolicy-2016-08"
_SSL_POLICY = re.compile(r"ELBSecurityPolicy-[A-Za-z0-9-]{4,80}")
# Predefined policies whose lowest protocol is TLS 1.2 or 1.3: TLS13-1-2*, TLS13-1-3*, TLS-1-2*, FS-1-2*.
_TLS12_PLUS = re.compile(r"ELBSecurityPolicy-(TLS13-1-[23]|TLS-1-2|FS-1-2)(-[A-Za-z0-9-]+)?")


def placeholder_account(account: str) -> bool:
    """True for an account id that names no real account (documentation example, one repeated digit, counting digits)."""
    return account in _PLACEHOLDER_ACCOUNTS or len(set(account)) == 1 or account in _COUNTING


def placeholder_uuid(value: str) -> bool:
    """True for a UUID of zeros (version/variant nibbles aside) or of counting digits."""
    digits = value.replace("-", "")
    return sum(ch != "0" for ch in digits) <= 2 or len(set(digits)) == 1 or all(group in _COUNTING for group in value.split("-"))


def placeholder_problem(arn: str) -> Optional[str]:
    """Why ``arn`` is a placeholder (its account or a UUID in it), or None for a plausible ARN."""
    match = ARN.fullmatch(arn)
    if match is None:
        return None
    account = match["account"]
    if account and placeholder_account(account):
        return f"holds the placeholder account id {account} (documentation example); use the ARN from your account"
    for uuid in UUID.findall(arn):
        if placeholder_uuid(uuid):
            return f"holds the placeholder id {uuid}; use the ARN from your account"
    return None


def arn_problem(arn: str, service: str, resource: str, example: str) -> Optional[str]:
    """The rule ``arn`` breaks as an ARN of ``service`` whose resource matches the regex ``resource``, or None."""
    match = ARN.fullmatch(arn)
    if match is None or match["service"] != service or not re.fullmatch(resource, match["resource"]):
        return f"must be an ARN such as {example}"
    if not REGION.fullmatch(match["region"]) or not match["account"]:
        return f"must name a region and a 12-digit account, as in {example}"
    return placeholder_problem(arn)


def arn_region(arn: str) -> Optional[str]:
    """The region field of an ARN (None when it is not an ARN)."""
    match = ARN.fullmatch(arn)
    return match["region"] if match else None


def arn_partition(arn: str) -> Optional[str]:
    """The partition field of an ARN (None when it is not an ARN)."""
    match = ARN.fullmatch(arn)
    return match["partition"] if match else None


def ssl_policy_problem(name: str) -> Optional[str]:
    """Why ``name`` is not an ALB security policy of TLS 1.2 or newer, or None."""
    if not _SSL_POLICY.fullmatch(name):
        return f"must be a predefined ALB security policy such as {DEFAULT_SSL_POLICY} (ALBs take no custom policies)"
    if not tls12_or_newer(name):
        return f"accepts TLS below 1.2; use {DEFAULT_SSL_POLICY} or another TLS13-1-2, TLS13-1-3, TLS-1-2 or FS-1-2 policy"
    return None


def tls12_or_newer(name: str) -> bool:
    """True for a predefined ALB security policy whose lowest protocol is TLS 1.2 or newer."""
    return bool(_TLS12_PLUS.fullmatch(name))


def cidr_problem(text: str) -> Optional[str]:
    """Why ``text`` is not an IPv4/IPv6 network in CIDR form (host bits clear), or None."""
    if "/" not in text:
        return "must be a CIDR such as 203.0.113.0/24 (a prefix length is required)"
    try:
        ipaddress.ip_network(text, strict=True)
    except ValueError as exc:
        return f"is not a CIDR network: {exc}"
    return None


# The widest source an internet-facing ALB may admit without another guard, per IP version: a /8
# (16,777,216 IPv4 addresses), the largest block IANA ever assigned to a single organisation (the legacy
# class A networks), and a /32 of IPv6, the RIRs' default minimum allocation to a provider (an LIR that
# serves many customers). Wider sources span several organisations' networks: that is the internet in
# part, not an office. The bound is on what the CIDRs cover together after merging, so several
# narrow ranges that add up to more (128 /8s, 0.0.0.0/1 + 128.0.0.0/1) are as wide as one prefix.
WIDEST_SOURCE_PREFIX: dict[int, int] = {4: 8, 6: 32}
_BITS = {4: 32, 6: 128}


def collapsed_sources(cidrs: Iterable[str]) -> dict[int, list[ipaddress.IPv4Network | ipaddress.IPv6Network]]:
    """Per IP version, the CIDRs merged into the fewest networks (``ipaddress.collapse_addresses``).

    Host bits are tolerated (the controller parses with Go's ``net.ParseCIDR``, which masks them);
    an entry that is no CIDR raises ValueError naming it.
    """
    nets: dict[int, list] = {4: [], 6: []}
    for text in cidrs:
        try:
            net = ipaddress.ip_network(str(text).strip(), strict=False)
        except ValueError as exc:
            raise ValueError(f"{text!r} is not a CIDR: {exc}") from None
        nets[net.version].append(net)
    return {version: list(ipaddress.collapse_addresses(found)) for version, found in nets.items() if found}


def sources_too_wide(cidrs: Iterable[str]) -> Optional[str]:
    """Why the source CIDRs of an ALB admit too much of the internet to keep strangers out, or None.

    Judged per IP version on the merged networks: all of the version's space, or more addresses than
    a ``WIDEST_SOURCE_PREFIX`` network holds, is too wide. An empty list is the controller's default
    (0.0.0.0/0), so too wide as well.
    """
    listed = [str(c) for c in cidrs]
    if not listed:
        return "it lists no source CIDRs, so the controller admits 0.0.0.0/0"
    try:
        merged = collapsed_sources(listed)
    except ValueError as exc:
        return str(exc)
    for version, nets in sorted(merged.items()):
        covered = sum(n.num_addresses for n in nets)
        shown = ", ".join(map(str, nets[:4])) + (f" and {len(nets) - 4} more" if len(nets) > 4 else "")
        if covered == 2 ** _BITS[version]:
            return f"its source CIDRs cover every IPv{version} address (merged: {shown})"
        bound = WIDEST_SOURCE_PREFIX[version]
        if covered > 2 ** (_BITS[version] - bound):
            return (
                f"its IPv{version} source CIDRs (merged: {shown}) cover more addresses than one /{bound} holds, "
                f"the widest source that counts as a guard"
            )
    return None


__all__ = [
    "CONTROLLER_DEFAULT_SSL_POLICY",
    "WIDEST_SOURCE_PREFIX",
    "DEFAULT_SSL_POLICY",
    "arn_partition",
    "arn_problem",
    "arn_region",
    "cidr_problem",
    "collapsed_sources",
    "placeholder_account",
    "placeholder_problem",
    "placeholder_uuid",
    "sources_too_wide",
    "ssl_policy_problem",
    "tls12_or_newer",
]
