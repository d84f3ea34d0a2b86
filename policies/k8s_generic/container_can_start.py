"""G46: every container of a pod template can start: the kubelet and the runtime refuse what no image can fix.

The API server stores these templates, and the pod is scheduled, but the container never runs:

* **an image reference that does not parse** (``<ECR_REPO_URI>:latest``, ``REPLACE_ME``, a space): the kubelet's
  image manager parses the reference before any pull (kubernetes pkg/kubelet/images/image_manager.go
  EnsureImageExists -> applyDefaultImageTag -> pkg/util/parsers/parsers.go ParseImageName ->
  distribution/reference ParseNormalizedNamed) and on an error leaves the container waiting with reason
  ``InvalidImageName`` (policies/reading/image_reference.py holds the grammar). A reference holding a variable
  (``$ECR_REGISTRY/ray-llm:$TAG``, ``${IMAGE}:v1``) is advice: such files are rendered before they are applied
  (awslabs/data-on-eks data-stacks/ray-on-eks/examples/ray-batch-inference pipes each file through ``render`` =
  envsubst into ``kubectl apply``), and only the unrendered file fails; so is a ``ko://`` import path, which ``ko
  resolve`` replaces with the image it builds (kserve/kserve config/llmisvc/manager.yaml); and so is a fill-in S27
  names (``<YOUR-ACR-NAME>.azurecr.io/...``, ``IMAGE_PLACEHOLDER``; not a variable, which S27 alone reports in a
  checked file), judged as written (Resource.written): the file
  says it is edited before it is applied (spent sets 12, 18 and 21 labelled such an image blocking, set 16 S27 advisory;
  precision first);
* **a command that is a relative path to a system binary** (``bin/sh``): runc changes to the working directory and
  then resolves ``args[0]`` with Go's exec.LookPath (opencontainers/runc v1.2.9 libcontainer/standard_init_linux.go:191
  finalizeNamespace, which chdirs to the process cwd at init_linux.go:309-351, then :208 ``exec.LookPath``), which
  tries a name holding a slash as a path from there and never searches PATH. ``bin/sh`` is ``/bin/sh`` only where
  the working directory is ``/``; a shell or ``env`` so written blocks where the manifest's ``workingDir`` or the
  image's known WORKDIR says otherwise (any other ``bin/*``, such as ``bin/start.sh``, may be the image's own file
  there: silent, as ``scripts/start.sh`` is) (vllm/vllm-openai: ``WORKDIR /vllm-workspace``, vllm-project/vllm docker/Dockerfile stage vllm-base,
  the code index's stored version 0000977e), and is advice where the working directory is not known;
* **a memory limit below what any container can start in**: a bare number is bytes (``memory: "64"`` is 64 bytes,
  not 64Gi). Docker refuses a limit under 6 MiB ("It's not kernel limit, we want this 6M limit to account for
  overhead during startup", moby daemon/daemon_unix.go ``linuxMinMemory = 6291456``), CRI-O under 12 MiB
  (``minMemoryLimit = 12582912``: "A lower value would result in the container failing to start"), and under
  containerd runc's own init process is OOM-killed ("container init was OOM-killed (memory limit too low?)",
  runc v1.2.9 libcontainer/process_linux.go:584). A limit under 6 MiB blocks; a request that small with no such
  limit is advice (the container runs, but the scheduler reserves nothing for it);
* **a vLLM command line that exits at once**: ``vllm WORD`` where WORD is no subcommand of vLLM's CLI (vLLM v0.33.0
  vllm/entrypoints/cli/main.py:55-65 CMD_MODULES, :98 ``add_subparsers``: argparse exits 2 on "invalid choice").
  ``vllm serve <a vllm.entrypoints module> --model M`` is S38 engine-options-exist's (the positional model tag);
* **a command that begins with an option** (``command: ["--model", ...]``: the runtime looks for a program of that
  name), and **args that begin with an option on an image that sets no ENTRYPOINT** (components/image_contents.toml
  ``entrypoint = []``: open-webui's CMD ["bash", "start.sh"], the python official images' CMD ["python3"]): args replace
  the CMD, so the option is the program (advice off a release the row read, and on a KServe InferenceService's own
  predictor container of an image no table knows, which may start its server from CMD), and **args that repeat the command the publisher's image already runs as ENTRYPOINT** (``args: ["vllm",
  "serve", ...]`` on vllm/vllm-openai; the row's ``entrypoint``); on a rebuild named after the engine, whose ENTRYPOINT
  the files do not show, advice;
* **a bare word on tritonserver's command line** (``model_name=google/gemma-7b``): its getopt_long parser refuses
  whatever word is left over ("Unexpected argument", ``_triton_messages``);
* **a volume mounted over the folder the image's own ENTRYPOINT runs from** (policies/reading/hidden_folders.py,
  components/image_contents.toml ``needs``: LocalAI v2.14.0-v3.0.0 /build/entrypoint.sh and /build/local-ai): the
  mount shows only the volume's files there and the runtime finds no program;
* **a pip install as a non-root user on the python official image** (policies/reading/user_pip_install.py): no passwd
  entry for the uid, so HOME=/, and pip's user-install fallback cannot create /.local;
* **an Ollama model the pod pulls that its CPU server cannot hold**: the weights the tag names exceed the server
  container's memory limit in a pod with no GPU (policies/reading/ollama_weights.py: proven on ollama/ollama v0.2.0 to
  v0.24.x, which load CPU models with mmap off; advice on other tags).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

from components.image_contents import contents
from components.images import is_published, names_image
from components.serving_engines import Engine
from policies.framework import Policy, Resource, unproven
from policies.kube import (
    WORKLOAD_TYPES,
    as_list,
    as_quantity,
    container_label,
    containers,
    fmt_number,
    get,
    pod_specs,
    split_type,
)
from policies.reading.field_images import field_images
from policies.reading.hidden_folders import hidden_program
from policies.reading.image_first_release import never_built
from policies.reading.image_reference import image_reference_error
from policies.reading.inline_python import compile_failure, may_be_python2, newer_grammar, python_texts
from policies.reading.kserve_runtime import option_args_images
from policies.reading.kustomize import image_rewritten
from policies.reading.ollama_weights import oversized_pulls
from policies.reading.placeholders import placeholder_in, terraform_filled, written_images
from policies.reading.serving import engine_table
from policies.reading.unmounted_programs import unmounted_programs
from policies.reading.user_pip_install import user_pip_install
from policies.reading.vllm_args import command_tokens, expand_env, is_shell_operator

# moby daemon/daemon_unix.go linuxMinMemory: the smallest limit a container runtime is known to accept.
MIN_MEMORY_BYTES = 6 * 1024 * 1024
# vLLM v0.33.0 vllm/entrypoints/cli: the `name` of each command CMD_MODULES registers (openai.py chat/complete,
# serve.py, launch.py, benchmark/main.py bench, collect_env.py, download_kernels.py, preload.py, run_batch.py,
# snapshot.py).
VLLM_SUBCOMMANDS = frozenset(
    {
        "chat",
        "complete",
        "serve",
        "launch",
        "bench",
        "collect-env",
        "download-kernels",
        "preload",
        "run-batch",
        "snapshot",
    }
)
# Images whose WORKDIR is known (see the module docstring), by repository.
_IMAGE_WORKDIRS = {"vllm/vllm-openai": "/vllm-workspace", "docker.io/vllm/vllm-openai": "/vllm-workspace"}
# First path elements of a relative command that evidently means a system binary (bin/sh for /bin/sh).
_SYSTEM_DIRS = frozenset({"bin", "sbin", "usr"})
_SYSTEM_PREFIXES = ("/bin/", "/sbin/", "/usr/", "/lib", "/opt/", "/etc/")
# Relative commands that name a system binary no application ships under its own directory: a shell or env in a
# system bin directory. Anything else under bin/ (bin/start.sh, bin/rails, an Elixir release's bin/my_app, a
# virtualenv's bin/python) may be the image's own file under its WORKDIR, so it is advice.
_SYSTEM_BINARIES = frozenset(
    f"{d}/{name}" for d in ("bin", "usr/bin", "usr/local/bin") for name in ("sh", "bash", "dash", "ash", "zsh", "busybox", "env")
) | {f"{d}/{name}" for d in ("usr/bin", "usr/local/bin") for name in ("python", "python3")}
# Words that may stand before a command in a shell script.
_PREFIX_WORDS = frozenset({"exec", "nohup", "time", "then", "do", "else"})


def _image_message(label: str, image: object) -> str | None:
    if not isinstance(image, str) or not image:
        return None  # no image: a patch or an operator fills it; the API server judges a missing one
    why = image_reference_error(image)
    if why is None:
        return None
    fill_in = placeholder_in(image, ("image",))
    if fill_in is not None and "$" not in image:
        # A fill-in S27 names (<YOUR-ACR-NAME>, IMAGE_PLACEHOLDER): applied as written the kubelet refuses it, but the
        # file says it is a template to edit before it is applied, so the manifest does not prove a deploy fails.
        return unproven(
            f"{label}: image {image!r} is not a valid image reference ({why}): the placeholder {fill_in} must be "
            f"replaced before the file is applied, or the kubelet cannot parse it and the container waits with "
            f"InvalidImageName and never starts"
        )
    if "$" in image or "{{" in image or "://" in image:
        # A variable a rendering step fills (envsubst, a deploy script, ko's ko:// import paths): only the file applied
        # as written fails.
        return unproven(
            f"{label}: image {image!r} holds a variable ({why} as written); the file must be rendered (envsubst, ko, "
            f"a deploy script) before it is applied, or the kubelet reports InvalidImageName and the container never "
            f"starts"
        )
    return (
        f"{label}: image {image!r} is not a valid image reference ({why}); the kubelet cannot parse it, so the "
        f"container waits with InvalidImageName and never starts; replace it with a registry/repository:tag"
    )


def _unbuilt_message(label: str, image: object) -> str | None:
    """An image tag older than the first release its publisher built (policies/reading/image_first_release.py)."""
    found = never_built(image) if isinstance(image, str) else None
    if found is None:
        return None
    row, tag, hub = found
    message = (
        f"{label}: image {image} was never built: its publisher first built {row.repository} at "
        f"v{row.first[0]}.{row.first[1]} ({row.source}), so tag {tag} does not exist, the pull fails "
        f"(ImagePullBackOff) and the container never starts; use a tag from v{row.first[0]}.{row.first[1]} on"
    )
    return message if hub else unproven(message + " (behind another registry, which may hold a build of its own)")


def _workdir(container: Mapping) -> str | None:
    workdir = container.get("workingDir")
    if isinstance(workdir, str) and workdir:
        return workdir
    image = container.get("image")
    if not isinstance(image, str):
        return None
    repository = image.split("@", 1)[0]
    if ":" in repository.rsplit("/", 1)[-1]:
        repository = repository[: repository.rfind(":")]
    return _IMAGE_WORKDIRS.get(repository)


def _command_message(label: str, container: Mapping) -> str | None:
    command = container.get("command")
    first = command[0] if isinstance(command, list) and command else None
    if not isinstance(first, str) or first.startswith("/") or "/" not in first or "$" in first:
        return None
    if first.split("/", 1)[0] not in _SYSTEM_DIRS or posixpath.normpath(first) not in _SYSTEM_BINARIES:
        return None  # ./run.sh, scripts/start.sh, bin/start.sh: maybe the image's own file under its working directory
    workdir = _workdir(container)
    resolved = posixpath.normpath(posixpath.join(workdir, first)) if workdir else None
    if resolved is not None and workdir is not None and posixpath.normpath(workdir) == "/":
        return None  # resolved from / it is the system binary
    text = (
        f"{label}: command {first!r} is a relative path; the runtime resolves it from the working directory "
        f"({workdir or 'the image WORKDIR, not known here'}), not from PATH"
    )
    if resolved is None or resolved.startswith(_SYSTEM_PREFIXES):
        return unproven(f"{text}; it runs only where that directory is /; write /{first}")
    return f"{text}, so it looks for {resolved}, which no image holds: the container exits at once; write /{first}"


def _memory_messages(label: str, container: Mapping) -> list[str]:
    found = []
    limit = as_quantity(get(container, "resources", "limits", "memory"))
    if limit is not None and 0 < limit < MIN_MEMORY_BYTES:
        found.append(
            f"{label}: resources.limits.memory is {fmt_number(limit)} bytes (a bare number is bytes, not Gi); no "
            f"container starts under {MIN_MEMORY_BYTES // 2**20} MiB (Docker refuses it, CRI-O refuses under 12 MiB, "
            f"runc's init is OOM-killed), so the pod never runs; write the unit (e.g. 64Gi)"
        )
        return found
    request = as_quantity(get(container, "resources", "requests", "memory"))
    if request is not None and 0 < request < MIN_MEMORY_BYTES:
        found.append(
            unproven(
                f"{label}: resources.requests.memory is {fmt_number(request)} bytes (a bare number is bytes, not Gi); "
                f"the scheduler reserves nothing for this container, so it lands on nodes without room and is the "
                f"first evicted; write the unit (e.g. 32Gi)"
            )
        )
    return found


def _vllm_messages(label: str, container: Mapping) -> list[str]:
    found = []
    tokens, _ = command_tokens(container)
    for i, token in enumerate(tokens[:-1]):
        before = tokens[i - 1] if i else ""
        if posixpath.basename(token) != "vllm" or not (i == 0 or is_shell_operator(before) or before in _PREFIX_WORDS):
            continue
        word = tokens[i + 1]
        if word.startswith("-") or "$" in word or word in VLLM_SUBCOMMANDS:
            continue
        found.append(
            f"{label}: `vllm {word}` is not a command of vLLM's CLI ({', '.join(sorted(VLLM_SUBCOMMANDS))} at "
            f"v0.33.0); argparse exits with 'invalid choice' and the container restarts in a loop; write `vllm serve`"
        )
    return found


def _flag_command_message(label: str, container: Mapping) -> str | None:
    """A ``command`` whose first word is an option (``command: ["--model", M, ...]``, set 35 AI-Cloud-Tech-Inc/
    Autonomous-Agentic-Spiritual-AI k8s/vllm-deployment.yaml): command replaces the image's ENTRYPOINT, and the runtime
    resolves its first word as the program (runc v1.2.9 libcontainer/standard_init_linux.go:208 exec.LookPath, a word
    with no slash searched on PATH), which no image holds under an option's name."""
    command = container.get("command")
    first = command[0] if isinstance(command, list) and command else None
    if not isinstance(first, str) or not first.startswith("-") or "$" in first:
        return None
    return (
        f"{label}: command begins with the option {first!r}; command replaces the image's ENTRYPOINT, so the runtime "
        f"looks for a program named {first!r} on PATH, finds none (executable file not found in $PATH) and the "
        f"container never starts; pass these words as args and leave the image's entrypoint to run the server"
    )


