"""A ``sh -c`` script's ``${VAR}`` / ``$VAR`` words are read with the container's literal env values.

Fixture: set 39, schijioke-uche/vllm-on-redhat-openshift-for-watsonx-orchestrate
CPU/.build-vllm-gpt-oss-20b-s390x/manifests/02-runtime.yaml@1011ee8feba213fc9c831af989438727999afbfa: the script
runs ``exec python3 -m vllm.entrypoints.openai.api_server --model "${MODEL_ID}" ... ${EXTRA_VLLM_ARGS}`` with MODEL_ID
``unsloth/gpt-oss-20b`` a literal, so the Hub model with no revision (S17) was invisible. The shell the container
runs sees that environment (POSIX sh, 2.6.2 Parameter Expansion); an unquoted expansion of an empty value is no word.
Silent: the same script with ``--revision "${MODEL_REVISION}"`` set, and a model variable from a Secret (unknown).
"""

from __future__ import annotations

import copy

from policies.reading.vllm_args import expand_shell_vars
from tests.policies.policy_fixtures import found_by

_SCRIPT = (
    'set -eu\nexec python3 -m vllm.entrypoints.openai.api_server --model "${MODEL_ID}" --served-model-name '
    '"${SERVED_MODEL_NAME}" --host 0.0.0.0 --port "${VLLM_PORT}" --max-model-len "${MAX_MODEL_LEN}" ${EXTRA_VLLM_ARGS}\n'
)
_DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm-gpt-oss-20b-s390x", "namespace": "gpt-oss-20b"},
    "spec": {
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "image-registry.openshift-image-registry.svc:5000/gpt-oss-20b/vllm-gpt-oss-20b-s390x:latest",
                        "command": ["/bin/sh", "-c"],
                        "args": [_SCRIPT],
                        "env": [
                            {"name": "MODEL_ID", "value": "unsloth/gpt-oss-20b"},
                            {"name": "SERVED_MODEL_NAME", "value": "gpt-oss-20b"},
                            {"name": "VLLM_PORT", "value": "8000"},
                            {"name": "MAX_MODEL_LEN", "value": "4096"},
                            {"name": "EXTRA_VLLM_ARGS", "value": ""},
                        ],
                    }
                ],
            },
        },
    },
}


def _container(deployment: dict) -> dict:
    return deployment["spec"]["template"]["spec"]["containers"][0]


def test_the_script_reads_its_variables():
    words = ["--model", "${MODEL_ID}", "--port", "$VLLM_PORT", "${EXTRA_VLLM_ARGS}", "${HF_TOKEN}", "a${MODEL_ID}"]
    assert expand_shell_vars(words, _container(_DEPLOYMENT)) == [
        "--model",
        "unsloth/gpt-oss-20b",
        "--port",
        "8000",
        "${HF_TOKEN}",
        "aunsloth/gpt-oss-20b",
    ]


def test_a_hub_model_named_through_a_variable_is_unpinned():
    ((level, message),) = found_by([_DEPLOYMENT], "model-source-pinned")
    assert level == "advisory"
    assert "model unsloth/gpt-oss-20b comes from the Hugging Face Hub with no revision" in message


def test_a_revision_through_a_variable_stays_silent():
    pinned = copy.deepcopy(_DEPLOYMENT)
    container = _container(pinned)
    container["args"] = [_SCRIPT.replace("${EXTRA_VLLM_ARGS}", '--revision "${MODEL_REVISION}"')]
    container["env"].append({"name": "MODEL_REVISION", "value": "6cee5e81ee83917806bbde320786a8fb61efebee"})
    assert found_by([pinned], "model-source-pinned") == []


def test_a_model_variable_from_a_secret_stays_silent():
    hidden = copy.deepcopy(_DEPLOYMENT)
    _container(hidden)["env"][0] = {"name": "MODEL_ID", "valueFrom": {"secretKeyRef": {"name": "m", "key": "id"}}}
    assert found_by([hidden], "model-source-pinned") == []
