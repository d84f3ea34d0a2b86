"""`python -m stacks plan prod` with its two-node model: a RayCluster whose numbers are the plan's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.conftest import STACKS, absolute_traffic
from tests.plan.test_plan_cli import run


@pytest.fixture(scope="module")
def prod_plan(tmp_path_factory):
    out = tmp_path_factory.mktemp("prod-multi-node")
    proc = run("plan", "prod", "--format", "json", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    return report, out, next(m for m in report["models"] if m.get("layout"))


def test_report_shows_the_layout(prod_plan):
    _, _, m = prod_plan
    layout = m["layout"]
    assert (layout["nodes"], layout["gpus_per_node"], layout["layers_per_stage"]) == (2, 8, [63, 63])
    assert m["gpus_per_replica"] == 16 and m["gpus_per_pod"] == 8
    assert [s["kv_cache_gib"] for s in layout["stages"]] == [m["kv_cache_gib"]] * 2


def test_rendered_ray_cluster_agrees_with_the_capacity_plan(prod_plan):
    report, out, m = prod_plan
    cluster = yaml.safe_load((out / "kubernetes" / "llm" / f"raycluster-{m['name']}.yaml").read_text())
    head = cluster["spec"]["headGroupSpec"]
    (workers,) = cluster["spec"]["workerGroupSpecs"]
    worker = workers["template"]["spec"]["containers"][0]
    # Head: num-gpus 0, no GPU. Workers: GPUs = TP x PP over the nodes, memory /dev/shm.
    assert head["rayStartParams"]["num-gpus"] == "0"
    assert "nvidia.com/gpu" not in json.dumps(head["template"]["spec"]["containers"][0]["resources"])
    assert workers["replicas"] * int(worker["resources"]["limits"]["nvidia.com/gpu"]) == m["gpus_per_replica"]
    assert workers["replicas"] == m["layout"]["nodes"]
    shm = next(v for v in workers["template"]["spec"]["volumes"] if v["name"] == "dshm")
    assert shm["emptyDir"] == {"medium": "Memory", "sizeLimit": f"{m['resources']['shm_gib']}Gi"}
    script = head["template"]["spec"]["containers"][0]["args"][0]
    for flag in (
        f"--tensor-parallel-size={m['layout']['gpus_per_node']}",
        f"--pipeline-parallel-size={m['layout']['nodes']}",
        "--distributed-executor-backend=ray",
        f"--max-num-seqs={m['max_num_seqs']}",
        f"--max-num-batched-tokens={m['max_num_batched_tokens']}",
        f"--max-num-queued-reqs={m['max_num_seqs'] + m['max_num_queued_reqs']}",
    ):
        assert flag in script
    budget = head["template"]["spec"]["containers"][0]["startupProbe"]
    assert budget["failureThreshold"] * budget["periodSeconds"] == m["startup_budget_seconds"]
    assert json.loads(cluster["metadata"]["annotations"]["llm-serving.io/capacity-plan"])["kvCacheTokens"] == m["kv_cache_tokens"]


def test_service_operator_and_efa_rules_are_written(prod_plan):
    report, out, m = prod_plan
    svc = yaml.safe_load((out / "kubernetes" / "llm" / f"service-{m['name']}.yaml").read_text())
    assert svc["spec"]["selector"]["ray.io/node-type"] == "head"
    types = {r["type"] for r in report["resources"]}
    assert {"llm-serving:ray:KubeRay", "llm-serving:ray:RayVllmService", "kubernetes:ray.io/v1:RayCluster"} <= types
    # The operator's release as `helm install` would get it: pinned chart, repository, values.
    release = yaml.safe_load((out / "helm" / "kuberay-system" / "kuberay-operator.yaml").read_text())
    assert (release["chart"], release["version"]) == ("kuberay-operator", "1.7.0")
    rules = sorted(p.name for p in (out / "aws").glob("securitygroup*rule-*efa*.json"))
    assert rules == [
        "securitygroupegressrule-prod-pool-h100-ray-efa-egress.json",
        "securitygroupingressrule-prod-pool-h100-ray-efa-ingress.json",
    ]
    for name in rules:
        inputs = json.loads((out / "aws" / name).read_text())["inputs"]
        assert inputs["ipProtocol"] == "-1" and inputs["referencedSecurityGroupId"] == inputs["securityGroupId"]
    assert (out / "aws" / "securitygroup-prod-pool-h100-ray-efa-sg.json").exists()


def _variant(tmp_path: Path, edit) -> Path:
    doc = yaml.safe_load((STACKS / "Pulumi.prod.yaml").read_text())
    edit(absolute_traffic(doc["config"]))
    path = tmp_path / "Pulumi.multinode.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def _model(config: dict) -> dict:
    return next(m for m in config["llm-serving:models"] if m.get("distributed"))


def test_tp_times_pp_that_does_not_fill_the_nodes_exits_2_naming_the_rule(tmp_path):
    path = _variant(tmp_path, lambda c: _model(c)["engine"].update(tensorParallelSize=4, pipelineParallelSize=3))
    out = tmp_path / "out"
    proc = run("plan", str(path), "--out", str(out))
    assert proc.returncode == 2, proc.stdout
    assert (
        "models[3].engine.pipelineParallelSize = 3: tensor parallel size x pipeline parallel size must equal "
        "GPUs per node x nodes: 4 x 3 = 12 GPUs"
    ) in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    assert not out.exists()


def test_without_the_opt_in_the_error_names_it(tmp_path):
    path = _variant(tmp_path, lambda c: _model(c).pop("distributed"))
    proc = run("plan", str(path), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert "set models[3].distributed: {backend: ray} to spread the engine over several nodes (KubeRay)" in proc.stderr


def test_kuberay_install_false_skips_the_operator(tmp_path):
    path = _variant(tmp_path, lambda c: c.update({"llm-serving:kuberay": {"install": False}}))
    proc = run("plan", str(path), "--format", "json", "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    resources = json.loads(proc.stdout)["resources"]
    assert not [r for r in resources if r["type"] == "kubernetes:helm.sh/v3:Release" and "kuberay" in r["name"]]
    assert "kubernetes:ray.io/v1:RayCluster" in {r["type"] for r in resources}
    assert not (tmp_path / "out" / "helm" / "kuberay-system").exists()


def test_markdown_report_has_the_layout_table(tmp_path):
    proc = run("plan", "prod", "--format", "markdown", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "| llama-405b | 2 x 8 (p5.48xlarge) | 8 x 2 | 63, 63 | 19.34, 19.34 |" in proc.stdout