def _option_args_message(label: str, container: Mapping, custom_predictor: bool, raw: object) -> str | None:
    """Args that begin with an option, no command, on an image that sets no ENTRYPOINT: the runtime runs args in place
    of the image's CMD, so the option is the program it looks up on PATH (runc v1.2.9 standard_init_linux.go:208
    exec.LookPath) and the container never starts. The images are data (components/image_contents.toml rows written
    ``entrypoint = []``: open-webui's CMD ["bash", "start.sh"], the python official images' CMD ["python3"]):
    mandatory at a release the row read, advice otherwise (latest, a branch tag, a mirror path). On a KServe
    InferenceService's own predictor container (``custom_predictor``, run as written) of an image no table knows, advice:
    a custom server image often starts its server from CMD (spent set 82 bhajian/fine-tuning-workshop
    openshift/inference_service.yaml: Dockerfile.vllm ends with CMD python3 scripts/serve_vllm.py). ``raw``: the image
    as written (a reference holding a fill-in S27 reports is hidden from the other rules' props)."""
    args = container.get("args")
    if container.get("command") or not isinstance(raw, str) or not isinstance(args, list) or not args:
        return None
    first = args[0]
    if not isinstance(first, str) or len(first) < 2 or not first.startswith("-") or "$" in first:
        return None
    match = contents(raw)
    if match is not None and match.row.no_entrypoint:
        if match.lookalike():
            return None  # acme/python is someone's image named after an official one, not a mirror of it
        image_cmd = " ".join(match.row.cmd)
        text = (
            f"{label}: args begin with the option {first!r} and no command is given, but the {match.row.family} "
            f"image {raw} sets no ENTRYPOINT (its CMD is `{image_cmd}`: components/image_contents.toml, "
            f"{match.row.source.split(':', 1)[0]}), so args replace the CMD and the runtime looks for a program named "
            f"{first!r} on PATH, finds none (executable file not found in $PATH) and the container never starts; "
            f"give the command (`{image_cmd}`) before these words, or set command"
        )
        return text if match.proven else unproven(f"{text} ({match.why_not})")
    if not custom_predictor or match is not None or any(names_image(raw, e.images) for e in engine_table()):
        return None
    if is_published(raw, option_args_images()):
        return None  # KServe's own runtimes run it so: its ENTRYPOINT takes options
    return unproven(
        f"{label}: the predictor container gives args beginning with the option {first!r} and no command; args replace "
        f"the image's CMD, so if {raw} starts its server from CMD rather than ENTRYPOINT (a Dockerfile ending "
        f"`CMD python3 serve.py`), the runtime execs {first!r} as the program, finds none and the container never "
        f"starts; give the server's command line as command, or check that the image's ENTRYPOINT runs the server"
    )


