"""The built pack served the way the Pulumi CLI serves it, and queried over gRPC.

The CLI runs `python -m pulumi.policy <engine address> <pack folder>` from the pack folder, reads
the port the pack prints, then calls the Analyzer service: GetAnalyzerInfo once, Analyze per
resource. Here a minimal Engine service stands in for the CLI's engine, the pack is the one
`python -m policies build` writes (so nothing from the repository is on its sys.path), and the
calls are real gRPC over 127.0.0.1.
"""

import os
import subprocess
import sys
from concurrent import futures
from pathlib import Path

import grpc
import pytest
import yaml
from google.protobuf import empty_pb2, json_format, struct_pb2
from policy_fixtures import ISVC_TYPE, isvc_props, set_arg, vllm_container
from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc, engine_pb2_grpc

from policies import POLICIES
from policies.build import build

ROOT = Path(__file__).resolve().parents[2]


class FakeEngine(engine_pb2_grpc.EngineServicer):
    """Records what the pack logs to the engine (the pack has nothing else to ask of it)."""

    def __init__(self):
        self.logs = []

    def Log(self, request, context):  # noqa: N802 (gRPC method name)
        self.logs.append(request.message)
        return empty_pb2.Empty()


@pytest.fixture(scope="module")
def served_pack(tmp_path_factory):
    pack = tmp_path_factory.mktemp("pack") / "llm-serving-pack"
    build(pack)
    engine_server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    engine_pb2_grpc.add_EngineServicer_to_server(FakeEngine(), engine_server)
    engine_port = engine_server.add_insecure_port("127.0.0.1:0")
    engine_server.start()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSTARTUP")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "pulumi.policy", f"127.0.0.1:{engine_port}", "."],
        cwd=pack,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        port_line = proc.stdout.readline().strip()
        assert port_line.isdigit(), (
            f"the pack printed {port_line!r} instead of its port; stderr: {proc.stderr.read() if proc.poll() is not None else ''}"
        )
        channel = grpc.insecure_channel(f"127.0.0.1:{port_line}")
        grpc.channel_ready_future(channel).result(timeout=60)
        yield pack, analyzer_pb2_grpc.AnalyzerStub(channel)
        channel.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        engine_server.stop(0)


def test_the_built_pack_holds_its_own_imports(served_pack):
    pack, _ = served_pack
    assert {p.name for p in pack.iterdir()} == {"PulumiPolicy.yaml", "requirements.txt", "__main__.py", "policies", "components"}
    manifest = yaml.safe_load((pack / "PulumiPolicy.yaml").read_text())
    assert manifest["runtime"] == {"name": "python", "options": {"virtualenv": "venv"}}
    assert manifest["version"]


def test_get_analyzer_info_lists_every_policy(served_pack):
    _, analyzer = served_pack
    info = analyzer.GetAnalyzerInfo(empty_pb2.Empty(), timeout=60)
    assert info.name == "llm-serving"
    assert [p.name for p in info.policies] == [p.name for p in POLICIES]
    by_name = {p.name: p for p in info.policies}
    assert by_name["vllm-gpu-memory-utilization-bounds"].enforcementLevel == analyzer_pb2.MANDATORY
    assert by_name["model-source-pinned"].enforcementLevel == analyzer_pb2.ADVISORY
    assert by_name["serving-priority-class"].enforcementLevel == analyzer_pb2.ADVISORY


def analyze(analyzer, props):
    properties = struct_pb2.Struct()
    json_format.ParseDict(props, properties)
    request = analyzer_pb2.AnalyzeRequest(
        type=ISVC_TYPE, properties=properties, name="chat-8b", urn=f"urn:pulumi:dev::llm-serving::{ISVC_TYPE}::chat-8b"
    )
    return analyzer.Analyze(request, timeout=60).diagnostics


def test_analyze_passes_the_compliant_inference_service(served_pack):
    _, analyzer = served_pack
    # Stack policies (PDB, Service) run in AnalyzeStack; a resource on its own passes every resource policy.
    assert [d.policyName for d in analyze(analyzer, isvc_props())] == []


def test_analyze_reports_a_violation_with_its_message(served_pack):
    _, analyzer = served_pack
    props = isvc_props()
    set_arg(vllm_container(props), "gpu-memory-utilization", "0.99")
    (diagnostic,) = analyze(analyzer, props)
    assert diagnostic.policyName == "vllm-gpu-memory-utilization-bounds"
    assert diagnostic.enforcementLevel == analyzer_pb2.MANDATORY
    assert "--gpu-memory-utilization=0.99 is above the maximum 0.95" in diagnostic.message


def _closure(requirements):
    """The distributions the listed requirements install, dependencies included, and those their
    extras name (jsonschema, for one, imports its format checkers' packages when they are there)."""
    import re
    from importlib import metadata

    seen, todo = set(), [re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0] for r in requirements]
    while todo:
        name = todo.pop().lower().replace("_", "-")
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        todo.extend(re.split(r"[<>=!~\[; (]", r, maxsplit=1)[0] for r in requires)
    return seen


def test_requirements_cover_what_the_pack_imports(served_pack):
    pack, _ = served_pack
    script = (
        "import sys, json\nimport policies.registry, policies.pulumi_adapter\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        cwd=pack,
        capture_output=True,
        text=True,
        timeout=120,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    assert proc.returncode == 0, proc.stderr
    import json
    from importlib import metadata

    owners = metadata.packages_distributions()
    requirements = [line for line in (pack / "requirements.txt").read_text().splitlines() if line and not line.startswith("#")]
    installed = _closure(requirements)
    missing = sorted(
        {
            dist
            for module in json.loads(proc.stdout)
            for dist in owners.get(module, [])
            if dist.lower().replace("_", "-") not in installed
        }
    )
    assert missing == [], f"policies/requirements.txt does not install {missing}, which the pack imports"
