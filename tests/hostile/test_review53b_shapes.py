"""Shapes the cold review of session 53 (review53b) found raising with tools/fuzz_check.py (seeds 53, 531, 532 over the
brief's third-party forms): a Flux HelmRelease whose ``sourceRef.kind`` is a list (policies/helm_charts.py
vendored_chart tested it against a frozenset: unhashable), a PersistentVolumeClaim or Pod whose ``metadata.namespace``
or name is a list or map (S30 single-attach-volume-shared keyed dicts by them), and a volume mount whose name is a map
(S51's service_listeners looked it up in a dict). Checked in-process without the containment of `policies check`, so
any exception fails the test."""

from __future__ import annotations

import pytest

from policies.check import load_resources, manifest_files
from policies.reading import service_listeners
from policies.registry import evaluate

SHAPES = {
    # BSFishy/k8s-homelab kubernetes/apps/ai/local-ai/app/helmrelease.yaml, sourceRef.kind mistyped.
    "helm-release-source-kind-a-list": """
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: local-ai}
spec:
  chart:
    spec:
      chart: kubernetes/apps/ai/local-ai/chart
      sourceRef: {kind: [[]], name: flux-system, namespace: flux-system}
  values:
    deployment: {image: {tag: v2.26.0-cublas-cuda12}}
    persistence: {models: {enabled: true, existingClaim: local-ai-models, globalMount: /models}}
""",
    # elizabetht/token-labs deploy/archive/models/deepseek-r1-7b/pods-deepseek-r1.yaml, namespace mistyped.
    "claim-namespace-a-list": """
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: model-cache, namespace: [{}]}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 30Gi}}}
---
apiVersion: v1
kind: Pod
metadata: {name: vllm, namespace: token-labs}
spec:
  containers: [{name: vllm, image: "vllm/vllm-openai:v0.10.1", volumeMounts: [{name: cache, mountPath: /cache}]}]
  volumes: [{name: cache, persistentVolumeClaim: {claimName: model-cache}}]
""",
    # The same, the claim's namespace written and the pods' mistyped.
    "pod-namespace-a-list": """
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: model-cache}
spec: {accessModes: [ReadWriteOncePod], resources: {requests: {storage: 30Gi}}}
---
apiVersion: v1
kind: Pod
metadata: {name: [vllm], namespace: [token-labs]}
spec:
  containers: [{name: vllm, image: "vllm/vllm-openai:v0.10.1", volumeMounts: [{name: cache, mountPath: /cache}]}]
  volumes: [{name: cache, persistentVolumeClaim: {claimName: model-cache}}]
---
apiVersion: v1
kind: Pod
metadata: {name: {a: 1}, namespace: {b: 2}}
spec:
  containers: [{name: vllm, image: "vllm/vllm-openai:v0.10.1", volumeMounts: [{name: cache, mountPath: /cache}]}]
  volumes: [{name: cache, persistentVolumeClaim: {claimName: model-cache}}]
""",
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_a_mistyped_shape_never_raises(tmp_path, name):
    path = tmp_path / f"{name}.yaml"
    path.write_text(SHAPES[name])
    violations = evaluate(load_resources(manifest_files([str(path)])))
    assert all(isinstance(v.message, str) for v in violations)


def test_a_mount_name_that_is_a_map_is_no_volume():
    """S51 service-port-reaches-server, reading whether anything outside a shell-started vLLM's own lines may set its
    port (elizabetht/token-labs deploy/archive/models/deepseek-r1-7b/pods-deepseek-r1.yaml, a mount's name mistyped as
    a map: the fuzzer's case looked it up in a dict of the pod's volumes)."""
    podspec = {"volumes": [{"name": "shm", "emptyDir": {"medium": "Memory"}}]}
    container = {"name": "vllm", "volumeMounts": [{"name": {"name": [1]}, "mountPath": "/model-cache"}]}
    assert service_listeners._closed(podspec, [container]) is True


def test_an_env_name_that_is_a_list_is_no_variable():
    """S-row model-files-filled, asking whether a model server downloads its own files (tools/fuzz_check.py seed 5353
    over the corpora: an env entry's name mistyped as a list was put in a set)."""
    from policies.models import model_files_filled

    container = {"name": "vllm", "image": "vllm/vllm-openai:v0.10.1", "env": [{"name": ["HF_TOKEN"]}, "x", None]}
    assert model_files_filled._downloads_itself(container) is False
