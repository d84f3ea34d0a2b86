"""`python -m stacks preflight STACK`: read-only checks of what a stack needs of the AWS account and cluster.

Run before ``pulumi up``, with the user's own credentials (boto3's usual chain, or the stack's
``aws:profile``), in the stack's ``aws:region``. Each check reads, never writes:

* the EKS cluster exists, and its authentication mode allows access entries (API or
  API_AND_CONFIG_MAP), which Karpenter's node role joins through;
* the IAM roles and the interruption queue the stack's Karpenter creates are not taken already;
* the EKS Pod Identity Agent add-on is installed (Karpenter, the load balancer controller and the
  S3 readers take their credentials from it), or, when the stack installs it, not installed already
  (EKS refuses to create it twice);
* the vpc-cni add-on turns its network policy agent on (``enableNetworkPolicy``) when the stack renders
  NetworkPolicies, since nothing else enforces them;
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

This module holds the cluster, network, certificate and mirror checks and the command line; the
session and clients are in stacks/preflight_aws.py, the GPU capacity checks (offerings, quotas,
reservations) in stacks/preflight_capacity.py.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass
from typing import Any, Callable, Iterable, Optional

from components.config import DISCOVERY_TAG, EKS_CLUSTER_NAME_TAG, StackConfig, load_stack_config
from stacks.preflight_aws import (
    MISSING,
    OK,
    SKIPPED,
    UNCHECKED,
    Check,
    Clients,
    NoCredentials,
    Unreachable,
    caller_identity,
    could_not,
    describe_all,
    error_code,
    error_message,
    open_session,
    tag_filters,
)
from stacks.preflight_capacity import check_offerings, check_quotas, check_reservations
from stacks.preflight_cluster import (  # noqa: F401 (principal_arn, _same_principal: part of preflight's interface)
    ACCESS_ENTRY_MODES,
    CLUSTER_ADMIN_POLICY,
    MIN_KUBERNETES,
    _minor,
    _same_principal,
    check_cluster_admin,
    check_network_policy_agent,
    principal_arn,
    version_check,
)
from stacks.preflight_edge import check_alb_subnets, check_certificate, check_waf

EXIT_OK, EXIT_MISSING, EXIT_INVALID = 0, 1, 2
FORMATS = ("text", "json")
POD_IDENTITY_AGENT = "eks-pod-identity-agent"
# The Prometheus Operator's CRDs that the stack's PodMonitors and PrometheusRules need.
PROMETHEUS_CRDS = ("podmonitors.monitoring.coreos.com", "prometheusrules.monitoring.coreos.com")


def _stack_installs_pod_identity_agent(cfg: StackConfig) -> bool:
    """Whether the stack installs the EKS Pod Identity Agent add-on itself (``addons.podIdentityAgent.install``)."""
    return cfg.addons.pod_identity_agent.install


@dataclass(frozen=True)
class _Ec2Kind:
    """One kind of EC2 object a cluster selector picks (subnets, security groups), as preflight reads it."""

    check: str  # the check's name, and the plural noun of its messages
    field: str  # the selector's stack-file path
    operation: str  # the paginated EC2 Describe* call
    action: str  # the IAM action it needs
    result: str  # the response's list key
    ids_param: str
    id_key: str
    invalid_id_code: str  # prefix of EC2's error code for an id that does not exist
    fix_ids: str


_SUBNETS = _Ec2Kind(
    "subnets",
    "cluster.subnets",
    "describe_subnets",
    "ec2:DescribeSubnets",
    "Subnets",
    "SubnetIds",
    "SubnetId",
    "InvalidSubnetID",
    "fix the subnet IDs in cluster.subnets.ids or cluster.tagForDiscovery.subnetIds",
)
_SECURITY_GROUPS = _Ec2Kind(
    "security groups",
    "cluster.securityGroups",
    "describe_security_groups",
    "ec2:DescribeSecurityGroups",
    "SecurityGroups",
    "GroupIds",
    "GroupId",
    "InvalidGroup",
    "fix the IDs in cluster.securityGroups.ids or cluster.tagForDiscovery.securityGroupIds",
)


class Preflight:
    """The checks of one stack against one account, region and cluster."""

    def __init__(self, cfg: StackConfig, clients: Clients, caller_arn: Optional[str] = None):
        self.cfg, self.clients = cfg, clients
        self.caller_arn = caller_arn  # who runs preflight (STS GetCallerIdentity), for the access-entry check
        self.cluster_unread = False  # EKS did not answer (else a None cluster was not found)
        self.region = clients.region
        self.cluster: Optional[dict[str, Any]] = None
        self.subnet_zones: dict[str, str] = {}  # subnet id -> zone, of the subnets the selectors find

    def run(self) -> list[Check]:
        """Every check, in a fixed order; a check whose service does not answer becomes one row saying so."""
        steps: list[tuple[str, Callable[[], list[Check]]]] = [
            (f"EKS cluster {self.cfg.cluster.name}", self.check_cluster),
            ("cluster-admin access", self.check_cluster_admin),
            ("EKS Pod Identity Agent", self.check_pod_identity_agent),
            ("VPC CNI network policy agent", lambda: check_network_policy_agent(self)),
            ("Karpenter's names", self.check_karpenter_names),
            ("S3 reader roles", self.check_reader_roles),
            ("subnets", self.check_subnets),
            ("security groups", self.check_security_groups),
            ("instance offerings", self.check_offerings),
            ("vCPU quotas", self.check_quotas),
            ("capacity reservations", self.check_reservations),
            ("ALB subnets", lambda: check_alb_subnets(self.cfg, self.clients, self._vpc())),
            ("ingress certificate", lambda: check_certificate(self.cfg, self.clients)),
            ("WAF web ACL", lambda: check_waf(self.cfg, self.clients)),
            ("Prometheus Operator CRDs", self.check_prometheus_crds),
            ("S3 mirrors", self.check_mirrors),
        ]
        checks: list[Check] = []
        for label, step in steps:
            try:
                checks += step()
            except Unreachable as exc:
                checks.append(exc.row(label))
                if step == self.check_cluster:
                    self.cluster_unread = True
        return checks

    # --- the cluster -------------------------------------------------------------------------

    def check_cluster_admin(self) -> list[Check]:
        """The identity running preflight has a cluster-admin access entry (stacks/preflight_cluster.py)."""
        return check_cluster_admin(self)

    def check_cluster(self) -> list[Check]:
        from botocore.exceptions import ClientError

        name = self.cfg.cluster.name
        check = f"EKS cluster {name}"
        try:
            self.cluster = self.clients("eks").describe_cluster(name=name)["cluster"]
        except ClientError as exc:
            if error_code(exc) == "ResourceNotFoundException":
                return [
                    Check(
                        check,
                        MISSING,
                        f"no EKS cluster named {name} in {self.region}",
                        "create it, or set llm-serving:cluster.name and aws:region to the cluster's",
                    )
                ]
            return [could_not(check, "eks:DescribeCluster", exc)]
        out = []
        status = self.cluster.get("status", "?")
        if status != "ACTIVE":
            out.append(Check(check, MISSING, f"status {status}", "wait until the cluster is ACTIVE"))
        else:
            out.append(Check(check, OK, f"ACTIVE, Kubernetes {self.cluster.get('version', '?')}"))
        out.append(version_check(self.cfg, str(self.cluster.get("version", "?")), self.region))
        mode = self.cluster.get("accessConfig", {}).get("authenticationMode", "CONFIG_MAP")
        check = "authentication mode"
        if not self.cfg.karpenter.install:
            out.append(Check(check, SKIPPED, f"{mode}; this stack creates no access entry (karpenter.install is false)"))
        elif mode in ACCESS_ENTRY_MODES:
            out.append(Check(check, OK, f"{mode} accepts the access entry of Karpenter's node role"))
        else:
            out.append(
                Check(
                    check,
                    MISSING,
                    f"{mode} refuses access entries: Karpenter's nodes could not join",
                    f"aws eks update-cluster-config --name {name} --region {self.region} --access-config authenticationMode=API_AND_CONFIG_MAP",
                )
            )
        return out

    def check_prometheus_crds(self) -> list[Check]:
        """The Prometheus Operator's CRDs, where the stack renders PodMonitors and PrometheusRules but installs no operator.

        Preflight has no Kubernetes client (it reads AWS APIs only), so the row says how to check.
        """
        check = "Prometheus Operator CRDs"
        if self.cfg.monitoring.prometheus.url is None:
            return [Check(check, SKIPPED, "this stack installs kube-prometheus-stack, with its CRDs")]
        if not self.cfg.models:
            return []
        return [
            Check(
                check,
                UNCHECKED,
                "PodMonitors and PrometheusRules need the operator's CRDs (monitoring.prometheus.url set: none installed); "
                "preflight reads AWS only",
                f"kubectl get crd {' '.join(PROMETHEUS_CRDS)} must list both",
            )
        ]

    def check_reader_roles(self) -> list[Check]:
        """The fixed IAM role name of each S3 model reader is free (IAM refuses a name twice: EntityAlreadyExists at up)."""

        from components.builders.model_source import reader_role_name

        names = {m.name: reader_role_name(self.cfg.cluster.name, m.name) for m in self.cfg.models if m.source.type == "s3"}
        if not names:
            return []
        existing = self._existing_roles("S3 reader roles", sorted(names.values()))
        if isinstance(existing, Check):
            return [existing]
        taken = [f"{role} (model {model})" for model, role in sorted(names.items()) if role in existing]
        if taken:
            return [
                Check(
                    "S3 reader roles",
                    MISSING,
                    f"IAM role {', '.join(taken)} exists already; IAM refuses the name at pulumi up",
                    "delete the role if nothing uses it (aws iam delete-role), or rename the model or the cluster",
                )
            ]
        return [Check("S3 reader roles", OK, f"{', '.join(sorted(names.values()))} free")]

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
            return [Check(check, SKIPPED, "the cluster was not read" if self.cluster_unread else "the cluster was not found")]
        name = self.cluster.get("name", self.cfg.cluster.name)
        try:
            addon = self.clients("eks").describe_addon(clusterName=name, addonName=POD_IDENTITY_AGENT)["addon"]
        except ClientError as exc:
            if error_code(exc) != "ResourceNotFoundException":
                return [could_not(check, "eks:DescribeAddon", exc)]
            if installs:
                return [Check(check, OK, "not installed yet; this stack installs the add-on (addons.podIdentityAgent)")]
            return [
                Check(
                    check,
                    MISSING,
                    f"add-on {POD_IDENTITY_AGENT} not installed; {', '.join(users)} need it",
                    f"aws eks create-addon --cluster-name {name} --addon-name {POD_IDENTITY_AGENT} --region {self.region}, "
                    "or set llm-serving:addons.podIdentityAgent.install: true",
                )
            ]
        status = addon.get("status", "?")
        if installs:
            return [
                Check(
                    check,
                    MISSING,
                    f"add-on {POD_IDENTITY_AGENT} is installed already ({status}); this stack would create it again "
                    "and EKS refuses that (ResourceInUseException)",
                    "set llm-serving:addons.podIdentityAgent.install: false",
                )
            ]
        if status not in ("ACTIVE", "UPDATING"):
            return [
                Check(
                    check,
                    MISSING,
                    f"add-on {POD_IDENTITY_AGENT} is {status}",
                    f"see `aws eks describe-addon --cluster-name {name} --addon-name {POD_IDENTITY_AGENT}` for its health issues",
                )
            ]
        return [Check(check, OK, f"add-on {addon.get('addonVersion', '?')} {status}")]

    def _existing_roles(self, check: str, roles: list[str]) -> "set[str] | Check":
        """Which of ``roles`` exist (iam:GetRole each), or the row saying the read failed."""
        from botocore.exceptions import ClientError

        iam, existing = self.clients("iam"), set()
        for role in roles:
            try:
                iam.get_role(RoleName=role)
                existing.add(role)
            except ClientError as exc:
                if error_code(exc) != "NoSuchEntity":
                    return could_not(check, "iam:GetRole", exc)
        return existing

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
        taken: list[str] = []
        out = []
        # The names the Karpenter component gives them (fitted to each service's limit).
        roles, queue = (node_role_name(cluster), controller_role_name(cluster)), queue_name(cluster)
        existing = self._existing_roles("Karpenter's names", list(roles))
        if isinstance(existing, Check):
            return [existing]
        taken += [f"IAM role {role}" for role in roles if role in existing]
        try:
            self.clients("sqs").get_queue_url(QueueName=queue)
            taken.append(f"SQS queue {queue}")
        except ClientError as exc:
            if error_code(exc) not in ("AWS.SimpleQueueService.NonExistentQueue", "QueueDoesNotExist"):
                return [could_not("Karpenter's names", "sqs:GetQueueUrl", exc)]
        if taken:
            out.append(
                Check(
                    "Karpenter's names",
                    MISSING,
                    f"{', '.join(taken)} exist already (Karpenter installed another way?): IAM "
                    "refuses a role name twice, and a queue of the same name and attributes would be taken over (and deleted with this stack)",
                    "set llm-serving:karpenter.install: false (with nodeRoleName) where Karpenter runs already, or remove them",
                )
            )
        else:
            out.append(Check("Karpenter's names", OK, f"{roles[0]}, {roles[1]}, queue {queue} are free"))
        return out

    # --- networking ------------------------------------------------------------------------------

    def _vpc(self) -> Optional[str]:
        return (self.cluster or {}).get("resourcesVpcConfig", {}).get("vpcId")

    def check_subnets(self) -> list[Check]:
        sel, tagging = self.cfg.cluster.subnets, self.cfg.cluster.tag_for_discovery
        tags = dict(sel.tags) or {DISCOVERY_TAG: self.cfg.cluster.name}
        selected = self._selected(_SUBNETS, sel.ids, tags, tagging.subnet_ids)
        if isinstance(selected, Check):
            return [selected]
        how, found = selected
        if not found:
            tag_args = " ".join(f"Key={k},Value={v}" for k, v in sorted(tags.items()))
            return [
                Check(
                    "subnets",
                    MISSING,
                    f"no {how}: Karpenter's EC2NodeClass would never be Ready and no GPU node would launch",
                    f"tag the cluster's private subnets (aws ec2 create-tags --resources subnet-... --tags {tag_args}), or list them "
                    "under cluster.tagForDiscovery.subnetIds, or select them with cluster.subnets.ids",
                )
            ]
        outside = self._outside_vpc(_SUBNETS, found)
        if outside is not None:
            return [outside]
        self.subnet_zones = {s["SubnetId"]: s["AvailabilityZone"] for s in found}
        zones = sorted(set(self.subnet_zones.values()))
        return [Check("subnets", OK, f"{len(found)} {how} in {', '.join(zones)}")]

    def check_security_groups(self) -> list[Check]:
        sel, tagging = self.cfg.cluster.security_groups, self.cfg.cluster.tag_for_discovery
        if sel.eks_cluster_security_group:
            tags = {EKS_CLUSTER_NAME_TAG: self.cfg.cluster.name}
        else:
            tags = dict(sel.tags) or {DISCOVERY_TAG: self.cfg.cluster.name}
        selected = self._selected(_SECURITY_GROUPS, sel.ids, tags, tagging.security_group_ids)
        if isinstance(selected, Check):
            return [selected]
        how, found = selected
        if not found:
            cluster_sg = (self.cluster or {}).get("resourcesVpcConfig", {}).get("clusterSecurityGroupId", "sg-...")
            return [
                Check(
                    "security groups",
                    MISSING,
                    f"no {how}: Karpenter's EC2NodeClass would never be Ready",
                    f"tag the node security group (e.g. the cluster security group {cluster_sg}: aws ec2 create-tags --resources "
                    f"{cluster_sg} --tags Key={DISCOVERY_TAG},Value={self.cfg.cluster.name}), or list it under "
                    "cluster.tagForDiscovery.securityGroupIds, or set cluster.securityGroups.eksClusterSecurityGroup: true",
                )
            ]
        outside = self._outside_vpc(_SECURITY_GROUPS, found)
        return [outside] if outside is not None else [Check("security groups", OK, f"{len(found)} {how}")]

    def _selected(
        self, kind: _Ec2Kind, ids: Iterable[str], tags: dict[str, str], tagged_ids: Iterable[str]
    ) -> tuple[str, list[dict[str, Any]]] | Check:
        """What a selector finds as Karpenter's EC2NodeClass would: its ids, or what carries its tags plus the ids
        this stack tags itself; each item once. A Check instead when the read fails."""
        from botocore.exceptions import ClientError

        ec2 = self.clients("ec2")
        ids, tagged_ids = list(ids), list(tagged_ids)
        try:
            if ids:
                how = f"{kind.check} {', '.join(ids)} ({kind.field}.ids)"
                found = getattr(ec2, kind.operation)(**{kind.ids_param: ids})[kind.result]
            else:
                how = f"{kind.check} tagged " + ", ".join(f"{k}={v}" for k, v in sorted(tags.items()))
                found = describe_all(ec2, kind.operation, kind.result, Filters=tag_filters(tags))
                if tagged_ids:  # this stack adds the tag: they count as found
                    found += getattr(ec2, kind.operation)(**{kind.ids_param: tagged_ids})[kind.result]
        except ClientError as exc:
            if error_code(exc).startswith(kind.invalid_id_code):
                return Check(kind.check, MISSING, error_message(exc), kind.fix_ids)
            return could_not(kind.check, kind.action, exc)
        return how, list({item[kind.id_key]: item for item in found}.values())

    def _outside_vpc(self, kind: _Ec2Kind, found: list[dict[str, Any]]) -> Optional[Check]:
        """A missing check naming what was found outside the cluster's VPC, or None."""
        vpc = self._vpc()
        elsewhere = sorted(item[kind.id_key] for item in found if vpc and item.get("VpcId") != vpc)
        if not elsewhere:
            return None
        return Check(
            kind.check,
            MISSING,
            f"{', '.join(elsewhere)} are not in the cluster's VPC {vpc}",
            f"select only {kind.check} of the cluster's VPC ({kind.field})",
        )

    # --- capacity -------------------------------------------------------------------------------

    def check_offerings(self) -> list[Check]:
        return check_offerings(self.cfg, self.clients, self.subnet_zones)

    def check_quotas(self) -> list[Check]:
        return check_quotas(self.cfg, self.clients)

    def check_reservations(self) -> list[Check]:
        return check_reservations(self.cfg, self.clients, self.subnet_zones)

    # --- edge and models ------------------------------------------------------------------------

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
                listed = self.clients("s3", region).list_objects_v2(
                    Bucket=bucket, Prefix=f"{prefix}/" if prefix else "", MaxKeys=1
                )
            except ClientError as exc:
                if error_code(exc) == "NoSuchBucket":
                    out.append(
                        Check(check, MISSING, f"bucket {bucket} does not exist", f"create it and mirror the model to {uri}")
                    )
                else:
                    out.append(could_not(check, f"s3:ListBucket on {bucket}", exc))
                continue
            if not listed.get("KeyCount"):
                out.append(
                    Check(
                        check,
                        MISSING,
                        f"{uri} is empty",
                        f"mirror the model's files to {uri} (e.g. aws s3 sync ./{m.name} {uri})",
                    )
                )
            else:
                out.append(Check(check, OK, f"{uri} listable (with your credentials; the pods use the reader role)"))
        return out


