"""Which URL paths vLLM's API key guards, per release (read in the wheels, as components/vllm_flags.py is).

With ``VLLM_API_KEY`` (or ``--api-key``) set, vLLM refuses a request without ``Authorization: Bearer
<key>`` only when its path *starts with* one of a few prefixes (a plain ``str.startswith`` on the
ASGI path, after the root path is removed); every other path answers without the key: ``/health``,
``/metrics``, ``/ping``, ``/version``, ``/tokenize``, ``/invocations`` (SageMaker's route, which the
0.33.0 ``--api-key`` help says "exposes the same inference capabilities as /v1",
``entrypoints/common/cli_args.py:339-345``) and the pooling, score and classify routes.

How the table was made: the wheel of each release was downloaded from PyPI (``pip download
vllm==X --no-deps``) and read, not run, by ``tools/read_vllm_auth.py``: the ``GUARDED_PREFIX``
tuple with the ``url_path.startswith(GUARDED_PREFIX)`` that uses it, or the literal
``url_path.startswith("/v1")`` of older releases. Releases read: every minor from 0.8.5 to
0.33.0 (0.21.0's only wheel is ``vllm-0.21.0-1-cp38-abi3-manylinux_2_24_x86_64.whl``: a build tag and an older
platform tag), plus 0.15.1 and 0.17.1. Where the check lives:

* 0.8.5 - 0.9.1: ``entrypoints/openai/api_server.py`` (0.8.5 ``:852``, an ``@app.middleware``
  that returns 401 unless the path does not start with ``/v1``);
* 0.9.2 - 0.15.1: the same file, class ``AuthenticationMiddleware`` (0.15.0 ``:309``);
* 0.16.0 - 0.21.0: ``entrypoints/openai/server_utils.py`` (0.16.0 ``:74``, 0.20.0 and 0.21.0 ``:83``), ``/v1`` only;
* 0.22.0: ``entrypoints/openai/server_utils.py:38`` ``GUARDED_PREFIX = ("/v1", "/v2", "/inference")``;
* 0.23.0 - 0.28.0: ``entrypoints/serve/utils/server_utils.py`` (0.23.0 ``:41``); ``/cohere`` added
  in 0.27.0 (``:42``);
* 0.29.0 - 0.33.0: ``entrypoints/serve/middleware/authenticate.py:11`` GUARDED_PREFIX, checked at
  ``:59``; added by ``entrypoints/serve/middleware/register.py:33`` when a key is set.

An image whose tag names no release, or one newer than the table, gets the prefixes *every*
release read guards (``/v1``): a guess must not open a path.
"""

from __future__ import annotations

import re
from typing import Iterable, Optional

from .images import vllm_release
from .vllm_flags import NEWEST_READ, OLDEST_READ, parse_version

# (first release, prefixes the key guards from that release on, where it was read).
GUARDED_SINCE: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("0.8.5", ("/v1",), "vllm/entrypoints/openai/api_server.py:852 (0.8.5)"),
    ("0.22.0", ("/v1", "/v2", "/inference"), "vllm/entrypoints/openai/server_utils.py:38 (0.22.0)"),
    ("0.27.0", ("/v1", "/v2", "/inference", "/cohere"), "vllm/entrypoints/serve/utils/server_utils.py:42 (0.27.0)"),
    ("0.29.0", ("/v1", "/v2", "/inference", "/cohere"), "vllm/entrypoints/serve/middleware/authenticate.py:11 (0.29.0-0.33.0)"),
)
# What every release read guards: the prefixes of an image whose release is unknown.
EVERY_RELEASE: tuple[str, ...] = tuple(p for p in GUARDED_SINCE[0][1] if all(p in prefixes for _, prefixes, _ in GUARDED_SINCE))


def guarded_prefixes(version: Optional[str]) -> tuple[str, ...]:
    """The path prefixes vLLM ``version``'s API key guards; ``EVERY_RELEASE`` for an unknown or unread release."""
    if version is None:
        return EVERY_RELEASE
    v = parse_version(version)
    if v < parse_version(OLDEST_READ) or v > parse_version(NEWEST_READ):
        return EVERY_RELEASE
    found = EVERY_RELEASE
    for first, prefixes, _ in GUARDED_SINCE:
        if v >= parse_version(first):
            found = prefixes
    return found


def image_guarded_prefixes(image: str) -> tuple[str, ...]:
    """The prefixes the key guards in the vLLM release an image's tag names (``EVERY_RELEASE`` when it names none)."""
    return guarded_prefixes(vllm_release(image))


def provenance(version: Optional[str]) -> str:
    """Where the prefixes of ``version`` were read (file:line in the wheel)."""
    v = parse_version(version) if version is not None else None
    if v is None or v < parse_version(OLDEST_READ) or v > parse_version(NEWEST_READ):
        return f"the prefixes every release from {OLDEST_READ} to {NEWEST_READ} guards"
    return [read for first, _, read in GUARDED_SINCE if v >= parse_version(first)][-1]


def literal_head(path: str) -> str:
    """The part of an Ingress path before its first wildcard (``*`` or ``?``, the ALB's path-pattern wildcards)."""
    return re.split(r"[*?]", path, maxsplit=1)[0]


def path_guarded(path: str, prefixes: Iterable[str]) -> bool:
    """True when every request path that begins with ``path`` (up to its first wildcard) begins with a guarded prefix.

    vLLM tests ``url_path.startswith(GUARDED_PREFIX)`` (0.33.0 authenticate.py:59), so ``/v1`` guards
    ``/v1x`` as well as ``/v1/x``; a forwarded prefix is safe exactly when it starts with one of them.
    """
    head = literal_head(path)
    return any(head.startswith(p) for p in prefixes)


__all__ = [
    "EVERY_RELEASE",
    "GUARDED_SINCE",
    "guarded_prefixes",
    "image_guarded_prefixes",
    "literal_head",
    "path_guarded",
    "provenance",
]
