"""The plan's SLO advisory: the stack simulated under the traffic its models declare (slo.traffic).

`python -m stacks plan` calls :func:`slo_results` (policy llm-simulated-slo reads what it returns); the
`simulate` command (stacks/simulate.py) draws its settings and collects its garbage the same way.
"""

from __future__ import annotations

import contextlib
import gc
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Mapping

from components.errors import ConfigError, Problem

if TYPE_CHECKING:
    from components.capacity.plan import ServingPlan
    from components.config import StackConfig
    from components.simulate.settings import StackSettings
    from policies.framework import Resource

DEFAULT_DURATION = "1h"


def settings_from(cfg: StackConfig, plans: Mapping[str, ServingPlan], files: Mapping[str, str]) -> StackSettings:
    """The derived StackSettings from the plans and the files `plan` renders (kubernetes/ and helm/)."""
    import yaml

    from components.loading import yaml_loader
    from components.simulate.settings import Manifests, StackSettings, model_settings, pool_settings

    # libyaml's parser where PyYAML has it (the files are plan's own CSafeDumper output; the same objects, ~8x faster).
    loader = yaml_loader()
    objects: list[Any] = []
    helm: list[Any] = []
    for rel, text in sorted(files.items()):
        if rel.startswith("kubernetes/"):
            objects.append(yaml.load(text, Loader=loader))
        elif rel.startswith("helm/"):
            helm.append(yaml.load(text, Loader=loader))
    man = Manifests(objects, helm)
    models = []
    for m in cfg.models:
        sibling = m.name + "-long" if m.long_context is not None else None
        models.append(
            model_settings(
                plans[m.name],
                man,
                m.pool,
                m.engine.tensor_parallel_size,
                m.engine.pipeline_parallel_size,
                sibling,
                float(m.slo.time_to_first_token_seconds),
            )
        )
    pools = tuple(pool_settings(p.name, man) for p in cfg.gpu_pools)
    return StackSettings(tuple(models), pools, "derived")


def slo_results(cfg: StackConfig, plans: Mapping[str, ServingPlan], files: Mapping[str, str], base_dir: Path) -> list[Resource]:
    """Simulation results, as policy resources, for every model whose slo.traffic declares a profile (none: nothing runs).

    Each distinct profile is simulated once (derived settings, seed 0, the profile's duration or 1 h), with the
    traffic of the models that declare it: their requests are drawn as `simulate` draws them (every model of the
    profile drawn, in its order), the other models serve nothing, so the plan pays only for the declared models.
    """
    from components.simulate.run import check_profile, simulate, workloads
    from components.traffic.profile import load_profile, parse_duration
    from policies.framework import Resource
    from policies.simulation.simulated_slo import RESULT_TYPE

    by_profile: dict[str, list[tuple[str, Any]]] = {}
    for path, m in zip(cfg.model_paths(), cfg.models, strict=True):
        if m.slo.traffic is not None:
            by_profile.setdefault(m.slo.traffic, []).append((path, m))
    if not by_profile:
        return []
    derived = settings_from(cfg, plans, files)
    out: list[Resource] = []
    for ref, entries in sorted(by_profile.items()):
        profile_path = Path(ref) if Path(ref).is_absolute() else base_dir / ref
        field = f"{entries[0][0]}.slo.traffic"
        if not profile_path.is_file():
            raise ConfigError([Problem(field, "no such traffic profile (the path is relative to the stack file)", ref)])
        try:
            profile, traces = load_profile(profile_path)
            check_profile(profile, derived)
        except ConfigError as exc:
            raise ConfigError([Problem(f"{field} ({ref})", str(p), has_value=False) for p in exc.problems]) from None
        duration = parse_duration(profile.duration or DEFAULT_DURATION)
        declared = {m.name for _path, m in entries}
        loads = {name: w for name, w in workloads(profile, derived, duration, 0, traces).items() if name in declared}
        with own_garbage_collected():
            runs = simulate(derived, loads, duration, 0)
        for _path, m in entries:
            r = runs.get(m.name)
            if r is None or m.name not in profile.models:
                raise ConfigError([Problem(f"{_path}.slo.traffic", f"the profile gives no traffic for model {m.name}", ref)])
            out.append(
                Resource(
                    type=RESULT_TYPE,
                    name=m.name,
                    props={
                        "profile": ref,
                        "requests": r["requests"],
                        "ttftP95Seconds": r["ttft_s"]["p95"],
                        "ttftSloSeconds": float(m.slo.time_to_first_token_seconds),
                        "errors504": r["errors_504"],
                        "errors503": r["errors_503"],
                    },
                )
            )
    return out


@contextlib.contextmanager
def own_garbage_collected() -> Iterator[None]:
    """The cyclic garbage collector on, over only what the block makes: the objects from before are frozen (the plan
    command runs with it off, stacks/__main__.py; a simulation's SimPy conditions leave reference cycles behind, which
    a long traffic profile must not pile up). The caller's setting is restored after."""
    collecting = gc.isenabled()
    gc.freeze()
    gc.enable()
    try:
        yield
    finally:
        if not collecting:
            gc.disable()
        gc.unfreeze()
