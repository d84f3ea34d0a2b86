"""G72: a model server downloads a Hugging Face repository id that exists.

A server (or its downloader) that asks the Hub for an id no repository carries gets 404 "Repository Not Found"
(huggingface_hub's RepositoryNotFoundError) and exits at start; every restart asks again. Model families name their
repositories by a rule, and some ids break it so plainly that no repository can carry them: components/hub_names.toml
lists those rules with the Hub page that states each family's names (Llama 3 is ``meta-llama/Meta-Llama-3-8B-Instruct``,
so ``meta-llama/Llama-3-8B-Instruct`` names nothing; ``-chat-hf`` is Llama 2's suffix, so
``meta-llama/Llama-3-70b-chat-hf`` names nothing). Spent sets 23 tgmorton/knowledge-politeness-llms
kubernetes/vllm-deployment-large.yaml (meta-llama/Llama-3-70b-chat-hf) and 37 MissawB/Animetix
deploy/k8s/vllm-deployment.yaml (meta-llama/Llama-3-8B-Instruct), both labels filed none.

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


def _check(resource: Resource, config: dict) -> list[str]:
    found: list[str] = []
    seen = set()
    for label, model, *_ in hub_servers(resource):
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
