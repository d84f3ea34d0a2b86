"""The ALB source guard judged by address space (components/aws_ids.py ``sources_too_wide``), one rule for the
stack's Ingress and every third-party Ingress (policy internet-facing-alb-guarded).

Issue 31: ``[0.0.0.0/1, 128.0.0.0/1]`` passed because only a single ``/0`` was refused. The CIDRs are now merged per
IP version with ``ipaddress.collapse_addresses`` and judged by what they cover together.
"""

from __future__ import annotations

import ipaddress
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from components.aws_ids import WIDEST_SOURCE_PREFIX, collapsed_sources, sources_too_wide


def _split(root: str, seed: int, cuts: int) -> list[str]:
    """``root`` cut into pieces: ``cuts`` times a random piece is replaced by its two halves (or a random subnet split)."""
    rng = random.Random(seed)
    pieces = [ipaddress.ip_network(root)]
    for _ in range(cuts):
        i = rng.randrange(len(pieces))
        net = pieces[i]
        if net.prefixlen >= net.max_prefixlen - 2:
            continue
        pieces[i : i + 1] = list(net.subnets(prefixlen_diff=rng.choice([1, 1, 2])))
    rng.shuffle(pieces)
    return [str(p) for p in pieces]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), cuts=st.integers(1, 40), family=st.sampled_from(["0.0.0.0/0", "::/0"]))
def test_any_split_that_covers_the_space_is_too_wide(seed, cuts, family):
    pieces = _split(family, seed, cuts)
    version = ipaddress.ip_network(family).version
    assert sources_too_wide(pieces) == f"its source CIDRs cover every IPv{version} address (merged: {family})"


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), cuts=st.integers(0, 30))
def test_any_split_of_an_office_range_stays_a_guard(seed, cuts):
    # A /16 office range however it is written (and an IPv6 /48 beside it) is narrow enough.
    assert sources_too_wide(_split("198.51.0.0/16", seed, cuts) + ["2001:db8:4000::/48"]) is None


def test_the_bound_is_on_what_the_cidrs_cover_together():
    assert WIDEST_SOURCE_PREFIX == {4: 8, 6: 32}
    assert sources_too_wide(["17.0.0.0/8"]) is None
    assert sources_too_wide(["16.0.0.0/7"]) == (
        "its IPv4 source CIDRs (merged: 16.0.0.0/7) cover more addresses than one /8 holds, the widest source that counts "
        "as a guard"
    )
    # 64 /8s that do not merge are as wide as a /2.
    many = [f"{i}.0.0.0/8" for i in range(1, 129, 2)]
    assert sources_too_wide(many).startswith(
        "its IPv4 source CIDRs (merged: 1.0.0.0/8, 3.0.0.0/8, 5.0.0.0/8, 7.0.0.0/8 and 60 more)"
    )
    assert sources_too_wide(["2001:db8::/32"]) is None
    assert "more addresses than one /32 holds" in sources_too_wide(["2001:db8::/32", "2001:db9::/32"])


def test_no_cidrs_is_the_controllers_default_and_garbage_is_named():
    # aws-load-balancer-controller v3.5.0 docs/guide/ingress/annotations.md (inbound-cidrs): default 0.0.0.0/0.
    assert sources_too_wide([]) == "it lists no source CIDRs, so the controller admits 0.0.0.0/0"
    assert sources_too_wide(["10.0.0.0/33"]).startswith("'10.0.0.0/33' is not a CIDR")


def test_host_bits_are_masked_as_the_controller_parses_them():
    # The controller parses with Go's net.ParseCIDR, which returns the masked network.
    assert collapsed_sources(["203.0.113.7/24"]) == {4: [ipaddress.ip_network("203.0.113.0/24")]}
