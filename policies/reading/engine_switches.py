"""Engine switches read from the engine table (components/serving_engines.toml ``lenient_readiness``, ``lazy_start``,
``start_models``): settings of a table engine's command line that change when it loads its models or what its
readiness endpoint says (Triton's --model-control-mode=explicit, --strict-readiness=false)."""

from __future__ import annotations

from typing import Optional

from policies.reading.container_env import env_values
from policies.reading.engines import EngineServer


def _set_to(server: EngineServer, pairs: tuple[tuple[str, str], ...]) -> Optional[str]:
    """``--flag=value`` of the first (flag, value) of ``pairs`` the server's command line sets, else None."""
    for flag, value in pairs:
        if flag in server.args and str(server.args[flag] or "").strip().lower() == value:
            return f"--{flag}={server.args[flag]}"
    return None


def loads_no_model_at_start(server: EngineServer) -> Optional[str]:
    """The setting with which the server starts with no model loaded (its row's ``lazy_start``, e.g. Triton's
    --model-control-mode=explicit), when no ``start_models`` flag (--load-model) names one; else None."""
    row = server.row
    if row is None or (row.start_models and row.start_models in server.args):
        return None
    return _set_to(server, row.lazy_start)


def lenient_readiness(server: EngineServer) -> Optional[str]:
    """The setting with which the server's readiness endpoint answers ready before its models are loaded (its row's
    ``lenient_readiness``, e.g. Triton's --strict-readiness=false), else None."""
    return _set_to(server, server.row.lenient_readiness) if server.row else None


def loads_at_start(server: EngineServer) -> Optional[str]:
    """The setting with which a server that otherwise listens with no model loaded downloads or loads models before it
    listens (its row's ``start_loads``: LocalAI's LOCALAI_PRELOAD_MODELS, its positional model URLs), as messages name
    it; else None. An empty value sets nothing."""
    row = server.row
    if row is None:
        return None
    for flag in row.start_load_flags:
        if flag == "model" and server.model and _fetched(server.model):
            return f"the model {server.model}"
        if flag != "model" and _sets(server.args.get(flag)):
            return f"--{flag}"
    if row.start_load_env:
        env = env_values(server.container)
        for name in row.start_load_env:
            if _sets(env.get(name)):
                return f"env {name}"
    return None


def _fetched(model: str) -> bool:
    """Whether a positional model is one the server fetches (a gallery id ``phi-2``, ``gallery@name``, or a URL) rather
    than a local config path whose files are already on a volume (``/models/phi-2.yaml``: read, not fetched)."""
    return "://" in model or "@" in model or "/" not in model


def _sets(value: object) -> bool:
    """Whether a start-load setting names anything: empty, ``[]`` or ``{}`` (an empty JSON list or map) sets nothing."""
    text = str(value or "").strip()
    return bool(text) and text.replace(" ", "") not in ("[]", "{}")
