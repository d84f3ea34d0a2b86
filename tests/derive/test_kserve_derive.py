"""KServe v0.20.0's predictor Deployment and Service, derived from our InferenceServices (components/derive/kserve.py).

Each test pins one upstream rule (kserve/kserve at v0.20.0, file:line in the test's docstring) and fails
when the derivation drops it.
"""

from __future__ import annotations

import copy
import hashlib

import pytest
import yaml

from components.derive import Release, Rendered, by_model, derive
from components.derive import kserve as ks
from tests.conftest import shared_path


def _isvc(**predictor_extra) -> dict:
    predictor = {
        "minReplicas": 2,
        "maxReplicas": 4,
        "labels": {"team": "llm"},
        "containers": [
            {
                "name": "kserve-container",
                "image": "vllm/vllm-openai:v0.33.0",
                "env": [{"name": "STORAGE_URI", "value": "hf://org/model:abc"}],
                "ports": [{"containerPort": 8080, "name": "http", "protocol": "TCP"}],
                "resources": {
                    "requests": {"cpu": "6", "memory": "51Gi", "nvidia.com/gpu": "1"},
                    "limits": {"memory": "51Gi", "nvidia.com/gpu": "1"},
                },
                "readinessProbe": {"httpGet": {"path": "/health", "port": 8080}},
                "startupProbe": {"httpGet": {"path": "/health", "port": 8080}, "periodSeconds": 10, "failureThreshold": 174},
            }
        ],
        **predictor_extra,
    }
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {
            "name": "m",
            "namespace": "llm",
            "labels": {"app.kubernetes.io/name": "m"},
            "annotations": {"serving.kserve.io/deploymentMode": "Standard", "serving.kserve.io/autoscalerClass": "external"},
        },
        "spec": {"predictor": predictor},
    }


def _release(values: dict) -> Release:
    return Release("kserve", "oci://ghcr.io/kserve/charts/kserve-resources", "v0.20.0", "kserve", values)


def _deployment(*objects, values=None) -> dict:
    releases = () if values is None else (_release(values),)
    out = derive(Rendered(objects=tuple(objects), releases=releases))
    return next(d for d in out if d.kind == "Deployment").manifest


def test_chart_defaults_match_the_pinned_chart():
    """charts/kserve-resources/values.yaml:19, 56-58, 63-64, 86-95, 109 at v0.20.0: the defaults the derivation assumes."""
    path = shared_path("charts", "kserve-resources", "v0.20.0", "values.yaml")
    chart = yaml.safe_load(path.read_text())["kserve"]
    assert chart["inferenceservice"] == ks.CHART_DEFAULTS["inferenceservice"]
    assert chart["security"]["autoMountServiceAccountToken"] is ks.CHART_DEFAULTS["security"]["autoMountServiceAccountToken"]
    assert chart["controller"]["deploymentMode"] == ks.CHART_DEFAULTS["controller"]["deploymentMode"]
    assert chart["service"]["serviceClusterIPNone"] is ks.CHART_DEFAULTS["service"]["serviceClusterIPNone"]
    assert chart["localmodel"]["enabled"] is ks.CHART_DEFAULTS["localmodel"]["enabled"]
    # 56-58, rendered by files/common/configmap-patch.yaml:115-119 (inferenceservice-config metricsAggregator).
    assert chart["metricsaggregator"] == ks.CHART_DEFAULTS["metricsaggregator"]


