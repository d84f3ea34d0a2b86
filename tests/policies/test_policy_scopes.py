"""Objects of different stacks or clusters in one `policies check` run are never joined (policies/scopes.py)."""

from __future__ import annotations

import concurrent.futures
import io
import json
import shutil
from pathlib import Path

import yaml

from policies.check import main, resources_of
from policies.manifests import read_manifests
from policies.registry import evaluate
from policies.scopes import split


def _write(path: Path, *docs: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump_all(docs))


def _nodepool(name: str) -> dict:
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name}, "spec": {}}


def _labels(folder: Path) -> list[tuple[str, int]]:
    return [(s.label, len(s.indexes)) for s in split(read_manifests([str(folder)]).objects)]


def test_planned_dev_staging_prod_checked_together_are_not_joined(tmp_path, capsys, planned):
    # The scenario of issue 32: plan every stack into build/<stack>, then check build/. Prod's ScaledObject
    # qwen3-32b (max 3 x 4 GPUs) joined to dev's or staging's NodePool l40s (limit 8 GPUs) was a wrong S8.
    build = tmp_path / "build"
    # The real plan output is the point: the three plans (each exit 0) run side by side when this test renders them
    # first, and are copied from the session's renders (tests.conftest.planned) when another test did.
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        for stack, plan in zip(("dev", "staging", "prod"), pool.map(planned, ("dev", "staging", "prod"))):
            shutil.copytree(plan.out, build / stack)
    read = read_manifests([str(build)])
    resources = resources_of(read)
    joined = [v for v in evaluate(resources) if v.policy == "llm-hpa-behavior"]
    assert any("exceeds NodePool l40s" in v.message for v in joined)  # what one scope did: the wrong S8

    main([str(build), "--format", "json"], stdin=io.BytesIO())
    report = json.loads(capsys.readouterr().out)
    assert report["scopes"] == ["dev", "prod", "staging"]
    assert not any("exceeds NodePool l40s" in v["message"] for v in report["violations"])
    # Each stack alone reports what it reports inside the joint run: the split loses no finding.
    alone = []
    for stack in ("dev", "staging", "prod"):
        main([str(build / stack), "--format", "json"], stdin=io.BytesIO())
        alone.extend(json.loads(capsys.readouterr().out)["violations"])
    key = lambda v: (v["policy"], v["file"], v["message"])  # noqa: E731
    assert sorted(map(key, alone)) == sorted(map(key, report["violations"]))


def test_one_cluster_is_one_scope(tmp_path):
    _write(tmp_path / "a" / "pool.yaml", _nodepool("l40s"))
    _write(tmp_path / "b" / "pool.yaml", _nodepool("h100"))
    assert _labels(tmp_path) == [("", 2)]


def test_same_object_in_two_folders_splits_at_the_folder_that_separates_them(tmp_path):
    _write(tmp_path / "clusters" / "east" / "pools" / "l40s.yaml", _nodepool("l40s"))
    _write(tmp_path / "clusters" / "east" / "pools" / "h100.yaml", _nodepool("h100"))
    _write(tmp_path / "clusters" / "west" / "l40s.yaml", _nodepool("l40s"))
    assert _labels(tmp_path) == [("east", 2), ("west", 1)]


def test_same_name_in_other_namespaces_or_kinds_is_no_collision(tmp_path):
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "llm", "namespace": "a"}}
    _write(tmp_path / "x" / "s.yaml", service)
    _write(tmp_path / "y" / "s.yaml", {**service, "metadata": {"name": "llm", "namespace": "b"}})
    _write(tmp_path / "y" / "p.yaml", _nodepool("llm"))
    assert _labels(tmp_path) == [("", 3)]


def test_collisions_in_one_folder_keep_the_definitions_apart_and_join_the_rest(tmp_path):
    # One folder is one cluster: each definition is checked with the folder's other objects (one variant each), and
    # never with the other definition (policies/k8s_generic/defined_once.py reports two that differ).
    _write(tmp_path / "dev.yaml", _nodepool("l40s"))
    _write(tmp_path / "prod.yaml", _nodepool("l40s"))
    _write(tmp_path / "shared.yaml", _nodepool("h100"))
    scopes = split(read_manifests([str(tmp_path)]).objects)
    assert [(s.label, s.variant, len(s.indexes)) for s in scopes] == [("", "dev.yaml", 2), ("", "prod.yaml", 2)]


def test_a_collision_inside_one_file_cannot_be_split(tmp_path):
    _write(tmp_path / "both.yaml", _nodepool("l40s"), _nodepool("l40s"))
    assert _labels(tmp_path) == [("", 2)]


def test_relative_and_absolute_arguments_mix(tmp_path, monkeypatch):
    """`policies check rel/dir /abs/dir` exited 3 (internal error: os.path.commonpath refuses to mix relative and
    absolute paths); the folders are compared as absolute paths."""
    _write(tmp_path / "east" / "l40s.yaml", _nodepool("l40s"))
    _write(tmp_path / "west" / "l40s.yaml", _nodepool("l40s"))
    monkeypatch.chdir(tmp_path)
    objects = read_manifests(["east", str(tmp_path / "west")]).objects
    assert [(s.label, len(s.indexes)) for s in split(objects)] == [("east", 1), ("west", 1)]


def _nim(image_tag: str) -> dict:
    container = {
        "name": "nim",
        "image": f"nvcr.io/nim/meta/llama-3.1-8b-instruct:{image_tag}",
        "env": [{"name": "NGC_API_KEY", "valueFrom": {"secretKeyRef": {"name": "ngc", "key": "key"}}}],
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "nim", "namespace": "llm"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "nim"}},
            "template": {"metadata": {"labels": {"app": "nim"}}, "spec": {"containers": [container]}},
        },
    }


def _gpu_default(namespace: str) -> dict:
    one = {"nvidia.com/gpu": "1"}
    return {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": {"name": "gpu-default", "namespace": namespace},
        "spec": {"limits": [{"type": "Container", "default": one, "defaultRequest": one}]},
    }


def _g13(capsys, folder: Path) -> list[tuple[str, str]]:
    main([str(folder), "--format", "json"], stdin=io.BytesIO())
    rows = json.loads(capsys.readouterr().out)["violations"]
    return sorted((Path(v["file"]).name, v["enforcement"]) for v in rows if v["catalog"] == "G13")


def test_a_second_definition_sees_what_other_folders_give_it(tmp_path, capsys):
    # Review 41 (sc3): k8s/ defines Deployment llm/nim twice (two NIM tags); ns/limits.yaml's LimitRange gives every
    # container of namespace llm one nvidia.com/gpu (the admission plugin fills the limit in). The second definition's
    # variant held only k8s/, so it missed the LimitRange and G13 blocked it for a GPU limit the API server sets.
    _write(tmp_path / "repo" / "k8s" / "nim-a.yaml", _nim("1.3.3"))
    _write(tmp_path / "repo" / "k8s" / "nim-b.yaml", _nim("1.3.4"))
    _write(tmp_path / "repo" / "ns" / "limits.yaml", _gpu_default("llm"))
    assert _g13(capsys, tmp_path / "repo") == []
    # Without the LimitRange (here: one for another namespace) both definitions are judged, and alike.
    _write(tmp_path / "repo" / "ns" / "limits.yaml", _gpu_default("other"))
    assert _g13(capsys, tmp_path / "repo") == [("nim-a.yaml", "mandatory"), ("nim-b.yaml", "mandatory")]
