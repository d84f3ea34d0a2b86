"""Session 53 (brief dup53): a chart vendored in the repository and the Flux HelmRelease that installs it, one report.

Fires once, on the release (spent set 107, cut down): BSFishy/k8s-homelab@fb0cbd27
kubernetes/apps/ai/local-ai/app/helmrelease.yaml installs the folder kubernetes/apps/ai/local-ai/chart of its
GitRepository, a copy of go-skynet's local-ai chart 3.4.2 whose deployment template renders no probe and, by default,
no resources (templates/deployment.yaml there). G4, G8 and G10 were reported on the release and again on the copy's
template rendered with its own values.yaml. Careful forms keep their findings: the chart folder checked alone, a
release of the published chart from a HelmRepository beside the folder, a release of another folder.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from policies.check import main
from policies.vendored_releases import release_folder
from tests.policies.policy_fixtures import chart_folder

G4, G8, G10, G18 = "serving-readiness-probe", "serving-resource-requests", "serving-memory-limit", "serving-app-pdb"

CHART = "apiVersion: v2\nname: local-ai\nversion: 3.4.2\nappVersion: '2.23'\n"
VALUES = "replicaCount: 1\ndeployment:\n  image:\n    repository: quay.io/go-skynet/local-ai\n    tag: latest\nresources: {}\n"
# The copy's deployment template, cut down to the fields the pod rules read (no probe, resources from values).
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-local-ai
spec:
  replicas: {{ .Values.replicaCount }}
  selector:
    matchLabels: {app.kubernetes.io/name: local-ai}
  template:
    metadata:
      labels: {app.kubernetes.io/name: local-ai}
    spec:
      containers:
        - name: {{ .Release.Name }}-local-ai
          image: "{{ .Values.deployment.image.repository }}:{{ .Values.deployment.image.tag }}"
          resources:
            {{- toYaml .Values.resources | nindent 12 }}
          ports:
            - containerPort: 8080
"""
RELEASE = """apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: local-ai
spec:
  interval: 30m
  chart:
    spec:
      chart: {path}
      sourceRef:
        kind: {source}
        name: flux-system
        namespace: flux-system
  values:
    deployment:
      image:
        repository: quay.io/go-skynet/local-ai
        tag: latest
      env:
        LOCALAI_EXTERNAL_BACKENDS: "llama-cpp"
"""


def _repo(
    root: Path, path: str = "kubernetes/apps/ai/local-ai/chart", source: str = "GitRepository", release: bool = True
) -> Path:
    app = root / "kubernetes" / "apps" / "ai" / "local-ai"
    chart_folder(app / "chart", {"deployment.yaml": DEPLOYMENT}, VALUES, CHART)
    if release:
        (app / "app").mkdir()
        (app / "app" / "helmrelease.yaml").write_text(RELEASE.format(path=path, source=source))
    return root


def _found(path: Path, capsys: pytest.CaptureFixture[str]) -> list[tuple[str, str]]:
    """(policy, where: "release" or "copy") of each finding of a run over ``path``."""
    main([str(path), "--format", "json"])
    rows = json.loads(capsys.readouterr().out)["violations"]
    # A finding on the copy's rendered pod is on its template, or on the values.yaml key that gave the field
    # (policies/value_paths.py: `resources: {}`), its message naming the template.
    return [
        (r["policy"], "copy" if "templates" in Path(r["file"]).parts or "(rendered by templates/" in r["message"] else "release")
        for r in rows
        if r.get("file")
    ]


@pytest.mark.parametrize("rule", [G4, G8, G10])
def test_a_pod_rule_reports_a_vendored_chart_once_on_its_release(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], rule: str
) -> None:
    found = _found(_repo(tmp_path), capsys)
    assert [where for policy, where in found if policy == rule] == ["release"]


def test_a_rule_only_the_copy_reports_stays_on_the_copy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The release reading judges the chart's pod, not a PodDisruptionBudget of the run: only the copy says G18.
    assert (G18, "copy") in _found(_repo(tmp_path), capsys)


def test_a_run_from_inside_the_repository_matches_by_the_absolute_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _repo(tmp_path)
    monkeypatch.chdir(tmp_path / "kubernetes" / "apps" / "ai" / "local-ai")
    found = _found(Path("."), capsys)
    assert [where for policy, where in found if policy == G4] == ["release"]


def test_the_chart_folder_alone_keeps_its_findings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    found = _found(_repo(tmp_path, release=False), capsys)
    assert {(G4, "copy"), (G8, "copy"), (G10, "copy")} <= set(found)


@pytest.mark.parametrize(
    "path, source",
    [
        ("local-ai", "HelmRepository"),  # the published chart: not this folder, so the copy is not what it installs
        ("kubernetes/apps/ai/other/local-ai/chart", "GitRepository"),  # another folder of the repository
    ],
)
def test_a_release_of_another_chart_leaves_the_copy_its_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], path: str, source: str
) -> None:
    found = _found(_repo(tmp_path, path=path, source=source), capsys)
    assert (G4, "copy") in found


def test_the_release_folder_is_read_from_a_git_or_bucket_source_only() -> None:
    release = {
        "kind": "HelmRelease",
        "spec": {"chart": {"spec": {"chart": "./charts/local-ai/", "sourceRef": {"kind": "Bucket", "name": "b"}}}},
    }
    assert release_folder(release) == ("charts", "local-ai")
    release["spec"]["chart"]["spec"]["sourceRef"]["kind"] = "HelmRepository"
    assert release_folder(release) == ()
    assert release_folder({"kind": "Deployment"}) == ()