# --- command line ------------------------------------------------------------------------------------


def render_text(stack: str, region: str, account: str, checks: list[Check]) -> str:
    """The report as a table: check, result (with what was found), fix."""
    missing = sum(c.result == MISSING for c in checks)
    unchecked = sum(c.result == UNCHECKED for c in checks)
    by_hand = f", {unchecked} to check by hand" if unchecked else ""
    head = f"Preflight {stack} (account {account}, {region}): {len(checks)} checks, {missing} missing{by_hand}\n\n"
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
    doc = {
        "stack": stack,
        "region": region,
        "account": account,
        "ok": not any(c.result == MISSING for c in checks),
        "checks": [asdict(c) for c in checks],
    }
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"


def add_preflight_arguments(parser: Any) -> None:
    """Arguments of `python -m stacks preflight`."""
    parser.add_argument("stack", help="stack name (stacks/Pulumi.STACK.yaml) or path of a stack file")
    parser.add_argument("--format", choices=FORMATS, default="text", help="report format (default text)")


def run_preflight(args: Any, open_clients: Optional[Callable[[Optional[str], Optional[str]], tuple[Any, ...]]] = None) -> int:
    """The command: load the stack (exit 2 on bad input), open a session (exit 2 without credentials), check, report.

    A service that does not answer is a row of the report (exit 1), STS included: the credentials may be fine.
    """
    from stacks.offline import load_stack_file

    stack = load_stack_file(args.stack)
    cfg = load_stack_config(stack.config)  # ConfigError: exit 2 through stacks/__main__.py
    region = cfg.region
    profile = stack.config.get("aws:profile")
    profile = profile if isinstance(profile, str) and profile else None
    first: list[Check] = []
    caller: Optional[str] = None
    if open_clients is None:
        session = open_session(profile, region)  # NoCredentials: exit 2 through stacks/__main__.py
        # aws:region unset: the region the profile or AWS_REGION gives, as the AWS provider takes it (issue 19).
        region = region or session.region_name
        if not region:
            raise NoCredentials("aws:region is unset and neither the AWS profile nor AWS_REGION names a region; set aws:region")
        clients = Clients(session, region)
        try:
            identity = caller_identity(clients)
            account, caller = identity["Account"], identity["Arn"]
        except Unreachable as exc:
            account = "unknown"
            first.append(exc.row("AWS credentials"))
    else:  # tests: (clients, account) or (clients, account, caller ARN)
        opened = open_clients(profile, region)
        clients, account = opened[0], opened[1]
        caller = opened[2] if len(opened) > 2 else None
        region = clients.region
    checks = first + Preflight(cfg, clients, caller).run()
    render = render_json if args.format == "json" else render_text
    sys.stdout.write(render(stack.name, region, account, checks))
    return EXIT_MISSING if any(c.result == MISSING for c in checks) else EXIT_OK


def missing(checks: Iterable[Check]) -> list[Check]:
    """The checks that failed."""
    return [c for c in checks if c.result == MISSING]
