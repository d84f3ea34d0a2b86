"""`python -m stacks preflight STACK`: read-only checks of what a stack needs of the AWS account and cluster.

Run before ``pulumi up``, with the user's own credentials (boto3's usual chain, or the stack's
``aws:profile``), in the stack's ``aws:region``. Each check reads, never writes:

* the EKS cluster exists, and its authentication mode allows access entries (API or
  API_AND_CONFIG_MAP), which Karpenter's node role joins through;
* the IAM roles and the interruption queue the stack's Karpenter creates are not taken already;
* the EKS Pod Identity Agent add-on is installed (Karpenter, the load balancer controller and the
  S3 readers take their credentials from it), or, when the stack installs it, not installed already
  (EKS refuses to create it twice);
* the subnets and security groups the EC2NodeClass selectors find (cluster.subnets,
  cluster.securityGroups; the discovery tag by default), in the cluster's VPC;
* each pool's instance types are offered in the region, and in a zone where a selected subnet is;
* the EC2 vCPU quotas (P, G and VT, Inf, Trn; On-Demand and Spot) cover each pool's gpuLimit;
* the capacity reservations a reserved pool selects exist, are active, match the pool's types and
  sit in a zone with a subnet;
* the ingress certificate exists in the region and is issued;
* each S3 model mirror's prefix is listable and not empty.

It prints a table (check, result, fix) or JSON and exits 0 when all pass, 1 when something is
missing, 2 on bad input or no usable credentials. It never hangs: every client has short connect
and read timeouts and few retries, and the instance-metadata lookup of the credential chain is
bounded to one attempt of one second (unless the caller set its own AWS_METADATA_SERVICE_* values).
"""

from __future__ import annotations

import json
import math
import os
import sys
from dataclasses import asdict, dataclass
from typing import Any, Callable, Iterable, Mapping, Optional

from components.capacity.gpus import INSTANCES
from components.config import DISCOVERY_TAG, EKS_CLUSTER_NAME_TAG, StackConfig, load_stack_config

OK, MISSING, SKIPPED = "ok", "missing", "skipped"
EXIT_OK, EXIT_MISSING, EXIT_INVALID = 0, 1, 2
FORMATS = ("text", "json")
POD_IDENTITY_AGENT = "eks-pod-identity-agent"
# Authentication modes that accept EKS access entries (EKS user guide, "Change authentication mode to use access entries").
ACCESS_ENTRY_MODES = ("API", "API_AND_CONFIG_MAP")

# EC2 vCPU quotas by instance family letter and purchase option: (Service Quotas code, quota name), service code "ec2"
# (Service Quotas console, https://console.aws.amazon.com/servicequotas/home/services/ec2/quotas/<code>; the
# On-Demand quotas are listed in the EC2 user guide, "Amazon EC2 instance type quotas").
QUOTAS = {
    ("P", "on-demand"): ("L-417A185B", "Running On-Demand P instances"),
    ("P", "spot"): ("L-7212CCBC", "All P Spot Instance Requests"),
    ("G", "on-demand"): ("L-DB2E81BA", "Running On-Demand G and VT instances"),
    ("G", "spot"): ("L-3819A6DF", "All G and VT Spot Instance Requests"),
    ("Inf", "on-demand"): ("L-1945791B", "Running On-Demand Inf instances"),
    ("Inf", "spot"): ("L-B5D1601B", "All Inf Spot Instance Requests"),
    ("Trn", "on-demand"): ("L-2C3B7624", "Running On-Demand Trn instances"),
    ("Trn", "spot"): ("L-6B0D517C", "All Trn Spot Instance Requests"),
}

NO_CREDENTIALS = (
    "no AWS credentials found. preflight reads the account with your own credentials: set aws:profile in the "
    "stack file or AWS_PROFILE (then `aws sso login --profile NAME` if it is an SSO profile), or export "
    "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN); read-only access is enough "
    "(docs/preflight.md lists the actions)"
)


class NoCredentials(Exception):
    """No usable credentials: none found, rejected by STS, or STS unreachable (exit 2)."""


@dataclass(frozen=True)
class Check:
    """One row of the report: what was checked, the result, what was found, and how to fix it."""

    check: str
    result: str
    detail: str
    fix: str = ""


