"""Charts whose CRDs sit in crds/ (which Helm never upgrades) get them as Pulumi resources instead.

builders/chart_crds.py pins each file's sha256 and CRDs; components/chart_crd_files.py reads them from the chart
archive (a chart repository's index, a folder of `helm pull` archives, or the cached download), checks them and
writes one file per CRD; components/helm.py registers one ConfigFile per CRD before the release, which skips crds/.
"""

from __future__ import annotations

import hashlib
import io
import tarfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from components import chart_crd_files
from components.builders import chart_crds, kuberay_operator
from components.builders.chart_crds import CrdFileError
from tests.conftest import shared_path

ALB = chart_crds.AWS_LOAD_BALANCER_CONTROLLER
_LOADER = getattr(yaml, "CBaseLoader", yaml.BaseLoader)


def _chart_dir(pinned: chart_crds.ChartCrds) -> Path:
    return shared_path("charts", pinned.chart, pinned.version)


@pytest.mark.parametrize("pinned", list(chart_crds.CHARTS.values()), ids=lambda p: p.chart)
def test_every_crd_file_of_the_chart_is_pinned_byte_for_byte(pinned):
    folder = _chart_dir(pinned)
    # The crds/ folder beside each Chart.yaml: the chart's and each subchart's (kube-prometheus-stack's `crds` one).
    crd_dirs = sorted(c.parent / "crds" for c in folder.rglob("Chart.yaml") if (c.parent / "crds").is_dir())
    on_disk = {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for d in crd_dirs for p in d.glob("*.yaml")}
    # Every file of the chart's crds/ folders (subcharts included), none missing, none altered.
    assert {f.path: f.sha256 for f in pinned.files} == on_disk
    for f in pinned.files:
        docs = [d for d in yaml.load_all((folder / f.path).read_bytes(), Loader=_LOADER) if d]
        assert [(d["kind"], d["metadata"]["name"], d["spec"]["names"]["kind"]) for d in docs] == [
            ("CustomResourceDefinition", name, kind) for name, kind in zip(f.crds, f.kinds)
        ]


@pytest.mark.parametrize("pinned", list(chart_crds.CHARTS.values()), ids=lambda p: p.chart)
def test_each_crd_is_split_out_byte_for_byte(pinned):
    folder = _chart_dir(pinned)
    for f in pinned.files:
        pieces = chart_crds.split_checked(pinned, f, (folder / f.path).read_bytes())
        assert list(pieces) == list(f.crds)
        for name, body in pieces.items():
            (doc,) = [d for d in yaml.load_all(body, Loader=_LOADER) if d]
            assert doc["metadata"]["name"] == name
            assert body in (folder / f.path).read_bytes()


def test_a_file_that_is_not_the_pinned_one_is_refused_naming_both_digests():
    f = ALB.files[0]
    data = (_chart_dir(ALB) / f.path).read_bytes()
    tampered = data.replace(b"targetgroupbindings", b"targetgroupbindingz", 1)
    with pytest.raises(CrdFileError) as err:
        chart_crds.split_checked(ALB, f, tampered)
    assert str(err.value) == (
        f"aws-load-balancer-controller-3.5.0.tgz:aws-load-balancer-controller/crds/crds.yaml has sha256 "
        f"{hashlib.sha256(tampered).hexdigest()}, not the pinned {f.sha256}: refusing to apply it"
    )
    # A pin whose CRD list disagrees with the documents (here: two swapped) is refused too.
    swapped = chart_crds.CrdFile(f.path, f.sha256, (f.crds[1], f.crds[0], *f.crds[2:]), f.kinds)
    with pytest.raises(CrdFileError, match="the document pinned as CRD globalaccelerators.aga.k8s.aws does not define it"):
        chart_crds.split_checked(ALB, swapped, data)


def _archive(pinned: chart_crds.ChartCrds) -> bytes:
    """A chart archive as `helm package` lays it out (<chart>/...), holding the chart's files of the reference folder."""
    folder = _chart_dir(pinned)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                tar.add(p, arcname=f"{pinned.chart}/{p.relative_to(folder)}")
    return buf.getvalue()


