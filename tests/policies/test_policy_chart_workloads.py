"""Releases of the vLLM production stack chart (vllm-stack) and LocalAI's chart (local-ai) read as the Deployments the
charts render (policies/chart_workloads.py, rows in components/helm_charts.toml), so the pod rules (G1, G4, G8, G35,
S36), the rollout rule (S30) and the Service rule (G32) reach them.

Firing forms: spent set 98 amasolov/home-ops@b387824e33dd3cc6e98d8fa4acba38ff2010221e
kubernetes/apps/ai/vllm/app/helmrelease.yaml (vllm-stack 0.1.5, image tag latest, --api-key literal in
vllmConfig.extraArgs, pvcStorage 50Gi, no readiness probe) and kubernetes/apps/ai/local-ai/app/helmrelease.yaml
(local-ai 3.4.2, deployment.env debug true, resources only gpu.intel.com/i915, ReadWriteOnce persistence, service.type
LoadBalancer). Chart facts: vllm-project/production-stack helm/templates/deployment-vllm-multi.yaml:13-393,
_helpers.tpl:38-47,78-118, values.yaml:173-204, pvc.yaml:12-17@vllm-stack-0.1.5 (readinessProbe from
_helpers.tpl:99-103@vllm-stack-0.1.8); go-skynet/helm-charts charts/local-ai/templates/deployment.yaml:11-16,171-208,
values.yaml:1-9,97-121, service.yaml:15@local-ai-3.4.2.
"""

from __future__ import annotations

import copy

from components.helm_charts import chart_named
from policies import evaluate
from policies.framework import Resource
from policies.helm_charts import chart_pod_specs, chart_workloads

HR_TYPE = "kubernetes:helm.toolkit.fluxcd.io/v2:HelmRelease"
APP_TYPE = "kubernetes:argoproj.io/v1alpha1:Application"
PVC_TYPE = "kubernetes:core/v1:PersistentVolumeClaim"


def _release(chart: str, version: str, values: dict, name: str) -> dict:
    return {
        "apiVersion": "helm.toolkit.fluxcd.io/v2",
        "kind": "HelmRelease",
        "metadata": {"name": name},
        "spec": {"chart": {"spec": {"chart": chart, "version": version}}, "values": values},
    }


VLLM = _release(  # spent set 98 amasolov/home-ops kubernetes/apps/ai/vllm/app/helmrelease.yaml
    "vllm-stack",
    "0.1.5",
    {
        "routerSpec": {"enableRouter": False, "replicaCount": 0},
        "servingEngineSpec": {
            "runtimeClassName": "",
            "modelSpec": [
                {
                    "name": "nm-llama-31-8b",
                    "repository": "quay.io/rhn_support_amasolov/vllm-cpu-only",
                    "tag": "latest",
                    "modelURL": "neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8",
                    "replicaCount": 1,
                    "requestCPU": 2,
                    "requestMemory": "16Gi",
                    "requestGPU": 0,
                    "pvcStorage": "50Gi",
                    "vllmConfig": {
                        "extraArgs": ["--api-key", "token-abc123", "--chat-template", "./examples/template_chatml.jinja"],
                        "enableChunkedPrefill": False,
                        "enablePrefixCaching": False,
                        "maxModelLen": 16384,
                    },
                    "env": [
                        {"name": "VLLM_RPC_TIMEOUT", "value": "1800000"},
                        {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "vllm-secret", "key": "HF_TOKEN"}}},
                    ],
                }
            ],
        },
    },
    "vllm",
)
LOCAL_AI = _release(  # spent set 98 amasolov/home-ops kubernetes/apps/ai/local-ai/app/helmrelease.yaml
    "local-ai",
    "3.4.2",
    {
        "replicaCount": 1,
        "deployment": {
            "image": {"repository": "quay.io/go-skynet/local-ai", "tag": "v2.29.0-aio-gpu-intel-f32"},
            "env": {"debug": True, "threads": 4, "context_size": 512},
        },
        "resources": {"requests": {"gpu.intel.com/i915": 1}, "limits": {"gpu.intel.com/i915": 1}},
        "persistence": {
            "models": {"enabled": True, "storageClass": "ceph-block", "accessModes": ["ReadWriteOnce"], "size": "50Gi"},
            "output": {"enabled": True, "accessModes": ["ReadWriteOnce"], "size": "10Gi", "storageClass": "ceph-block"},
        },
        "service": {"type": "LoadBalancer", "ports": {"http": {"port": 8080}}},
    },
    "local-ai",
)


