"""Plan and policy-check any Pulumi program offline: the public entry of the offline engine.

Installed (``pip install`` of this repository), this module is ``llm_serving_plan.program_plan``
and ``plan_program`` is exported as ``llm_serving_plan.plan_program``; the pack it evaluates is
``llm_serving_policies``. In a checkout the same function is ``stacks.plan_program``.
docs/reuse.md shows a consumer's use; tests/packaging/test_install.py runs examples/consumer
through it with only the wheel installed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Union

from components.errors import ConfigError, Problem
from components.loading import STACK_FILE, LoadError, load_yaml
from stacks.offline import PROJECT, FakeStack, Recorded, Recording, StackFile, check_stack_name, load_stack_file, run_program


@dataclass(frozen=True)
class ProgramPlan:
    """What one offline run of a program registered, and what the policy pack found in it."""

    recording: Recording
    violations: list = field(default_factory=list)

    @property
    def resources(self) -> list[Recorded]:
        """Every registered resource (components and custom resources), in registration order; secrets redacted."""
        return list(self.recording.resources)

    @property
    def outputs(self) -> dict[str, Any]:
        """The program's stack outputs (``pulumi.export``); secrets redacted, unknowns marked."""
        return dict(self.recording.outputs)

    @property
    def mandatory(self) -> list:
        """The violations at enforcement level ``mandatory`` (a ``pulumi preview`` with the pack would fail on them)."""
        return [v for v in self.violations if v.enforcement == "mandatory"]


def _program_file(program: Union[str, Path]) -> Path:
    path = Path(program)
    if path.is_dir():
        path = path / "__main__.py"
    if not path.is_file():
        raise ConfigError([Problem("program", "must be a Pulumi program file (__main__.py) or its folder", str(program))])
    return path


def _project_of(program_file: Path) -> str:
    """The ``name:`` of the Pulumi.yaml beside the program (the namespace of its config keys)."""
    project_file = program_file.parent / "Pulumi.yaml"
    if not project_file.is_file():
        return PROJECT
    try:
        doc = load_yaml(project_file, STACK_FILE)
    except LoadError as exc:
        raise ConfigError(
            [Problem(exc.source, (f"line {exc.line}: " if exc.line else "") + exc.problem, has_value=False)]
        ) from None
    name = doc.get("name") if isinstance(doc, Mapping) else None
    if not isinstance(name, str) or not name:
        raise ConfigError([Problem(f"{project_file}: name", "must be the project's name (a string)", has_value=False)])
    return name


def plan_program(
    program: Union[str, Path, Callable[[], Any]],
    config: Union[str, Path, Mapping[str, Any]],
    *,
    project: Optional[str] = None,
    stack_references: Optional[Mapping[str, Mapping[str, Any]]] = None,
    policy_config: Optional[Mapping[str, Mapping]] = None,
    stack: str = "offline",
) -> ProgramPlan:
    """Run ``program`` under the offline engine with ``config``, then evaluate the policy pack on what it registered.

    ``program``: a Pulumi program file (``__main__.py``), its folder, or a function that creates
    resources. ``config``: a stack file (``Pulumi.<stack>.yaml``) or its ``config:`` mapping
    (namespaced keys, ``{secure: ...}`` for secrets). ``project``: the config namespace; by
    default the ``name:`` of the program's Pulumi.yaml (``llm-serving`` for a function).
    ``stack_references``: the outputs each ``pulumi.StackReference`` the program reads should
    see, keyed by the referenced stack's name (any other reference is an error naming it).
    ``policy_config``: the pack's config (levels and settings per policy, as in a
    ``--policy-pack-config`` file). No CLI, no cloud, no credentials, no network.

    Bad input raises ``components.errors.ConfigError`` (``llm_serving.errors.ConfigError``
    installed) naming the field; a bad pack config raises ``PolicyConfigError``.
    """
    from policies.registry import evaluate
    from stacks.plan import policy_resources

    if callable(program):
        source: Union[Path, Callable[[], Any]] = program
        folder = Path.cwd()
        default_project = PROJECT
    else:
        source = _program_file(program)
        folder = source.parent
        default_project = _project_of(source)
    if isinstance(config, Mapping):
        if not all(isinstance(k, str) for k in config):
            raise ConfigError([Problem("config", "keys must be strings (namespaced config keys)", has_value=False)])
        stack_file = StackFile(name=check_stack_name(stack, stack), path=folder / f"Pulumi.{stack}.yaml", config=dict(config))
    else:
        stack_file = load_stack_file(str(Path(config)))
    references = {name: FakeStack(dict(outputs)) for name, outputs in (stack_references or {}).items()}
    recording = run_program(stack_file, source, project=project or default_project, stack_references=references)
    return ProgramPlan(recording=recording, violations=evaluate(policy_resources(recording), policy_config))