class _Repo:
    """A chart repository on 127.0.0.1: index.yaml (a relative URL to the archive, with its digest) and the archive."""

    def __init__(self, pinned: chart_crds.ChartCrds, archive: bytes, digest: str):
        index = {
            "apiVersion": "v1",
            "entries": {
                pinned.chart: [
                    {"version": "0.0.1", "urls": ["old.tgz"]},
                    {"version": pinned.version, "urls": [f"charts/{pinned.archive}"], "digest": digest},
                ]
            },
        }
        files = {"/index.yaml": yaml.safe_dump(index).encode(), f"/charts/{pinned.archive}": archive}
        self.requests: list[str] = []
        requests = self.requests

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server's name
                requests.append(self.path)
                body = files.get(self.path)
                self.send_response(200 if body is not None else 404)
                self.end_headers()
                self.wfile.write(body or b"not found")

            def log_message(self, *args):  # quiet
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def test_the_crds_come_from_the_chart_repository_checked_then_from_the_cached_archive(tmp_path, monkeypatch):
    monkeypatch.delenv(chart_crd_files.ARCHIVES_ENV, raising=False)
    archive = _archive(ALB)
    repo = _Repo(ALB, archive, hashlib.sha256(archive).hexdigest())
    try:
        paths = chart_crd_files.prepare(ALB, repo.url, root=tmp_path)
    finally:
        repo.close()
    assert repo.requests == ["/index.yaml", f"/charts/{ALB.archive}"]
    assert {c: p.relative_to(tmp_path).as_posix() for c, p in paths.items()} == {c: ALB.local_path(c) for c in ALB.crds()}
    source = (_chart_dir(ALB) / "crds/crds.yaml").read_bytes()
    body = paths["targetgroupbindings.elbv2.k8s.aws"].read_bytes()
    assert body in source and b"name: targetgroupbindings.elbv2.k8s.aws" in body
    # The next run reads the cached archive (the repository is gone) and checks it again.
    paths["targetgroupbindings.elbv2.k8s.aws"].unlink()
    chart_crd_files.prepare(ALB, repo.url, root=tmp_path)
    assert paths["targetgroupbindings.elbv2.k8s.aws"].read_bytes() == body


def test_an_archive_whose_digest_differs_from_the_index_is_refused(tmp_path, monkeypatch):
    monkeypatch.delenv(chart_crd_files.ARCHIVES_ENV, raising=False)
    archive = _archive(ALB)
    repo = _Repo(ALB, archive, "0" * 64)
    try:
        with pytest.raises(chart_crd_files.CrdSourceError, match="the repository index says 0000"):
            chart_crd_files.prepare(ALB, repo.url, root=tmp_path)
    finally:
        repo.close()
    assert not (tmp_path / chart_crds.CACHE_DIR).exists()


def test_a_runner_without_egress_reads_a_folder_of_helm_pull_archives(tmp_path, monkeypatch):
    folder = tmp_path / "archives"
    folder.mkdir()
    monkeypatch.setenv(chart_crd_files.ARCHIVES_ENV, str(folder))

    def no_network(url):
        raise AssertionError(f"fetched {url}")

    with pytest.raises(chart_crd_files.CrdSourceError) as err:
        chart_crd_files.prepare(ALB, "https://aws.github.io/eks-charts", root=tmp_path, fetch=no_network)
    assert str(err.value) == (
        f"{chart_crd_files.ARCHIVES_ENV}={folder}: no aws-load-balancer-controller-3.5.0.tgz there; save it with "
        f"`helm pull aws-load-balancer-controller --repo https://aws.github.io/eks-charts --version 3.5.0 -d {folder}`"
    )
    (folder / ALB.archive).write_bytes(_archive(ALB))
    paths = chart_crd_files.prepare(ALB, "https://aws.github.io/eks-charts", root=tmp_path, fetch=no_network)
    assert all(p.is_file() for p in paths.values())
    # An archive whose CRD file was altered is refused before anything is written.
    tampered = io.BytesIO()
    with tarfile.open(fileobj=io.BytesIO(_archive(ALB))) as src, tarfile.open(fileobj=tampered, mode="w:gz") as dst:
        for m in src.getmembers():
            data = src.extractfile(m).read() if m.isfile() else b""
            if m.name.endswith("gateway-crds.yaml"):
                data = data + b"\n# extra\n"
                m.size = len(data)
            dst.addfile(m, io.BytesIO(data))
    (folder / ALB.archive).write_bytes(tampered.getvalue())
    for p in paths.values():
        p.unlink()
    with pytest.raises(chart_crd_files.CrdSourceError, match="crds/gateway-crds.yaml has sha256 .* not the pinned"):
        chart_crd_files.prepare(ALB, "https://aws.github.io/eks-charts", root=tmp_path, fetch=no_network)
    assert not any(p.exists() for p in paths.values())


