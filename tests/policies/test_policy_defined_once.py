"""G58 object-defined-once, and how a folder that defines one object twice is checked (policies/scopes.py variants).

Fixtures (facts of the files, as `policies check` reads them; not copies):
- spent set 28 sebassem/vllm-aks infra/manifests/vllm-deployment.yml and vllm-service.yml
  @168760dc24660e094a54bfc16f65bcfcd7889605: both define Service/vllm-service (LoadBalancer :8000), the first selecting
  app=qwen3 (the Deployment's pods), the second app=qwen2; vllm-pvc.yml makes the ReadWriteOnce claim the
  Deployment mounts. Labelled (none, blocking): applying the folder leaves the LoadBalancer with no endpoints.
- spent set 28 brayanpena530/multiLLM-EKS-Deploy services/mistral.yaml@70aa73e and vllm.yaml@e121a0b: both define
  Deployment/vllm (Mistral-7B against TinyLlama) and the same Service/vllm. Labelled (none, advisory).
- second form: GoogleCloudPlatform/kubernetes-engine-samples ai-ml/llm-serving-gemma/vllm/vllm-3-1b-it.yaml
  @2d03964 and vllm-3-27b-it.yaml@3c147d5 (one folder upstream): both define Deployment/vllm-gemma-deployment
  (reference corpus; tests/policies/test_policy_corpus.py pins the finding there).
Careful forms, silent: identical copies; a Kustomize patch beside its base; the same object in build/dev and
build/prod (two clusters, never joined: tests/policies/test_policy_scopes.py).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import yaml

from policies.check import main
from policies.manifests import read_manifests
from policies.scopes import split


def _write(path: Path, *docs: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False))


def _service(selector: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "vllm-service"},
        "spec": {"type": "LoadBalancer", "selector": {"app": selector}, "ports": [{"port": 8000, "targetPort": 8000}]},
    }


def _qwen_deployment() -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "vllm-server"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "qwen3"}},
            "template": {
                "metadata": {"labels": {"app": "qwen3"}},
                "spec": {
                    "containers": [
                        {
                            "name": "vllm-server",
                            "image": "vllm/vllm-openai:latest",
                            "args": ["--model", "Qwen/Qwen3-0.6B"],
                            "ports": [{"containerPort": 8000}],
                            "resources": {"limits": {"nvidia.com/gpu": 1}},
                            "volumeMounts": [{"name": "cache-volume", "mountPath": "/root/.cache/huggingface"}],
                        }
                    ],
                    "volumes": [{"name": "cache-volume", "persistentVolumeClaim": {"claimName": "vllm-qwen3-pvc"}}],
                },
            },
        },
    }


_PVC = {
    "apiVersion": "v1",
    "kind": "PersistentVolumeClaim",
    "metadata": {"name": "vllm-qwen3-pvc"},
    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "50Gi"}}},
}


def _sebassem(folder: Path) -> None:
    _write(folder / "vllm-deployment.yml", _qwen_deployment(), _service("qwen3"))
    _write(folder / "vllm-pvc.yml", _PVC)
    _write(folder / "vllm-service.yml", _service("qwen2"))


def _report(capsys, *paths: Path) -> dict:
    main([*map(str, paths), "--format", "json"], stdin=io.BytesIO())
    return json.loads(capsys.readouterr().out)


def _rows(report: dict, policy: str) -> list[tuple[str, str, str]]:
    return [(Path(v["file"]).name, v["enforcement"], v["message"]) for v in report["violations"] if v["policy"] == policy]


def test_a_redefined_service_is_reported_in_both_files_naming_the_other(tmp_path, capsys):
    _sebassem(tmp_path)
    rows = _rows(_report(capsys, tmp_path), "object-defined-once")
    assert rows == [
        (
            "vllm-deployment.yml",
            "advisory",
            "Service vllm-service is defined again with other content in vllm-service.yml (line 1, differing at "
            "spec.selector.app): `kubectl apply -f` on the folder applies its files in name order, so vllm-service.yml's "
            "definition, applied after this one, replaces it and this one does not stay; give each its own name, or "
            "keep one definition",
        ),
        (
            "vllm-service.yml",
            "advisory",
            "Service vllm-service is defined again with other content in vllm-deployment.yml (line 34, differing at "
            "spec.selector.app): `kubectl apply -f` on the folder applies its files in name order, so this definition, "
            "applied last, replaces the other; give each its own name, or keep one definition",
        ),
    ]


def test_the_other_files_of_the_folder_still_join_each_definition(tmp_path, capsys):
    # Before: the folder was split file by file ("separate clusters, never joined"), so G56 never saw the Deployment
    # beside the second Service and S30 never saw the claim beside the Deployment.
    _sebassem(tmp_path)
    report = _report(capsys, tmp_path)
    assert report["scopes"] == []
    g56 = _rows(report, "service-selects-pods")
    assert [(f, level) for f, level, _ in g56] == [("vllm-service.yml", "advisory")]
    assert "Deployment/vllm-server of the same directory labels its pods app=qwen3" in g56[0][2]
    s30 = _rows(report, "single-attach-volume-rolls")
    assert len(s30) == 1 and "vllm-qwen3-pvc is ReadWriteOnce" in s30[0][2]


def test_findings_two_variants_share_are_reported_once(tmp_path, capsys):
    _sebassem(tmp_path)
    report = _report(capsys, tmp_path)
    keys = [(v["policy"], v["file"], v["message"]) for v in report["violations"]]
    assert len(keys) == len(set(keys))
    assert len(_rows(report, "image-tag-pinned")) == 1


def test_two_models_under_one_deployment_name(tmp_path, capsys):
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "vllm"},
        "spec": {"selector": {"app": "vllm"}, "ports": [{"port": 8000}]},
    }

    def deployment(model: str) -> dict:
        out = _qwen_deployment()
        out["metadata"]["name"] = "vllm"
        out["spec"]["selector"]["matchLabels"] = out["spec"]["template"]["metadata"]["labels"] = {"app": "vllm"}
        out["spec"]["template"]["spec"]["containers"][0]["args"] = [f"--model={model}"]
        return out

    _write(tmp_path / "services__mistral.yaml", deployment("mistralai/Mistral-7B-Instruct-v0.2"), service)
    _write(tmp_path / "vllm.yaml", deployment("TinyLlama/TinyLlama-1.1B-Chat-v1.0"), service)
    rows = _rows(_report(capsys, tmp_path), "object-defined-once")
    # The Deployments differ; the Services are identical copies (one object): silent.
    assert [(f, m.split(" is defined")[0]) for f, _, m in rows] == [
        ("services__mistral.yaml", "Deployment vllm"),
        ("vllm.yaml", "Deployment vllm"),
    ]
    assert "differing at spec.template.spec.containers[0].args[0]" in rows[0][2]


def test_identical_copies_are_silent_and_each_is_checked_once(tmp_path, capsys):
    _write(tmp_path / "a.yaml", _service("qwen3"))
    _write(tmp_path / "b.yaml", _service("qwen3"))
    _write(tmp_path / "deploy.yaml", _qwen_deployment())
    report = _report(capsys, tmp_path)
    assert _rows(report, "object-defined-once") == []
    assert _rows(report, "service-selects-pods") == []
    assert len(_rows(report, "image-tag-pinned")) == 1


def test_a_kustomize_patch_beside_its_base_is_no_redefinition(tmp_path, capsys):
    patch = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "vllm-service"}, "spec": {"type": "ClusterIP"}}
    _write(tmp_path / "service.yaml", _service("qwen3"))
    _write(tmp_path / "patch.yaml", patch)
    (tmp_path / "kustomization.yaml").write_text("resources:\n- service.yaml\npatches:\n- path: patch.yaml\n")
    assert _rows(_report(capsys, tmp_path), "object-defined-once") == []


def test_two_clusters_stay_apart_and_are_no_redefinition(tmp_path, capsys):
    _sebassem(tmp_path / "build" / "dev")
    _write(tmp_path / "build" / "prod" / "vllm-service.yml", _service("other"))
    report = _report(capsys, tmp_path / "build")
    assert report["scopes"] == ["dev", "prod"]
    assert {f for f, _, _ in _rows(report, "object-defined-once")} == {"vllm-deployment.yml", "vllm-service.yml"}
    assert all("build/dev" in v["file"] for v in report["violations"] if v["policy"] == "object-defined-once")


def test_variants_hold_one_definition_each_and_the_rest_of_the_folder(tmp_path):
    _sebassem(tmp_path)
    objects = read_manifests([str(tmp_path)]).objects
    scopes = split(objects)
    shown = [(s.variant, sorted(f"{Path(objects[i].file).name}:{objects[i].kind}" for i in s.indexes)) for s in scopes]
    rest = ["vllm-deployment.yml:Deployment", "vllm-pvc.yml:PersistentVolumeClaim"]
    assert shown == [
        ("vllm-deployment.yml", sorted([*rest, "vllm-deployment.yml:Service"])),
        ("vllm-service.yml", sorted([*rest, "vllm-service.yml:Service"])),
    ]


def test_unrelated_repetitions_share_variants(tmp_path):
    # a.yaml and b.yaml repeat one object, c.yaml and d.yaml another: two variants, not four.
    def pool(name: str, limit: int) -> dict:
        return {
            "apiVersion": "karpenter.sh/v1",
            "kind": "NodePool",
            "metadata": {"name": name},
            "spec": {"limits": {"cpu": limit}},
        }

    _write(tmp_path / "a.yaml", pool("x", 1))
    _write(tmp_path / "b.yaml", pool("x", 2))
    _write(tmp_path / "c.yaml", pool("y", 1))
    _write(tmp_path / "d.yaml", pool("y", 2))
    scopes = split(read_manifests([str(tmp_path)]).objects)
    assert [(s.label, s.variant, len(s.indexes)) for s in scopes] == [("", "a.yaml, c.yaml", 2), ("", "b.yaml, d.yaml", 2)]


def test_a_second_definition_is_checked_with_the_whole_cluster_and_reports_only_itself(tmp_path):
    # Both variants hold the whole cluster (the second without the first definition): a rule that joins folders (a
    # LimitRange in another folder, a NodePool) judges the second definition as it judges the first. The second
    # reports only the findings on that definition (the rest is reported once, from the first).
    _sebassem(tmp_path / "app")
    _write(tmp_path / "pools" / "pool.yaml", {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "gpu"}})
    objects = read_manifests([str(tmp_path)]).objects
    scopes = split(objects)
    assert [(s.label, s.variant, len(s.indexes)) for s in scopes] == [
        ("", "vllm-deployment.yml", 4),
        ("", "vllm-service.yml", 4),
    ]
    assert scopes[0].own is None
    assert [Path(objects[i].file).name for i in scopes[1].own or ()] == ["vllm-service.yml"]
