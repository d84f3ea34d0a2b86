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
at a revision that is not a 40-character commit is advice once per container (a URL on a shell comment line is
not a download). A URL the curl/wget reading already reports (model-source-pinned's downloader rows) is not said
again. A dataset's or a Space's URL
(``/datasets/``, ``/spaces/``) is not a model and does not match.
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
_COMMIT = re.compile(r"^[0-9a-f]{40}$")
_MAX_URLS = 32  # URLs read per container: a script names a handful; bounded for any text


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
                    if text[text.rfind("\n", 0, match.start()) + 1 : match.start()].lstrip().startswith("#"):
                        continue  # a shell comment naming where the file came from downloads nothing
                    if _COMMIT.match(revision) or "$" in repo + revision or (id(container), repo, revision) in told:
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