def _findings(*objects: tuple[str, str, dict]) -> list:
    return [v for v in evaluate([Resource(t, n, o) for t, n, o in objects]) if v.resource in {n for _, n, _ in objects}]


def _catalog(findings: list) -> set:
    return {v.catalog for v in findings}


def test_rows_load_with_probes_by_version():
    vllm, local = chart_named("vllm-stack"), chart_named("local-ai")
    assert vllm is not None and local is not None
    assert vllm.probes_at("0.1.5") == ("startupProbe", "livenessProbe")  # no readinessProbe before 0.1.8
    assert "readinessProbe" in vllm.probes_at("0.1.8") and "readinessProbe" in vllm.probes_at("")
    assert local.default_tag("3.4.2") == "latest" and local.probes == ()
    assert vllm.sources and local.sources


def test_vllm_stack_release_renders_the_engine_deployment():
    [(where, pod)] = chart_pod_specs(VLLM)
    assert where == "spec.values.servingEngineSpec.modelSpec[0][vllm-stack chart 0.1.5 defaults]"
    [container] = pod["containers"]
    assert container["image"] == "quay.io/rhn_support_amasolov/vllm-cpu-only:latest"
    assert container["command"][:3] == ["vllm", "serve", "neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8"]
    assert "--max-model-len" in container["command"] and "token-abc123" in container["command"]
    assert container["startupProbe"]["failureThreshold"] == 60 and "readinessProbe" not in container
    assert container["resources"] == {"requests": {"memory": "16Gi", "cpu": 2}}
    assert pod["volumes"][0]["persistentVolumeClaim"]["claimName"] == "vllm-nm-llama-31-8b-storage-claim"
    assert "runtimeClassName" not in pod
    [(_, workload)] = chart_workloads(VLLM)
    assert workload.claims == {"vllm-nm-llama-31-8b-storage-claim": ["ReadWriteOnce"]}
    assert workload.strategy == {"rollingUpdate": {"maxSurge": "100%", "maxUnavailable": 0}}


def test_vllm_stack_spent_form_fires():
    found = _findings((HR_TYPE, "vllm", VLLM))
    assert {"G1", "G4", "G35", "S30"} <= _catalog(found)
    assert all(v.enforcement == "advisory" for v in found if v.catalog in {"G1", "G4", "G35", "S30"})


def test_vllm_stack_careful_release_stays_silent():
    careful = copy.deepcopy(VLLM)
    careful["spec"]["chart"]["spec"]["version"] = "0.1.8"  # renders the readiness probe by default
    engine = careful["spec"]["values"]["servingEngineSpec"]
    engine["strategy"] = {"type": "Recreate"}
    engine["vllmApiKey"] = {"secretName": "vllm-api", "secretKey": "key"}
    spec = engine["modelSpec"][0]
    spec["repository"], spec["tag"] = "vllm/vllm-openai", "v0.10.1"
    spec["vllmConfig"]["extraArgs"] = ["--chat-template", "./examples/template_chatml.jinja"]
    found = _findings((HR_TYPE, "vllm", careful))
    assert not {"G1", "G4", "G35", "S30"} & _catalog(found)
    shared = copy.deepcopy(careful)
    del shared["spec"]["values"]["servingEngineSpec"]["strategy"]
    shared["spec"]["values"]["servingEngineSpec"]["modelSpec"][0]["pvcAccessMode"] = ["ReadWriteMany"]
    assert "S30" not in _catalog(_findings((HR_TYPE, "vllm", shared)))


def test_local_ai_release_renders_env_claims_and_service():
    [(where, pod)] = chart_pod_specs(LOCAL_AI)
    assert where == "spec.values[local-ai chart 3.4.2 defaults]"
    [container] = pod["containers"]
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert env["DEBUG"] == "true" and env["THREADS"] == "4" and env["MODELS_PATH"] == "/models"
    assert not any(k.endswith("Probe") for k in container)  # the chart renders none for the main container
    [(_, workload)] = chart_workloads(LOCAL_AI)
    assert workload.claims == {"local-ai-models": ["ReadWriteOnce"], "local-ai-output": ["ReadWriteOnce"]}
    assert workload.service == "LoadBalancer" and workload.strategy == {}


