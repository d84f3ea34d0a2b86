"""G72 (Ollama form): a pod pulls an Ollama library model by a name and size the library publishes.

``ollama pull NAME:TAG`` (and ``ollama run``) asks the registry for the manifest of that tag and fails with "pull model
manifest: file does not exist" when the library has no such tag (https://github.com/ollama/ollama/blob/main/docs/api.md
"Pull a Model": the name is ``model:tag``). Where the pull runs at start it fails every start: in a postStart hook
the kubelet then kills the container (FailedPostStartHook), in an init container the pod never starts, beside the
server the model is missing. Two forms the table of library families (components/ollama_library.toml) shows:

* a size the family has no tag for: spent set 20 phucly01/ollama-k8s ollama/ollama.yaml, postStart
  ``ollama run llama3.2-vision:8b`` (Llama 3.2 Vision is 11b and 90b);
* a family's name with two adjacent letters swapped: spent set 45 ryanbeales/personal-microk8s-config
  ai-services/ollama-fast/deployment.yaml, postStart ``ollama pull qewn3:8b`` after ``ollama pull qwen3:14b``.

Advice: the library grows, and a registry mirror (OLLAMA_HOST pointing elsewhere is not it: the pull goes to
registry.ollama.ai) may carry other names. Silent for other namespaces (``user/model``), tags that name no size
(``latest``, ``instruct``), names the table does not hold, and a variable the files do not resolve.
"""

from __future__ import annotations

from components.ollama_library import unpublished
from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, container_label, pod_specs
from policies.reading.ollama_pulls import container_pulls


def _check(resource: Resource, config: dict) -> list[str]:
    messages: list[str] = []
    for path, podspec in pod_specs(resource):
        for container, model in container_pulls(podspec):
            problem = unpublished(model)
            if problem is None:
                continue
            family, why = problem
            message = unproven(
                f"{container_label(path, container)}: pulls the Ollama model {model}, which the library does not "
                f"publish ({why}; components/ollama_library.toml, from {family.source.split(' ')[0]}): the pull fails "
                f"with 'file does not exist' at every start (a failing postStart hook gets the container killed, "
                f"FailedPostStartHook; a failing init container keeps the pod from starting); name a published model "
                f"and size"
            )
            if message not in messages:
                messages.append(message)
    return messages


POLICY = Policy(
    name="ollama-model-published",
    description=(
        "A pod pulls an Ollama library model by a name and size the library publishes (components/ollama_library.toml: "
        "no size a family lacks, no family name with two letters swapped) (advice)."
    ),
    catalog="G72",
    severity="high",
    enforcement="advisory",
    remediation_steps="Pull a model name and size tag the Ollama library lists (ollama.com/library/NAME).",
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "The registry answers a pull of a tag it does not hold with 'file does not exist', so a pull at start fails at "
        "every start (https://github.com/ollama/ollama/blob/main/docs/api.md, Pull a Model)."
    ),
)
