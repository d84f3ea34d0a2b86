"""A document that is not valid YAML read best-effort (policies/reading/salvage.py): S27 stays mandatory and says so,
the repaired object is checked by every rule, every finding on it advice (framework.SALVAGE_NOTE).

Fixtures are cut-down forms of real invalid files, cited where used; the careful forms show that a valid file's
findings do not change and that what no small repair reads is reported exactly as before.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from components.loading import LoadError
from policies.check import check_report, render, resources_of
from policies.framework import SALVAGE_NOTE
from policies.manifests import read_manifests
from policies.reading import salvage as salvage_module
from policies.registry import evaluate

ROOT = Path(__file__).resolve().parents[2]

# spangreen/K8s-Ollama-Setup manifests/vllm-deployment.yaml@7373feb524420908e908f9fefa9fd5372fd72558 (set 12), cut
# down: `volumeMounts:` one column right of its siblings (line 31 here), inside it vllm/vllm-openai:latest, memory
# limit "64" (bytes) and command "bin/sh" running `vllm server`.
SPANGREEN = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
  namespace: llm
spec:
  replicas: 1
  selector:
    matchLabels:
      app: vllm
  template:
    metadata:
      labels:
        app: vllm
    spec:
      volumes:
        - name: shm
          emptyDir:
            medium: Memory
            sizeLimit: "2Gi"
      containers:
        - name: vllm
          image: vllm/vllm-openai:latest
          command: ["bin/sh", "-c"]
          args:
            - "vllm server Qwen/Qwen2.5-0.5B-Instruct"
          resources:
            limits:
              memory: "64"
              nvidia.com/gpu: 1
           volumeMounts:
             - mountPath: /dev/shm
               name: shm
"""

# GoogleCloudPlatform/kubernetes-engine-samples ai-ml/gke-model-armor/configuring-the-gateway/llm-httproute.yaml
# @2b5036514162a489145c5e5570bc320efbcb37bf, as published: list items `-   key:` whose next keys sit two columns
# after the dash.
GKE_ROUTE = """apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: llm-httproute
spec:
      parentRefs:
      -   name: llm-gateway
      rules:
      -   backendRefs:
        -   name: llm-service
          port: 8000
"""

# The same repository's ai-ml/gke-model-armor/preparing-the-model/vllm-gemma-deployment.yaml@2b50365, cut down to the
# container: the same `-   ` items, the keys after them two columns after the dash.
GKE_DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm-gemma-deployment
spec:
      replicas: 1
      selector:
        matchLabels:
          app: gemma-server
      template:
        metadata:
          labels:
            app: gemma-server
        spec:
          containers:
          -   name: inference-server
            image: vllm/vllm-openai:latest
            args:
            -   --model=/models/gemma-7b
