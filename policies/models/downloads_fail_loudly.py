"""S45: a model download in a pod's script fails when the server answers with an error.

``curl`` exits 0 on an HTTP error unless told ``-f``/``--fail`` ("Fail fast with no output at all on server errors
... Normally when an HTTP server fails to deliver a document, it returns an HTML document stating so ... and curl
passes this document on", curl 8.x man page, https://curl.se/docs/manpage.html#-f; ``--fail-with-body`` fails and
keeps the body). So ``curl -L URL -o /models/model.gguf`` with a gated repository (401), a moved file (404) or a
rate limit (429) writes the error page as the weights and the init container succeeds; the server then crash-loops
on a file it cannot parse. Where the script only downloads when the file is missing (``[ ! -f FILE ]``), the bad
file is kept across restarts until someone deletes it. Reviewers labelled it on held-out set 8 (nerc-project/
llm-on-nerc llama.cpp/standalone/02-llama-cpp-deployment.yaml). ``wget`` exits non-zero on a server error by default
(exit status 8, https://www.gnu.org/software/wget/manual/wget.html#Exit-Status) and is not reported.

Read in every container of a pod that runs a model server, and in any pod where the URL or the file names a model
(.gguf, .safetensors, .bin, .pt, huggingface.co). Advice: a later step of the script may check what it fetched.
"""

from __future__ import annotations

import posixpath
import re
from typing import Optional

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, container_label, containers, pod_specs
from policies.reading.serving import model_servers
from policies.reading.vllm_args import command_tokens, is_shell_operator

_OUTPUT_LONG = ("--output", "--remote-name", "--remote-name-all")
_FAIL_LONG = ("--fail", "--fail-with-body")
_SHORT = re.compile(r"^-[A-Za-z0-9#]+$")
_MODEL_FILE = re.compile(r"huggingface\.co/|\.(gguf|safetensors|bin|pt|pth|onnx|ggml)(\?|$|[\"'])", re.IGNORECASE)
_EXISTS_TEST = re.compile(r"^-[fes]$")


def _curl_runs(tokens: list[str]) -> list[tuple[list[str], bool]]:
    """(arguments, output redirected to a file) of every curl command in a token list."""
    runs = []
    for i, token in enumerate(tokens):
        if posixpath.basename(token) != "curl":
            continue
        rest = tokens[i + 1 :]
        end = next((j for j, t in enumerate(rest) if is_shell_operator(t)), len(rest))
        redirected = end < len(rest) and rest[end] in (">", ">>")
        runs.append((rest[:end], redirected))
    return runs


def _writes_file(args: list[str], redirected: bool) -> Optional[str]:
    """What the curl run writes to: the -o/--output value, "the remote name" for -O, or None (stdout, a pipe)."""
    for i, token in enumerate(args):
        long, _, value = token.partition("=")
        if long in _OUTPUT_LONG:
            return value or (args[i + 1] if long == "--output" and i + 1 < len(args) else "its remote name")
        if _SHORT.match(token):
            letters = token[1:]
            if letters.endswith("o") and i + 1 < len(args):
                return args[i + 1]
            if "O" in letters:
                return "its remote name"
    return "a redirected file" if redirected else None


def _fails(args: list[str]) -> bool:
    return any(a.partition("=")[0] in _FAIL_LONG or (_SHORT.match(a) and "f" in a[1:]) for a in args)


def _check(resource: Resource, config: dict) -> list[str]:
    serves = bool(model_servers(resource))
    messages = []
    for path, podspec in pod_specs(resource):
        for container in containers(podspec, init=True):
            tokens, _ = command_tokens(container)
            if "curl" not in " ".join(tokens):
                continue
            checks_existence = any(_EXISTS_TEST.match(t) for t in tokens)
            for args, redirected in _curl_runs(tokens):
                target = _writes_file(args, redirected)
                if target is None or _fails(args):
                    continue
                url = next((a for a in args if a.startswith(("http://", "https://"))), "")
                if not (serves or _MODEL_FILE.search(url) or _MODEL_FILE.search(target)):
                    continue
                kept = (
                    " and the script downloads only when the file is missing, so the bad file stays across restarts"
                    if checks_existence
                    else ""
                )
                messages.append(
                    f"{container_label(path, container)}: curl {url or '(URL)'} writes {target} without -f/--fail: an "
                    f"HTTP error (401 on a gated model, 404, 429) exits 0 with the error page saved as the model{kept}; "
                    "add --fail (or -fL) so the container fails and retries"
                )
    return messages


POLICY = Policy(
    name="model-download-fails-loudly",
    description=(
        "A curl that downloads a model in a pod's script is told --fail (-f), so an HTTP error fails the container "
        "instead of saving the error page as the weights (wget fails by default)."
    ),
    rationale=(
        "curl passes an HTTP error document on and exits 0 unless -f/--fail is given (curl man page, --fail); the "
        "server then crash-loops on a file it cannot parse, and an existence check keeps the bad file."
    ),
    catalog="S45",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Use `curl -fL --retry 5 -o FILE.partial URL && mv FILE.partial FILE` (fail on HTTP errors, write under a "
        "temporary name so a broken download is never taken for the model), or a downloader that verifies what it "
        "fetched (`hf download` with a revision)."
    ),
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
)
