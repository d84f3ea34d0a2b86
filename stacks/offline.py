"""The offline plan engine: run the real Pulumi program in-process, record what it registers.

No CLI, no cloud, no credentials: ``pulumi.runtime.set_mocks`` with a MockMonitor subclass
sees every RegisterResource call (type, name, parent, inputs, dependencies). Config comes from
the stack file; secret values are injected wrapped as Pulumi secrets and come back out of the
engine wrapped, where they are redacted before anything is written or printed
(the traps handled here: numbers arrive as floats, secrets arrive wrapped, unreturned outputs are
unknown, Helm releases are one opaque resource, mock URNs differ from real ones; measured on
pulumi 3.272 / pulumi-kubernetes 4.x).
"""

from __future__ import annotations

import asyncio
import contextvars
import gc
import json
import math
import os
import re
import runpy
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Union

from components.errors import ConfigError, Problem
from components.loading import STACK_FILE, LoadError, load_yaml
from components.secrets import SECURE_KEY, SHOWN_AS, is_secret
from stacks.sdk_support import SIG_KEY, SIG_SECRET, UNKNOWN_VALUE, check_sdk

PROJECT_DIR = Path(__file__).resolve().parent.parent
PROGRAM = PROJECT_DIR / "__main__.py"
PROJECT = "llm-serving"

REDACTED = SHOWN_AS
UNKNOWN = "[unknown]"
# Markers of Pulumi's wire format (sdk/python/lib/pulumi/runtime/rpc.py; stacks/sdk_support.py checks them).
_SIG_KEY = SIG_KEY
_SIG_SECRET = SIG_SECRET
_UNKNOWN_VALUE = UNKNOWN_VALUE


@dataclass(frozen=True)
class StackFile:
    """A stack file: its name, its config mapping (namespaced keys), and where it lives."""

    name: str
    path: Path
    config: Mapping[str, Any]

    def secret_keys(self) -> list[str]:
        """Keys whose value is a Pulumi secret (``{secure: ...}``)."""
        return sorted(k for k, v in self.config.items() if is_secret(v))


@dataclass(frozen=True)
class Recorded:
    """One resource as the engine received it (inputs redacted, numbers as the engine sent them)."""

    type: str
    name: str
    parent: Optional[str]
    custom: bool
    inputs: Mapping[str, Any]
    dependencies: tuple[str, ...] = ()
    # Engine identities (mock URNs: for ordering only, never printed or written).
    urn: str = ""
    parent_urn: str = ""
    # Name of the explicit provider the resource was registered with ("" for the default provider).
    provider: str = ""
    # ResourceOptions.delete_before_replace (a fixed physical name cannot coexist with its replacement).
    delete_before_replace: bool = False
    # ResourceOptions.custom_timeouts as the engine receives them ({"create": "20m", ...}; only those set).
    custom_timeouts: Mapping[str, str] = field(default_factory=dict)
    # ResourceOptions.ignore_changes (property paths `pulumi up` and `pulumi refresh` leave alone).
    ignore_changes: tuple[str, ...] = ()
    # ResourceOptions.replace_on_changes (property paths whose change makes `pulumi up` replace the resource).
    replace_on_changes: tuple[str, ...] = ()
    # ResourceOptions.aliases, each as "<type>::<name>" (the old identity whose state this resource takes over).
    aliases: tuple[str, ...] = ()


@dataclass
class Recording:
    """Everything one program run registered, in registration order."""

    resources: list[Recorded] = field(default_factory=list)
    outputs: dict[str, Any] = field(default_factory=dict)


# Pulumi's rule for stack names (pkg/tokens: "stack names may only contain alphanumerics,
# hyphens, underscores, or periods", at most 100); a name of dots only ("." or "..") is refused
# too, because the default output folder build/<stack> must stay a folder of its own under build/.
_STACK_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}")


def check_stack_name(name: str, given: str) -> str:
    """``name`` if it is a valid Pulumi stack name; otherwise a ConfigError naming what was given."""
    if not _STACK_NAME.fullmatch(name) or not name.strip("."):
        raise ConfigError(
            [
                Problem(
                    "STACK",
                    "the stack name must be 1-100 letters, digits, '-', '_' or '.', not only dots "
                    "(a stack file is named Pulumi.<stack>.yaml)",
                    given[:120],
                )
            ]
        )
    return name


