"""Which Pulumi SDK releases the offline plan engine runs on, and a clear refusal on one it cannot.

The engine (stacks/offline.py) drives the SDK through its public testing API plus a few internals
(tests/plan/test_sdk_hooks.py pins each one). requirements.txt accepts ``pulumi>=3.233,<4``; CI runs
the plan, packaging and SDK-hook tests at both ends of that range (.ci/run: the README's install
takes the newest, requirements-floor.txt pins the lowest). Below 3.233 the SDK's
``sync_await._sync_await`` left a thread's event loop open after each run (it broke out of the
loop on ``loop._stopping``; 3.233.0 dropped that, measured on the 3.232.0 and 3.233.0 wheels), which
is why the floor is there.

Before a run, :func:`check_sdk` looks for every internal the engine reads. On a release that lacks
one (an older SDK, or a future one that moved it), the run stops with :class:`SdkUnsupported`, a
:class:`~components.errors.ConfigError` naming the installed release, the missing hook and the
tested range (the CLI prints it and exits 2), instead of a traceback somewhere inside the SDK.
"""

from __future__ import annotations

import contextvars
import inspect
import re
from functools import lru_cache
from importlib import metadata
from typing import Callable

from components.errors import ConfigError, Problem

# The lowest and the newest release CI runs the plan tests on (requirements.txt, requirements-floor.txt).
TESTED_LOWEST = "3.233.0"
TESTED_NEWEST = "3.272.0"
# Markers of Pulumi's wire format (sdk/python/lib/pulumi/runtime/rpc.py), decoded by stacks/offline.py.
SIG_KEY = "4dabf18193072939515e22adb298388d"
SIG_SECRET = "1b47061264138c4ac30d75fd1eb44270"
UNKNOWN_VALUE = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"


class SdkUnsupported(ConfigError):
    """The installed Pulumi SDK lacks something the offline engine relies on (release, hook, tested range)."""

    def __init__(self, version: str, missing: list[str]):
        self.version = version
        self.missing = tuple(missing)
        super().__init__([Problem("pulumi", f"lacks {hook}", version) for hook in missing])

    def __str__(self) -> str:
        hooks = "; ".join(self.missing)
        return (
            f"the installed Pulumi SDK (pulumi {self.version}) cannot run the offline plan: it lacks {hooks}. "
            f"The engine is tested on pulumi {TESTED_LOWEST} to {TESTED_NEWEST}: "
            f"pip install 'pulumi>={TESTED_LOWEST},<={TESTED_NEWEST}'"
        )


def version_tuple(text: str) -> tuple[int, ...]:
    """``"3.272.0"`` -> ``(3, 272, 0)``; anything after the third number (pre-release, local) is ignored."""
    match = re.match(r"(\d+)\.(\d+)\.(\d+)", text)
    return tuple(int(n) for n in match.groups()) if match else (0,)


def installed_version() -> str:
    """The installed ``pulumi`` distribution's version ("unknown" when its metadata is missing)."""
    try:
        return metadata.version("pulumi")
    except metadata.PackageNotFoundError:
        return "unknown"


def _has_context_var(module: str, name: str) -> Callable[[], bool]:
    def check() -> bool:
        import importlib

        return isinstance(getattr(importlib.import_module(module), name, None), contextvars.ContextVar)

    return check


def _rpc_markers() -> bool:
    from pulumi.runtime import rpc

    return (getattr(rpc, "_special_sig_key", None), getattr(rpc, "_special_secret_sig", None), getattr(rpc, "UNKNOWN", None)) == (
        SIG_KEY,
        SIG_SECRET,
        UNKNOWN_VALUE,
    )


def _set_mocks_takes_a_monitor() -> bool:
    from pulumi.runtime import mocks

    return "monitor" in inspect.signature(mocks.set_mocks).parameters and hasattr(mocks, "MockMonitor")


def _runtime_test_and_root() -> bool:
    import pulumi.runtime

    return callable(getattr(pulumi.runtime, "test", None)) and callable(getattr(pulumi.runtime, "get_root_resource", None))


def _set_all_config() -> bool:
    from pulumi.runtime import config

    return callable(getattr(config, "set_all_config", None)) and callable(getattr(config, "is_config_secret", None))


# Each internal the engine reads, as tests/plan/test_sdk_hooks.py names it, with a check that cannot import-fail.
HOOKS: dict[str, Callable[[], bool]] = {
    "pulumi.runtime.rpc wire markers (_special_sig_key, _special_secret_sig, UNKNOWN)": _rpc_markers,
    "pulumi.runtime.config.CONFIG as a context variable": _has_context_var("pulumi.runtime.config", "CONFIG"),
    "pulumi.runtime.config.set_all_config / is_config_secret": _set_all_config,
    "pulumi.runtime.settings.ROOT as a context variable": _has_context_var("pulumi.runtime.settings", "ROOT"),
    "pulumi.runtime.mocks.set_mocks(monitor=) and MockMonitor": _set_mocks_takes_a_monitor,
    "pulumi.runtime.test and get_root_resource": _runtime_test_and_root,
}


def missing_hooks(hooks: dict[str, Callable[[], bool]] = HOOKS) -> list[str]:
    """The names of the hooks the installed SDK lacks (a check that raises counts as missing)."""
    missing = []
    for name, check in hooks.items():
        try:
            ok = check()
        except Exception:  # an import or attribute error in a moved module: that hook is missing
            ok = False
        if not ok:
            missing.append(name)
    return missing


@lru_cache(maxsize=1)
def _checked(version: str) -> tuple[str, ...]:
    missing = missing_hooks()
    if version_tuple(version) < version_tuple(TESTED_LOWEST):
        missing.append(f"the event-loop handling of pulumi>={TESTED_LOWEST} (runtime.sync_await)")
    return tuple(missing)


def check_sdk() -> None:
    """Raise :class:`SdkUnsupported` unless the installed SDK has every hook the engine reads (once per process)."""
    version = installed_version()
    missing = _checked(version)
    if missing:
        raise SdkUnsupported(version, list(missing))


__all__ = ["HOOKS", "SdkUnsupported", "TESTED_LOWEST", "TESTED_NEWEST", "check_sdk", "installed_version", "missing_hooks"]