def _engine_invocation(args: list[str], engine: Engine) -> str | None:
    """The engine's own command (``vllm serve``, ``python3 -m vllm.entrypoints...``) the args begin with, else None."""
    if not args:
        return None
    for words in engine.commands:
        if posixpath.basename(args[0]) == words[0] and args[1 : len(words)] == list(words[1:]):
            return " ".join(args[: len(words)])
    if posixpath.basename(args[0]).startswith("python") and args[1:2] == ["-m"] and len(args) > 2:
        if args[2].startswith(engine.modules) and engine.modules:
            return " ".join(args[:3])
    return None


def _image_name_words(image: str) -> set[str]:
    name = image.lower().split("@", 1)[0].rsplit("/", 1)[-1].split(":", 1)[0]
    return set(re.split(r"[-_.]+", name))


def _repeated_engine_messages(label: str, container: Mapping) -> list[str]:
    """Args (no command) that begin with the engine's own command, on an image whose ENTRYPOINT already runs it: the
    server gets its own name as arguments and refuses them. Proven on the publisher's images the row names
    (``entrypoint_images``: the repository, behind any registry, components/images.is_published); advice on an image named after the engine that no row recognises (a rebuild whose
    ENTRYPOINT may be the server: set 35 nbethala/triton-mlops-gpu-platform k8s/triton-deployment.yaml, ECR
    triton:latest built with ENTRYPOINT ["tritonserver"], args ["tritonserver", ...]). Silent on the publisher's images
    whose entrypoint runs its args as a command (nvcr.io/nvidia/tritonserver's nvidia_entrypoint.sh)."""
    raw = container.get("image")
    if container.get("command") or not isinstance(raw, str):
        return []
    args = expand_env([t for t in as_list(container.get("args")) if isinstance(t, str)], container)
    image = raw.lower()
    known = any(names_image(image, e.images) for e in engine_table())
    for engine in engine_table():
        invocation = _engine_invocation(args, engine)
        if invocation is None:
            continue
        if engine.entrypoint and is_published(raw, engine.entrypoint_images):
            return [
                f"{label}: args begin with {invocation!r}, but the {engine.display} image's ENTRYPOINT already runs "
                f"`{engine.entrypoint}`, so the process is `{engine.entrypoint} {invocation} ...`: the server refuses "
                f"the repeated words and exits at start; drop {invocation!r} from args"
            ]
        words = _image_name_words(raw)
        # A path that contains the publisher's repository without being it (harbor.corp/vllm/vllm-openai-patched) is a
        # rebuild, which may set its own ENTRYPOINT: advice, like an image named after the engine.
        rebuild = engine.entrypoint and any(marker in image for marker in engine.entrypoint_images)
        if rebuild or not known and (engine.name in words or posixpath.basename(args[0]) in words):
            return [
                unproven(
                    f"{label}: args begin with {invocation!r} on {raw!r}, an image named after {engine.display} that "
                    f"no publisher's reference matches; if its ENTRYPOINT already runs {args[0]!r} (a rebuild with "
                    f"ENTRYPOINT [{args[0]!r}]), the process is `{args[0]} {invocation} ...` and the server exits on "
                    f"the repeated word; drop {invocation!r} from args, or check the image's ENTRYPOINT"
                )
            ]
    return []


