"""S31: the code a server runs is not fetched from a moving reference at every start.

``curl https://raw.githubusercontent.com/org/repo/main/serve.py``, ``pip install git+https://github.com/org/repo``
or ``git clone`` of a default branch in a container's command downloads whatever the branch holds when the pod
starts: two replicas may run different code, a restart after a push runs code nobody reviewed, and a rollback
cannot return to what ran. It is the code's analogue of an image's ``:latest`` (G1) and a model without a
revision (S17). The careful forms pin the reference (a commit SHA or a tag in the URL, ``git+...@<ref>``,
``git checkout <sha>``) or bake the code into the image.

Read in pods that hold a model server or request GPUs (their containers, init containers too), in
command/args and shell scripts (``sh -c``); the code fetches (not the bare installs) in every other pod that restarts too
(session 51: an app in front of the model cloning a default branch, spent set 90 barbaria888/KubeOps-AI@3a157731).

Packages installed at every start by bare name are the same moving reference: ``pip install vllm`` or a Ray
``runtime_env`` ``pip: [awscli]`` take whatever the index holds when the pod starts. A range (``>=0.15.7``) moves
too, but within bounds its author chose: serving-start-installs reports it, advisory, with the pinned ones
(policies/reading/installs.py says what counts as pinned). A runtime_env ``working_dir`` or
``py_modules`` URL on a branch (``.../archive/main.zip``) is the branch's code at each start. Pinned installs are
serving-start-installs' (advisory): still minutes of every cold start and a dependency on the index.
"""

from __future__ import annotations

import re
from dataclasses import replace

from components.loading import LoadError, load_yaml
from policies.framework import Policy, Resource, unproven
from policies.kube import (
    WORKLOAD_TYPES,
    as_list,
    container_label,
    containers,
    get,
    memoized,
    pod_specs,
    requests_gpu,
    split_type,
)
from policies.reading.installs import (
    Install,
    command_installs,
    file_installs,
    runtime_env_installs,
    runtime_env_urls,
    runtime_envs,
)
from policies.reading.mounted_scripts import mounted_config_files, mounted_script_files
from policies.reading.serving import SERVE_CONFIG, model_servers, serve_config

# A URL path segment that names a branch or "latest" rather than a commit or a release.
_MOVING = ("main", "master", "HEAD", "latest", "develop", "dev", "nightly")
_URL = re.compile(r"https?://[^\s'\"`;|&)]+")
_MOVING_PATH = re.compile(r"/(?:refs/heads/)?(" + "|".join(_MOVING) + r")(?:/|$)")
_FETCH = re.compile(r"\b(curl|wget)\b")
_PIP_GIT = re.compile(r"\bgit\+(https?://|ssh://|git@)[^\s'\"`;|&)]+")
_GIT_CLONE = re.compile(r"\bgit\s+clone\b([^;&|\n]*)")
# A clone pinned after the fact: git checkout / switch --detach / reset --hard of a commit or tag, options such as
# `-C dir` or `-c key=value` between git and the verb (session 24 review F9).
_PINNED_AFTER_CLONE = re.compile(r"\bgit\s+(?:-[Cc]\s+\S+\s+)*(?:checkout|switch\s+--detach|reset\s+--hard)\s+\S+")
# A repository archive of a branch (GitHub's /archive/main.zip, /archive/refs/heads/main.tar.gz).
_MOVING_ARCHIVE = re.compile(r"/archive/(?:refs/heads/)?(" + "|".join(_MOVING) + r")\.(?:zip|tar\.gz)$")
# An archive of a tag named like a moving reference (/archive/refs/tags/latest.zip: spent set 27, Rowena2001/RayServe_AKS
# model_gpu_autoscale_config.yaml): a tag its owner re-points at each release (git tag -f), which the files do not show.
_MOVING_TAG_ARCHIVE = re.compile(r"/archive/refs/tags/(" + "|".join(_MOVING) + r")\.(?:zip|tar\.gz)$")


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
        cloned = re.search(r"(?:^|\s)(?:-b|--branch)(?:\s+|=)(\S+)", clone.group(1)) if clone else None
        if clone and not _PINNED_AFTER_CLONE.search(text) and not re.search(r"(?:^|\s)--revision[=\s]", clone.group(1)):
            if cloned is None:
                found.append(
                    "clones a repository's default branch (git clone with no --branch tag or checkout of a commit) at every start"
                )
            elif cloned.group(1).strip("'\"") in _MOVING:
                found.append(f"clones the moving branch {cloned.group(1)!r} (git clone --branch) at every start")
    return found


