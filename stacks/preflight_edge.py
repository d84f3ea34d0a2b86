"""The edge checks of `python -m stacks preflight`: the ALB's subnets, its certificate and its WAF web ACL.

Read-only, from the stack's ``ingress`` settings:

* the subnets the AWS Load Balancer Controller will find for the ALB, found the way v3.5.0 finds them
  (below), in at least two zones;
* the ACM certificate exists in the stack's region, is ISSUED, and its names (DomainName and
  SubjectAlternativeNames) cover every host the Ingress serves;
* the WAFv2 web ACL named by ``ingress.wafAclArn`` exists in the region (``wafv2:GetWebACL`` with the
  name, id and scope read from the ARN).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from components.builders.ingress import model_host
from components.config import StackConfig
from stacks.preflight_aws import MISSING, OK, SKIPPED, Check, Clients, could_not, describe_all, error_code

# AWS Load Balancer Controller v3.5.0, pkg/networking/subnet_resolver.go (kubernetes-sigs/aws-load-balancer-controller
# at tag v3.5.0), subnet discovery when the Ingress names no subnets (ours names none):
# - :22-23, :183-193: an internet-facing ALB takes the subnets of the cluster's VPC tagged kubernetes.io/role/elb,
#   an internal one kubernetes.io/role/internal-elb, with the value "" or "1" (:193 tagFilters {"", "1"});
# - :199-204, :421-458: with none tagged, and SubnetDiscoveryByReachability on (pkg/config/feature_gates.go:88,
#   default true), the subnets whose route table (explicit association, else the VPC's main one: :460-489) has a
#   route to a gateway "igw..." (public) for internet-facing, the others for internal;
# - :561-585, :633-652: a subnet tagged kubernetes.io/cluster/<other cluster> only is left out (SubnetsClusterTagCheck,
#   feature_gates.go:84, default true), and so is one with fewer than 8 free addresses (:43, :655-657);
# - :587-612, :714-730: one subnet per zone, and an ALB needs at least two (ALBSingleSubnet off, feature_gates.go:87).
ELB_ROLE_TAG = {"internet-facing": "kubernetes.io/role/elb", "internal": "kubernetes.io/role/internal-elb"}
ELB_TAG_VALUES = ("", "1")
MIN_FREE_ADDRESSES = 8
MIN_ALB_ZONES = 2


def _tags(item: dict[str, Any]) -> dict[str, str]:
    return {t.get("Key", ""): t.get("Value", "") for t in item.get("Tags", [])}


def _public(subnet_id: str, tables: Sequence[dict[str, Any]]) -> bool:
    """Whether the subnet's route table (its own, else the VPC's main one) routes to an internet gateway."""
    main = own = None
    for table in tables:
        for assoc in table.get("Associations", []):
            if assoc.get("Main"):
                main = table
            if assoc.get("SubnetId") == subnet_id:
                own = table
    table = own or main or {}
    return any(str(r.get("GatewayId", "")).startswith("igw") for r in table.get("Routes", []))


def check_alb_subnets(cfg: StackConfig, clients: Clients, vpc: Optional[str]) -> list[Check]:
    """The subnets the AWS Load Balancer Controller v3.5.0 would give the stack's ALB: found, eligible, in two zones."""
    from botocore.exceptions import ClientError

    ingress = cfg.ingress
    if ingress is None:
        return []
    check = f"ALB subnets ({ingress.scheme})"
    if vpc is None:
        return [Check(check, SKIPPED, "the cluster's VPC is not known (cluster not read)")]
    public = ingress.scheme == "internet-facing"
    tag = ELB_ROLE_TAG[ingress.scheme]
    ec2 = clients("ec2")
    in_vpc = [{"Name": "vpc-id", "Values": [vpc]}]
    try:
        subnets = describe_all(
            ec2, "describe_subnets", "Subnets", Filters=in_vpc + [{"Name": f"tag:{tag}", "Values": list(ELB_TAG_VALUES)}]
        )
        how = f"tagged {tag}"
        if not subnets:
            every = describe_all(ec2, "describe_subnets", "Subnets", Filters=in_vpc)
            tables = describe_all(ec2, "describe_route_tables", "RouteTables", Filters=in_vpc)
            subnets = [s for s in every if _public(s["SubnetId"], tables) == public]
            how = f"untagged, {'with' if public else 'without'} a route to an internet gateway"
    except ClientError as exc:
        return [could_not(check, "ec2:DescribeSubnets and ec2:DescribeRouteTables", exc)]
    kind = "public" if public else "private"
    fix = (
        f"tag {'2 public subnets' if public else '2 private subnets'} in different zones of {vpc} "
        f"(aws ec2 create-tags --resources subnet-... --tags Key={tag},Value=1)"
    )
    if not subnets:
        return [Check(check, MISSING, f"no {kind} subnet in {vpc} (none tagged {tag}, none {kind} by its routes)", fix)]
    own = f"kubernetes.io/cluster/{cfg.cluster.name}"
    eligible = []
    for s in subnets:
        keys = _tags(s)
        if own not in keys and any(k.startswith("kubernetes.io/cluster") for k in keys):
            continue
        if int(s.get("AvailableIpAddressCount", 0)) < MIN_FREE_ADDRESSES:
            continue
        eligible.append(s)
    zones = sorted({s["AvailabilityZone"] for s in eligible})
    if len(zones) < MIN_ALB_ZONES:
        left_out = len(subnets) - len(eligible)
        note = (
            f"; {left_out} left out (tagged for another cluster, or under {MIN_FREE_ADDRESSES} free addresses)"
            if left_out
            else ""
        )
        return [
            Check(
                check,
                MISSING,
                f"{len(eligible)} {kind} subnets {how} in {len(zones)} zone(s){note}: an ALB needs {MIN_ALB_ZONES} zones",
                fix,
            )
        ]
    return [Check(check, OK, f"{len(eligible)} {kind} subnets {how} in {', '.join(zones)}")]


