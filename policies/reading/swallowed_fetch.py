"""Model fetches whose failure a pod's script swallows: ``ollama pull M || echo "failed"``, ``hf download R || true``,
``timeout 600 ollama pull M || :``, ``... || exit 0``. The shell runs the right side of ``||`` when the fetch fails or
the timeout kills it, and that side succeeds, so the container goes on (or an init container exits 0): the pod starts
and becomes Ready with no model, and requests fail with "model not found" (set 38 ahoffer/aiagent k8s/ollama.yaml
init container model-puller). A right side that exits non-zero (``|| { echo failed; exit 1; }``), a retry loop that
breaks on success (``&& break || sleep``) and a fetch in a file the pod does not run are not read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from policies.reading.ollama_pulls import pod_scripts

# A model fetch on one command line: the Ollama CLI or API, the Hugging Face CLI.
_FETCH = re.compile(r"\bollama[ \t]+pull\b|/api/pull\b|\b(?:hf|huggingface-cli)[ \t]+download\b")
# A right side of || that always succeeds: echo/printf, true, :, exit 0.
_SWALLOW = re.compile(r"\|\|[ \t]*\{?[ \t]*(?:echo\b|printf\b|true\b|:(?=[ \t;}]|$)|exit[ \t]+0\b)")
_FAILS = re.compile(r"\bexit[ \t]+(?:[1-9]|\$)|\bfalse\b|\breturn[ \t]+[1-9]")


def swallowed_fetches(podspec: Mapping) -> list[str]:
    """Each command line of the pod's scripts that fetches a model and swallows its failure, as written."""
    found: list[str] = []
    for text in pod_scripts(podspec):
        for line in text.replace("\\\n", " ").split("\n"):
            fetch = _FETCH.search(line)
            if fetch is None:
                continue
            rest = line[fetch.end() :]
            swallow = _SWALLOW.search(rest)
            if swallow is None or "&&" in rest[: swallow.start()] or _FAILS.search(rest[swallow.start() :]):
                continue
            if line.strip() not in found:
                found.append(line.strip())
    return found
