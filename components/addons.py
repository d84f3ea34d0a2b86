"""ClusterAddons: the PriorityClasses and the pinned Helm releases the serving path depends on.

A thin shell over builders/addons.py and builders/buffer.py: cert-manager, KServe (CRDs and
controller, Standard mode by default), the NVIDIA device plugin and the EKS Pod Identity Agent (an
EKS add-on, not a Helm release), each skippable with ``addons.<name>.install: false``; and the two
PriorityClasses (serving pods above zero, the GPU buffer's placeholders below) which are always
created.
"""

from __future__ import annotations

from typing import Any, Optional

import pulumi
import pulumi_kubernetes as k8s
from pydantic import BaseModel, ConfigDict, Field

from .builders import addons as build
from .builders.addons import KSERVE_NAMESPACE
from .builders.buffer import priority_classes
from .builders.model_source import agent_user_patch
from .cluster import KubernetesComponent
from .config import AddonsConfig
from .helm import helm_release
from .inputs import AwsProvider, InputStr


class ClusterAddonsArgs(BaseModel):
    """Inputs of ClusterAddons."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    addons: AddonsConfig = Field(default_factory=AddonsConfig, description="Which add-ons to install. Default: all.")
    local_model_cache: bool = Field(
        default=False, description="Install KServe's local model cache (a model uses source localCache). Default false."
    )
    cluster_name: Optional[InputStr] = Field(
        default=None,
        description="EKS cluster the Pod Identity Agent add-on goes to (pulumi.Input[str]). Default null: no add-on is made.",
    )
    aws_provider: Optional[AwsProvider] = Field(
        default=None, description="pulumi_aws.Provider for the EKS add-on. Default null (the stack's)."
    )
    efa: bool = Field(
        default=False, description="Install the EFA device plugin (a multi-node model requests EFA interfaces). Default false."
    )
    routes_itself: bool = Field(
        default=False,
        description="The stack routes to the predictors itself (an ingress is configured): KServe creates no Ingress. Default false.",
    )


class ClusterAddons(KubernetesComponent):
    """PriorityClasses plus cert-manager, KServe and the NVIDIA device plugin as pinned Helm releases."""

    pod_identity_agent: Optional[Any]

    def __init__(self, name: str, args: ClusterAddonsArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("llm-serving:addons:ClusterAddons", name, None, opts)
        # Karpenter, the load balancer controller and the S3 readers get AWS credentials from the agent;
        # their Pod Identity associations wait for it (platform.py passes this resource on).
        self.pod_identity_agent = None
        if args.addons.pod_identity_agent.install and args.cluster_name is not None:
            import pulumi_aws as aws  # only where AWS resources are made (slow import)

            self.pod_identity_agent = aws.eks.Addon(
                f"{name}-pod-identity-agent",
                **build.pod_identity_agent_addon(),
                cluster_name=args.cluster_name,
                opts=pulumi.ResourceOptions(parent=self, provider=args.aws_provider),
            )
        self.priority_classes = [
            k8s.scheduling.v1.PriorityClass(
                f"{name}-{pc['metadata']['name']}",
                metadata=pc["metadata"],
                value=pc["value"],
                global_default=pc["globalDefault"],
                preemption_policy=pc["preemptionPolicy"],
                description=pc["description"],
                opts=self.child_opts(),
            )
            for pc in priority_classes()
        ]
        self.releases: dict[str, k8s.helm.v3.Release] = {}
        for rel in build.addon_releases(args.addons, args.local_model_cache, args.routes_itself, args.efa):
            # The order (cert-manager, the CRDs, then the controllers) comes from components/deploy_order.py.
            self.releases[rel["name"]] = helm_release(f"{name}-{rel['name']}", rel, self.child_opts())
        # KServe's node agent as the download Job's user, so that it can clean the cache (builders/model_source.py).
        self.agent_user = None
        if "kserve-localmodel" in self.releases:
            patch = agent_user_patch(KSERVE_NAMESPACE)
            self.agent_user = k8s.apps.v1.DaemonSetPatch(
                f"{name}-kserve-localmodel-agent-user",
                metadata=patch["metadata"],
                spec=patch["spec"],
                opts=self.child_opts(depends_on=[self.releases["kserve-localmodel"]]),
            )
        self.register_outputs({"releases": sorted(self.releases), "podIdentityAgent": self.pod_identity_agent is not None})
