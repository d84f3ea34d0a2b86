"""G72: a model server downloads a Hugging Face repository id that exists.

A server (or its downloader) that asks the Hub for an id no repository carries gets 404 "Repository Not Found"
(huggingface_hub's RepositoryNotFoundError) and exits at start; every restart asks again. Model families name their
repositories by a rule, and some ids break it so plainly that no repository can carry them: components/hub_names.toml
lists those rules with the Hub page that states each family's names (Llama 3 is ``meta-llama/Meta-Llama-3-8B-Instruct``,
so ``meta-llama/Llama-3-8B-Instruct`` names nothing; ``-chat-hf`` is Llama 2's suffix, so
``meta-llama/Llama-3-70b-chat-hf`` names nothing). Spent sets 23 tgmorton/knowledge-politeness-llms
kubernetes/vllm-deployment-large.yaml (meta-llama/Llama-3-70b-chat-hf) and 37 MissawB/Animetix
deploy/k8s/vllm-deployment.yaml (meta-llama/Llama-3-8B-Instruct), both labels filed none.

A model that is a template's fill-in (``--model $(MODEL_NAME)`` with ``MODEL_NAME: placeholder-local-model`` in a
ConfigMap of the files: spent set 114 SecureCloudOps/llm-rag-infra-platform k8s/vllm/deployment.yaml, labelled G72 on the
Deployment; policies/reading/fill_in_names.py) names no repository either; S27 model-is-not-a-fill-in says so on the
line to edit, this policy on the server that downloads it.

Judged on every server and downloader that fetches from the Hub (policies/models/gated_model_token.hub_servers: vLLM,
the engine table's servers, downloader containers, Ray Serve applications, GPU servers of no known engine). Advice:
the files cannot ask the Hub, and HF_ENDPOINT may point at a mirror that names its copies otherwise.
"""

from __future__ import annotations

from components.hub_names import misnamed
from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES
from policies.models.gated_model_token import hub_servers
from policies.reading.engines import hub_model
from policies.reading.fill_in_names import fill_in_model
from policies.reading.placeholders import placeholder_in


def _fill_in_id(model: object) -> bool:
    """A model named where a Hub id goes that is a template's fill-in word inside a name (``placeholder-local-model``,
    ``changeme-llm``): not a path of the pod, a URL, a value still holding a variable (decided at run time) or a
    template's placeholder (``__MODEL__``: the file is a template, S27 manifest-is-kubernetes)."""
    if not isinstance(model, str) or "$" in model or "://" in model or model.startswith(("/", ".", "~")):
        return False
    # a template's own placeholder (__MODEL__, {{ model }}) is manifest-is-kubernetes's to name, on the whole file
    return fill_in_model(model) and placeholder_in(model, table=False) is None


def _check(resource: Resource, config: dict) -> list[str]:
    found: list[str] = []
    seen = set()
    for label, model, *_ in hub_servers(resource):
        if _fill_in_id(model) and (label, model) not in seen:
            seen.add((label, model))
            found.append(
                unproven(
                    f"{label}: downloads {model} as its model, but that is a template's fill-in, "
                    f"not a Hugging Face repository id or a path of the pod: the Hub has "
                    f"no such repository, so the download fails with 404 Repository Not Found and the server exits at "
                    f"start; set the model's Hub id (org/name) or the path of its weights"
                )
            )
            continue
        repository = hub_model(model)
        rule = misnamed(repository)
        if rule is None or (label, repository) in seen:
            continue
        seen.add((label, repository))
        found.append(
            unproven(
                f"{label}: downloads {repository} from the Hugging Face Hub, but no repository carries that id: "
                f"{rule.family} repositories are {rule.names} (components/hub_names.toml), so the download fails with "
                f"404 Repository Not Found and the server exits at start; name the repository as the Hub does"
            )
        )
    return found


POLICY = Policy(
    name="hub-model-id-exists",
    description=(
        "A model server downloads a Hugging Face repository id that exists: not one a family's naming rule excludes "
        "(meta-llama/Llama-3-8B-Instruct for Meta-Llama-3-8B-Instruct; -chat-hf outside Llama 2)."
    ),
    catalog="G72",
    severity="high",
    enforcement="advisory",
    remediation_steps=(
        "Copy the repository id from its Hub page (Llama 3: meta-llama/Meta-Llama-3-8B-Instruct; Llama 3.1 and later: "
        "meta-llama/Llama-3.1-8B-Instruct), and pin its revision."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "The Hub answers 404 for an id no repository carries and huggingface_hub raises RepositoryNotFoundError, so the "
        "server exits at start. The families' naming is on their Hub pages (https://huggingface.co/meta-llama), cited "
        "row by row in components/hub_names.toml."
    ),
)
