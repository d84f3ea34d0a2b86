"""What `policies check` loads, and what it leaves alone (issue 32: at least 8x faster than Checkov).

Timings belong to benchmarks/policies_check.py (house rule: no timed unit tests); these tests pin the import
boundaries the speed rests on: the package alone does not load the pack, a run without a custom resource whose CEL
rules Python leaves to the library never loads the CEL library or protobuf (policies/crd/cel.py, cel_plain.py), and one
whose custom resources are structurally valid never loads jsonschema (policies/crd/schema.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import shared_path

ROOT = Path(__file__).resolve().parents[2]
# What one process imports: on two cores (policies/two_cores.py) half the policies run in a forked child, whose
# imports the process running the check never sees.
ONE_CORE = {**os.environ, "LLM_SERVING_CHECK_CORES": "1"}
HEAVY = ("cel_expr_python", "google.protobuf", "jsonschema", "pydantic", "pulumi")

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm, namespace: llm}
spec:
  selector: {matchLabels: {app: vllm}}
  template:
    metadata: {labels: {app: vllm}}
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        args: [--model, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, "8192"]
        resources: {limits: {nvidia.com/gpu: 1}}
"""
NODEPOOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: karpenter.k8s.aws/instance-family, operator: In, values: [g6]}
"""


def _loaded_after(code: str) -> dict[str, bool]:
    """Which of HEAVY (and the registry) a fresh interpreter has imported after running ``code``."""
    script = (
        f"import sys, json\n{code}\n"
        f"names = {HEAVY + ('policies.registry',)!r}\n"
        "print(json.dumps({n: any(m == n or m.startswith(n + '.') for m in sys.modules) for n in names}))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=ONE_CORE, capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _check(path: Path) -> str:
    return f"from policies.check import main\nmain([{str(path)!r}, '--format', 'json'])"


def test_importing_the_package_does_not_load_the_pack():
    loaded = _loaded_after("import policies")
    assert not loaded["policies.registry"]
    assert not any(loaded[n] for n in HEAVY), loaded


def test_the_package_names_still_load_the_pack():
    loaded = _loaded_after("from policies import POLICIES, evaluate\nassert POLICIES and callable(evaluate)")
    assert loaded["policies.registry"]


def test_a_check_without_cel_typed_custom_resources_loads_no_cel_protobuf_pydantic_or_pulumi(tmp_path):
    manifest = tmp_path / "deployment.yaml"
    manifest.write_text(DEPLOYMENT)
    loaded = _loaded_after(_check(manifest))
    assert loaded["policies.registry"]
    assert not any(loaded[n] for n in HEAVY), loaded


def test_a_custom_resource_with_plain_cel_rules_loads_neither_the_cel_library_nor_the_schema_validator_when_valid(
    tmp_path,
):
    # The rules of a pinned CRD (policies/crd/cel_rules.json) do run: a NodePool's are plain, decided in Python
    # (policies/crd/cel_plain.py); its structural schema clears a valid object without jsonschema
    # (policies/crd/schema.py _surely_valid).
    manifest = tmp_path / "nodepool.yaml"
    manifest.write_text(NODEPOOL)
    loaded = _loaded_after(_check(manifest))
    assert not any(loaded[n] for n in ("cel_expr_python", "google.protobuf", "jsonschema")), loaded


def test_a_cel_rule_python_leaves_to_the_library_loads_the_cel_library(tmp_path):
    # The other side of the boundary: Istio's duration() rules are not plain, so cel-expr-python evaluates them.
    manifest = tmp_path / "destinationrule.yaml"
    manifest.write_text(
        "apiVersion: networking.istio.io/v1\nkind: DestinationRule\nmetadata: {name: vllm, namespace: llm}\n"
        "spec:\n  host: vllm\n  subsets:\n  - name: v1\n    trafficPolicy:\n"
        "      connectionPool: {tcp: {connectTimeout: 10s}}\n"
    )
    loaded = _loaded_after(_check(manifest))
    assert loaded["cel_expr_python"] and loaded["google.protobuf"]


def test_an_invalid_custom_resource_loads_the_schema_validator(tmp_path):
    manifest = tmp_path / "nodepool.yaml"
    manifest.write_text(
        NODEPOOL.replace("{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}", "{kind: EC2NodeClass, name: default}")
    )
    assert _loaded_after(_check(manifest))["jsonschema"]


def test_a_check_does_not_load_shutil_for_argparses_formatter(tmp_path):
    # argparse.HelpFormatter imports shutil (and zlib, bz2, lzma: ~1.8 ms) for the terminal width each time
    # add_argument checks a metavar; policies/check.py's _Formatter gives it the same width without it.
    manifest = tmp_path / "deployment.yaml"
    manifest.write_text(DEPLOYMENT)
    script = f"import sys\n{_check(manifest)}\nprint('shutil' in sys.modules)\n"
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=ONE_CORE, capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.stdout.strip().splitlines()[-1] == "False", proc.stderr


def test_a_corpus_run_imports_no_pack_module_outside_the_load(tmp_path):
    # policies/__main__.py imports policies.check and its ON_DEMAND modules inside the caches of regular expressions
    # and dataclass methods (policies/regex_code.py, dataclass_code.py); a pack module the check first imports later
    # compiles its patterns and methods afresh on every run. On both corpora the check itself imports none.
    corpora = [str(shared_path("corpus", "manifests")), str(shared_path("corpus", "manifests-v2"))]
    script = (
        "import contextlib, importlib, io, json, sys\n"
        "from policies.check import ON_DEMAND, main\n"
        "for name in ON_DEMAND:\n    importlib.import_module(name)\n"
        "before = set(sys.modules)\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
        f"    for corpus in {corpora!r}:\n        main([corpus, '--format', 'json'])\n"
        "print(json.dumps(sorted(m for m in set(sys.modules) - before if m.split('.')[0] in ('policies', 'components'))))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=ONE_CORE, capture_output=True, text=True, timeout=300, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == []
