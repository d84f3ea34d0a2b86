"""package/: the component package for every Pulumi language (PulumiPlugin.yaml, runtime python).

The provider is started as the Pulumi engine starts a plugin (a subprocess given the engine's
address, which prints its port: pulumi/provider/server.py ``main``), then asked for its schema over
gRPC with the SDK's generated stubs. The schema must validate against Pulumi's package metaschema
(../shared/reference/pulumi-package-schema/pulumi.json, checked with check-jsonschema, whose regex
engine accepts the metaschema's ``(?<name>...)`` groups) and equal the committed package/schema.json.
``Construct`` of LlmPlatform through the package's provider (components/hosted/provider.py), driven by the offline engine,
must register what the Python program registers for dev, staging and prod.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pulumi
import pytest

from stacks.offline import load_stack_file, run_program
from tests.conftest import ROOT, shared_path

PACKAGE_DIR = ROOT / "package"
GOLDEN = PACKAGE_DIR / "schema.json"
TOKEN = "llm-serving:index:LlmPlatform"


def metaschema() -> Path:
    """Pulumi's package metaschema, through the reference helper (skips, or fails in CI, when absent)."""
    return shared_path("reference", "pulumi-package-schema", "pulumi.json")


@pytest.fixture(scope="module")
def served() -> dict:
    """The schema the provider serves over gRPC, started as the engine starts a plugin."""
    import grpc
    from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc

    proc = subprocess.Popen(
        [sys.executable, str(PACKAGE_DIR / "__main__.py"), "127.0.0.1:1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=PACKAGE_DIR,
    )
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline().decode().strip())
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = provider_pb2_grpc.ResourceProviderStub(channel)
            info = stub.GetPluginInfo(__import__("google.protobuf.empty_pb2", fromlist=["Empty"]).Empty(), timeout=60)
            schema = json.loads(stub.GetSchema(provider_pb2.GetSchemaRequest(version=0), timeout=60).schema)
        assert info.version == schema["version"]
        return schema
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def check_jsonschema(document: Path, schema: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--schemafile", str(schema), str(document)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_served_schema_is_the_committed_one(served):
    assert served == json.loads(GOLDEN.read_text()), "package/schema.json is stale: python -m stacks schema > package/schema.json"


def test_committed_schema_validates_against_pulumis_metaschema(tmp_path):
    proc = check_jsonschema(GOLDEN, metaschema())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # The check can fail: an enum member without a description (the SDK writes null) is refused.
    broken = json.loads(GOLDEN.read_text())
    enum_type = next(t for t in broken["types"].values() if "enum" in t)
    enum_type["enum"][0]["description"] = None
    (tmp_path / "broken.json").write_text(json.dumps(broken))
    assert check_jsonschema(tmp_path / "broken.json", metaschema()).returncode == 1


def test_stacks_schema_prints_the_committed_bytes():
    proc = subprocess.run([sys.executable, "-m", "stacks", "schema"], cwd=ROOT, capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == GOLDEN.read_bytes()


def test_types_are_generated_from_the_config_models():
    proc = subprocess.run(
        [sys.executable, "tools/hosted_types.py", "--check"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr


def _properties(schema: dict):
    for token, resource in schema["resources"].items():
        for kind in ("inputProperties", "properties"):
            for name, prop in resource.get(kind, {}).items():
                yield f"{token}.{kind}.{name}", prop
    for token, typ in schema["types"].items():
        for name, prop in typ.get("properties", {}).items():
            yield f"{token}.{name}", prop


def test_every_property_is_documented_and_closed_choices_are_enums():
    schema = json.loads(GOLDEN.read_text())
    undocumented = [where for where, prop in _properties(schema) if not (prop.get("description") or "").strip()]
    assert undocumented == []
    assert all((t.get("description") or "").strip() for t in schema["types"].values())
    env = schema["types"]["llm-serving:index:StackConfig"]["properties"]["environment"]
    assert env["$ref"] == "#/types/llm-serving:index:StackConfigEnvironment"
    assert [e["value"] for e in schema["types"]["llm-serving:index:StackConfigEnvironment"]["enum"]] == ["dev", "staging", "prod"]
    platform = schema["resources"][TOKEN]
    assert platform["isComponent"] is True
    assert set(platform["requiredInputs"]) == {"config"}
    assert {"namespace", "serviceUrls", "poolNames", "kubeconfig"} <= set(platform["properties"])


def floats(v):
    """A value as the engine sends it: every number a float."""
    if isinstance(v, bool) or not isinstance(v, (int, dict, list)):
        return v
    if isinstance(v, int):
        return float(v)
    if isinstance(v, dict):
        return {k: floats(x) for k, x in v.items()}
    return [floats(x) for x in v]


def _camel_config(stack) -> dict:
    """A stack file's config as the component's ``config`` input, numbers as floats as the engine sends them."""
    out = {}
    for key, value in stack.config.items():
        namespace, _, name = key.partition(":")
        if key == "aws:region":
            out["region"] = value
        elif namespace == "llm-serving" and name not in ("hfToken", "apiKey"):
            out[name] = floats(value)
    return out


def _resources(recording, drop_wrapper: bool) -> list:
    rows = []
    for r in recording.resources:
        if drop_wrapper and r.type == TOKEN:
            continue
        parent = None if r.type == "llm-serving:platform:LlmPlatform" else r.parent
        rows.append((r.type, r.name, parent, json.dumps(r.inputs, sort_keys=True, default=str), tuple(sorted(r.dependencies))))
    return sorted(rows)


@pytest.mark.parametrize("stack_name", ["dev", "staging", "prod"])
def test_construct_through_the_provider_registers_what_the_program_registers(stack_name):
    from components.hosted import COMPONENTS, PACKAGE
    from components.hosted.provider import HostedProvider

    stack = load_stack_file(stack_name)
    secrets = {k.partition(":")[2] for k in stack.secret_keys() if k.startswith("llm-serving:")}

    def program():
        provider = HostedProvider(COMPONENTS, PACKAGE)
        inputs = {"config": _camel_config(stack), "baseDir": str(stack.path.parent)}
        for key in ("hfToken", "apiKey"):
            if key in secrets:
                inputs[key] = pulumi.Output.secret("offline-placeholder")
        states.append(provider.construct(stack.name, TOKEN, inputs, pulumi.ResourceOptions()).state)

    states: list = []
    hosted = run_program(stack, program)
    # The state the provider returns to the engine holds every output the schema declares.
    assert set(states[0]) == set(json.loads(GOLDEN.read_text())["resources"][TOKEN]["properties"])
    python = run_program(stack)
    assert [r.name for r in hosted.resources if r.type == TOKEN] == [stack.name]
    assert _resources(hosted, drop_wrapper=True) == _resources(python, drop_wrapper=False)


def test_bad_config_through_the_provider_names_the_field_path():
    from components.errors import ConfigError
    from components.hosted.convert import stack_config

    stack = load_stack_file("dev")
    config = _camel_config(stack)
    from components.hosted import COMPONENTS, PACKAGE
    from components.hosted.provider import HostedProvider

    provider = HostedProvider(COMPONENTS, PACKAGE)
    mapped = provider.map_inputs({"config": config}, provider._component_defs["LlmPlatform"])
    mapped["config"]["models"][0]["engine"]["max_model_len"] = -1.0
    with pytest.raises(ConfigError, match=r"config\.models\[0\]\.engine\.maxModelLen = -1: input should be greater than 0"):
        stack_config(mapped["config"], has_hf_token=False, has_api_key=False)


def test_an_sdk_whose_analyzer_cannot_read_the_args_is_refused_by_name(monkeypatch):
    from importlib import metadata

    from components.errors import ConfigError
    from components.hosted import package_schema

    real = metadata.version
    monkeypatch.setattr(metadata, "version", lambda name: "3.236.0" if name == "pulumi" else real(name))
    with pytest.raises(ConfigError, match=r"pulumi = '3\.236\.0': the component package needs pulumi>=3\.238\.0"):
        package_schema()
