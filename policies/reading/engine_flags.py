"""An engine recognised by the flags it is given: a container that passes the args of its image's own entrypoint (no
``command``) with every flag of one of an engine's ``flag_sets`` (components/serving_engines.toml) runs that engine,
whatever the image is called: a private registry's copy of vllm/vllm-openai, llm-d's image (its entrypoint is vLLM's
server), an in-house ``llm-serving:gpu``.

The table guarantees each set names a flag no other engine's option table has (serving_engines.check_flag_sets_exclusive,
at import); here a flag match also gives way to every row that recognises the container by its image or its env prefix,
so an engine's own image, run with flags it shares with vLLM, stays that engine's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Optional

from components.serving_engines import ENGINES, Engine
from policies.kube import as_dict, as_list


def _claimed_by_image_or_env(container: Mapping, engines: tuple[Engine, ...]) -> bool:
    """True when some row recognises the container without flags: its image, or a variable under its env prefix."""
    raw = container.get("image")
    image = raw.lower() if isinstance(raw, str) else ""
    names = [as_dict(e).get("name") for e in as_list(container.get("env"))]
    for engine in engines:
        if image and any(marker in image for marker in engine.images):
            return True
        if any(isinstance(n, str) and n.startswith(engine.env_prefixes) for n in names if engine.env_prefixes):
            return True
    return False


def flag_set_engine(
    container: Mapping, args: Mapping[str, Optional[str]], engines: tuple[Engine, ...] = ENGINES
) -> Optional[Engine]:
    """The engine whose flag set ``args`` (the container's parsed args, flag_name keys) carry in full, when the
    container runs its image's entrypoint (no ``command``) and no row claims it by image or env prefix; else None."""
    if container.get("command") or not args or _claimed_by_image_or_env(container, engines):
        return None
    for engine in engines:
        if any(all(flag in args for flag in flags) for flags in engine.flag_sets):
            return engine
    return None
