"""G107 chart-value-unread: a Helm release value the chart never reads (misspelt, misplaced or the wrong type).

Fires (spent-set forms, labels filed none):
- set 99 mitchross/k8s-homelab-cluster-v2@912ae3a6db7091c8e2eabb16ac6f800e785687bd
  kubernetes/apps/default/ollama/backend/helmrelease.yaml: ``ollama.runtimeClassName`` and ``ollama.serviceAccount``
  (otwld ollama chart reads them top-level: templates/deployment.yaml, values.yaml:55,89@ollama-0.25.0),
  ``service.main`` / ``ingress.main`` (app-template shapes);
- set 99 mitchross/k8s-homelab-cluster-v2@912ae3a6 kubernetes/apps/default/localai/app/helmrelease.yaml (local-ai
  3.2.0): ``deployment.image`` a string while templates/deployment.yaml:234@local-ai-3.2.0 renders
  deployment.image.repository on every render (blocking: the render fails), ``models.persistence`` (the chart reads
  top-level ``persistence``);
- set 98 gelato/homecluster@076ec6854a0b4d34ef3425f032b957e1ec1b2af1 kubernetes/apps/ai/ollama/backend/helmrelease.yaml
  ``service.main`` on ollama 1.4.0; set 98 amasolov/home-ops@b387824e kubernetes/apps/ai/local-ai/app/helmrelease.yaml
  ``models`` and ``lifecycle`` on local-ai 3.4.2 (no template reads them).
Silent: a release with only keys the chart reads, keys under a path the chart reads whole (podAnnotations, extraEnv,
resources), dependency charts' keys, a release whose values come from valuesFrom.
"""

from __future__ import annotations

import copy

import yaml

from components.chart_value_keys import keys_at
from policies.manifests import read_manifests
from tests.policies.policy_fixtures import found_by

_POLICY = "chart-value-unread"


def _flux(chart: str, version: str | None, values: dict, **spec: object) -> dict:
    source = {"ollama": "ollama-helm", "local-ai": "go-skynet"}.get(chart, "repo")
    chart_spec: dict = {"chart": chart, "sourceRef": {"kind": "HelmRepository", "name": source}}
    if version:
        chart_spec["version"] = version
    return {
        "apiVersion": "helm.toolkit.fluxcd.io/v2",
        "kind": "HelmRelease",
        "metadata": {"name": chart, "namespace": "ai"},
        "spec": {"interval": "30m", "chart": {"spec": chart_spec}, "values": values, **spec},
    }


def test_keys_nested_under_the_wrong_table_are_advice_naming_the_key_the_chart_reads():
    release = _flux(
        "ollama",
        None,
        {
            "image": {"repository": "docker.io/ollama/ollama", "tag": "0.1.34"},
            "ollama": {"gpu": {"enabled": True, "number": 1}, "runtimeClassName": "nvidia", "serviceAccount": {"create": True}},
            "service": {"main": {"type": "LoadBalancer"}},
            "ingress": {"main": {"enabled": True}},
        },
    )
    found = found_by([release], _POLICY)
    assert {level for level, _ in found} == {"advisory"}
    messages = sorted(m for _, m in found)
    assert len(messages) == 4
    assert messages[1].startswith(
        "spec.values.ollama.runtimeClassName is a value chart ollama (version not pinned: any version) never reads "
        "(did you mean runtimeClassName?)"
    )
    assert "spec.values.ollama.serviceAccount is a value" in messages[2] and "did you mean serviceAccount?" in messages[2]
    assert messages[3].startswith("spec.values.service.main is a value chart ollama")
    assert "the chart reads service.{" in messages[3]
    # careful: the same settings where the chart reads them
    kept = _flux(
        "ollama",
        "0.25.0",
        {
            "runtimeClassName": "nvidia",
            "serviceAccount": {"create": True},
            "service": {"type": "LoadBalancer"},
            "podAnnotations": {"any/key": "x"},  # read whole: never judged below
            "resources": {"limits": {"nvidia.com/gpu": 1}, "anything": {"deep": 1}},
            "extraEnv": [{"name": "OLLAMA_KEEP_ALIVE", "value": "-1"}],
            "ollama": {"gpu": {"enabled": True}},
        },
    )
    assert found_by([kept], _POLICY) == []