def test_missing_cpu_limit_is_filled_from_the_config():
    """inference_service_defaults.go:86-93: a missing limit comes from inferenceservice-config (chart: 1 CPU)."""
    d = derive(Rendered(objects=(_isvc(),), releases=(_release({}),)))[0]
    limits = d.manifest["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]
    assert limits["cpu"] == "1"
    assert limits["memory"] == "51Gi"  # only missing keys are filled
    assert "inference_service_defaults.go:59-96" in d.rule("spec.template.spec.containers[0].resources.limits.cpu")


def test_cleared_cpu_limit_is_not_filled():
    """inference_service_defaults.go:70-72: an empty cpuLimit adds nothing (what the kserve release sets)."""
    values = {"kserve": {"inferenceservice": {"resources": {"limits": {"cpu": ""}}}}}
    limits = _deployment(_isvc(), values=values)["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]
    assert "cpu" not in limits


def test_helm_null_deletes_the_default():
    """A null Helm value deletes the chart's key; the template then renders "" and nothing is filled."""
    values = {"kserve": {"inferenceservice": {"resources": {"limits": {"cpu": None}}}}}
    assert "cpu" not in _deployment(_isvc(), values=values)["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]


def test_requests_are_filled_only_where_missing():
    """inference_service_defaults.go:77-84: requests are defaulted separately from limits."""
    isvc = _isvc()
    del isvc["spec"]["predictor"]["containers"][0]["resources"]["requests"]["memory"]
    requests = _deployment(isvc, values={})["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]
    assert requests["memory"] == "2Gi" and requests["cpu"] == "6"


def test_deployment_defaults():
    """deployment_reconciler.go:341-359 (600 s deadline, 25%/25%, 10 revisions) and 140-161 (app label, selector)."""
    dep = _deployment(_isvc(), values={})
    assert dep["metadata"]["name"] == "m-predictor"
    assert dep["spec"]["progressDeadlineSeconds"] == 600
    assert dep["spec"]["strategy"] == {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}}
    assert dep["spec"]["revisionHistoryLimit"] == 10
    assert dep["spec"]["selector"] == {"matchLabels": {"app": "isvc.m-predictor"}}
    assert dep["spec"]["template"]["metadata"]["labels"]["app"] == "isvc.m-predictor"
    assert dep["metadata"]["labels"]["app"] == "isvc.m-predictor"  # Go's shared label map (145-146)
    assert "replicas" not in dep["spec"]  # autoscaler class external: the HPA owns replicas (170-172)


def test_user_strategy_skips_the_deployment_defaults():
    """deployment_reconciler.go:162-168: a deploymentStrategy replaces setDefaultDeploymentSpec entirely."""
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}}
    dep = _deployment(_isvc(deploymentStrategy=strategy), values={})
    assert dep["spec"]["strategy"] == strategy
    assert "progressDeadlineSeconds" not in dep["spec"]


def test_labels_annotations_and_env():
    """predictor.go:99-120 (filtered annotations + storage URI), 152-157 (INFERENCE_SERVICE_NAME), 498-519 (labels)."""
    dep = _deployment(_isvc(), values={})
    meta = dep["metadata"]
    assert meta["labels"]["serving.kserve.io/inferenceservice"] == "m"
    assert meta["labels"]["component"] == "predictor"
    assert meta["labels"]["team"] == "llm"  # the predictor's own labels
    assert meta["annotations"][ks.SOURCE_URI] == "hf://org/model:abc"
    env = dep["spec"]["template"]["spec"]["containers"][0]["env"]
    assert {"name": "INFERENCE_SERVICE_NAME", "value": "m"} in env
    spec = dep["spec"]["template"]["spec"]
    assert not {"minReplicas", "maxReplicas", "labels"} & set(spec)  # ComponentExtensionSpec is not pod spec


def test_pod_defaults_and_tcp_readiness_probe():
    """deployment_reconciler.go:276-339: pod defaults, and a TCP readiness probe on the first port where none is set."""
    isvc = _isvc()
    del isvc["spec"]["predictor"]["containers"][0]["readinessProbe"]
    dep = _deployment(isvc, values={})
    spec = dep["spec"]["template"]["spec"]
    assert spec["terminationGracePeriodSeconds"] == 30 and spec["dnsPolicy"] == "ClusterFirst"
    probe = spec["containers"][0]["readinessProbe"]
    assert probe["tcpSocket"] == {"port": 8080} and probe["timeoutSeconds"] == 1


def test_raw_deployment_annotation_is_normalised():
    """inference_service_defaults.go:166-171: RawDeployment becomes Standard (and is still derived)."""
    isvc = _isvc()
    isvc["metadata"]["annotations"]["serving.kserve.io/deploymentMode"] = "RawDeployment"
    assert _deployment(isvc, values={})["metadata"]["annotations"]["serving.kserve.io/deploymentMode"] == "Standard"


def test_knative_default_derives_nothing():
    """inference_service_defaults.go:178-186: without the annotation the chart's default (Knative) applies."""
    isvc = _isvc()
    del isvc["metadata"]["annotations"]["serving.kserve.io/deploymentMode"]
    assert derive(Rendered(objects=(isvc,), releases=())) == []
    standard = {"kserve": {"controller": {"deploymentMode": "Standard"}}}
    assert len(derive(Rendered(objects=(isvc,), releases=(_release(standard),)))) == 2


def test_local_model_cache_matches_by_uri_prefix():
    """inference_service_defaults.go:548-590 and storage_uri_utils.go:23-35: a cache whose URI is the storage URI
    (or a folder above it) labels the predictor, with the PVC of its first node group."""
    cache = {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "LocalModelCache",
        "metadata": {"name": "m"},
        "spec": {"sourceModelUri": "hf://org/model:abc", "nodeGroups": ["l40s"]},
    }
    on = {"kserve": {"localmodel": {"enabled": True}}}
    dep = _deployment(_isvc(), cache, values=on)
    assert dep["metadata"]["labels"][ks.LOCAL_MODEL_LABEL] == "m"
    assert dep["metadata"]["annotations"][ks.LOCAL_MODEL_PVC] == "m-l40s"
    other = copy.deepcopy(cache)
    other["spec"]["sourceModelUri"] = "hf://org/model:ab"  # a prefix, but not a folder above
    assert ks.LOCAL_MODEL_LABEL not in _deployment(_isvc(), other, values=on)["metadata"]["labels"]
    assert ks.LOCAL_MODEL_LABEL not in _deployment(_isvc(), cache, values={})["metadata"]["labels"]  # disabled


def test_cold_path_counts_the_matched_caches_fill():
    """The progress deadline's clock (deployment_reconciler.go:355-358 sets 600 s) runs from the pod's creation: the
    derived summary adds node launch, image pull, the matched LocalModelCache's download (its modelSize, which KServe's
    agent fetches before our init container lets the model start) and the startup probe's budget."""
    cache = {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "LocalModelCache",
        "metadata": {"name": "m"},
        "spec": {"sourceModelUri": "hf://org/model:abc", "modelSize": "17Gi", "nodeGroups": ["l40s"]},
    }
    on = {"kserve": {"localmodel": {"enabled": True}}}

    def cold(*objects, values):
        out = derive(Rendered(objects=objects, releases=(_release(values),)))
        return next(d for d in out if d.kind == "Deployment").summary["coldReady"]

    assert cold(_isvc(), cache, values=on) == {
        "nodeLaunchSeconds": 300,
        "imagePullSeconds": 300,
        "cacheFillSeconds": 206,
        "startupBudgetSeconds": 1740,
        "seconds": 2546,
    }
    assert cold(_isvc(), cache, values={})["cacheFillSeconds"] == 0  # the cache not matched: nothing to wait for


def test_service():
    """service_reconciler.go:104-192: port 80 named after the first container port, targeting it, selecting app."""
    out = derive(Rendered(objects=(_isvc(),), releases=(_release({}),)))
    svc = next(d for d in out if d.kind == "Service").manifest
    assert svc["metadata"]["name"] == "m-predictor"
    assert svc["spec"] == {
        "selector": {"app": "isvc.m-predictor"},
        "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"}],
    }


