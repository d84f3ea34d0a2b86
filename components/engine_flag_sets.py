"""A check across the rows of the engine table (components/serving_engines.toml): every flag set of a row names a flag
no other row's option table accepts. It holds for the committed table (tests/policies/test_policy_engine_flags.py) and
is not run on import, which would read every engine's option table (0.3 MB of JSON) on each check of a file that names
no engine."""

from __future__ import annotations

from typing import Callable

from .serving_engines import Engine, EngineTableError


def check_flag_sets_exclusive(engines: tuple[Engine, ...], accepts: Callable[[str, str], bool]) -> None:
    """Every flag set of a row names at least one flag that no other row's option table accepts (``accepts(file,
    flag)``), so a flag-based match cannot take another engine's server for this one; else EngineTableError naming
    the row, the set and the engine that shares it."""
    for engine in engines:
        for flags in engine.flag_sets:
            for other in engines:
                if other is engine or other.options is None:
                    continue
                if all(accepts(other.options.file, flag) for flag in flags):
                    raise EngineTableError(
                        f"serving_engines.toml [engines.{engine.name}].flag_sets: {list(flags)} are all options of "
                        f"{other.display} too ({other.options.file}); a flag set must name a flag only this engine has"
                    )


__all__ = ["check_flag_sets_exclusive"]