def load_stack_file(stack: str, stacks_dir: Path = PROJECT_DIR / "stacks") -> StackFile:
    """Read ``stacks/Pulumi.<stack>.yaml`` or a path to a file in that format; errors name the file.

    The file goes through the bounded loader (components.loading: 1 MiB, depth 32, 50,000 nodes
    with aliases expanded, one document, string keys, no repeated keys).
    """
    candidate = Path(stack)
    if candidate.suffix in (".yaml", ".yml") or "/" in stack:
        path = candidate
        name = candidate.name.removeprefix("Pulumi.").rsplit(".", 1)[0]
    else:
        path = stacks_dir / f"Pulumi.{stack}.yaml"
        name = stack
    check_stack_name(name, stack)
    if not path.is_file():
        known = sorted(p.name.removeprefix("Pulumi.").removesuffix(".yaml") for p in stacks_dir.glob("Pulumi.*.yaml"))
        raise ConfigError([Problem("STACK", f"no stack file {path} (stacks: {', '.join(known)})", stack)])
    try:
        doc = load_yaml(path, STACK_FILE)
    except LoadError as exc:
        raise ConfigError(
            [Problem(exc.source, (f"line {exc.line}: " if exc.line else "") + exc.problem, has_value=False)]
        ) from None
    if doc is None:
        doc = {}
    if not isinstance(doc, Mapping):
        raise ConfigError([Problem(str(path), "must be a mapping with a 'config:' key", has_value=False)])
    unknown = sorted(set(doc) - {"config", "encryptionsalt", "secretsprovider", "encryptedkey", "environment"})
    if unknown:
        raise ConfigError([Problem(unknown[0], "unknown top-level key of a stack file (expected config:)", has_value=False)])
    config = doc.get("config") or {}
    if not isinstance(config, Mapping):
        raise ConfigError([Problem("config", "must be a mapping of namespaced keys", config)])
    return StackFile(name=name, path=path, config=dict(config))


def engine_config(stack: StackFile) -> tuple[dict[str, str], list[str]]:
    """The config map as the Pulumi engine hands it to a program: strings, objects as JSON."""
    values: dict[str, str] = {}
    for key, value in stack.config.items():
        if is_secret(value):
            # The CLI would decrypt this; offline the ciphertext stands in for the value and is
            # treated as the secret it is (it never reaches an output).
            values[key] = value[SECURE_KEY]
        elif isinstance(value, str):
            values[key] = value
        else:
            values[key] = json.dumps(value, default=str)
    return values, stack.secret_keys()


def clean(value: Any) -> Any:
    """Decode the engine's wire values: redact secrets, mark unknowns, keep structure."""
    if isinstance(value, Mapping):
        if value.get(_SIG_KEY) == _SIG_SECRET:
            return _redact(value.get("value"))
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clean(v) for v in value]
    if value == _UNKNOWN_VALUE:
        return UNKNOWN
    return value


def recorded_inputs(struct: Any) -> dict[str, Any]:
    """A RegisterResource's inputs (a protobuf ``Struct``) as the recording keeps them.

    The values of ``clean(json_format.MessageToDict(struct))`` (numbers stay floats, keys in the
    Struct's order, secrets redacted, unknowns marked; tests/plan/test_sdk_hooks.py compares the
    two), read in one pass without MessageToDict's per-field descriptor dispatch, which cost a
    tenth of a 100-model plan.
    """
    return {key: _wire_value(value) for key, value in struct.fields.items()}


def _wire_value(value: Any) -> Any:
    kind = value.WhichOneof("kind")
    if kind == "string_value":
        text = value.string_value
        return UNKNOWN if text == _UNKNOWN_VALUE else text
    if kind == "struct_value":
        fields = value.struct_value.fields
        signature = fields.get(_SIG_KEY)
        if signature is not None and signature.WhichOneof("kind") == "string_value" and signature.string_value == _SIG_SECRET:
            secret = fields.get("value")
            return _redact(_struct_value(secret) if secret is not None else None)
        return {key: _wire_value(v) for key, v in fields.items()}
    if kind == "list_value":
        return [_wire_value(v) for v in value.list_value.values]
    return _struct_value(value)


