"""docs/package.md's Pulumi YAML programs: each llm-serving resource in them constructs through the provider.

No Pulumi CLI here, so the programs are not run by ``pulumi preview``; instead every resource of this
package they declare is handed to the package's provider as the YAML runtime would send it (numbers
as floats, each ``${...}`` interpolation replaced by a stand-in value for the property it sets) and
constructed under the offline engine, after the check ``pulumi preview`` makes against the schema
first (no unknown key, every required one, types, enum values). A property the schema does not
have, a value the config models refuse, or an enum value outside its choices fails here.
"""

from __future__ import annotations

import json
import re

import pulumi
import pytest
import yaml

from stacks.offline import load_stack_file, run_program
from tests.conftest import ROOT
from tests.package.test_component_package import GOLDEN
from tests.package.test_hosted_components import KUBECONFIG, _floats

DOC = ROOT / "docs" / "package.md"
# What each interpolated property stands for (another stack's output or a secret config value).
STAND_INS = {
    "kubeconfig": KUBECONFIG,
    "namespace": "llm",
    "apiKeySecret": "vllm-api-key",
    "hfTokenSecret": "hf-token",
    "hfToken": "offline-placeholder",
    "poolName": "h100",
    "efaVpcId": "vpc-0a1b2c3d4e5f60718",
}


def _yaml_blocks() -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", DOC.read_text(), re.S)


def _yaml_programs() -> list[dict]:
    return [doc for doc in map(yaml.safe_load, _yaml_blocks()) if isinstance(doc, dict) and "resources" in doc]


def _with_variables(value, variables: dict):
    """``value`` with each whole-string ``${name}`` of a program variable replaced by the variable's value."""
    if isinstance(value, str):
        match = re.fullmatch(r"\$\{(\w+)\}", value)
        return _with_variables(variables[match.group(1)], variables) if match and match.group(1) in variables else value
    if isinstance(value, dict):
        return {k: _with_variables(v, variables) for k, v in value.items()}
    if isinstance(value, list):
        return [_with_variables(v, variables) for v in value]
    return value


def _resources() -> list[tuple[str, str, dict]]:
    found = []
    for program in _yaml_programs():
        variables = program.get("variables", {})
        for name, resource in program["resources"].items():
            if str(resource.get("type", "")).startswith("llm-serving:index:"):
                found.append((name, resource["type"], _with_variables(resource.get("properties", {}), variables)))
    return found


def test_the_programs_use_no_yaml_alias_and_interpolate_only_what_they_define():
    """Pulumi YAML refuses alias nodes ("alias nodes are not supported": pulumi/pulumi#423, comment of 2024-01-09),
    and an interpolation names a resource, a variable or a config key of the program."""
    for block in _yaml_blocks():
        assert not any(isinstance(event, yaml.AliasEvent) for event in yaml.parse(block)), block
    for program in _yaml_programs():
        defined = {*program["resources"], *program.get("variables", {}), *program.get("config", {}), "pulumi"}
        used = set(re.findall(r"\$\{(\w+)", yaml.safe_dump(program)))
        assert used <= defined, f"undefined: {sorted(used - defined)}"


def _stand_in(key: str, value):
    if isinstance(value, str) and value.startswith("${"):
        assert key in STAND_INS, f"docs/package.md interpolates {key}: add a stand-in for it here"
        return STAND_INS[key]
    return value


def _conform(value, spec: dict, types: dict, path: str) -> list[str]:
    """Where ``value`` breaks the schema property ``spec`` (unknown keys, wrong types, enum values): what preview checks."""
    if "$ref" in spec:
        ref = spec["$ref"].removeprefix("#/types/")
        if ref not in types:  # pulumi.json#/Any and the like
            return []
        spec = types[ref]
        if "enum" in spec:
            allowed = [e["value"] for e in spec["enum"]]
            return [] if value in allowed else [f"{path}: {value!r} is not one of {allowed}"]
    kind = spec.get("type")
    if kind == "object" and "properties" in spec:
        if not isinstance(value, dict):
            return [f"{path}: not an object"]
        out = [f"{path}.{k}: no such property" for k in value if k not in spec["properties"]]
        out += [f"{path}.{k}: required" for k in spec.get("required", []) if k not in value]
        for k, v in value.items():
            if k in spec["properties"]:
                out += _conform(v, spec["properties"][k], types, f"{path}.{k}")
        return out
    if kind == "object":
        if not isinstance(value, dict):
            return [f"{path}: not a map"]
        return [e for k, v in value.items() for e in _conform(v, spec.get("additionalProperties", {}), types, f"{path}.{k}")]
    if kind == "array":
        if not isinstance(value, list):
            return [f"{path}: not a list"]
        return [e for i, v in enumerate(value) for e in _conform(v, spec.get("items", {}), types, f"{path}[{i}]")]
    python = {"string": str, "integer": int, "number": (int, float), "boolean": bool}.get(kind)
    if python is not None and (not isinstance(value, python) or (kind != "boolean" and isinstance(value, bool))):
        return [f"{path}: {value!r} is not a {kind}"]
    return []


