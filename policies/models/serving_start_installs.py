"""S31 (companion): a serving pod that installs packages at every start, pinned or within a version range.

Pinned (``pip install deepspeed==0.9.2``, a Ray runtime_env ``pip: ["vllm==0.4.3"]``) is no moving reference, so
serving-code-pinned passes it, but every cold start (a scale-out, a rescheduled pod) still downloads and installs
the packages before the server can load the model: minutes on a GPU node that is already paid for, and a start
that fails when the index or its mirror is unreachable or rate-limits. Ray builds a runtime_env's pip list into a
fresh virtualenv per job or application (https://docs.ray.io/en/latest/ray-core/handling-dependencies.html). Advisory:
how long the install takes depends on the packages and the node's cache.

Any pod is read, not only a model server's: a proxy, UI or gateway in front of the model (an init container's
``pip install --target=/deps aiohttp>=3.9.0``, a ``bash -c`` that installs gradio before the app) waits on the index at
each start as well. A pod that runs to completion (a Job: a model download, a fine-tuning run) installs at each run and
each retry, bare names included (serving-code-pinned reads bare names only in pods that serve, session 24 review F7).
Spent sets 53 (danielpenchev98/vllm-k8s model-download Job, felipemoz/vllm-on-azure gateway init container) and 54
(questcollector/llmops-manifests gradio Pod).

The system's package manager too (session 57, brief chartgaps57): ``apk add``, ``apt-get install`` / ``apt install``,
``yum``/``dnf``/``microdnf install`` in a serving pod's container or init container installs from the distribution's
mirror at every start, unpinned unless it names versions (spent set 126 j0sh3rs/home-ops@6a9419ec
kubernetes/apps/ai/llama-swap/app/helmrelease.yaml: the model-fetch init container of a llama-swap pod runs
``apk add --no-cache aria2`` before it downloads the GGUFs; labelled S31 by both labellers). Silent for ``apk update``
or ``apt-get update`` alone (nothing installed), an install a shell comment names (review57c), and for pods that
serve no model.
"""

from __future__ import annotations

import re

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, container_label
from policies.models.serving_code_pinned import start_installs
from policies.reading.installs import pinned, piped_installers


def _piped(resource: Resource) -> list[str]:
    """A serving pod's container (an init container too) that pipes a download into a shell at every start."""
    from policies.models.serving_code_pinned import serving_containers, serving_script

    found = []
    for path, _podspec, container in serving_containers(resource):
        for url, shell in dict.fromkeys(piped_installers(serving_script(container))):
            found.append(
                f"{container_label(path, container)}: pipes {url} into {shell} at every start: the pod runs whatever "
                f"that URL serves when it starts (a changed or unreachable script changes or stops the start); "
                f"install the tool into the image at a pinned version"
            )
    return found


# A system package manager's install command: the packages are the words after it up to the next shell operator.
_OS_INSTALL = re.compile(
    r"(?:^|[\s;&|(`])(?:\S*/)?(apk\s+add|apt-get\s+(?:-\S+\s+)*install|apt\s+(?:-\S+\s+)*install"
    r"|(?:yum|dnf|microdnf)\s+(?:-\S+\s+)*install)\b([^;&|\n)`]*)"
)


# A shell comment: `#` opening a word, to the end of its line (`# on a bare base run: apt-get install -y curl`).
_COMMENT = re.compile(r"(?:^|(?<=\s))#[^\n]*", re.MULTILINE)


def _os_packages(resource: Resource) -> list[str]:
    """A serving pod's container (an init container too) that installs system packages at every start."""
    from policies.models.serving_code_pinned import serving_containers, serving_script

    found = []
    for path, _podspec, container in serving_containers(resource):
        for tool, rest in _OS_INSTALL.findall(_COMMENT.sub("", serving_script(container))):
            names = [w for w in rest.split() if not w.startswith("-") and not w.startswith("$")]
            if not names:
                continue
            found.append(
                f"{container_label(path, container)}: {' '.join(tool.split()[:1])} installs {', '.join(names[:6])} "
                f"from the distribution's mirror at every start: each cold start waits on the mirror and fails when "
                f"it is unreachable, and a package without a version takes whatever the mirror holds then; install "
                f"them in the image"
            )
    return found


def _bare(requirement: str) -> bool:
    return not pinned(requirement) and not re.search(r"[<>=!~]", requirement)


def _ranged(requirement: str) -> bool:
    return not pinned(requirement) and not _bare(requirement)


def _check(resource: Resource, config: dict) -> list[str]:
    by_place: dict[str, list[str]] = {}
    runs: set[str] = set()
    for install in start_installs(resource):
        # Bare names are serving-code-pinned's, except in a pod that runs to completion (a Job installs once per run).
        if not install.bare or install.completes:
            by_place.setdefault(install.where, []).append(install.requirement)
            if install.completes:
                runs.add(install.where)
    return (
        [
            f"{where}: installs {', '.join(reqs)} at every "
            + (
                "run (each retry too): each run waits for the downloads and fails when the package index is unreachable"
                if where in runs
                else "start: each cold start waits for the downloads and fails when the package index is unreachable"
            )
            + ("; a range still takes the newest release inside it" if any(_ranged(r) for r in reqs) else "")
            + ("; an unpinned name takes whatever the index holds at that run" if any(_bare(r) for r in reqs) else "")
            + "; bake them into the image"
            for where, reqs in by_place.items()
        ]
        + _piped(resource)
        + _os_packages(resource)
    )


POLICY = Policy(
    name="serving-start-installs",
    description="Serving pods do not install packages (even pinned ones) at every start: pip/uv/conda in the command "
    "line or a Ray runtime_env pip list, the system's package manager (apk add, apt-get install), or a downloaded "
    "script piped into a shell (curl URL | sh).",
    catalog="S31",
    severity="low",
    enforcement="advisory",
    remediation_steps=(
        "Build an image with the packages installed (FROM the engine's image, RUN pip install ...==...) and pin it by "
        "digest; drop the install from the command and the runtime_env."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "Ray installs a runtime_env's pip list when the application starts "
        "(https://docs.ray.io/en/latest/ray-core/handling-dependencies.html); a container command that runs pip does "
        "so on every start. Both add the install to the cold path that the startup probe and the scale-out budget cover."
    ),
)
