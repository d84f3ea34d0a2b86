"""Every Pulumi SDK detail the offline engine relies on beyond the documented mock API, one test each.

The engine (stacks/offline.py) runs programs with the public testing API: ``Mocks``,
``MockMonitor``, ``set_mocks``, ``set_all_config``, ``pulumi.runtime.test``. What it assumes
beyond that is listed here; when an SDK upgrade moves one of these, its test fails with a message
naming the hook and the code that uses it, instead of the plan breaking somewhere downstream.
"""

from __future__ import annotations

import asyncio
import contextvars
import gc
from pathlib import Path

import pulumi
import pytest

from stacks import offline
from stacks.offline import FakeStack, StackFile, load_stack_file, run_program


def empty_stack(tmp_path: Path) -> StackFile:
    return StackFile(name="hooks", path=tmp_path / "Pulumi.hooks.yaml", config={})


def hook(name: str, used_by: str) -> str:
    return f"SDK hook moved: {name} (used by {used_by}); re-check it against the new Pulumi SDK before widening the range in requirements.txt"


def test_config_map_is_the_context_variable_config():
    """components/program.py enumerates every config key (to reject unknown ones) from runtime.config.CONFIG."""
    from pulumi.runtime import config

    assert isinstance(getattr(config, "CONFIG", None), contextvars.ContextVar), hook(
        "pulumi.runtime.config.CONFIG", "components/program.py runtime_stack_config"
    )

    def read():
        config.set_all_config({"p:a": "1"}, ["p:a"])
        return dict(config.CONFIG.get()), config.is_config_secret("p:a")

    assert contextvars.Context().run(read) == ({"p:a": "1"}, True), hook(
        "set_all_config -> CONFIG / is_config_secret", "components/program.py runtime_stack_config"
    )


def test_wire_markers_of_secrets_and_unknowns():
    """The engine decodes secrets and unknowns in the monitor's protobuf by the SDK's marker strings."""
    from pulumi.runtime import rpc

    assert getattr(rpc, "_special_sig_key", None) == offline._SIG_KEY, hook(
        "pulumi.runtime.rpc._special_sig_key", "stacks/offline.py clean"
    )
    assert getattr(rpc, "_special_secret_sig", None) == offline._SIG_SECRET, hook(
        "pulumi.runtime.rpc._special_secret_sig", "stacks/offline.py clean"
    )
    assert getattr(rpc, "UNKNOWN", None) == offline._UNKNOWN_VALUE, hook("pulumi.runtime.rpc.UNKNOWN", "stacks/offline.py clean")


def test_sdk_state_lives_in_context_variables():
    """A fresh contextvars.Context per run is the whole reset: the root stack and settings must be context variables."""
    from pulumi.runtime import settings

    assert isinstance(getattr(settings, "ROOT", None), contextvars.ContextVar), hook(
        "pulumi.runtime.settings.ROOT", "stacks/offline.py run_program (fresh Context per run)"
    )
    per_context = {
        n: type(settings.Settings.__dict__.get(n)).__name__ for n in ("monitor", "rpc_manager", "outputs", "project", "stack")
    }
    assert set(per_context.values()) == {"ContextProperty"}, hook(
        "pulumi.runtime.settings.Settings properties as context variables", "stacks/offline.py run_program"
    )


def test_two_runs_in_one_process_do_not_leak_into_each_other():
    first = run_program(load_stack_file("dev"))
    second = run_program(load_stack_file("dev"))

    # Registration order is asynchronous; the set of resources and their inputs must be equal.
    def key(recording):
        return sorted((r.type, r.name, repr(r.inputs)) for r in recording.resources)

    assert key(first) == key(second), hook("per-run SDK state (root stack, settings, config)", "stacks/offline.py run_program")
    assert len({r.name for r in first.resources if r.type == "pulumi:pulumi:Stack"}) == 0


