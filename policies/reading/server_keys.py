"""Which keys a container's own server enforces (components/server_keys.toml): LiteLLM's LITELLM_MASTER_KEY on a
LiteLLM proxy container, VLLM_API_KEY and --api-key on a vLLM server container. A value committed under one of them
is the credential the server checks its callers against, so a stand-in's words do not make it harmless.

Asked only of a container whose secret-named value reads as a stand-in (rare), so recognising the server costs a run
next to nothing.
"""

from __future__ import annotations

from collections.abc import Mapping

from components.server_keys import SERVER_KEYS
from policies.reading.gateway_apps import app_of
from policies.reading.serving import model_server_engine


def enforced_keys(container: Mapping) -> tuple[frozenset[str], frozenset[str]]:
    """(env names, flags) through which ``container``'s own server takes the key it enforces; empty for a client."""
    app = app_of(container)
    engine = None if app is not None else model_server_engine(container)
    rows = [s for s in SERVER_KEYS if (app is not None and s.app == app.name) or (engine and s.engine == engine)]
    return frozenset(n for s in rows for n in s.env), frozenset(f for s in rows for f in s.flags)
