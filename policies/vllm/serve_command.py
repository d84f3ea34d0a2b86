"""S38 (engine-options-exist): a `vllm serve` command line on a vLLM release that has no `vllm` command.

The `vllm` console script first ships in vLLM 0.5.2: its setup.py adds ``entry_points={"console_scripts":
["vllm=vllm.scripts:main"]}`` (v0.5.2 setup.py:491-493, with ``serve`` in vllm/scripts.py:24-28, 113), and 0.5.1's
setup.py has no console script at all (both read at their upstream tags in the HabanaAI/vllm-fork mirror, which keeps
vLLM's own tags). So on an image of an earlier release (vllm/vllm-openai:v0.4.2) a container whose command runs
``vllm serve`` exits at once (the runtime's "executable file not found", or a shell's "vllm: not found"), and the pod
restarts for ever. Mandatory where the tag names such a release; silent where the container installs vLLM itself.
"""

from __future__ import annotations

import posixpath
from typing import Optional

from components.engine_options import tagged_release, version_key
from policies.reading.serving import engine_row
from policies.reading.vllm_args import VllmServer, command_tokens

SERVE_FROM = (0, 5, 2)


def serve_missing(server: VllmServer, installs: bool) -> Optional[str]:
    """The finding for ``vllm serve`` in the container's own command line on an image whose tag names a release before
    0.5.2; None otherwise (``installs``: the container installs vLLM itself, so its release is not the tag's)."""
    row = engine_row("vllm")
    if row is None or row.options is None or installs:
        return None
    argv = command_tokens(server.container)[0]
    if not any(posixpath.basename(t) == "vllm" and argv[i + 1 : i + 2] == ["serve"] for i, t in enumerate(argv)):
        return None
    image = str(server.container.get("image") or "")
    release = tagged_release(image, row.options.images)
    if release is None or version_key(release) >= SERVE_FROM:
        return None
    return (
        f"runs `vllm serve` on vLLM {release} (image {image}), but the `vllm` command first ships in 0.5.2 (v0.5.2 "
        "setup.py:491-493 console_scripts vllm=vllm.scripts:main; 0.5.1 has none), so the container exits at once "
        "(executable not found) and the server never starts; run python3 -m vllm.entrypoints.openai.api_server "
        "--model MODEL on this release, or use a release from 0.5.2 on"
    )
