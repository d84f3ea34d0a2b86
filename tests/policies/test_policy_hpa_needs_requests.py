"""G8: a workload a HorizontalPodAutoscaler scales on a Utilization target requests the resource it divides by
(policies/reading/hpa_requests.py, policy utilization-target-requests): without it the HPA controller fails the metric
("missing request for cpu", kubernetes pkg/controller/podautoscaler/replica_calculator.go calculateRequests /
calculatePodRequestsFromContainers, code index file 4233727116) and never scales, model server or not. The finding lands
on the autoscaler; it blocks only where the files prove it."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "utilization-target-requests"


def _deployment(name: str, container: dict) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
        },
    }


def _hpa(name: str, target: str, metrics: list[dict]) -> dict:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": target},
            "minReplicas": 3,
            "maxReplicas": 20,
            "metrics": metrics,
        },
    }


CPU_75 = [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 75}}}]
# savyasachi6/llm-serving-platform infra/kubernetes/base gateway-deployment.yaml and hpa.yaml@05118a8288c69162fe6b3b5769bf3ea21957f3ef
# (spent set 28, labelled G8): the gateway requests no CPU, gateway-hpa targets 75% CPU utilisation.
GATEWAY = _deployment("gateway", {"name": "gateway", "image": "gateway:latest", "imagePullPolicy": "Never"})
GATEWAY_HPA = _hpa("gateway-hpa", "gateway", CPU_75)
# GauravS0001/gpu-inference-platform vllm/deployment.yaml and autoscaling/hpa.yaml@4d33a0f3b6cf9ecafb5a98833bd79b7cdb83d60b (spent set 21): a vLLM server with only
# a GPU limit, scaled on CPU utilisation.
VLLM = _deployment(
    "vllm",
    {"name": "vllm", "image": "vllm/vllm-openai:v0.6.3", "resources": {"limits": {"nvidia.com/gpu": 1}}},
)
VLLM_HPA = _hpa("vllm-hpa", "vllm", CPU_75)


def test_a_utilisation_target_over_a_container_with_no_request_never_scales():
    assert found_by([GATEWAY, GATEWAY_HPA], POLICY) == [
        (
            "mandatory",
            "Deployment gateway: container gateway sets no resources.requests.cpu, so this cpu Utilization target "
            "cannot be computed ('missing request for cpu'); the HPA reports ScalingActive False and never scales this "
            "Deployment; request cpu in every container",
        )
    ]
    assert [lvl for lvl, _ in found_by([VLLM, VLLM_HPA], POLICY)] == ["mandatory"]
    # The workload's own G8 rule no longer repeats it.
    assert not any("Utilization" in m for _, m in found_by([GATEWAY, GATEWAY_HPA], "serving-resource-requests"))


def test_a_request_a_limit_or_an_average_value_target_stays_silent():
    # kubernetes/website content/en/examples/application/php-apache.yaml (the HPA walkthrough): requests cpu 200m.
    requested = copy.deepcopy(GATEWAY)
    requested["spec"]["template"]["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "200m"}}
    limited = copy.deepcopy(GATEWAY)
    limited["spec"]["template"]["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "1"}}  # the request defaults to it
    average = _hpa(
        "gateway-hpa",
        "gateway",
        [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "AverageValue", "averageValue": "500m"}}}],
    )
    assert found_by([requested, GATEWAY_HPA], POLICY) == []
    assert found_by([limited, GATEWAY_HPA], POLICY) == []
    assert found_by([GATEWAY, average], POLICY) == []
    other_namespace = copy.deepcopy(GATEWAY_HPA)
    other_namespace["metadata"]["namespace"] = "edge"
    assert found_by([GATEWAY, other_namespace], POLICY) == []


def test_with_other_metrics_it_still_scales_up_but_never_down():
    # Review 41 item 7: kubernetes pkg/controller/podautoscaler/horizontal.go computeReplicasForMetrics computes the
    # other metrics; an invalid one only blocks a scale-down, and ScalingActive is False only when all fail.
    queue = {
        "type": "Pods",
        "pods": {"metric": {"name": "vllm:num_requests_waiting"}, "target": {"type": "AverageValue", "averageValue": "5"}},
    }
    [(level, message)] = found_by([GATEWAY, _hpa("gateway-hpa", "gateway", [*CPU_75, queue])], POLICY)
    assert level == "advisory"
    # Review 49 item 10: no stray "so it" after "the HPA".
    assert "; the HPA scales this Deployment up on its other metrics only and never scales it down;" in message


V1_HPA = {
    "apiVersion": "autoscaling/v1",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "gateway-hpa", "namespace": "default"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "gateway"},
        "maxReplicas": 5,
        "targetCPUUtilizationPercentage": 60,
    },
}


def _with(container_patch: dict | None = None, **podspec: object) -> dict:
    d = copy.deepcopy(GATEWAY)
    spec = d["spec"]["template"]["spec"]
    if container_patch:
        spec["containers"][0].update(container_patch)
    spec.update(podspec)
    return d


def test_v1_percentage_and_a_sidecar_without_a_request_block():
    assert [lvl for lvl, _ in found_by([GATEWAY, V1_HPA], POLICY)] == ["mandatory"]
    # A restartable init container (native sidecar) counts in the sum (calculatePodRequestsFromContainers).
    sidecar = {"name": "proxy", "image": "envoyproxy/envoy:v1.31.0", "restartPolicy": "Always"}
    requested = _with({"resources": {"requests": {"cpu": "1"}}}, initContainers=[sidecar])
    [(level, message)] = found_by([requested, GATEWAY_HPA], POLICY)
    assert level == "mandatory" and message.startswith("Deployment gateway: container proxy sets no")
    plain_init = {"name": "wait", "image": "busybox:1.36"}
    assert found_by([_with({"resources": {"requests": {"cpu": "1"}}}, initContainers=[plain_init]), GATEWAY_HPA], POLICY) == []


def test_careful_forms_stay_silent_or_advise():
    # A pod-level request replaces the containers' sum (KEP-2837, calculateRequests).
    assert found_by([_with(resources={"requests": {"cpu": "2"}}), GATEWAY_HPA], POLICY) == []
    # A ContainerResource metric needs only the named container's request.
    two = _with({"resources": {"requests": {"cpu": "1"}}})
    two["spec"]["template"]["spec"]["containers"].append({"name": "log", "image": "fluent/fluent-bit:3.1"})
    named = _hpa(
        "gateway-hpa",
        "gateway",
        [
            {
                "type": "ContainerResource",
                "containerResource": {
                    "name": "cpu",
                    "container": "gateway",
                    "target": {"type": "Utilization", "averageUtilization": 60},
                },
            }
        ],
    )
    assert found_by([two, named], POLICY) == []
    assert [lvl for lvl, _ in found_by([two, GATEWAY_HPA], POLICY)] == ["mandatory"]
    # The target is not among the files: nothing to read.
    assert found_by([GATEWAY_HPA], POLICY) == []
    # A LimitRange of the same namespace fills it; one of another namespace (the run's may be it) makes it advice.
    limit_range = {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": {"name": "defaults", "namespace": "default"},
        "spec": {"limits": [{"type": "Container", "defaultRequest": {"cpu": "250m"}}]},
    }
    assert found_by([GATEWAY, GATEWAY_HPA, limit_range], POLICY) == []
    elsewhere = copy.deepcopy(limit_range)
    elsewhere["metadata"]["namespace"] = "team"
    assert [lvl for lvl, _ in found_by([GATEWAY, GATEWAY_HPA, elsewhere], POLICY)] == ["advisory"]
    # A templated resources block is not read as missing.
    assert all(lvl == "advisory" for lvl, _ in found_by([_with({"resources": "{{ .Values.resources }}"}), GATEWAY_HPA], POLICY))


def test_a_keda_cpu_utilization_trigger_is_advice():
    # kedacore/keda pkg/scalers/cpu_memory_scaler.go parseResourceMetadata: metricType Utilization renders the same
    # HPA Resource metric (code index file 6987078557); AverageValue divides by nothing.
    scaled = {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": "gateway", "namespace": "default"},
        "spec": {
            "scaleTargetRef": {"name": "gateway"},
            "triggers": [{"type": "cpu", "metricType": "Utilization", "metadata": {"value": "60"}}],
        },
    }
    assert [lvl for lvl, _ in found_by([GATEWAY, scaled], POLICY)] == ["advisory"]
    average = copy.deepcopy(scaled)
    average["spec"]["triggers"][0]["metricType"] = "AverageValue"
    assert found_by([GATEWAY, average], POLICY) == []


def test_a_kustomize_base_whose_overlay_adds_the_request_does_not_block(tmp_path):
    """A base Deployment with no CPU request, which an overlay's patch completes: nothing blocks (the patch of that name
    requests it, and a base a patch targets is no whole object: policies/reading/kustomize.py `targeted`)."""
    import yaml

    from policies.check import load_resources, manifest_files
    from policies.registry import evaluate

    base, overlay = tmp_path / "base", tmp_path / "overlays" / "prod"
    base.mkdir()
    overlay.mkdir(parents=True)
    (base / "app.yaml").write_text(yaml.safe_dump_all([GATEWAY, GATEWAY_HPA]))
    (base / "kustomization.yaml").write_text("resources: [app.yaml]\n")
    patch = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "gateway", "namespace": "default"},
        "spec": {"template": {"spec": {"containers": [{"name": "gateway", "resources": {"requests": {"cpu": "500m"}}}]}}},
    }
    (overlay / "cpu.yaml").write_text(yaml.safe_dump(patch))
    (overlay / "kustomization.yaml").write_text("resources: [../../base]\npatches: [{path: cpu.yaml}]\n")
    found = [v for v in evaluate(load_resources(manifest_files([str(tmp_path)]))) if v.policy == POLICY]
    assert [v for v in found if v.enforcement == "mandatory"] == []
    # The patch removed, the base alone is whole again and blocks.
    (overlay / "kustomization.yaml").write_text("resources: [../../base]\n")
    (overlay / "cpu.yaml").unlink()
    found = [v for v in evaluate(load_resources(manifest_files([str(tmp_path)]))) if v.policy == POLICY]
    assert [v.enforcement for v in found] == ["mandatory"]


def _vpa(mode: str | None = "Initial", policies: list | None = None, target: str = "gateway") -> dict:
    spec: dict = {"targetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": target}}
    if mode is not None:
        spec["updatePolicy"] = {"updateMode": mode}
    if policies is not None:
        spec["resourcePolicy"] = {"containerPolicies": policies}
    return {
        "apiVersion": "autoscaling.k8s.io/v1",
        "kind": "VerticalPodAutoscaler",
        "metadata": {"name": target, "namespace": "default"},
        "spec": spec,
    }


def test_a_vpa_that_writes_the_request_silences_it():
    """Review 49 item 1: the VPA admission controller adds an empty resources object and the recommended requests to
    every container of each pod it admits unless updateMode is Off (kubernetes/autoscaler vertical-pod-autoscaler-1.7.1
    vertical-pod-autoscaler/pkg/admission-controller/resource/pod/patch/resource_updates.go:68 and :113-131;
    controlledResources defaults to [cpu, memory], pkg/apis/autoscaling.k8s.io/v1/types.go:286-290). G17 reports the
    VPA/HPA pair itself."""
    for mode in ("Initial", "Auto", "Recreate", "InPlaceOrRecreate", None):
        assert found_by([GATEWAY, GATEWAY_HPA, _vpa(mode)], POLICY) == [], mode
    # The reviewer's careful form (/tmp/r49/g8vpa2.yaml): a wildcard policy with the default resources.
    assert (
        found_by([GATEWAY, GATEWAY_HPA, _vpa("Initial", [{"containerName": "*", "controlledValues": "RequestsOnly"}])], POLICY)
        == []
    )
    # Still blocks: updateMode Off, cpu not controlled (/tmp/r49/g8vpa.yaml), the container's policy Off, another target.
    assert [lvl for lvl, _ in found_by([GATEWAY, GATEWAY_HPA, _vpa("Off")], POLICY)] == ["mandatory"]
    memory_only = _vpa("Initial", [{"containerName": "*", "controlledResources": ["memory"]}])
    assert [lvl for lvl, _ in found_by([GATEWAY, GATEWAY_HPA, memory_only], POLICY)] == ["mandatory"]
    off = _vpa("Auto", [{"containerName": "gateway", "mode": "Off"}])
    assert [lvl for lvl, _ in found_by([GATEWAY, GATEWAY_HPA, off], POLICY)] == ["mandatory"]
    assert [lvl for lvl, _ in found_by([GATEWAY, GATEWAY_HPA, _vpa(target="other")], POLICY)] == ["mandatory"]
    # The admission controller patches pod.Spec.Containers only: a native sidecar without the request still fails it.
    sidecar = {"name": "proxy", "image": "envoyproxy/envoy:v1.31.0", "restartPolicy": "Always"}
    [(level, message)] = found_by([_with(initContainers=[sidecar]), GATEWAY_HPA, _vpa()], POLICY)
    assert level == "mandatory" and message.startswith("Deployment gateway: container proxy sets no")


def test_a_v2_hpa_without_metrics_scales_on_cpu_utilization():
    """Review 49 item 11: autoscaling/v2 defaults empty metrics to 80% average CPU Utilization (kubernetes/api v0.33.0
    autoscaling/v2/types.go:75; kubernetes pkg/apis/autoscaling/v2/defaults.go SetDefaults_HorizontalPodAutoscaler)."""
    bare = _hpa("gateway-hpa", "gateway", [])
    del bare["spec"]["metrics"]
    assert [lvl for lvl, _ in found_by([GATEWAY, bare], POLICY)] == ["mandatory"]
    assert [lvl for lvl, _ in found_by([GATEWAY, _hpa("gateway-hpa", "gateway", [])], POLICY)] == ["mandatory"]
    requested = _with({"resources": {"requests": {"cpu": "200m"}}})
    assert found_by([requested, bare], POLICY) == []


def _overlay(tmp_path, patch: str) -> list:
    import yaml

    from policies.check import load_resources, manifest_files
    from policies.registry import evaluate

    base, overlay = tmp_path / "base", tmp_path / "overlays" / "prod"
    base.mkdir(parents=True, exist_ok=True)
    overlay.mkdir(parents=True, exist_ok=True)
    (base / "deployment.yaml").write_text(yaml.safe_dump(GATEWAY))
    (base / "kustomization.yaml").write_text("resources: [deployment.yaml]\n")
    (overlay / "hpa.yaml").write_text(yaml.safe_dump(GATEWAY_HPA))
    kustomization = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "namespace": "default",
        "resources": ["../../base", "hpa.yaml"],
        "patches": [{"target": {"kind": "Deployment", "name": "gateway"}, "patch": patch}],
    }
    (overlay / "kustomization.yaml").write_text(yaml.safe_dump(kustomization))
    return [v for v in evaluate(load_resources(manifest_files([str(tmp_path)]))) if v.policy == POLICY]


def test_an_overlay_inline_patch_that_adds_the_request_is_read(tmp_path):
    """Review 49 item 11 (/tmp/r49/k1): the overlay's HPA, checked in the files' scope, sees the base Deployment as
    written; an inline JSON6902 (or strategic-merge) patch of the overlay's kustomization that adds the request is read
    there (the built Deployment, in the build's own scope, already holds it)."""
    json6902 = "- op: add\n  path: /spec/template/spec/containers/0/resources\n  value: {requests: {cpu: 250m, memory: 256Mi}}\n"
    assert _overlay(tmp_path / "a", json6902) == []
    strategic = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: gateway}\nspec:\n  template:\n    spec:\n"
        "      containers:\n      - name: gateway\n        resources: {requests: {cpu: 500m}}\n"
    )
    assert _overlay(tmp_path / "b", strategic) == []
    # A patch that adds something else leaves the advice.
    other = "- op: add\n  path: /spec/template/spec/containers/0/resources\n  value: {requests: {memory: 256Mi}}\n"
    assert [v.enforcement for v in _overlay(tmp_path / "c", other)] == ["advisory"]
