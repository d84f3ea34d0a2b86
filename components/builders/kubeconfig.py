"""The kubeconfig of an EKS cluster, authenticated by the `aws eks get-token` exec plugin.

Pure: from the cluster's name, endpoint, CA bundle and region to a kubeconfig document (JSON,
which every kubeconfig reader accepts as YAML). It holds no credential: kubectl and the
Pulumi Kubernetes provider run ``aws eks get-token`` for a short-lived token on each use, with
whatever AWS identity runs Pulumi (the form ``aws eks update-kubeconfig`` writes).
"""

from __future__ import annotations

import json


def eks_kubeconfig(cluster_name: str, endpoint: str, certificate_authority_data: str, region: str) -> str:
    """A kubeconfig for one EKS cluster whose user runs ``aws eks get-token``; sorted keys, stable text."""
    user = {
        "exec": {
            "apiVersion": "client.authentication.k8s.io/v1beta1",
            "command": "aws",
            "args": ["--region", region, "eks", "get-token", "--cluster-name", cluster_name, "--output", "json"],
            "interactiveMode": "Never",
        }
    }
    doc = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": cluster_name, "cluster": {"server": endpoint, "certificate-authority-data": certificate_authority_data}}],
        "users": [{"name": cluster_name, "user": user}],
        "contexts": [{"name": cluster_name, "context": {"cluster": cluster_name, "user": cluster_name}}],
        "current-context": cluster_name,
        "preferences": {},
    }
    return json.dumps(doc, sort_keys=True, separators=(",", ":"))
