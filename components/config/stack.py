"""Everything one stack file configures: the cluster, the GPU pools, the models and the platform around them.

Pure: pydantic only.
"""

from __future__ import annotations

import re
from typing import Literal, Optional

from pydantic import Field, field_validator

from ..aws_ids import placeholder_problem
from .addons import AddonsConfig, KarpenterConfig, KubeRayConfig, MonitoringConfig
from .base import Bool, Str, _dns_name, _Model, matching
from .cluster import ClusterConfig
from .ingress import IngressConfig
from .models import LONG_SUFFIX, ModelConfig
from .pools import GpuPoolConfig


class DeployConfig(_Model):
    """How `pulumi up` treats the models it deploys (components/builders/awaiting.py)."""

    wait_for_models: Bool = Field(
        default=True,
        description="Make `pulumi up` wait until every model serves: InferenceServices carry pulumi.com/waitFor "
        "condition=Ready and RayClusters wait for RayClusterProvisioned and HeadPodReady, each within a timeout "
        "derived from the model's startup budget (node launch and image pull included), so a model that cannot "
        "start fails the update instead of passing it green. false for a fast `up` that returns once the objects "
        "are accepted. Default true.",
    )


class StackConfig(_Model):
    """Everything one stack file configures (the keys under ``llm-serving:``, plus ``aws:region``)."""

    region: Optional[Str] = Field(
        default=None,
        description="AWS region (key aws:region). Default null: the AWS provider's region (read with aws.get_region); "
        "when set, a provider in another region is refused.",
    )
    cluster: ClusterConfig = Field(description="The EKS cluster (required).")
    namespace: Str = Field(default="llm", description="Namespace of the serving workloads. Default llm.")
    gpu_pools: tuple[GpuPoolConfig, ...] = Field(description="GPU node pools (required, at least one).")
    models: tuple[ModelConfig, ...] = Field(description="Served models (required, at least one).")
    ingress: Optional[IngressConfig] = Field(default=None, description="Public entry point. Default null (no ingress).")
    environment: Literal["dev", "staging", "prod"] = Field(
        default="dev",
        description="What the stack is for. prod requires every model's replicas.min >= 2 unless replicas.singleReplicaReason "
        "says why not. Default dev.",
    )
    karpenter: KarpenterConfig = Field(
        default_factory=KarpenterConfig, description="Default {install: true, namespace: kube-system}."
    )
    addons: AddonsConfig = Field(default_factory=AddonsConfig, description="Default: every add-on installed.")
    monitoring: MonitoringConfig = Field(
        default_factory=MonitoringConfig,
        description="Prometheus location, adapter/KEDA namespace and alert thresholds. Default: kube-prometheus-stack installed in monitoring.",
    )
    kuberay: KubeRayConfig = Field(
        default_factory=KubeRayConfig, description="The KubeRay operator. Default {install: true, namespace: kuberay-system}."
    )
    has_hf_token: Bool = Field(
        default=False,
        description="Set when the stack holds llm-serving:hfToken (a Pulumi secret); the value itself never enters this model. Default false.",
    )
    has_api_key: Bool = Field(
        default=False,
        description="Set when the stack holds llm-serving:apiKey (a Pulumi secret): every model's vLLM reads it as "
        "VLLM_API_KEY from a Kubernetes Secret and answers the prefixes its release guards (/v1, ...) only with it. The value "
        "itself never enters this model. Default false.",
    )
    deploy: DeployConfig = Field(
        default_factory=DeployConfig,
        description="How `pulumi up` awaits the models (key llm-serving:deploy). Default {waitForModels: true}.",
    )
    aws_profile: Optional[Str] = Field(
        default=None,
        description="The AWS provider's profile (key aws:profile): kubectl's exec plugin runs with it. Default null (ambient credentials).",
    )
    aws_role_arn: Optional[Str] = Field(
        default=None,
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
        return matching(v, r"[a-z]{2}(-gov)?-[a-z]+-\d", "must be an AWS region such as us-west-2")

    @field_validator("aws_profile")
    @classmethod
    def _profile(cls, v: Optional[str]) -> Optional[str]:
        return matching(
            v, r"[A-Za-z0-9_.@+=-]{1,128}", "must be a profile name of ~/.aws/config (letters, digits and _ . @ + = -)"
        )

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
