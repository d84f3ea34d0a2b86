"""LlmPlatform: the whole serving stack of one environment, built from a validated StackConfig."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import pulumi
import pulumi_kubernetes as k8s
from pydantic import BaseModel, ConfigDict, Field

from .addons import ClusterAddons, ClusterAddonsArgs
from .autoscaling import MetricsStack, MetricsStackArgs, model_autoscalers
from .backends import Controller, KubeRayBackend, ServeRequest, serving_backend
from .builders import credentials
from .builders import vllm_service as build
from .builders.ingress import READINESS_GATE_LABEL
from .builders.labels import recommended_labels
from .builders.network_policy import prometheus_namespace
from .capacity.plan import ServingPlan, plan_stack
from .capacity.pools import PoolPlan, plan_pools
from .cluster import certificate_authority, eks_kubeconfig_output, k8s_child_opts, kubernetes_provider, provider_region
from .config import DISCOVERY_TAG, ModelConfig, StackConfig
from .deploy_order import DeployOrder
from .gpu_pool import GpuPool, GpuPoolArgs
from .ingress import LlmIngress, LlmIngressArgs
from .inputs import AwsProvider, InputStr, K8sProvider
from .karpenter import Karpenter, KarpenterArgs
from .model_source import S3ModelReader, S3ModelReaderArgs

HF_SECRET_NAME = "hf-token"
API_KEY_SECRET_NAME = "vllm-api-key"


def _credentials_secret(
    resource_name: str, namespace: str, name: str, key: str, value: InputStr, opts: pulumi.ResourceOptions
) -> k8s.core.v1.Secret:
    """Register a Secret holding one credential under ``key``, its value kept a Pulumi secret."""
    meta = credentials.credentials_secret(namespace, name)
    return k8s.core.v1.Secret(
        resource_name, metadata=meta["metadata"], type=meta["type"], string_data={key: pulumi.Output.secret(value)}, opts=opts
    )


class LlmPlatformArgs(BaseModel):
    """Inputs of an LlmPlatform."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    config: StackConfig = Field(description="The validated stack configuration (required).")
    hf_token: Optional[InputStr] = Field(
        default=None, description="Hugging Face token (pulumi.Input[str], kept secret). Default null (public models only)."
    )
    api_key: Optional[InputStr] = Field(
        default=None,
        description="The API key every model requires on /v1 (pulumi.Input[str], kept secret): stored in the Secret "
        f"{API_KEY_SECRET_NAME!r} and read by vLLM as VLLM_API_KEY. Default null (no key).",
    )
    base_dir: Optional[Path] = Field(
        default=None, description="Directory that architecture.configPath is relative to. Default: cwd."
    )
    plans: Optional[dict[str, ServingPlan]] = Field(
        default=None, description="Precomputed capacity plans. Default: computed here."
    )
    k8s_provider: Optional[K8sProvider] = Field(
        default=None,
        description="A pulumi_kubernetes.Provider for the cluster, e.g. from the stack that owns the cluster. Default null: "
        "the platform creates one from config.cluster (see components/cluster.py).",
    )
    aws_provider: Optional[AwsProvider] = Field(
        default=None,
        description="A pulumi_aws.Provider for the EKS lookup and the AWS resources. Default null (the stack's aws:region).",
    )
    vpc_id: Optional[InputStr] = Field(
        default=None,
        description="pulumi.Input[str]: VPC of the cluster, where a pool that carries an EFA model gets its own EFA "
        "security group. Default: looked up from cluster.name when some pool needs one.",
    )