# tritonserver's options that take no value (Option::ArgNone: triton-inference-server/server v2.42.0
# src/command_line_parser.cc L373 help, L395-397 disable-auto-complete-config); every other one is required_argument.
_TRITON_NO_VALUE = frozenset({"help", "disable-auto-complete-config"})


def _triton_messages(label: str, container: Mapping) -> list[str]:
    """A bare word on tritonserver's command line: its parser hands getopt_long no short options and, once getopt is
    done, refuses any word left over (v2.42.0 src/command_line_parser.cc L1263 getopt_long(argc, argv, "", ...),
    L1706-1708 ``throw ParseException("Unexpected argument: " ...)``; src/main.cc L430-435 prints the usage and
    exit(1); the same check in v2.19.0 src/servers/main.cc L1618-1622 and v2.71.0 command_line_parser.cc L1813).
    Set 16: llm-on-gke/triton-vllm-gke vllm-gke-deploy.yaml@0d1338a passes "model_name=google/gemma-7b". A word
    after an option written without ``=`` is that option's value; a word holding a variable is not judged."""
    tokens, shell = command_tokens(container)
    found = []
    for i, token in enumerate(tokens):
        before = tokens[i - 1] if i else ""
        if posixpath.basename(token) != "tritonserver" or not (i == 0 or is_shell_operator(before) or before in _PREFIX_WORDS):
            continue
        wants_value = False
        for word in tokens[i + 1 :]:
            if (
                shell and (is_shell_operator(word) or word[:1].isdigit() and word.lstrip("0123456789")[:1] in ("<", ">"))
            ) or word == "--":
                break
            if word.startswith("-"):
                wants_value = "=" not in word and word.lstrip("-") not in _TRITON_NO_VALUE
            elif wants_value:
                wants_value = False
            elif "$" not in word:
                found.append(
                    f"{label}: tritonserver is given the bare argument {word!r}, which is no option; its parser "
                    f'stops at "Unexpected argument: {word}", prints the usage and exits 1, so the container restarts '
                    f"in a loop; write it as an option (--name=value) or drop it"
                )
                break
    return found


