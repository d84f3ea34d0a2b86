"""G56 service-selects-only-servers: a Service in front of a server also selecting a Job's pods.

Fixture: spent set 82, olafkfreund/SOW-generator deployment/k8s-pod-ollama-nvidia.yaml@2e78b6f84c07e1b9b699bfe56594fb1622955e04
(labelled none, advisory): the model preload Job ollama-nvidia-model-preload labels its pods app: ollama, gpu-type:
nvidia, the selector of Service ollama-nvidia-service in front of Deployment ollama-nvidia, with no readinessProbe.
Minimal hand-written forms.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

_LABELS = {"app": "ollama", "gpu-type": "nvidia"}
DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "ollama-nvidia", "namespace": "sow-template-service"},
    "spec": {
        "selector": {"matchLabels": _LABELS},
        "template": {
            "metadata": {"labels": _LABELS},
            "spec": {"containers": [{"name": "ollama", "image": "ollama/ollama:0.5.7", "ports": [{"containerPort": 11434}]}]},
        },
    },
}
SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "ollama-nvidia-service", "namespace": "sow-template-service"},
    "spec": {"selector": _LABELS, "ports": [{"name": "http", "port": 11434, "targetPort": 11434}]},
}
JOB = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "ollama-nvidia-model-preload", "namespace": "sow-template-service"},
    "spec": {
        "template": {
            "metadata": {"labels": {**_LABELS, "job-type": "model-preload"}},
            "spec": {
                "restartPolicy": "OnFailure",
                "containers": [
                    {
                        "name": "model-preloader",
                        "image": "ollama/ollama:0.5.7",
                        "command": ["/bin/bash", "-c", "ollama pull llama3"],
                    }
                ],
            },
        }
    },
}


def _found(*objs):
    return found_by(list(objs), "service-selects-only-servers")


def test_a_preload_job_with_the_server_labels_is_advised():
    ((level, message),) = _found(DEPLOYMENT, SERVICE, JOB)
    assert level == "advisory"
    assert message.startswith(
        "spec.template.metadata.labels carry app=ollama, gpu-type=nvidia, the selector of Service ollama-nvidia-service "
        "in front of Deployment/ollama-nvidia"
    )


def test_the_careful_forms_stay_silent():
    # The Job's own labels; a Job whose pod is ready only on a probe; no server behind the Service; another namespace.
    own = copy.deepcopy(JOB)
    own["spec"]["template"]["metadata"]["labels"] = {"job-type": "model-preload"}
    assert _found(DEPLOYMENT, SERVICE, own) == []
    probed = copy.deepcopy(JOB)
    probed["spec"]["template"]["spec"]["containers"][0]["readinessProbe"] = {"exec": {"command": ["true"]}}
    assert _found(DEPLOYMENT, SERVICE, probed) == []
    assert _found(SERVICE, JOB) == []
    elsewhere = copy.deepcopy(JOB)
    elsewhere["metadata"]["namespace"] = "jobs"
    assert _found(DEPLOYMENT, SERVICE, elsewhere) == []
