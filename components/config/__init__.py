"""The stack configuration: the user-facing contract of llm-serving.

A stack file (``stacks/Pulumi.<env>.yaml``) holds namespaced keys under ``config:``;
:func:`load_stack_config` turns them into frozen pydantic models. Per-field rules live on
the models; rules that relate two objects (a model's pool must exist, its GPUs must fit
on one node of that pool) run afterwards in :func:`~components.config.cross_checks.cross_checks`.
Every problem is reported with its field path, the value and the rule, all at once, as a
:class:`~components.errors.ConfigError`.

One module per concern (this package re-exports the names other modules import):

- the schema, one frozen model per object: ``base`` (strict scalars, the base model, name
  rules), ``cluster``, ``pools``, ``models``, ``ingress``, ``addons`` (monitoring, Karpenter,
  KubeRay, add-ons) and ``stack`` (StackConfig, the whole file);
- ``routing``: which stack-file key fills which field, which keys are refused;
- ``scan``: credentials, control characters and inexact numbers in plain values;
- ``pydantic_errors``: pydantic's errors as problems that name the stack file's path;
- ``placement``: whether a model's replica spans nodes, and the node rules of one that does;
- ``cross_checks``: the rules that relate objects;
- ``load``: :func:`load_stack_config`, the stages in order.

Each module imports only modules named before it in this list. Nothing here imports the capacity
plan or anything that builds from the config (the constants the builders also read live in
components/facts.py, the GPU and instance records in components/hardware.py): import-linter's
contracts in pyproject.toml, run by .ci/run.
"""

from ..facts import DISCOVERY_TAG, EKS_CLUSTER_NAME_TAG, KUBERAY_CHART_VERSION
from .addons import (
    AddonConfig,
    AddonsConfig,
    AlertsConfig,
    KarpenterConfig,
    KubeRayConfig,
    MonitoringConfig,
    PrometheusConfig,
)
from .base import PROJECT, Bool, Float, Int, Str
from .base import _dns_name as _dns_name  # components/inputs.py checks names with it
from .cluster import (
    ClusterConfig,
    DiscoveryTaggingConfig,
    SecurityGroupId,
    SecurityGroupSelectorConfig,
    SubnetId,
    SubnetSelectorConfig,
)
from .cross_checks import cross_checks
from .ingress import IngressConfig
from .load import load_stack_config
from .models import (
    BLOCK_SIZES,
    LONG_CONTEXT_HEADER,
    LONG_CONTEXT_VALUE,
    LONG_SUFFIX,
    ArchitectureConfig,
    AutoscalingBackend,
    AutoscalingConfig,
    DistributedConfig,
    Dtype,
    EngineConfig,
    KvCacheDtype,
    LongContextConfig,
    ModelConfig,
    ModelSourceConfig,
    Quantization,
    ReplicasConfig,
    SloConfig,
    StartupConfig,
    TrafficConfig,
)
from .pools import (
    DEFAULT_AMI_ALIAS,
    EXPIRE_AFTER_FLOOR_HOURS,
    BufferConfig,
    CapacityReservationConfig,
    DisruptionConfig,
    GpuPoolConfig,
    MaintenanceWindowConfig,
    duration_seconds,
)
from .stack import DeployConfig, StackConfig

__all__ = [
    "AddonConfig",
    "AddonsConfig",
    "AlertsConfig",
    "ArchitectureConfig",
    "AutoscalingBackend",
    "AutoscalingConfig",
    "BLOCK_SIZES",
    "Bool",
    "BufferConfig",
    "CapacityReservationConfig",
    "ClusterConfig",
    "DEFAULT_AMI_ALIAS",
    "DISCOVERY_TAG",
    "DeployConfig",
    "DiscoveryTaggingConfig",
    "DisruptionConfig",
    "DistributedConfig",
    "Dtype",
    "EKS_CLUSTER_NAME_TAG",
    "EXPIRE_AFTER_FLOOR_HOURS",
    "EngineConfig",
    "Float",
    "GpuPoolConfig",
    "IngressConfig",
    "Int",
    "KUBERAY_CHART_VERSION",
    "KarpenterConfig",
    "KubeRayConfig",
    "KvCacheDtype",
    "LONG_CONTEXT_HEADER",
    "LONG_CONTEXT_VALUE",
    "LONG_SUFFIX",
    "LongContextConfig",
    "MaintenanceWindowConfig",
    "ModelConfig",
    "ModelSourceConfig",
    "MonitoringConfig",
    "PROJECT",
    "PrometheusConfig",
    "Quantization",
    "ReplicasConfig",
    "SecurityGroupId",
    "SecurityGroupSelectorConfig",
    "SloConfig",
    "StackConfig",
    "StartupConfig",
    "Str",
    "SubnetId",
    "SubnetSelectorConfig",
    "TrafficConfig",
    "cross_checks",
    "duration_seconds",
    "load_stack_config",
]
