"""Ollama models pulled by tag when a pod starts (S17, advice).

``ollama pull MODEL[:TAG]`` and ``ollama run MODEL[:TAG]`` fetch the model from the Ollama registry by its name and
tag (https://github.com/ollama/ollama/blob/main/docs/api.md "Pull a Model": the name is ``model:tag``, tag ``latest``
when left out); a tag is a name the publisher can point at new weights, so pods started at different times can serve
different models. Read where a pod runs it at start: a container's command or args (a shell script too), its
``lifecycle.postStart`` exec hook, an init container, and a script of a ConfigMap of the files read that the container
mounts and runs (set 11: Pranav5255/llm-on-kube-cluster-local k8s/base/ollama.yaml at
43dc830704649fe73e9e7e9ddfa3a8e7dd7cb164, ``ollama pull "$MODEL"`` with ``MODEL="${OLLAMA_MODEL:-phi3:mini}"`` in a
mounted entrypoint.sh). Advice: the manifest shows the tag, not whether the publisher moves it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from policies.framework import unproven
from policies.kube import as_dict, as_list, container_label, get, pod_specs
from policies.reading.engines import config_maps, env_values
from policies.reading.serving import container_argv

# A pull the pod makes itself: the CLI, or the server's API (curl/wget/python against /api/pull or /api/create); read by
# S57 ollama-model-store-lasts and G6's fresh-claim form (policies/reading/fresh_store.py).
PULLS = re.compile(r"\bollama(?:[ \t]|\\\n)+(?:pull|run|create)\b|/api/(?:pull|create)\b")

# Blanks within one command line only (a backslash-newline continues it): a newline ends the command, so
# "ollama pull\nhf download" names no model (cold review 29, finding 7 read "hf" as the model).
_PULL = re.compile(r"""\bollama(?:[ \t]|\\\n)+(?:pull|run)(?:[ \t]|\\\n)+["']?([^\s"';&|)]+)""")
_VAR = re.compile(r"^\$\{?([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}?$")


def _scripts(container: Mapping, volumes: dict[str, str]) -> list[str]:
    """The shell text a container runs at start: command and args, its postStart exec hook, and the data of each
    mounted ConfigMap (of the files read) whose mount path the command names."""
    argv = " ".join(container_argv(container))
    hook = " ".join(str(t) for t in as_list(get(container, "lifecycle", "postStart", "exec", "command")))
    texts = [argv, hook]
    maps = config_maps(container) if volumes else {}  # no ConfigMap volume named: no map is read (nor the cluster view)
    for mount in as_list(container.get("volumeMounts")):
        mount = as_dict(mount)
        path, name = mount.get("mountPath"), volumes.get(str(mount.get("name")))
        if isinstance(path, str) and path and name is not None and path in argv:
            texts.extend(maps.get(name, {}).values() if isinstance(name, str) else ())
    return texts


def _resolve(word: str, env: dict[str, str], text: str, depth: int = 0) -> str | None:
    """A model word with a variable (``$MODEL``, ``${OLLAMA_MODEL:-phi3:mini}``) resolved from the container's env,
    an assignment in the script, or the default; None when unknown."""
    found = _VAR.match(word)
    if found is None:
        return word
    name, default = found.group(1), found.group(2)
    if depth > 2:
        return None
    if name in env:
        return env[name]
    assigned = re.search(rf"""(?m)^\s*(?:export\s+)?{name}=["']?([^"'\s]+)""", text)
    if assigned:
        return _resolve(assigned.group(1), env, text, depth + 1)
    return default or None


def _models(word: str, env: dict[str, str], text: str) -> list[str]:
    """The models a pull's word names: ``_resolve``'s one, or, for the variable of a shell ``for NAME in WORDS``
    loop of the script, each model the loop's words give (a variable among them resolved as ``_resolve`` does and
    split on blanks). Set 18: yuxiaojian/ollama-k8s ollama-gpu.yaml@7915996, postStart ``for model in
    $PRELOAD_MODELS; do ollama run $model ""; done`` with PRELOAD_MODELS=llama3.1."""
    found = _VAR.match(word)
    if found is not None and found.group(1) not in env:
        loop = re.search(rf"\bfor\s+{found.group(1)}\s+in\s+([^;\n]*?)\s*;\s*do\b", text)
        if loop is not None:
            out = []
            for item in loop.group(1).split():
                value = _resolve(item.strip("\"'"), env, text)
                out += value.split() if value else []
            return out
    model = _resolve(word, env, text)
    return [model] if model else []


def ollama_tag_pulls(resource: object) -> list:
    """Advice for each Ollama model a pod pulls by tag at start (module docstring)."""
    messages = []
    for path, podspec in pod_specs(resource):
        volumes = {
            str(v.get("name")): str(get(v, "configMap", "name"))
            for v in (as_dict(v) for v in as_list(podspec.get("volumes")))
            if get(v, "configMap", "name")
        }
        for key in ("initContainers", "containers"):
            for container in (c for c in as_list(podspec.get(key)) if isinstance(c, dict)):
                env = env_values(container)
                seen: set[str] = set()
                for text in _scripts(container, volumes):
                    for model in (m for match in _PULL.finditer(text) for m in _models(match.group(1), env, text)):
                        if "@sha256:" in model or model in seen:
                            continue
                        seen.add(model)
                        messages.append(
                            unproven(
                                f"{container_label(path, container)}: pulls the Ollama model {model} by its tag at "
                                "start, a name its publisher can point at new weights, so pods started at different "
                                "times can serve different models; bake the model into the image or a volume filled "
                                "once"
                            )
                        )
    return messages


def pulls_while_serving(container: Mapping, podspec: Mapping) -> list[str]:
    """The models a serving container pulls in its own command or postStart hook (beside ``ollama serve``, so the
    server answers before the pull ends); an init container's pull ends before the server starts and is not listed."""
    volumes = {
        str(v.get("name")): str(get(v, "configMap", "name"))
        for v in (as_dict(v) for v in as_list(podspec.get("volumes")))
        if get(v, "configMap", "name")
    }
    env = env_values(container)
    found: list[str] = []
    for text in _scripts(container, volumes):
        for match in _PULL.finditer(text):
            model = _resolve(match.group(1), env, text) or match.group(1)
            if model not in found:
                found.append(model)
    return found


def container_pulls(podspec: Mapping) -> list[tuple[dict, str]]:
    """(container, model) for each Ollama model a container of the pod pulls or runs at start (init containers and
    postStart hooks too), variables resolved as ``pod_pulls`` resolves them; a model left a variable is not listed."""
    volumes = {
        str(v.get("name")): str(get(v, "configMap", "name"))
        for v in (as_dict(v) for v in as_list(podspec.get("volumes")))
        if get(v, "configMap", "name")
    }
    found: list[tuple[dict, str]] = []
    for key in ("initContainers", "containers"):
        for container in (c for c in as_list(podspec.get(key)) if isinstance(c, dict)):
            env = env_values(container)
            for text in _scripts(container, volumes):
                for match in _PULL.finditer(text):
                    for model in _models(match.group(1), env, text):
                        if "$" not in model and (container, model) not in found:
                            found.append((container, model))
    return found


def pod_pulls(podspec: Mapping) -> list[str]:
    """Every Ollama model the pod pulls or runs at start, in any container (init containers and postStart hooks too),
    with variables resolved where the manifest says (module docstring), a ``for NAME in WORDS`` loop's variable as each
    model its words give (``_models``; spent set 86 Varsilias/zero-downtime k8s/ollama.yaml: ``for m in
    ${OLLAMA_PULL_MODELS}; do ollama pull "$m"``); a model left a variable is not listed."""
    volumes = {
        str(v.get("name")): str(get(v, "configMap", "name"))
        for v in (as_dict(v) for v in as_list(podspec.get("volumes")))
        if get(v, "configMap", "name")
    }
    found: list[str] = []
    for key in ("initContainers", "containers"):
        for container in (c for c in as_list(podspec.get(key)) if isinstance(c, dict)):
            env = env_values(container)
            for text in _scripts(container, volumes):
                for model in (m for match in _PULL.finditer(text) for m in _models(match.group(1), env, text)):
                    if "$" not in model and model not in found:
                        found.append(model)
    return found


def pod_scripts(podspec: Mapping) -> list[str]:
    """Every shell text the pod runs at start, in any container (init containers too): command and args, postStart
    exec hooks and the mounted ConfigMap scripts they name (``_scripts``), variables left as written."""
    volumes = {
        str(v.get("name")): str(get(v, "configMap", "name"))
        for v in (as_dict(v) for v in as_list(podspec.get("volumes")))
        if get(v, "configMap", "name")
    }
    texts: list[str] = []
    for key in ("initContainers", "containers"):
        for container in (c for c in as_list(podspec.get(key)) if isinstance(c, dict)):
            texts.extend(_scripts(container, volumes))
    return texts


_CREATE = re.compile(r"""\bollama(?:[ \t]|\\\n)+create(?:[ \t]|\\\n)+["']?([^\s"';&|)]+)""")
# The model a call of the server's pull/create API names in its JSON body ("name" or "model"), quotes escaped or not.
_API_NAME = re.compile(r"""\\?["'](?:name|model)\\?["']\s*:\s*\\?["']([^"'\\\s]+)""")
_LIBRARY = ("registry.ollama.ai/library/", "ollama.com/library/", "library/")


def model_key(model: str) -> str:
    """An Ollama model reference as the server stores it: the library namespace dropped, lower case, tag ``latest``
    when none is written (ollama/ollama v0.32.15 types/model/name.go:39-42: default namespace library, tag latest), so ``llama3`` and ``library/llama3:latest`` are one model."""
    model = model.strip().strip("\"'").lower()
    for prefix in _LIBRARY:
        if model.startswith(prefix):
            model = model[len(prefix) :]
            break
    return model if ":" in model.rpartition("/")[2] else f"{model}:latest"


def api_pulls(podspec: Mapping) -> list[str]:
    """The models a pod pulls through the server's API (``curl -X POST .../api/pull -d '{"name": "phi3:mini"}'``), as
    their JSON bodies name them, in any container's script; a script that also creates models is not read."""
    found: list[str] = []
    for text in pod_scripts(podspec):
        if "/api/pull" not in text or "/api/create" in text:
            continue
        for model in _API_NAME.findall(text):
            if "$" not in model and "{" not in model and model not in found:
                found.append(model)
    return found


def pod_pull_names(podspec: Mapping) -> tuple[list[str], bool]:
    """(models, known): every Ollama model the pod pulls, runs or creates at start (``model_key`` form), and False
    when a pull the pod makes names a model the files do not resolve (a variable, an API call whose body is not read)."""
    found: list[str] = []
    known = True
    volumes = {
        str(v.get("name")): str(get(v, "configMap", "name"))
        for v in (as_dict(v) for v in as_list(podspec.get("volumes")))
        if get(v, "configMap", "name")
    }
    for key in ("initContainers", "containers"):
        for container in (c for c in as_list(podspec.get(key)) if isinstance(c, dict)):
            env = env_values(container)
            for text in _scripts(container, volumes):
                if not PULLS.search(text):
                    continue
                words = [m for match in _PULL.finditer(text) for m in (_models(match.group(1), env, text) or ["$"])]
                words += [_resolve(match.group(1), env, text) or "$" for match in _CREATE.finditer(text)]
                if "/api/" in text:
                    api = _API_NAME.findall(text)
                    words += api or ["$"]
                if not words:
                    known = False
                for word in words:
                    if "$" in word or "{" in word:
                        known = False
                    elif model_key(word) not in found:
                        found.append(model_key(word))
    return found, known