def name_covers(name: str, host: str) -> bool:
    """Whether a certificate name covers a host: equal, or a wildcard ``*.rest`` for exactly one label before ``rest``.

    A wildcard stands for one whole left-most label only (RFC 6125 section 6.4.3; ACM: "*.example.com" covers
    "www.example.com", not "example.com" nor "a.b.example.com"). Names compare without case.
    """
    name, host = name.lower().rstrip("."), host.lower().rstrip(".")
    if name.startswith("*."):
        label, _, rest = host.partition(".")
        return bool(label) and rest == name[2:]
    return name == host


def ingress_hosts(cfg: StackConfig) -> list[str]:
    """The host names clients call: ``<model>.<host>`` for each model (a long-context sibling answers under its model's)."""
    if cfg.ingress is None:
        return []
    return sorted({model_host(m.name, cfg.ingress.host) for m in cfg.models if not cfg.sibling_of(m.name)})


def check_certificate(cfg: StackConfig, clients: Clients) -> list[Check]:
    """The ingress certificate is in the region, ISSUED, and names every host the Ingress serves."""
    from botocore.exceptions import ClientError

    ingress = cfg.ingress
    if ingress is None or not ingress.certificate_arn:
        return []
    arn = ingress.certificate_arn
    region = clients.region
    check = "ingress certificate"
    parts = arn.split(":")
    cert_region = parts[3] if len(parts) > 5 else ""
    if cert_region != region:
        return [
            Check(
                check,
                MISSING,
                f"{arn} is in {cert_region or 'no region'}; an ALB in {region} uses certificates of {region}",
                f"request or import the certificate in ACM in {region} and set ingress.certificateArn",
            )
        ]
    try:
        cert = clients("acm").describe_certificate(CertificateArn=arn)["Certificate"]
    except ClientError as exc:
        if error_code(exc) == "ResourceNotFoundException":
            return [Check(check, MISSING, f"{arn} not found", "request or import it in ACM, then set ingress.certificateArn")]
        return [could_not(check, "acm:DescribeCertificate", exc)]
    domain = cert.get("DomainName", arn)
    status = cert.get("Status", "?")
    if status != "ISSUED":
        return [Check(check, MISSING, f"{domain} is {status}", "complete the certificate's validation (ACM)")]
    names = sorted({domain, *cert.get("SubjectAlternativeNames", [])})
    uncovered = [h for h in ingress_hosts(cfg) if not any(name_covers(n, h) for n in names)]
    if uncovered:
        return [
            Check(
                check,
                MISSING,
                f"names {', '.join(names)} do not cover {', '.join(uncovered)}",
                f"request a certificate for *.{ingress.host} in {region} (aws acm request-certificate --domain-name "
                f"'*.{ingress.host}' --validation-method DNS) and set ingress.certificateArn",
            )
        ]
    return [Check(check, OK, f"{domain} ISSUED, covers {len(ingress_hosts(cfg))} host(s) under {ingress.host}")]


def web_acl_parts(arn: str) -> Optional[tuple[str, str, str, str]]:
    """(region, scope, name, id) of a WAFv2 web ACL ARN (``arn:aws:wafv2:REGION:ACCOUNT:regional/webacl/NAME/ID``), or None."""
    parts = arn.split(":", 5)
    if len(parts) != 6 or parts[2] != "wafv2":
        return None
    resource = parts[5].split("/")
    if len(resource) != 4 or resource[1] != "webacl" or resource[0] not in ("regional", "global"):
        return None
    scope = "REGIONAL" if resource[0] == "regional" else "CLOUDFRONT"
    return parts[3], scope, resource[2], resource[3]


def check_waf(cfg: StackConfig, clients: Clients) -> list[Check]:
    """The web ACL ``ingress.wafAclArn`` names exists in the stack's region (the ALB controller attaches it at up)."""
    from botocore.exceptions import ClientError

    ingress = cfg.ingress
    if ingress is None or not ingress.waf_acl_arn:
        return []
    arn, check, region = ingress.waf_acl_arn, "WAF web ACL", clients.region
    parsed = web_acl_parts(arn)
    if parsed is None or parsed[0] != region or parsed[1] != "REGIONAL":
        return [
            Check(
                check,
                MISSING,
                f"{arn} is not a regional web ACL of {region}",
                f"create one in {region} and set ingress.wafAclArn",
            )
        ]
    _, scope, name, acl_id = parsed
    try:
        acl = clients("wafv2").get_web_acl(Name=name, Scope=scope, Id=acl_id)["WebACL"]
    except ClientError as exc:
        if error_code(exc) == "WAFNonexistentItemException":
            return [
                Check(
                    check,
                    MISSING,
                    f"no web ACL {name} ({acl_id}) in {region}",
                    f"create it (aws wafv2 create-web-acl --scope REGIONAL --region {region} ...) or fix ingress.wafAclArn",
                )
            ]
        return [could_not(check, "wafv2:GetWebACL", exc)]
    rules = len(acl.get("Rules", []))
    return [Check(check, OK, f"{name} exists in {region} ({rules} rule(s))")]