class LlmPlatform(pulumi.ComponentResource):
    """The cluster connection, GPU pools, namespace, credentials, one serving component per configured model
    (from its back-end, components/backends/: a VllmService or a RayVllmService), one ModelAutoscaling per
    model, and the metrics stack.

    Every Kubernetes child goes through one explicit provider (``self.k8s_provider``); child
    components receive it with ``opts=self.k8s_opts(...)``.

    Outputs other stacks need (the program exports them as stack outputs, see
    :meth:`stack_outputs`): ``namespace``, ``service_urls``, ``model_names``, ``pool_names``,
    ``queue_budgets``, ``hpa_targets``, ``hf_token_secret`` and ``api_key_secret``.
    """

    namespace: pulumi.Output[str]
    service_urls: pulumi.Output[dict[str, str]]
    model_names: pulumi.Output[list[str]]
    pool_names: pulumi.Output[dict[str, str]]
    queue_budgets: pulumi.Output[dict[str, Optional[int]]]
    hpa_targets: pulumi.Output[dict[str, int]]
    hf_token_secret: pulumi.Output[Optional[str]]
    api_key_secret: pulumi.Output[Optional[str]]

    def __init__(self, name: str, args: LlmPlatformArgs, opts: Optional[pulumi.ResourceOptions] = None):
        # What waits for what is derived from the rendered children (components/deploy_order.py),
        # once all of them are registered: sealed also when construction fails part way.
        self.deploy_order = DeployOrder()
        try:
            self._construct(name, args, pulumi.ResourceOptions.merge(opts, self.deploy_order.options()))
        finally:
            self.deploy_order.seal()

    def _construct(self, name: str, args: LlmPlatformArgs, opts: pulumi.ResourceOptions) -> None:
        super().__init__("llm-serving:platform:LlmPlatform", name, None, opts)
        cfg = args.config
        self.plans = args.plans if args.plans is not None else plan_stack(cfg, args.base_dir)
        self.pool_plans: dict[str, PoolPlan] = plan_pools(cfg.gpu_pools, cfg.models, self.plans)
        self.cluster_name = cfg.cluster.name
        self._connect(name, args)
        namespace = k8s.core.v1.Namespace(
            f"{name}-namespace",
            metadata={
                "name": cfg.namespace,
                # The ALB controller injects readiness gates only in labelled namespaces (builders/ingress.py).
                "labels": {
                    **recommended_labels(cfg.namespace, component="namespace"),
                    **(READINESS_GATE_LABEL if cfg.ingress else {}),
                },
            },
            opts=self.k8s_opts(),
        )
        self._gpu_capacity(name, args, namespace)
        in_ns = self.k8s_opts(depends_on=[namespace])
        secret_name = None
        if args.hf_token is not None:
            secret_name = HF_SECRET_NAME
            # KServe's key (pkg/credentials/hf/hf_secret.go HFTokenKey): builders/credentials.py.
            _credentials_secret(f"{name}-hf-token", cfg.namespace, HF_SECRET_NAME, credentials.HF_TOKEN_KEY, args.hf_token, in_ns)
        api_key_secret = None
        if args.api_key is not None:
            api_key_secret = API_KEY_SECRET_NAME
            _credentials_secret(f"{name}-api-key", cfg.namespace, API_KEY_SECRET_NAME, build.API_KEY_KEY, args.api_key, in_ns)
        # Each back-end's cluster-wide controller (the KubeRay operator), once, when some model uses that back-end.
        self.controllers: dict[str, Controller] = {}
        for backend in {serving_backend(m).key: serving_backend(m) for m in cfg.models}.values():
            if (controller := backend.controller(name, cfg, self.k8s_opts())) is not None:
                self.controllers[backend.key] = controller
        ray = self.controllers.get(KubeRayBackend.key)
        self.kuberay: Optional[pulumi.Resource] = ray.component if ray is not None else None  # the earlier attribute
        # Models streamed from S3 read their mirror as their own ServiceAccount (EKS Pod Identity).
        self.model_readers = {
            m.name: S3ModelReader(
                f"{name}-{m.name}-s3-reader",
                S3ModelReaderArgs(
                    model=m,
                    namespace=cfg.namespace,
                    cluster_name=cfg.cluster.name,
                    aws_provider=args.aws_provider,
                    pod_identity_agent=self.addons.pod_identity_agent,
                ),
                opts=in_ns,
            )
            for m in cfg.models
            if m.source.type == "s3"
        }
        self.services = {m.name: self._serve(name, m, cfg, namespace, secret_name, api_key_secret) for m in cfg.models}
        self._serving_load(name, cfg, args, namespace, api_key_secret)
        self._outputs(cfg, secret_name, api_key_secret)

    def _connect(self, name: str, args: LlmPlatformArgs) -> None:
        """The region, one lookup of the cluster for the kubeconfig and the exports, and the Kubernetes provider."""
        cfg = args.config
        # One region, the AWS provider's (refused when aws:region names another), for every ARN, chart
        # value and --region.
        from pulumi_aws import eks

        self.region = provider_region(cfg.region, self, args.aws_provider)
        eks_cluster = eks.get_cluster_output(
            name=cfg.cluster.name, opts=pulumi.InvokeOptions(parent=self, provider=args.aws_provider)
        )
        self.cluster_endpoint = eks_cluster.endpoint
        self.cluster_certificate_authority = eks_cluster.certificate_authorities.apply(certificate_authority)
        # kubectl's exec plugin runs as the provider's profile / assumed role (components/builders/kubeconfig.py).
        self.kubeconfig = eks_kubeconfig_output(
            cfg.cluster.name, self.region, self, args.aws_provider, cfg.aws_profile, cfg.aws_role_arn, cluster=eks_cluster
        )
        self.k8s_provider = (
            args.k8s_provider
            if args.k8s_provider is not None
            else kubernetes_provider(f"{name}-k8s", cfg.cluster, self.region, self, args.aws_provider, kubeconfig=self.kubeconfig)
        )

    def _gpu_capacity(self, name: str, args: LlmPlatformArgs, namespace: pulumi.Resource) -> None:
        """PriorityClasses and add-ons, Karpenter (unless it already runs), then the GPU pools."""
        cfg = args.config
        self.addons = ClusterAddons(
            f"{name}-addons",
            ClusterAddonsArgs(
                addons=cfg.addons,
                local_model_cache=any(m.source.type == "localCache" for m in cfg.models),
                routes_itself=cfg.ingress is not None,
                cluster_name=cfg.cluster.name,
                aws_provider=args.aws_provider,
                efa=uses_efa(cfg, self.plans),
            ),
            opts=self.k8s_opts(),
        )
        capacity_buffer = any(p.buffer.mode == "capacityBuffer" and self.pool_plans[p.name].buffer_gpus for p in cfg.gpu_pools)
        self.karpenter: Optional[Karpenter] = None
        node_role: Any = cfg.karpenter.node_role_name
        if cfg.karpenter.install:
            self.karpenter = Karpenter(
                f"{name}-karpenter",
                KarpenterArgs(
                    cluster_name=cfg.cluster.name,
                    region=self.region,
                    namespace=cfg.karpenter.namespace,
                    capacity_buffer=capacity_buffer,
                    aws_provider=args.aws_provider,
                    pod_identity_agent=self.addons.pod_identity_agent,
                ),
                opts=self.k8s_opts(),
            )
            node_role = self.karpenter.node_role_name
        # Networking: the discovery tags the stack is asked to add, and an EFA security group per pool that needs one.
        discovery_tags = self._discovery_tags(name, args)
        efa_pools = self._efa_pools(cfg)
        vpc_id = args.vpc_id if args.vpc_id is not None or not efa_pools else self._cluster_vpc(args)
        cache_credentials = self._cache_credentials(name, args)
        self.pools = {
            p.name: GpuPool(
                f"{name}-pool-{p.name}",
                GpuPoolArgs(
                    pool=p,
                    plan=self.pool_plans[p.name],
                    cluster_name=cfg.cluster.name,
                    node_role=node_role,
                    namespace=cfg.namespace,
                    cache_models=tuple(
                        (m, self.plans[m.name].model.checkpoint_gib)
                        for m in cfg.models
                        if m.pool == p.name and m.source.type == "localCache"
                    ),
                    depends_on=[namespace],
                    subnets=cfg.cluster.subnets,
                    security_groups=cfg.cluster.security_groups,
                    efa_vpc_id=vpc_id if p.name in efa_pools else None,
                    network_depends_on=discovery_tags,
                    aws_provider=args.aws_provider,
                    cache_credentials=bool(cache_credentials),
                    cache_depends_on=cache_credentials,
                ),
                opts=self.k8s_opts(),
            )
            for p in cfg.gpu_pools
        }

    def _serve(
        self,
        name: str,
        m: ModelConfig,
        cfg: StackConfig,
        namespace: pulumi.Resource,
        hf_token_secret: Optional[str],
        api_key_secret: Optional[str],
    ) -> pulumi.ComponentResource:
        """One model's serving component, from the back-end that serves it (components/backends/)."""
        backend = serving_backend(m)
        controller = self.controllers.get(backend.key)
        # The pods start after their back-end's controller and its CRDs (the KubeRay operator); an S3 model's
        # after its ServiceAccount and Pod Identity association; a cached model's after its LocalModelCache:
        # KServe matches an InferenceService to a LocalModelCache once, at admission
        # (pkg/apis/serving/v1beta1/inference_service_defaults.go DefaultInferenceService gets the cache list).
        # And after the NodePool its pods select: the create's wait (builders/awaiting.py) counts node launch, image
        # pull and load, so its clock must not start before a node can launch; and destroy deletes the model before
        # Karpenter drains the pool (docs/deploy.md "What `pulumi destroy` does"; a cold review, session 23, N8).
        cache = self.pools[m.pool].caches_by_model.get(m.name)
        waits = [
            namespace,
            self.pools[m.pool].node_pool,
            *(controller.waits if controller is not None else ()),
            *self._reader_of(m.name),
            *([cache] if cache is not None else []),
        ]
        return backend.serve(
            ServeRequest(
                name=f"{name}-{m.name}",
                model=m,
                plan=self.plans[m.name],
                namespace=cfg.namespace,
                pool_name=self.pools[m.pool].node_pool_name,
                hf_token_secret=hf_token_secret,
                api_key_secret=api_key_secret,
                opts=self.k8s_opts(depends_on=waits),
                # Our kserve release clears KServe's default CPU limit; a cluster's own KServe may not have.
                kserve_cpu_limit_cleared=cfg.addons.kserve.install,
                wait_for_ready=cfg.deploy.wait_for_models,
            )
        )

    def _serving_load(
        self, name: str, cfg: StackConfig, args: LlmPlatformArgs, namespace: pulumi.Resource, api_key_secret: Optional[str]
    ) -> None:
        """The entry point (ALB and Istio, every timeout from the models' chains), then the metrics plumbing once and
        each model's autoscaler, monitor and alerts."""
        self.ingress = None
        if cfg.ingress is not None:
            siblings = {m.name: parent for m in cfg.models if (parent := cfg.sibling_of(m.name))}
            self.ingress = LlmIngress(
                f"{name}-ingress",
                LlmIngressArgs(
                    ingress=cfg.ingress,
                    models=cfg.models,
                    plans=self.plans,
                    namespace=cfg.namespace,
                    siblings=siblings,
                    cluster_name=cfg.cluster.name,
                    region=self.region,
                    aws_provider=args.aws_provider,
                    gateway_replicas=cfg.ingress.gateway_replica_count(cfg.environment),
                    api_key=api_key_secret is not None,
                    pod_identity_agent=self.addons.pod_identity_agent,
                    prometheus_namespace=prometheus_namespace(cfg.monitoring.prometheus.url, cfg.monitoring.namespace),
                    kuberay_namespace=cfg.kuberay.namespace,
                ),
                opts=self.k8s_opts(depends_on=[namespace, *self.services.values()]),
            )
        self.metrics = MetricsStack(
            f"{name}-metrics",
            MetricsStackArgs(models=cfg.models, namespace=cfg.namespace, monitoring=cfg.monitoring),
            opts=self.k8s_opts(),
        )
        self.autoscaling = model_autoscalers(
            name,
            cfg.models,
            self.plans,
            cfg.namespace,
            cfg.monitoring,
            self.k8s_opts(depends_on=[namespace, self.metrics]),
            metrics_stack=self.metrics,
        )

    def _outputs(self, cfg: StackConfig, secret_name: Optional[str], api_key_secret: Optional[str]) -> None:
        """Plain values (known at plan time) so other stacks and the report read them without waiting."""
        self.namespace = pulumi.Output.from_input(cfg.namespace)
        self.service_urls = pulumi.Output.from_input(
            {m.name: serving_backend(m).service_url(m, cfg.namespace) for m in cfg.models}
        )
        self.model_names = pulumi.Output.from_input(list(self.services))
        self.pool_names = pulumi.Output.from_input({n: p.node_pool_name for n, p in self.pools.items()})
        self.queue_budgets = pulumi.Output.from_input({n: p.max_num_queued_reqs for n, p in self.plans.items()})
        # A model its back-end does not autoscale (multi-node: out of scope) has no HPA target.
        self.hpa_targets = pulumi.Output.from_input(
            {
                m.name: self.plans[m.name].target_in_flight_per_pod
                for m in cfg.models
                if serving_backend(m).scale_target(m) is not None
            }
        )
        self.hf_token_secret = pulumi.Output.from_input(secret_name)
        self.api_key_secret = pulumi.Output.from_input(api_key_secret)
        self.register_outputs(
            {
                **self.stack_outputs(),
                "clusterName": cfg.cluster.name,
                "gpuPools": sorted(self.pools),
                "services": {m.name: serving_backend(m).workload_name(m) for m in cfg.models},
            }
        )

    def _reader_of(self, model: str) -> list[Any]:
        """The S3 reader a model's pods wait for (none unless the model streams from S3)."""
        reader = self.model_readers.get(model)
        return [reader] if reader is not None else []

    def _cache_credentials(self, name: str, args: LlmPlatformArgs) -> list[pulumi.Resource]:
        """KServe's LocalModel job namespace, the token Secret and one ServiceAccount per cached model in it.

        The download jobs of a (cluster-scoped) LocalModelCache run in that namespace and take their
        credentials from the ServiceAccount the cache names, looked up there (builders/credentials.py).
        Nothing when no model uses localCache or the stack has no token.
        """
        cfg = args.config
        cached = [m for m in cfg.models if m.source.type == "localCache"]
        if not cached or args.hf_token is None:
            return []
        ns_obj = credentials.localmodel_job_namespace()
        job_ns = k8s.core.v1.Namespace(f"{name}-localmodel-jobs-namespace", metadata=ns_obj["metadata"], opts=self.k8s_opts())
        in_jobs = self.k8s_opts(depends_on=[job_ns])
        secret = _credentials_secret(
            f"{name}-localmodel-jobs-hf-token",
            credentials.LOCALMODEL_JOB_NAMESPACE,
            HF_SECRET_NAME,
            credentials.HF_TOKEN_KEY,
            args.hf_token,
            in_jobs,
        )
        out: list[pulumi.Resource] = [job_ns, secret]
        for m in cached:
            sa = credentials.model_service_account(m, credentials.LOCALMODEL_JOB_NAMESPACE, HF_SECRET_NAME)
            out.append(
                k8s.core.v1.ServiceAccount(
                    f"{name}-{m.name}-cache-sa",
                    metadata=sa["metadata"],
                    automount_service_account_token=False,
                    secrets=sa["secrets"],
                    opts=self.k8s_opts(depends_on=[job_ns, secret]),
                )
            )
        return out

    def _efa_pools(self, cfg: StackConfig) -> set[str]:
        """Pools that carry a multi-node model using EFA (their nodes get an EFA security group)."""
        return {m.pool for m in cfg.models if serving_backend(m).efa_interfaces(m, self.plans[m.name])}

    def _cluster_vpc(self, args: LlmPlatformArgs) -> pulumi.Output[str]:
        from pulumi_aws import eks

        cluster = eks.get_cluster_output(
            name=args.config.cluster.name, opts=pulumi.InvokeOptions(parent=self, provider=args.aws_provider)
        )
        return cluster.vpc_config.apply(_vpc_id)

    def _discovery_tags(self, name: str, args: LlmPlatformArgs) -> list[pulumi.Resource]:
        """karpenter.sh/discovery=<cluster> on the subnets and security groups cluster.tagForDiscovery lists (aws.ec2.Tag)."""
        tagging = args.config.cluster.tag_for_discovery
        ids = [*tagging.subnet_ids, *tagging.security_group_ids]
        if not ids:
            return []
        import pulumi_aws as aws

        opts = pulumi.ResourceOptions(parent=self, provider=args.aws_provider)
        return [
            aws.ec2.Tag(f"{name}-discovery-{i}", resource_id=i, key=DISCOVERY_TAG, value=args.config.cluster.name, opts=opts)
            for i in ids
        ]

    def stack_outputs(self) -> dict[str, Any]:
        """The outputs a program exports for other stacks (camelCase keys, as ``pulumi stack output`` shows them)."""
        return {
            "namespace": self.namespace,
            "serviceUrls": self.service_urls,
            "modelNames": self.model_names,
            "poolNames": self.pool_names,
            "queueBudgets": self.queue_budgets,
            "hpaTargets": self.hpa_targets,
            "hfTokenSecret": self.hf_token_secret,
            "apiKeySecret": self.api_key_secret,
            # Where the cluster is, for stacks that build their own Kubernetes provider (examples/consumer).
            "region": self.region,
            "clusterEndpoint": self.cluster_endpoint,
            "clusterCertificateAuthority": self.cluster_certificate_authority,
            "kubeconfig": self.kubeconfig,
        }

    def k8s_opts(self, *, parent: Optional[pulumi.Resource] = None, **kwargs: Any) -> pulumi.ResourceOptions:
        """ResourceOptions for a Kubernetes child of the platform (or of ``parent``), with the cluster's provider.

        Use it for every Kubernetes object or component the platform creates, e.g.
        ``Autoscaling(f"{name}-autoscaling", args, opts=self.k8s_opts(depends_on=[...]))``; ``kwargs``
        are further ResourceOptions fields.
        """
        return k8s_child_opts(parent or self, self.k8s_provider, **kwargs)


def uses_efa(cfg: StackConfig, plans: dict[str, ServingPlan]) -> bool:
    """True when some model's pods request EFA interfaces (a multi-node model with distributed.efa on a pool with EFA)."""
    return any(serving_backend(m).efa_interfaces(m, plans[m.name]) for m in cfg.models)


def _vpc_id(vpc_config: Any) -> str:
    """The cluster's VPC from an ``aws.eks.get_cluster`` vpc_config."""
    # A typed GetClusterVpcConfig from the engine; a plain mapping when mocked.
    if isinstance(vpc_config, dict):
        return vpc_config.get("vpcId") or vpc_config["vpc_id"]
    return vpc_config.vpc_id
