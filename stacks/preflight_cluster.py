"""The access checks of `python -m stacks preflight`: the Kubernetes version and the deploying identity's cluster-admin entry.

Read-only, on the cluster EKS describes: its Kubernetes minor against ``cluster.kubernetesVersion`` and the 1.30 floor,
and an access entry with AmazonEKSClusterAdminPolicy for whoever runs preflight (``eks:ListAccessEntries``,
``eks:ListAssociatedAccessPolicies``); and the vpc-cni add-on's network policy agent, where the stack renders
NetworkPolicies (``eks:DescribeAddon``, its ``configurationValues``).
"""

from __future__ import annotations

from typing import Any, Optional

from stacks.preflight_aws import MISSING, OK, SKIPPED, UNCHECKED, Check, could_not, describe_all

# Authentication modes that accept EKS access entries (EKS user guide, "Change authentication mode to use access entries").
ACCESS_ENTRY_MODES = ("API", "API_AND_CONFIG_MAP")
# The oldest Kubernetes the rendered pods run on: their preStop hook is the `sleep` action (PodLifecycleSleepAction,
# beta and on by default from 1.30; the same floor as cluster.kubernetesVersion's rule in components/config/cluster.py).
MIN_KUBERNETES = (1, 30)
# The EKS access policy of a cluster administrator (EKS user guide, "Review access policy permissions"): the program
# creates cluster-scoped objects (CRDs, ClusterRoles, namespaces, webhooks), which AmazonEKSAdminPolicy does not allow.
CLUSTER_ADMIN_POLICY = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"


def _minor(version: str) -> Optional[tuple[int, int]]:
    """(1, 30) from "1.30" (or "1.30.2", "v1.30"); None for anything else."""
    parts = version.lstrip("v").split(".")
    try:
        return int(parts[0]), int(parts[1])
    except (IndexError, ValueError):
        return None


def principal_arn(caller_arn: str) -> str:
    """The IAM principal an access entry names for a caller: an assumed role's session ARN maps to the role's ARN.

    ``arn:aws:sts::111122223333:assumed-role/Admin/jane`` is role ``arn:aws:iam::111122223333:role/Admin`` (STS drops
    the role's path from the session ARN; :func:`_same_principal` matches any path). Users and roles pass unchanged.
    """
    parts = caller_arn.split(":", 5)
    if len(parts) == 6 and parts[2] == "sts" and parts[5].startswith("assumed-role/"):
        role = parts[5].split("/")[1]
        return f"arn:{parts[1]}:iam::{parts[4]}:role/{role}"
    return caller_arn


def _same_principal(entry_arn: str, principal: str) -> bool:
    """Whether an access entry's principal is ``principal``; a role matches on account and name, whatever its path."""
    if entry_arn == principal:
        return True
    e, p = entry_arn.split(":", 5), principal.split(":", 5)
    if len(e) != 6 or len(p) != 6 or e[4] != p[4] or not (e[5].startswith("role/") and p[5].startswith("role/")):
        return False
    return e[5].rsplit("/", 1)[-1] == p[5].rsplit("/", 1)[-1]