def _python_messages(label: str, podspec: Mapping, container: Mapping) -> list[str]:
    """Python the container runs from text the files hold that CPython cannot compile (policies/reading/
    inline_python.py): the interpreter exits 1 with SyntaxError before any line runs. Advice where the code holds a
    value the shell or a template fills (inside a string literal) or where the interpreter may be Python 2 and the
    failing line is a form Python 2 accepts; silent on ``python2``."""
    found = []
    for text in python_texts(podspec, container):
        failure = None if text.interpreter.startswith("python2") else compile_failure(text)
        if failure is None:
            continue
        message = (
            f"{label}: the Python of {text.where} does not compile ({failure.message}, line {failure.line}: "
            f"{failure.text!r}); {text.interpreter} parses the whole program before it runs any line, so it exits 1 "
            f"with SyntaxError and the container never does its work; fix the code"
        )
        doubt = text.substituted or may_be_python2(text, container.get("image"), failure) or newer_grammar(failure)
        found.append(unproven(message) if doubt else message)
    return found


def _unmounted_messages(label: str, podspec: Mapping, container: Mapping) -> list[str]:
    """A program run from a folder only another container mounts (policies/reading/unmounted_programs.py)."""
    found = []
    for path, folder, volume, proven in unmounted_programs(podspec, container):
        message = (
            f"{label}: runs {path}, but {folder} is volume {volume} mounted in another container of the pod, not in "
            f"this one (volumes are mounted per container), so there is no such file here and the container exits at "
            f"once ('No such file or directory'); mount {volume} at {folder} in this container too"
        )
        found.append(message if proven else unproven(f"{message} (unless image {container.get('image')} ships it)"))
    return found


