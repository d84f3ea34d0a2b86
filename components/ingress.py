"""The ingress path as components (thin shells over builders/ingress.py).

- ``AwsLoadBalancerController`` (llm-serving:ingress:AwsLoadBalancerController): the controller's
  IAM role and policy, bound to its service account through EKS Pod Identity, and its pinned
  Helm release.
- ``IstioIngress`` (llm-serving:ingress:IstioIngress): Istio's base, istiod and ingress gateway
  releases, and the Gateway the models' VirtualServices attach to.
- ``LlmIngress`` (llm-serving:ingress:LlmIngress): the ALB Ingress and, with routing istio, one
  VirtualService and DestinationRule per model and the models' NetworkPolicies (only the gateway,
  Prometheus and a multi-node engine's own pods reach them: builders/network_policy.py); it creates
  the two above unless the config says they are installed already.
"""

from __future__ import annotations

import functools
import json
from typing import Any, Callable, Mapping, Optional

import pulumi
import pulumi_kubernetes as k8s
from pydantic import BaseModel, ConfigDict, Field

from .builders import ingress as build
from .builders import network_policy
from .builders.pod_identity import cluster_arn
from .capacity.plan import ServingPlan
from .cluster import KubernetesComponent
from .config import IngressConfig, ModelConfig
from .helm import helm_release, releases_of
from .inputs import STAND_IN, AwsProvider, InputName, InputStr, manifest_parts, part, resolve


def _helm(
    name: str, rel: Mapping[str, Any], opts: pulumi.ResourceOptions, crds_name: Optional[str] = None
) -> k8s.helm.v3.Release:
    """The shared helm_release, fed the ingress builders' Chart (name, version, repository)."""
    chart: build.Chart = rel["chart"]
    return helm_release(
        name,
        {**rel, "chart": chart.name, "version": chart.version, "repository": chart.repository},
        opts,
        crds_name=crds_name,
    )


def _custom(name: str, obj: dict, opts: pulumi.ResourceOptions) -> k8s.apiextensions.CustomResource:
    return k8s.apiextensions.CustomResource(
        name, api_version=obj["apiVersion"], kind=obj["kind"], metadata=obj["metadata"], spec=obj["spec"], opts=opts
    )


def _namespaced(
    name: str, build: Callable[[str], dict], namespace: Any, opts: pulumi.ResourceOptions
) -> k8s.apiextensions.CustomResource:
    """A custom resource ``build(namespace)`` where ``namespace`` is an Input (inputs.manifest_parts)."""
    api_version, kind, metadata, spec = manifest_parts(build, namespace)
    return k8s.apiextensions.CustomResource(name, api_version=api_version, kind=kind, metadata=metadata, spec=spec, opts=opts)


def _vpc_id(vpc_config: Any) -> Any:
    # A typed GetClusterVpcConfigResult from the engine; a plain mapping when mocked.
    if isinstance(vpc_config, Mapping):
        return vpc_config.get("vpc_id", vpc_config.get("vpcId"))
    return vpc_config.vpc_id


