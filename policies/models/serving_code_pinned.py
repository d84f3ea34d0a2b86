"""S31: the code a server runs is not fetched from a moving reference at every start.

``curl https://raw.githubusercontent.com/org/repo/main/serve.py``, ``pip install git+https://github.com/org/repo``
or ``git clone`` of a default branch in a container's command downloads whatever the branch holds when the pod
starts: two replicas may run different code, a restart after a push runs code nobody reviewed, and a rollback
cannot return to what ran. It is the code's analogue of an image's ``:latest`` (G1) and a model without a
revision (S17). The careful forms pin the reference (a commit SHA or a tag in the URL, ``git+...@<ref>``,
``git checkout <sha>``) or bake the code into the image.

Read in pods that hold a model server or request GPUs (their containers, init containers too), in
command/args and shell scripts (``sh -c``).
"""

from __future__ import annotations

import re

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, as_list, container_label, containers, pod_specs, requests_gpu
from policies.reading.serving import model_servers

# A URL path segment that names a branch or "latest" rather than a commit or a release.
_MOVING = ("main", "master", "HEAD", "latest", "develop", "dev", "nightly")
_URL = re.compile(r"https?://[^\s'\"`;|&)]+")
_MOVING_PATH = re.compile(r"/(?:refs/heads/)?(" + "|".join(_MOVING) + r")(?:/|$)")
_FETCH = re.compile(r"\b(curl|wget)\b")
_PIP_GIT = re.compile(r"\bgit\+(https?://|ssh://|git@)[^\s'\"`;|&)]+")
_GIT_CLONE = re.compile(r"\bgit\s+clone\b([^;&|\n]*)")


def _script(container: dict) -> str:
    tokens = [t for key in ("command", "args") for t in as_list(container.get(key)) if isinstance(t, str)]
    return " ".join(tokens)


def moving_fetches(text: str) -> list[str]:
    """What a command line fetches from a moving reference, each as a message fragment."""
    found = []
    for command in re.split(r"[;\n]|&&|\|\|", text):
        if _FETCH.search(command):
            for url in _URL.findall(command):
                match = _MOVING_PATH.search(url.split("?", 1)[0])
                if match:
                    found.append(f"downloads {url} (the moving {match.group(1)!r} reference) at every start")
        for spec in (m.group(0) for m in _PIP_GIT.finditer(command)):
            ref = spec.split("://", 1)[-1].split("#", 1)[0]
            pinned = "@" in ref.split("/", 1)[-1]
            branch = ref.rsplit("@", 1)[-1] if pinned else ""
            if not pinned or branch in _MOVING:
                found.append(f"installs {spec} without a pinned ref (add @<commit or tag>) at every start")
        clone = _GIT_CLONE.search(command)
        if (
            clone
            and not re.search(r"(^|\s)(-b|--branch)(\s|=)", clone.group(1))
            and not re.search(r"\bgit\s+(-C\s+\S+\s+)?checkout\b", text)
        ):
            found.append(
                "clones a repository's default branch (git clone with no --branch tag or checkout of a commit) at every start"
            )
    return found


def _check(resource: Resource, config: dict) -> list[str]:
    messages = []
    serving = {id(s.podspec) for s in model_servers(resource)}
    for path, podspec in pod_specs(resource):
        if id(podspec) not in serving and not requests_gpu(podspec):
            continue
        for container in containers(podspec, init=True):
            for fetch in dict.fromkeys(moving_fetches(_script(container))):
                messages.append(
                    f"{container_label(path, container)}: {fetch}: each restart may run code nobody reviewed; pin the reference or bake the code into the image"
                )
    return messages


POLICY = Policy(
    name="serving-code-pinned",
    description="Serving pods do not download code from a moving reference (a branch URL, an unpinned git+ install) at every start.",
    catalog="S31",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Pin what is fetched: a commit SHA or a release tag in the URL (raw.githubusercontent.com/org/repo/<sha>/...), "
        "`pip install git+https://github.com/org/repo@<sha>`, `git clone --branch <tag>` or `git checkout <sha>`; better, "
        "build the code into the image and pin the image by digest."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "A branch is a moving pointer (https://git-scm.com/book/en/v2/Git-Branching-Branches-in-a-Nutshell): code fetched "
        "from it at start differs between replicas and restarts, with no record of what ran, the same failure the "
        "latest-tag rule (catalogue row 1) and model-revision pinning (S17) exist to prevent."
    ),
)