def check_cluster_admin(p: Any) -> list[Check]:
    """The identity running preflight (the one that deploys, presumably) has a cluster-admin access entry.

    Reads ``eks:ListAccessEntries`` and ``eks:ListAssociatedAccessPolicies`` for the caller's principal (an assumed
    role's session maps to its role). With CONFIG_MAP authentication, or API_AND_CONFIG_MAP without such an entry,
    the aws-auth ConfigMap may grant it instead, which only the cluster's API shows: the row says how to look.
    """
    from botocore.exceptions import ClientError

    check = "cluster-admin access"
    if p.cluster is None:
        return [Check(check, SKIPPED, "the cluster was not read" if p.cluster_unread else "the cluster was not found")]
    if not p.caller_arn:
        return [Check(check, SKIPPED, "who runs preflight is not known (STS did not answer)")]
    name, principal = p.cluster.get("name", p.cfg.cluster.name), principal_arn(p.caller_arn)
    mode = p.cluster.get("accessConfig", {}).get("authenticationMode", "CONFIG_MAP")
    by_hand = f"kubectl auth can-i '*' '*' --all-namespaces (as {principal}) must answer yes"
    if mode not in ACCESS_ENTRY_MODES:
        return [
            Check(
                check,
                UNCHECKED,
                f"{mode}: access is granted in the aws-auth ConfigMap, which EKS's API does not show",
                by_hand,
            )
        ]
    eks = p.clients("eks")
    try:
        entries = [str(e) for e in describe_all(eks, "list_access_entries", "accessEntries", clusterName=name)]
        mine = [e for e in entries if _same_principal(e, principal)]
        policies: list[dict[str, Any]] = []
        for entry in mine:
            policies += describe_all(
                eks, "list_associated_access_policies", "associatedAccessPolicies", clusterName=name, principalArn=entry
            )
    except ClientError as exc:
        return [could_not(check, "eks:ListAccessEntries and eks:ListAssociatedAccessPolicies", exc)]
    admin = [
        p for p in policies if p.get("policyArn") == CLUSTER_ADMIN_POLICY and p.get("accessScope", {}).get("type") == "cluster"
    ]
    if admin:
        return [Check(check, OK, f"{principal} has AmazonEKSClusterAdminPolicy (cluster scope)")]
    if mode == "API_AND_CONFIG_MAP":
        return [
            Check(
                check,
                UNCHECKED,
                f"{principal} has no cluster-admin access entry; the aws-auth ConfigMap may grant it",
                by_hand,
            )
        ]
    have = "an access entry without it" if mine else "no access entry"
    return [
        Check(
            check,
            MISSING,
            f"{principal} has {have}: pulumi up could not create the stack's cluster-scoped objects",
            f"aws eks create-access-entry --cluster-name {name} --principal-arn {principal} and aws eks associate-access-policy "
            f"--cluster-name {name} --principal-arn {principal} --policy-arn {CLUSTER_ADMIN_POLICY} --access-scope type=cluster",
        )
    ]


def version_check(cfg: Any, running: str, region: str) -> Check:
    """The cluster's Kubernetes minor against cluster.kubernetesVersion and the 1.30 floor of the preStop sleep action."""
    check, wanted = "Kubernetes version", cfg.cluster.kubernetes_version
    floor = ".".join(map(str, MIN_KUBERNETES))
    have, want = _minor(running), _minor(wanted)
    name = cfg.cluster.name
    upgrade = f"aws eks update-cluster-version --name {name} --kubernetes-version {wanted} --region {region}"
    if have is None:
        return Check(
            check, MISSING, f"the cluster reports version {running!r}", "check the cluster with aws eks describe-cluster"
        )
    if have < MIN_KUBERNETES:
        return Check(
            check,
            MISSING,
            f"{running} is older than {floor}: the pods' preStop sleep action needs {floor} (cluster.kubernetesVersion {wanted})",
            f"{upgrade} (one minor at a time)",
        )
    if want is not None and have < want:
        return Check(
            check,
            MISSING,
            f"{running} is older than cluster.kubernetesVersion {wanted}",
            f'{upgrade}, or set it to "{running}"',
        )
    if want is not None and have > want:
        return Check(
            check,
            MISSING,
            f"{running} is newer than cluster.kubernetesVersion {wanted}: the plan checks {wanted}'s schemas",
            f'set llm-serving:cluster.kubernetesVersion: "{running}"',
        )
    return Check(check, OK, f"{running} = cluster.kubernetesVersion (at least {floor})")


# The EKS add-on whose agent enforces NetworkPolicies, and the key of its configuration values that turns the agent
# on. amazon-vpc-cni-k8s v1.23.0 charts/aws-vpc-cni/values.yaml:126 `enableNetworkPolicy: "false"` (off by default),
# passed to the agent as `--enable-network-policy={{ .Values.enableNetworkPolicy }}` (templates/daemonset.yaml:151)
# and into the amazon-vpc-cni ConfigMap as enable-network-policy-controller (templates/configmap.yaml:21).
VPC_CNI = "vpc-cni"
NETWORK_POLICY_KEY = "enableNetworkPolicy"
# What turns the agent's flag on: aws-network-policy-agent v1.4.1 pkg/config/controller_config.go:77 declares it with
# pflag's BoolVar (default false), which parses with Go's strconv.ParseBool: these spellings are true.
_GO_TRUE = ("1", "t", "T", "TRUE", "true", "True")