def test_a_string_where_the_chart_renders_image_repository_breaks_the_render():
    values = {
        "deployment": {"image": "quay.io/go-skynet/local-ai:v2.14.0-cublas-cuda12", "pullPolicy": "IfNotPresent"},
        "models": {"persistence": {"pvc": {"enabled": True, "size": "100Gi"}}},
        "persistence": {"models": {"enabled": True, "size": "10Gi"}},
    }
    found = found_by([_flux("local-ai", "3.2.0", values)], _POLICY)
    blocking = [m for level, m in found if level == "mandatory"]
    assert len(blocking) == 1 and blocking[0].startswith(
        "spec.values.deployment.image is a string, but chart local-ai 3.2.0 reads it as a table "
        "(deployment.image.{repository, tag})"
    )
    assert "can't evaluate field repository in type interface {}" in blocking[0]
    # careful: a sourceRef that names no repository of the chart (and no HelmRepository of the files with its URL)
    unknown = _flux("local-ai", "3.2.0", values)
    unknown["spec"]["chart"]["spec"]["sourceRef"]["name"] = "charts"
    assert {level for level, _ in found_by([unknown], _POLICY)} == {"advisory"}
    repository = {
        "apiVersion": "source.toolkit.fluxcd.io/v1",
        "kind": "HelmRepository",
        "metadata": {"name": "charts", "namespace": "ai"},
        "spec": {"url": "https://go-skynet.github.io/helm-charts/"},
    }
    assert "mandatory" in {level for level, _ in found_by([unknown, repository], _POLICY)}
    [advice] = [m for level, m in found if level == "advisory"]
    assert advice.startswith(
        "spec.values.models.persistence is a value chart local-ai 3.2.0 never reads (did you mean persistence?)"
    )
    # careful: the table the chart reads
    values["deployment"]["image"] = {"repository": "quay.io/go-skynet/local-ai", "tag": "v2.14.0-cublas-cuda12"}
    del values["models"]
    assert found_by([_flux("local-ai", "3.2.0", values)], _POLICY) == []


def test_argo_cd_and_k3s_releases_are_read_and_values_from_elsewhere_are_not_judged():
    application = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": "open-webui", "namespace": "argocd"},
        "spec": {
            "source": {
                "repoURL": "https://helm.openwebui.com",
                "chart": "open-webui",
                "targetRevision": "16.0.0",
                "helm": {
                    "valuesObject": {
                        "ingress": {"enabled": True, "labels": {"team": "ai"}},
                        "ollama": {"enabled": True, "ollama": {"gpu": {"enabled": True}}, "persistentVolume": {"enabled": True}},
                        "pipelines": {"anything": 1},  # a dependency chart the table does not read: never judged
                    }
                },
            },
            "destination": {"server": "https://kubernetes.default.svc", "namespace": "ai"},
        },
    }
    [(level, message)] = found_by([application], _POLICY)
    assert level == "advisory"
    assert message.startswith(
        "spec.source.helm.valuesObject.ingress.labels is a value chart open-webui 16.0.0 never reads "
        "(did you mean ingress.extraLabels?)"
    )
    # the Ollama chart as open-webui's dependency (Chart.yaml dependencies@open-webui-16.0.0): judged against what any
    # version of the ollama chart reads; gpu nested one level too high is reported
    application["spec"]["source"]["helm"]["valuesObject"]["ollama"]["gpu"] = {"enabled": True}
    found = sorted(m for _, m in found_by([application], _POLICY))
    assert len(found) == 2 and found[1].startswith(
        "spec.source.helm.valuesObject.ollama.gpu is a value chart open-webui 16.0.0 (its dependency chart ollama, any "
        "version) never reads (did you mean ollama.ollama.gpu?)"
    )
    helmchart = {
        "apiVersion": "helm.cattle.io/v1",
        "kind": "HelmChart",
        "metadata": {"name": "local-ai", "namespace": "kube-system"},
        "spec": {
            "chart": "local-ai",
            "repo": "https://go-skynet.github.io/helm-charts/",
            "version": "3.4.2",
            "valuesContent": yaml.safe_dump({"deployment": {"image": "localai/localai:latest"}}),
        },
    }
    [(level, _)] = found_by([helmchart], _POLICY)
    assert level == "mandatory"
    config = {
        "apiVersion": "helm.cattle.io/v1",
        "kind": "HelmChartConfig",
        "metadata": {"name": "local-ai", "namespace": "kube-system"},
        "spec": {"valuesContent": "deployment:\n  image:\n    repository: localai/localai\n"},
    }
    [(level, _)] = found_by([helmchart, config], _POLICY)
    assert level == "advisory"  # a HelmChartConfig's values are merged after the release's
    elsewhere = _flux("local-ai", "3.2.0", {"deployment": {"image": "x"}}, valuesFrom=[{"kind": "ConfigMap", "name": "v"}])
    assert found_by([elsewhere], _POLICY) == []


def test_the_table_reads_by_version():
    early, late = keys_at("local-ai", "3.0.0"), keys_at("local-ai", "3.4.2")
    assert early is not None and late is not None
    assert "models.list" in early.read and "models.list" not in late.read
    assert keys_at("ollama", "0.25.0") is not None and "runtimeClassName" in keys_at("ollama", "0.25.0").read
    assert keys_at("no-such-chart", "1.0.0") is None
    anything = keys_at("ollama", "")
    assert anything is not None and "ollama.models.pull" in anything.read


