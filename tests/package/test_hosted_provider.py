"""components/hosted/provider.py: what the package's provider adds to the SDK's ComponentProvider.

Secrets marked in the schema and made secrets in Construct; lists and maps of enums mapped to the
enum's members (the SDK's ``map_input_properties`` maps them to ``{}``). A probe component declared
here goes through the provider under the offline engine and registers a child holding what it was
given, so the recording shows what Construct handed the component (secrets arrive redacted).
"""

# No `from __future__ import annotations`: the analyzer reads the probe's annotations as types.

import json
from enum import Enum
from typing import NotRequired, Optional, TypedDict

import pulumi
import pytest
from pulumi.errors import InputPropertyError
from pulumi.provider.experimental.component import ComponentProvider

from components.hosted.provider import HostedProvider
from stacks.offline import REDACTED, load_stack_file, run_program
from tests.package.test_component_package import GOLDEN, check_jsonschema, metaschema


class ProbeColor(str, Enum):
    """A closed choice."""

    RED = "red"
    """Red."""
    BLUE = "blue"
    """Blue."""


class ProbeArgs(TypedDict):
    """The probe's inputs."""

    token: pulumi.Input[str]
    """A secret."""
    colors: list[ProbeColor]
    """Choices in a list."""
    by_name: NotRequired[dict[str, ProbeColor]]
    """Choices in a map."""


class Probe(pulumi.ComponentResource):
    """Registers what it was given as one child."""

    echo: pulumi.Output[str]
    """The token, back."""

    SECRET_INPUTS = ("token",)
    SECRET_OUTPUTS = ("echo",)

    def __init__(self, name: str, args: ProbeArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("probe:index:Probe", name, {}, opts)
        colors = [c.value if isinstance(c, ProbeColor) else c for c in args["colors"]]
        by_name = {k: v.value if isinstance(v, ProbeColor) else v for k, v in args.get("by_name", {}).items()}
        pulumi.CustomResource(
            "probe:index:Sink",
            f"{name}-sink",
            {"token": args["token"], "colors": colors, "byName": by_name},
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.echo = pulumi.Output.from_input(args["token"])
        self.register_outputs({})


def _construct(provider_type: type, inputs: dict) -> tuple[dict, dict]:
    """The sink's recorded inputs and the state Construct returned."""
    states: list = []

    def program():
        provider = provider_type([Probe], "probe")
        states.append(provider.construct("p", "probe:index:Probe", inputs, pulumi.ResourceOptions()).state)

    recording = run_program(load_stack_file("dev"), program)
    sink = next(r for r in recording.resources if r.type == "probe:index:Sink")
    return dict(sink.inputs), states[0]


def test_secret_inputs_and_outputs_are_marked_in_the_served_schema():
    schema = json.loads(HostedProvider([Probe], "probe").schema or "{}")
    probe = schema["resources"]["probe:index:Probe"]
    assert probe["inputProperties"]["token"]["secret"] is True
    assert "secret" not in probe["inputProperties"]["colors"]
    assert probe["properties"]["echo"]["secret"] is True
    # The SDK alone marks nothing (no release of pulumi>=3.233,<4 can: components/hosted/provider.py).
    plain = json.loads(ComponentProvider([Probe], "probe").schema or "{}")
    assert "secret" not in plain["resources"]["probe:index:Probe"]["inputProperties"]["token"]


def test_the_package_marks_its_credentials_secret():
    schema = json.loads(GOLDEN.read_text())
    secret = {
        f"{token.rpartition(':')[2]}.{kind}.{name}"
        for token, resource in schema["resources"].items()
        for kind in ("inputProperties", "properties")
        for name, prop in resource[kind].items()
        if prop.get("secret")
    }
    assert {"LlmPlatform.inputProperties.hfToken", "LlmPlatform.inputProperties.apiKey"} <= secret
    assert "LlmPlatform.properties.kubeconfig" in secret
    assert "LlmPlatform.inputProperties.config" not in secret
    # Every component that takes a kubeconfig (each one used alone) takes it as a secret.
    kubeconfigs = {
        f"{token.rpartition(':')[2]}.inputProperties.kubeconfig"
        for token, resource in schema["resources"].items()
        if "kubeconfig" in resource["inputProperties"]
    }
    assert len(kubeconfigs) == 5 and kubeconfigs <= secret
    # A Secret's name is not a secret (it is how other resources find the Secret).
    assert not any(name.endswith(("Secret", "SecretName")) for name in secret)


def test_the_metaschema_checks_the_secret_flag(tmp_path):
    broken = json.loads(GOLDEN.read_text())
    broken["resources"]["llm-serving:index:LlmPlatform"]["inputProperties"]["hfToken"]["secret"] = "yes"
    (tmp_path / "broken.json").write_text(json.dumps(broken))
    assert check_jsonschema(tmp_path / "broken.json", metaschema()).returncode == 1


def test_a_secret_declared_on_no_property_is_refused():
    class Typo(Probe):
        """A probe naming a secret it does not have."""

        SECRET_INPUTS = ("tokn",)

    with pytest.raises(ValueError, match=r"probe:index:Typo: 'tokn' is declared secret but is no property"):
        HostedProvider([Typo], "probe")


def test_construct_makes_a_clear_text_secret_input_a_secret():
    sink, state = _construct(HostedProvider, {"token": "clear-text", "colors": ["red"]})
    assert sink["token"] == REDACTED
    assert isinstance(state["echo"], pulumi.Output)
    # Without the provider's wrapping the value would reach the component, and its children, in clear text.
    sink, _ = _construct(ComponentProvider, {"token": "clear-text", "colors": ["red"]})
    assert sink["token"] == "clear-text"


def test_enums_in_lists_and_maps_reach_the_component_as_members():
    sink, _ = _construct(HostedProvider, {"token": "t", "colors": ["red", "blue"], "byName": {"a": "blue"}})
    assert sink["colors"] == ["red", "blue"]
    assert sink["byName"] == {"a": "blue"}
    # The SDK's ComponentProvider maps each enum item as an object: {} (pulumi 3.233.0 to 3.272.0, component.py).
    sink, _ = _construct(ComponentProvider, {"token": "t", "colors": ["red", "blue"]})
    assert sink["colors"] == [{}, {}]


def test_an_enum_item_outside_its_choices_is_refused_by_path():
    provider = HostedProvider([Probe], "probe")
    definition = provider._component_defs["Probe"]
    with pytest.raises(InputPropertyError) as err:
        provider.map_inputs({"token": "t", "colors": ["red", "green"]}, definition)
    assert (err.value.property_path, err.value.reason) == ("colors[1]", "'green' is not one of ProbeColor: red, blue")
    with pytest.raises(InputPropertyError) as err:
        provider.map_inputs({"token": "t"}, definition)
    assert err.value.property_path == "colors"


def test_the_package_schema_types_enum_lists_by_ref():
    schema = json.loads(GOLDEN.read_text())
    capacity = schema["types"]["llm-serving:index:GpuPoolConfig"]["properties"]["capacityTypes"]
    assert capacity["type"] == "array"
    assert capacity["items"]["$ref"] == "#/types/llm-serving:index:GpuPoolConfigCapacityTypes"
    values = [e["value"] for e in schema["types"]["llm-serving:index:GpuPoolConfigCapacityTypes"]["enum"]]
    assert values == ["on-demand", "spot", "reserved"]
    # No list or map of plain strings is left whose description lists choices (the former workaround).
    assert "One of:" not in GOLDEN.read_text()
