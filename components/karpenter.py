"""Karpenter: its AWS prerequisites (pulumi-aws) and its pinned Helm release (a thin shell over builders/karpenter_aws.py).

Created unless ``karpenter.install`` is false (a cluster where Karpenter already runs):

* node IAM role ``KarpenterNodeRole-<cluster>`` with the reference template's managed policies (EKS
  worker, CNI, ECR pull only, SSM), and an EKS access entry (type EC2_LINUX) so nodes launched with it can join;
* controller role assumed through EKS Pod Identity, trusted only for service account ``karpenter``
  in ``namespace`` on this cluster, with the six reference policies of v1.14.1 scoped to this cluster;
* the SQS interruption queue (SSE on) and the five EventBridge rules for spot interruption, rebalance
  recommendation, instance state change, scheduled change and capacity-reservation interruption;
* the karpenter-crd Helm release (the CRDs, which Helm upgrades as templates) and the Karpenter
  Helm release (crds/ skipped; settings.clusterName, settings.interruptionQueue, and the
  CapacityBuffer feature gate when a pool uses a CapacityBuffer).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any, Optional

import pulumi
from pydantic import BaseModel, ConfigDict, Field

from .builders import karpenter_aws as build
from .builders.karpenter import node_role_name
from .builders.pod_identity import cluster_arn
from .cluster import KubernetesComponent
from .helm import helm_release, releases_of
from .inputs import AwsProvider, InputStr, resolve


class KarpenterArgs(BaseModel):
    """Inputs of a Karpenter component."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    cluster_name: InputStr = Field(description="EKS cluster name (required; pulumi.Input[str], e.g. the cluster stack's output).")
    region: InputStr = Field(
        description="AWS region of the cluster (required; pulumi.Input[str]): it only goes into the controller's IAM policy ARNs."
    )
    namespace: str = Field(default="kube-system", description="Namespace of the controller. Default kube-system.")
    capacity_buffer: bool = Field(default=False, description="Turn on the CapacityBuffer feature gate. Default false.")
    aws_provider: Optional[AwsProvider] = Field(
        default=None, description="pulumi_aws.Provider for the AWS resources. Default null (the stack's)."
    )
    pod_identity_agent: Optional[Any] = Field(
        default=None,
        description="The EKS Pod Identity Agent add-on (a resource) the Pod Identity association waits for. Default null "
        "(the agent runs already).",
    )


class Karpenter(KubernetesComponent):
    """Karpenter's AWS prerequisites and Helm release for one EKS cluster.

    Pass the cluster's Kubernetes provider in ``opts`` (``LlmPlatform.k8s_opts()``) for the Helm release.
    """

    def __init__(self, name: str, args: KarpenterArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("llm-serving:karpenter:Karpenter", name, None, opts)
        # pulumi-aws is imported only where AWS resources are made (its import is slow; see components/cluster.py).
        import pulumi_aws as aws

        # The cluster name (and region) may be another stack's Outputs: names and policies are built once known.
        cluster = args.cluster_name
        invoke = pulumi.InvokeOptions(parent=self, provider=args.aws_provider)
        account = aws.get_caller_identity_output(opts=invoke).account_id
        partition_info = aws.get_partition_output(opts=invoke)
        scope = _AwsScope(
            cluster=cluster,
            tags={"llm-serving.io/cluster": cluster, "karpenter.sh/discovery": cluster},
            opts=pulumi.ResourceOptions(parent=self, provider=args.aws_provider),
            # A resource with a fixed physical name cannot be created beside its old self on replacement.
            named_opts=pulumi.ResourceOptions(parent=self, provider=args.aws_provider, delete_before_replace=True),
            account=account,
            partition=partition_info.partition,
            dns_suffix=partition_info.dns_suffix,
        )
        self._node_role(name, scope)
        self._interruption_queue(name, scope)
        pod_identity = self._controller(name, args, scope)
        # The CRDs first, from their own chart (the order comes from components/deploy_order.py).
        self.crd_release = helm_release(f"{name}-crd-release", build.karpenter_crd_release(args.namespace), self.child_opts())
        (rel,) = releases_of(
            lambda c: [build.karpenter_release(args.namespace, c, build.queue_name(c), args.capacity_buffer)], cluster
        )
        self.release = helm_release(f"{name}-release", rel, self.child_opts(depends_on=[pod_identity, self.node_access]))
        self.node_role_name = self.node_role.name
        self.register_outputs(
            {
                "nodeRoleName": self.node_role.name,
                "interruptionQueue": self.queue.name,
                "controllerRoleArn": self.controller_role.arn,
            }
        )

    def _node_role(self, name: str, scope: _AwsScope) -> None:
        """The nodes' IAM role, its managed policies, and the EKS access entry through which nodes join."""
        import pulumi_aws as aws

        self.node_role = aws.iam.Role(
            f"{name}-node-role",
            name=resolve(node_role_name, scope.cluster),
            assume_role_policy=scope.dns_suffix.apply(lambda suffix: json.dumps(build.node_role_trust(suffix), sort_keys=True)),
            tags=scope.tags,
            opts=scope.named_opts,
        )
        for policy in build.NODE_POLICIES:
            aws.iam.RolePolicyAttachment(
                f"{name}-node-{policy.lower().replace('_', '-')}",
                role=self.node_role.name,
                policy_arn=pulumi.Output.concat("arn:", scope.partition, f":iam::aws:policy/{policy}"),
                opts=scope.opts,
            )
        # Nodes launched with the role join the cluster through an EKS access entry (no aws-auth edits).
        self.node_access = aws.eks.AccessEntry(
            f"{name}-node-access",
            cluster_name=scope.cluster,
            principal_arn=self.node_role.arn,
            type="EC2_LINUX",
            tags=scope.tags,
            opts=scope.opts,
        )

    def _interruption_queue(self, name: str, scope: _AwsScope) -> None:
        """The SQS interruption queue, its policy, and the EventBridge rules that feed it."""
        import pulumi_aws as aws

        self.queue = aws.sqs.Queue(
            f"{name}-interruption-queue",
            name=resolve(build.queue_name, scope.cluster),
            message_retention_seconds=build.QUEUE_RETENTION_SECONDS,
            sqs_managed_sse_enabled=True,
            tags=scope.tags,
            opts=scope.named_opts,
        )
        aws.sqs.QueuePolicy(
            f"{name}-interruption-queue-policy",
            queue_url=self.queue.url,
            policy=self.queue.arn.apply(lambda arn: json.dumps(build.queue_policy(arn), sort_keys=True)),
            opts=scope.opts,
        )
        for rule_name in build.INTERRUPTION_RULES:
            rule = aws.cloudwatch.EventRule(
                f"{name}-{rule_name}",
                name=resolve(functools.partial(build.event_rule_name, rule=rule_name), scope.cluster),
                event_pattern=json.dumps(build.event_pattern(rule_name), sort_keys=True),
                tags=scope.tags,
                opts=scope.named_opts,
            )
            aws.cloudwatch.EventTarget(
                f"{name}-{rule_name}-target",
                rule=rule.name,
                arn=self.queue.arn,
                target_id="KarpenterInterruptionQueueTarget",
                opts=scope.opts,
            )

    def _controller(self, name: str, args: KarpenterArgs, scope: _AwsScope) -> pulumi.Resource:
        """The controller's IAM role and policy, and the Pod Identity association that hands it to the controller."""
        import pulumi_aws as aws

        cluster, account, partition = scope.cluster, scope.account, scope.partition
        self.controller_role = aws.iam.Role(
            f"{name}-controller-role",
            name=resolve(build.controller_role_name, cluster),
            assume_role_policy=pulumi.Output.all(partition, args.region, account, cluster).apply(
                lambda a: json.dumps(build.controller_role_trust(cluster_arn(*a), args.namespace), sort_keys=True)
            ),
            tags=scope.tags,
            opts=scope.named_opts,
        )
        aws.iam.RolePolicy(
            f"{name}-controller-policy",
            role=self.controller_role.name,
            policy=pulumi.Output.all(cluster, args.region, account, partition, self.queue.arn, self.node_role.arn).apply(
                lambda a: json.dumps(build.controller_policy(*a), sort_keys=True)
            ),
            opts=scope.opts,
        )
        return aws.eks.PodIdentityAssociation(
            f"{name}-pod-identity",
            cluster_name=cluster,
            namespace=args.namespace,
            service_account=build.SERVICE_ACCOUNT,
            role_arn=self.controller_role.arn,
            tags=scope.tags,
            opts=pulumi.ResourceOptions(parent=self, provider=args.aws_provider, depends_on=_agent(args.pod_identity_agent)),
        )


@dataclass(frozen=True)
class _AwsScope:
    """What every AWS resource of one Karpenter installation shares: the cluster, tags, options, account and partition."""

    cluster: InputStr
    tags: dict[str, Any]
    opts: pulumi.ResourceOptions
    named_opts: pulumi.ResourceOptions
    account: pulumi.Output[str]
    partition: pulumi.Output[str]
    dns_suffix: pulumi.Output[str]


def _agent(agent: Any) -> list[Any]:
    """depends_on for a Pod Identity association: the agent add-on, when the stack installs it."""
    return [agent] if agent is not None else []
