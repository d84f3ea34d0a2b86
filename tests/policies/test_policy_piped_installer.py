"""S31 serving-start-installs: a serving pod that pipes a downloaded script into a shell at every start (advice).

Fixture: fresh set 46 BarryJNewman/arc-gitops-ai apps/ollama/deployment.yaml (labelled S31 advisory): the ollama
Deployment's init container model-pull runs `curl -fsSL https://llmfit.axjns.dev/install.sh | sh -s -- --local` and
lets the tool pick the models to pull.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "serving-start-installs"

SCRIPT = """set -e
ollama serve &
sleep 5
apt-get update -qq && apt-get install -y -qq curl jq >/dev/null 2>&1
curl -fsSL https://llmfit.axjns.dev/install.sh | sh -s -- --local
export PATH="$HOME/.local/bin:$PATH"
ollama pull nomic-embed-text
"""

OLLAMA = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "ollama", "namespace": "ai"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "ollama"}},
        "template": {
            "metadata": {"labels": {"app": "ollama"}},
            "spec": {
                "initContainers": [{"name": "model-pull", "image": "ollama/ollama:latest", "command": ["/bin/sh", "-c", SCRIPT]}],
                "containers": [
                    {
                        "name": "ollama",
                        "image": "ollama/ollama:latest",
                        "ports": [{"containerPort": 11434}],
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                    }
                ],
            },
        },
    },
}


def _piped(doc: dict) -> list[tuple[str, str]]:
    return [(e, m) for e, m in found_by([doc], POLICY) if " pipes " in m]


def test_an_init_container_piping_an_installer_into_sh_is_advice():
    assert _piped(OLLAMA) == [
        (
            "advisory",
            "container model-pull: pipes https://llmfit.axjns.dev/install.sh into sh at every start: the pod runs "
            "whatever that URL serves when it starts (a changed or unreachable script changes or stops the start); "
            "install the tool into the image at a pinned version",
        )
    ]


def test_the_other_spellings_of_the_pipe_are_read():
    # wget to stdout into bash, through sudo, and into python: the same class written another way.
    for line in (
        "wget -qO- https://ollama.com/install.sh | bash && ollama serve",
        "curl -sL https://example.org/setup.sh | sudo -E bash -",
        "curl -sSL https://install.python-poetry.org | python3 -",
    ):
        doc = copy.deepcopy(OLLAMA)
        doc["spec"]["template"]["spec"]["initContainers"][0]["command"] = ["/bin/bash", "-c", line]
        assert [e for e, _ in _piped(doc)] == ["advisory"], line


def test_careful_forms_are_silent():
    # A pinned download checked against its digest and run from the file, and a GPU Job (runs once, not at every
    # start of a server).
    pinned = copy.deepcopy(OLLAMA)
    pinned["spec"]["template"]["spec"]["initContainers"][0]["command"] = [
        "/bin/sh",
        "-c",
        "curl -fsSLo /tmp/llmfit.tgz https://example.org/llmfit-1.2.0.tgz && echo 'abc  /tmp/llmfit.tgz' | sha256sum -c -",
    ]
    assert _piped(pinned) == []
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "bench"},
        "spec": {
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [
                        {
                            "name": "bench",
                            "image": "ubuntu:24.04",
                            "command": ["/bin/sh", "-c", "curl -fsSL https://ollama.com/install.sh | sh"],
                            "resources": {"limits": {"nvidia.com/gpu": 1}},
                        }
                    ],
                }
            }
        },
    }
    assert _piped(job) == []
