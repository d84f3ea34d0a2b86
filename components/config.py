"""The stack configuration: the user-facing contract of llm-serving.

A stack file (``stacks/Pulumi.<env>.yaml``) holds namespaced keys under ``config:``;
:func:`load_stack_config` turns them into frozen pydantic models. Per-field rules live on
the models; rules that relate two objects (a model's pool must exist, its GPUs must fit
on one node of that pool) run afterwards in :func:`_cross_checks`. Every problem is
reported with its field path, the value and the rule, all at once, as a
:class:`~components.errors.ConfigError`.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, Literal, Mapping, Optional

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, Strict, ValidationError, field_validator, model_validator
from pydantic.alias_generators import to_camel

from .errors import ConfigError, Problem, format_path
from .aws_ids import (
    CONTROLLER_DEFAULT_SSL_POLICY,
    DEFAULT_SSL_POLICY,
    arn_problem,
    arn_region,
    cidr_problem,
    open_to_all,
    placeholder_account,
    placeholder_problem,
    ssl_policy_problem,
)
from .secrets import is_secret, scan

PROJECT = "llm-serving"

# Kubernetes object names we derive from user names (InferenceService "<name>", its
# Deployment "<name>-predictor", "<name>-hf-token"...) must stay DNS-1035 labels of at
# most 63 characters, so user names are capped lower to leave room for the suffixes.
_DNS_LABEL = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
_NAME_MAX = 40
_HF_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*")
_COMMIT = re.compile(r"[0-9a-f]{40}")
# An EC2 instance type of a family without accelerators (m5.xlarge, c7i.2xlarge, r6g.large): not the
# g/p GPU families, nor inf/trn/dl/vt/f (other accelerators).
_CPU_INSTANCE = re.compile(r"(?!g|p|inf|trn|dl|vt|f\d)[a-z]+[0-9][a-z0-9-]*\.[a-z0-9]+")


# Strict scalars: a stack file's "8192" (a string) or true (a bool) is not a number here, as
# the Pulumi CLI's typed config would not make it one either.
Int = Annotated[int, Strict()]
Float = Annotated[float, Strict()]
Bool = Annotated[bool, Strict()]
Str = Annotated[str, Strict()]


class _Model(BaseModel):
    """Base of every config model: frozen, camelCase keys only, unknown keys rejected."""

    model_config = ConfigDict(extra="forbid", frozen=True, alias_generator=to_camel, validate_by_name=False, validate_by_alias=True)


def _dns_name(value: str) -> str:
    if not _DNS_LABEL.fullmatch(value) or len(value) > _NAME_MAX:
        raise ValueError(
            f"must be a DNS-1035 label (lowercase letters, digits and '-', starting with a letter) "
            f"of at most {_NAME_MAX} characters"
        )
    return value


# Karpenter's discovery tag (its getting-started guide tags the cluster's subnets and node security group with it).
DISCOVERY_TAG = "karpenter.sh/discovery"
# The tag EKS puts on the cluster security group it creates (value: the cluster name).
EKS_CLUSTER_NAME_TAG = "aws:eks:cluster-name"
_SUBNET_ID = re.compile(r"subnet-([0-9a-f]{8}|[0-9a-f]{17})")
_SG_ID = re.compile(r"sg-([0-9a-f]{8}|[0-9a-f]{17})")
# EC2NodeClass limits (karpenter.k8s.aws_ec2nodeclasses.yaml v1.14.1): at most 30 selector terms, 20 tags per term.
_MAX_TERMS, _MAX_TAGS = 30, 20


def _check_id(pattern: re.Pattern, kind: str):
    def check(v: str) -> str:
        if not pattern.fullmatch(v):
            prefix = pattern.pattern.split("-")[0]
            raise ValueError(f"must be a {kind} id ({prefix}- and 8 or 17 lowercase hex digits)")
        return v

    return check


def _check_tags(v: dict[str, str]) -> dict[str, str]:
    if len(v) > _MAX_TAGS:
        raise ValueError(f"holds {len(v)} tags; an EC2NodeClass selector term takes at most {_MAX_TAGS}")
    for key, value in v.items():
        if not key or not value or len(key) > 128 or len(value) > 256:
            raise ValueError(f"tag {key!r}: keys and values must be non-empty (at most 128 and 256 characters; '*' matches any value)")
    return v


SubnetId = Annotated[Str, AfterValidator(_check_id(_SUBNET_ID, "subnet"))]
SecurityGroupId = Annotated[Str, AfterValidator(_check_id(_SG_ID, "security group"))]


class SubnetSelectorConfig(_Model):
    """Which subnets the GPU nodes launch in: by ID, by tags, or (default) by Karpenter's discovery tag."""

    ids: tuple[SubnetId, ...] = Field((), description="Subnet IDs (subnet-...). Default (): select by tags.", max_length=_MAX_TERMS)
    tags: dict[Str, Str] = Field(
        default_factory=dict,
        description="Tags every selected subnet carries ('*' matches any value). Default {}: karpenter.sh/discovery=<cluster.name>.",
    )

    _check_tags = field_validator("tags")(classmethod(lambda cls, v: _check_tags(v)))

    @model_validator(mode="after")
    def _one_way(self) -> "SubnetSelectorConfig":
        if self.ids and self.tags:
            raise ValueError("set ids or tags, not both (Karpenter ORs its terms: both would widen the selection)")
        return self


class SecurityGroupSelectorConfig(_Model):
    """Which security groups the GPU nodes get: by ID, by tags, the EKS cluster security group, or (default) the discovery tag."""

    ids: tuple[SecurityGroupId, ...] = Field(
        (), description="Security group IDs (sg-...). Default (): select by tags.", max_length=_MAX_TERMS - 1
    )
    tags: dict[Str, Str] = Field(
        default_factory=dict,
        description="Tags every selected group carries ('*' matches any value). Default {}: karpenter.sh/discovery=<cluster.name>.",
    )
    eks_cluster_security_group: Bool = Field(
        False,
        description="Select the cluster security group EKS created, by the aws:eks:cluster-name=<cluster.name> tag EKS puts on it. "
        "Default false.",
    )

    _check_tags = field_validator("tags")(classmethod(lambda cls, v: _check_tags(v)))

    @model_validator(mode="after")
    def _one_way(self) -> "SecurityGroupSelectorConfig":
        if sum(map(bool, (self.ids, self.tags, self.eks_cluster_security_group))) > 1:
            raise ValueError("set one of ids, tags or eksClusterSecurityGroup (Karpenter ORs its terms: more would widen the selection)")
        return self


class DiscoveryTaggingConfig(_Model):
    """Existing subnets and security groups the stack tags karpenter.sh/discovery=<cluster> (aws.ec2.Tag), so the default selectors find them."""

    subnet_ids: tuple[SubnetId, ...] = Field((), description="Subnets to tag. Default ().")
    security_group_ids: tuple[SecurityGroupId, ...] = Field((), description="Security groups to tag. Default ().")


class ClusterConfig(_Model):
    """The EKS cluster the stack deploys into."""

    name: Str = Field(description="EKS cluster name (required); Karpenter discovers subnets and security groups by it.")
    kubernetes_version: Str = Field(
        "1.33", description='Kubernetes minor version of the cluster, e.g. "1.33". Default "1.33".'
    )
    connection: Literal["eks", "ambient"] = Field(
        "eks",
        description='How the program reaches the cluster. "eks" (default): an explicit Kubernetes provider whose '
        "kubeconfig is built from the EKS cluster named `name` (looked up with pulumi-aws) and a token from the "
        '`aws eks get-token` exec plugin, so no credential is stored. "ambient": an explicit provider on the '
        'kubeconfig of the machine running Pulumi (KUBECONFIG or ~/.kube/config). Default "eks".',
    )
    kube_context: Optional[Str] = Field(
        None, description='Kubeconfig context to use with connection "ambient". Default null (the current context).'
    )
    subnets: SubnetSelectorConfig = Field(
        default_factory=SubnetSelectorConfig,
        description="Subnets of the GPU nodes (every pool's EC2NodeClass). Default: tagged karpenter.sh/discovery=<name>.",
    )
    security_groups: SecurityGroupSelectorConfig = Field(
        default_factory=SecurityGroupSelectorConfig,
        description="Security groups of the GPU nodes (an EFA pool also gets its own EFA group). Default: tagged "
        "karpenter.sh/discovery=<name>.",
    )
    tag_for_discovery: DiscoveryTaggingConfig = Field(
        default_factory=DiscoveryTaggingConfig,
        description="Subnets and security groups this stack tags karpenter.sh/discovery=<name> (only with the default "
        "selectors, which read that tag). Default: none.",
    )

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9-]{0,99}", v):
            raise ValueError("must start with a letter and hold only letters, digits and '-' (at most 100)")
        return v

    @model_validator(mode="after")
    def _context_needs_ambient(self) -> "ClusterConfig":
        if self.kube_context is not None and self.connection != "ambient":
            raise ValueError('kubeContext is only read with connection "ambient"; remove it or set connection: ambient')
        return self

    @field_validator("kubernetes_version")
    @classmethod
    def _version(cls, v: str) -> str:
        # 1.30: the preStop sleep action that drains vLLM pods (PodLifecycleSleepAction, on by default
        # from 1.30); 1.37: the newest schemas kubernetes-validate ships.
        if not re.fullmatch(r"1\.3[0-7]", v):
            raise ValueError('must be a Kubernetes minor version between "1.30" and "1.37", quoted')
        return v