def _check(resource: Resource, config: dict) -> list[str]:
    messages: list[str] = []
    # An image S27 found a placeholder in is UNKNOWN to the other rules; its grammar is judged as written. A variable
    # (``$ECR_REGISTRY/ray-llm:$TAG``) a render step fills is advice here too (_image_message): labellers of fresh set
    # 31 filed `${REGISTRY}aws-ray-custom:latest` and `$AWS_ACCOUNT_ID.dkr.ecr...` as G46, beside S27's note.
    written = written_images(resource)
    group, kind = split_type(resource.type)
    for path, podspec in pod_specs(resource):
        custom_predictor = group == "serving.kserve.io" and kind == "InferenceService" and not path.endswith(".model")
        for container in containers(podspec, init=True):
            label = container_label(path, container)
            image = written.get(label, container.get("image"))
            image = None if terraform_filled(resource, image) else _image_message(label, image)
            messages.extend([image] if image else [])
            # A kustomization of the run that retags the image deploys another tag than the base's.
            rewritten = image_rewritten(resource.retagged, container.get("image"))
            unbuilt = None if image or rewritten else _unbuilt_message(label, container.get("image"))
            messages.extend([unbuilt] if unbuilt else [])
            command = _command_message(label, container) or _flag_command_message(label, container)
            raw = written.get(label, container.get("image"))
            command = command or _option_args_message(label, container, custom_predictor, raw)
            messages.extend([command] if command else [])
            messages.extend(_repeated_engine_messages(label, container))
            messages.extend(_memory_messages(label, container))
            messages.extend(_vllm_messages(label, container))
            messages.extend(_triton_messages(label, container))
            messages.extend(_python_messages(label, podspec, container))
            messages.extend(hidden_program(label, podspec, container))
            messages.extend(user_pip_install(label, podspec, container))
            messages.extend(_unmounted_messages(label, podspec, container))
        messages.extend(oversized_pulls(path, podspec))
    for field, image in field_images(resource):
        # An image field an operator copies into its pods (Kaito presetOptions.image): read by its name alone, so a
        # reference that does not parse is advice.
        message = _image_message(field, image)
        messages.extend([unproven(message)] if message else [])
    return messages


