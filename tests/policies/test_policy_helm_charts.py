"""Release objects of the Ollama and Open WebUI charts read as the pod each chart renders from its defaults
(policies/helm_charts.py, components/helm_charts.toml), so the pod rules reach servers written as a Flux HelmRelease,
an Argo CD Application or a k3s HelmChart.

Firing forms: spent set 91 devantler/oci-artifacts k8s/ollama/release.yaml and k8s/open-webui/release.yaml (Flux
HelmRelease, ollama chart 0.54.0 with persistence off by an envsubst default and no resources; open-webui chart 3.1.6
with no image tag, no probes and a literal OPENAI_API_KEY), spent set 79 xwwai/llm-on-k3s@eb54de27:
manifests/xww/ollama.yml (k3s HelmChart valuesContent, no resources). Chart facts: otwld/ollama-helm
values.yaml:22-30,155-165,174-203,260-262 and templates/deployment.yaml:57,63-137@ollama-0.54.0; open-webui/helm-charts
charts/open-webui/values.yaml:36-38,47,57-58 and templates/workload-manager.yaml:57-115@open-webui-3.1.6.
"""

from __future__ import annotations

import copy

from components.helm_charts import chart_named, charts
from policies import evaluate
from policies.framework import Resource
from policies.helm_charts import chart_pod_specs
from policies.kube import pod_specs

HR_TYPE = "kubernetes:helm.toolkit.fluxcd.io/v2:HelmRelease"
K3S_TYPE = "kubernetes:helm.cattle.io/v1:HelmChart"


def _release(chart: str, version: str, values: dict, name: str = "") -> dict:
    return {
        "apiVersion": "helm.toolkit.fluxcd.io/v2",
        "kind": "HelmRelease",
        "metadata": {"name": name or chart},
        "spec": {"chart": {"spec": {"chart": chart, "version": version}}, "values": values},
    }


OLLAMA = _release(
    "ollama",
    "0.54.0",
    {
        "persistentVolume": {"enabled": "${ollama_persistence_enabled:=false}"},
        "resources": {"requests": {"cpu": "${ollama_cpu_request:=}"}, "limits": {"memory": "${ollama_memory_limit:=}"}},
    },
)
OPEN_WEBUI = _release(
    "open-webui",
    "3.1.6",
    {
        "ollama": {"enabled": False},
        "ollamaUrls": ["http://ollama.ollama:11434"],
        "extraEnvVars": [{"name": "OPENAI_API_KEY", "value": "0p3n-w3bu!"}],
    },
)
K3S = {
    "apiVersion": "helm.cattle.io/v1",
    "kind": "HelmChart",
    "metadata": {"name": "ollama", "namespace": "kube-system"},
    "spec": {
        "repo": "https://otwld.github.io/ollama-helm/",
        "chart": "ollama",
        "version": "0.1.32",
        "valuesContent": "persistentVolume:\n  enabled: ture\n  size: 30Gi\n",
    },
}


def _findings(*objects: tuple[str, str, dict]) -> list:
    return [v for v in evaluate([Resource(t, n, o) for t, n, o in objects]) if v.resource in {n for _, n, _ in objects}]


def _ids(findings: list, policy: str) -> list:
    return [v for v in findings if v.policy == policy]


def test_table_rows_load_with_sources():
    rows = {c.key: c for c in charts()}
    assert {"ollama", "open-webui"} <= set(rows)
    assert rows["ollama"].default_tag("0.54.0") == "0.3.6"  # Chart.yaml appVersion@ollama-0.54.0
    assert rows["open-webui"].default_tag("3.1.6") == "latest"  # values.yaml:38@open-webui-3.1.6
    assert rows["open-webui"].default_tag("16.0.0") == "0.11.0"  # appVersion@open-webui-16.0.0
    assert all(c.sources for c in rows.values())
    assert chart_named("oci://ghcr.io/otwld/ollama-helm/ollama") is rows["ollama"]
    assert chart_named("app-template") is None


