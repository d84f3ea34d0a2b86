"""One pinned Helm release from its plain-data description (components/builders/helm.py)."""

from __future__ import annotations

from typing import Any, Callable, Mapping, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s

from . import chart_crd_files
from .builders import chart_crds
from .inputs import is_plain, shape_of

# What names a release's resource and its chart: known before any Input resolves.
_FIXED = ("name", "chart", "version", "repository")


def helm_release(
    resource_name: str, rel: Mapping[str, Any], opts: pulumi.ResourceOptions, *, crds_name: Optional[str] = None
) -> k8s.helm.v3.Release:
    """:func:`helm_release_with_crds`, the release alone."""
    return helm_release_with_crds(resource_name, rel, opts, crds_name=crds_name)[0]


def helm_release_with_crds(
    resource_name: str, rel: Mapping[str, Any], opts: pulumi.ResourceOptions, *, crds_name: Optional[str] = None
) -> tuple[k8s.helm.v3.Release, list[k8s.yaml.v2.ConfigFile]]:
    """A helm.v3.Release for ``rel`` (name, chart, version, repository, namespace, values; skipCrds when true).

    An OCI chart is passed as ``oci://<registry>/<chart>`` with no repository, as helm takes it.
    ``namespace`` and ``values`` may be Outputs (:func:`releases_of`); the rest is plain.
    A chart whose crds/ Pulumi owns (builders/chart_crds.py) gets its CRDs first, one ConfigFile each named
    ``<crds_name>-crd-<plural>`` (default ``crds_name``: ``resource_name``), and the release skips its crds/.
    """
    oci = str(rel["repository"]).startswith("oci://")
    values = rel["values"]
    crds = chart_crd_resources(crds_name or resource_name, rel, opts)
    if crds:
        opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=list(crds)))
    release = k8s.helm.v3.Release(
        resource_name,
        k8s.helm.v3.ReleaseArgs(
            name=rel["name"],
            chart=f"{rel['repository']}/{rel['chart']}" if oci else rel["chart"],
            version=rel["version"],
            repository_opts=None if oci else k8s.helm.v3.RepositoryOptsArgs(repo=rel["repository"]),
            namespace=rel["namespace"],
            create_namespace=True,
            # A chart whose CRDs another release installs (karpenter after karpenter-crd).
            skip_crds=True if rel.get("skipCrds") or crds else None,
            values=values if isinstance(values, pulumi.Output) else dict(values),
        ),
        # A release name is unique in its namespace: on replacement the old release goes first.
        opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(delete_before_replace=True)),
    )
    return release, crds


def chart_crd_resources(prefix: str, rel: Mapping[str, Any], opts: pulumi.ResourceOptions) -> list[k8s.yaml.v2.ConfigFile]:
    """One ConfigFile per CRD of the release's chart when Pulumi owns that chart's crds/ (none otherwise).

    Each reads the CRD checked against its pinned sha256 from the chart archive (components/chart_crd_files.py).
    Same parent and provider as the release; retained on delete, as Helm leaves CRDs, since deleting a CRD
    deletes every custom resource of its kind in the cluster.
    """
    chart = str(rel["chart"]).rstrip("/").rsplit("/", 1)[-1]
    pinned = chart_crds.for_chart(chart, str(rel["version"]))
    if pinned is None:
        return []
    chart_crd_files.prepare(pinned, str(rel["repository"]))
    crd_opts = pulumi.ResourceOptions(parent=opts.parent, provider=opts.provider, retain_on_delete=True)
    return [
        k8s.yaml.v2.ConfigFile(f"{prefix}-crd-{chart_crds.resource_part(crd)}", file=pinned.local_path(crd), opts=crd_opts)
        for crd in pinned.crds()
    ]


def releases_of(build: Callable[..., Sequence[Mapping[str, Any]]], *inputs: Any) -> list[Mapping[str, Any]]:
    """The releases ``build(*inputs)`` describes, where the inputs are ``pulumi.Input`` s (a namespace, a cluster name).

    With every input plain this is ``build(*inputs)`` itself. Otherwise the builder runs once they
    resolve; which releases there are and their names and charts are read from a build with
    stand-in strings (Pulumi needs the resource names now), and each release's namespace and
    values are Outputs of the real build. A builder whose name or chart would depend on an input
    fails loudly when it resolves instead of installing something else.
    """
    if all(is_plain(i) for i in inputs):
        return list(build(*inputs))
    shapes = list(shape_of(build, *inputs))
    # Some input is an Output (the plain case returned above), so this is `resolve`'s Output branch.
    built = pulumi.Output.all(*inputs).apply(lambda values: _same_releases(shapes, list(build(*values))))

    def field(i: int, key: str) -> pulumi.Output[Any]:
        return built.apply(lambda rels: rels[i][key])

    return [{**shape, "namespace": field(i, "namespace"), "values": field(i, "values")} for i, shape in enumerate(shapes)]


def _same_releases(shapes: list[Mapping[str, Any]], rels: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    fixed = [[r.get(k) for k in _FIXED] for r in rels]
    if fixed != [[s.get(k) for k in _FIXED] for s in shapes]:
        raise ValueError(f"the releases' names or charts depend on an Input: {fixed}")
    return rels
