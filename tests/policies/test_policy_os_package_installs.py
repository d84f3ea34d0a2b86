"""S31 serving-start-installs on a system package manager run at every start (brief chartgaps57).

Firing form (written here, nothing copied): spent set 126 j0sh3rs/home-ops@6a9419ec4e81c8284c6bf51e3f4c88a4020bb9ce
kubernetes/apps/ai/llama-swap/app/helmrelease.yaml, a llama-swap GPU server whose model-fetch init container runs
`apk add --no-cache aria2` before downloading its GGUFs (labelled S31 by both labellers); `apt-get install -y curl` in
a vLLM container's shell command is the same class. Careful forms stay silent: `apt-get update` alone, and the same
install in a pod that serves no model.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

S31 = "serving-start-installs"

SERVER = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "llama-swap"},
    "spec": {
        "selector": {"matchLabels": {"app": "llama-swap"}},
        "template": {
            "metadata": {"labels": {"app": "llama-swap"}},
            "spec": {
                "initContainers": [
                    {
                        "name": "model-fetch",
                        "image": "alpine:3.22",
                        "command": ["/bin/sh", "-c"],
                        "args": ['set -eu\napk add --no-cache aria2\ncd /models\naria2c -x 8 "$URL"'],
                    }
                ],
                "containers": [
                    {
                        "name": "app",
                        "image": "ghcr.io/mostlygeek/llama-swap:v170-cuda",
                        "args": ["--config", "/app/config.yaml"],
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                    }
                ],
            },
        },
    },
}


def _init_args(obj: dict, script: str) -> dict:
    out = copy.deepcopy(obj)
    out["spec"]["template"]["spec"]["initContainers"][0]["args"] = [script]
    return out


def test_an_apk_add_in_a_serving_pods_init_container_is_advice():
    assert found_by([SERVER], S31) == [
        (
            "advisory",
            "container model-fetch: apk installs aria2 from the distribution's mirror at every start: each cold "
            "start waits on the mirror and fails when it is unreachable, and a package without a version takes "
            "whatever the mirror holds then; install them in the image",
        )
    ]


def test_apt_get_install_is_the_same_class():
    obj = _init_args(SERVER, "apt-get update && apt-get install -y --no-install-recommends curl jq && fetch.sh")
    [(_, message)] = found_by([obj], S31)
    assert message.startswith("container model-fetch: apt-get installs curl, jq from the distribution's mirror")


def test_careful_forms_stay_silent():
    assert found_by([_init_args(SERVER, "apt-get update && ls /models")], S31) == []
    plain = copy.deepcopy(SERVER)
    plain["spec"]["template"]["spec"]["containers"][0] = {"name": "web", "image": "nginx:1.27"}
    assert found_by([plain], S31) == []


def test_careful_an_install_a_shell_comment_names_stays_silent():
    """review57c: a script's comment that names the install for another base image installs nothing."""
    script = "# the image holds aria2c; on a bare alpine run: apk add --no-cache aria2\naria2c -x 8 $URL  # not apk add\n"
    assert found_by([_init_args(SERVER, script)], S31) == []
    assert len(found_by([_init_args(SERVER, "# fetch\napk add --no-cache aria2\n")], S31)) == 1