def test_ollama_release_renders_chart_defaults():
    [(path, pod)] = chart_pod_specs(OLLAMA)
    assert path == "spec.values[ollama chart 0.54.0 defaults]"
    [container] = pod["containers"]
    assert container["image"] == "ollama/ollama:0.3.6"
    assert container["readinessProbe"]["httpGet"]["path"] == "/"
    assert pod["volumes"][0] == {"name": "ollama-data", "emptyDir": {}}  # ${...:=false} is the boolean false
    assert container["volumeMounts"][0]["mountPath"] == "/root/.ollama"
    assert container["resources"] == {"requests": {}, "limits": {}}  # empty substitutions: not written
    assert pod_specs(Resource(HR_TYPE, "ollama", OLLAMA))


def test_ollama_release_fires_store_and_resources():
    found = _findings((HR_TYPE, "ollama", OLLAMA))
    assert _ids(found, "ollama-model-store-lasts")
    assert _ids(found, "serving-resource-requests") and _ids(found, "serving-memory-limit")
    assert all(v.enforcement == "advisory" for v in found)
    assert all("ollama chart 0.54.0 defaults" in v.message for v in _ids(found, "ollama-model-store-lasts"))


def test_ollama_careful_release_stays_silent():
    careful = copy.deepcopy(OLLAMA)
    careful["spec"]["values"] = {
        "persistentVolume": {"enabled": True, "existingClaim": "ollama-models"},
        "ollama": {"gpu": {"enabled": True, "number": 1}, "models": {"pull": ["llama3.2:3b"]}},
        "resources": {"requests": {"cpu": "2", "memory": "8Gi"}, "limits": {"memory": "8Gi"}},
    }
    [(_, pod)] = chart_pod_specs(careful)
    assert pod["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == 1
    found = _findings((HR_TYPE, "ollama", careful))
    for policy in ("ollama-model-store-lasts", "serving-resource-requests", "serving-memory-limit", "image-tag-pinned"):
        assert not _ids(found, policy), policy


def test_open_webui_release_fires_tag_probe_key_secret():
    found = _findings((HR_TYPE, "open-webui", OPEN_WEBUI))
    for policy in ("image-tag-pinned", "serving-readiness-probe", "chat-ui-auth-kept", "no-literal-secret-env"):
        assert _ids(found, policy), policy
    assert all(v.enforcement == "advisory" for v in found if "defaults]" in v.message)  # the chart pod: advice


def test_open_webui_careful_release_stays_silent():
    careful = copy.deepcopy(OPEN_WEBUI)
    careful["spec"]["chart"]["spec"]["version"] = "16.0.0"
    careful["spec"]["values"].update(
        {
            "extraEnvVars": [{"name": "WEBUI_SECRET_KEY", "valueFrom": {"secretKeyRef": {"name": "owui", "key": "key"}}}],
            "readinessProbe": {"httpGet": {"path": "/health", "port": "http"}},
            "livenessProbe": {"httpGet": {"path": "/health", "port": "http"}},
            "resources": {"requests": {"cpu": "100m", "memory": "1Gi"}, "limits": {"memory": "2Gi"}},
        }
    )
    found = _findings((HR_TYPE, "open-webui", careful))
    for policy in ("image-tag-pinned", "serving-readiness-probe", "chat-ui-auth-kept", "no-literal-secret-env"):
        assert not _ids(found, policy), policy


def test_k3s_helmchart_values_content_and_unread_version():
    [(path, pod)] = chart_pod_specs(K3S)
    assert path == "spec.valuesContent[ollama chart 0.1.32 defaults]"
    assert pod["volumes"][0]["persistentVolumeClaim"]  # "ture" is a non-empty string: true to Helm
    # 0.1.32 is no tag of otwld/ollama-helm: the closest version read below it (0.1.2, appVersion 0.1.11)
    assert pod["containers"][0]["image"] == "ollama/ollama:0.1.11"
    found = _findings((K3S_TYPE, "ollama", K3S))
    assert _ids(found, "serving-resource-requests")
    assert not _ids(found, "image-tag-pinned")  # a pinned chart version the table has not read pins its appVersion
    assert not _ids(found, "container-can-start")


def test_unpinned_chart_version_and_bad_input():
    unpinned = _release("ollama", ">=1.0.0", {})
    [(_, pod)] = chart_pod_specs(unpinned)
    # the newest chart installs (Flux's default *), with its appVersion: the range is G1 chart-version-pinned's finding
    assert pod["containers"][0]["image"] == f"ollama/ollama:{chart_named('ollama').newest_tag()}"
    assert chart_pod_specs(_release("app-template", "4.0.0", {})) == []
    assert chart_pod_specs({"kind": "HelmChart", "spec": {"chart": "ollama", "valuesContent": "a: [unclosed"}}) == []
    assert chart_pod_specs({"kind": "HelmRelease", "spec": {"chart": {"spec": {"chart": "ollama"}}, "values": [1]}})
    ref = {"kind": "HelmRelease", "spec": {"chartRef": {"kind": "OCIRepository", "name": "ollama"}, "values": {}}}
    assert chart_pod_specs(ref) == []
    # review51b: values lists written as other shapes never raise (TypeError: 'int' object is not iterable at main)
    odd = {"ollama": {"models": {"pull": 5, "run": {"a": 1}}}, "volumeMounts": 9, "volumes": "x"}
    [(_, pod)] = chart_pod_specs(_release("ollama", "0.54.0", odd))
    assert [v["name"] for v in pod["volumes"]] == ["ollama-data"] and "lifecycle" not in pod["containers"][0]


def test_open_webui_renders_its_ollama_dependency_unless_disabled():
    bundled = copy.deepcopy(OPEN_WEBUI)
    bundled["spec"]["values"]["ollama"] = {"persistentVolume": {"enabled": True}, "ollama": {"models": {"pull": ["llama3"]}}}
    pods = chart_pod_specs(bundled)
    assert [p for p, _ in pods][1] == "spec.values.ollama[ollama chart >=0.24.0 defaults, open-webui's dependency]"
    assert pods[1][1]["containers"][0]["image"] == f"ollama/ollama:{chart_named('ollama').newest_tag()}"  # a range: the newest
    assert "lifecycle" in pods[1][1]["containers"][0]
    assert len(chart_pod_specs(OPEN_WEBUI)) == 1  # ollama.enabled false


def test_argo_application_sources_and_values_elsewhere():
    app = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": "ollama"},
        "spec": {
            "sources": [
                {
                    "repoURL": "https://otwld.github.io/ollama-helm/",
                    "chart": "ollama",
                    "targetRevision": "1.77.0",
                    "helm": {"values": "persistentVolume:\n  enabled: true\n"},
                },
                {"repoURL": "https://github.com/example/gitops", "ref": "values"},
            ]
        },
    }
    [(path, pod)] = chart_pod_specs(app)
    assert path == "spec.sources[0].helm.values[ollama chart 1.77.0 defaults]"
    assert pod["containers"][0]["image"] == "ollama/ollama:0.32.15"  # appVersion@ollama-1.77.0
    app["spec"]["sources"][0]["helm"] = {"valueFiles": ["$values/ollama.yaml"]}
    assert chart_pod_specs(app) == []
    flux = copy.deepcopy(OLLAMA)
    flux["spec"]["valuesFrom"] = [{"kind": "ConfigMap", "name": "ollama-values"}]
    assert chart_pod_specs(flux) == []


def test_ollama_post_start_hook_waits_from_chart_0_59():
    # Review 54a: from chart 0.59.0 the hook loops on `ollama ps` before it pulls (otwld/ollama-helm
    # templates/deployment.yaml:141-150@ollama-0.59.0); G48 was told every 1.x and unpinned release pulls at once.
    for version, waits in (("0.54.0", False), ("0.58.0", False), ("0.59.0", True), ("1.24.0", True), (">=1.0.0", True)):
        release = _release("ollama", version, {"ollama": {"models": {"pull": ["llama3.2:3b"]}}})
        [(_, pod)] = chart_pod_specs(release)
        [_, _, command] = pod["containers"][0]["lifecycle"]["postStart"]["exec"]["command"]
        assert command.startswith("while ! /bin/ollama ps") is waits, version
        assert bool(_ids(_findings((HR_TYPE, "ollama", release)), "post-start-hook-waits")) is not waits, version