def test_by_model_and_paths_are_stable():
    out = derive(Rendered(objects=(_isvc(),), releases=(_release({}),)))
    assert [d.path for d in out] == ["derived/llm/deployment-m-predictor.yaml", "derived/llm/service-m-predictor.yaml"]
    assert list(by_model(out)) == ["m"]


def test_derivers_never_overwrite_each_other():
    def twice(rendered):
        return derive(rendered, derivers=[ks.derive])

    with pytest.raises(ValueError, match="share a path"):
        derive(Rendered(objects=(_isvc(),)), derivers=[twice, twice])


def test_cache_wait_reads_the_folder_kserve_downloads_into():
    """local_model_cache_types.go:29-32 (GetStorageKey: sha256 of the cache's URI, 16 hex digits) and
    localmodelnode/controller.go:148-158 (the job writes models/<key> of the node group's volume, host path /models):
    the init container of a localCache model reads exactly that folder, read-only."""
    import hashlib

    from components.builders import vllm_service
    from components.builders.model_source import CACHE_WAIT_CONTAINER, cache_wait
    from components.capacity.plan import plan_stack
    from components.config import load_stack_config
    from tests.conftest import stack_config

    cfg = load_stack_config(stack_config("prod"))
    plans = plan_stack(cfg)
    m = next(m for m in cfg.models if m.source.type == "localCache")
    isvc = vllm_service.inference_service(m, plans[m.name], cfg.namespace, m.pool, None)
    [init] = isvc["spec"]["predictor"]["initContainers"]
    uri = next(e["value"] for e in isvc["spec"]["predictor"]["containers"][0]["env"] if e["name"] == "STORAGE_URI")
    key = hashlib.sha256(uri.encode()).hexdigest()[:16]
    assert init["name"] == CACHE_WAIT_CONTAINER and init["command"][-1] == f"/node-cache/models/{key}"
    assert init["volumeMounts"] == [{"name": "node-model-cache", "mountPath": "/node-cache", "readOnly": True}]
    assert {"name": "node-model-cache", "hostPath": {"path": "/models", "type": "Directory"}} in isvc["spec"]["predictor"][
        "volumes"
    ]
    other = next(m for m in cfg.models if m.source.type != "localCache")
    assert cache_wait(other) == ([], [])


