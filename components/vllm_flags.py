"""Which vLLM flags and environment variables exist in which release.

Every flag and environment variable the builders render is looked up here against the release
the image tag names, so an older image never gets an argument its parser rejects (argparse
exits on an unknown flag) or an environment variable it silently ignores.

How the table was made: the wheel of each release below was downloaded from PyPI
(``pip download vllm==X --no-deps``) and its argument parser read, not run: the string literals
``--...`` and the dataclass fields of ``EngineArgs``/``AsyncEngineArgs`` (turned into flags the
way ``add_cli_args`` does) in ``vllm/engine/arg_utils.py``, of ``FrontendArgs``/``BaseFrontendArgs``
in ``vllm/entrypoints/openai/cli_args.py`` (up to 0.28), ``vllm/entrypoints/launchers/cli_args.py``
(0.29-0.32) and ``vllm/entrypoints/common/cli_args.py`` (0.33), plus ``vllm/entrypoints/cli/serve.py``;
and the keys of ``environment_variables`` in ``vllm/envs.py``. Releases read: 0.8.5, 0.9.0, 0.9.1,
0.9.2, 0.10.0, 0.10.1, 0.10.2, 0.11.0, 0.11.2, 0.12.0 ... 0.33.0 (every minor release, plus 0.15.1
and 0.17.1). A first release below is the first of those that has the name.

Behaviour that decides an alternative was read in the same wheels: before ``--shutdown-timeout``
the server cancels itself on SIGTERM (0.12.0 ``entrypoints/launcher.py`` ``signal_handler``);
with it, 0 aborts in-flight requests and > 0 waits for them (0.33.0 ``config/vllm.py``
``shutdown_timeout``). Before ``VLLM_HTTP_TIMEOUT_KEEP_ALIVE`` the keep-alive is a constant
``TIMEOUT_KEEP_ALIVE = 5`` (0.8.5 ``entrypoints/openai/api_server.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from .images import vllm_release

OLDEST_READ = "0.8.5"
NEWEST_READ = "0.33.0"

# Names whose first release lies inside the range read; absent names here are in every release read.
FIRST_RELEASE: dict[str, str] = {
    "--max-num-queued-reqs": "0.29.0",
    "--shutdown-timeout": "0.18.0",
    "--disable-access-log-for-endpoints": "0.16.0",
    "VLLM_HTTP_TIMEOUT_KEEP_ALIVE": "0.9.1",
    "VLLM_ENGINE_READY_TIMEOUT_S": "0.14.0",
}
# Names present in every release read (0.8.5 through 0.33.0). tests/components/test_vllm_flags.py holds both lists to
# components/vllm_cli_flags.json (every option of every wheel): --swap-space, once listed here, is in no release after
# 0.17.1 (its last add_argument is 0.17.0 vllm/engine/arg_utils.py:951).
IN_EVERY_RELEASE: frozenset[str] = frozenset(
    {
        "--revision",
        "--served-model-name",
        "--port",
        "--host",
        "--model",
        "--tensor-parallel-size",
        "--pipeline-parallel-size",
        "--max-model-len",
        "--gpu-memory-utilization",
        "--max-num-seqs",
        "--max-num-batched-tokens",
        "--block-size",
        "--dtype",
        "--kv-cache-dtype",
        "--quantization",
        "--enforce-eager",
        "--load-format",
        "--model-loader-extra-config",
        "--download-dir",
        "--trust-remote-code",
        "--enable-prefix-caching",
        "--disable-log-stats",
        "--disable-uvicorn-access-log",
        "--uvicorn-log-level",
        "VLLM_KEEP_ALIVE_ON_ENGINE_DEATH",
        # Read in the 0.8.5 wheel (engine/arg_utils.py add_cli_args) and the 0.33.0 one (config/parallel.py
        # DistributedExecutorBackend = ray|mp|uni|external_launcher) for the KubeRay head (issue 10).
        "--distributed-executor-backend",
        # The API key's variable (issue 19): read in the 0.8.5 wheel (envs.py:278; entrypoints/openai/api_server.py:843
        # adds the check when it is set, for paths under /v1) and the 0.33.0 one (envs.py:829; serve/middleware/register.py:33).
        "VLLM_API_KEY",
    }
)


def parse_version(text: str) -> tuple[int, ...]:
    """ "0.12" -> (0, 12, 0); "0.10.1.1" -> (0, 10, 1, 1)."""
    parts = [int(p) for p in re.findall(r"\d+", text)]
    while len(parts) < 3:
        parts.append(0)
    return tuple(parts)


@dataclass(frozen=True)
class Release:
    """The vLLM release whose flags apply to an image, and how it was decided."""

    version: str
    # The tag named exactly this release (False: the tag names none, or one newer than the table).
    exact: bool
    note: str

    def has(self, name: str) -> bool:
        """True when this release's parser (or envs.py) knows ``name``."""
        return has(name, self.version)

    def __str__(self) -> str:
        return self.version