@pytest.mark.parametrize(("name", "token", "properties"), _resources(), ids=lambda v: v if isinstance(v, str) else "")
def test_a_documented_yaml_resource_conforms_to_the_schema(name, token, properties):
    schema = json.loads(GOLDEN.read_text())
    resource = schema["resources"][token]
    spec = {"type": "object", "properties": resource["inputProperties"], "required": resource.get("requiredInputs", [])}
    stood_in = {k: _stand_in(k, v) for k, v in properties.items()}
    assert _conform(stood_in, spec, schema["types"], name) == []


def test_the_schema_check_finds_what_preview_would_refuse():
    schema = json.loads(GOLDEN.read_text())
    spec = {"type": "object", "properties": schema["resources"]["llm-serving:index:GpuPool"]["inputProperties"]}
    pool = {"name": "a", "instanceTypes": ["g6e.xlarge"], "gpuLimit": 1, "capacityTypes": ["spotty"], "size": 3}
    assert _conform({"pool": pool}, spec, schema["types"], "p") == [
        "p.pool.size: no such property",
        "p.pool.capacityTypes[0]: 'spotty' is not one of ['on-demand', 'spot', 'reserved']",
    ]


def _typescript_enum_member(name: str) -> str:
    """The member name TypeScript's generated SDK gives a schema enum entry: pulumi/pulumi pkg/codegen/nodejs gen.go
    ``genEnum`` writes ``makeSafeEnumName(e.Name, enumName)``, which (utilities.go) upper-cases the first letter
    (``title``) and folds runs of underscores; our names are upper-case identifiers already."""
    assert name.isidentifier(), name
    return re.sub(r"_+", "_", name[:1].upper() + name[1:])


def test_the_typescript_names_what_the_generated_sdk_declares():
    """Every ``new llm.<Component>`` is a hosted resource and every ``llm.<Enum>.<MEMBER>`` a member of its enum."""
    schema = json.loads(GOLDEN.read_text())
    code = "\n".join(re.findall(r"```typescript\n(.*?)```", DOC.read_text(), re.S))
    components = set(re.findall(r"new llm\.(\w+)\(", code))
    assert components and all(f"llm-serving:index:{c}" in schema["resources"] for c in components)
    used = set(re.findall(r"llm\.(\w+)\.(\w+)", code))
    assert used
    for enum, member in sorted(used):
        entries = schema["types"][f"llm-serving:index:{enum}"]["enum"]
        assert member in {_typescript_enum_member(e["name"]) for e in entries}, f"llm.{enum}.{member}"


def test_the_docs_show_every_hosted_component_in_yaml():
    from components.hosted import COMPONENTS

    documented = {t.rpartition(":")[2] for _, t, _ in _resources()}
    assert documented == {c.__name__ for c in COMPONENTS}


@pytest.mark.parametrize(("name", "token", "properties"), _resources(), ids=lambda v: v if isinstance(v, str) else "")
def test_a_documented_yaml_resource_constructs_through_the_provider(name, token, properties):
    from components.hosted import COMPONENTS, PACKAGE
    from components.hosted.provider import HostedProvider

    inputs = {k: _stand_in(k, _floats(v)) for k, v in properties.items()}
    states: list = []

    def program():
        provider = HostedProvider(COMPONENTS, PACKAGE)
        states.append(provider.construct(name, token, inputs, pulumi.ResourceOptions()).state)

    recording = run_program(load_stack_file("prod"), program)
    assert states and states[0]
    children = [r for r in recording.resources if r.custom and r.type != "pulumi:providers:kubernetes"]
    assert children, f"{token} {name} registered no resource"
