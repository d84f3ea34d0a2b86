"""S38's reading of `vllm serve TAG ... --model M` and `vllm serve --model M`, by the vLLM release the image runs (a
part of policies/vllm/flags_exist.py, apart for size): mandatory where the release read refuses the line, advice where
the release is not known or the args go to the image's own entrypoint."""

from __future__ import annotations

import posixpath
from typing import Optional

from components.engine_options import cli_options, tagged_release, version_key
from policies.framework import Unproven, unproven
from policies.reading.installs import installs_engine
from policies.reading.serving import engine_row
from policies.reading.vllm_args import VllmServer, command_tokens, program_word, serve_model_tag, vllm_command_line


def shown_image(image: object) -> str:
    """The image as messages show it: "(none)" where the container names none."""
    return image if isinstance(image, str) and image else "(none)"


# `vllm serve TAG ... --model M`, by release (read in the PyPI wheels; review 28 #6): 0.5.2 to 0.5.4 `serve()` has no
# check and sets args.model = args.model_tag, so the tag wins (0.5.3 vllm/scripts.py:24-28); from 0.5.5 to 0.8.2 the
# serve command raises ValueError when --model differs from its default (0.5.5 vllm/scripts.py:27-32, 0.6.6
# vllm/scripts.py:33-37, 0.8.2 vllm/entrypoints/cli/serve.py:23-28); 0.8.3 to 0.11.0 FlexibleArgumentParser.parse_args
# raises it on a bare `--model` token (0.8.3 vllm/utils.py:1244-1252, 0.11.0 vllm/utils/__init__.py:1856-1864) and
# `--model=M` passes, the tag then winning (serve.py: args.model = args.model_tag); from 0.11.1 parse_args moves
# --model's value to the front ("Move <model> to the front", 0.11.1 vllm/utils/argparse_utils.py:196-228, 0.33.0
# :324-353), so the tag becomes a second positional of `model_tag` (nargs="?") and argparse exits with "unrecognized
# arguments: TAG".
_MOVES_MODEL = (0, 11, 1)
_PARSE_REFUSES = (0, 8, 3)
_CMD_REFUSES_UP_TO = (0, 8, 2)
_CMD_REFUSES_FROM = (0, 5, 5)
_SERVE_FROM = (0, 5, 2)


def tag_regime(server: VllmServer) -> tuple[Optional[str], str]:
    """How the image's vLLM treats a positional tag with --model: "unrecognized", "refused", "tag-wins", or None
    when the image names no release read (or the container installs vLLM itself, or the release has no `serve`);
    and the release."""
    row = engine_row("vllm")
    image = shown_image(server.container.get("image"))
    if row is None or row.options is None or installs_engine(command_tokens(server.container)[0], "vllm"):
        return None, ""
    release = tagged_release(image, row.options.images)
    table = cli_options(row.options.file)
    if release is None or version_key(release) > version_key(table.releases[-1]):
        return None, ""
    line = vllm_command_line(server.container) or []
    key = version_key(release)
    if key >= _MOVES_MODEL:
        return "unrecognized", release
    if key >= _PARSE_REFUSES:
        return ("refused" if "--model" in line else "tag-wins"), release
    if key >= _CMD_REFUSES_FROM:
        return "refused", release
    return ("tag-wins" if key >= _SERVE_FROM else None), release


def serve_written(container: dict) -> bool:
    """True when the command line itself runs ``vllm serve`` (not args alone to the image's own entrypoint)."""
    argv = command_tokens(container)[0]
    return any(posixpath.basename(t) == "vllm" and argv[i + 1 : i + 2] == ["serve"] for i, t in enumerate(argv))


def model_tag_finding(server: VllmServer) -> Optional[str]:
    """Args alone to the image's entrypoint are advice: the vllm/vllm-openai image's ENTRYPOINT was
    ``python3 -m vllm.entrypoints.openai.api_server`` for years (vllm-project/vllm#22072, 2025-08: `serve` as args is
    "unrecognized" by api_server.py; #32292, 2026-01: a positional model given to the image is ignored) and is
    ``vllm serve`` in recent images (serving_engines.toml), and which release changed it was not read here; the
    api_server parser ignores a positional model_tag."""
    found = _model_tag_message(server)
    if found is None or isinstance(found, Unproven) or serve_written(server.container):
        return found
    return unproven(
        f"{found} (where the image's entrypoint is `vllm serve`; an older image's python -m "
        "vllm.entrypoints.openai.api_server ignores the positional argument)"
    )


