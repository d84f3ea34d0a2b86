"""A Karpenter GPU node pool: its instances, purchase options, reservations, AMI, buffer and disruption.

Pure: pydantic and the instance catalogue (components/capacity/gpus.py).
"""

from __future__ import annotations

import re
from typing import Any, Literal, Optional

from pydantic import Field, field_validator, model_validator

from ..aws_ids import placeholder_account
from ..hardware import INSTANCES, pool_architecture
from .base import Int, Str, _dns_name, _Model, matching

# An EC2 instance type of a family without accelerators (m5.xlarge, c7i.2xlarge, r6g.large): not the
# g/p GPU families, nor inf/trn/dl/vt/f (other accelerators).
_CPU_INSTANCE = re.compile(r"(?!g|p|inf|trn|dl|vt|f\d)[a-z]+[0-9][a-z0-9-]*\.[a-z0-9]+")


class BufferConfig(_Model):
    """Warm GPU headroom kept in a pool so that scale-out does not wait for a node."""

    replicas: Int = Field(
        default=0, ge=0, le=64, description="Replicas of the pool's largest serving pod to keep room for. Default 0 (no buffer)."
    )
    mode: Literal["placeholder", "capacityBuffer"] = Field(
        default="placeholder",
        description='How the room is kept. "placeholder" (default): a Deployment of pause pods at a negative PriorityClass '
        'that serving pods preempt at once. "capacityBuffer": Karpenter\'s CapacityBuffer API (autoscaling.x-k8s.io/v1beta1), '
        "which needs Karpenter's CapacityBuffer feature gate (set in the Karpenter release this stack installs). Default placeholder.",
    )


_DURATION = re.compile(r"([0-9]+(s|m|h))+")
_DURATION_PART = re.compile(r"([0-9]+)(s|m|h)")
# Karpenter never replaces nodes more often than this unless the stack says so (policy S14's default floor).
EXPIRE_AFTER_FLOOR_HOURS = 24


def duration_seconds(text: str) -> int:
    """Seconds of a Go-style duration of hours, minutes and seconds ("1h30m" -> 5400)."""
    return sum(int(n) * {"s": 1, "m": 60, "h": 3600}[u] for n, u in _DURATION_PART.findall(text))


class MaintenanceWindowConfig(_Model):
    """The one weekly window in which Karpenter may consolidate or replace (drift) a pool's serving nodes."""

    weekday: Int = Field(default=0, ge=0, le=6, description="Day the window opens, cron numbering (0 = Sunday). Default 0.")
    start_hour: Int = Field(default=3, ge=0, le=23, description="Hour (UTC) the window opens. Default 3.")
    hours: Int = Field(default=4, ge=1, le=24, description="Length of the window in hours. Default 4.")


class DisruptionConfig(_Model):
    """Serving-aware Karpenter disruption of a GPU pool (NodePool spec.disruption and expireAfter)."""

    consolidation_policy: Literal["WhenEmpty", "WhenEmptyOrUnderutilized"] = Field(
        default="WhenEmptyOrUnderutilized",
        description="Karpenter's consolidationPolicy. Default WhenEmptyOrUnderutilized (underutilized nodes are "
        "consolidated only inside the maintenance window).",
    )
    consolidate_after: Str = Field(
        default="15m", description='How long a node stays empty/underutilized before Karpenter acts. Default "15m".'
    )
    expire_after: Optional[Str] = Field(
        default=None,
        description=f"Node lifetime before Karpenter replaces it (patching). Expiry is forceful: it ignores disruption "
        f'budgets and karpenter.sh/do-not-disrupt. At least {EXPIRE_AFTER_FLOOR_HOURS}h, or "Never" (then drift in the '
        f'window is the only way nodes get new AMIs). Default null: "Never" (nodes launched together would otherwise expire '
        f"together outside the maintenance window; they get new AMIs by drift inside it). A pool that hosts a multi-node "
        f"engine refuses any other value.",
    )
    window: MaintenanceWindowConfig = Field(
        default_factory=MaintenanceWindowConfig,
        description="Default {weekday: 0, startHour: 3, hours: 4} (Sunday 03:00-07:00 UTC).",
    )

    @field_validator("consolidate_after")
    @classmethod
    def _consolidate_after(cls, v: str) -> str:
        if not _DURATION.fullmatch(v):
            raise ValueError('must be a duration such as "15m" or "1h30m"')
        return v

    @field_validator("expire_after")
    @classmethod
    def _expire_after(cls, v: Optional[str]) -> Optional[str]:
        if v is None or v == "Never":
            return v
        if not _DURATION.fullmatch(v):
            raise ValueError('must be a duration such as "720h", or "Never"')
        if duration_seconds(v) < EXPIRE_AFTER_FLOOR_HOURS * 3600:
            raise ValueError(
                f"must be at least {EXPIRE_AFTER_FLOOR_HOURS}h: every expiry reloads the models on the node (minutes each)"
            )
        return v


# An EKS-optimized AMI release, pinned: "latest" drifts (replaces) every node when AWS ships an AMI
# (Karpenter v1.14.1 docs, EC2NodeClass amiSelectorTerms). AL2023 releases are dated (amazon-eks-ami vYYYYMMDD).
_AMI_ALIAS = re.compile(r"(al2023@v[0-9]{8}|bottlerocket@v?[0-9]+\.[0-9]+\.[0-9]+)")
# A dated AL2023 release seen pinned in public EKS code (e.g. "al2023@v20260903" as an EC2NodeClass alias default).
DEFAULT_AMI_ALIAS = "al2023@v20260903"


