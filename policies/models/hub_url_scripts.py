"""S17 for a Hugging Face file URL at a branch anywhere in the script a model server's pod runs at start.

The Hub serves a repository's file at ``https://huggingface.co/<org>/<repo>/resolve/<revision>/<file>``
(huggingface_hub v1.28.0 constants.py HUGGINGFACE_CO_URL_TEMPLATE ``"{repo_id}/resolve/{revision}/{filename}"``), so a
URL at ``main`` (or any branch or tag) fetches whatever that name points at when the pod starts. policies/reading/
downloaders.py reads such a URL where ``curl`` or ``wget`` is given it directly; the forms people write are wider: a
shell function the URL is passed to (``fetch "https://huggingface.co/.../resolve/main/x.gguf" x.gguf``), ``aria2c``,
a Python ``requests.get``, a loop over a list of URLs. Spent set 126 j0sh3rs/home-ops@6a9419ec
kubernetes/apps/ai/llama-swap/app/helmrelease.yaml (both labellers, S17): an init container's ``fetch`` function runs
``aria2c ... "$url"`` on three ``.../resolve/main/...gguf?download=true`` URLs for the llama-swap server.

Read here: the command, args and mounted ConfigMap scripts (policies/reading/downloaders.py ``script_texts``) of
every container, init containers included, of a pod that requests a GPU or runs a model server; each distinct URL
at a revision that is not a 40-character commit is advice once per container. A URL the curl/wget reading already
reports (model-source-pinned's downloader rows) is not said again. Not a download of a moving file (review57t): a
URL on a shell comment or in what ``echo``/``printf`` prints, a script that checks a SHA-256 of what it fetched, a
revision that is a placeholder filled in elsewhere (``{rev}``, a Helm value, ``%s``), a dataset's or a Space's URL
(``/datasets/``, ``/spaces/``, with or without an owner).
"""

from __future__ import annotations

import itertools
import re

from policies.framework import Resource, unproven
from policies.kube import container_label, containers, pod_specs, requests_gpu
from policies.reading.downloaders import fetches, script_texts
from policies.reading.engines import serves_model

# The Hub's file URL, found anywhere in a script: repository (two path segments), revision, file.
_URL = re.compile(r"https?://(?:huggingface\.co|hf\.co)/([\w.-]+/[\w.-]+)/resolve/([^/?#\s\"'`]+)/([^?#\s\"'`]+)")
_COMMIT = re.compile(r"^[0-9a-fA-F]{40}$")
# A revision as the Hub names one: a branch, a tag, a commit, or a ref with its slashes escaped (refs%2Fpr%2F1). Anything
# else is a placeholder filled in elsewhere, maybe with a commit (a Python f-string's {rev}, a Helm value, %s).
_REVISION = re.compile(r"^(?:[\w.-]|%2[fF])+$")
# The script checks what it fetched against a SHA-256 (sha256sum -c, shasum -a 256 -c, aria2c --checksum=sha-256=...,
# hashlib): a moved branch fails the check rather than serve another file.
_CHECKSUM = re.compile(r"\bsha256sum\b|\bshasum\b|--checksum[= ]sha-?256|hashlib\.sha256")
# Where the current command of a shell line starts: after a separator, a pipe or a subshell's bracket.
_SEPARATOR = re.compile(r"(?:;|&&|\|\||\||\(|`)")
_NOT_MODELS = ("datasets", "spaces")  # a dataset or Space, with or without an owner segment
_MAX_URLS = 32  # URLs read per container: a script names a handful; bounded for any text


def _printed(line: str) -> bool:
    """Whether a URL after this start of its line is only named: on a shell comment (where the file came from), or in
    the text an ``echo`` or ``printf`` prints. Neither downloads anything."""
    if re.search(r"(?:^|\s)#", line):
        return True
    command = _SEPARATOR.split(line)[-1].lstrip()
    return command.startswith(("echo ", "printf "))


def branch_url_fetches(resource: Resource) -> list[str]:
    """Advice for each Hub file URL at a branch or tag in the start scripts of a pod that feeds a model server."""
    told = {(id(f.container), f.source, f.revision) for f in fetches(resource) if not f.from_text and not f.hub_cache}
    found: list[str] = []
    for path, podspec in pod_specs(resource):
        feeds: bool | None = None
        for container in containers(podspec, init=True):
            urls: dict[tuple[str, str], str] = {}
            for text in script_texts(podspec, container):
                if "/resolve/" not in text:
                    continue
                for match in itertools.islice(_URL.finditer(text), _MAX_URLS):
                    repo, revision, file = match.groups()
                    if _printed(text[text.rfind("\n", 0, match.start()) + 1 : match.start()]) or _CHECKSUM.search(text):
                        continue
                    if _COMMIT.match(revision) or not _REVISION.match(revision) or "$" in repo:
                        continue
                    if repo.split("/")[0] in _NOT_MODELS or (id(container), repo, revision) in told:
                        continue
                    urls.setdefault((repo, revision), file)
            if not urls:
                continue
            if feeds is None:
                feeds = requests_gpu(podspec) or serves_model(resource, podspec)
            if not feeds:
                break
            label = container_label(path, container)
            for (repo, revision), file in sorted(urls.items()):
                found.append(
                    unproven(
                        f"{label}: its start script downloads {file} from the Hugging Face repository {repo} at "
                        f"{revision!r}, a branch or tag (https://huggingface.co/{repo}/resolve/{revision}/...): each start "
                        f"fetches whatever that name points at then, so pods started at different times serve different "
                        f"files; write the URL at a 40-character commit SHA (.../resolve/<sha>/{file})"
                    )
                )
    return found