def bound_metadata_waits(environ: Optional[dict] = None) -> None:
    """One attempt of one second for the credential chain's instance-metadata lookup (caller's values win)."""
    env = os.environ if environ is None else environ
    env.setdefault("AWS_METADATA_SERVICE_TIMEOUT", "1")
    env.setdefault("AWS_METADATA_SERVICE_NUM_ATTEMPTS", "1")


def client_config():
    """Short timeouts and few retries for every client: preflight answers in seconds or says why not."""
    from botocore.config import Config

    return Config(connect_timeout=3, read_timeout=10, retries={"max_attempts": 2, "mode": "standard"})


class Clients:
    """boto3 clients of one session, one per (service, region), all with :func:`client_config`."""

    def __init__(self, session: Any, region: str):
        self.session, self.region = session, region
        self._clients: dict[tuple[str, str], Any] = {}

    def __call__(self, service: str, region: Optional[str] = None) -> Any:
        key = (service, region or self.region)
        if key not in self._clients:
            self._clients[key] = self.session.client(service, region_name=key[1], config=client_config())
        return self._clients[key]

    def put(self, service: str, client: Any, region: Optional[str] = None) -> None:
        """Use ``client`` for ``service`` (tests put botocore-stubbed clients here)."""
        self._clients[(service, region or self.region)] = client


def open_session(profile: Optional[str], region: Optional[str]) -> tuple[Any, str]:
    """A boto3 session with usable credentials and the account id they belong to, or NoCredentials."""
    import boto3
    from botocore.exceptions import BotoCoreError, ClientError, ProfileNotFound

    bound_metadata_waits()
    try:
        session = boto3.Session(profile_name=profile, region_name=region)
        credentials = session.get_credentials()
    except ProfileNotFound:
        named = profile or os.environ.get("AWS_PROFILE") or os.environ.get("AWS_DEFAULT_PROFILE")
        raise NoCredentials(f"AWS profile {named!r} (aws:profile or AWS_PROFILE) is not in ~/.aws/config or ~/.aws/credentials; " + NO_CREDENTIALS) from None
    except BotoCoreError as exc:  # an SSO token that expired, a credential_process that failed, ...
        raise NoCredentials(f"the AWS credentials could not be loaded ({exc}); " + NO_CREDENTIALS) from None
    if credentials is None:
        raise NoCredentials(NO_CREDENTIALS)
    try:
        identity = session.client("sts", region_name=region, config=client_config()).get_caller_identity()
    except ClientError as exc:
        raise NoCredentials(f"AWS rejected the credentials ({_code(exc)}: {_message(exc)}); " + NO_CREDENTIALS) from None
    except BotoCoreError as exc:
        raise NoCredentials(f"could not reach AWS STS in {region} to check the credentials ({exc})") from None
    return session, identity["Account"]


def _code(exc: Exception) -> str:
    return str(getattr(exc, "response", {}).get("Error", {}).get("Code", type(exc).__name__))


def _message(exc: Exception) -> str:
    return str(getattr(exc, "response", {}).get("Error", {}).get("Message", exc))


def _could_not(check: str, action: str, exc: Exception) -> Check:
    """A check whose read failed: missing, naming the error and the permission it needs."""
    code = _code(exc)
    if code in ("AccessDenied", "AccessDeniedException", "UnauthorizedOperation", "UnauthorizedException"):
        return Check(check, MISSING, f"could not check: {code} on {action}", f"run preflight with credentials allowed {action}")
    return Check(check, MISSING, f"could not check: {code}: {_message(exc)[:200]}", f"retry; {action} must succeed")


def _tag_filters(tags: Mapping[str, str]) -> list[dict[str, Any]]:
    """EC2 Describe* filters for a selector's tags ('*' matches any value, as in Karpenter)."""
    return [
        {"Name": "tag-key", "Values": [k]} if v == "*" else {"Name": f"tag:{k}", "Values": [v]}
        for k, v in sorted(tags.items())
    ]


