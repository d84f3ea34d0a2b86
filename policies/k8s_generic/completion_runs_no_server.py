"""G89: a container that must run to completion (an init container, a Job's) runs no model server.

An init container must exit before the pod's next init container and its app containers start, and a Job's pod is
complete only when its containers exit (https://kubernetes.io/docs/concepts/workloads/pods/init-containers/, "each
init container must complete successfully before the next one starts"; https://kubernetes.io/docs/concepts/workloads/
controllers/job/). A model server listens until it is stopped: run there, it never exits. The common form is a model
"loader" given an engine's image and no command: the image's ENTRYPOINT and CMD (the engine table's ``entrypoint`` and
``image_cmd``) start the server, not a pull (ollama/ollama v0.32.15 Dockerfile L319-320 ENTRYPOINT ["/bin/ollama"] CMD
["serve"]: `ollama serve`; spent set 70 punkplod23/gemmalocalllm@19fa9d7c k8s/ollama-model-loader.yaml, a Job with
image ollama/ollama:latest and no command). Args replace the CMD, so `args: [pull, llama3]` runs `ollama pull llama3`
and is no server. Read too: a command line that is the server itself, not a shell script (`[ollama, serve]`,
`[vllm, serve, MODEL]`: an engine command of two words or more; a `python -m` module is left alone, since vLLM's
run_batch is one that exits).

Blocking for an init container of a pod that restarts its containers or not (the pod never passes Init, so it never
serves), except a native sidecar (an init container with restartPolicy Always, meant to keep running); advice for a
Job's, a CronJob's or a run-to-completion bare Pod's container (the Job never completes and pulls nothing; a Job may
run a server on purpose beside a client, which the files do not show). Silent for an image the engine's publisher did
not build (a rebuild may set another CMD), for a shell script (it may background the server and exit), and for an
image whose CMD the table does not give when the container gives no args.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import Optional

from components.images import is_published
from components.serving_engines import Engine
from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_list, container_label, get, pod_specs, split_type
from policies.reading.serving import engine_table
from policies.reading.vllm_args import command_tokens

# Kinds whose pods run to completion (their containers must exit).
_COMPLETION_KINDS = frozenset({("batch", "Job"), ("batch", "CronJob")})
# Wrappers that bound the server's life: `timeout 600 ollama serve` exits.
_BOUNDED = frozenset({"timeout"})


def _runs(argv: list[str], row: Engine) -> Optional[str]:
    """The engine command argv starts with (after wrappers such as tini), as written, or None."""
    for i, token in enumerate(argv[:4]):
        base = posixpath.basename(token)
        if base in _BOUNDED:
            return None
        for words in row.commands:
            if len(words) >= 2 and base == words[0] and argv[i + 1 : i + len(words)] == list(words[1:]):
                return " ".join(words)
    return None


def _server(container: Mapping) -> Optional[tuple[str, str]]:
    """(engine display name, how the server is started) when the container's main process is a model server."""
    image = container.get("image")
    written = container.get("args")
    if written is not None and (not isinstance(written, list) or not all(isinstance(t, str) for t in written)):
        return None  # args the API server refuses (S26): what would run is unknown, so no claim (review 49b #5)
    args = list(written or ())
    for row in engine_table():
        if not container.get("command") and row.entrypoint and isinstance(image, str):
            if not is_published(image, row.entrypoint_images):
                continue
            if not args and not row.image_cmd:
                continue
            line = row.entrypoint.split() + (args or row.image_cmd.split())
            started = _runs(line, row)
            if started is not None:
                given = "no command and no args" if not args else "no command"
                return row.display, f"image {image} with {given} runs its entrypoint `{' '.join(line[:3])}`"
            continue
        argv, script = command_tokens(container)
        if script or not container.get("command"):
            continue
        started = _runs(argv, row)
        if started is not None:
            return row.display, f"its command runs `{started}`"
    return None


def _check(resource: Resource, config: dict) -> list[str]:
    kind = split_type(resource.type)
    completes = kind in _COMPLETION_KINDS or (
        kind == ("", "Pod") and get(resource.props, "spec", "restartPolicy") in ("Never", "OnFailure")
    )
    messages: list[str] = []
    for path, podspec in pod_specs(resource):
        for container in (c for c in as_list(podspec.get("initContainers")) if isinstance(c, dict)):
            if container.get("restartPolicy") == "Always":
                continue  # a native sidecar keeps running by design
            found = _server(container)
            if found is not None:
                engine, how = found
                messages.append(
                    f"init {container_label(path, container)}: {how}, the {engine} server, which listens until it is "
                    f"stopped and never exits: the pod never finishes its init containers, so it never starts its "
                    f"containers nor serves; give the container the command that does the work (`ollama pull MODEL` "
                    f"against a server started in the background), or run the server as a container"
                )
        if not completes:
            continue
        for container in (c for c in as_list(podspec.get("containers")) if isinstance(c, dict)):
            found = _server(container)
            if found is not None:
                engine, how = found
                messages.append(
                    unproven(
                        f"{container_label(path, container)}: {how}, the {engine} server, which listens until it is "
                        f"stopped: this {kind[1]}'s pod never completes, and a loader meant to pull a model into another "
                        f"server pulls nothing; give the container the command that does the work (`ollama pull MODEL` "
                        f"with OLLAMA_HOST set to the server's Service, `hf download MODEL`)"
                    )
                )
    return messages


POLICY = Policy(
    name="completion-runs-no-server",
    description=(
        "An init container, or a Job's container, runs no model server: an engine image given no command (ollama/ollama "
        "runs `ollama serve`) or `ollama serve`/`vllm serve` never exits, so the pod never starts (init: blocking) or "
        "the Job never completes (advice)."
    ),
    catalog="G89",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Give the container the command that does the work (`ollama pull MODEL` against a server started in the "
        "background or reached through its Service, `hf download MODEL`), or run the server as a regular container."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "Init containers must exit before the app containers start, and a Job completes when its pods' containers "
        "exit (kubernetes.io init-containers, job). ollama/ollama v0.32.15 Dockerfile L319-320: ENTRYPOINT "
        '["/bin/ollama"] CMD ["serve"], the server (engine table entrypoint and image_cmd).'
    ),
)
