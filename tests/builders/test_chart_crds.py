"""Charts whose CRDs sit in crds/ (which Helm never upgrades) get them as Pulumi resources instead (builders/chart_crds.py)."""

from __future__ import annotations

import hashlib

from components.builders import chart_crds, kuberay_operator
from tests.conftest import shared_path


def test_the_pinned_crd_files_are_the_charts_crds_byte_for_byte():
    crds = chart_crds.KUBERAY_OPERATOR
    folder = shared_path("charts", crds.chart, crds.version, "crds")
    on_disk = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.glob("*.yaml")}
    pinned = {f.path.rsplit("/", 1)[-1]: f.sha256 for f in crds.files}
    # Every CRD of the chart, none missing (the operator watches all four kinds), none altered.
    assert pinned == on_disk
    assert all(
        crds.url(f).startswith(f"https://raw.githubusercontent.com/ray-project/kuberay/{crds.commit}/") for f in crds.files
    )
    assert [crds.name(f) for f in crds.files] == ["rayclusters", "raycronjobs", "rayjobs", "rayservices"]


def test_the_kuberay_release_leaves_its_crds_to_pulumi():
    # Helm applies crds/ on install only and never upgrades them: one owner, Pulumi, with the chart's CRDs skipped.
    from components.config import KubeRayConfig

    rel = kuberay_operator.operator_release(KubeRayConfig())
    assert rel["skipCrds"] is True


def test_prod_registers_each_crd_before_the_operator_release():
    # Pulumi applies them on every `up` (a chart bump upgrades them), before the release that runs the operator, and
    # keeps them on delete (deleting a CRD deletes every custom resource of its kind in the cluster).
    from stacks.offline import load_stack_file, run_program

    recording = run_program(load_stack_file("prod"))
    crds = chart_crds.KUBERAY_OPERATOR
    files = {r.name: r for r in recording.resources if r.type == "kubernetes:yaml/v2:ConfigFile"}
    assert {r.inputs.get("file") for r in files.values()} == {crds.url(f) for f in crds.files}
    (release,) = [r for r in recording.resources if r.name == "prod-kuberay-operator"]
    assert set(files) <= set(release.dependencies)
    assert release.inputs.get("skipCrds") is True