class AwsLoadBalancerControllerArgs(BaseModel):
    """Inputs of an AwsLoadBalancerController."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    cluster_name: InputStr = Field(description="EKS cluster name (required; pulumi.Input[str]).")
    region: InputStr = Field(
        description="AWS region of the cluster (required; pulumi.Input[str]): a value of the controller's chart."
    )
    vpc_id: Optional[InputStr] = Field(
        default=None,
        description="VPC of the cluster (pulumi.Input[str]). Default null: looked up from the cluster (aws.eks.get_cluster).",
    )
    aws_provider: Optional[AwsProvider] = Field(
        default=None, description="pulumi_aws.Provider for the IAM resources. Default null (the stack's)."
    )
    pod_identity_agent: Optional[Any] = Field(
        default=None,
        description="The EKS Pod Identity Agent add-on (a resource) the Pod Identity association waits for. Default null "
        "(the agent runs already).",
    )


class AwsLoadBalancerController(KubernetesComponent):
    """The AWS Load Balancer Controller: IAM role (Pod Identity) and the pinned Helm release."""

    def __init__(self, name: str, args: AwsLoadBalancerControllerArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("llm-serving:ingress:AwsLoadBalancerController", name, None, opts)
        # pulumi-aws is imported here, as in components/cluster.py: it is the slowest SDK to import.
        import pulumi_aws as aws

        aws_opts = pulumi.ResourceOptions(parent=self, provider=args.aws_provider)
        invoke = pulumi.InvokeOptions(parent=self, provider=args.aws_provider)
        partition = aws.get_partition_output(opts=invoke).partition
        account = aws.get_caller_identity_output(opts=invoke).account_id
        # Trusted only for the controller's service account on this cluster (builders/pod_identity.py).
        trust = pulumi.Output.all(partition, args.region, account, args.cluster_name).apply(
            lambda a: json.dumps(build.pod_identity_trust_policy(cluster_arn(*a)), sort_keys=True)
        )
        role = aws.iam.Role(f"{name}-role", assume_role_policy=trust, opts=aws_opts)
        policy = aws.iam.Policy(
            f"{name}-policy",
            policy=partition.apply(lambda p: json.dumps(build.lb_controller_policy(p), sort_keys=True)),
            opts=aws_opts,
        )
        aws.iam.RolePolicyAttachment(f"{name}-policy-attachment", role=role.name, policy_arn=policy.arn, opts=aws_opts)
        association = aws.eks.PodIdentityAssociation(
            f"{name}-pod-identity",
            cluster_name=args.cluster_name,
            namespace=build.LB_CONTROLLER_NAMESPACE,
            service_account=build.LB_CONTROLLER_SERVICE_ACCOUNT,
            role_arn=role.arn,
            opts=pulumi.ResourceOptions(
                parent=self,
                provider=args.aws_provider,
                depends_on=[args.pod_identity_agent] if args.pod_identity_agent is not None else [],
            ),
        )
        vpc_id = args.vpc_id
        if vpc_id is None:
            cluster = aws.eks.get_cluster_output(
                name=args.cluster_name, opts=pulumi.InvokeOptions(parent=self, provider=args.aws_provider)
            )
            vpc_id = cluster.vpc_config.apply(_vpc_id)
        # The cluster, region and VPC may be Outputs (another stack's, or the lookup above): values built once known.
        (rel,) = releases_of(lambda c, r, v: [build.lb_controller_release(c, r, v)], args.cluster_name, args.region, vpc_id)
        self.release = _helm(f"{name}-release", rel, self.child_opts(depends_on=[association]), crds_name=name)
        self.role_arn = role.arn
        self.register_outputs({"roleArn": role.arn, "release": rel["name"]})


class IstioIngressArgs(BaseModel):
    """Inputs of an IstioIngress."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    ingress: IngressConfig = Field(description="The ingress config (required).")
    plans: dict[str, ServingPlan] = Field(
        description="Capacity plans of the models behind the gateway (required): the gateway drains like the longest."
    )
    gateway_replicas: int = Field(default=1, ge=1, description="Replicas of the ingress gateway. Default 1.")


