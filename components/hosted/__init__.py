"""The components other Pulumi languages use, and the package schema Pulumi's analyzer infers for them.

``package/__main__.py`` hosts :data:`COMPONENTS` with :func:`provider.host` (the SDK's
``component_provider_host`` with :class:`provider.HostedProvider`, which marks secrets and maps enums in
lists); :func:`package_schema` is the schema that provider serves (``GetSchema``), as ``python -m stacks schema`` prints it and
``package/schema.json`` holds it (docs/package.md).
"""

from __future__ import annotations

import json
import re

import pulumi

from ..errors import ConfigError, Problem
from .capacity import GpuPool, ModelAutoscaling
from .platform import PACKAGE, LlmPlatform
from .serving import KubeRay, RayVllmService, VllmService

# The components the package hosts: the platform, and those a platform team uses alone.
COMPONENTS: list[type[pulumi.ComponentResource]] = [
    LlmPlatform,
    GpuPool,
    VllmService,
    KubeRay,
    RayVllmService,
    ModelAutoscaling,
]
# The package's version in its schema (pyproject.toml [project] version; tests/components/test_hosted.py checks).
VERSION = "0.1.0"


# The SDK's analyzer reads TypedDict NotRequired keys (every optional argument here) from pulumi 3.238.0
# on: analyzer.py of the 3.236.0 wheel has no NotRequired handling and fails on them with a TypeError.
ANALYZER_FLOOR = (3, 238, 0)


def check_analyzer() -> None:
    """ConfigError naming the installed release when its analyzer cannot read these components' args."""
    from importlib import metadata

    installed = metadata.version("pulumi")
    parts = tuple(int(p) for p in re.findall(r"\d+", installed)[:3])
    if parts < ANALYZER_FLOOR:
        floor = ".".join(map(str, ANALYZER_FLOOR))
        raise ConfigError(
            [
                Problem(
                    "pulumi",
                    f"the component package needs pulumi>={floor}: older analyzers cannot read optional (NotRequired) arguments",
                    installed,
                )
            ]
        )


def package_schema(version: str = VERSION) -> str:
    """The package schema as JSON text: what the provider's GetSchema serves, indented with sorted keys.

    Built by the provider the package runs (the SDK's analyzer and schema generator, secrets marked).
    """
    check_analyzer()
    from .provider import HostedProvider

    served = HostedProvider(COMPONENTS, PACKAGE, version=version).schema or "{}"
    return json.dumps(json.loads(served), indent=2, sort_keys=True) + "\n"


__all__ = [
    "COMPONENTS",
    "PACKAGE",
    "VERSION",
    "GpuPool",
    "KubeRay",
    "LlmPlatform",
    "ModelAutoscaling",
    "RayVllmService",
    "VllmService",
    "package_schema",
]