class CapacityReservationConfig(_Model):
    """One EC2NodeClass capacityReservationSelectorTerms entry: a reservation by id, or by tags (and owner)."""

    id: Optional[Str] = Field(
        default=None, description="Capacity reservation id (cr-...). Default null; excludes tags and ownerId."
    )
    tags: Optional[dict[Str, Str]] = Field(
        default=None, description='Tags that select reservations ("*" matches any value). Default null.'
    )
    owner_id: Optional[Str] = Field(
        default=None, description="12-digit AWS account that owns the reservations (with tags). Default null."
    )

    @field_validator("id")
    @classmethod
    def _id(cls, v: Optional[str]) -> Optional[str]:
        return matching(v, r"cr-[0-9a-z]+", "must be a capacity reservation id such as cr-0123456789abcdef0")

    @field_validator("owner_id")
    @classmethod
    def _owner(cls, v: Optional[str]) -> Optional[str]:
        if v is not None and not re.fullmatch(r"[0-9]{12}", v):
            raise ValueError("must be a 12-digit AWS account id")
        if v is not None and placeholder_account(v):
            raise ValueError(
                f"is the placeholder account id {v} (documentation example); use the account that owns the reservations"
            )
        return v

    @field_validator("tags")
    @classmethod
    def _tags(cls, v: Optional[dict]) -> Optional[dict]:
        if v is not None and (not v or len(v) > 20 or any(not k or not val for k, val in v.items())):
            raise ValueError("must hold 1-20 tags with non-empty keys and values")
        return v

    @model_validator(mode="after")
    def _one_way(self) -> "CapacityReservationConfig":
        # The CRD's rules (karpenter.k8s.aws EC2NodeClass v1.14.1): id alone, or tags (with an owner).
        if self.id is not None and (self.tags is not None or self.owner_id is not None):
            raise ValueError("id is mutually exclusive with tags and ownerId")
        if self.id is None and self.tags is None:
            raise ValueError("needs id or tags")
        return self

    def term(self) -> dict[str, Any]:
        """The selector term as the EC2NodeClass spells it."""
        if self.id is not None:
            return {"id": self.id}
        out: dict[str, Any] = {"tags": dict(sorted(self.tags.items()))} if self.tags else {}
        if self.owner_id is not None:
            out["ownerID"] = self.owner_id
        return out


class GpuPoolConfig(_Model):
    """One Karpenter GPU node pool: which instances, how they are bought, how many GPUs at most."""

    name: Str = Field(description="Pool name (required); becomes the Karpenter NodePool name and the models' `pool`.")
    instance_types: tuple[Str, ...] = Field(
        description=(
            "EC2 GPU instance types the pool may launch (required, non-empty; one GPU model and one CPU architecture "
            "per pool: the NodePool requires the kubernetes.io/arch of their instance records)."
        ),
    )
    capacity_types: tuple[Literal["on-demand", "spot", "reserved"], ...] = Field(
        default=("on-demand",), description='Purchase options. Default ["on-demand"] (spot reclaims cut long requests).'
    )
    capacity_reservations: tuple[CapacityReservationConfig, ...] = Field(
        default=(),
        description="EC2 capacity reservations the pool may launch into (EC2NodeClass capacityReservationSelectorTerms). "
        "Required when capacityTypes includes reserved: Karpenter only knows reservations these terms select. Default [].",
    )
    gpu_limit: Int = Field(
        description="Most GPUs the pool may hold at once (required, > 0): Karpenter's limits.nvidia.com/gpu.", gt=0
    )
    buffer: BufferConfig = Field(default_factory=BufferConfig, description="Warm headroom. Default {replicas: 0}.")
    ami_alias: Str = Field(
        default=DEFAULT_AMI_ALIAS,
        description=f'EC2NodeClass AMI alias, pinned (al2023@vYYYYMMDD or bottlerocket@X.Y.Z; "latest" is refused). '
        f"Karpenter picks the NVIDIA variant for GPU instances. Default {DEFAULT_AMI_ALIAS}.",
    )
    disruption: DisruptionConfig = Field(
        default_factory=DisruptionConfig,
        description="Default: consolidation and drift only in a weekly window (Sunday 03:00 UTC, 4h), expireAfter Never.",
    )

    _check_name = field_validator("name")(classmethod(lambda cls, v: _dns_name(v)))

    @field_validator("ami_alias")
    @classmethod
    def _ami(cls, v: str) -> str:
        if not _AMI_ALIAS.fullmatch(v):
            raise ValueError(
                "must be a pinned AMI alias such as al2023@v20260903 or bottlerocket@1.55.0 (latest would replace every node on each AMI release)"
            )
        return v

    @field_validator("instance_types")
    @classmethod
    def _instances(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if not v:
            raise ValueError("must list at least one instance type")
        unknown = [t for t in v if t not in INSTANCES]
        if unknown and _CPU_INSTANCE.fullmatch(unknown[0]):
            raise ValueError(
                f"{unknown[0]!r} has no GPU (a CPU instance family); a GPU pool lists GPU instance types "
                f"(known: {', '.join(sorted(INSTANCES))})"
            )
        if unknown:
            raise ValueError(f"unknown GPU instance type {unknown[0]!r}; known: {', '.join(sorted(INSTANCES))}")
        gpus = sorted({INSTANCES[t].gpu for t in v})
        if len(gpus) > 1:
            raise ValueError(f"mixes GPU models {gpus}; use one pool per GPU model so the capacity plan holds")
        pool_architecture(v, INSTANCES)  # one kubernetes.io/arch per NodePool
        if len(set(v)) != len(v):
            raise ValueError("lists an instance type twice")
        return v