def test_a_release_whose_values_hold_a_go_template_in_a_block_scalar_is_read(tmp_path):
    """A prompt template's ``{{.Input}}`` inside a block scalar of the release's values is the chart's to render, not
    an unrendered manifest (spent set 99 mitchross/k8s-homelab-cluster-v2@912ae3a6
    kubernetes/apps/default/localai/app/helmrelease.yaml ``promptTemplates``); the same action outside a block scalar
    (a template of the manifest itself) still is."""
    text = (
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: localai\n  namespace: ai\nspec:\n"
        "  chart:\n    spec:\n      chart: local-ai\n      version: 3.2.0\n  values:\n"
        "    deployment:\n      image: quay.io/go-skynet/local-ai:v2.14.0\n"
        "    promptTemplates:\n      chat.tmpl: |\n        ### Prompt:\n\n        {{.Input}}\n        ### Response:\n"
    )
    path = tmp_path / "helmrelease.yaml"
    path.write_text(text)
    loaded = read_manifests([str(path)])
    assert len(loaded.objects) == 1 and not loaded.unreadable
    path.write_text(text.replace("      chat.tmpl: |\n", "      chat.tmpl:\n"))
    broken = read_manifests([str(path)])
    assert not broken.objects and [u.kind for u in broken.unreadable] == ["template"]


def test_a_repository_of_the_files_with_another_url_does_not_show_the_chart(tmp_path):
    """review53: a Flux sourceRef named after the chart's repository (``ollama-helm``) whose HelmRepository in the files
    points at another URL is another publisher's chart: the blocking form is advice there; the same name with the
    chart's URL, or with no HelmRepository in the files, still blocks."""
    release = _flux("ollama", "1.4.0", {"image": "ollama/ollama:0.5.1"})
    assert [level for level, _ in found_by([release], _POLICY)] == ["mandatory"]
    repository = {
        "apiVersion": "source.toolkit.fluxcd.io/v1",
        "kind": "HelmRepository",
        "metadata": {"name": "ollama-helm", "namespace": "ai"},
        "spec": {"url": "https://charts.example.com/"},
    }
    [(level, message)] = found_by([release, repository], _POLICY)
    assert level == "advisory" and "does not show the chart's repository" in message
    repository["spec"]["url"] = "https://otwld.github.io/ollama-helm/"
    assert [level for level, _ in found_by([release, repository], _POLICY)] == ["mandatory"]


def test_a_k3s_helmchart_whose_later_values_may_replace_the_string_is_advice():
    """review53: k3s helm-controller hands spec.values and spec.valuesSecrets to Helm as values files after
    valuesContent (k3s-io/helm-controller v0.16.20 pkg/apis/helm.cattle.io/v1/types.go:65,71; v0.17.7
    pkg/controllers/chart/chart.go:1321-1350, values-0-000-HelmChart-ValuesContent.yaml then -001-HelmChart-Values,
    then the secrets' files), and Helm merges a later file's table over an earlier string (helm v3.17.0
    pkg/cli/values/options.go:108-125 mergeMaps): the string may not reach the template."""
    helmchart = {
        "apiVersion": "helm.cattle.io/v1",
        "kind": "HelmChart",
        "metadata": {"name": "local-ai", "namespace": "kube-system"},
        "spec": {
            "chart": "local-ai",
            "repo": "https://go-skynet.github.io/helm-charts/",
            "version": "3.4.2",
            "valuesContent": yaml.safe_dump({"deployment": {"image": "localai/localai:latest"}}),
        },
    }
    assert [level for level, _ in found_by([helmchart], _POLICY)] == ["mandatory"]
    with_values = copy.deepcopy(helmchart)
    with_values["spec"]["values"] = {"deployment": {"image": {"repository": "localai/localai", "tag": "latest"}}}
    assert [level for level, _ in found_by([with_values], _POLICY)] == ["advisory"]
    with_secrets = copy.deepcopy(helmchart)
    with_secrets["spec"]["valuesSecrets"] = [{"name": "local-ai-values", "keys": ["values.yaml"]}]
    assert [level for level, _ in found_by([with_secrets], _POLICY)] == ["advisory"]


def test_a_version_newer_than_the_newest_read_is_judged_only_as_advice_on_the_table_form():
    """Templates of a version above the table's ``newest`` were not read: they may read a key added since (NVIDIA's
    nim-llm is on NGC up to 1.15, its sources stop at 1.1.2), and may no longer dereference the table (review54c)."""
    nim = {"model": {"ngcAPISecret": "ngc-api"}, "runtimeClassName": "nvidia", "updateStrategy": {"type": "OnDelete"}}
    assert [level for level, _ in found_by([_flux("nim-llm", "1.1.2", nim)], _POLICY)] == ["advisory", "advisory"]
    assert found_by([_flux("nim-llm", "1.15.0", nim)], _POLICY) == []
    values = {"deployment": {"image": "quay.io/go-skynet/local-ai:v2.14.0"}, "lifecycle": {"x": 1}}
    [(level, message)] = found_by([_flux("local-ai", "3.5.0", values)], _POLICY)
    assert level == "advisory"
    assert message.endswith("(if chart 3.5.0 still reads it so: it is newer than the chart read)")
    assert keys_at("nim-llm", "1.15.0").beyond_read and not keys_at("nim-llm", "1.1.2").beyond_read
