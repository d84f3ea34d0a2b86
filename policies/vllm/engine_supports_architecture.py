"""S53: the vLLM release the image names can load the model's architecture.

vLLM picks the model class by the ``architectures`` of the checkpoint's config.json. Before 0.7.2 an architecture its
model registry lacks stops the server at start: "Model architectures [...] are not supported for now" (0.6.6
vllm/model_executor/models/registry.py:374-384), so Gemma 3 (Gemma3ForCausalLM, first in 0.8.0) or a NemotronH
hybrid (first in 0.9.1) cannot be served by vllm/vllm-openai:v0.6.x, however the pod is set up. From 0.7.2 vLLM
falls back to the transformers library's class of an unknown architecture where that class is compatible (0.7.2
vllm/model_executor/model_loader/utils.py:45-75): whether it is depends on the transformers release inside the image
and on the model's code, which the manifest does not show, so this policy is silent there.

Which release lists which architecture is components/vllm_architectures.json, read from vLLM's wheels
(tools/read_vllm_architectures.py); which architecture a model is comes from the catalogue's config.json, else from
the ids vLLM's own tests and docs name per architecture (components.vllm_architectures.model_architecture).

- mandatory where the image is vLLM's own (vllm/vllm-openai) at a release read, before the fallback, and no
  architecture of the model is in that release's registry;
- advisory where the release is between two releases read that both lack it (a post release, a release not read);
- advisory where the release has the fallback, lists none of the model's architectures (first in a later release),
  and the model's family names the transformers release that first knows its model type (components/
  vllm_architectures.json ``model_families``): the fallback needs the image's transformers to know that type, which an
  image built before it does not (set 42: premmotgi/llmd-on-g4-gke deploy/plain-vllm/base/deployment.yaml@18613f4,
  google/gemma-4-E4B-it on vllm/vllm-openai:v0.11.0; gemma4 is first in the transformers 5.5.0 wheel, not in 4.57.6
  or 5.0.0-5.4.0, and vLLM lists Gemma 4 from 0.19.0);
- silent for a model the tables do not know (a local path, a fine-tune), an image that names no release (``latest``,
  a rebuild), a container that installs vLLM itself, and every release with the fallback.
"""

from __future__ import annotations

from typing import Any, Optional

from components.engine_options import fork_release, version_key
from components.vllm_architectures import architecture_table, model_architecture
from policies.framework import Policy, Resource, Unproven, unproven
from policies.kube import WORKLOAD_TYPES
from policies.reading.installs import installs_engine
from policies.reading.serving import EngineConfig, engine_configs, engine_row
from policies.reading.vllm_args import command_tokens
from policies.vllm.flags_exist import engine_release

_REFUSAL = 'vLLM exits at start ("Model architectures [...] are not supported for now")'


def _release(engine: EngineConfig) -> Optional[tuple[str, str]]:
    """(release, where it is read) of the vLLM inside the image: vllm/vllm-openai's tag, or the engine release a vendor
    fork's image path names (serving_engines.toml forks: Intel Gaudi's vllm-fork)."""
    release = engine_release(engine)
    if release:
        return release, f"the release of image {engine.image}"
    row = engine_row("vllm")
    if engine.server is None or engine.retagged or row is None or row.options is None or not row.options.forks:
        return None
    if installs_engine(command_tokens(engine.server.container)[0], row.name):
        return None
    forked = fork_release(engine.image or "", row.options.forks)
    return (forked[0], f"the base of image {engine.image}: {forked[1]}") if forked else None


def _message(engine: EngineConfig) -> Optional[str | Unproven]:
    model = engine.model
    found = _release(engine)
    if not model or not found:
        return None
    release, where = found
    table = architecture_table()  # read on first use: most images name no release, or one with the fallback
    known = model_architecture(model)
    if known is None:
        return None
    if table.has_fallback(release):
        return _fallback_message(engine, release, where, known, table)
    bounds = table.neighbours(release)
    if not bounds:
        return None
    archs = known.architectures
    if any(bound in table.releases_with(arch) for arch in archs for bound in bounds):
        return None
    first = min((table.releases_with(a)[0] for a in archs if table.releases_with(a)), default=None, key=table.releases.index)
    since = f"first in vLLM {first}" if first else f"in no vLLM release from {table.releases[0]} to {table.releases[-1]}"
    shown = ", ".join(archs)
    read = f"vLLM {release}" if bounds == (release,) else f"vLLM {release} (nor {bounds[0]} and {bounds[1]} around it)"
    message = (
        f"{engine.label}: {model} is {shown} ({known.source}), which the model registry of {read}, {where}, does not "
        f"list ({since}); {_REFUSAL}; use a release that lists it"
    )
    return message if bounds == (release,) else unproven(message)


def _fallback_message(engine: EngineConfig, release: str, where: str, known: Any, table: Any) -> Optional[Unproven]:
    """Advice where the release has the transformers fallback, lists none of the model's architectures, and the
    model's type first ships in a transformers release the table names (a family of components/vllm_architectures.json
    model_families): the fallback needs the image's transformers to know that model type (AutoConfig refuses an unknown
    one), which an image of a release older than the family's first native support may not hold; the image's
    transformers release is not in the files, hence advice."""
    if not known.transformers_first:
        return None
    bounds = table.neighbours(release)
    archs = known.architectures
    if not bounds or any(bound in table.releases_with(arch) for arch in archs for bound in bounds):
        return None
    first = min((table.releases_with(a)[0] for a in archs if table.releases_with(a)), default=None, key=table.releases.index)
    if first is None or version_key(first) <= version_key(release):
        return None
    return unproven(
        f"{engine.label}: {engine.model} is {' or '.join(archs)} ({known.source}), none of which the model registry "
        f"of vLLM {release} ({where}) lists (first in vLLM {first}); that release can load it only through its "
        f"transformers fallback, which needs the image's transformers to know model type {known.model_type}, first "
        f"shipped in transformers {known.transformers_first}: an image built before that release exits at start "
        f'("model type {known.model_type} ... Transformers does not recognize this architecture" or {_REFUSAL}); '
        f"use vLLM {first} or later"
    )


def _check(resource: Resource, config: dict) -> list[str | Unproven]:
    found = []
    for engine in engine_configs(resource):
        message = _message(engine)
        if message:
            found.append(message)
    return found


POLICY = Policy(
    name="engine-supports-model-architecture",
    description="The vLLM release the image names lists the model's architecture in its model registry (before 0.7.2 "
    "nothing else loads it).",
    catalog="S53",
    severity="critical",
    enforcement="mandatory",
    remediation_steps=(
        "Run a vLLM release whose registry lists the model's architecture (the message names the first), or serve a "
        "model of an architecture the release lists."
    ),
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        'vLLM raises "Model architectures [...] are not supported for now" for an architecture outside its registry '
        "(0.6.6 vllm/model_executor/models/registry.py:374-384, _raise_for_unsupported); from 0.7.2 it may load one "
        "through transformers instead (vllm/model_executor/model_loader/utils.py:45-75, resolve_transformers_fallback). "
        "components/vllm_architectures.json lists each architecture's releases, read from the wheels of vLLM 0.4.0 to "
        "0.34.0 (tools/read_vllm_architectures.py)."
    ),
)
