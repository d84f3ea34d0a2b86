"""S45 (the ConfigMap's side): a ConfigMap start script that runs the model server pulls its model and lets a failed
pull pass.

model-download-fails-loudly reads the script of a ConfigMap of the files that a model server mounts and names on its
command line (policies/reading/mounted_scripts.py) and reports a swallowed pull on the workload. The script is written
in the ConfigMap, and that is where a reader fixes it: the finding is said on the ConfigMap too, naming the key and the
container that runs it, as script-map-code-pinned does for S31. Spent set 102 rgratis/ai-dev-environment@590f6ff0
k8s/ollama/configmap.yaml, labelled S45 on ConfigMap ollama-config: key entrypoint.sh runs ``ollama serve &``, ``sleep
10``, ``ollama pull "$model"`` for each line of a model list with no set -e and no check, then ``wait``; a start slower
than the sleep fails the pull ("could not connect to ollama server": the Ollama CLI checks the server once, ollama
v0.32.15 cmd/cmd.go:2079-2091) and the server runs on without the model. Silent for ``set -e`` (in the script, its
``#!`` line or the container's shell flags), ``|| exit 1``/``&&`` after the pull, a later ``ollama list``/``ollama
show`` check, a loop that pulls again, and a ConfigMap no pod of the files runs. Advisory.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import get, split_type
from policies.models.downloads_fail_loudly import server_scripts, unchecked_serving_pull
from policies.models.pull_script_waits import HOW
from policies.reading.mounted_scripts import script_keys, workloads_beside
from policies.reading.ollama_pulls import pulls_while_serving
from policies.reading.serving import model_servers


def _check(resource: Resource, config: dict) -> list[str]:
    scripts = script_keys(resource, lambda text: "ollama" in text and ("pull" in text or "run" in text))
    if not scripts:
        return []
    messages: list[str] = []
    for other in workloads_beside(resource):
        for server in model_servers(other):
            if not pulls_while_serving(server.container, server.podspec):
                continue
            for where, tokens, errexit, text in server_scripts(server.container, server.podspec):
                key = next((k for k, v in scripts.items() if v == text), None)
                unchecked = unchecked_serving_pull(tokens, errexit) if key is not None else None
                if unchecked is None:
                    continue
                pull, how = unchecked
                runner = f"{server.label} of {split_type(other.type)[1]} {get(other.props, 'metadata', 'name')}"
                messages.append(
                    f"key {key} (run as {where.removeprefix('the script ')} by {runner}) runs `{pull}` beside the "
                    f"server {HOW[how]}, and nothing later checks the model: a failed pull leaves the server running "
                    "with no model; check the pull (`ollama pull MODEL || exit 1`, or `set -e`) so the container "
                    "restarts, and wait for the server with a poll (`until ollama list; do sleep 1; done`)"
                )
    return list(dict.fromkeys(messages))


POLICY = Policy(
    name="script-map-pull-checked",
    description=(
        "A ConfigMap start script that runs the model server (`ollama serve &`) and pulls its model checks the pull "
        "(set -e, `|| exit 1`) and waits for the server with a poll, not a fixed sleep."
    ),
    catalog="S45",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "In the script: `set -e`, `ollama serve &`, `until ollama list >/dev/null 2>&1; do sleep 1; done`, "
        "`ollama pull MODEL || exit 1`, `wait`; or pull in an init container whose failure blocks the pod."
    ),
    resource_types=("kubernetes:core/v1:ConfigMap",),
    check_resource=_check,
    rationale=(
        "A shell runs on after a failed command unless set -e is in force (POSIX Shell Command Language, set -e), and "
        "the Ollama CLI exits at once when the server does not answer yet (ollama v0.32.15 cmd/cmd.go:2079-2091): "
        "the server keeps serving with no model and nothing restarts it."
    ),
)
