"""S3ModelReader: the identity a model's pods read its S3 mirror with (a thin shell over builders/model_source.py).

A ServiceAccount in the serving namespace, an IAM role assumed through EKS Pod Identity, read
access to the mirror's prefix only, and the Pod Identity association binding them.
"""

from __future__ import annotations

import json
from typing import Any, Optional

import pulumi
import pulumi_kubernetes as k8s
from pydantic import BaseModel, ConfigDict, Field

from .builders import model_source as build
from .builders import pod_identity
from .cluster import KubernetesComponent
from .config import ModelConfig
from .inputs import AwsProvider, InputName, InputStr, part, resolve


class S3ModelReaderArgs(BaseModel):
    """Inputs of an S3ModelReader."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    model: ModelConfig = Field(description="A model with source type s3 (required).")
    namespace: InputName = Field(description="Namespace of the model's pods (required; pulumi.Input[str]).")
    cluster_name: InputStr = Field(
        description="EKS cluster name (required, for the Pod Identity association; pulumi.Input[str])."
    )
    aws_provider: Optional[AwsProvider] = Field(default=None, description="pulumi_aws.Provider. Default null (the stack's).")
    pod_identity_agent: Optional[Any] = Field(
        default=None,
        description="The EKS Pod Identity Agent add-on (a resource) the Pod Identity association waits for. Default null "
        "(the agent runs already).",
    )


class S3ModelReader(KubernetesComponent):
    """ServiceAccount + IAM role (S3 read on the mirror's prefix, KMS decrypt when the mirror is SSE-KMS) + EKS Pod Identity association.

    The model's pods must be created after it (``depends_on=[reader]``): a pod started before its
    ServiceAccount exists is refused, and one started before the association gets no credentials.
    """

    def __init__(self, name: str, args: S3ModelReaderArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("llm-serving:kserve:S3ModelReader", name, None, opts)
        import pulumi_aws as aws  # only where AWS resources are made (slow import)

        m = args.model
        # The namespace and cluster may be another stack's Outputs: built once known (inputs.py).
        sa = resolve(lambda ns: build.reader_service_account(m, ns), args.namespace)
        # The pods need no Kubernetes token: EKS Pod Identity delivers AWS credentials through a
        # projected volume of its own webhook, not the ServiceAccount's token.
        self.service_account = k8s.core.v1.ServiceAccount(
            f"{name}-sa",
            metadata=part(sa, "metadata"),
            automount_service_account_token=part(sa, "automountServiceAccountToken"),
            opts=self.child_opts(),
        )
        aws_opts = pulumi.ResourceOptions(parent=self, provider=args.aws_provider)
        # Trusted only for this model's ServiceAccount in its namespace on this cluster (builders/pod_identity.py);
        # the cluster's ARN is looked up, so partition, region and account are the cluster's own.
        cluster = aws.eks.get_cluster_output(
            name=args.cluster_name, opts=pulumi.InvokeOptions(parent=self, provider=args.aws_provider)
        )
        trust = pulumi.Output.all(cluster.arn, args.namespace).apply(
            lambda a: json.dumps(pod_identity.trust_policy(a[0], a[1], str(m.source.service_account)), sort_keys=True)
        )
        role = aws.iam.Role(
            f"{name}-role",
            name=resolve(lambda cluster: build.reader_role_name(cluster, m.name), args.cluster_name),
            assume_role_policy=trust,
            # A fixed name cannot be created beside its old self on replacement.
            opts=pulumi.ResourceOptions.merge(aws_opts, pulumi.ResourceOptions(delete_before_replace=True)),
        )
        partition = aws.get_partition_output(opts=pulumi.InvokeOptions(parent=self, provider=args.aws_provider))
        src = m.source
        policy = pulumi.Output.all(partition.partition, partition.dns_suffix).apply(
            lambda p: json.dumps(build.s3_read_policy(str(src.uri), p[0], src.kms_key_arn, src.region, p[1]), sort_keys=True)
        )
        aws.iam.RolePolicy(f"{name}-read", role=role.name, policy=policy, opts=aws_opts)
        self.pod_identity = aws.eks.PodIdentityAssociation(
            f"{name}-pod-identity",
            cluster_name=args.cluster_name,
            namespace=args.namespace,
            service_account=str(m.source.service_account),
            role_arn=role.arn,
            opts=pulumi.ResourceOptions(
                parent=self,
                provider=args.aws_provider,
                depends_on=[args.pod_identity_agent] if args.pod_identity_agent is not None else [],
            ),
        )
        self.register_outputs({"serviceAccount": m.source.service_account, "roleArn": role.arn})