def test_local_ai_spent_form_fires():
    found = _findings((HR_TYPE, "local-ai", LOCAL_AI))
    assert {"S36", "G8", "G4", "S30", "G32"} <= _catalog(found)
    assert "G51" not in _catalog(found)  # the chart makes the claims itself


def test_local_ai_careful_release_stays_silent():
    careful = copy.deepcopy(LOCAL_AI)
    values = careful["spec"]["values"]
    values["deployment"]["env"] = {"threads": 4, "context_size": 8192}  # over the chart's 512 (S36, ctx54)
    values["resources"] = {"requests": {"cpu": "4", "memory": "16Gi"}, "limits": {"memory": "16Gi"}}
    del values["persistence"]  # the chart's default claims are ReadWriteMany
    values["service"] = {"type": "ClusterIP"}
    found = _findings((HR_TYPE, "local-ai", careful))
    assert not {"S36", "G8", "S30", "G32", "G1"} & _catalog(found)
    unpinned = copy.deepcopy(careful)
    del unpinned["spec"]["values"]["deployment"]["image"]  # the chart's quay.io/go-skynet/local-ai:latest
    assert "G1" in _catalog(_findings((HR_TYPE, "local-ai", unpinned)))


def test_argo_application_value_files_and_bad_input():
    app: dict = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": "inference", "namespace": "argocd"},
        "spec": {
            "sources": [
                {
                    "repoURL": "https://vllm-project.github.io/production-stack",
                    "chart": "vllm-stack",
                    "targetRevision": "0.1.11",
                    "helm": {"valuesObject": copy.deepcopy(VLLM)["spec"]["values"]},
                },
                {"repoURL": "https://github.com/example/values.git", "ref": "values"},
            ]
        },
    }
    [(where, _)] = chart_pod_specs(app)
    assert where.startswith("spec.sources[0].helm.valuesObject.servingEngineSpec.modelSpec[0][vllm-stack chart 0.1.11")
    assert "readinessProbe" in chart_pod_specs(app)[0][1]["containers"][0]  # rendered by default from 0.1.8
    files = copy.deepcopy(app)  # spent set 96 GUGA12/llm-infra-platform: values in a file the object does not show
    files["spec"]["sources"][0]["helm"] = {"valueFiles": ["$values/deploy/inference/values.yaml"]}
    assert chart_pod_specs(files) == []
    bad: dict
    for bad in ({"servingEngineSpec": {"modelSpec": "x"}}, {"servingEngineSpec": []}, {"persistence": [1]}, {"deployment": 3}):
        for chart in ("vllm-stack", "local-ai"):
            chart_workloads(_release(chart, "0.1.5", bad, "x"))
    off = _release("vllm-stack", "0.1.5", {"servingEngineSpec": {"enableEngine": False, "modelSpec": [{"name": "a"}]}}, "x")
    ray = _release("vllm-stack", "0.1.5", {"servingEngineSpec": {"modelSpec": [{"name": "a", "raySpec": {}}]}}, "x")
    assert (
        [w for w, _ in chart_pod_specs(off)]
        == [w for w, _ in chart_pod_specs(ray)]
        == [
            "spec.values.routerSpec[vllm-stack chart 0.1.5 defaults]"  # the router only
        ]
    )
    _findings((APP_TYPE, "inference", app), (PVC_TYPE, "p", {"kind": "PersistentVolumeClaim", "metadata": {"name": "p"}}))


