"""Ray Serve run by a container itself, outside KubeRay: the command line or Python program that deploys a Serve
application in the pod (policies/reading/serving.py counts such a container as a model server of engine ``ray``)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

from policies.reading.inline_python import python_texts
from policies.reading.vllm_args import command_tokens, is_shell_operator

# Ray Serve's CLI (ray-project/ray python/ray/serve/scripts.py at 003ac80274ff, the code index's stored version):
# `serve run` deploys the application and, with --blocking (the default), loops until interrupted while the HTTP
# proxy serves it (DEFAULT_HTTP_PORT 8000); --non-blocking returns. `serve deploy` sends a config to a running cluster
# and returns, `serve start` starts Serve detached on it: with `ray start --head` in the same script, the pod is its
# own one-node cluster serving what was deployed. Words that may begin a command of the script before the program.
_COMMAND_PREFIX = frozenset({"exec", "nohup", "env"})


# A Python program that deploys a Serve application in its own process (`serve.run(app.bind())`, Ray's Python API).
_SERVE_RUN_CALL = re.compile(r"\bserve\.run\s*\(")


def starts_ray_serve(container: Mapping, podspec: Mapping | None = None) -> bool:
    """True when the container's command line runs a Ray Serve application itself, outside KubeRay: `serve run ...`, or
    `ray start --head` followed by `serve deploy` / `serve start` in the same script (a Deployment or StatefulSet
    that is its own one-node Ray cluster, serving the models it deploys), or a Python program the files hold (`python
    -c`, a heredoc, a mounted ConfigMap script: policies/reading/inline_python.py) that calls `serve.run(...)`: spent set
    71 Sanmay-Das/LLM-Serving-Benchmark ray-serve-deployment.yaml (rayproject/ray, `python -c` with serve.start and
    serve.run of a TinyLlama pipeline, then a sleep loop; labelled G4)."""
    if podspec is not None and any(_SERVE_RUN_CALL.search(t.code) for t in python_texts(podspec, container)):
        return True
    argv = command_tokens(container)[0]
    head = serve = False
    for i, token in enumerate(argv[:-1]):
        first = i == 0 or is_shell_operator(argv[i - 1]) or argv[i - 1] in _COMMAND_PREFIX
        if not first:
            continue
        word, following = posixpath.basename(token), argv[i + 1]
        if word == "serve" and following == "run" and "--non-blocking" not in argv[i + 2 :]:
            return True
        if word == "serve" and following in ("deploy", "start"):
            serve = True
        elif word == "ray" and following == "start" and "--head" in argv[i + 2 :]:
            head = True
    return head and serve
