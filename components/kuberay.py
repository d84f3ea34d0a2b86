"""KubeRay components: the operator (and the EFA network rules), and one multi-node vLLM engine.

Thin shells over components/builders/kuberay_operator.py and components/builders/ray_cluster.py.
Autoscaling a multi-node replica is out of scope (as in KServe and NIM): a RayVllmService is one
fixed-size RayCluster, and policy ``ray-multi-node-not-autoscaled`` refuses an HPA aimed at one.
"""

from __future__ import annotations

from typing import Any, Optional

import pulumi
import pulumi_kubernetes as k8s
from pydantic import BaseModel, ConfigDict, Field

from components.builders import kuberay_operator as operator
from components.builders import ray_cluster as build
from components.capacity.plan import ServingPlan
from components.cluster import KubernetesComponent
from components.config import KubeRayConfig, ModelConfig


class KubeRayArgs(BaseModel):
    """Inputs of a KubeRay component."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    config: KubeRayConfig = Field(default_factory=KubeRayConfig, description="Operator settings. Default: install in kuberay-system.")
    efa: bool = Field(False, description="Add the EFA security-group rules (some multi-node model uses EFA). Default false.")
    node_security_group_id: Optional[Any] = Field(
        None,
        description="pulumi.Input[str]: the security group of the GPU nodes, which EFA traffic must be allowed "
        "within. Required when efa is true. Default null.",
    )
    aws_provider: Optional[Any] = Field(None, description="A pulumi_aws.Provider for the security-group rules. Default null (the stack's).")


class KubeRay(KubernetesComponent):
    """The KubeRay operator Helm release (unless already installed) and the EFA security-group rules.

    Pass the cluster's Kubernetes provider as ``opts.provider`` (``LlmPlatform.k8s_opts()`` does).
    """

    def __init__(self, name: str, args: KubeRayArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("llm-serving:ray:KubeRay", name, None, opts)
        child = self.child_opts()
        self.release: Optional[k8s.helm.v3.Release] = None
        if args.config.install:
            rel = operator.operator_release(args.config)
            self.release = k8s.helm.v3.Release(
                f"{name}-operator",
                k8s.helm.v3.ReleaseArgs(
                    name=rel["name"],
                    chart=rel["chart"],
                    version=rel["version"],
                    repository_opts=k8s.helm.v3.RepositoryOptsArgs(repo=rel["repository"]),
                    namespace=rel["namespace"],
                    create_namespace=True,
                    values=rel["values"],
                ),
                opts=child,
            )
        self.efa_rules: list[pulumi.CustomResource] = []
        if args.efa:
            if args.node_security_group_id is None:
                raise ValueError("KubeRayArgs.node_security_group_id is required when efa is true")
            import pulumi_aws as aws

            for rule in build.efa_security_group_rules(name):
                kind = rule["kind"]
                cls = aws.vpc.SecurityGroupIngressRule if kind == "ingress" else aws.vpc.SecurityGroupEgressRule
                self.efa_rules.append(cls(
                    f"{name}-efa-{kind}",
                    security_group_id=args.node_security_group_id,
                    referenced_security_group_id=args.node_security_group_id,
                    ip_protocol=rule["ip_protocol"],
                    description=rule["description"],
                    tags=rule["tags"],
                    opts=pulumi.ResourceOptions(parent=self, provider=args.aws_provider),
                ))
        self.register_outputs({"operatorNamespace": args.config.namespace, "installed": args.config.install})


class RayVllmServiceArgs(BaseModel):
    """Inputs of a RayVllmService: a distributed model's config and its capacity plan."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    model: ModelConfig = Field(description="The model's stack configuration (required; distributed must be set).")
    plan: ServingPlan = Field(description="Its capacity plan (required; plan.layout holds the nodes and stages).")
    namespace: str = Field(description="Namespace of the RayCluster and its Service (required).")
    hf_token_secret: Optional[str] = Field(None, description="Name of the Secret with key 'token'. Default null (public model).")


class RayVllmService(KubernetesComponent):
    """One vLLM engine over several nodes: a KubeRay RayCluster and the Service of its head's API.

    Pass the cluster's Kubernetes provider as ``opts.provider`` (``LlmPlatform.k8s_opts()`` does).
    """

    ray_cluster: k8s.apiextensions.CustomResource
    service: k8s.core.v1.Service

    def __init__(self, name: str, args: RayVllmServiceArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("llm-serving:ray:RayVllmService", name, None, opts)
        if args.model.distributed is None or args.plan.layout is None:
            raise ValueError(f"RayVllmService {name}: the model has no distributed layout")
        child = self.child_opts()
        cluster = build.ray_cluster(args.model, args.plan, args.namespace, args.hf_token_secret)
        self.ray_cluster = k8s.apiextensions.CustomResource(
            f"{name}-raycluster",
            api_version=cluster["apiVersion"],
            kind=cluster["kind"],
            metadata=cluster["metadata"],
            spec=cluster["spec"],
            opts=child,
        )
        svc = build.api_service(args.model, args.namespace)
        self.service = k8s.core.v1.Service(f"{name}-service", metadata=svc["metadata"], spec=svc["spec"], opts=child)
        self.service_name = svc["metadata"]["name"]
        self.port = build.API_PORT
        self.register_outputs({
            "rayClusterName": args.model.name,
            "serviceName": self.service_name,
            "port": self.port,
            "nodes": args.plan.layout.nodes,
            "kvCacheTokens": args.plan.memory.kv_cache_tokens,
        })