"""


def read(tmp_path: Path, text: str, name: str = "m.yaml"):
    path = tmp_path / name
    path.write_text(text)
    manifests = read_manifests([str(path)])
    return manifests, evaluate(resources_of(manifests))


def s27(violations) -> list:
    return [v for v in violations if v.policy == "manifest-readable"]


def test_the_set12_deployment_is_read_and_its_problems_found_as_advice(tmp_path):
    manifests, violations = read(tmp_path, SPANGREEN)
    [obj] = manifests.objects
    assert obj.salvaged == "line 31 read at column 11 (not 12)" and obj.location.endswith("#0~salvaged")
    assert obj.obj["spec"]["template"]["spec"]["containers"][0]["volumeMounts"] == [{"mountPath": "/dev/shm", "name": "shm"}]
    [finding] = s27(violations)
    assert finding.enforcement == "mandatory"
    assert finding.message == (
        "document 0 is not valid YAML: did not find expected key, so it cannot be applied; read best-effort (line 31 "
        "read at column 11 (not 12)): 1 object checked, every finding on it advice"
    )
    others = [v for v in violations if v.policy != "manifest-readable"]
    assert others and all(v.enforcement == "advisory" and v.message.endswith(f"({SALVAGE_NOTE})") for v in others)
    found = {v.policy for v in others}
    assert {"image-tag-pinned", "container-can-start"} <= found
    messages = " ".join(v.message for v in others)
    assert "resources.limits.memory is 64 bytes" in messages and "command 'bin/sh' is a relative path" in messages


def test_the_s27_line_and_level_are_those_of_today(tmp_path):
    manifests, _ = read(tmp_path, SPANGREEN)
    [u] = manifests.unreadable
    assert (u.document, u.line, u.kind) == (0, 31, "invalid-read")


def test_reports_list_the_documents_read_best_effort(tmp_path):
    manifests, violations = read(tmp_path, SPANGREEN)
    report = check_report(manifests, violations)
    [row] = report["salvaged"]
    assert (row["document"], row["line"], row["objects"]) == (0, 1, 1) and row["repair"].startswith("line 31")
    assert "[read best-effort]" in render(report, "text")
    assert "Read best-effort from documents that are not valid YAML" in render(report, "markdown")


def test_wide_dash_items_are_read_as_their_author_meant(tmp_path):
    manifests, violations = read(tmp_path, GKE_ROUTE)
    [route] = manifests.objects
    assert route.salvaged == "'-   ' list items read as '- '"
    assert route.obj["spec"]["rules"] == [{"backendRefs": [{"name": "llm-service", "port": 8000}]}]
    assert [v.enforcement for v in s27(violations)] == ["mandatory"]
    assert all(v.enforcement == "advisory" for v in violations if v.policy != "manifest-readable")


def test_a_wide_dash_deployment_yields_its_container(tmp_path):
    manifests, violations = read(tmp_path, GKE_DEPLOYMENT)
    [dep] = manifests.objects
    [container] = dep.obj["spec"]["template"]["spec"]["containers"]
    assert container["args"] == ["--model=/models/gemma-7b"]
    assert ("image-tag-pinned", "advisory") in {(v.policy, v.enforcement) for v in violations}


def test_tabs_in_indentation_are_expanded(tmp_path):
    text = "apiVersion: v1\nkind: Pod\nmetadata:\n\tname: p\nspec:\n\tcontainers:\n\t- name: c\n\t  image: ollama/ollama:latest\n"
    manifests, violations = read(tmp_path, text)
    [pod] = manifests.objects
    assert pod.salvaged == "tabs in indentation read as 2 columns" and pod.obj["metadata"] == {"name": "p"}
    assert ("image-tag-pinned", "advisory") in {(v.policy, v.enforcement) for v in violations}


def test_as_a_last_resort_the_object_is_read_as_far_as_it_parses(tmp_path):
    text = SPANGREEN.replace('              memory: "64"\n', '              memory: "64" "x"\n')
    manifests, violations = read(tmp_path, text)
    [dep] = manifests.objects
    assert dep.salvaged == "read only up to line 29"
    assert dep.obj["spec"]["template"]["spec"]["containers"][0]["image"] == "vllm/vllm-openai:latest"
    assert [v.enforcement for v in s27(violations)] == ["mandatory"]


# ---- careful forms ------------------------------------------------------------------------------------------------


VALID = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: ok
spec:
  selector:
    matchLabels: {app: ok}
  template:
    metadata:
      labels: {app: ok}
    spec:
      containers:
        - name: ollama
          image: ollama/ollama:latest
"""


def test_a_valid_files_findings_are_byte_identical_beside_a_salvaged_file(tmp_path):
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "valid.yaml").write_text(VALID)
    both = tmp_path / "both"
    both.mkdir()
    (both / "valid.yaml").write_text(VALID)
    (both / "broken.yaml").write_text(SPANGREEN)

    def on_valid(folder: Path) -> list[tuple[str, str, str]]:
        violations = evaluate(resources_of(read_manifests([str(folder)])))
        return [(v.policy, v.enforcement, v.message) for v in violations if "valid.yaml" in v.resource]

    assert on_valid(both) == on_valid(alone) != []


@pytest.mark.parametrize(
    "text",
    [
        "a: [1\n",  # no repair reads it
        "apiVersion: v1\n  bad: [\nkind: ConfigMap\n",  # neither a move nor the prefix reads apiVersion and kind
        "image: x\n  tag: y\n name: z\n",  # read, but no apiVersion and kind: not an object
    ],
)
def test_what_no_repair_reads_is_reported_exactly_as_today(tmp_path, text):
    manifests, violations = read(tmp_path, text)
    assert not manifests.objects and not manifests.salvaged
    [u] = manifests.unreadable
    assert u.kind == "invalid" and u.why.startswith("is not valid YAML: ") and ", so it cannot" not in u.why
    [finding] = s27(violations)
    assert finding.message == f"document 0 was not checked: {u.why}" and finding.enforcement == "mandatory"


def test_the_repair_is_imported_only_when_a_document_does_not_parse(tmp_path):
    code = (
        "import sys; from policies.manifests import read_manifests; read_manifests([sys.argv[1]]); "
        "print('policies.reading.salvage' in sys.modules)"
    )
    (tmp_path / "valid.yaml").write_text(VALID)
    (tmp_path / "broken.yaml").write_text(SPANGREEN)
    for name, loaded in (("valid.yaml", "False"), ("broken.yaml", "True")):
        out = subprocess.run(
            [sys.executable, "-c", code, str(tmp_path / name)], cwd=ROOT, capture_output=True, text=True, timeout=60
        )
        assert out.stdout.strip() == loaded, out.stderr