def network_policies_rendered(cfg: Any) -> int:
    """How many NetworkPolicies the stack renders (components/builders/network_policy.py: routing istio only)."""
    from components.builders.network_policy import network_policies, prometheus_namespace

    if cfg.ingress is None:
        return 0
    prom_ns = prometheus_namespace(cfg.monitoring.prometheus.url, cfg.monitoring.namespace)
    return len(network_policies(cfg.models, cfg.namespace, cfg.ingress.routing, prom_ns, cfg.kuberay.namespace))


def network_policy_setting(configuration_values: Optional[str]) -> tuple[Optional[bool], str]:
    """Whether the vpc-cni add-on's configuration values (JSON or YAML, as EKS takes them) turn the agent on.

    (True, ...) on, (False, why) off or unset (the chart's default is off), (None, why) unreadable.
    """
    import yaml

    if not configuration_values or not configuration_values.strip():
        return False, f'no configuration values, so {NETWORK_POLICY_KEY} is the default "false"'
    try:
        values = yaml.safe_load(configuration_values)
    except yaml.YAMLError:
        return None, "configuration values are neither JSON nor YAML"
    if not isinstance(values, dict) or NETWORK_POLICY_KEY not in values:
        return False, f'configuration values do not set {NETWORK_POLICY_KEY} (default "false")'
    value = values[NETWORK_POLICY_KEY]
    if value is True or (isinstance(value, str) and value in _GO_TRUE):
        return True, f"{NETWORK_POLICY_KEY}: {json_text(value)}"
    return False, f"{NETWORK_POLICY_KEY}: {json_text(value)}"


def json_text(value: Any) -> str:
    """``value`` as JSON shows it (a string quoted, a boolean lower-case)."""
    import json

    return json.dumps(value)


def check_network_policy_agent(p: Any) -> list[Check]:
    """The VPC CNI's network policy agent is on where the stack renders NetworkPolicies (else nothing enforces them).

    Reads the vpc-cni add-on (``eks:DescribeAddon``) and its ``configurationValues``. A cluster without the managed
    add-on runs the self-managed vpc-cni DaemonSet EKS installs, whose agent is off unless someone turned it on:
    that is reported as missing too, with both ways to fix it.
    """
    from botocore.exceptions import ClientError

    from stacks.preflight_aws import error_code

    check = "VPC CNI network policy agent"
    count = network_policies_rendered(p.cfg)
    if count == 0:
        return [Check(check, SKIPPED, "this stack renders no NetworkPolicy (ingress.routing is not istio)")]
    if p.cluster is None:
        return [Check(check, SKIPPED, "the cluster was not read" if p.cluster_unread else "the cluster was not found")]
    name = p.cluster.get("name", p.cfg.cluster.name)
    enable = (
        f"aws eks update-addon --cluster-name {name} --addon-name {VPC_CNI} --region {p.region} "
        f'--configuration-values \'{{"{NETWORK_POLICY_KEY}": "true"}}\''
    )
    try:
        addon = p.clients("eks").describe_addon(clusterName=name, addonName=VPC_CNI)["addon"]
    except ClientError as exc:
        if error_code(exc) != "ResourceNotFoundException":
            return [could_not(check, "eks:DescribeAddon", exc)]
        return [
            Check(
                check,
                MISSING,
                f"no {VPC_CNI} add-on: the self-managed VPC CNI does not enforce NetworkPolicies unless its "
                f'{NETWORK_POLICY_KEY} is "true"; the {count} NetworkPolicies this stack renders would not be enforced',
                f"aws eks create-addon --cluster-name {name} --addon-name {VPC_CNI} --region {p.region} "
                f'--resolve-conflicts OVERWRITE --configuration-values \'{{"{NETWORK_POLICY_KEY}": "true"}}\' '
                f'(or set {NETWORK_POLICY_KEY}: "true" in the aws-vpc-cni chart you run)',
            )
        ]
    version = addon.get("addonVersion", "?")
    on, why = network_policy_setting(addon.get("configurationValues"))
    if on:
        return [Check(check, OK, f"add-on {VPC_CNI} {version}, {why}: the agent enforces the {count} NetworkPolicies")]
    detail = f"add-on {VPC_CNI} {version}: {why}" if on is None else f"add-on {VPC_CNI} {version}, {why}"
    return [
        Check(
            check,
            MISSING,
            f"{detail}: the {count} NetworkPolicies this stack renders would be accepted and not enforced",
            f"{enable} (keep the add-on's other configuration values in the same JSON)",
        )
    ]