def _describe_all(client: Any, operation: str, key: str, **kwargs: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for page in client.get_paginator(operation).paginate(**kwargs):
        out.extend(page.get(key, []))
    return out


def quota_family(instance_type: str) -> str:
    """The vCPU quota family of an instance type: P, G (G and VT), Inf or Trn."""
    family = instance_type.split(".")[0]
    if family.startswith("inf"):
        return "Inf"
    if family.startswith("trn"):
        return "Trn"
    if family.startswith(("g", "vt")):
        return "G"
    if family.startswith("p"):
        return "P"
    raise ValueError(f"{instance_type}: no GPU vCPU quota family")


def pool_vcpus(pool: Any) -> int:
    """vCPUs the pool holds at its gpuLimit, on its most vCPU-hungry instance type (Karpenter may pick any)."""
    return max(math.ceil(pool.gpu_limit / INSTANCES[t].gpu_count) * INSTANCES[t].vcpu for t in pool.instance_types)


def _stack_installs_pod_identity_agent(cfg: StackConfig) -> bool:
    """Whether the stack installs the EKS Pod Identity Agent add-on itself (``addons.podIdentityAgent.install``)."""
    return cfg.addons.pod_identity_agent.install


class Preflight:
    """The checks of one stack against one account, region and cluster."""

    def __init__(self, cfg: StackConfig, clients: Clients):
        self.cfg, self.clients = cfg, clients
        self.region = clients.region
        self.cluster: Optional[dict[str, Any]] = None
        self.subnet_zones: dict[str, str] = {}  # subnet id -> zone, of the subnets the selectors find

    def run(self) -> list[Check]:
        """Every check, in a fixed order."""
        checks = [*self.check_cluster()]
        checks += self.check_pod_identity_agent()
        checks += self.check_karpenter_names()
        checks += self.check_subnets()
        checks += self.check_security_groups()
        checks += self.check_offerings()
        checks += self.check_quotas()
        checks += self.check_reservations()
        checks += self.check_certificate()
        checks += self.check_mirrors()
        return checks

    # --- the cluster -------------------------------------------------------------------------

    def check_cluster(self) -> list[Check]:
        from botocore.exceptions import ClientError

        name = self.cfg.cluster.name
        check = f"EKS cluster {name}"
        try:
            self.cluster = self.clients("eks").describe_cluster(name=name)["cluster"]
        except ClientError as exc:
            if _code(exc) == "ResourceNotFoundException":
                return [Check(check, MISSING, f"no EKS cluster named {name} in {self.region}",
                              "create it, or set llm-serving:cluster.name and aws:region to the cluster's")]
            return [_could_not(check, "eks:DescribeCluster", exc)]
        out = []
        status = self.cluster.get("status", "?")
        if status != "ACTIVE":
            out.append(Check(check, MISSING, f"status {status}", "wait until the cluster is ACTIVE"))
        else:
            out.append(Check(check, OK, f"ACTIVE, Kubernetes {self.cluster.get('version', '?')}"))
        mode = self.cluster.get("accessConfig", {}).get("authenticationMode", "CONFIG_MAP")
        check = "authentication mode"
        if not self.cfg.karpenter.install:
            out.append(Check(check, SKIPPED, f"{mode}; this stack creates no access entry (karpenter.install is false)"))
        elif mode in ACCESS_ENTRY_MODES:
            out.append(Check(check, OK, f"{mode} accepts the access entry of Karpenter's node role"))
        else:
            out.append(Check(
                check, MISSING, f"{mode} refuses access entries: Karpenter's nodes could not join",
                f"aws eks update-cluster-config --name {name} --region {self.region} --access-config authenticationMode=API_AND_CONFIG_MAP",
            ))
        return out

    def _needs_pod_identity(self) -> list[str]:
        cfg = self.cfg
        users = ["Karpenter"] if cfg.karpenter.install else []
        if cfg.ingress is not None and cfg.ingress.install_controller:
            users.append("the AWS Load Balancer Controller")
        users += [f"model {m.name}'s S3 reader" for m in cfg.models if m.source.type == "s3"]
        return users

    def check_pod_identity_agent(self) -> list[Check]:
        """The add-on is there when something needs it, and not there already when the stack creates it.

        EKS refuses to create an add-on the cluster already has (CreateAddon: ResourceInUseException),
        so a stack that installs it on a cluster that runs it fails at ``pulumi up``.
        """
        from botocore.exceptions import ClientError

        check = "EKS Pod Identity Agent"
        users = self._needs_pod_identity()
        installs = _stack_installs_pod_identity_agent(self.cfg)
        if not users and not installs:
            return [Check(check, SKIPPED, "no component of this stack uses EKS Pod Identity")]
        if self.cluster is None:
            return [Check(check, SKIPPED, "the cluster was not found")]
        name = self.cluster.get("name", self.cfg.cluster.name)
        try:
            addon = self.clients("eks").describe_addon(clusterName=name, addonName=POD_IDENTITY_AGENT)["addon"]
        except ClientError as exc:
            if _code(exc) != "ResourceNotFoundException":
                return [_could_not(check, "eks:DescribeAddon", exc)]
            if installs:
                return [Check(check, OK, "not installed yet; this stack installs the add-on (addons.podIdentityAgent)")]
            return [Check(check, MISSING, f"add-on {POD_IDENTITY_AGENT} not installed; {', '.join(users)} need it",
                          f"aws eks create-addon --cluster-name {name} --addon-name {POD_IDENTITY_AGENT} --region {self.region}, "
                          "or set llm-serving:addons.podIdentityAgent.install: true")]
        status = addon.get("status", "?")
        if installs:
            return [Check(check, MISSING, f"add-on {POD_IDENTITY_AGENT} is installed already ({status}); this stack would create it again "
                          "and EKS refuses that (ResourceInUseException)", "set llm-serving:addons.podIdentityAgent.install: false")]
        if status not in ("ACTIVE", "UPDATING"):
            return [Check(check, MISSING, f"add-on {POD_IDENTITY_AGENT} is {status}", f"see `aws eks describe-addon --cluster-name {name} "
                          f"--addon-name {POD_IDENTITY_AGENT}` for its health issues")]
        return [Check(check, OK, f"add-on {addon.get('addonVersion', '?')} {status}")]

    def check_karpenter_names(self) -> list[Check]:
        """The IAM roles and the queue Karpenter's component creates are not taken already.

        Karpenter's getting-started CloudFormation makes the same names (KarpenterNodeRole-<cluster>,
        the queue <cluster>): IAM refuses a role name twice (EntityAlreadyExists at ``pulumi up``), and
        SQS's CreateQueue returns an existing queue of the same name and attributes, which this stack
        would then own and delete.
        """
        from botocore.exceptions import ClientError

        from components.builders.karpenter import node_role_name
        from components.builders.karpenter_aws import controller_role_name, queue_name

        if not self.cfg.karpenter.install:
            return []
        cluster = self.cfg.cluster.name
        taken, out = [], []
        iam = self.clients("iam")
        # The names the Karpenter component gives them (fitted to each service's limit).
        roles, queue = (node_role_name(cluster), controller_role_name(cluster)), queue_name(cluster)
        for role in roles:
            try:
                iam.get_role(RoleName=role)
                taken.append(f"IAM role {role}")
            except ClientError as exc:
                if _code(exc) != "NoSuchEntity":
                    return [_could_not("Karpenter's names", "iam:GetRole", exc)]
        try:
            self.clients("sqs").get_queue_url(QueueName=queue)
            taken.append(f"SQS queue {queue}")
        except ClientError as exc:
            if _code(exc) not in ("AWS.SimpleQueueService.NonExistentQueue", "QueueDoesNotExist"):
                return [_could_not("Karpenter's names", "sqs:GetQueueUrl", exc)]
        if taken:
            out.append(Check(
                "Karpenter's names", MISSING, f"{', '.join(taken)} exist already (Karpenter installed another way?): IAM "
                "refuses a role name twice, and a queue of the same name and attributes would be taken over (and deleted with this stack)",
                "set llm-serving:karpenter.install: false (with nodeRoleName) where Karpenter runs already, or remove them",
            ))
        else:
            out.append(Check("Karpenter's names", OK, f"{roles[0]}, {roles[1]}, queue {queue} are free"))
        return out

    # --- networking ------------------------------------------------------------------------------

    def _vpc(self) -> Optional[str]:
        return (self.cluster or {}).get("resourcesVpcConfig", {}).get("vpcId")

    def check_subnets(self) -> list[Check]:
        from botocore.exceptions import ClientError

        sel, tagging = self.cfg.cluster.subnets, self.cfg.cluster.tag_for_discovery
        ec2 = self.clients("ec2")
        try:
            if sel.ids:
                how = f"subnets {', '.join(sel.ids)} (cluster.subnets.ids)"
                found = ec2.describe_subnets(SubnetIds=list(sel.ids))["Subnets"]
            else:
                tags = dict(sel.tags) or {DISCOVERY_TAG: self.cfg.cluster.name}
                how = "subnets tagged " + ", ".join(f"{k}={v}" for k, v in sorted(tags.items()))
                found = _describe_all(ec2, "describe_subnets", "Subnets", Filters=_tag_filters(tags))
                if tagging.subnet_ids:  # this stack adds the tag: they count as found
                    found += ec2.describe_subnets(SubnetIds=list(tagging.subnet_ids))["Subnets"]
        except ClientError as exc:
            if _code(exc).startswith("InvalidSubnetID"):
                return [Check("subnets", MISSING, _message(exc), "fix the subnet IDs in cluster.subnets.ids or cluster.tagForDiscovery.subnetIds")]
            return [_could_not("subnets", "ec2:DescribeSubnets", exc)]
        found = list({s["SubnetId"]: s for s in found}.values())
        if not found:
            tags = dict(sel.tags) or {DISCOVERY_TAG: self.cfg.cluster.name}
            tag_args = " ".join(f"Key={k},Value={v}" for k, v in sorted(tags.items()))
            return [Check(
                "subnets", MISSING, f"no {how}: Karpenter's EC2NodeClass would never be Ready and no GPU node would launch",
                f"tag the cluster's private subnets (aws ec2 create-tags --resources subnet-... --tags {tag_args}), or list them "
                "under cluster.tagForDiscovery.subnetIds, or select them with cluster.subnets.ids",
            )]
        vpc = self._vpc()
        elsewhere = sorted(s["SubnetId"] for s in found if vpc and s.get("VpcId") != vpc)
        if elsewhere:
            return [Check("subnets", MISSING, f"{', '.join(elsewhere)} are not in the cluster's VPC {vpc}",
                          "select only subnets of the cluster's VPC (cluster.subnets)")]
        self.subnet_zones = {s["SubnetId"]: s["AvailabilityZone"] for s in found}
        zones = sorted(set(self.subnet_zones.values()))
        return [Check("subnets", OK, f"{len(found)} {how} in {', '.join(zones)}")]

    def check_security_groups(self) -> list[Check]:
        from botocore.exceptions import ClientError

        sel, tagging = self.cfg.cluster.security_groups, self.cfg.cluster.tag_for_discovery
        ec2 = self.clients("ec2")
        try:
            if sel.ids:
                how = f"security groups {', '.join(sel.ids)} (cluster.securityGroups.ids)"
                found = ec2.describe_security_groups(GroupIds=list(sel.ids))["SecurityGroups"]
            else:
                if sel.eks_cluster_security_group:
                    tags = {EKS_CLUSTER_NAME_TAG: self.cfg.cluster.name}
                else:
                    tags = dict(sel.tags) or {DISCOVERY_TAG: self.cfg.cluster.name}
                how = "security groups tagged " + ", ".join(f"{k}={v}" for k, v in sorted(tags.items()))
                found = _describe_all(ec2, "describe_security_groups", "SecurityGroups", Filters=_tag_filters(tags))
                if tagging.security_group_ids:
                    found += ec2.describe_security_groups(GroupIds=list(tagging.security_group_ids))["SecurityGroups"]
        except ClientError as exc:
            if _code(exc).startswith("InvalidGroup"):
                return [Check("security groups", MISSING, _message(exc),
                              "fix the IDs in cluster.securityGroups.ids or cluster.tagForDiscovery.securityGroupIds")]
            return [_could_not("security groups", "ec2:DescribeSecurityGroups", exc)]
        found = list({g["GroupId"]: g for g in found}.values())
        if not found:
            cluster_sg = (self.cluster or {}).get("resourcesVpcConfig", {}).get("clusterSecurityGroupId", "sg-...")
            return [Check(
                "security groups", MISSING, f"no {how}: Karpenter's EC2NodeClass would never be Ready",
                f"tag the node security group (e.g. the cluster security group {cluster_sg}: aws ec2 create-tags --resources "
                f"{cluster_sg} --tags Key={DISCOVERY_TAG},Value={self.cfg.cluster.name}), or list it under "
                "cluster.tagForDiscovery.securityGroupIds, or set cluster.securityGroups.eksClusterSecurityGroup: true",
            )]
        vpc = self._vpc()
        elsewhere = sorted(g["GroupId"] for g in found if vpc and g.get("VpcId") != vpc)
        if elsewhere:
            return [Check("security groups", MISSING, f"{', '.join(elsewhere)} are not in the cluster's VPC {vpc}",
                          "select only security groups of the cluster's VPC (cluster.securityGroups)")]
        return [Check("security groups", OK, f"{len(found)} {how}")]

    # --- capacity -------------------------------------------------------------------------------

    def check_offerings(self) -> list[Check]:
        from botocore.exceptions import ClientError

        types = sorted({t for p in self.cfg.gpu_pools for t in p.instance_types})
        try:
            offers = _describe_all(
                self.clients("ec2"), "describe_instance_type_offerings", "InstanceTypeOfferings",
                LocationType="availability-zone", Filters=[{"Name": "instance-type", "Values": types}],
            )
        except ClientError as exc:
            return [_could_not("instance offerings", "ec2:DescribeInstanceTypeOfferings", exc)]
        zones_of: dict[str, set[str]] = {t: set() for t in types}
        for o in offers:
            zones_of.setdefault(o["InstanceType"], set()).add(o["Location"])
        subnet_zones = set(self.subnet_zones.values())
        out = []
        for i, pool in enumerate(self.cfg.gpu_pools):
            check = f"pool {pool.name}: instance offerings"
            absent = [t for t in pool.instance_types if not zones_of.get(t)]
            offered = set().union(*(zones_of.get(t, set()) for t in pool.instance_types))
            if len(absent) == len(pool.instance_types):
                out.append(Check(check, MISSING, f"{', '.join(absent)} not offered in {self.region}",
                                 f"use instance types offered in {self.region} (gpuPools[{i}].instanceTypes) or another region"))
                continue
            if not subnet_zones:
                out.append(Check(check, SKIPPED, f"offered in {', '.join(sorted(offered))}; no subnets found to compare"))
                continue
            usable = sorted(offered & subnet_zones)
            if not usable:
                out.append(Check(
                    check, MISSING,
                    f"offered in {', '.join(sorted(offered))}; the selected subnets are in {', '.join(sorted(subnet_zones))}",
                    f"select a subnet of the cluster's VPC in one of {', '.join(sorted(offered))} (cluster.subnets)",
                ))
                continue
            note = f"; not offered: {', '.join(absent)}" if absent else ""
            out.append(Check(check, OK, f"launchable in {', '.join(usable)}{note}"))
        return out

    def check_quotas(self) -> list[Check]:
        from botocore.exceptions import ClientError

        need: dict[tuple[str, str], list[tuple[str, int]]] = {}
        for pool in self.cfg.gpu_pools:
            families = {quota_family(t) for t in pool.instance_types}
            options = {"spot" if c == "spot" else "on-demand" for c in pool.capacity_types}
            for family in families:
                for option in options:
                    need.setdefault((family, option), []).append((pool.name, pool_vcpus(pool)))
        out = []
        sq = self.clients("service-quotas")
        for (family, option), pools in sorted(need.items()):
            code, quota_name = QUOTAS[(family, option)]
            wanted = sum(v for _, v in pools)
            check = f"quota {quota_name}"
            try:
                try:
                    value = sq.get_service_quota(ServiceCode="ec2", QuotaCode=code)["Quota"]["Value"]
                except ClientError as exc:
                    if _code(exc) != "NoSuchResourceException":
                        raise
                    value = sq.get_aws_default_service_quota(ServiceCode="ec2", QuotaCode=code)["Quota"]["Value"]
            except ClientError as exc:
                out.append(_could_not(check, "servicequotas:GetServiceQuota", exc))
                continue
            per_pool = ", ".join(f"{n} {v}" for n, v in pools)
            if value < wanted:
                out.append(Check(
                    check, MISSING, f"{value:g} vCPUs; the pools' gpuLimit needs {wanted} ({per_pool})",
                    f"aws service-quotas request-service-quota-increase --service-code ec2 --quota-code {code} "
                    f"--desired-value {wanted} --region {self.region} (or lower gpuLimit)",
                ))
            else:
                out.append(Check(check, OK, f"{value:g} vCPUs >= {wanted} ({per_pool}; instances already running count too)"))
        return out

    def check_reservations(self) -> list[Check]:
        from botocore.exceptions import ClientError

        out = []
        ec2 = self.clients("ec2")
        for i, pool in enumerate(self.cfg.gpu_pools):
            if "reserved" not in pool.capacity_types:
                continue
            check = f"pool {pool.name}: capacity reservations"
            found: dict[str, dict[str, Any]] = {}
            try:
                for term in pool.capacity_reservations:
                    if term.id is not None:
                        result = ec2.describe_capacity_reservations(CapacityReservationIds=[term.id])
                    else:
                        filters = _tag_filters(term.tags or {})
                        if term.owner_id is not None:
                            filters.append({"Name": "owner-id", "Values": [term.owner_id]})
                        result = ec2.describe_capacity_reservations(Filters=filters)
                    found.update({r["CapacityReservationId"]: r for r in result.get("CapacityReservations", [])})
            except ClientError as exc:
                if _code(exc).startswith("InvalidCapacityReservationId"):
                    out.append(Check(check, MISSING, _message(exc), f"fix gpuPools[{i}].capacityReservations"))
                    continue
                out.append(_could_not(check, "ec2:DescribeCapacityReservations", exc))
                continue
            usable = [r for r in found.values() if r.get("State") == "active" and r.get("InstanceType") in pool.instance_types]
            if not usable:
                seen = ", ".join(f"{r['CapacityReservationId']} ({r.get('InstanceType')}, {r.get('State')})" for r in found.values()) or "none"
                out.append(Check(
                    check, MISSING, f"no active reservation of {', '.join(pool.instance_types)} selected (found: {seen})",
                    f"create or tag the reservation, or fix gpuPools[{i}].capacityReservations",
                ))
                continue
            zones = set(self.subnet_zones.values())
            stranded = sorted(f"{r['CapacityReservationId']} in {r.get('AvailabilityZone')}" for r in usable if zones and r.get("AvailabilityZone") not in zones)
            if stranded:
                out.append(Check(check, MISSING, f"{', '.join(stranded)}: no selected subnet in that zone",
                                 "select a subnet of the cluster's VPC in the reservation's zone (cluster.subnets)"))
                continue
            total = sum(int(r.get("TotalInstanceCount", 0)) for r in usable)
            out.append(Check(check, OK, f"{len(usable)} active ({total} instances)"))
        return out

    # --- edge and models ------------------------------------------------------------------------

    def check_certificate(self) -> list[Check]:
        from botocore.exceptions import ClientError

        ingress = self.cfg.ingress
        if ingress is None or not ingress.certificate_arn:
            return []
        arn = ingress.certificate_arn
        check = "ingress certificate"
        parts = arn.split(":")
        cert_region = parts[3] if len(parts) > 5 else ""
        if cert_region != self.region:
            return [Check(check, MISSING, f"{arn} is in {cert_region or 'no region'}; an ALB in {self.region} uses certificates of {self.region}",
                          f"request or import the certificate in ACM in {self.region} and set ingress.certificateArn")]
        try:
            cert = self.clients("acm").describe_certificate(CertificateArn=arn)["Certificate"]
        except ClientError as exc:
            if _code(exc) == "ResourceNotFoundException":
                return [Check(check, MISSING, f"{arn} not found", "request or import it in ACM, then set ingress.certificateArn")]
            return [_could_not(check, "acm:DescribeCertificate", exc)]
        status = cert.get("Status", "?")
        if status != "ISSUED":
            return [Check(check, MISSING, f"{cert.get('DomainName', arn)} is {status}", "complete the certificate's validation (ACM)")]
        return [Check(check, OK, f"{cert.get('DomainName', arn)} ISSUED")]

    def check_mirrors(self) -> list[Check]:
        from botocore.exceptions import ClientError

        out = []
        for m in self.cfg.models:
            if m.source.type != "s3":
                continue
            uri = str(m.source.uri)
            bucket, _, prefix = uri.removeprefix("s3://").partition("/")
            prefix = prefix.strip("/")
            check = f"model {m.name}: S3 mirror"
            region = str(m.source.region or self.region)
            try:
                listed = self.clients("s3", region).list_objects_v2(Bucket=bucket, Prefix=f"{prefix}/" if prefix else "", MaxKeys=1)
            except ClientError as exc:
                if _code(exc) == "NoSuchBucket":
                    out.append(Check(check, MISSING, f"bucket {bucket} does not exist", f"create it and mirror the model to {uri}"))
                else:
                    out.append(_could_not(check, f"s3:ListBucket on {bucket}", exc))
                continue
            if not listed.get("KeyCount"):
                out.append(Check(check, MISSING, f"{uri} is empty", f"mirror the model's files to {uri} (e.g. aws s3 sync ./{m.name} {uri})"))
            else:
                out.append(Check(check, OK, f"{uri} listable (with your credentials; the pods use the reader role)"))
        return out


# --- command line ------------------------------------------------------------------------------------


def render_text(stack: str, region: str, account: str, checks: list[Check]) -> str:
    """The report as a table: check, result (with what was found), fix."""
    missing = sum(c.result == MISSING for c in checks)
    head = f"Preflight {stack} (account {account}, {region}): {len(checks)} checks, {missing} missing\n\n"
    rows = [("check", "result", "fix")] + [(c.check, f"{c.result}: {c.detail}", c.fix or "-") for c in checks]
    widths = [min(max(len(r[i]) for r in rows), cap) for i, cap in ((0, 44), (1, 90))]
    lines = []
    for n, (check, result, fix) in enumerate(rows):
        lines.append(f"{check:<{widths[0]}}  {result:<{widths[1]}}  {fix}".rstrip())
        if n == 0:
            lines.append(f"{'-' * widths[0]}  {'-' * widths[1]}  ---")
    return head + "\n".join(lines) + "\n"


def render_json(stack: str, region: str, account: str, checks: list[Check]) -> str:
    """The report as one JSON object: stack, region, account, ok, checks [{check, result, detail, fix}]."""
    doc = {"stack": stack, "region": region, "account": account, "ok": not any(c.result == MISSING for c in checks),
           "checks": [asdict(c) for c in checks]}
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"


def add_preflight_arguments(parser: Any) -> None:
    """Arguments of `python -m stacks preflight`."""
    parser.add_argument("stack", help="stack name (stacks/Pulumi.STACK.yaml) or path of a stack file")
    parser.add_argument("--format", choices=FORMATS, default="text", help="report format (default text)")


def run_preflight(args: Any, open_clients: Optional[Callable[[Optional[str], Optional[str]], tuple[Clients, str]]] = None) -> int:
    """The command: load the stack (exit 2 on bad input), open a session (exit 2 without credentials), check, report."""
    from stacks.offline import load_stack_file

    stack = load_stack_file(args.stack)
    cfg = load_stack_config(stack.config)  # ConfigError: exit 2 through stacks/__main__.py
    region = cfg.region
    profile = stack.config.get("aws:profile")
    profile = profile if isinstance(profile, str) and profile else None
    try:
        if open_clients is None:
            session, account = open_session(profile, region)
            # aws:region unset: the region the profile or AWS_REGION gives, as the AWS provider takes it (issue 19).
            region = region or session.region_name
            if not region:
                sys.stderr.write("error: aws:region is unset and neither the AWS profile nor AWS_REGION names a region; set aws:region\n")
                return EXIT_INVALID
            clients = Clients(session, region)
        else:
            clients, account = open_clients(profile, region)
            region = clients.region
    except NoCredentials as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_INVALID
    checks = Preflight(cfg, clients).run()
    render = render_json if args.format == "json" else render_text
    sys.stdout.write(render(stack.name, region, account, checks))
    return EXIT_MISSING if any(c.result == MISSING for c in checks) else EXIT_OK


def missing(checks: Iterable[Check]) -> list[Check]:
    """The checks that failed."""
    return [c for c in checks if c.result == MISSING]