def test_the_kuberay_release_leaves_its_crds_to_pulumi():
    # Helm applies crds/ on install only and never upgrades them: one owner, Pulumi, with the chart's CRDs skipped.
    from components.config import KubeRayConfig

    rel = kuberay_operator.operator_release(KubeRayConfig())
    assert rel["skipCrds"] is True


@pytest.fixture(scope="module")
def plans(planned):
    """`python -m stacks plan STACK --format json` of prod and dev (exit 0, tests.conftest.planned): the JSON and the
    folder it wrote."""
    return {stack: (planned(stack).report, planned(stack).out) for stack in ("prod", "dev")}


@pytest.mark.parametrize(
    ("stack", "release", "helm_file", "crds_prefix", "pinned", "custom"),
    [
        (
            "prod",
            "prod-kuberay-operator",
            "kuberay-system/kuberay-operator.yaml",
            "prod-kuberay",
            chart_crds.KUBERAY_OPERATOR,
            ("prod-llama-405b-raycluster", "ray.io/RayCluster"),
        ),
        (
            "prod",
            "prod-ingress-lb-controller-release",
            "kube-system/aws-load-balancer-controller.yaml",
            "prod-ingress-lb-controller",
            ALB,
            None,
        ),
        (
            "dev",
            "dev-metrics-kube-prometheus-stack",
            "monitoring/kube-prometheus-stack.yaml",
            "dev-metrics-kube-prometheus-stack",
            chart_crds.KUBE_PROMETHEUS_STACK,
            ("dev-chat-8b-autoscaling-podmonitor", "monitoring.coreos.com/PodMonitor"),
        ),
    ],
    ids=["kuberay-operator", "aws-load-balancer-controller", "kube-prometheus-stack"],
)
def test_each_crd_is_its_own_resource_before_the_release_and_the_custom_resources_of_its_kind(
    plans, stack, release, helm_file, crds_prefix, pinned, custom
):
    # Pulumi applies them on every `up` (a chart bump upgrades them), before the release that runs the controller and
    # before any custom resource of their kind; the release skips crds/. The plan's JSON and helm/ files show it.
    plan, folder = plans[stack]
    resources = {r["name"]: r for r in plan["resources"]}
    mine = {
        n for n, r in resources.items() if r["type"] == "kubernetes:yaml/v2:ConfigFile" and n.startswith(f"{crds_prefix}-crd-")
    }
    assert mine == {f"{crds_prefix}-crd-{chart_crds.resource_part(c)}" for c in pinned.crds()}
    assert mine <= set(resources[release]["dependsOn"])
    assert yaml.safe_load((folder / "helm" / helm_file).read_text())["skipCrds"] is True
    if custom is not None:
        name, kind = custom
        (crd,) = [c for c, k in pinned.kinds().items() if k == kind]
        # Its own kind's CRD, not the chart's others.
        assert mine & set(resources[name]["dependsOn"]) == {f"{crds_prefix}-crd-{chart_crds.resource_part(crd)}"}


# Charts with crds/ that Pulumi does not take over, and why (builders/chart_crds.py CHARTS).
NOT_PINNED = {
    "karpenter": "the karpenter-crd release renders the same CRDs as templates; the karpenter release skips crds/",
    "nvidia-device-plugin": "only its node-feature-discovery subchart has crds/, and that subchart is off",
}


def test_every_release_whose_chart_keeps_crds_in_crds_folders_leaves_them_to_pulumi(plans):
    # In every stack: a chart (or subchart) with a crds/ folder is pinned and its release skips crds/, or is listed
    # above with the reason. A chart bump fails here until its new CRD files are pinned.
    seen = set()
    for stack, (_, folder) in plans.items():
        for path in sorted((folder / "helm").rglob("*.yaml")):
            rel = yaml.safe_load(path.read_text())
            chart = rel["chart"].rsplit("/", 1)[-1]
            chart_dir = shared_path("charts", chart, rel["version"])
            has_crds = any((c.parent / "crds").is_dir() for c in chart_dir.rglob("Chart.yaml"))
            if not has_crds:
                continue
            seen.add(chart)
            if chart in NOT_PINNED:
                continue
            assert chart_crds.for_chart(chart, rel["version"]) is not None, (stack, chart, rel["version"])
            assert rel.get("skipCrds") is True, (stack, path.name)
    assert seen == {"kuberay-operator", "aws-load-balancer-controller", "kube-prometheus-stack", *NOT_PINNED}
