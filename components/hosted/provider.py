"""The package's provider: the SDK's ComponentProvider plus the two things its analyzer cannot express.

Pulumi's component analyzer (``pulumi/provider/experimental/analyzer.py``) and schema writer
(``schema.py``, class ``Property``) have no notion of a secret property in any release of our range:
neither the floor's wheel (3.233.0) nor the newest on PyPI (3.272.0) contains the word "secret" in
``analyzer.py``, ``schema.py`` or ``component.py``, and a ``typing.Annotated`` marker is refused by
the analyzer (it is none of the shapes ``analyze_property`` accepts). So each hosted component names
its secret inputs and outputs (class attributes ``SECRET_INPUTS`` / ``SECRET_OUTPUTS``, Python names;
no annotation, so the analyzer does not take them for outputs), and :class:`HostedProvider`

- writes ``"secret": true`` on those properties of the schema it serves (GetSchema), which makes every
  generated SDK wrap the value as a secret before it leaves the user's program;
- wraps them in ``pulumi.Output.secret`` in Construct, so a value that arrives in clear text (a YAML
  program given a literal) is still handled as a secret by everything the component registers.

Enums inside lists and maps: the analyzer writes ``items: {"$ref": "#/types/<enum>"}`` correctly, but
``ComponentProvider.map_input_properties`` (component.py, "Special handling for arrays of complex
types", the same in 3.233.0 and 3.272.0) maps each item of a list whose items are a ``$ref`` as an
object, which turns an enum member into ``{}``. :meth:`HostedProvider.map_input_properties` maps
those items to the enum's members itself and leaves everything else to the SDK.
"""

from __future__ import annotations

import json
import sys
from enum import Enum
from typing import Any, Iterable, Mapping, Optional

import pulumi
from pulumi.errors import InputPropertyError
from pulumi.provider.experimental.analyzer import PropertyDefinition
from pulumi.provider.experimental.component import ComponentProvider
from pulumi.provider.provider import ConstructResult


def _secret_names(component: type, attribute: str) -> tuple[str, ...]:
    return tuple(getattr(component, attribute, ()))


class HostedProvider(ComponentProvider):
    """ComponentProvider serving a schema with secrets marked, treating them as secrets, and mapping enums in lists."""

    def __init__(
        self,
        components: list[type[pulumi.ComponentResource]],
        name: str,
        namespace: Optional[str] = None,
        version: str = "0.0.0",
    ) -> None:
        super().__init__(components, name, namespace, version)
        # Schema name -> Python name per component, for inputs and outputs declared secret.
        self._secret_inputs: dict[str, set[str]] = {}
        self._secret_outputs: dict[str, set[str]] = {}
        schema = json.loads(self.schema or "{}")
        for component in components:
            definition = self._component_defs[component.__name__]
            token = f"{name}:index:{component.__name__}"
            resource = schema["resources"][token]
            self._secret_inputs[component.__name__] = _mark(
                resource["inputProperties"], definition.inputs_mapping, _secret_names(component, "SECRET_INPUTS"), token
            )
            self._secret_outputs[component.__name__] = _mark(
                resource["properties"], definition.outputs_mapping, _secret_names(component, "SECRET_OUTPUTS"), token
            )
        self.schema = json.dumps(schema)

    def construct(
        self, name: str, resource_type: str, inputs: pulumi.Inputs, options: Optional[pulumi.ResourceOptions] = None
    ) -> ConstructResult:
        """The SDK's Construct, with the secret inputs made secrets first and the secret outputs kept secret."""
        component = resource_type.rsplit(":", maxsplit=1)[-1]
        secret = self._secret_inputs.get(component, set())
        inputs = {k: pulumi.Output.secret(v) if k in secret and v is not None else v for k, v in inputs.items()}
        result = super().construct(name, resource_type, inputs, options)
        hidden = self._secret_outputs.get(component, set())
        state = {k: pulumi.Output.secret(v) if k in hidden else v for k, v in dict(result.state).items()}
        return ConstructResult(result.urn, state)

    def map_input_properties(
        self,
        inputs: pulumi.Inputs,
        properties: dict[str, PropertyDefinition],
        mapping: dict[str, str],
        component_name: str,
        property_path: str,
    ) -> pulumi.Inputs:
        """The SDK's mapping, except lists and maps of enums: their items become the enum's members."""
        enums = {k: e for k, p in properties.items() if (e := self._item_enum(p)) is not None}
        mapped = dict(
            super().map_input_properties(
                inputs,
                {k: p for k, p in properties.items() if k not in enums},
                mapping,
                component_name,
                property_path,
            )
        )
        for schema_name, enum_type in enums.items():
            path = f"{property_path}.{schema_name}" if property_path else schema_name
            value = inputs.get(schema_name) if isinstance(inputs, Mapping) else None
            if value is None:
                if not properties[schema_name].optional:
                    raise InputPropertyError(path, f"Missing required input '{path}' on '{component_name}'")
                continue
            mapped[mapping[schema_name]] = _enum_input(value, enum_type, path)
        return mapped

    def _item_enum(self, prop: PropertyDefinition) -> Optional[type[Enum]]:
        """The enum type of a list's items or a map's values, when they are one of this package's enums."""
        inner = prop.items or prop.additional_properties
        if inner is None or not inner.ref or inner.ref.startswith("/") or ":" not in inner.ref:
            return None
        type_def = self.get_type_definition(inner)
        if type_def is None or not type_def.enum:
            return None
        return type_def.python_type  # an Enum subclass when type_def.enum is set


def _enum_input(value: Any, enum_type: type[Enum], path: str) -> Any:
    """:func:`_enum_items` of ``value``, once it resolves when it is an Output (an unknown or secret list)."""
    if isinstance(value, pulumi.Output):
        return value.apply(lambda v: _enum_items(v, enum_type, path))
    return _enum_items(value, enum_type, path)


def _enum_items(value: Any, enum_type: type[Enum], path: str) -> Any:
    """``value``'s items (a list's, or a map's values) as members of ``enum_type``; InputPropertyError naming the item."""

    def member(item: Any, where: str) -> Enum:
        try:
            return enum_type(item)
        except ValueError:
            choices = ", ".join(str(m.value) for m in enum_type)
            raise InputPropertyError(where, f"{item!r} is not one of {enum_type.__name__}: {choices}") from None

    if isinstance(value, Mapping):
        return {k: member(v, f"{path}.{k}") for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [member(v, f"{path}[{i}]") for i, v in enumerate(value)]
    raise InputPropertyError(path, f"must be a list of {enum_type.__name__} values, got {type(value).__name__}")


def _mark(properties: dict[str, Any], mapping: Mapping[str, str], secret: Iterable[str], token: str) -> set[str]:
    """Set ``"secret": true`` on the schema properties whose Python names are ``secret``; their schema names."""
    by_python = {py: schema_name for schema_name, py in mapping.items()}
    names = set()
    for py in secret:
        if py not in by_python:
            raise ValueError(f"{token}: {py!r} is declared secret but is no property of the component")
        properties[by_python[py]]["secret"] = True
        names.add(by_python[py])
    return names


def host(components: list[type[pulumi.ComponentResource]], name: str, version: str) -> None:
    """Serve ``components`` as the engine asks a plugin to (what ``component_provider_host`` does, with HostedProvider)."""
    from pulumi.provider import main

    main(HostedProvider(components, name, version=version), sys.argv[1:])


__all__ = ["HostedProvider", "host"]
