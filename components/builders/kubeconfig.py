"""The kubeconfig of an EKS cluster, authenticated by the `aws eks get-token` exec plugin.

Pure: from the cluster's name, endpoint, CA bundle and region to a kubeconfig document (JSON,
which every kubeconfig reader accepts as YAML). It holds no credential: kubectl and the
Pulumi Kubernetes provider run ``aws eks get-token`` for a short-lived token on each use (the
form ``aws eks update-kubeconfig`` writes). The token is made with the AWS provider's identity:
its profile as ``AWS_PROFILE`` in the plugin's environment and its assumed role as
``--role-arn``, as ``update-kubeconfig --profile ... --role-arn ...`` writes them; without them
the plugin would use the ambient credentials and reach the cluster as someone else.
"""

from __future__ import annotations

import json
from typing import Optional


def eks_kubeconfig(
    cluster_name: str,
    endpoint: str,
    certificate_authority_data: str,
    region: str,
    profile: Optional[str] = None,
    role_arn: Optional[str] = None,
) -> str:
    """A kubeconfig for one EKS cluster whose user runs ``aws eks get-token`` as the given profile / role; stable text."""
    args = ["--region", region, "eks", "get-token", "--cluster-name", cluster_name, "--output", "json"]
    if role_arn:
        args += ["--role-arn", role_arn]
    plugin: dict = {
        "apiVersion": "client.authentication.k8s.io/v1beta1",
        "command": "aws",
        "args": args,
        "interactiveMode": "Never",
    }
    if profile:
        plugin["env"] = [{"name": "AWS_PROFILE", "value": profile}]
    user = {"exec": plugin}
    doc = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {"name": cluster_name, "cluster": {"server": endpoint, "certificate-authority-data": certificate_authority_data}}
        ],
        "users": [{"name": cluster_name, "user": user}],
        "contexts": [{"name": cluster_name, "context": {"cluster": cluster_name, "user": cluster_name}}],
        "current-context": cluster_name,
        "preferences": {},
    }
    return json.dumps(doc, sort_keys=True, separators=(",", ":"))