def test_the_cli_exits_1_on_a_salvaged_file_with_the_salvaged_list_in_json(tmp_path):
    (tmp_path / "broken.yaml").write_text(SPANGREEN)
    proc = subprocess.run(
        [sys.executable, "-m", "policies", "check", str(tmp_path), "--format", "json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    assert report["salvaged"][0]["objects"] == 1
    assert [v["enforcement"] for v in report["violations"] if v["policy"] == "manifest-readable"] == ["mandatory"]


# ---- bounds -------------------------------------------------------------------------------------------------------


def test_a_document_over_the_size_bound_is_not_tried():
    calls = []

    def parse(text: str):
        calls.append(1)
        raise LoadError("x", "is not valid YAML: boom", 2)

    big = "apiVersion: v1\nkind: ConfigMap\n" + "a: b\n" * (salvage_module.MAX_BYTES // 5)
    assert salvage_module.salvage(big, 2, parse) is None and calls == []


def test_one_document_spends_at_most_the_parse_budget():
    calls = []

    def parse(text: str):
        calls.append(1)
        raise LoadError("x", "is not valid YAML: boom", 3)

    text = "apiVersion: v1\nkind: Pod\n\t- a:\n" + "   -   x: 1\n  y: 2\n" * 200
    assert salvage_module.salvage(text, 3, parse) is None
    assert 0 < len(calls) <= salvage_module.MAX_PARSES


def test_a_file_of_many_mis_indented_lines_stays_fast(tmp_path):
    body = "".join(f"  k{i}: v\n   j{i}: w\n" for i in range(2000))
    start = time.perf_counter()
    manifests, _ = read(tmp_path, "apiVersion: v1\nkind: ConfigMap\ndata:\n" + body)
    assert time.perf_counter() - start < 10
    assert len(manifests.unreadable) == 1


def test_a_run_spends_at_most_its_parse_budget_on_repairs(tmp_path, monkeypatch):
    # Cold review finding 18: the budget was per document, so a file of 10,000 mis-indented Deployments took minutes.
    # The run shares one budget: once it is spent, the remaining documents are reported as before, unread.
    monkeypatch.setattr("policies.manifests.SALVAGE_RUN_PARSES", 6)
    broken = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\ndata:\n  a: b\n   c: d\n"
    manifests = read_manifests([str(_write(tmp_path / "many.yaml", "---\n".join(broken.format(i=i) for i in range(30))))])
    read_ = [u for u in manifests.unreadable if u.kind == "invalid-read"]
    unread = [u for u in manifests.unreadable if u.kind == "invalid"]
    assert 1 <= len(read_) <= 6 and len(read_) + len(unread) == 30
    assert len(manifests.objects) == len(read_)


def test_salvage_stops_when_the_run_budget_is_spent():
    calls = []

    def parse(text: str):
        calls.append(1)
        raise LoadError("x", "is not valid YAML: boom", 3)

    run = salvage_module._Run(parses=3)
    text = "apiVersion: v1\nkind: Pod\n\t- a:\n" + "   -   x: 1\n  y: 2\n" * 20
    assert salvage_module.salvage(text, 3, parse, run=run) is None and len(calls) == 3 and run.parses == 0
    assert salvage_module.salvage(text, 3, parse, run=run) is None and len(calls) == 3


# A line one column off two open levels: the level its own lines keep at the usual 2-column step, else the level of
# the value line above it (its sibling), else the shallower (set 12's form above: the whole block moved).
@pytest.mark.parametrize(
    "edit",
    [
        # `template:` one column left, its lines not moved: the level that keeps them 2 columns in (spec's, not the top)
        lambda t: t.replace("\n  template:\n", "\n template:\n"),
        # `nvidia.com/gpu: 1` one column left of its sibling `memory: "64"` (not a key of resources)
        lambda t: t.replace("              nvidia.com/gpu: 1", "             nvidia.com/gpu: 1"),
    ],
)
def test_a_line_one_column_off_is_read_where_its_neighbours_put_it(tmp_path, edit):
    valid = SPANGREEN.replace("           volumeMounts:\n             - mountPath: /dev/shm\n               name: shm\n", "")
    manifests, _ = read(tmp_path, edit(valid))
    [dep] = manifests.objects
    expected = read_manifests([str(_write(tmp_path / "valid.yaml", valid))]).objects[0].obj
    assert dep.salvaged and dep.obj == expected


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path