def _model_tag_message(server: VllmServer) -> Optional[str]:
    """``vllm serve TAG ... --model M``: what happens depends on the release (see _MOVES_MODEL above): mandatory where
    the image's release is read and refuses the line; advice where the release is not known. A tag that is an engine's
    own module or command word (``vllm serve vllm.entrypoints.openai.api_server``) is no model, so the line fails at
    every release. (G46 container-can-start leaves this case to S38: policies/k8s_generic/container_can_start.py.)"""
    tag = serve_model_tag(server.container)
    model = server.args.get("model")
    image = shown_image(server.container.get("image"))
    if tag is None:
        # `vllm serve --model M` alone: refused before 0.11.1 (a bare --model token, or any --model up to 0.8.0).
        if not model or not serve_written(server.container) or tag_regime(server)[0] != "refused":
            return None
        release = tag_regime(server)[1]
        why = (
            "its `vllm serve` refuses --model (ServeSubcommand.cmd ValueError, 0.8.2 vllm/entrypoints/cli/serve.py:23-28; "
            "up to 0.8.0 argparse exits first: 'the following arguments are required: model_tag', 0.8.0 "
            "vllm/entrypoints/cli/serve.py:45-47)"
            if version_key(release) <= _CMD_REFUSES_UP_TO
            else "FlexibleArgumentParser.parse_args raises ValueError 'With `vllm serve`, you should provide the model "
            "as a positional argument ...' on a bare --model (0.8.3 vllm/utils.py:1244-1252, to 0.11.0)"
        )
        return (
            f"vllm serve ... --model {model}: in vLLM {release} (image {image}) {why}, so the server never starts; "
            f"write `vllm serve {model}` (from 0.11.1 --model is moved to the front and accepted)"
        )
    regime, release = tag_regime(server) if model else (None, "")
    fix = "name the model once (`vllm serve MODEL`)"
    if regime == "unrecognized":
        return (
            f"vllm serve {tag} ... --model {model}: vLLM {release} (image {image}) moves --model's value to the front of "
            f"the line (vllm/utils/argparse_utils.py FlexibleArgumentParser.parse_args, from 0.11.1), so {tag} becomes a "
            f"second positional argument and argparse exits with 'unrecognized arguments: {tag}' before serving; {fix}"
        )
    if regime == "refused":
        return (
            f"vllm serve {tag} ... --model {model}: vLLM {release} (image {image}) refuses --model with `vllm serve` "
            "(ValueError 'With `vllm serve`, you should provide the model as a positional argument ...', raised by "
            f"FlexibleArgumentParser.parse_args or ServeSubcommand.cmd before 0.11.1), so the server never starts; {fix}"
        )
    if program_word(tag):
        given = f" (with --model {model}, vLLM 0.11.1 and later exit with 'unrecognized arguments: {tag}')" if model else ""
        return (
            f"vllm serve {tag}: the positional argument is vLLM's model tag (vllm/entrypoints/cli/serve.py: args.model = "
            f"args.model_tag), and {tag} is a program to run, not a model, so vLLM looks up a model of that name and exits "
            f"before serving{given}; drop it and name the model once (`vllm serve MODEL` or --model)"
        )
    if regime == "tag-wins" and model != tag:
        return unproven(
            f"vllm serve {tag} ... --model={model}: in vLLM {release} (image {image}) the positional model tag wins over "
            f"--model= (vllm/entrypoints/cli/serve.py: args.model = args.model_tag), so the server loads {tag}, not "
            f"{model}; {fix}"
        )
    if regime is None and model:
        return unproven(
            f"vllm serve {tag} ... --model {model}: image {image} names no vLLM release read; from 0.11.1 vLLM's parser "
            f"moves --model's value to the front and exits with 'unrecognized arguments: {tag}', and earlier releases "
            f"refuse --model with `vllm serve` (ValueError) or, given --model=, serve the tag; {fix}"
        )
    return None
