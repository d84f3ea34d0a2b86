"""Kustomize overlays: a strategic-merge patch lacks what its base holds, so absence findings on it are advice.

The overlay shape is Kubernetes' own Kustomize example ("Declarative Management of Kubernetes Objects Using
Kustomize", kubernetes.io/docs/tasks/manage-kubernetes-objects/kustomization/: a base Deployment and an overlay whose
``set_memory.yaml`` / ``increase_replicas.yaml`` name the Deployment and set one field), here with a vLLM base and a
GPU patch, reduced by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from policies.check import main
from policies.reading.kustomize import listed_patches, patch_shaped

BASE = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm", "namespace": "llm"},
    "spec": {
        "replicas": 1,
        "strategy": {"type": "Recreate"},
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "nodeSelector": {"karpenter.k8s.aws/instance-gpu-name": "l40s"},
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                "terminationGracePeriodSeconds": 600,
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.10.1",
                        "args": ["--model", "/models/qwen", "--gpu-memory-utilization", "0.9", "--max-model-len", "8192"],
                        "resources": {
                            "requests": {"cpu": "4", "memory": "32Gi", "nvidia.com/gpu": 1},
                            "limits": {"cpu": "8", "memory": "32Gi", "nvidia.com/gpu": 1},
                        },
                        "readinessProbe": {"httpGet": {"path": "/health", "port": 8000}},
                        "startupProbe": {"httpGet": {"path": "/health", "port": 8000}, "failureThreshold": 90},
                        "lifecycle": {"preStop": {"exec": {"command": ["sleep", "30"]}}},
                        "volumeMounts": [{"name": "models", "mountPath": "/models"}],
                    }
                ],
                "volumes": [{"name": "models", "persistentVolumeClaim": {"claimName": "models", "readOnly": True}}],
            },
        },
    },
}
# The overlay's patch: the Deployment's name and the one container field it changes (no selector, no image).
GPU_PATCH = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm", "namespace": "llm"},
    "spec": {"template": {"spec": {"containers": [{"name": "vllm", "resources": {"limits": {"nvidia.com/gpu": 2}}}]}}},
}


def _write(path: Path, *docs: dict | str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("---\n".join(d if isinstance(d, str) else yaml.safe_dump(d, sort_keys=False) for d in docs))


def _check(paths: list[Path], capsys) -> tuple[int, list[dict]]:
    code = main([*map(str, paths), "--format", "json"])
    return code, json.loads(capsys.readouterr().out)["violations"]


def _mandatory(rows: list[dict], file: str) -> list[str]:
    return [r["policy"] for r in rows if r["enforcement"] == "mandatory" and r["file"].endswith(file)]


def test_patch_named_by_a_kustomization_blocks_nothing_it_lacks(tmp_path, capsys):
    _write(tmp_path / "base" / "deployment.yaml", BASE)
    _write(tmp_path / "base" / "kustomization.yaml", "resources: [deployment.yaml]\n")
    # A full-looking object (selector, image) is still a patch when the overlay's kustomization lists it.
    patch = json.loads(json.dumps(BASE))
    del patch["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]
    del patch["spec"]["template"]["spec"]["containers"][0]["resources"]
    _write(tmp_path / "overlays" / "prod" / "vllm.yaml", patch)
    _write(tmp_path / "overlays" / "prod" / "kustomization.yaml", "resources: [../../base]\npatches:\n- path: vllm.yaml\n")
    code, rows = _check([tmp_path], capsys)
    assert _mandatory(rows, "overlays/prod/vllm.yaml") == []
    advised = {r["policy"] for r in rows if r["file"].endswith("overlays/prod/vllm.yaml")}
    assert {"serving-readiness-probe", "serving-memory-limit", "serving-resource-requests"} <= advised
    assert all("a patch that Kustomize merges onto a base" in r["message"] for r in rows if r["policy"] == "serving-memory-limit")
    assert code == 0
    # Without the kustomization the same file is a whole object, and its missing probe and limits are findings of
    # their own level (advisory rows, docs/policies.md "Enforcement levels"), no longer a patch's.
    (tmp_path / "overlays" / "prod" / "kustomization.yaml").unlink()
    code, rows = _check([tmp_path / "overlays"], capsys)
    assert {"serving-readiness-probe", "serving-memory-limit"} <= {r["policy"] for r in rows if r["file"].endswith("vllm.yaml")}
    assert not any("a patch that Kustomize merges onto a base" in r["message"] for r in rows if r["file"].endswith("vllm.yaml"))


def test_patch_shaped_file_without_its_kustomization(tmp_path, capsys):
    # Only the overlay folder's patch is checked (a PR that changes one patch): no selector, no image.
    _write(tmp_path / "gpu-patch.yaml", GPU_PATCH)
    code, rows = _check([tmp_path / "gpu-patch.yaml"], capsys)
    assert _mandatory(rows, "gpu-patch.yaml") == []
    assert {"serving-readiness-probe", "serving-memory-limit"} <= {r["policy"] for r in rows}
    assert code == 0


def test_what_a_patch_states_still_blocks(tmp_path, capsys):
    # The patch's image replaces the base's: a :latest tag in it is in the merged object.
    latest = json.loads(json.dumps(GPU_PATCH))
    latest["spec"]["template"]["spec"]["containers"][0]["image"] = "vllm/vllm-openai:latest"
    del latest["spec"]["template"]["spec"]["containers"][0]["resources"]
    _write(tmp_path / "image.yaml", latest)
    _write(tmp_path / "kustomization.yaml", "resources: [../base]\npatches:\n- path: image.yaml\n")
    code, rows = _check([tmp_path / "image.yaml"], capsys)
    # image-tag-pinned is advisory by default (docs/policies.md "Enforcement levels"): the patch's own statement is
    # reported at the policy's level, not downgraded as a patch's gap would be.
    assert [
        (r["policy"], r["enforcement"]) for r in rows if r["file"].endswith("image.yaml") and r["policy"] == "image-tag-pinned"
    ] == [("image-tag-pinned", "advisory")]
    assert not any("a patch that Kustomize merges onto a base" in r["message"] for r in rows if r["policy"] == "image-tag-pinned")


def test_patch_shapes():
    assert patch_shaped(GPU_PATCH)
    assert not patch_shaped(BASE)
    no_image = json.loads(json.dumps(BASE))
    del no_image["spec"]["template"]["spec"]["containers"][0]["image"]
    assert patch_shaped(no_image)
    # Custom resources are not judged by shape: an operator fills their images (a KServe predictor's model).
    isvc = {"apiVersion": "serving.kserve.io/v1beta1", "kind": "InferenceService", "spec": {"predictor": {"model": {}}}}
    assert not patch_shaped(isvc)
    # A missing selector alone is a careless whole object (hand-written snippets omit it), judged as written.
    no_selector = json.loads(json.dumps(BASE))
    del no_selector["spec"]["selector"]
    assert not patch_shaped(no_selector)


def test_listed_patches_resolves_paths_as_kustomize_does(tmp_path):
    # Inline patches (a block of YAML in place of a path) name no file.
    _write(
        tmp_path / "o" / "kustomization.yaml",
        "patchesStrategicMerge:\n- a.yaml\n- |-\n  kind: Deployment\n  metadata: {name: x}\npatches:\n- path: ../p/b.yaml\n"
        "- patch: |-\n    - op: replace\npatchesJson6902:\n- path: c.yaml\n  target: {kind: Deployment, name: x}\n",
    )
    _write(tmp_path / "o" / "d.yaml", "kind: x\n")
    found = listed_patches([str(tmp_path / "o" / "d.yaml")])
    assert found == {str(tmp_path / "o" / "a.yaml"), str(tmp_path / "p" / "b.yaml"), str(tmp_path / "o" / "c.yaml")}