def test_vllm_stack_router_renders_and_its_service_type_is_read():
    """The router (helm/templates/deployment-router.yaml:1-134, service-router.yaml:9@vllm-stack-0.1.5): image
    lmcache/lmstack-router:latest by default, liveness only before 0.1.8, behind a Service of routerSpec.serviceType."""
    routed = copy.deepcopy(VLLM)
    routed["spec"]["values"]["routerSpec"] = {"serviceType": "LoadBalancer"}
    pods = dict(chart_pod_specs(routed))
    router = pods["spec.values.routerSpec[vllm-stack chart 0.1.5 defaults]"]["containers"][0]
    assert router["image"] == "lmcache/lmstack-router:latest" and "readinessProbe" not in router
    found = [v for v in _findings((HR_TYPE, "vllm", routed)) if "routerSpec" in v.message]
    assert {"G1", "G32"} <= _catalog(found)
    assert any("routerSpec[vllm-stack chart 0.1.5 defaults].serviceType: LoadBalancer" in v.message for v in found)
    careful = copy.deepcopy(routed)
    careful["spec"]["chart"]["spec"]["version"] = "0.1.8"  # router probes from values, readiness included
    careful["spec"]["values"]["routerSpec"] = {"serviceType": "ClusterIP", "tag": "0.1.8"}
    found = [v for v in _findings((HR_TYPE, "vllm", careful)) if "routerSpec" in v.message]
    assert not {"G1", "G32", "G4"} & _catalog(found)
    assert len(chart_pod_specs(VLLM)) == 1  # enableRouter false: the engine only
    # Go template truth (deployment-router.yaml:1, deployment-vllm-multi.yaml:1@vllm-stack-0.1.5): 0 or null is off.
    for off in (0, None):
        quiet = copy.deepcopy(VLLM)
        quiet["spec"]["values"]["routerSpec"]["enableRouter"] = off
        assert len(chart_pod_specs(quiet)) == 1
        quiet["spec"]["values"]["servingEngineSpec"]["enableEngine"] = off
        assert chart_pod_specs(quiet) == []
    fixed = copy.deepcopy(routed)  # 0.1.6-0.1.7: liveness and startup fixed in the template (deployment-router.yaml:127-140)
    fixed["spec"]["chart"]["spec"]["version"] = "0.1.6"
    fixed["spec"]["values"]["routerSpec"] = {"startupProbe": {"failureThreshold": 99}}
    [router] = [pod["containers"][0] for where, pod in chart_pod_specs(fixed) if "routerSpec" in where]
    assert router["startupProbe"]["failureThreshold"] == 3 and "readinessProbe" not in router


def test_vllm_stack_literal_api_key_in_values_is_advice():
    """A string servingEngineSpec.vllmApiKey is copied into the chart's own Secret RELEASE-secrets
    (deployment-vllm-multi.yaml:223-236@vllm-stack-0.1.5): clear text in the repository, whatever its shape."""
    keyed = copy.deepcopy(VLLM)
    keyed["spec"]["values"]["servingEngineSpec"]["vllmApiKey"] = "token-abc123"
    keyed["spec"]["values"]["servingEngineSpec"]["modelSpec"][0]["vllmConfig"]["extraArgs"] = []
    found = [v for v in _findings((HR_TYPE, "vllm", keyed)) if v.policy == "no-literal-credential"]
    assert [v.enforcement for v in found] == ["advisory"] and "servingEngineSpec.vllmApiKey" in found[0].message
    for careful in ("${VLLM_API_KEY}", "your-api-key", {"secretName": "vllm-api", "secretKey": "key"}):
        keyed["spec"]["values"]["servingEngineSpec"]["vllmApiKey"] = careful
        assert not [v for v in _findings((HR_TYPE, "vllm", keyed)) if v.policy == "no-literal-credential"]


def test_a_release_image_in_its_values_is_judged_once_on_the_rendered_pod():
    # spent set 107 BSFishy/k8s-homelab kubernetes/apps/ai/local-ai/app/helmrelease.yaml wrote
    # `deployment.image: quay.io/go-skynet/local-ai:latest`: G1 said so twice, on the values field (policies/reading/
    # field_images.py) and on the pod the chart renders from it.
    moving = copy.deepcopy(LOCAL_AI)
    moving["spec"]["values"]["deployment"]["image"] = {"repository": "quay.io/go-skynet/local-ai", "tag": "latest"}
    tags = [v for v in _findings((HR_TYPE, "local-ai", moving)) if v.catalog == "G1"]
    assert len(tags) == 1 and "spec.values[local-ai chart" in tags[0].message
    # A release of a chart the pack does not render keeps the field reading (nothing else judges its image).
    other = _release("some-chart", "1.0.0", {"image": "registry.example/app:latest"}, "other")
    assert ["G1"] == [v.catalog for v in _findings((HR_TYPE, "other", other)) if v.catalog == "G1"]
