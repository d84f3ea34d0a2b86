"""G72 (KubeAI form): a KubeAI Model's url names its model as KubeAI reads it.

KubeAI splits ``spec.url`` with ``^([a-z0-9]+)://([^?]+)(\\?.*)?$`` and takes everything after ``scheme://`` as the
model reference (substratusai/kubeai v0.21.0 internal/modelcontroller/model_source.go:229-265); for the VLLM engine
that reference is passed as ``--model=`` (internal/modelcontroller/engine_vllm.go:20-35, unless a cacheProfile or a
pvc/s3 url replaces it). A third slash (``hf:///Qwen/Qwen2.5-3B-Instruct``) makes the reference ``/Qwen/...``: vLLM
takes the leading slash for a local path, finds no such directory and exits at start (spent set 25
cdr-model-qwen2-5-3b-instruct.yaml, label filed NONE); for Ollama the pull asks for a name that cannot exist.

Advice: KubeAI's own validation admits the url (it only checks the scheme prefix). Silent for a url with a
cacheProfile (the model is read from the cache folder) and for pvc:// urls (mounted at /model).
"""

from __future__ import annotations

import re

from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, get, split_type

_URL = re.compile(r"^([a-z0-9]+)://([^?]+)(\?.*)?$")


def _check(resource: Resource, config: dict) -> list[str]:
    if split_type(resource.type) != ("kubeai.org", "Model"):
        return []
    spec = as_dict(get(resource.props, "spec"))
    url = spec.get("url")
    if not isinstance(url, str) or spec.get("cacheProfile"):
        return []
    found = _URL.match(url.strip())
    if found is None or found.group(1) == "pvc":
        return []
    ref = found.group(2)
    if not ref.startswith("/") and "//" not in ref:
        return []
    fixed = f"{found.group(1)}://{re.sub('/+', '/', ref).strip('/')}"
    effect = (
        f"vLLM gets --model={ref}, which it takes for a local path that does not exist, and exits at start"
        if str(spec.get("engine", "")).upper() == "VLLM" and found.group(1) == "hf"
        else "the engine is asked for a model name that cannot exist"
    )
    return [
        unproven(
            f"spec.url {url}: KubeAI takes everything after {found.group(1)}:// as the model reference, here {ref}, so "
            f"{effect}; write {fixed}"
        )
    ]


POLICY = Policy(
    name="kubeai-model-url-ref",
    description=(
        "A KubeAI Model's url names its model as KubeAI reads it: no third slash or empty segment after scheme:// "
        "(hf:///org/name makes the reference /org/name) (advice)."
    ),
    catalog="G72",
    severity="high",
    enforcement="advisory",
    remediation_steps="Write the url as scheme://org/name (hf://Qwen/Qwen2.5-3B-Instruct), with no slash after scheme://.",
    config_schema={},
    resource_types=("kubernetes:kubeai.org/v1:Model",),
    check_resource=_check,
    rationale=(
        "KubeAI takes everything after scheme:// as the model reference and passes it to vLLM as --model "
        "(substratusai/kubeai v0.21.0 model_source.go:229-265, engine_vllm.go:20-35)."
    ),
)
