"""One pinned Helm release from its plain-data description (components/builders/helm.py)."""

from __future__ import annotations

from typing import Any, Mapping

import pulumi
import pulumi_kubernetes as k8s


def helm_release(resource_name: str, rel: Mapping[str, Any], opts: pulumi.ResourceOptions) -> k8s.helm.v3.Release:
    """A helm.v3.Release for ``rel`` (name, chart, version, repository, namespace, values).

    An OCI chart is passed as ``oci://<registry>/<chart>`` with no repository, as helm takes it.
    """
    oci = str(rel["repository"]).startswith("oci://")
    return k8s.helm.v3.Release(
        resource_name,
        k8s.helm.v3.ReleaseArgs(
            name=rel["name"],
            chart=f"{rel['repository']}/{rel['chart']}" if oci else rel["chart"],
            version=rel["version"],
            repository_opts=None if oci else k8s.helm.v3.RepositoryOptsArgs(repo=rel["repository"]),
            namespace=rel["namespace"],
            create_namespace=True,
            values=dict(rel["values"]),
        ),
        opts=opts,
    )