def test_every_event_loop_the_run_opens_is_closed():
    """Executor threads get their loop from asyncio (pulumi.runtime.sync_await._ensure_event_loop): the engine pre-sets one it closes."""
    run_program(load_stack_file("dev"))
    gc.collect()
    open_loops = [
        o for o in gc.get_objects() if isinstance(o, asyncio.BaseEventLoop) and not o.is_closed() and not o.is_running()
    ]
    assert open_loops == [], hook(
        "pulumi.runtime.sync_await._ensure_event_loop (asyncio.get_event_loop per thread)", "stacks/offline.py own_thread_loop"
    )


def test_runtime_test_waits_for_every_registration(tmp_path):
    """pulumi.runtime.test returns only once every resource registration (and apply) has reached the monitor."""
    import pulumi_kubernetes as k8s

    def program():
        ns = pulumi.Output.from_input("late").apply(lambda v: v)
        for i in range(50):
            k8s.core.v1.ConfigMap(f"cm-{i}", metadata={"name": f"cm-{i}", "namespace": ns})

    rec = run_program(empty_stack(tmp_path), program)
    assert sorted(r.name for r in rec.resources) == sorted(f"cm-{i}" for i in range(50)), hook(
        "pulumi.runtime.test (waits for outstanding RPCs)", "stacks/offline.py run_program"
    )
    assert {r.inputs["metadata"]["namespace"] for r in rec.resources} == {"late"}


def test_stack_outputs_are_read_from_the_root_stack(tmp_path):
    """Exports are collected from pulumi.runtime.get_root_resource().outputs once the program ran."""

    def program():
        pulumi.export("plain", 1)
        pulumi.export("hidden", pulumi.Output.secret({"k": "v"}))

    rec = run_program(empty_stack(tmp_path), program)
    assert rec.outputs == {"plain": 1, "hidden": {"k": offline.REDACTED}}, hook(
        "pulumi.runtime.stack.Stack.outputs", "stacks/offline.py _run_and_collect_exports"
    )


def test_stack_reference_is_read_through_the_mocks(tmp_path):
    """A StackReference reaches Mocks.new_resource as type pulumi:pulumi:StackReference; its secret outputs stay secret."""
    seen = {}

    def program():
        ref = pulumi.StackReference("org/platform/dev")
        pulumi.export("ns", ref.require_output("namespace"))
        pulumi.export("kubeconfig", ref.require_output("kubeconfig"))
        seen["ok"] = True

    fake = FakeStack({"namespace": "llm", "kubeconfig": "apiVersion: v1"}, secret_names=("kubeconfig",))
    rec = run_program(empty_stack(tmp_path), program, stack_references={"org/platform/dev": fake})
    assert rec.outputs == {"ns": "llm", "kubeconfig": offline.REDACTED}, hook(
        "the StackReference resource's outputs/secretOutputNames", "stacks/offline.py _Mocks.new_resource"
    )


def test_monitor_requests_carry_parent_provider_and_dependencies(tmp_path):
    """The recorded tree comes from RegisterResource's request fields: parent, provider, dependencies, custom."""
    import pulumi_kubernetes as k8s

    class Box(pulumi.ComponentResource):
        def __init__(self, name, opts=None):
            super().__init__("test:index:Box", name, None, opts)
            self.register_outputs({})

    def program():
        provider = k8s.Provider("cluster", kubeconfig="{}")
        box = Box("box")
        first = k8s.core.v1.ConfigMap("first", opts=pulumi.ResourceOptions(parent=box, provider=provider))
        k8s.core.v1.ConfigMap("second", opts=pulumi.ResourceOptions(parent=box, provider=provider, depends_on=[first]))

    rec = run_program(empty_stack(tmp_path), program)
    by_name = {r.name: r for r in rec.resources}
    assert (by_name["second"].parent, by_name["second"].provider, by_name["second"].dependencies) == (
        "box",
        "cluster",
        ("first",),
    ), hook("MockMonitor.RegisterResource request fields (parent, provider, dependencies)", "stacks/offline.py _Monitor")
    assert (by_name["box"].custom, by_name["first"].custom) == (False, True)


