"""The access checks of `python -m stacks preflight`: the Kubernetes version and the deploying identity's cluster-admin entry.

Read-only, on the cluster EKS describes: its Kubernetes minor against ``cluster.kubernetesVersion`` and the 1.30 floor,
and an access entry with AmazonEKSClusterAdminPolicy for whoever runs preflight (``eks:ListAccessEntries``,
``eks:ListAssociatedAccessPolicies``).
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