class UnsupportedRelease(ValueError):
    """An image whose vLLM release is older than any release this table was read from."""


def release_of(image: str) -> Release:
    """The release whose flags an image gets.

    A tag that names no release (``latest``, a digest, a private build) gets the newest release
    read, as does a release newer than the table (vLLM keeps old flags for deprecation cycles).
    Raises UnsupportedRelease for releases older than 0.8.5.
    """
    text = vllm_release(image)
    if text is None:
        return Release(NEWEST_READ, False, f"the tag names no vLLM release; vLLM {NEWEST_READ}'s flags assumed")
    version = parse_version(text)
    if version < parse_version(OLDEST_READ):
        raise UnsupportedRelease(
            f"names vLLM {text}, older than {OLDEST_READ}, the oldest release whose argument parser the flag table "
            f"was read from; use vllm/vllm-openai:v{OLDEST_READ} or newer"
        )
    if version > parse_version(NEWEST_READ):
        return Release(NEWEST_READ, False, f"vLLM {text} is newer than the flag table; vLLM {NEWEST_READ}'s flags assumed")
    return Release(text if text.count(".") >= 2 else f"{text}.0", True, f"vLLM {text} (from the image tag)")


def first_release(name: str) -> str:
    """The first release read that has ``name`` (a flag ``--x`` or an environment variable)."""
    if name in FIRST_RELEASE:
        return FIRST_RELEASE[name]
    if name in IN_EVERY_RELEASE:
        return OLDEST_READ
    raise KeyError(f"{name} is not in the vLLM flag table (components/vllm_flags.py); add it from the wheels")


def has(name: str, version: str) -> bool:
    """True when vLLM ``version`` has the flag or environment variable ``name``.

    Callers (the builders, issue 7's model-source flags) ask before they render; a name outside
    the table raises KeyError, so nothing is rendered unchecked.
    """
    return parse_version(version) >= parse_version(first_release(name))


def missing_rule(name: str, release: Release) -> str:
    """The config error for a setting the release lacks, naming the flag and its first release."""
    return f"vLLM {release.version} has no {name} (first in vLLM {first_release(name)}); use an image of that release or newer"


def batch_defaults(memory_gib: float, gpu_name: str, version: str) -> tuple[int, int, str]:
    """vLLM's OpenAI-server defaults (max_num_batched_tokens, max_num_seqs) on a GPU in ``version``,
    and the tier's description.

    engine/arg_utils.py ``_set_default_max_num_seqs_and_batched_tokens_args`` / ``get_batch_defaults``:
    >= 160 GiB 16384/1024 from 0.28.0; >= 70 GiB 8192/1024, A100 excluded from 0.9.0 (PR #17885);
    otherwise 2048/256 (read in the wheels listed in the module docstring).
    """
    v = parse_version(version)
    if memory_gib >= 160 and v >= (0, 28, 0):
        return 16384, 1024, ">= 160 GiB tier"
    big = memory_gib >= 70 and ("A100" not in gpu_name.upper() or v < (0, 9, 0))
    if big:
        return 8192, 1024, ">= 70 GiB tier"
    return 2048, 256, "small-GPU tier"


def optional_flag(name: str, release: Release) -> Optional[str]:
    """None when the release has ``name``; else why it is left out (for derived settings)."""
    if release.has(name):
        return None
    return f"vLLM {release.version} has no {name} (first in {first_release(name)}), so it is not rendered"