POLICY = Policy(
    name="container-can-start",
    description=(
        "Every container can start: its image reference parses, a command is not a relative path to a system "
        "binary, a memory limit is not a unit-less handful of bytes, a vLLM command line names a real command, tritonserver is given no bare argument, a command (or the args of "
        "an image with no ENTRYPOINT) does not begin with an option, args do not repeat the command the image's ENTRYPOINT already runs, the Python it runs from "
        "text the files hold (python -c, a heredoc, a mounted script) compiles, no volume hides the folder the image's "
        "ENTRYPOINT runs from, and a CPU "
        "Ollama server's memory limit holds the weights of the model its pod pulls."
    ),
    catalog="G46",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Replace a placeholder image with the real registry/repository:tag (lower-case repository, no spaces or "
        "<...>/${...}); write commands as absolute paths (/bin/sh); give memory quantities a unit (64Gi, 512Mi); run "
        "`vllm serve MODEL [options]`; give tritonserver only options (--name=value); pass a server's options as args, not "
        "command, and leave out of args the command its image's ENTRYPOINT runs; give a CPU Ollama server a memory limit above the weights of the model it "
        "pulls, or pull a smaller one; fix the syntax error in inline Python (run `python3 -m py_compile` on it); mount volumes beside the image's program "
        "folder (or one file with subPath)."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "The API server stores these pod templates, so the object applies, but no container runs: the kubelet "
        "refuses an image reference distribution/reference cannot parse (InvalidImageName, kubernetes "
        "pkg/kubelet/images/image_manager.go EnsureImageExists -> pkg/util/parsers ParseImageName -> "
        "ParseNormalizedNamed); runc resolves a relative command from the working directory, not PATH (runc v1.2.9 "
        "libcontainer/standard_init_linux.go:191,208); a limit under 6 MiB kills or refuses the container (moby "
        "linuxMinMemory = 6291456, CRI-O minMemoryLimit = 12582912, runc v1.2.9 libcontainer/process_linux.go:584); "
        "vLLM v0.33.0's CLI exits on an unknown subcommand (vllm/entrypoints/cli/main.py:55-65,98); a command's first word is resolved as the program (runc "
        "v1.2.9 libcontainer/standard_init_linux.go:208), so an option there is no executable; vllm/vllm-openai and "
        "ollama/ollama already run their server as ENTRYPOINT (components/serving_engines.toml entrypoint), which "
        "refuses its own name repeated in args; tritonserver "
        "exits 1 on a bare argument (server v2.42.0 src/command_line_parser.cc:1706-1708, src/main.cc:430-435); Ollama v0.5.4 "
        "loads CPU models with --no-mmap (llm/server.go:247-255), so weights above the memory limit are OOM-killed; CPython "
        "parses a whole -c or stdin program before it runs a line (Python/pythonrun.c pyrun_file -> _PyParser_ASTFromFile, "
        "then run_mod), so a SyntaxError anywhere exits 1 at once. Where the working directory is unknown, or only a "
        "request is that small, the finding is advice."
    ),
)
