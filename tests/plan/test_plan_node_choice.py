"""`plan` reports Karpenter's node choice per pool and model, and writes it under derived/karpenter/."""

from __future__ import annotations

import yaml

from stacks.plan import NODE_CHOICE_FILE, run_plan
from stacks.report import render_markdown, render_text


def test_prod_reports_nodes_and_idle_gpus_and_writes_the_choice():
    result = run_plan("prod", simulate_slo=False)
    pools = {p["name"]: p for p in result.report["pools"]}
    # llama-70b's five TP4 replicas share p5s two by two (components/derive/karpenter.py); the 405B takes its own
    # pool's two (its head beside a worker), none idle.
    assert (pools["h100"]["nodes"], pools["h100"]["idle_gpus"]) == (3, 4)
    assert pools["h100"]["node_instance_types"] == {"p5.48xlarge": 3}
    assert (pools["h100-ray"]["nodes"], pools["h100-ray"]["idle_gpus"]) == (2, 0)
    written = yaml.safe_load(result.files[NODE_CHOICE_FILE])
    assert written == result.report["node_choice"]
    assert {m["model"]: m["nodes"] for m in written["models"]}["llama-70b"] == 3
    text = render_text(result.report)
    assert "nodes llama-70b: 5 pods on 3 x p5.48xlarge (h100)" in text
    markdown = render_markdown(result.report)
    assert "| llama-70b | h100 | 5 | 3 | p5.48xlarge | - |" in markdown


def test_the_report_says_which_pools_hold_drift_and_what_a_ray_cluster_edit_costs():
    # Review of issue 30, findings 4 and 12: held drift (a multi-node engine's pool, rolled by hand) is reported in the
    # pool tables, and the RayCluster edit's cost is in the Markdown report, not only in the text one.
    result = run_plan("prod", simulate_slo=False)
    pools = {p["name"]: p for p in result.report["pools"]}
    assert (pools["h100-ray"]["drift"], pools["h100"]["drift"], pools["l40s"]["drift"]) == ("held", "window", "window")
    text = render_text(result.report)
    (row,) = [line for line in text.splitlines() if line.strip().startswith("h100-ray ")]
    assert "held: planned roll (docs/platform.md)" in row
    markdown = render_markdown(result.report)
    assert "| 2 | 0 | held: planned roll (docs/platform.md) | llama-405b |" in markdown
    assert "| 3 | 4 | in window | llama-70b |" in markdown
    (edit,) = [line for line in markdown.splitlines() if line.startswith("| llama-405b | upgradeStrategy Recreate")]
    assert "all 3 pods deleted and recreated" in edit and "pulumi" in edit


def test_policies_check_of_a_plan_folder_leaves_its_derived_objects_to_the_plan(tmp_path):
    # The derived objects are the controllers' output, checked by the plan; `policies check build/` reads the objects
    # we render, not them (the run's file walker, policies/input/run_files.py). Named explicitly, derived/ is read.
    from policies import manifests
    from policies.input import run_files
    from stacks import plan as planmod

    assert run_files.PLAN_MARKER == planmod.PLAN_MARKER and run_files.DERIVED_FOLDER in planmod.PLAN_FOLDERS
    (tmp_path / "derived").mkdir()
    (tmp_path / "kubernetes").mkdir()
    (tmp_path / "derived" / "pod.yaml").write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n")
    (tmp_path / "kubernetes" / "ns.yaml").write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: n}\n")
    (tmp_path / run_files.PLAN_MARKER).write_text("plan\n")
    assert [p.rsplit("/", 2)[-2] for p in manifests.manifest_paths([str(tmp_path)])] == ["kubernetes"]
    assert manifests.manifest_paths([str(tmp_path / "derived")]) == [str(tmp_path / "derived" / "pod.yaml")]
