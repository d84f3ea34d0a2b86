"""G1 chart-version-pinned: a release of a model-serving chart names one chart version.

Firing form: spent set 111 MntDew1031/k3s-ai-stack@011d99325a02a2666b25ad77dc6a901e38715edf
clusters/main-cluster/ai-stack/open-webui.yaml, a Flux HelmRelease of open-webui at ``version: "3.x.x"`` (labelled
`none`: no row said it). Careful forms: a pinned version, a chart from a GitRepository (Flux ignores the version), a
chart that serves no model (cert-manager), an Argo CD Application pinned, a k3s HelmChart from an archive URL.
"""

from __future__ import annotations

from policy_fixtures import found_by

POLICY = "chart-version-pinned"


def flux(chart="open-webui", version="3.x.x", source="HelmRepository"):
    spec = {"chart": chart, "sourceRef": {"kind": source, "name": chart}}
    if version is not None:
        spec["version"] = version
    return {
        "apiVersion": "helm.toolkit.fluxcd.io/v2",
        "kind": "HelmRelease",
        "metadata": {"name": chart, "namespace": "ai-stack"},
        "spec": {"interval": "1h", "chart": {"spec": spec}, "values": {"service": {"type": "NodePort"}}},
    }


def argo(revision="1.*"):
    source = {"repoURL": "https://otwld.github.io/ollama-helm/", "chart": "ollama", "targetRevision": revision}
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": "ollama"},
        "spec": {"source": source},
    }


def k3s(chart="vllm-stack", version=None, repo="https://vllm-project.github.io/production-stack"):
    spec = {"chart": chart, "repo": repo}
    if version is not None:
        spec["version"] = version
    return {"apiVersion": "helm.cattle.io/v1", "kind": "HelmChart", "metadata": {"name": "vllm"}, "spec": spec}


def test_spent_set_111_range_fires():
    ((level, message),) = found_by([flux()], POLICY)
    assert level == "advisory"
    assert message.startswith("spec.chart.spec.version '3.x.x' is a range for chart open-webui (open-webui): Flux installs")


def test_unset_and_other_release_kinds():
    ((_, message),) = found_by([flux(version=None)], POLICY)
    assert message.startswith("spec.chart.spec.version is unset for chart open-webui")
    ((_, message),) = found_by([argo()], POLICY)
    assert message.startswith("spec.source.targetRevision '1.*' is a range for chart ollama")
    ((_, message),) = found_by([k3s()], POLICY)
    assert message.startswith("spec.version is unset for chart vllm-stack")
    for version in (">=1.0.0 <2.0.0", "^1.2", "~1.2.0", "*", "1.2.X"):
        assert len(found_by([flux(version=version)], POLICY)) == 1, version


def test_careful_forms_are_silent():
    assert found_by([flux(version="3.1.6")], POLICY) == []
    assert found_by([flux(version="v1.4.0-rc.1")], POLICY) == []  # a pre-release, one version
    assert found_by([flux(source="GitRepository", version=None)], POLICY) == []  # Flux ignores the version
    assert found_by([flux(chart="cert-manager", version="1.x")], POLICY) == []  # serves no model
    assert found_by([argo("1.77.0")], POLICY) == []
    assert found_by([k3s(version="0.1.5")], POLICY) == []
    assert found_by([k3s(chart="https://example.org/charts/vllm-stack-0.1.5.tgz", repo="")], POLICY) == []
    embedded = k3s()  # review 54a: k3s installs the archive spec.chartContent carries, one chart version
    embedded["spec"]["chartContent"] = "H4sIAAAAAAAA/+zSQQ6CMBCF4a5dCiklTk43"
    assert found_by([embedded], POLICY) == []


def test_bad_input_is_silent():
    broken = flux()
    broken["spec"]["chart"]["spec"]["chart"] = ["open-webui"]
    assert found_by([broken], POLICY) == []
    broken["spec"]["chart"] = "open-webui"
    assert found_by([broken], POLICY) == []
    app = argo()
    app["spec"]["sources"] = "x"
    assert len(found_by([app], POLICY)) == 1


def test_argo_source_beside_sources_is_ignored():
    # "When you specify the `sources` field, Argo CD will ignore the `source` (singular) field" (argo-cd v3.5.1
    # docs/user-guide/multiple_sources.md:9-10): a migrated app's old source at a range is not what Argo CD installs.
    app = argo("1.*")
    app["spec"]["sources"] = [dict(app["spec"]["source"], targetRevision="1.77.0")]
    assert found_by([app], POLICY) == []
    app["spec"]["sources"][0]["targetRevision"] = "1.*"
    ((_, message),) = found_by([app], POLICY)
    assert message.startswith("spec.sources[0].targetRevision '1.*' is a range")