def _run_wait(tmp_path, files: dict[str, str]):
    import subprocess
    import sys

    from components.builders.model_source import _CACHE_WAIT_SCRIPT

    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return subprocess.Popen([sys.executable, "-c", _CACHE_WAIT_SCRIPT, str(tmp_path)], stdout=subprocess.PIPE, text=True)


def test_cache_wait_returns_once_every_shard_is_there(tmp_path):
    index = '{"weight_map": {"a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}}'
    files = {"config.json": "{}", "model.safetensors.index.json": index}
    files.update({"model-00001-of-00002.safetensors": "", "model-00002-of-00002.safetensors": ""})
    proc = _run_wait(tmp_path, files)
    assert proc.wait(timeout=20) == 0
    assert "model files present" in proc.stdout.read()


def test_cache_wait_holds_while_a_shard_is_missing(tmp_path):
    import subprocess

    index = '{"weight_map": {"a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}}'
    proc = _run_wait(
        tmp_path, {"config.json": "{}", "model.safetensors.index.json": index, "model-00001-of-00002.safetensors": ""}
    )
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(timeout=2)
        assert "waiting for model-00002-of-00002.safetensors" in proc.stdout.readline()
    finally:
        proc.kill()
        proc.wait()


def _cache(**spec) -> dict:
    return {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "LocalModelCache",
        "metadata": {"name": "m"},
        "spec": {"sourceModelUri": "hf://org/model:abc", "modelSize": "17Gi", "nodeGroups": ["l40s"], **spec},
    }


def _pod(*objects, values=None):
    out = derive(Rendered(objects=tuple(objects), releases=(_release(values or {}),)))
    pods = [d for d in out if d.kind == "Pod"]
    deployment = next(d for d in out if d.kind == "Deployment")
    return (pods[0] if pods else None), deployment


