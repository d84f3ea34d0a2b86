"""GpuPool: one Karpenter GPU pool, its EC2NodeClass and NodePool (a thin shell over builders/karpenter.py)."""

from __future__ import annotations

from typing import Any, Optional

import pulumi
import pulumi_kubernetes as k8s
from pydantic import BaseModel, ConfigDict, Field

from .builders import awaiting, credentials, model_source
from .builders import buffer as buffers
from .builders import karpenter as build
from .capacity.pools import PoolPlan
from .cluster import KubernetesComponent
from .config import GpuPoolConfig, SecurityGroupSelectorConfig, SubnetSelectorConfig
from .inputs import AwsProvider, InputName, InputStr, manifest_parts, part, resolve


class GpuPoolArgs(BaseModel):
    """Inputs of a GpuPool."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    pool: GpuPoolConfig = Field(description="The pool's stack configuration (required).")
    plan: PoolPlan = Field(description="Its capacity plan (required): GPUs per node, root volume, drain, buffer.")
    cluster_name: InputStr = Field(
        description="EKS cluster name (required; pulumi.Input[str]): subnets and security groups are discovered by its tag."
    )
    node_role: Optional[InputStr] = Field(
        default=None,
        description="Name of the node IAM role (pulumi.Input[str]). Default: KarpenterNodeRole-<cluster>, the role "
        "Karpenter's getting-started guide creates.",
    )
    node_labels: dict[str, str] = Field(default_factory=dict, description="Extra labels on the pool's nodes. Default {}.")
    namespace: InputName = Field(
        default="llm", description="Namespace of the pool's buffer objects (pulumi.Input[str]). Default llm."
    )
    cache_models: tuple[Any, ...] = Field(
        default=(), description="(ModelConfig, checkpoint GiB) of the pool's models with source localCache. Default ()."
    )
    cache_credentials: bool = Field(
        default=False,
        description="The caches name each model's ServiceAccount (in KServe's job namespace, where the stack creates it "
        "with the Hugging Face Secret), so the download jobs get HF_TOKEN. Default false (public models).",
    )
    cache_depends_on: list[Any] = Field(
        default_factory=list,
        description="Resources the caches wait for (the job namespace's ServiceAccounts and Secret). Default [].",
    )
    depends_on: list[Any] = Field(
        default_factory=list, description="Resources the buffer objects wait for (e.g. their namespace). Default []."
    )
    subnets: SubnetSelectorConfig = Field(
        default_factory=SubnetSelectorConfig,
        description="Subnets of the nodes. Default: tagged karpenter.sh/discovery=<cluster_name>.",
    )
    security_groups: SecurityGroupSelectorConfig = Field(
        default_factory=SecurityGroupSelectorConfig,
        description="Security groups of the nodes. Default: tagged karpenter.sh/discovery=<cluster_name>.",
    )
    efa_vpc_id: Optional[InputStr] = Field(
        default=None,
        description="pulumi.Input[str]: VPC of the cluster. When set, the pool gets its own EFA security group there (all "
        "traffic to and from itself), which its EC2NodeClass selects besides security_groups; the cluster security group "
        "is never edited. Default null (no EFA group).",
    )
    network_depends_on: list[Any] = Field(
        default_factory=list,
        description="Resources the EC2NodeClass waits for (e.g. the discovery tags it selects by). Default [].",
    )
    aws_provider: Optional[AwsProvider] = Field(
        default=None, description="pulumi_aws.Provider for the EFA security group. Default null (the stack's)."
    )


class GpuPool(KubernetesComponent):
    """An EC2NodeClass and a NodePool for one ``gpuPools`` entry, and its warm GPU buffer when it has one.

    Pass the cluster's Kubernetes provider in ``opts`` (``LlmPlatform.k8s_opts()``); both children use it.
    Outputs: ``pool_name`` (the NodePool's name, which models select) and ``gpu_limit``.
    """

    pool_name: pulumi.Output[str]
    gpu_limit: pulumi.Output[int]
    node_class: k8s.apiextensions.CustomResource
    node_pool: k8s.apiextensions.CustomResource

    def __init__(self, name: str, args: GpuPoolArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("llm-serving:karpenter:GpuPool", name, None, opts)
        self.efa_security_group: Optional[pulumi.CustomResource] = None
        self.node_class = self._node_class(name, args)
        labels = {**args.node_labels, **(model_source.LOCALMODEL_NODE_LABEL if args.plan.cached_models else {})}
        pool = build.node_pool(args.pool, args.plan, labels)
        self.node_pool = k8s.apiextensions.CustomResource(
            f"{name}-node-pool",
            api_version=pool["apiVersion"],
            kind=pool["kind"],
            metadata=pool["metadata"],
            spec=pool["spec"],
            opts=self.child_opts(depends_on=[self.node_class], custom_timeouts=self._delete_timeout(args)),
        )
        self.buffer: list[pulumi.Resource] = self._buffer(name, args) if args.plan.buffer_gpus else []
        in_namespace = self.child_opts(depends_on=[self.node_pool, *args.depends_on])
        # Every node of the pool pulls its models' vLLM images as it joins (cold start: no pull on scale-out).
        self.prepull = None
        if args.plan.images:
            ds = resolve(lambda n: model_source.prepull_daemonset(args.plan, args.plan.images, n), args.namespace)
            self.prepull = k8s.apps.v1.DaemonSet(
                f"{name}-image-prepull", metadata=part(ds, "metadata"), spec=part(ds, "spec"), opts=in_namespace
            )
        # Models with source localCache: the node group over the pool's NVMe and one cache per model.
        self.model_caches: list[pulumi.Resource] = []
        self.caches_by_model: dict[str, pulumi.Resource] = {}
        if args.cache_models:
            self._model_caches(name, args)
        # A plain str (known at plan time) for callers in this program; the typed Outputs for other stacks.
        self.node_pool_name = args.pool.name
        self.pool_name = pulumi.Output.from_input(args.pool.name)
        self.gpu_limit = pulumi.Output.from_input(args.plan.gpu_limit)
        self.register_outputs(
            {"nodePoolName": args.pool.name, "gpuLimit": args.plan.gpu_limit, "bufferGpus": args.plan.buffer_gpus}
        )

    def _node_class(self, name: str, args: GpuPoolArgs) -> k8s.apiextensions.CustomResource:
        """The pool's EC2NodeClass (after its EFA security group, when the pool has one)."""
        # The cluster name and the role may be another stack's Outputs: builders run once they are known.
        role = args.node_role if args.node_role is not None else resolve(build.node_role_name, args.cluster_name)
        efa_sg_id: Any = None
        node_class_deps = list(args.network_depends_on)
        if args.efa_vpc_id is not None:
            self.efa_security_group = self._efa_security_group(name, args)
            efa_sg_id = self.efa_security_group.id
            node_class_deps.append(self.efa_security_group)
        api_version, kind, metadata, spec = manifest_parts(
            lambda cluster, r, sg: build.ec2_node_class(args.pool, args.plan, cluster, r, args.subnets, args.security_groups, sg),
            args.cluster_name,
            role,
            efa_sg_id,
        )
        return k8s.apiextensions.CustomResource(
            f"{name}-node-class",
            api_version=api_version,
            kind=kind,
            metadata=metadata,
            spec=spec,
            opts=self.child_opts(
                **({"depends_on": node_class_deps} if node_class_deps else {}), custom_timeouts=self._delete_timeout(args)
            ),
        )

    @staticmethod
    def _delete_timeout(args: GpuPoolArgs) -> pulumi.CustomTimeouts:
        """The NodePool's and EC2NodeClass's delete timeout: their nodes' drain (components/builders/awaiting.py)."""
        return pulumi.CustomTimeouts(**awaiting.node_pool(args.plan).timeouts)

    def _buffer(self, name: str, args: GpuPoolArgs) -> list[pulumi.Resource]:
        """The pool's spare capacity: a CapacityBuffer over a pod template, or a placeholder Deployment."""
        after = self.child_opts(depends_on=[self.node_pool, *args.depends_on])
        ns = args.namespace
        if args.pool.buffer.mode == "capacityBuffer":
            template = resolve(lambda n: buffers.buffer_pod_template(args.plan, n), ns)
            pod_template = k8s.core.v1.PodTemplate(
                f"{name}-buffer-template", metadata=part(template, "metadata"), template=part(template, "template"), opts=after
            )
            cb_version, cb_kind, cb_meta, cb_spec = manifest_parts(lambda n: buffers.capacity_buffer(args.plan, n), ns)
            return [
                pod_template,
                k8s.apiextensions.CustomResource(
                    f"{name}-capacity-buffer",
                    api_version=cb_version,
                    kind=cb_kind,
                    metadata=cb_meta,
                    spec=cb_spec,
                    opts=self.child_opts(depends_on=[pod_template]),
                ),
            ]
        dep = resolve(lambda n: buffers.placeholder_deployment(args.plan, n), ns)
        return [k8s.apps.v1.Deployment(f"{name}-buffer", metadata=part(dep, "metadata"), spec=part(dep, "spec"), opts=after)]

    def _model_caches(self, name: str, args: GpuPoolArgs) -> None:
        """The LocalModelNodeGroup over the pool's NVMe and one LocalModelCache per cached model."""
        group = model_source.local_model_node_group(args.plan)
        node_group = k8s.apiextensions.CustomResource(
            f"{name}-model-node-group",
            api_version=group["apiVersion"],
            kind=group["kind"],
            metadata=group["metadata"],
            spec=group["spec"],
            opts=self.child_opts(depends_on=[self.node_pool, *args.depends_on]),
        )
        self.model_caches.append(node_group)
        for model, checkpoint_gib in args.cache_models:
            account = credentials.model_service_account_name(model) if args.cache_credentials else None
            cache = model_source.local_model_cache(model, checkpoint_gib, account)
            self.caches_by_model[model.name] = k8s.apiextensions.CustomResource(
                f"{name}-model-cache-{model.name}",
                api_version=cache["apiVersion"],
                kind=cache["kind"],
                metadata=cache["metadata"],
                spec=cache["spec"],
                # The download job reads the account's Secrets when it starts: they exist first.
                opts=self.child_opts(depends_on=[node_group, *args.cache_depends_on]),
            )
            self.model_caches.append(self.caches_by_model[model.name])

    def _efa_security_group(self, name: str, args: GpuPoolArgs) -> pulumi.CustomResource:
        """The pool's own EFA security group and its two self rules (builders/karpenter.py)."""
        import pulumi_aws as aws  # only where AWS resources are made (slow import)

        aws_opts = pulumi.ResourceOptions(parent=self, provider=args.aws_provider)
        group_args = resolve(lambda cluster: build.efa_security_group(name, cluster), args.cluster_name)
        group = aws.ec2.SecurityGroup(
            f"{name}-efa-sg",
            vpc_id=args.efa_vpc_id,
            description=part(group_args, "description"),
            tags=part(group_args, "tags"),
            revoke_rules_on_delete=True,
            opts=aws_opts,
        )
        self.efa_rules = []
        for rule in build.efa_security_group_rules(name):
            cls = aws.vpc.SecurityGroupIngressRule if rule["kind"] == "ingress" else aws.vpc.SecurityGroupEgressRule
            self.efa_rules.append(
                cls(
                    f"{name}-efa-{rule['kind']}",
                    security_group_id=group.id,
                    referenced_security_group_id=group.id,
                    ip_protocol=rule["ip_protocol"],
                    description=rule["description"],
                    tags=rule["tags"],
                    opts=aws_opts,
                )
            )
        return group