class BufferConfig(_Model):
    """Warm GPU headroom kept in a pool so that scale-out does not wait for a node."""

    replicas: Int = Field(
        0, ge=0, le=64, description="Replicas of the pool's largest serving pod to keep room for. Default 0 (no buffer)."
    )
    mode: Literal["placeholder", "capacityBuffer"] = Field(
        "placeholder",
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

    weekday: Int = Field(0, ge=0, le=6, description="Day the window opens, cron numbering (0 = Sunday). Default 0.")
    start_hour: Int = Field(3, ge=0, le=23, description="Hour (UTC) the window opens. Default 3.")
    hours: Int = Field(4, ge=1, le=24, description="Length of the window in hours. Default 4.")


class DisruptionConfig(_Model):
    """Serving-aware Karpenter disruption of a GPU pool (NodePool spec.disruption and expireAfter)."""

    consolidation_policy: Literal["WhenEmpty", "WhenEmptyOrUnderutilized"] = Field(
        "WhenEmptyOrUnderutilized",
        description="Karpenter's consolidationPolicy. Default WhenEmptyOrUnderutilized (underutilized nodes are "
        "consolidated only inside the maintenance window).",
    )
    consolidate_after: Str = Field("15m", description='How long a node stays empty/underutilized before Karpenter acts. Default "15m".')
    expire_after: Optional[Str] = Field(
        None,
        description=f'Node lifetime before Karpenter replaces it (patching). Expiry is forceful: it ignores disruption '
        f'budgets and karpenter.sh/do-not-disrupt. At least {EXPIRE_AFTER_FLOOR_HOURS}h, or "Never" (then drift in the '
        f'window is the only way nodes get new AMIs). Default null: "720h" (Karpenter\'s default), or "Never" on a pool '
        f"that hosts a multi-node engine, where any other value is refused (both nodes of the engine would expire together).",
    )
    window: MaintenanceWindowConfig = Field(
        default_factory=MaintenanceWindowConfig, description="Default {weekday: 0, startHour: 3, hours: 4} (Sunday 03:00-07:00 UTC)."
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
            raise ValueError(f"must be at least {EXPIRE_AFTER_FLOOR_HOURS}h: every expiry reloads the models on the node (minutes each)")
        return v


# An EKS-optimized AMI release, pinned: "latest" drifts (replaces) every node when AWS ships an AMI
# (Karpenter v1.14.1 docs, EC2NodeClass amiSelectorTerms). AL2023 releases are dated (amazon-eks-ami vYYYYMMDD).
_AMI_ALIAS = re.compile(r"(al2023@v[0-9]{8}|bottlerocket@v?[0-9]+\.[0-9]+\.[0-9]+)")
# A dated AL2023 release seen pinned in public EKS code (e.g. "al2023@v20260903" as an EC2NodeClass alias default).
DEFAULT_AMI_ALIAS = "al2023@v20260903"


class CapacityReservationConfig(_Model):
    """One EC2NodeClass capacityReservationSelectorTerms entry: a reservation by id, or by tags (and owner)."""

    id: Optional[Str] = Field(None, description="Capacity reservation id (cr-...). Default null; excludes tags and ownerId.")
    tags: Optional[dict[Str, Str]] = Field(
        None, description='Tags that select reservations ("*" matches any value). Default null.'
    )
    owner_id: Optional[Str] = Field(None, description="12-digit AWS account that owns the reservations (with tags). Default null.")

    @field_validator("id")
    @classmethod
    def _id(cls, v: Optional[str]) -> Optional[str]:
        if v is not None and not re.fullmatch(r"cr-[0-9a-z]+", v):
            raise ValueError("must be a capacity reservation id such as cr-0123456789abcdef0")
        return v

    @field_validator("owner_id")
    @classmethod
    def _owner(cls, v: Optional[str]) -> Optional[str]:
        if v is not None and not re.fullmatch(r"[0-9]{12}", v):
            raise ValueError("must be a 12-digit AWS account id")
        if v is not None and placeholder_account(v):
            raise ValueError(f"is the placeholder account id {v} (documentation example); use the account that owns the reservations")
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
        description="EC2 GPU instance types the pool may launch (required, non-empty, one GPU model per pool)."
    )
    capacity_types: tuple[Literal["on-demand", "spot", "reserved"], ...] = Field(
        ("on-demand",), description='Purchase options. Default ["on-demand"] (spot reclaims cut long requests).'
    )
    capacity_reservations: tuple[CapacityReservationConfig, ...] = Field(
        (),
        description="EC2 capacity reservations the pool may launch into (EC2NodeClass capacityReservationSelectorTerms). "
        "Required when capacityTypes includes reserved: Karpenter only knows reservations these terms select. Default [].",
    )
    gpu_limit: Int = Field(description="Most GPUs the pool may hold at once (required, > 0): Karpenter's limits.nvidia.com/gpu.", gt=0)
    buffer: BufferConfig = Field(default_factory=BufferConfig, description="Warm headroom. Default {replicas: 0}.")
    ami_alias: Str = Field(
        DEFAULT_AMI_ALIAS,
        description=f'EC2NodeClass AMI alias, pinned (al2023@vYYYYMMDD or bottlerocket@X.Y.Z; "latest" is refused). '
        f"Karpenter picks the NVIDIA variant for GPU instances. Default {DEFAULT_AMI_ALIAS}.",
    )
    disruption: DisruptionConfig = Field(
        default_factory=DisruptionConfig,
        description="Default: consolidation and drift only in a weekly window (Sunday 03:00 UTC, 4h), expireAfter 720h.",
    )

    _check_name = field_validator("name")(classmethod(lambda cls, v: _dns_name(v)))

    @field_validator("ami_alias")
    @classmethod
    def _ami(cls, v: str) -> str:
        if not _AMI_ALIAS.fullmatch(v):
            raise ValueError("must be a pinned AMI alias such as al2023@v20260903 or bottlerocket@1.55.0 (latest would replace every node on each AMI release)")
        return v

    @field_validator("instance_types")
    @classmethod
    def _instances(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        from .capacity.hardware import INSTANCES, pool_architecture

        if not v:
            raise ValueError("must list at least one instance type")
        unknown = [t for t in v if t not in INSTANCES]
        if unknown and _CPU_INSTANCE.fullmatch(unknown[0]):
            raise ValueError(
                f"{unknown[0]!r} has no GPU (a CPU instance family); a GPU pool lists GPU instance types "
                f"(known: {', '.join(sorted(INSTANCES))})"
            )
        if unknown:
            raise ValueError(
                f"unknown GPU instance type {unknown[0]!r}; known: {', '.join(sorted(INSTANCES))}"
            )
        gpus = sorted({INSTANCES[t].gpu for t in v})
        if len(gpus) > 1:
            raise ValueError(f"mixes GPU models {gpus}; use one pool per GPU model so the capacity plan holds")
        pool_architecture(v, INSTANCES)  # one kubernetes.io/arch per NodePool
        if len(set(v)) != len(v):
            raise ValueError("lists an instance type twice")
        return v


Dtype = Literal["auto", "bfloat16", "float16", "half", "float32"]
KvCacheDtype = Literal["auto", "fp8", "fp8_e4m3", "fp8_e5m2"]
# vLLM's CUDA block sizes (config/cache.py BlockSize); `python -m stacks size` takes the same set.
BLOCK_SIZES = (1, 8, 16, 32, 64, 128, 256)
Quantization = Literal["fp8", "awq", "awq_marlin", "gptq", "gptq_marlin", "compressed-tensors", "bitsandbytes", "mxfp4", "modelopt", "fbgemm_fp8"]


class EngineConfig(_Model):
    """vLLM engine arguments (vLLM 0.33 names, camelCase). Unset numbers are derived by the capacity plan."""

    tensor_parallel_size: Int = Field(1, ge=1, le=64, description="--tensor-parallel-size. Default 1.")
    pipeline_parallel_size: Int = Field(1, ge=1, le=64, description="--pipeline-parallel-size. Default 1.")
    max_model_len: Int = Field(description="--max-model-len, tokens per request (required, > 0).", gt=0, le=10_485_760)
    gpu_memory_utilization: Float = Field(
        0.9,
        gt=0,
        le=1,
        description="--gpu-memory-utilization, fraction of each GPU's total memory vLLM may use. Default 0.9 "
        "(vLLM 0.33 itself defaults to 0.92; policy S1 bounds it).",
    )
    max_num_seqs: Optional[Int] = Field(
        None, gt=0, le=65_536, description="--max-num-seqs. Default: derived from the KV cache by the capacity plan."
    )
    max_num_batched_tokens: Optional[Int] = Field(
        None, gt=0, le=1_048_576, description="--max-num-batched-tokens. Default: vLLM's hardware default for the GPU."
    )
    max_num_queued_reqs: Optional[Int] = Field(
        None, ge=0, description="--max-num-queued-reqs (503 when full). Default: derived from the TTFT SLO."
    )
    block_size: Int = Field(16, description="--block-size, tokens per KV block. Default 16 (vLLM's CUDA default).")
    dtype: Dtype = Field("auto", description='--dtype. Default "auto" (the checkpoint dtype).')
    kv_cache_dtype: KvCacheDtype = Field("auto", description='--kv-cache-dtype. Default "auto" (the model dtype).')
    quantization: Optional[Quantization] = Field(None, description="--quantization. Default null (from the checkpoint).")
    enforce_eager: Bool = Field(False, description="--enforce-eager (no CUDA graphs). Default false.")
    extra_args: tuple[Str, ...] = Field(
        (), description="Further vLLM flags passed verbatim, e.g. ['--enable-auto-tool-choice']. Default []."
    )

    @field_validator("block_size")
    @classmethod
    def _block(cls, v: int) -> int:
        if v not in BLOCK_SIZES:
            raise ValueError(f"must be one of {', '.join(map(str, BLOCK_SIZES))}")
        return v

    @field_validator("extra_args")
    @classmethod
    def _extra(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        typed = {
            "--tensor-parallel-size", "--pipeline-parallel-size", "--max-model-len", "--gpu-memory-utilization",
            "--max-num-seqs", "--max-num-batched-tokens", "--max-num-queued-reqs", "--block-size", "--dtype",
            "--kv-cache-dtype", "--quantization", "--enforce-eager", "--port", "--served-model-name", "--revision",
            "--model", "--host",
        }
        for arg in v:
            flag = arg.split("=", 1)[0]
            if flag in typed:
                raise ValueError(f"{flag} is a typed engine field or set by the component; set it there instead")
            if flag in ("--api-key",) or "token" in flag:
                raise ValueError(f"{flag} would put a secret on the command line; use hfToken (a Kubernetes Secret)")
        return v


class ReplicasConfig(_Model):
    """Replica bounds of one model (the HPA's min and max)."""

    min: Int = Field(1, ge=0, description="Fewest replicas. Default 1 (policy S5 forbids 0: cold starts take minutes).")
    max: Int = Field(1, ge=1, le=1000, description="Most replicas. Default 1.")
    single_replica_reason: Optional[Str] = Field(
        None,
        description="Why this model may run one replica in a prod environment (where min must otherwise be at least 2, "
        "so a drain or a crash never leaves it without a ready replica). Default null.",
    )

    @model_validator(mode="after")
    def _order(self) -> "ReplicasConfig":
        if self.max < self.min:
            raise ValueError(f"max ({self.max}) must be >= min ({self.min})")
        return self


AutoscalingBackend = Literal["prometheus-adapter", "keda"]


class AutoscalingConfig(_Model):
    """How the model scales on serving load (per-pod requests in flight: vLLM running + waiting)."""

    backend: AutoscalingBackend = Field(
        "prometheus-adapter",
        description='What feeds the HPA: "prometheus-adapter" (an autoscaling/v2 HPA on a Pods metric the adapter '
        'serves) or "keda" (a KEDA ScaledObject with a Prometheus trigger). Default "prometheus-adapter".',
    )
    target_in_flight_per_pod: Optional[Int] = Field(
        None,
        gt=0,
        description="Running + waiting requests per pod the HPA aims for; at most maxNumSeqs + maxNumQueuedReqs (what one "
        "replica can hold). Default: derived by the capacity plan (80% of maxNumSeqs).",
    )
    scale_down_stabilization_seconds: Int = Field(
        300,
        ge=0,
        le=3600,
        description="Seconds the HPA looks back before removing a replica (scale-down stabilization window). Default 300; "
        "policy S8 (llm-hpa-behavior) flags less than 300, since a removed GPU replica takes minutes to come back.",
    )


class SloConfig(_Model):
    """Latency objectives that size the queue, the timeouts and the drain."""

    max_request_seconds: Float = Field(
        300,
        gt=0,
        description="Longest request to serve uncut, seconds. Default 300. Every timeout, keep-alive and drain of the "
        "model's path derives from it (components/timeouts.py); at most what an ALB can carry (3585).",
    )
    time_to_first_token_seconds: Float = Field(5, gt=0, le=600, description="Target time to first token, seconds. Default 5.")
    streaming: Bool = Field(
        True,
        description="Clients stream responses (SSE). Default true. A non-streamed response sends no byte until it "
        "ends, so the Envoy -> vLLM connection gets TCP keep-alive probes for the silence.",
    )
    traffic: Optional[Str] = Field(
        None,
        description="A traffic profile (docs/simulate.md; path relative to the stack file) under which `python -m stacks "
        "plan` simulates the stack; the advisory plan policy llm-simulated-slo then reports this model when its simulated "
        "P95 TTFT exceeds timeToFirstTokenSeconds or its 504/503 rates exceed their limits. Renders nothing. Default null "
        "(no simulation: the plan stays fast).",
        min_length=1,
        max_length=1000,
    )

    @field_validator("max_request_seconds")
    @classmethod
    def _servable(cls, v: float) -> float:
        from .timeouts import max_request_rule

        rule = max_request_rule(v)
        if rule:
            raise ValueError(rule)
        return v

    @model_validator(mode="after")
    def _order(self) -> "SloConfig":
        if self.time_to_first_token_seconds >= self.max_request_seconds:
            raise ValueError("timeToFirstTokenSeconds must be below maxRequestSeconds")
        return self


class TrafficConfig(_Model):
    """What a typical request looks like; sizes the batch, the HPA target and the queue."""

    typical_request_tokens: Optional[Int] = Field(
        None, gt=0, description="Prompt + output tokens of a typical request. Default min(2048, engine.maxModelLen)."
    )
    typical_request_seconds: Float = Field(
        20, gt=0, le=3600, description="Seconds a typical request holds a batch slot (prefill + decode). Default 20."
    )


class StartupConfig(_Model):
    """How long a replica may take to become ready (weights fetched and loaded, compile, graph capture)."""

    budget_seconds: Optional[Int] = Field(
        None,
        ge=60,
        le=7200,
        description="Startup probe budget in seconds. Default null: derived by the capacity plan from the model "
        "source, the checkpoint size and the GPUs (components/capacity/cold_start.py, figures from "
        "public reports cited there); the plan report lists the parts.",
    )


class ModelSourceConfig(_Model):
    """Where a replica gets its weights from on start."""

    type: Literal["huggingface", "s3", "localCache"] = Field(
        "huggingface",
        description='"huggingface" (default, the fallback): every pod downloads the pinned revision from the Hub into '
        'its ephemeral storage. "s3": vLLM streams the weights from an S3 mirror of that revision with the Run:ai '
        'streamer (--load-format runai_streamer). "localCache": KServe\'s LocalModelCache keeps the weights on the '
        "pool nodes' instance-store NVMe, filled once per node.",
    )
    uri: Optional[Str] = Field(
        None,
        description="s3: the mirror, s3://bucket/prefix holding the safetensors of the pinned revision (required). "
        "localCache: what the cache is filled from, hf://<org>/<name> or s3://... Default null (localCache: the "
        "Hugging Face id).",
    )
    region: Optional[Str] = Field(None, description="s3: the bucket's AWS region (required for s3; pods cannot reach IMDS). Default null.")
    service_account: Optional[Str] = Field(
        None,
        description="s3: a ServiceAccount in the namespace with read access to the bucket (EKS Pod Identity or IRSA; "
        "required for s3). Default null.",
    )
    kms_key_arn: Optional[Str] = Field(
        None,
        description="s3: the KMS key the mirror's objects are encrypted with (SSE-KMS), in the bucket's region; the "
        "reader's role may kms:Decrypt with it through S3 only (kms:ViaService). Default null (SSE-S3 or no encryption).",
    )

    @model_validator(mode="after")
    def _complete(self) -> "ModelSourceConfig":
        if self.type == "s3":
            missing = [k for k, v in (("uri", self.uri), ("region", self.region), ("serviceAccount", self.service_account)) if v is None]
            if missing:
                raise ValueError(f"type s3 needs {', '.join(missing)}")
            if not re.match(r"^s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/[A-Za-z0-9._/-]*)?$", self.uri or ""):
                raise ValueError("uri must be s3://<bucket>/<prefix> for type s3")
            if not re.match(r"^[a-z]{2}(-gov)?-[a-z]+-\d$", self.region or ""):
                raise ValueError("region must be an AWS region such as us-west-2")
            if not _DNS_LABEL.match(self.service_account or ""):
                raise ValueError("serviceAccount must be a DNS-1035 label")
            if self.kms_key_arn is not None:
                rule = arn_problem(self.kms_key_arn, "kms", r"key/([0-9a-f-]{36}|mrk-[0-9a-f]{32})",
                                   "arn:aws:kms:<region>:<account>:key/<key id>")
                if rule:
                    raise ValueError(f"kmsKeyArn {rule}")
                if arn_region(self.kms_key_arn) != self.region:
                    raise ValueError(f"kmsKeyArn is in {arn_region(self.kms_key_arn)}, the bucket in {self.region}: S3 uses a key of the bucket's region")
        elif self.type == "localCache":
            if self.uri is not None and not re.match(r"^(hf://[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._:-]*|s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/[A-Za-z0-9._/-]*)?)$", self.uri):
                raise ValueError("uri must be hf://<org>/<name> or s3://<bucket>/<prefix> for type localCache")
            if self.region is not None or self.service_account is not None or self.kms_key_arn is not None:
                raise ValueError("region, serviceAccount and kmsKeyArn are only read with type s3")
        elif any(v is not None for v in (self.uri, self.region, self.service_account, self.kms_key_arn)):
            raise ValueError("uri, region, serviceAccount and kmsKeyArn are not read with type huggingface (it downloads model at revision)")
        return self


class ArchitectureConfig(_Model):
    """A model the catalogue does not know: its Hugging Face config.json and checkpoint size."""

    config_path: Str = Field(description="Path of the model's config.json, relative to the stack file (required).")
    weights_gib: Float = Field(description="Size of the whole checkpoint in GiB (required, > 0).", gt=0)


class LongContextConfig(_Model):
    """A sibling pool of the same model for long prompts (its own InferenceService ``<name>-long``).

    Long prompts hold many KV blocks and slow every request batched with them, so they get their
    own replicas with a larger maxModelLen and fewer sequences; the route sends a request there
    when it carries the header ``x-llm-context: long`` (README, "Short and long pools").
    """

    max_model_len: Int = Field(description="--max-model-len of the sibling (required, above the model's own).", gt=0, le=10_485_760)
    max_num_seqs: Optional[Int] = Field(
        None, gt=0, le=65_536, description="--max-num-seqs of the sibling. Default: derived from its KV cache by the capacity plan."
    )
    replicas: ReplicasConfig = Field(default_factory=ReplicasConfig, description="The sibling's replica bounds. Default {min: 1, max: 1}.")
    max_request_seconds: Optional[Float] = Field(
        None, gt=0, description="The sibling's slo.maxRequestSeconds. Default: the model's own (long prefills may need more)."
    )

    @field_validator("max_request_seconds")
    @classmethod
    def _servable(cls, v: Optional[float]) -> Optional[float]:
        from .timeouts import max_request_rule

        rule = max_request_rule(v) if v is not None else None
        if rule:
            raise ValueError(rule)
        return v


# The header that sends a request to a model's long-context sibling, and the sibling's name suffix.
LONG_CONTEXT_HEADER = "x-llm-context"
LONG_CONTEXT_VALUE = "long"
LONG_SUFFIX = "-long"


class DistributedConfig(_Model):
    """Multi-node serving: one vLLM engine spread over several nodes of the model's pool.

    Tensor parallelism stays inside a node (NVLink); pipeline stages cross nodes. The node
    count is tensorParallelSize x pipelineParallelSize / the pool's GPUs per node, and Ray
    (a KubeRay RayCluster) places the ranks. Autoscaling a multi-node replica is out of scope
    (as in KServe and NIM): such a model runs exactly one replica.
    """

    backend: Literal["ray"] = Field(description='How the nodes are coordinated (required): "ray" (KubeRay RayCluster).')
    nccl_socket_ifname: Str = Field(
        "eth0",
        description="NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME of every Ray pod: the interface NCCL's and Gloo's "
        'bootstrap sockets use. Default "eth0" (the pod interface of the Amazon VPC CNI).',
    )
    efa: Bool = Field(
        True,
        description="Request every EFA interface of the node (vpc.amazonaws.com/efa) on instance types that have "
        "EFA, and open the nodes' security group to itself as EFA requires; the aws-efa-k8s-device-plugin "
        "DaemonSet must run on the nodes. Default true.",
    )
    host_network_reason: Optional[Str] = Field(
        None,
        description="Run the Ray pods with hostNetwork: true, for the reason given here (it becomes the policy "
        "exemption's reason). Default null (pod network; EFA works without hostNetwork).",
    )

    @field_validator("nccl_socket_ifname")
    @classmethod
    def _ifname(cls, v: str) -> str:
        # NCCL accepts a prefix list, optionally negated with ^ (NCCL docs, NCCL_SOCKET_IFNAME).
        if not re.fullmatch(r"\^?=?[A-Za-z0-9_.-]{1,15}(,=?[A-Za-z0-9_.-]{1,15})*", v):
            raise ValueError('must be an interface name or an NCCL prefix list such as "eth0" or "^lo,docker"')
        return v

    @field_validator("host_network_reason")
    @classmethod
    def _reason(cls, v: Optional[str]) -> Optional[str]:
        if v is not None and len(v.strip()) < 10:
            raise ValueError("must explain why the pods need the node's network (at least 10 characters)")
        return v


class ModelConfig(_Model):
    """One served model: what to serve, where, and with which engine settings."""

    name: Str = Field(description="Service name (required); the InferenceService and served model name.")
    model: Str = Field(description="Hugging Face model id, e.g. meta-llama/Llama-3.1-8B-Instruct (required).")
    revision: Str = Field(description="Pinned Hugging Face commit (40 hex characters, required).")
    pool: Str = Field(description="Name of the gpuPools entry the model runs on (required).")
    image: Str = Field("vllm/vllm-openai:v0.33.0", description="vLLM image. Default vllm/vllm-openai:v0.33.0.")
    engine: EngineConfig = Field(description="vLLM engine arguments (required: maxModelLen).")
    replicas: ReplicasConfig = Field(default_factory=ReplicasConfig, description="Default {min: 1, max: 1}.")
    autoscaling: AutoscalingConfig = Field(default_factory=AutoscalingConfig, description="Default: derived targets.")
    slo: SloConfig = Field(default_factory=SloConfig, description="Default {maxRequestSeconds: 300, timeToFirstTokenSeconds: 5}.")
    traffic: TrafficConfig = Field(default_factory=TrafficConfig, description="Default {typicalRequestSeconds: 20}.")
    startup: StartupConfig = Field(default_factory=StartupConfig, description="Default: the budget derived from the model source.")
    source: ModelSourceConfig = Field(
        default_factory=ModelSourceConfig, description="Where the weights come from. Default {type: huggingface} (download on every start)."
    )
    architecture: Optional[ArchitectureConfig] = Field(
        None, description="For a model outside the catalogue: its config.json and weights size. Default null (catalogue)."
    )
    long_context: Optional[LongContextConfig] = Field(
        None,
        description="A sibling pool for long prompts, reached with the header x-llm-context: long. Default null (no sibling).",
    )

    @model_validator(mode="after")
    def _long_context(self) -> "ModelConfig":
        lc = self.long_context
        if lc is not None:
            if lc.max_model_len <= self.engine.max_model_len:
                raise ValueError(
                    f"longContext.maxModelLen ({lc.max_model_len}) must be above engine.maxModelLen ({self.engine.max_model_len})"
                )
            if len(self.name) + len(LONG_SUFFIX) > _NAME_MAX:
                raise ValueError(f"name must leave room for the sibling's suffix {LONG_SUFFIX!r} (at most {_NAME_MAX - len(LONG_SUFFIX)} characters)")
        return self

    def long_sibling(self) -> Optional["ModelConfig"]:
        """The long-context sibling as a model of its own (None without longContext)."""
        lc = self.long_context
        if lc is None:
            return None
        engine = self.engine.model_copy(update={"max_model_len": lc.max_model_len, "max_num_seqs": lc.max_num_seqs,
                                                "max_num_batched_tokens": None, "max_num_queued_reqs": None})
        slo = self.slo.model_copy(update={"max_request_seconds": lc.max_request_seconds or self.slo.max_request_seconds})
        return self.model_copy(update={
            "name": self.name + LONG_SUFFIX, "engine": engine, "replicas": lc.replicas, "slo": slo, "long_context": None,
            "traffic": self.traffic.model_copy(update={"typical_request_tokens": None}),
            "autoscaling": self.autoscaling.model_copy(update={"target_in_flight_per_pod": None}),
        })
    distributed: Optional[DistributedConfig] = Field(
        None,
        description="Opt-in for a model larger than one node, e.g. {backend: ray}: tensorParallelSize x "
        "pipelineParallelSize GPUs over several nodes of the pool. Default null (one node per replica).",
    )

    _check_name = field_validator("name")(classmethod(lambda cls, v: _dns_name(v)))

    @field_validator("model")
    @classmethod
    def _model_id(cls, v: str) -> str:
        if not _HF_ID.fullmatch(v):
            raise ValueError("must be a Hugging Face id of the form <org>/<name>")
        return v

    @field_validator("revision")
    @classmethod
    def _revision(cls, v: str) -> str:
        if not _COMMIT.fullmatch(v):
            raise ValueError("must be a full 40-character commit hash, so the weights cannot change under the service")
        return v

    @field_validator("image")
    @classmethod
    def _image(cls, v: str) -> str:
        if not re.fullmatch(r"[a-z0-9][a-z0-9._/:@-]*", v) or " " in v:
            raise ValueError("must be an image reference like vllm/vllm-openai:v0.33.0")
        return v


class IngressConfig(_Model):
    """The public entry point: an ALB (AWS Load Balancer Controller), straight to the predictors or through Istio.

    Each model answers at ``<model>.<host>``; its timeouts come from the model's timeout chain.
    """

    host: Str = Field(description="DNS zone clients call; each model answers at <model>.<host>, e.g. chat-8b.llm.example.com (required).")
    routing: Literal["direct", "istio"] = Field(
        "direct",
        description='"direct": the ALB targets the predictor pods; "istio": the ALB targets an Istio ingress gateway, '
        "whose VirtualServices and DestinationRules carry the route timeouts, retries and connection limits. Default direct.",
    )
    scheme: Literal["internal", "internet-facing"] = Field("internal", description="ALB scheme. Default internal (not on the internet).")
    certificate_arn: Optional[Str] = Field(
        None, description="ACM certificate ARN for <model>.<host> (a wildcard): HTTPS on 443 and HTTP redirected. Default null (HTTP on 80)."
    )
    ssl_policy: Str = Field(
        DEFAULT_SSL_POLICY,
        description="ALB security policy of the HTTPS listener (annotation alb.ingress.kubernetes.io/ssl-policy), TLS 1.2 or "
        f"newer only; rendered with certificateArn (no HTTPS listener without it). Default {DEFAULT_SSL_POLICY} (the "
        f"controller's own default, {CONTROLLER_DEFAULT_SSL_POLICY}, still accepts TLS 1.0).",
    )
    inbound_cidrs: tuple[Str, ...] = Field(
        (),
        description="CIDRs the ALB's security group admits (annotation alb.ingress.kubernetes.io/inbound-cidrs), e.g. "
        "[203.0.113.0/24]. Default [] (the controller admits 0.0.0.0/0). 0.0.0.0/0 and ::/0 are refused: leave it empty.",
    )
    waf_acl_arn: Optional[Str] = Field(
        None,
        description="Regional AWS WAFv2 web ACL in front of the ALB (annotation alb.ingress.kubernetes.io/wafv2-acl-arn), in "
        "the stack's region. Default null (no WAF).",
    )
    install_controller: Bool = Field(
        True, description="Install the AWS Load Balancer Controller (Helm, IAM through EKS Pod Identity). Default true; false where it runs already."
    )
    install_istio: Bool = Field(
        True, description="With routing istio: install Istio (base, istiod, ingress gateway; Helm). Default true; false where it runs already."
    )
    gateway_replicas: Optional[Int] = Field(
        None,
        ge=1,
        le=20,
        description="With routing istio: replicas of the Istio ingress gateway (fixed; the chart's CPU autoscaler is off so "
        "each DestinationRule's connection limits can be divided among them). Default null: 2 in prod (at least 2 "
        "there, with a PodDisruptionBudget), 1 elsewhere.",
    )

    def gateway_replica_count(self, environment: str) -> int:
        """The gateway's replicas: the configured number, else 2 in prod and 1 elsewhere."""
        if self.gateway_replicas is not None:
            return self.gateway_replicas
        return 2 if environment == "prod" else 1

    @field_validator("certificate_arn")
    @classmethod
    def _arn(cls, v: Optional[str]) -> Optional[str]:
        rule = v and arn_problem(v, "acm", r"certificate/[0-9a-f-]{36}", "arn:aws:acm:<region>:<account>:certificate/<uuid>")
        if rule:
            raise ValueError(rule)
        return v

    @field_validator("waf_acl_arn")
    @classmethod
    def _waf(cls, v: Optional[str]) -> Optional[str]:
        rule = v and arn_problem(v, "wafv2", r"regional/webacl/[A-Za-z0-9_-]{1,128}/[0-9a-f-]{36}",
                                 "arn:aws:wafv2:<region>:<account>:regional/webacl/<name>/<id> (a regional web ACL)")
        if rule:
            raise ValueError(rule)
        return v

    @field_validator("ssl_policy")
    @classmethod
    def _ssl_policy(cls, v: str) -> str:
        rule = ssl_policy_problem(v)
        if rule:
            raise ValueError(rule)
        return v

    @field_validator("inbound_cidrs")
    @classmethod
    def _cidrs(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for i, cidr in enumerate(v):
            rule = cidr_problem(cidr)
            if rule:
                raise ValueError(f"[{i}] {cidr!r} {rule}")
            if open_to_all(cidr):
                raise ValueError(f"[{i}] {cidr!r} admits every address, which is the controller's default; leave inboundCidrs empty or narrow it")
        if len(set(v)) != len(v):
            raise ValueError("lists a CIDR twice")
        return v

    @field_validator("host")
    @classmethod
    def _host(cls, v: str) -> str:
        if not re.fullmatch(r"(?=.{1,253}\Z)([a-z0-9]([-a-z0-9]*[a-z0-9])?\.)+[a-z]{2,63}", v):
            raise ValueError("must be a lowercase DNS name such as llm.example.com")
        return v


KUBERAY_CHART_VERSION = "1.7.0"


class KubeRayConfig(_Model):
    """The KubeRay operator that runs the RayClusters of multi-node models."""

    install: Bool = Field(
        True,
        description="Install the kuberay-operator Helm chart (pinned " + KUBERAY_CHART_VERSION + ") when a model sets "
        "distributed; false where the cluster already runs KubeRay 1.7. Default true.",
    )
    namespace: Str = Field("kuberay-system", description="Namespace of the operator. Default kuberay-system.")

    _check_ns = field_validator("namespace")(classmethod(lambda cls, v: _dns_name(v)))


class PrometheusConfig(_Model):
    """Where Prometheus lives: an existing server, or a kube-prometheus-stack release the platform installs."""

    url: Optional[Str] = Field(
        None,
        description="URL of an existing Prometheus (Prometheus Operator managed), e.g. "
        "http://prometheus-operated.monitoring.svc:9090. Default null: the platform installs kube-prometheus-stack "
        "(pinned chart 88.5.3) in monitoring.namespace and uses its Prometheus.",
    )
    monitor_labels: dict[Str, Str] = Field(
        default_factory=dict,
        description="Labels put on every PodMonitor and PrometheusRule so that an existing Prometheus's "
        "podMonitorSelector / ruleSelector selects them (e.g. {release: kube-prometheus-stack}). Default {}.",
    )

    @field_validator("url")
    @classmethod
    def _url(cls, v: Optional[str]) -> Optional[str]:
        if v is not None and not re.fullmatch(r"https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[A-Za-z0-9._~/-]*)?", v):
            raise ValueError("must be an http(s) URL such as http://prometheus-operated.monitoring.svc:9090 (no credentials, no query)")
        return v

    @field_validator("monitor_labels")
    @classmethod
    def _labels(cls, v: dict[str, str]) -> dict[str, str]:
        for key, value in v.items():
            if not re.fullmatch(r"([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?", key):
                raise ValueError(f"label key {key!r} is not a Kubernetes label key")
            if not re.fullmatch(r"(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?", value):
                # The value is not echoed: a misplaced secret must not reach an error message.
                raise ValueError(f"the value of label {key!r} is not a Kubernetes label value (at most 63 of A-Z a-z 0-9 - _ .)")
        return v


class AlertsConfig(_Model):
    """Thresholds of the per-model PrometheusRules (the TTFT threshold is each model's slo.timeToFirstTokenSeconds)."""

    queue_fraction: Float = Field(
        0.5, gt=0, le=1,
        description="LlmQueueBuildingUp fires when a pod's waiting requests stay above this fraction of its "
        "maxNumQueuedReqs (beyond it vLLM answers 503). Default 0.5.",
    )
    kv_cache_usage: Float = Field(
        0.95, gt=0, le=1,
        description="LlmKvCacheNearlyFull fires when vllm:kv_cache_usage_perc (a 0-1 fraction) stays above this. Default 0.95.",
    )
    preemptions_per_minute: Float = Field(
        0, ge=0, description="LlmPreemptions fires when a model preempts more requests per minute than this. Default 0 (any)."
    )
    restarts: Int = Field(
        0, ge=0, description="LlmPodRestarting fires when a vLLM container restarts more often than this within 15 minutes. Default 0 (any)."
    )
    admission_rejections_per_minute: Float = Field(
        0, ge=0, description="LlmAdmissionRejections fires when more requests per minute than this get 503 (queue full). Default 0 (any)."
    )
    for_seconds: Int = Field(
        300, ge=0, le=3600, description="How long a condition must hold before its alert fires, seconds. Default 300."
    )
    at_max_replicas_seconds: Int = Field(
        900, ge=60, le=86400, description="LlmAutoscalerAtMaxReplicas fires when a model stays at maxReplicas this long, seconds. Default 900."
    )


class MonitoringConfig(_Model):
    """Metrics, autoscaling plumbing and alerts shared by every model of the stack."""

    namespace: Str = Field("monitoring", description="Namespace of the Prometheus Adapter, KEDA and (when installed) kube-prometheus-stack. Default monitoring.")
    prometheus: PrometheusConfig = Field(default_factory=PrometheusConfig, description="Default {url: null} (install kube-prometheus-stack).")
    alerts: AlertsConfig = Field(default_factory=AlertsConfig, description="Default thresholds as documented on each field.")

    _check_ns = field_validator("namespace")(classmethod(lambda cls, v: _dns_name(v)))


class AddonConfig(_Model):
    """A cluster add-on this stack installs as a pinned Helm release, or finds already running."""

    install: Bool = Field(True, description="Install the add-on's pinned Helm release. Default true; false where the cluster already runs it.")


class KarpenterConfig(_Model):
    """Karpenter itself: its AWS prerequisites and its Helm release."""

    install: Bool = Field(
        True,
        description="Create Karpenter's AWS prerequisites (node role and access entry, controller role via EKS Pod Identity, "
        "interruption queue and EventBridge rules) and install its pinned Helm release (1.14.1). Default true; false where "
        "Karpenter already runs (the pools then use nodeRoleName).",
    )
    namespace: Str = Field("kube-system", description="Namespace of the Karpenter controller. Default kube-system.")
    node_role_name: Optional[Str] = Field(
        None,
        description="Existing node IAM role for the EC2NodeClasses when install is false. Default null: "
        "KarpenterNodeRole-<cluster> (created here when install is true).",
    )

    _check_ns = field_validator("namespace")(classmethod(lambda cls, v: _dns_name(v)))

    @model_validator(mode="after")
    def _role_only_without_install(self) -> "KarpenterConfig":
        if self.install and self.node_role_name is not None:
            raise ValueError("nodeRoleName names an existing role and is only read with install: false (install creates KarpenterNodeRole-<cluster>)")
        return self


class AddonsConfig(_Model):
    """Cluster add-ons the serving path depends on, each pinned and skippable."""

    cert_manager: AddonConfig = Field(
        default_factory=AddonConfig, description="cert-manager v1.21.1 (KServe's webhook certificates). Default {install: true}."
    )
    kserve: AddonConfig = Field(
        default_factory=AddonConfig,
        description="KServe v0.20.0 CRDs and controller, default deployment mode Standard. Default {install: true}.",
    )
    nvidia_device_plugin: AddonConfig = Field(
        default_factory=AddonConfig,
        description="NVIDIA device plugin 0.20.0 on GPU nodes only (the AL2023 NVIDIA AMI needs it; Bottlerocket's NVIDIA "
        "variant ships it). Default {install: true}.",
    )
    pod_identity_agent: AddonConfig = Field(
        default_factory=AddonConfig,
        description="The EKS Pod Identity Agent, as the EKS add-on eks-pod-identity-agent (aws.eks.Addon, the version EKS "
        "picks for the cluster's Kubernetes version), not a Helm release: Karpenter, the AWS Load Balancer Controller and "
        "the S3 model readers get their AWS credentials through it, and their Pod Identity associations wait for it. "
        "Default {install: true}; false where the cluster runs it already.",
    )
    efa_device_plugin: AddonConfig = Field(
        default_factory=AddonConfig,
        description="AWS EFA device plugin (eks-charts aws-efa-k8s-device-plugin v0.5.30), installed when a multi-node "
        "model requests EFA interfaces (distributed.efa on EFA instance types): nothing else serves "
        "vpc.amazonaws.com/efa, so those pods would stay Pending. Default {install: true}; false where it runs already.",
    )


class StackConfig(_Model):
    """Everything one stack file configures (the keys under ``llm-serving:``, plus ``aws:region``)."""

    region: Optional[Str] = Field(
        None,
        description="AWS region (key aws:region). Default null: the AWS provider's region (read with aws.get_region); "
        "when set, a provider in another region is refused.",
    )
    cluster: ClusterConfig = Field(description="The EKS cluster (required).")
    namespace: Str = Field("llm", description="Namespace of the serving workloads. Default llm.")
    gpu_pools: tuple[GpuPoolConfig, ...] = Field(description="GPU node pools (required, at least one).")
    models: tuple[ModelConfig, ...] = Field(description="Served models (required, at least one).")
    ingress: Optional[IngressConfig] = Field(None, description="Public entry point. Default null (no ingress).")
    environment: Literal["dev", "staging", "prod"] = Field(
        "dev",
        description="What the stack is for. prod requires every model's replicas.min >= 2 unless replicas.singleReplicaReason "
        "says why not. Default dev.",
    )
    karpenter: KarpenterConfig = Field(default_factory=KarpenterConfig, description="Default {install: true, namespace: kube-system}.")
    addons: AddonsConfig = Field(default_factory=AddonsConfig, description="Default: every add-on installed.")
    monitoring: MonitoringConfig = Field(
        default_factory=MonitoringConfig,
        description="Prometheus location, adapter/KEDA namespace and alert thresholds. Default: kube-prometheus-stack installed in monitoring.",
    )
    kuberay: KubeRayConfig = Field(
        default_factory=KubeRayConfig, description="The KubeRay operator. Default {install: true, namespace: kuberay-system}."
    )
    has_hf_token: Bool = Field(
        False, description="Set when the stack holds llm-serving:hfToken (a Pulumi secret); the value itself never enters this model. Default false."
    )
    has_api_key: Bool = Field(
        False,
        description="Set when the stack holds llm-serving:apiKey (a Pulumi secret): every model's vLLM reads it as "
        "VLLM_API_KEY from a Kubernetes Secret and answers /v1 only with it. The value itself never enters this model. Default false.",
    )
    aws_profile: Optional[Str] = Field(
        None, description="The AWS provider's profile (key aws:profile): kubectl's exec plugin runs with it. Default null (ambient credentials)."
    )
    aws_role_arn: Optional[Str] = Field(
        None,
        description="The role the AWS provider assumes (key aws:assumeRoles, or aws:assumeRole): kubectl's exec plugin "
        "assumes it too (aws eks get-token --role-arn). Default null.",
    )

    _check_ns = field_validator("namespace")(classmethod(lambda cls, v: _dns_name(v)))

    def sibling_of(self, name: str) -> Optional[str]:
        """The model whose long-context sibling ``name`` is, or None for a model of the stack file."""
        for m in self.models:
            if m.long_context is not None and m.name + LONG_SUFFIX == name:
                return m.name
        return None

    def model_paths(self) -> list[str]:
        """The stack-file path of each entry of ``models`` (a sibling is its model's ``longContext``)."""
        paths: list[str] = []
        i = -1
        for m in self.models:
            if self.sibling_of(m.name) is None:
                i += 1
                paths.append(f"models[{i}]")
            else:
                paths.append(f"models[{i}].longContext")
        return paths

    @field_validator("gpu_pools", "models")
    @classmethod
    def _not_empty(cls, v: tuple) -> tuple:
        # Checked after the items (not with min_length) so a bad item is not also reported as "empty".
        if not v:
            raise ValueError("must list at least one entry")
        return v

    @field_validator("region")
    @classmethod
    def _region(cls, v: Optional[str]) -> Optional[str]:
        if v is not None and not re.fullmatch(r"[a-z]{2}(-gov)?-[a-z]+-\d", v):
            raise ValueError("must be an AWS region such as us-west-2")
        return v

    @field_validator("aws_profile")
    @classmethod
    def _profile(cls, v: Optional[str]) -> Optional[str]:
        if v is not None and not re.fullmatch(r"[A-Za-z0-9_.@+=-]{1,128}", v):
            raise ValueError("must be a profile name of ~/.aws/config (letters, digits and _ . @ + = -)")
        return v

    @field_validator("aws_role_arn")
    @classmethod
    def _role(cls, v: Optional[str]) -> Optional[str]:
        if v is None:
            return v
        match = re.fullmatch(r"arn:aws(-[a-z]+(-[a-z]+)?)?:iam::[0-9]{12}:role/[A-Za-z0-9+=,.@_/-]{1,512}", v)
        if match is None:
            raise ValueError("must be an IAM role ARN such as arn:aws:iam::<account>:role/<name>")
        rule = placeholder_problem(v)
        if rule:
            raise ValueError(rule)
        return v



# Keys of the stack file without the "llm-serving:" prefix; each fills the StackConfig field of that alias.
_KEYS = frozenset({"cluster", "namespace", "gpuPools", "models", "ingress", "monitoring", "karpenter", "addons", "kuberay", "environment"})
_SECRET_KEYS = {"hfToken", "apiKey"}
# Which StackConfig flag says a secret key is set.
_SECRET_FLAGS = {"hfToken": "hasHfToken", "apiKey": "hasApiKey"}
# Provider keys the program reads besides aws:region: the identity kubectl's exec plugin must share.
_AWS_IDENTITY_KEYS = ("aws:profile", "aws:assumeRoles", "aws:assumeRole")
# Namespaces whose keys belong to providers and are passed through untouched.
_PROVIDER_NAMESPACES = {"aws", "kubernetes", "pulumi"}


def load_stack_config(raw: Mapping[str, Any]) -> StackConfig:
    """Validate the ``config:`` mapping of a stack file (namespaced keys) into a StackConfig.

    Raises ConfigError listing every problem; never returns a half-valid object.
    """
    problems: list[Problem] = []
    data: dict[str, Any] = {}
    if not isinstance(raw, Mapping):
        raise ConfigError([Problem("config", "must be a mapping of namespaced keys", raw)])
    for key in sorted(raw, key=str):
        namespace, _, name = str(key).partition(":")
        if not name:
            problems.append(Problem(str(key), "config keys must be namespaced, e.g. llm-serving:models", has_value=False))
        elif namespace == PROJECT:
            if name in _KEYS:
                data[name] = raw[key]
            elif name in _SECRET_KEYS:
                if not is_secret(raw[key]):
                    problems.append(
                        Problem(key, "must be a Pulumi secret (pulumi config set --secret); a clear-text token is refused", has_value=False)
                    )
                data[_SECRET_FLAGS[name]] = True
            else:
                allowed = ", ".join(f"{PROJECT}:{k}" for k in sorted([*_KEYS, *_SECRET_KEYS]))
                problems.append(Problem(str(key), f"unknown key; allowed keys: {allowed}", has_value=False))
        elif key == "aws:region":
            data["region"] = raw[key]
        elif key in _AWS_IDENTITY_KEYS:
            problems.extend(_aws_identity(str(key), raw[key], data))
        elif namespace not in _PROVIDER_NAMESPACES:
            problems.append(Problem(str(key), f"unknown config namespace {namespace!r}", has_value=False))
    text_problems, refused = _text_problems(raw)
    problems.extend(text_problems)
    try:
        cfg = StackConfig.model_validate(data)
    except ValidationError as exc:
        # A field already refused for a token or a control character is not reported twice.
        problems.extend(p for p in _problems_from(exc, data) if not any(_under(p.path, r) for r in refused))
        raise ConfigError(problems) from None
    if problems:
        raise ConfigError(problems)
    cfg = _with_siblings(cfg)
    cross = _cross_checks(cfg)
    if cross:
        raise ConfigError(cross)
    return cfg


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
        return [Problem(key, "chains several roles; kubectl's exec plugin (aws eks get-token --role-arn) assumes one. Assume the "
                        "chain in a profile of ~/.aws/config and set aws:profile instead", has_value=False)]
    role = roles[0]
    where = f"{key}[0]" if key == "aws:assumeRoles" else key
    extra = sorted(k for k in role if k not in ("roleArn", "sessionName", "duration"))
    if extra:
        return [Problem(f"{where}.{extra[0]}", "cannot be passed to aws eks get-token, so kubectl would reach the cluster as another "
                        "identity; put the role in a profile of ~/.aws/config and set aws:profile instead", has_value=False)]
    if "roleArn" not in role:
        return [Problem(f"{where}.roleArn", "is required", has_value=False)]
    arn = role["roleArn"]
    if not isinstance(arn, str) or not re.fullmatch(r"arn:aws(-[a-z]+(-[a-z]+)?)?:iam::[0-9]{12}:role/[A-Za-z0-9+=,.@_/-]{1,512}", arn):
        return [Problem(f"{where}.roleArn", "must be an IAM role ARN such as arn:aws:iam::<account>:role/<name>", arn)]
    rule = placeholder_problem(arn)
    if rule:
        return [Problem(f"{where}.roleArn", rule, arn)]
    data["awsRoleArn"] = arn
    return []


def _with_siblings(cfg: "StackConfig") -> "StackConfig":
    """The stack with each model's long-context sibling as a model of its own, right after it.

    Every later stage (capacity plan, pools, services, autoscaling, routes, report) then sizes and
    renders the sibling like any model; ``StackConfig.sibling_of`` tells routes which is which.
    """
    models: list[ModelConfig] = []
    for m in cfg.models:
        models.append(m)
        sibling = m.long_sibling()
        if sibling is not None:
            models.append(sibling)
    return cfg if len(models) == len(cfg.models) else cfg.model_copy(update={"models": tuple(models)})


# C0 and C1 control characters (newline, tab, NUL, ...) and the Unicode line and paragraph
# separators (and lone surrogates, which no encoder writes): no name, id, image, host or flag of a
# stack needs one, and a trailing newline would otherwise reach object names, file names and
# command lines.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


_MAX_EXACT = 2**53


def _number_in_range(value: float) -> bool:
    if isinstance(value, int):
        return -_MAX_EXACT <= value <= _MAX_EXACT
    return math.isfinite(value) and -_MAX_EXACT <= value <= _MAX_EXACT


def _display_key(key: str) -> str:
    """How messages name a config key: ``llm-serving:models`` -> ``models``, others as written."""
    namespace, _, name = key.partition(":")
    if namespace == PROJECT and name:
        return name
    return key


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith((prefix + ".", prefix + "["))


def _text_problems(raw: Mapping[str, Any]) -> tuple[list[Problem], list[str]]:
    """Clear-text credentials, control characters and out-of-range numbers anywhere in the config's non-secret values.

    A token (components.secrets shapes: hf_..., AKIA..., ghp_..., sk-...) is named by its field
    and shape with a redacted prefix, never echoed. Returns the problems and the paths refused.
    """
    problems: list[Problem] = []
    refused: list[str] = []
    for key in sorted(raw, key=str):
        if not isinstance(key, str) or _display_key(key) in _SECRET_KEYS:
            continue
        for loc, token in scan(raw[key], (_display_key(key),)):
            path = format_path(loc)
            problems.append(Problem(
                path, f"holds what looks like {token.described}; a credential never goes in a "
                "plain config value (put the Hugging Face token in llm-serving:hfToken as a Pulumi secret)", has_value=False))
            refused.append(path)
        stack: list[tuple[tuple[Any, ...], Any]] = [((_display_key(key),), raw[key])]
        while stack:
            loc, value = stack.pop()
            if isinstance(value, str):
                if _CONTROL.search(value) and not any(_under(format_path(loc), r) for r in refused):
                    problems.append(Problem(format_path(loc), "holds a control character (a newline, tab or similar); "
                                            "names, ids and flags are single-line text", value))
                    refused.append(format_path(loc))
            elif isinstance(value, (int, float)) and not isinstance(value, bool) and not _number_in_range(value):
                problems.append(Problem(format_path(loc), "is out of range: a stack file's numbers must be finite and within "
                                        "+-2^53 (the Pulumi engine carries config numbers as doubles)", value))
                refused.append(format_path(loc))
            elif isinstance(value, Mapping) and not is_secret(value):
                for k, v in value.items():
                    if isinstance(k, str) and _CONTROL.search(k):
                        problems.append(Problem(format_path(loc), "has a key with a control character", k))
                        refused.append(format_path(loc))
                    stack.append(((*loc, k), v))
            elif isinstance(value, (list, tuple)):
                stack.extend(((*loc, i), v) for i, v in enumerate(value))
    return problems, refused


_TOP_PATH = {"gpuPools": "gpuPools", "hasHfToken": "hfToken", "hasApiKey": "apiKey", "region": "aws:region", "awsProfile": "aws:profile",
             "awsRoleArn": "aws:assumeRoles"}


def _problems_from(exc: ValidationError, data: Mapping[str, Any]) -> list[Problem]:
    out = []
    for err in exc.errors(include_url=False):
        loc = list(err["loc"])
        # Model validators report at the object; field validators at the field.
        if loc and loc[0] in _TOP_PATH:
            loc[0] = _TOP_PATH[loc[0]]
        path = format_path(loc)
        etype = err["type"]
        value = err.get("input")
        if etype == "extra_forbidden":
            out.append(Problem(path, f"unknown key; allowed keys here: {_allowed_here(loc)}", has_value=False))
        elif etype == "missing":
            out.append(Problem(path, "is required", has_value=False))
        else:
            msg = err["msg"]
            msg = msg.removeprefix("Value error, ")
            # A rule about secrets must not echo the value that broke it.
            out.append(Problem(path, msg[:1].lower() + msg[1:], value, has_value="secret" not in msg))
    return out


def _allowed_here(loc: list[Any]) -> str:
    """The keys the model at ``loc[:-1]`` accepts, for 'did you mean' style help."""
    model: Any = StackConfig
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        field = next((f for f in model.model_fields.values() if f.alias == part), None)
        if field is None:
            return "?"
        ann = field.annotation
        model = _model_of(ann)
        if model is None:
            return "?"
    return ", ".join(f.alias for f in model.model_fields.values() if f.alias not in ("hasHfToken", "hasApiKey", "awsProfile", "awsRoleArn"))


def _model_of(annotation: Any) -> Any:
    import typing

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_of(arg)
        if found is not None:
            return found
    return None


def _network_problems(cfg: StackConfig) -> list[Problem]:
    """Tagging only with the selectors that read the tag."""
    problems: list[Problem] = []
    c, t = cfg.cluster, cfg.cluster.tag_for_discovery
    if t.subnet_ids and (c.subnets.ids or c.subnets.tags):
        problems.append(Problem("cluster.tagForDiscovery.subnetIds", f"adds the {DISCOVERY_TAG} tag, which only the default "
                                "subnets selector reads; remove cluster.subnets.ids/tags or this", list(t.subnet_ids)))
    sg = c.security_groups
    if t.security_group_ids and (sg.ids or sg.tags or sg.eks_cluster_security_group):
        problems.append(Problem("cluster.tagForDiscovery.securityGroupIds", f"adds the {DISCOVERY_TAG} tag, which only the "
                                "default securityGroups selector reads; remove cluster.securityGroups.ids/tags/eksClusterSecurityGroup "
                                "or this", list(t.security_group_ids)))
    return problems


def _cross_checks(cfg: StackConfig) -> list[Problem]:
    """Rules that relate objects: unique names, the pool exists, the GPUs fit on one node (or, for a
    distributed model, fill whole nodes of the pool: components/capacity/layout.py)."""
    from .capacity.gpus import INSTANCES

    problems: list[Problem] = []
    model_paths = cfg.model_paths()
    for label, items in (("gpuPools", cfg.gpu_pools), ("models", cfg.models)):
        seen: dict[str, int] = {}
        for i, item in enumerate(items):
            where = f"{label}[{i}]" if label == "gpuPools" else model_paths[i]
            if item.name in seen:
                first = f"{label}[{seen[item.name]}]" if label == "gpuPools" else model_paths[seen[item.name]]
                problems.append(Problem(f"{where}.name", f"duplicates {first}.name", item.name))
            seen.setdefault(item.name, i)
    if cfg.ingress is not None and cfg.region:
        # An ALB takes a regional web ACL of its own region only (a certificate's region is preflight's check).
        for field, arn in (("wafAclArn", cfg.ingress.waf_acl_arn),):
            if arn and arn_region(arn) != cfg.region:
                problems.append(Problem(f"ingress.{field}", f"is in {arn_region(arn)} and the stack (aws:region) in {cfg.region}: "
                                        "the ALB can only use one of its own region", arn))
    problems += _network_problems(cfg)
    pools = {p.name: p for p in cfg.gpu_pools}
    for i, m in enumerate(cfg.models):
        at = model_paths[i]
        sibling = at.endswith(".longContext")
        pool = pools.get(m.pool)
        if pool is None:
            if sibling:  # its model's pool, reported there
                continue
            problems.append(Problem(f"{at}.pool", f"no gpuPools entry has this name (pools: {', '.join(sorted(pools))})", m.pool))
            continue
        if cfg.environment == "prod" and m.replicas.min < 2 and not m.replicas.single_replica_reason:
            problems.append(
                Problem(
                    f"{at}.replicas.min",
                    "a prod model runs at least 2 replicas, so a node drain or a crash never takes its last ready one; "
                    "raise it or set replicas.singleReplicaReason",
                    m.replicas.min,
                )
            )
        if m.source.type == "localCache" and pool.ami_alias.startswith("bottlerocket@"):
            problems.append(
                Problem(
                    f"models[{i}].source.type",
                    f"localCache needs the host path /models that KServe v0.20.0's node agent mounts, and pool {pool.name!r} "
                    "runs Bottlerocket, whose root filesystem is read-only; use an al2023 amiAlias for this pool",
                    m.source.type,
                )
            )
        if m.source.type == "localCache" and not all(INSTANCES[t].local_nvme_gb for t in pool.instance_types):
            problems.append(
                Problem(
                    f"{at}.source.type",
                    f"localCache keeps the weights on instance-store NVMe, and not every instance type of pool {pool.name!r} has one",
                    m.source.type,
                )
            )
        gpus = m.engine.tensor_parallel_size * m.engine.pipeline_parallel_size
        if sibling:  # its model's layout and TP are checked at the model
            pass
        elif m.distributed is not None:
            from .capacity.layout import layout_problems

            problems.extend(layout_problems(m, pool, at))
        else:
            per_node = max(INSTANCES[t].gpu_count for t in pool.instance_types)
            if gpus > per_node:
                problems.append(
                    Problem(
                        f"{at}.engine.tensorParallelSize",
                        f"tensorParallelSize x pipelineParallelSize = {gpus} GPUs exceeds the {per_node} GPUs per node of pool "
                        f"{pool.name!r} ({', '.join(pool.instance_types)}); use a pool with larger nodes, or set "
                        f"{at}.distributed: {{backend: ray}} to spread the engine over several nodes (KubeRay)",
                        m.engine.tensor_parallel_size,
                    )
                )
        if gpus * m.replicas.min > pool.gpu_limit:
            problems.append(
                Problem(
                    f"{at}.replicas.min",
                    f"{m.replicas.min} replicas x {gpus} GPUs exceed gpuPools[{list(pools).index(pool.name)}].gpuLimit = {pool.gpu_limit}",
                    m.replicas.min,
                )
            )
    problems.extend(_pool_controller_problems(cfg))
    if cfg.ingress is not None and cfg.environment == "prod" and cfg.ingress.gateway_replica_count("prod") < 2:
        problems.append(Problem(
            "ingress.gatewayReplicas",
            "a prod Istio ingress gateway runs at least 2 replicas, so a rollout or a node drain never takes the only one "
            "(the chart's PodDisruptionBudget is rendered only above 1 replica)",
            cfg.ingress.gateway_replicas,
        ))
    return problems


def _pool_controller_problems(cfg: "StackConfig") -> list[Problem]:
    """What Karpenter would do wrong with a pool: reserved capacity it cannot find, a multi-node engine it would expire."""
    problems: list[Problem] = []
    multi_node = {m.pool for m in cfg.models if m.distributed is not None}
    for i, pool in enumerate(cfg.gpu_pools):
        if "reserved" in pool.capacity_types and not pool.capacity_reservations:
            # Karpenter v1.14.1 lists reservations only through the EC2NodeClass's selector terms
            # (pkg/controllers/nodeclass/capacityreservation.go:54); none selected, no reserved offering.
            problems.append(Problem(
                f"gpuPools[{i}].capacityReservations",
                "required when capacityTypes includes reserved: Karpenter launches reserved capacity only from the "
                "reservations the EC2NodeClass's capacityReservationSelectorTerms select; add {id: cr-...} or {tags: {...}}",
                [],
            ))
        expire = pool.disruption.expire_after
        if pool.name in multi_node and expire is not None and expire != "Never":
            problems.append(Problem(
                f"gpuPools[{i}].disruption.expireAfter",
                "must be Never on a pool that hosts a multi-node engine: expiry is forceful (it ignores disruption budgets "
                "and karpenter.sh/do-not-disrupt), so the engine's nodes would be replaced together and the model would "
                "cold-start; nodes then get new AMIs by drift inside the maintenance window",
                expire,
            ))
    return problems