_RUNTIMES = (("serving.kserve.io", "ServingRuntime"), ("serving.kserve.io", "ClusterServingRuntime"))


def start_installs(resource: Resource) -> list[Install]:
    """Every package a serving pod of this resource installs at start: command lines of all its pods (init containers too),
    and the runtime_env lists of a RayService's serveConfigV2 or a RayJob's runtimeEnvYAML."""
    return list(memoized(resource, "start_installs", _start_installs))


def _start_installs(resource: Resource) -> list[Install]:
    found: list[Install] = []
    for path, podspec in pod_specs(resource):
        # Any pod installs at its start, not only a model server's: a proxy, a UI or a gateway in front of the model
        # (spent sets 53 felipemoz/vllm-on-azure gateway init container, 54 questcollector gradio), and a download Job,
        # which installs at every run and retry (set 53 danielpenchev98/vllm-k8s model-download job).
        runs = _runs_to_completion(resource, podspec)
        for container in containers(podspec, init=True):
            label = container_label(path, container)
            installs = command_installs(_script(container), label)
            # A requirements file a ConfigMap of the files read mounts is read (review48b item 2), as LiteLLM's config.
            mounted = mounted_config_files(podspec, container) if any(i.file for i in installs) else {}
            for install in installs:
                text = mounted.get(install.requirement[3:]) if install.file else None
                for one in file_installs(install, text) if text is not None else [install]:
                    found.append(replace(one, completes=runs))
    for where, env in ray_runtime_envs(resource):
        found += runtime_env_installs(env, where)
    return found


def ray_runtime_envs(resource: Resource) -> list[tuple[str, dict]]:
    """(path, runtime_env) in a RayService's serveConfigV2 or a RayJob's runtimeEnvYAML."""
    found = [(f"spec.serveConfigV2: {where}", env) for where, env in runtime_envs(serve_config(resource))]
    # A RayJob's runtimeEnvYAML, and the runtimeEnv string of a ray.io/v1alpha1 RayService's serveConfig (KubeRay
    # v0.5 ServeDeploymentGraphSpec.RuntimeEnv, the Serve config v1 before serveConfigV2): JSON or YAML text.
    for where, text in (
        ("spec.runtimeEnvYAML", get(resource.props, "spec", "runtimeEnvYAML")),
        ("spec.serveConfig.runtimeEnv", get(resource.props, "spec", "serveConfig", "runtimeEnv")),
    ):
        if isinstance(text, str):
            try:
                env = load_yaml(where.rsplit(".", 1)[-1], SERVE_CONFIG, text=text)
            except LoadError:
                env = None
            if isinstance(env, dict):
                found.append((where, env))
    return found


def _runs_to_completion(resource: Resource, podspec: dict) -> bool:
    """A pod that runs to completion (a Job's, a CronJob's, restartPolicy Never/OnFailure): it installs at each run."""
    return podspec.get("restartPolicy") in ("Never", "OnFailure") or split_type(resource.type)[1] in ("Job", "CronJob")


def _serving_containers(resource: Resource) -> list[tuple[str, dict, dict]]:
    serving = {id(s.podspec) for s in model_servers(resource)}
    if split_type(resource.type) in _RUNTIMES:
        # A KServe runtime's pod spec is the model server's, whatever program it runs (kserve v0.20.0
        # pkg/apis/serving/v1alpha1/servingruntime_types.go ServingRuntimePodSpec: the containers of the predictor pod).
        serving |= {id(podspec) for _path, podspec in pod_specs(resource)}
    # A GPU pod that runs to completion (restartPolicy Never / OnFailure: a Job's fine-tuning run) installs once, not at
    # every start of a server (session 24 review F7).
    return [
        (path, podspec, container)
        for path, podspec in pod_specs(resource)
        if id(podspec) in serving or (requests_gpu(podspec) and podspec.get("restartPolicy") in (None, "Always"))
        for container in containers(podspec, init=True)
    ]