def test_struct_reader_gives_what_message_to_dict_gives():
    """stacks/offline.py reads each RegisterResource's inputs (a protobuf Struct) with its own
    recorded_inputs instead of json_format.MessageToDict: without secrets or unknowns, the values
    must be the same."""
    from google.protobuf import json_format, struct_pb2

    struct = struct_pb2.Struct()
    struct.update(
        {
            "a": 1,
            "b": 2.5,
            "c": True,
            "d": None,
            "e": "text",
            "f": [1, "x", {"g": [None, False]}, []],
            "h": {"i": {"j": -3}},
            "k": {},
            "l": "",
            "m": 1e300,
        }
    )
    assert offline.recorded_inputs(struct) == json_format.MessageToDict(struct)
    assert list(offline.recorded_inputs(struct)) == list(json_format.MessageToDict(struct))
    nan = struct_pb2.Struct()
    nan.update({"n": float("nan")})
    with pytest.raises(ValueError):
        json_format.MessageToDict(nan)
    with pytest.raises(ValueError, match="JSON cannot hold"):
        offline.recorded_inputs(nan)


def test_a_run_leaves_the_collector_as_it_found_it(tmp_path):
    """run_program freezes the objects that existed before it (gc.freeze) and collects once at
    the end: nothing may stay frozen, and the collector's state is restored."""
    enabled = gc.isenabled()
    run_program(empty_stack(tmp_path), lambda: pulumi.export("x", 1))
    assert gc.get_freeze_count() == 0
    assert gc.isenabled() == enabled
    gc.disable()
    try:
        run_program(empty_stack(tmp_path), lambda: pulumi.export("x", 1))
        assert not gc.isenabled() and gc.get_freeze_count() == 0
    finally:
        if enabled:
            gc.enable()


def test_recorded_inputs_are_clean_of_message_to_dict():
    """The recorder converts and decodes in one pass: the same as clean(MessageToDict(...))."""
    from google.protobuf import json_format, struct_pb2

    secret = {offline._SIG_KEY: offline._SIG_SECRET, "value": {"token": "hf_x", "n": [1, 2]}}
    struct = struct_pb2.Struct()
    struct.update(
        {
            "a": offline._UNKNOWN_VALUE,
            "b": secret,
            "c": [secret, offline._UNKNOWN_VALUE, {"d": 1.5}],
            "e": {offline._SIG_KEY: "not-a-secret-signature", "x": True},
            "f": None,
            "g": {"h": {}},
        }
    )
    assert offline.recorded_inputs(struct) == offline.clean(json_format.MessageToDict(struct))
    assert offline.recorded_inputs(struct)["b"] == {"token": offline.REDACTED, "n": [offline.REDACTED, offline.REDACTED]}
    assert offline.recorded_inputs(struct)["a"] == offline.UNKNOWN


def test_registration_stack_traces_are_cut_to_the_innermost_frames(tmp_path, monkeypatch):
    """run_program sets sys.tracebacklimit to TRACE_FRAMES while it runs: the SDK's
    runtime.resource._get_stack_trace walks traceback.extract_stack(), which honours it. The
    source position (the innermost user frame) must survive the cut, and the limit be restored."""
    import pulumi.runtime.resource as sdk_resource

    seen = []
    original = sdk_resource._get_stack_trace

    def recording():
        trace = original()
        seen.append([frame.pc.uri for frame in trace.frames])
        return trace

    monkeypatch.setattr(sdk_resource, "_get_stack_trace", recording)

    class Deep(pulumi.CustomResource):  # a resource class of its own, as every provider's are
        def __init__(self, name):
            super().__init__("test:index:Deep", name, {})

    def deep(n):
        if n:
            return deep(n - 1)
        return Deep("deep")  # the source position

    before = getattr(__import__("sys"), "tracebacklimit", None)
    run_program(empty_stack(tmp_path), lambda: deep(40))
    assert getattr(__import__("sys"), "tracebacklimit", None) == before
    deep_traces = [uris for uris in seen if uris and uris[0].endswith("test_sdk_hooks.py")]
    assert deep_traces, hook("pulumi.runtime.resource._get_stack_trace (source position)", "stacks/offline.py run_program")
    assert all(len(uris) <= offline.TRACE_FRAMES for uris in seen), hook(
        "traceback.extract_stack in pulumi.runtime.resource._get_stack_trace", "stacks/offline.py run_program (TRACE_FRAMES)"
    )
