"""S17 on a ConfigMap: a model's revision variable that names a branch, not a commit.

A ConfigMap that names a Hugging Face model (MODEL_ID, MODEL_NAME, ... policies/reading/model_ids.py) beside its
revision (REVISION, MODEL_REVISION, HF_REVISION, ...) hands both to whatever serves the model (``envFrom``). A revision
that names a branch (``main``) moves with every push, so pods started on different days serve different weights: the
Hub resolves a branch to its newest commit at each download (huggingface_hub v1.28.0 constants.py:60
DEFAULT_REVISION = "main"; hf_hub_download's revision is "An optional Git revision id which can be a branch name, a tag, or a commit hash").
Only a 40-character commit SHA pins it. Spent set 34 shenoyabhijith/llama-k8s-deployment k8s/configmap.yaml@d710e32
(MODEL_NAME meta-llama/Llama-3.2-3B, MODEL_REVISION "main"; labelled S17 advisory).

Advice, like the rest of S17; the workload reads of the same revision (an engine's --revision flag or variable) are
model-source-pinned's.
"""

from __future__ import annotations

import re

from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, get
from policies.reading.engines import hub_model
from policies.reading.model_ids import MODEL_ENV, REVISION_ENV

_COMMIT = re.compile(r"^[0-9a-f]{40}$")
# Keys a ConfigMap names its model under: the common spellings (model_ids.MODEL_ENV holds an application's own too).
_MODEL_KEYS = MODEL_ENV


def _check(resource: Resource, config: dict) -> list[str]:
    data = {str(k): v for k, v in as_dict(get(resource.props, "data")).items() if isinstance(v, str)}
    model = next((hub_model(data[k]) for k in _MODEL_KEYS if k in data and hub_model(data[k])), None)
    if model is None:
        return []
    found: list[str] = []
    for key in REVISION_ENV:
        revision = data.get(key, "").strip()
        if revision and not revision.startswith("$") and not _COMMIT.match(revision):
            found.append(
                unproven(
                    f"data.{key} {revision!r} names a branch or tag of {model}, not a commit: the Hub resolves it to "
                    f"whatever it points at when each pod downloads the model, so replicas started at different times "
                    f"serve different weights; set {key} to the model's 40-character commit SHA"
                )
            )
    return found


POLICY = Policy(
    name="config-revision-pinned",
    description="A ConfigMap that names a Hugging Face model pins its revision variable to a commit SHA, not a branch.",
    catalog="S17",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Set the revision variable (MODEL_REVISION, REVISION) to the model's commit SHA, from the Hub's 'Files and "
        "versions' history or `huggingface-cli` (hf) repo info."
    ),
    resource_types=("kubernetes:core/v1:ConfigMap",),
    check_resource=_check,
    rationale=(
        "A Hub revision is a branch name, a tag or a commit hash; branches and tags move, so only a commit pins the "
        "weights every replica loads (huggingface_hub constants.py DEFAULT_REVISION 'main')."
    ),
)
