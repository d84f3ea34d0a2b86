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
- silent for a model the tables do not know (a local path, a fine-tune), an image that names no release (``latest``,
  a rebuild), a container that installs vLLM itself, and every release with the fallback.
"""

from __future__ import annotations

from typing import Optional

from components.engine_options import fork_release
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
    if table.has_fallback(release):
        return None
    known = model_architecture(model)
    if known is None:
        return None
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