def test_the_pod_webhook_mounts_the_local_model_cache():
    """storage_initializer_injector.go:723-737: a pod with the local-model label reads pvc://<pvc>/models/<key>/;
    509-558: one legacy URI on a PVC is a subPath mount named kserve-pvc-source at /mnt/models, read-only (256-265),
    with no init container; 560-566: STORAGE_URI becomes /mnt/models. pkg/utils/storage.go:59-73, 107-163."""
    pod, _ = _pod(_isvc(), _cache(), values={"kserve": {"localmodel": {"enabled": True}}})
    assert pod is not None and pod.path == "derived/llm/pod-m-predictor-00000.yaml"
    spec = pod.manifest["spec"]
    key = hashlib.sha256(b"hf://org/model:abc").hexdigest()[:16]
    container = spec["containers"][0]
    assert container["volumeMounts"] == [
        {"name": "kserve-pvc-source", "mountPath": "/mnt/models", "subPath": f"models/{key}/", "readOnly": True}
    ]
    assert {"name": "kserve-pvc-source", "persistentVolumeClaim": {"claimName": "m-l40s"}} in spec["volumes"]
    assert {"name": "STORAGE_URI", "value": "/mnt/models"} in container["env"]
    assert "initContainers" not in spec  # a PVC needs no storage-initializer
    assert "723-737" in pod.rule("spec.containers[0].volumeMounts[0]")
    # The ReplicaSet owns it (the real name carries the template hash the Deployment controller computes).
    assert pod.manifest["metadata"]["ownerReferences"][0]["kind"] == "ReplicaSet"
    assert pod.manifest["metadata"]["labels"]["app"] == "isvc.m-predictor"


def test_the_readonly_annotation_and_the_metrics_switches():
    """storage_initializer_injector.go:256-265 (storage.kserve.io/readonly "false" mounts read-write) and
    metrics_aggregate_injector.go:94-129 (the config's switches as pod annotations; port and path when scraping)."""
    isvc = _isvc()
    isvc["metadata"]["annotations"]["storage.kserve.io/readonly"] = "false"
    values = {"kserve": {"localmodel": {"enabled": True}, "metricsaggregator": {"enablePrometheusScraping": "true"}}}
    pod, _ = _pod(isvc, _cache(), values=values)
    assert "readOnly" not in pod.manifest["spec"]["containers"][0]["volumeMounts"][0]
    annotations = pod.manifest["metadata"]["annotations"]
    assert annotations["serving.kserve.io/enable-metric-aggregation"] == "false"
    assert annotations["serving.kserve.io/enable-prometheus-scraping"] == "true"
    assert (annotations["prometheus.io/port"], annotations["prometheus.io/path"]) == ("9091", "/metrics")


def test_a_download_by_the_storage_initializer_is_said_not_derived():
    """No cache: the webhook adds a storage-initializer init container built from inferenceservice-config
    (storage_initializer_injector.go:540-551, 569-691), which this derivation does not build: no pod, and why."""
    pod, deployment = _pod(_isvc(), values={})
    assert pod is None
    assert deployment.summary["pod"].startswith("not derived: a storage-initializer init container downloads hf://org/model:abc")
    plain = _isvc()
    plain["spec"]["predictor"]["containers"][0]["env"] = []  # no storage URI: only the metrics annotations
    pod, _ = _pod(plain, values={})
    assert "volumeMounts" not in pod.manifest["spec"]["containers"][0]
    assert pod.manifest["metadata"]["annotations"]["serving.kserve.io/enable-metric-aggregation"] == "false"


def test_a_cache_label_without_its_pvc_annotation_is_refused():
    """storage_initializer_injector.go:731-736: the webhook errors, so the API server refuses the pod."""
    from components.derive.kserve import isvc_config, webhook_pod

    _, deployment = _pod(_isvc(), _cache(), values={"kserve": {"localmodel": {"enabled": True}}})
    manifest = copy.deepcopy(dict(deployment.manifest))
    del manifest["spec"]["template"]["metadata"]["annotations"][ks.LOCAL_MODEL_PVC]
    pod, _, why = webhook_pod(manifest, isvc_config(Rendered(objects=())))
    assert pod is None and why.startswith("the webhook refuses the pod")