def _restarting_containers(resource: Resource) -> list[tuple[str, dict, dict]]:
    """(path, pod spec, container) of the serving pods' containers, then of every other pod that restarts (not a Job's,
    not restartPolicy Never/OnFailure): a code fetch from a moving reference at start is the same hazard in the app, UI
    or gateway in front of the model (spent set 90 barbaria888/KubeOps-AI@3a157731 k8s/backend.yaml, init container
    `git clone --depth 1` of runwhen-contrib/rw-cli-codecollection's default branch in the LLM backend's pod)."""
    serving = _serving_containers(resource)
    seen = {id(podspec) for _path, podspec, _container in serving}
    others = [
        (path, podspec, container)
        for path, podspec in pod_specs(resource)
        if id(podspec) not in seen and not _runs_to_completion(resource, podspec)
        for container in containers(podspec, init=True)
    ]
    return serving + others


def _check(resource: Resource, config: dict) -> list[str]:
    messages = []
    for path, podspec, container in _restarting_containers(resource):
        for fetch in dict.fromkeys(moving_fetches(_script(container))):
            messages.append(
                f"{container_label(path, container)}: {fetch}: each restart may run code nobody reviewed; pin the reference or bake the code into the image"
            )
        # A script of a ConfigMap of the files that the container runs (mounted, named on its command line) is its
        # start as much as an inline `sh -c` (spent set 82 dell-examples/generative-ai@feba5386
        # intel-XE9680-gaudi3/TGI/Configmap.yml init_quant.sh, run by the TGI pod's init container).
        for file, text in mounted_script_files(podspec, container).items():
            for fetch in dict.fromkeys(moving_fetches(text)):
                messages.append(
                    f"{container_label(path, container)}: the script {file} it runs {fetch}: each restart may run code "
                    f"nobody reviewed; pin the reference or bake the code into the image"
                )
    for where, env in ray_runtime_envs(resource):
        for key, url in runtime_env_urls(env):
            match = _MOVING_PATH.search(url.split("?", 1)[0]) or _MOVING_ARCHIVE.search(url.split("?", 1)[0])
            tag = None if match else _MOVING_TAG_ARCHIVE.search(url.split("?", 1)[0])
            if tag:
                messages.append(
                    unproven(
                        f"{where}.{key}: Ray downloads {url}, the archive of a tag named {tag.group(1)!r}, when the "
                        f"application starts: a tag so named is usually re-pointed at each release, so each restart may "
                        f"run code nobody reviewed; pin a commit or a version tag in the URL"
                    )
                )
            if match:
                messages.append(
                    f"{where}.{key}: Ray downloads {url} (the moving {match.group(1)!r} reference) when the application "
                    f"starts: each restart may run code nobody reviewed; pin a commit or tag in the URL"
                )
    # A pod that runs to completion installs once per run: serving-start-installs advises (session 24 review F7).
    unpinned = [i for i in start_installs(resource) if i.bare and not i.completes]
    for install in unpinned:
        if install.file:
            messages.append(
                f"{install.where}: installs the requirements file {install.requirement[3:]} at every start without "
                f"--require-hashes: its entries are not in the files read, and any it leaves unpinned resolve to whatever "
                f"the package index holds that day (the start fails when the index is unreachable); pin every entry with "
                f"its hash (pip install --require-hashes) or bake the packages into the image"
            )
            continue
        messages.append(
            f"{install.where}: installs {install.requirement} with no pinned version at every start, so each restart may "
            f"run a release nobody tested; pin it (name==version) or bake it into the image"
        )
    return messages


POLICY = Policy(
    name="serving-code-pinned",
    description="Serving pods do not download code from a moving reference (a branch URL, an unpinned git+ install) at every start.",
    catalog="S31",
    severity="high",
    enforcement="advisory",  # a risk row: docs/policies.md "Enforcement levels"
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


def restarting_containers(resource: Resource) -> list[tuple[str, dict, dict]]:
    """(path, pod spec, container) of every container the code-fetch reading covers: serving pods, and every pod that
    restarts."""
    return _restarting_containers(resource)


def serving_containers(resource: Resource) -> list[tuple[str, dict, dict]]:
    """(path, pod spec, container) of every container, init containers too, of the resource's serving pods."""
    return _serving_containers(resource)


def serving_script(container: dict) -> str:
    """A container's command and args as one line."""
    return _script(container)
