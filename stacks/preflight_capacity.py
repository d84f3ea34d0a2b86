"""The GPU capacity checks of `python -m stacks preflight`: instance offerings, vCPU quotas, capacity reservations.

Read-only: each pool's instance types are offered in the region and in a zone of a selected subnet,
the EC2 vCPU quotas (P, G and VT, Inf, Trn; On-Demand and Spot) cover each pool's gpuLimit plus one replacement
node (drift and consolidation launch it before the old node goes), and the
capacity reservations a reserved pool selects exist, are active, match its types and sit in a zone
with a subnet.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from components.capacity.gpus import INSTANCES
from components.config import StackConfig
from stacks.preflight_aws import (
    MISSING,
    OK,
    SKIPPED,
    Check,
    Clients,
    could_not,
    describe_all,
    error_code,
    error_message,
    tag_filters,
)

# EC2 vCPU quotas by instance family letter and purchase option: (Service Quotas code, quota name), service code "ec2"
# (Service Quotas console, https://console.aws.amazon.com/servicequotas/home/services/ec2/quotas/<code>; the
# On-Demand quotas are listed in the EC2 user guide, "Amazon EC2 instance type quotas").
QUOTAS = {
    ("P", "on-demand"): ("L-417A185B", "Running On-Demand P instances"),
    ("P", "spot"): ("L-7212CCBC", "All P Spot Instance Requests"),
    ("G", "on-demand"): ("L-DB2E81BA", "Running On-Demand G and VT instances"),
    ("G", "spot"): ("L-3819A6DF", "All G and VT Spot Instance Requests"),
    ("Inf", "on-demand"): ("L-1945791B", "Running On-Demand Inf instances"),
    ("Inf", "spot"): ("L-B5D1601B", "All Inf Spot Instance Requests"),
    ("Trn", "on-demand"): ("L-2C3B7624", "Running On-Demand Trn instances"),
    ("Trn", "spot"): ("L-6B0D517C", "All Trn Spot Instance Requests"),
}


def quota_family(instance_type: str) -> str:
    """The vCPU quota family of an instance type: P, G (G and VT), Inf or Trn."""
    family = instance_type.split(".")[0]
    if family.startswith("inf"):
        return "Inf"
    if family.startswith("trn"):
        return "Trn"
    if family.startswith(("g", "vt")):
        return "G"
    if family.startswith("p"):
        return "P"
    raise ValueError(f"{instance_type}: no GPU vCPU quota family")


def pool_vcpus(pool: Any) -> int:
    """vCPUs the pool holds at its gpuLimit, on its most vCPU-hungry instance type (Karpenter may pick any)."""
    return max(math.ceil(pool.gpu_limit / INSTANCES[t].gpu_count) * INSTANCES[t].vcpu for t in pool.instance_types)


def replacement_vcpus(pool: Any) -> int:
    """vCPUs of one replacement node of the pool (its largest instance type).

    Drift and consolidation launch the replacement NodeClaims first and delete the old nodes only once those are
    initialized (kubernetes-sigs/karpenter v1.14.1 pkg/controllers/disruption/queue.go:184, 309-324); with the pool's
    budget of one node at a time, a full pool holds one node more than its gpuLimit for the replacement's launch, and
    a quota of exactly the limit refuses that launch (VcpuLimitExceeded), so the roll stalls.
    """
    return max(INSTANCES[t].vcpu for t in pool.instance_types)


def check_offerings(cfg: StackConfig, clients: Clients, subnets: Mapping[str, str]) -> list[Check]:
    """Each pool's instance types are offered in the region, in a zone of a selected subnet (``subnets``: id -> zone)."""
    from botocore.exceptions import ClientError

    types = sorted({t for p in cfg.gpu_pools for t in p.instance_types})
    try:
        offers = describe_all(
            clients("ec2"),
            "describe_instance_type_offerings",
            "InstanceTypeOfferings",
            LocationType="availability-zone",
            Filters=[{"Name": "instance-type", "Values": types}],
        )
    except ClientError as exc:
        return [could_not("instance offerings", "ec2:DescribeInstanceTypeOfferings", exc)]
    zones_of: dict[str, set[str]] = {t: set() for t in types}
    for o in offers:
        zones_of.setdefault(o["InstanceType"], set()).add(o["Location"])
    subnet_zones = set(subnets.values())
    out = []
    for i, pool in enumerate(cfg.gpu_pools):
        check = f"pool {pool.name}: instance offerings"
        absent = [t for t in pool.instance_types if not zones_of.get(t)]
        offered = set().union(*(zones_of.get(t, set()) for t in pool.instance_types))
        if len(absent) == len(pool.instance_types):
            out.append(
                Check(
                    check,
                    MISSING,
                    f"{', '.join(absent)} not offered in {clients.region}",
                    f"use instance types offered in {clients.region} (gpuPools[{i}].instanceTypes) or another region",
                )
            )
            continue
        if not subnet_zones:
            out.append(Check(check, SKIPPED, f"offered in {', '.join(sorted(offered))}; no subnets found to compare"))
            continue
        usable = sorted(offered & subnet_zones)
        if not usable:
            out.append(
                Check(
                    check,
                    MISSING,
                    f"offered in {', '.join(sorted(offered))}; the selected subnets are in {', '.join(sorted(subnet_zones))}",
                    f"select a subnet of the cluster's VPC in one of {', '.join(sorted(offered))} (cluster.subnets)",
                )
            )
            continue
        note = f"; not offered: {', '.join(absent)}" if absent else ""
        out.append(Check(check, OK, f"launchable in {', '.join(usable)}{note}"))
    return out


