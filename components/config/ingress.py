"""The public entry point: an ALB straight to the predictors, or through an Istio ingress gateway.

Pure: pydantic and the AWS id rules (components/aws_ids.py).
"""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import Field, field_validator

from ..aws_ids import (
    CONTROLLER_DEFAULT_SSL_POLICY,
    DEFAULT_SSL_POLICY,
    arn_problem,
    cidr_problem,
    ssl_policy_problem,
)
from .base import Bool, Int, Str, _Model, matching


class IngressConfig(_Model):
    """The public entry point: an ALB (AWS Load Balancer Controller), straight to the predictors or through Istio.

    Each model answers at ``<model>.<host>``; its timeouts come from the model's timeout chain.
    """

    host: Str = Field(
        description="DNS zone clients call; each model answers at <model>.<host>, e.g. chat-8b.llm.example.com (required)."
    )
    routing: Literal["direct", "istio"] = Field(
        default="direct",
        description='"direct": the ALB targets the predictor pods; "istio": the ALB targets an Istio ingress gateway, '
        "whose VirtualServices and DestinationRules carry the route timeouts, retries and connection limits. Default direct.",
    )
    scheme: Literal["internal", "internet-facing"] = Field(
        default="internal", description="ALB scheme. Default internal (not on the internet)."
    )
    certificate_arn: Optional[Str] = Field(
        default=None,
        description="ACM certificate ARN for <model>.<host> (a wildcard): HTTPS on 443 and HTTP redirected. Default null (HTTP on 80).",
    )
    ssl_policy: Str = Field(
        default=DEFAULT_SSL_POLICY,
        description="ALB security policy of the HTTPS listener (annotation alb.ingress.kubernetes.io/ssl-policy), TLS 1.2 or "
        f"newer only; rendered with certificateArn (no HTTPS listener without it). Default {DEFAULT_SSL_POLICY} (the "
        f"controller's own default, {CONTROLLER_DEFAULT_SSL_POLICY}, still accepts TLS 1.0).",
    )
    inbound_cidrs: tuple[Str, ...] = Field(
        default=(),
        description="CIDRs the ALB's security group admits (annotation alb.ingress.kubernetes.io/inbound-cidrs), e.g. "
        "[203.0.113.0/24]. Default [] (the controller admits 0.0.0.0/0). On an internet-facing ALB they are a guard only "
        "when, merged, they cover at most a /8 of IPv4 and a /32 of IPv6 (components/aws_ids.py sources_too_wide, read by "
        "the policy internet-facing-alb-guarded); wider sources need the API key on every forwarded path.",
    )
    waf_acl_arn: Optional[Str] = Field(
        default=None,
        description="Regional AWS WAFv2 web ACL in front of the ALB (annotation alb.ingress.kubernetes.io/wafv2-acl-arn), in "
        "the stack's region. Default null (no WAF).",
    )
    install_controller: Bool = Field(
        default=True,
        description="Install the AWS Load Balancer Controller (Helm, IAM through EKS Pod Identity). Default true; false where it runs already.",
    )
    install_istio: Bool = Field(
        default=True,
        description="With routing istio: install Istio (base, istiod, ingress gateway; Helm). Default true; false where it runs already.",
    )
    gateway_replicas: Optional[Int] = Field(
        default=None,
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
        rule = v and arn_problem(
            v,
            "wafv2",
            r"regional/webacl/[A-Za-z0-9_-]{1,128}/[0-9a-f-]{36}",
            "arn:aws:wafv2:<region>:<account>:regional/webacl/<name>/<id> (a regional web ACL)",
        )
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
        if len(set(v)) != len(v):
            raise ValueError("lists a CIDR twice")
        return v

    @field_validator("host")
    @classmethod
    def _host(cls, v: str) -> str:
        return matching(
            v,
            r"(?=.{1,253}\Z)([a-z0-9]([-a-z0-9]*[a-z0-9])?\.)+[a-z]{2,63}",
            "must be a lowercase DNS name such as llm.example.com",
        )