class IstioIngress(KubernetesComponent):
    """Istio (base, istiod, ingress gateway) as pinned Helm releases, and the Gateway."""

    def __init__(self, name: str, args: IstioIngressArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("llm-serving:ingress:IstioIngress", name, None, opts)
        self.releases: dict[str, k8s.helm.v3.Release] = {}
        # The gateway's namespace is ours (not Helm's), so it carries the readiness-gate label.
        ns = build.gateway_namespace()
        self.namespace = k8s.core.v1.Namespace(f"{name}-namespace", metadata=ns["metadata"], opts=self.child_opts())
        for rel in build.istio_releases(args.plans, args.gateway_replicas):
            # base (CRDs) before istiod before the gateway, as Istio's Helm guide orders them, and a release
            # after its Namespace: the order comes from components/deploy_order.py.
            self.releases[rel["name"]] = _helm(f"{name}-{rel['name']}", rel, self.child_opts())
        gw = build.istio_gateway(args.ingress)
        self.gateway = _custom(f"{name}-gateway", gw, self.child_opts())
        self.register_outputs({"gateway": f"{build.GATEWAY_NAMESPACE}/{build.GATEWAY_NAME}"})


class LlmIngressArgs(BaseModel):
    """Inputs of an LlmIngress."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    ingress: IngressConfig = Field(description="The ingress config (required).")
    models: tuple[ModelConfig, ...] = Field(description="The served models, long-context siblings included (required).")
    plans: dict[str, ServingPlan] = Field(description="Their capacity plans (required): every timeout comes from their chains.")
    namespace: InputName = Field(description="Namespace of the models' InferenceServices (required; pulumi.Input[str]).")
    siblings: dict[str, str] = Field(
        default_factory=dict, description="Long-context sibling name -> its model's name. Default {}."
    )
    gateway_replicas: int = Field(
        default=1,
        ge=1,
        description="With routing istio: replicas of the ingress gateway (the connection limits are divided among them). Default 1.",
    )
    cluster_name: InputStr = Field(description="EKS cluster name for the controller (required; pulumi.Input[str]).")
    region: InputStr = Field(description="AWS region (required; pulumi.Input[str]).")
    aws_provider: Optional[AwsProvider] = Field(
        default=None, description="pulumi_aws.Provider for the controller's IAM. Default null (the stack's)."
    )
    api_key: bool = Field(
        default=False,
        description="The models require the stack's API key (VLLM_API_KEY): the ALB and every VirtualService route then "
        "forward only the path prefixes the key guards in each model's vLLM release (docs/edge.md). Default false (every path).",
    )
    pod_identity_agent: Optional[Any] = Field(
        default=None,
        description="The EKS Pod Identity Agent add-on (a resource) the Pod Identity association waits for. Default null "
        "(the agent runs already).",
    )
    prometheus_namespace: Optional[str] = Field(
        default=None,
        description="With routing istio: namespace of the Prometheus that scrapes the models; its pods "
        "(app.kubernetes.io/name: prometheus) may reach the models' port. Default null (no scraper admitted).",
    )
    kuberay_namespace: Optional[str] = Field(
        default=None,
        description="With routing istio: namespace of the KubeRay operator, admitted to a multi-node engine's dashboard "
        "port. Default null.",
    )


class LlmIngress(KubernetesComponent):
    """ALB -> (Istio gateway ->) vLLM, every timeout from the models' timeout chains."""

    def __init__(self, name: str, args: LlmIngressArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("llm-serving:ingress:LlmIngress", name, None, opts)
        cfg, ns = args.ingress, args.namespace
        before: list[pulumi.Resource] = []
        if cfg.install_controller:
            self.controller = AwsLoadBalancerController(
                f"{name}-lb-controller",
                AwsLoadBalancerControllerArgs(
                    cluster_name=args.cluster_name,
                    region=args.region,
                    aws_provider=args.aws_provider,
                    pod_identity_agent=args.pod_identity_agent,
                ),
                opts=self.child_opts(),
            )
            before.append(self.controller)
        if cfg.routing == "istio":
            if cfg.install_istio:
                self.istio = IstioIngress(
                    f"{name}-istio",
                    IstioIngressArgs(ingress=cfg, plans=args.plans, gateway_replicas=args.gateway_replicas),
                    opts=self.child_opts(),
                )
                before.append(self.istio)
            else:
                _custom(f"{name}-gateway", build.istio_gateway(cfg), self.child_opts())
            by_name = {m.name: m for m in args.models}
            long_of = {parent: by_name[sibling] for sibling, parent in args.siblings.items()}
            # The namespace may be another stack's Output: each object is built once it is known (inputs.py).
            for m in args.models:
                if m.name in args.siblings:
                    continue
                vs = functools.partial(
                    build.virtual_service, m, args.plans, cfg, sibling=long_of.get(m.name), api_key=args.api_key
                )
                _namespaced(f"{name}-{m.name}-vs", vs, ns, self.child_opts(depends_on=list(before)))
            for m in args.models:
                dr = functools.partial(build.destination_rule, m, args.plans[m.name], gateway_replicas=args.gateway_replicas)
                _namespaced(f"{name}-{m.name}-dr", dr, ns, self.child_opts(depends_on=list(before)))
            self.network_policies = self._network_policies(name, args)
        ing = resolve(lambda n: build.alb_ingress(cfg, args.models, args.plans, n, args.siblings, args.api_key), ns)
        self.ingress = k8s.networking.v1.Ingress(
            f"{name}-alb", metadata=part(ing, "metadata"), spec=part(ing, "spec"), opts=self.child_opts(depends_on=list(before))
        )
        idle, deregistration = build.front_numbers(args.plans)
        self.register_outputs(
            {
                "hosts": [build.model_host(m.name, cfg.host) for m in args.models if m.name not in args.siblings],
                "albIdleTimeoutSeconds": idle,
                "deregistrationDelaySeconds": deregistration,
            }
        )

    def _network_policies(self, name: str, args: LlmIngressArgs) -> list[k8s.networking.v1.NetworkPolicy]:
        """The models' namespace's NetworkPolicies; how many does not depend on the namespace, which may be an Input."""

        def build_all(namespace: str) -> list[dict]:
            return network_policy.network_policies(
                args.models, namespace, args.ingress.routing, args.prometheus_namespace, args.kuberay_namespace
            )

        out = []
        for i, shape in enumerate(build_all(STAND_IN)):
            policy = resolve(lambda n, i=i: build_all(n)[i], args.namespace)
            out.append(
                k8s.networking.v1.NetworkPolicy(
                    f"{name}-{shape['metadata']['name']}",
                    metadata=part(policy, "metadata"),
                    spec=part(policy, "spec"),
                    opts=self.child_opts(),
                )
            )
        return out