def check_quotas(cfg: StackConfig, clients: Clients) -> list[Check]:
    """The EC2 vCPU quotas (per family and purchase option) cover the pools' gpuLimit plus one replacement node each."""
    from botocore.exceptions import ClientError

    need: dict[tuple[str, str], list[tuple[str, int]]] = {}
    for pool in cfg.gpu_pools:
        families = {quota_family(t) for t in pool.instance_types}
        options = {"spot" if c == "spot" else "on-demand" for c in pool.capacity_types}
        for family in families:
            for option in options:
                need.setdefault((family, option), []).append((pool.name, pool_vcpus(pool) + replacement_vcpus(pool)))
    out = []
    sq = clients("service-quotas")
    for (family, option), pools in sorted(need.items()):
        code, quota_name = QUOTAS[(family, option)]
        wanted = sum(v for _, v in pools)
        check = f"quota {quota_name}"
        try:
            try:
                value = sq.get_service_quota(ServiceCode="ec2", QuotaCode=code)["Quota"]["Value"]
            except ClientError as exc:
                if error_code(exc) != "NoSuchResourceException":
                    raise
                value = sq.get_aws_default_service_quota(ServiceCode="ec2", QuotaCode=code)["Quota"]["Value"]
        except ClientError as exc:
            out.append(could_not(check, "servicequotas:GetServiceQuota", exc))
            continue
        per_pool = ", ".join(f"{n} {v}" for n, v in pools)
        if value < wanted:
            out.append(
                Check(
                    check,
                    MISSING,
                    f"{value:g} vCPUs; the pools' gpuLimit plus one replacement node each (drift and consolidation launch "
                    f"the new node before the old one goes) needs {wanted} ({per_pool})",
                    f"aws service-quotas request-service-quota-increase --service-code ec2 --quota-code {code} "
                    f"--desired-value {wanted} --region {clients.region} (or lower gpuLimit)",
                )
            )
        else:
            out.append(Check(check, OK, f"{value:g} vCPUs >= {wanted} ({per_pool}; instances already running count too)"))
    return out


def check_reservations(cfg: StackConfig, clients: Clients, subnets: Mapping[str, str]) -> list[Check]:
    """The capacity reservations a reserved pool selects exist, are active, match its types and sit in a zone with a subnet."""
    from botocore.exceptions import ClientError

    out = []
    ec2 = clients("ec2")
    for i, pool in enumerate(cfg.gpu_pools):
        if "reserved" not in pool.capacity_types:
            continue
        check = f"pool {pool.name}: capacity reservations"
        found: dict[str, dict[str, Any]] = {}
        try:
            for term in pool.capacity_reservations:
                if term.id is not None:
                    result = ec2.describe_capacity_reservations(CapacityReservationIds=[term.id])
                else:
                    filters = tag_filters(term.tags or {})
                    if term.owner_id is not None:
                        filters.append({"Name": "owner-id", "Values": [term.owner_id]})
                    result = ec2.describe_capacity_reservations(Filters=filters)
                found.update({r["CapacityReservationId"]: r for r in result.get("CapacityReservations", [])})
        except ClientError as exc:
            if error_code(exc).startswith("InvalidCapacityReservationId"):
                out.append(Check(check, MISSING, error_message(exc), f"fix gpuPools[{i}].capacityReservations"))
                continue
            out.append(could_not(check, "ec2:DescribeCapacityReservations", exc))
            continue
        usable = [r for r in found.values() if r.get("State") == "active" and r.get("InstanceType") in pool.instance_types]
        if not usable:
            seen = (
                ", ".join(f"{r['CapacityReservationId']} ({r.get('InstanceType')}, {r.get('State')})" for r in found.values())
                or "none"
            )
            out.append(
                Check(
                    check,
                    MISSING,
                    f"no active reservation of {', '.join(pool.instance_types)} selected (found: {seen})",
                    f"create or tag the reservation, or fix gpuPools[{i}].capacityReservations",
                )
            )
            continue
        zones = set(subnets.values())
        if not zones:  # no subnet found: whether a node could launch in the reservation's zone is not known
            where = ", ".join(sorted({str(r.get("AvailabilityZone")) for r in usable}))
            out.append(Check(check, SKIPPED, f"{len(usable)} active in {where}; no subnets found to compare zones"))
            continue
        stranded = sorted(
            f"{r['CapacityReservationId']} in {r.get('AvailabilityZone')}"
            for r in usable
            if r.get("AvailabilityZone") not in zones
        )
        if stranded:
            out.append(
                Check(
                    check,
                    MISSING,
                    f"{', '.join(stranded)}: no selected subnet in that zone",
                    "select a subnet of the cluster's VPC in the reservation's zone (cluster.subnets)",
                )
            )
            continue
        total = sum(int(r.get("TotalInstanceCount", 0)) for r in usable)
        out.append(Check(check, OK, f"{len(usable)} active ({total} instances)"))
    return out