def _struct_value(value: Any) -> Any:
    kind = value.WhichOneof("kind")
    if kind == "string_value":
        return value.string_value
    if kind == "struct_value":
        return {key: _struct_value(v) for key, v in value.struct_value.fields.items()}
    if kind == "list_value":
        return [_struct_value(v) for v in value.list_value.values]
    if kind == "number_value":
        number = value.number_value
        if not math.isfinite(number):  # as MessageToDict: JSON has no NaN or Infinity
            raise ValueError(f"a resource input is {number!r}, which JSON cannot hold")
        return number
    if kind == "bool_value":
        return value.bool_value
    return None


def engine_dependencies(request: Any, names: Mapping[str, str]) -> tuple[str, ...]:
    """The names of the resources a RegisterResource request waits for, sorted and without repeats.

    The union of the request's ``dependencies`` (explicit ``depends_on``, with a component expanded
    to its custom children, and the resources behind every Output input) and its
    ``propertyDependencies`` (per input property): what the engine orders creation, and in reverse
    deletion, by. A URN the run has not registered (never expected) stays as it came.
    """
    urns = set(request.dependencies)
    for deps in request.propertyDependencies.values():
        urns.update(deps.urns)
    return tuple(sorted({names.get(urn, urn) for urn in urns}))


def _redact(value: Any) -> Any:
    """A secret keeps its shape (keys of a Secret's data stay readable); every leaf is redacted."""
    if isinstance(value, Mapping):
        return {str(k): _redact(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact(v) for v in value]
    return REDACTED


@dataclass(frozen=True)
class FakeStack:
    """The outputs another stack would hand a ``pulumi.StackReference`` (offline there is no backend).

    ``secret_names`` lists the outputs that stack marked secret: the program reads them as
    secret Outputs, exactly as from the real backend, and they are redacted in every output.
    """

    outputs: Mapping[str, Any]
    secret_names: tuple[str, ...] = ()


class ThreadLoops:
    """The event loops the SDK's executor threads open during one run, owned and closed by it.

    The SDK's MockMonitor runs in executor threads and asks asyncio for that thread's loop
    (creating one when there is none). Each thread is given a loop this object owns, so that every
    loop a run opened is closed when it ends (left open, the garbage collector closes them at
    interpreter exit, after their file descriptors are gone, and Python prints "Exception ignored
    in BaseEventLoop.__del__").
    """

    def __init__(self) -> None:
        self._loops: list[asyncio.AbstractEventLoop] = []
        self._lock = threading.Lock()

    def ensure(self) -> None:
        """Give the calling worker thread a loop of ours unless it has one."""
        if threading.current_thread() is threading.main_thread():
            return
        try:
            asyncio.get_event_loop_policy().get_event_loop()
        except RuntimeError:
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            with self._lock:
                self._loops.append(loop)

    def close(self) -> None:
        """Close every loop handed out (the run has ended; no thread uses them any more)."""
        with self._lock:
            for loop in self._loops:
                loop.close()
            self._loops.clear()


def loop_owning_monitor(loops: ThreadLoops, on_register: Optional[Callable[[Any, Any], None]] = None) -> type:
    """The public ``MockMonitor`` with each engine call first giving its thread a loop from ``loops``;
    ``on_register(request, response)`` sees every registration once the mock has answered it.

    Used by this engine and by benchmarks/run.py's bare floor, so that neither leaves loops open.
    """
    from pulumi.runtime import mocks

    class _LoopOwningMonitor(mocks.MockMonitor):
        def RegisterResource(self, request):  # noqa: N802 (gRPC method name)
            loops.ensure()
            response = super().RegisterResource(request)
            if on_register is not None:
                on_register(request, response)
            return response

        def ReadResource(self, request):  # noqa: N802
            loops.ensure()
            return super().ReadResource(request)

        def Invoke(self, request):  # noqa: N802
            loops.ensure()
            return super().Invoke(request)

    return _LoopOwningMonitor


# Frames kept of each registration's stack trace during an offline run (see run_program).
TRACE_FRAMES = 12


def run_program(
    stack: StackFile,
    program: Union[Path, Callable[[], Any]] = PROGRAM,
    *,
    project: str = PROJECT,
    stack_references: Optional[Mapping[str, FakeStack]] = None,
) -> Recording:
    """Run the Pulumi program for ``stack`` under a recording mock engine.

    ``program`` is a program file (``__main__.py``) or a function that builds resources (tests).

    Everything the SDK keeps per run (settings, root stack resource, config) lives in context
    variables, so the run happens in a fresh ``contextvars.Context``: each call starts from
    nothing, with no reset of SDK internals, and leaves nothing behind for the next.
    ``stack_references`` fakes the outputs of the stacks the program reads through
    ``pulumi.StackReference`` (keyed by the referenced stack's name); a reference to any other
    stack is an input error naming it. An SDK release that lacks an internal the engine reads is
    refused first (stacks/sdk_support.py: SdkUnsupported, naming the release and the hook).
    """
    check_sdk()
    # The SDK makes tens of thousands of short-lived Outputs and futures per run, many in reference
    # cycles; the cyclic collector re-scanning them costs about 30% of a large plan (benchmarks/run.py).
    # One run is short and its garbage is freed when it ends, so the collector waits until then.
    # The objects that existed before the run (modules, the SDK's and pydantic's classes: most of
    # the heap) cannot become this run's garbage: frozen, the collection at the end scans only what
    # the run made (about 40% less than a collection over everything, in benchmarks/run.py).
    collecting = gc.isenabled()
    gc.disable()
    gc.freeze()
    # The SDK records a stack trace with every registration (traceback.extract_stack, which honours
    # sys.tracebacklimit) and sends the engine its innermost user frame as the source position.
    # Nothing offline reads more than that frame; the innermost TRACE_FRAMES frames hold it and four
    # to six above it, and walking the whole stack cost a tenth of a 100-model plan.
    limit = getattr(sys, "tracebacklimit", None)
    sys.tracebacklimit = TRACE_FRAMES
    try:
        return contextvars.Context().run(_run_in_context, stack, program, project, dict(stack_references or {}))
    finally:
        if isinstance(limit, int):
            sys.tracebacklimit = limit
        else:
            del sys.tracebacklimit
        if collecting:
            gc.collect()
        gc.unfreeze()
        if collecting:
            gc.enable()


def _mocks_type(references: dict[str, FakeStack], missing: list[str], region: str) -> type:
    """The ``Mocks`` that answer registrations and provider functions as the cloud would, offline.

    A StackReference to a stack not in ``references`` is answered empty and its name added to ``missing``.
    """
    from pulumi.runtime import mocks

    from stacks import mock_cloud

    # Explicit AWS providers by id, with the region each was given: a lookup through one answers for its region.
    provider_regions: dict[str, str] = {}

    class _Mocks(mocks.Mocks):
        def new_resource(self, args: mocks.MockResourceArgs):
            if args.typ == "pulumi:pulumi:StackReference":
                ref = str(args.inputs.get("name", ""))
                fake = references.get(ref)
                if fake is None:
                    missing.append(ref)
                    fake = FakeStack({})
                return ref, {"name": ref, "outputs": dict(fake.outputs), "secretOutputNames": list(fake.secret_names)}
            # Return the inputs as outputs so that whatever the program reads back is known, plus
            # what AWS would compute (ARNs, URLs) in plausible, deterministic form.
            outputs = {**mock_cloud.computed_outputs(args.typ, args.name, args.inputs, region), **args.inputs}
            physical = mock_cloud.physical_id(args.typ, args.name)
            if args.typ == "pulumi:providers:aws" and isinstance(args.inputs.get("region"), str):
                provider_regions[physical] = args.inputs["region"]
            return physical, outputs

        def call(self, args: mocks.MockCallArgs):
            # Provider functions: the EKS cluster lookup and the few others the program makes.
            provider_id = (args.provider or "").rsplit("::", 1)[-1]
            return mock_cloud.invoke(args.token, args.args, provider_regions.get(provider_id, region))

    return _Mocks


def _custom_timeouts(request: Any) -> dict[str, str]:
    """The request's customTimeouts (proto CustomTimeouts: create, update, delete duration strings), those set."""
    timeouts = getattr(request, "customTimeouts", None)
    if timeouts is None:
        return {}
    return {op: getattr(timeouts, op) for op in ("create", "update", "delete") if getattr(timeouts, op, "")}


def _aliases(request: Any) -> tuple[str, ...]:
    """The request's aliases as "<type>::<name>": from alias specs (where the SDK sends them) or alias URNs."""
    out = []
    for alias in getattr(request, "aliases", ()):
        spec = alias.spec if alias.HasField("spec") else None
        if spec is not None:
            out.append(f"{spec.type or request.type}::{spec.name or request.name}")
        elif alias.urn:
            out.append("::".join(alias.urn.rsplit("::", 2)[-2:]).split("$")[-1])
    for urn in getattr(request, "aliasURNs", ()):
        out.append("::".join(urn.rsplit("::", 2)[-2:]).split("$")[-1])
    return tuple(out)


def _recorder(recording: Recording) -> Callable[[Any, Any], None]:
    """What the monitor calls with each registration: it appends the resource to ``recording``."""
    names: dict[str, str] = {}

    def record(request: Any, response: Any) -> None:
        # The root Stack is nobody's parent in the report: top-level components show none.
        names[response.urn] = "" if request.type == "pulumi:pulumi:Stack" else request.name
        if request.type == "pulumi:pulumi:Stack":
            return
        recording.resources.append(
            Recorded(
                type=request.type,
                name=request.name,
                parent=names.get(request.parent) or None,
                custom=bool(request.custom),
                inputs=recorded_inputs(request.object),
                dependencies=engine_dependencies(request, names),
                urn=response.urn,
                parent_urn=request.parent if names.get(request.parent) else "",
                # A provider reference is "<urn>::<id>"; the default provider has none.
                provider=names.get(request.provider.rsplit("::", 1)[0], "") if request.provider else "",
                delete_before_replace=bool(request.deleteBeforeReplace),
                custom_timeouts=_custom_timeouts(request),
                ignore_changes=tuple(request.ignoreChanges),
                replace_on_changes=tuple(request.replaceOnChanges),
                aliases=_aliases(request),
            )
        )

    return record


def _run_in_context(
    stack: StackFile, program: Union[Path, Callable[[], Any]], project: str, references: dict[str, FakeStack]
) -> Recording:
    # Public SDK surface only: Mocks, MockMonitor, set_mocks, set_all_config and the runtime.test
    # runner (tests/plan/test_sdk_hooks.py pins every assumption this makes about the SDK).
    import pulumi
    from pulumi.runtime import mocks
    from pulumi.runtime.config import set_all_config

    from components import chart_crd_files
    from components.program import STACK_DIR_ENV

    recording = Recording()
    loops = ThreadLoops()
    missing: list[str] = []
    mocks_type = _mocks_type(references, missing, str(stack.config.get("aws:region") or "us-west-2"))
    monitor_type = loop_owning_monitor(loops, _recorder(recording))
    # The main thread's loop is ours too: opened here, closed (with its executor) below.
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    previous = os.environ.get(STACK_DIR_ENV)
    os.environ[STACK_DIR_ENV] = str(stack.path.resolve().parent)
    try:
        monitor = monitor_type(mocks_type())
        mocks.set_mocks(mocks_type(), project=project, stack=stack.name, preview=False, monitor=monitor)
        values, secret_keys = engine_config(stack)
        set_all_config(values, secret_keys)
        # pulumi.runtime.test runs a function as a program and waits for every registration. The chart CRDs'
        # ConfigFiles are registered as in a deploy, but no chart archive is read: the plan needs no network.
        try:
            with chart_crd_files.not_read():
                pulumi.runtime.test(lambda: _run_and_collect_exports(program, recording))()
        except Exception:
            if not missing:
                raise
    finally:
        if previous is None:
            os.environ.pop(STACK_DIR_ENV, None)
        else:
            os.environ[STACK_DIR_ENV] = previous
        loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()
        asyncio.set_event_loop(None)
        loops.close()
    if missing:
        known = ", ".join(sorted(references)) or "none"
        raise ConfigError(
            [
                Problem("StackReference", f"the offline plan has no outputs for stack {name!r} (faked stacks: {known})", name)
                for name in sorted(set(missing))
            ]
        )
    return recording


def _run_and_collect_exports(program: Union[Path, Callable[[], Any]], recording: Recording) -> Any:
    """Run the program, then resolve its stack outputs (``pulumi.export``) into ``recording.outputs``.

    The stack outputs are read from the root Stack resource once the program has run; a secret
    output keeps its shape with every leaf redacted, like a secret input.
    """
    import pulumi

    if callable(program):
        program()
    else:
        runpy.run_path(str(program), run_name="__main__")
    root = pulumi.runtime.get_root_resource()
    exported = dict(getattr(root, "outputs", None) or {})

    async def collect() -> None:
        for key in sorted(exported):
            output = pulumi.Output.from_input(exported[key])
            value = await output.future()
            recording.outputs[key] = _redact(value) if await output.is_secret() else clean(value)

    return asyncio.ensure_future(collect())
