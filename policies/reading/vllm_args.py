"""Find vLLM servers in pod specs and read their engine arguments.

vLLM's CLI (`vllm serve MODEL [options]`, or the legacy `python -m
vllm.entrypoints.openai.api_server`, https://docs.vllm.ai/en/latest/cli/serve.html) accepts `--flag value`, `--flag=value`, bare
booleans, and underscores for dashes. Pods pass it in three shapes: `command` + `args` lists,
args alone (the vllm/vllm-openai image's entrypoint is `vllm serve`), or a shell script
(`["/bin/sh", "-c", "... vllm serve m --tensor-parallel-size 2"]`).
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Optional, TypeVar

from components.engine_options import cli_options, tagged_release
from components.serving_engines import ENGINES, engine_named
from policies.framework import UNKNOWN
from policies.kube import as_int, container_label, containers, get, is_ray, memoized, model_container, name_of, pod_specs
from policies.reading.config_map_data import config_maps, names_config_maps
from policies.reading.engine_flags import flag_set_engine, named_server, runs_engine_image
from policies.reading.placeholders import placeholder_in
from policies.reading.shell_words import SHELL_OPERATORS as _SHELL_OPERATORS
from policies.reading.shell_words import shell_script, split_shell
from policies.reading.vllm_config_file import with_config_file

_T = TypeVar("_T")

# vLLM's short aliases (engine/arg_utils.py) mapped to the long names.
_ALIASES = {"tp": "tensor-parallel-size", "pp": "pipeline-parallel-size", "dp": "data-parallel-size", "q": "quantization"}
# Flags that never take a value: the token after one is positional, not its value.
_BOOLEAN_FLAGS = frozenset(
    {
        "trust-remote-code",
        "enforce-eager",
        "enable-prefix-caching",
        "no-enable-prefix-caching",
        "enable-chunked-prefill",
        "no-enable-chunked-prefill",
        "disable-log-stats",
        "disable-log-requests",
        "enable-log-requests",
        "disable-uvicorn-access-log",
        "enable-auto-tool-choice",
        "enable-lora",
        "enable-expert-parallel",
        "enable-sleep-mode",
        "enable-server-load-tracking",
        "disable-custom-all-reduce",
        "disable-sliding-window",
        "skip-tokenizer-init",
        "headless",
        "enable-prompt-tokens-details",
    }
)


def _tokens(values: Any) -> list[str]:
    """String tokens of a command/args list; numbers (the engine may send 2.0) as text; an unknown value (a Pulumi
    output, an unrendered placeholder: policies/reading/placeholders.py) as ``${UNKNOWN}``, which set_at_run_time
    reads as a value the manifest does not give, so the flag before it keeps a value no rule judges."""
    tokens = []
    for value in values if isinstance(values, list) else []:
        if value is UNKNOWN:
            tokens.append("${UNKNOWN}")
        elif isinstance(value, str):
            tokens.append(value)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            tokens.append(str(int(value)) if float(value).is_integer() else str(value))
    return tokens


_ENV_REF = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)")


# A reference the kubelet or a shell expands at run time: $(VAR) (core/v1 Container.args), ${VAR} or $VAR in a script.
_RUN_TIME_REF = re.compile(r"\$(\([A-Za-z_][A-Za-z0-9_]*\)|\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*)")


def set_at_run_time(value: object) -> bool:
    """True for a flag value that still holds a variable reference after ``expand_env`` (a ConfigMap key, the Downward
    API, a variable an operator injects such as ``$(LWS_GROUP_SIZE)``, or a shell variable): the manifest does not give
    the value, so no check may call it malformed or judge it."""
    return isinstance(value, str) and (_RUN_TIME_REF.search(value) is not None or placeholder_in(value) is not None)


def expand_env(tokens: list[str], container: Mapping) -> list[str]:
    """Expand `$(VAR)` in command/args from the container's literal env values, as the kubelet
    does (core/v1 Container.args: "Variable references $(VAR_NAME) are expanded using the
    container's environment"); references to unknown or secret-backed variables stay as written."""
    if not any("$(" in t for t in tokens):
        return tokens  # nothing to expand (most command lines): the env list is not read
    env = _literal_env(container)
    if not env:
        return tokens
    return [_ENV_REF.sub(lambda m: env.get(m.group(1), m.group(0)), t) for t in tokens]


_SHELL_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")


def expand_shell_vars(tokens: list[str], container: Mapping) -> list[str]:
    """Expand ``${VAR}`` and ``$VAR`` in the split words of a ``sh -c`` script from the container's literal env values:
    the shell the container runs sees that environment (set 39: schijioke-uche/vllm-on-redhat-openshift-for-watsonx-
    orchestrate CPU/.build-vllm-gpt-oss-20b-s390x/manifests/02-runtime.yaml@1011ee8 passes ``--model "${MODEL_ID}"`` with
    MODEL_ID a literal). A word that was only an expansion of an empty value is dropped, as an unquoted one is; unknown
    and secret-backed variables stay as written."""
    if not any("$" in t for t in tokens):
        return tokens
    env = _literal_env(container)
    if not env:
        return tokens
    out = []
    for token in tokens:
        expanded = _SHELL_REF.sub(lambda m: env.get(m.group(1) or m.group(2), m.group(0)), token)
        if expanded or not _SHELL_REF.fullmatch(token):
            out.append(expanded)
    return out


def _literal_env(container: Mapping) -> dict[str, str]:
    """The container's environment as far as the files give it: each ``envFrom`` ConfigMap of the objects checked
    (with its prefix), then ``env`` over it, literal values and ``configMapKeyRef``s (Kubernetes' order,
    https://kubernetes.io/docs/tasks/inject-data-application/define-environment-variable-container/). Fresh set 47:
    SecureCloudOps/llm-rag-infra-platform passes ``--model $(MODEL_NAME)`` with MODEL_NAME from the ConfigMap
    vllm-config. A Secret, or a ConfigMap outside the files, leaves the variable out (its reference stays as written)."""
    env: dict[str, str] = {}
    maps = config_maps(container) if names_config_maps(container) else {}
    sources = container.get("envFrom")
    for source in sources if isinstance(sources, list) else []:
        ref = source.get("configMapRef") if isinstance(source, Mapping) else None
        data = maps.get(name_of(ref))
        if data:
            prefix = source.get("prefix") if isinstance(source.get("prefix"), str) else ""
            env.update({f"{prefix}{k}": v for k, v in data.items()})
    items = container.get("env")
    for item in items if isinstance(items, list) else []:
        if not (type(item) is dict or isinstance(item, Mapping)) or not isinstance(item.get("name"), str):
            continue
        if isinstance(item.get("value"), str):
            env[item["name"]] = item["value"]
        else:
            ref = get(item, "valueFrom", "configMapKeyRef")
            value = maps.get(name_of(ref), {}).get(str(ref.get("key"))) if isinstance(ref, Mapping) else None
            if isinstance(value, str):
                env[item["name"]] = value
            else:
                env.pop(item["name"], None)  # a Secret or a field: the value is not in the files
    return env


def _invocation_start(argv: list[str]) -> int | None:
    """Index just after a command or module of vLLM's row of the engine table (`vllm serve`, `-m vllm.entrypoints...`,
    NVIDIA Dynamo's `-m dynamo.vllm`) in argv, else None."""
    row = engine_named("vllm")
    commands = row.commands if row else (("vllm", "serve"),)
    modules = row.modules if row else ("vllm.entrypoints",)
    for i, token in enumerate(argv):
        base = posixpath.basename(token)
        for words in commands:
            if base == words[0] and argv[i + 1 : i + len(words)] == list(words[1:]):
                return i + len(words)
        if token.startswith(modules):
            return i + 1
    return None


def runs_worker_module(container: Mapping) -> bool:
    """True when the container starts a module the engine table lists as a worker behind another program's frontend
    (``python3 -m dynamo.vllm``, any row's ``worker_modules``): it serves no HTTP of its own."""
    from components.serving_engines import ENGINES

    modules = tuple(m for e in ENGINES for m in e.worker_modules)
    argv = command_tokens(container)[0]
    return bool(modules) and any(t.startswith(modules) for i, t in enumerate(argv) if i and argv[i - 1] == "-m")


_VLLM_ROW = next(e for e in ENGINES if e.name == "vllm")

# Words of an image's name that say it imitates a server rather than being one (a stand-in, mock, fake, stub or
# simulator built to exercise manifests without a GPU; spent set 18: Thisish3/vllm-k8s-deploy-practice
# k8s/deployment-local.yaml@29b724c runs vllm-standin:local, its repository's app/ stand-in server, 128Mi, no GPU).
STAND_IN_WORDS = frozenset({"standin", "stand-in", "mock", "fake", "stub", "dummy", "simulator", "sim", "emulator"})


def is_stand_in_image(image: Any) -> bool:
    """True when the image's repository name carries a stand-in word (vllm-standin, vllm-mock, fake-vllm, ...)."""
    if not isinstance(image, str):
        return False
    last = image.split("@", 1)[0].rsplit("/", 1)[-1].split(":", 1)[0].lower()
    words = set(re.split(r"[-_.]", last)) | {last.replace("-", "").replace("_", "")}
    return bool(words & STAND_IN_WORDS) or any(last.endswith(w) or last.startswith(w) for w in ("standin", "stand-in"))


def image_runs_vllm(image: Any) -> bool:
    """True when the image's own entrypoint is a vLLM server: the engine table's vLLM row names it (its ``images``
    markers, vllm/vllm-openai, or its ``image_names``: a repository whose own name is vllm or starts with vllm- _ .,
    rocm/vllm-dev, myorg/vllm-cpu), and no word of its name says stand-in or mock, or another program (vllm-router:
    the table's other_program_words)."""
    if not isinstance(image, str) or is_stand_in_image(image):
        return False
    return runs_engine_image({"image": image}, _VLLM_ROW)


def is_vllm_container(container: Mapping) -> bool:
    """True when the container looks like vLLM: its command line runs `vllm serve` / `vllm.entrypoints` (directly or
    in a shell script), or its image is vLLM's (policies.reading.engine_flags.runs_engine_image on the table's vLLM
    row: a publisher's marker whatever the command, a repository named after vLLM only where no command replaces the
    entrypoint; vllm in the owner's name only, vllm-project/chat-api, is no vLLM: brief pods49)."""
    image = container.get("image")
    if isinstance(image, str) and not is_stand_in_image(image) and runs_engine_image(container, _VLLM_ROW):
        return True
    return vllm_command_line(container, image_entrypoint=False) is not None


# What the two readers below take from a container. Some twenty readers ask them of the same containers (~1,000 calls
# a corpus run for ~80 containers): each container's answer is kept for the evaluation (policies.kube.memoized), and
# used only while these fields are the very objects it was computed from.
_READ = ("command", "args", "env", "image", "resources")


def _per_container(container: Mapping, key: str, compute: Callable[[Mapping], _T]) -> _T:
    fields = tuple(container.get(name) for name in _READ) if type(container) is dict or isinstance(container, Mapping) else None
    if fields is None:
        return compute(container)
    read, value = memoized(container, key, lambda c: (fields, compute(c)))
    if read is fields or all(a is b for a, b in zip(read, fields)):
        return value
    return compute(container)


def vllm_command_line(container: Mapping, *, image_entrypoint: bool = True) -> list[str] | None:
    """The tokens after the vLLM invocation (model and options), or None if this container
    does not visibly start a vLLM server.

    With no `command`, the image's entrypoint runs; `image_entrypoint` says whether to trust
    a vLLM image's entrypoint to be `vllm serve` (false under KubeRay, which replaces the
    command with `ray start`). In a shell script the command line ends at the first shell
    operator (`;`, `&&`, `|`, redirections).
    """
    key = "vllm_command_line" if image_entrypoint else "vllm_command_line:no-entrypoint"
    line = _per_container(container, key, lambda c: _vllm_command_line(c, image_entrypoint))
    return None if line is None else list(line)


def _vllm_command_line(container: Mapping, image_entrypoint: bool) -> list[str] | None:
    command = expand_env(_tokens(container.get("command")), container)
    args = expand_env(_tokens(container.get("args")), container)
    argv = command + args
    script = shell_script(argv)
    if script is not None:
        argv = expand_shell_vars(split_shell(script), container)
    start = _invocation_start(argv)
    if start is None:
        if script is not None or command or not image_entrypoint:
            return None
        if not image_runs_vllm(container.get("image")):
            # Args alone to an image the table does not name: vLLM when they carry one of its flag sets.
            # Or a container named after vLLM, on its port with a GPU, under an image no row names (named_server).
            engine = flag_set_engine(container, parse_vllm_args(argv))
            if (engine is None or engine.name != "vllm") and not named_server(container, _VLLM_ROW):
                return None
        start = 0
    line = []
    for token in argv[start:]:
        if script is not None and token and all(ch in _SHELL_OPERATORS for ch in token):
            break
        line.append(token)
    return line


def command_tokens(container: Mapping) -> tuple[list[str], bool]:
    """A container's command line as tokens (command then args, $(VAR) expanded), and whether they are the
    tokens of a shell script (`sh -c SCRIPT`, split as the shell would; a command ends at `;`, `&&`, `|`)."""
    argv, script = _per_container(container, "command_tokens", _command_tokens)
    return list(argv), script


def _command_tokens(container: Mapping) -> tuple[list[str], bool]:
    argv = expand_env(_tokens(container.get("command")), container) + expand_env(_tokens(container.get("args")), container)
    script = shell_script(argv)
    if script is not None:
        return expand_shell_vars(split_shell(script), container), True
    return argv, False


def is_shell_operator(token: str) -> bool:
    """True for a token of a split shell script that ends a command (`;`, `&&`, `|`, a redirection)."""
    return bool(token) and all(ch in _SHELL_OPERATORS for ch in token)


def _flag(token: str) -> tuple[str, str | None] | None:
    """(long name, inline value) of an option token, or None for a positional token."""
    if token.startswith("--") and len(token) > 2:
        body = token[2:]
    elif token.startswith("-") and len(token) > 1 and not token[1].isdigit():
        body = token[1:]
    else:
        return None
    name, eq, value = body.partition("=")
    # Underscores become dashes up to the first dot only: ``--kv_transfer_config.kv_connector`` keeps its key
    # (vLLM 0.33.0 vllm/utils/argparse_utils.py:377-393, the pattern "everything between the first -- and the first .";
    # the file of the PyPI wheel vllm-0.33.0-cp38-abi3-manylinux_2_28_x86_64.whl, RECORD sha256
    # 8K0sXmusIeO3NpvMku_MpiSv00XjGdn7Nn2O--cvv3E).
    head, dot, keys = name.partition(".")
    name = head.replace("_", "-") + dot + keys
    return _ALIASES.get(name, name), (value if eq else None)


# vLLM's human-readable integers (vllm 0.33.0 wheel vllm/utils/argparse_utils.py:30-74 human_readable_int): a number
# with a decimal suffix k/m/g/t (10**3..10**12, decimals allowed: 25.6k is 25600) or a binary suffix K/M/G/T
# (2**10..2**40, a decimal refused), else a plain integer as Python's int() reads it, surrounding spaces stripped.
_SUFFIXED_INT = re.compile(r"(\d+(?:\.\d+)?)([kKmMgGtT])")
_SUFFIX_POWER = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def _suffixed_int(text: str) -> int | None:
    """``text`` as vLLM's human_readable_int reads it, or None where it refuses it (see _SUFFIXED_INT)."""
    text = text.strip()
    match = _SUFFIXED_INT.fullmatch(text)
    try:
        if match is None:
            return int(text)
        number, suffix = match.groups()
        if suffix.islower():
            return int(float(number) * _SUFFIX_POWER[suffix])
        return int(number) * _SUFFIX_POWER[suffix] if "." not in number else None
    except (ValueError, OverflowError):
        return None


def _json_value(text: str) -> object:
    """A dotted option's value as vLLM reads it: JSON when it parses, else a human-readable integer (``80g``, ``1K``),
    else the text (vllm 0.33.0 wheel vllm/utils/argparse_utils.py:476-485)."""
    try:
        return json.loads(text)
    except ValueError:
        number = _suffixed_int(text)
        return text if number is None else number


def _merge_into(target: dict, keys: list[str], value: object) -> None:
    """``value`` set at ``keys`` in ``target``, nested dicts merged and lists joined (argparse_utils.py:409-438)."""
    for key in keys[:-1]:
        inner = target.get(key)
        if not isinstance(inner, dict):
            inner = target[key] = {}
        target = inner
    last = keys[-1]
    if isinstance(value, list) and isinstance(target.get(last), list):
        target[last] = [*target[last], *value]
    else:
        target[last] = value


def parse_vllm_args(tokens: list[str]) -> dict[str, str | None]:
    """Options from a vLLM command line: {"tensor-parallel-size": "2", "enforce-eager": None}.

    Keys are long flag names without dashes, underscores normalised to dashes, short aliases
    (-tp, -pp, -dp, -q) expanded. A flag followed by another flag, by nothing, or listed as
    boolean maps to None. Positional tokens (the model) are skipped. The last occurrence wins,
    as with argparse.

    A `--no-X` flag is the off form of a boolean `--X`: vLLM 0.33.0 writes every such pair with
    argparse.BooleanOptionalAction (engine/arg_utils.py:384-386) and has no other `--no-` option, so
    `--no-X` takes no value, and of `--X` and `--no-X` only the later one stays (both set one field).
    """
    parsed: dict[str, str | None] = {}
    dotted: dict[str, dict] = {}
    i = 0
    while i < len(tokens):
        flag = _flag(tokens[i])
        i += 1
        if flag is None:
            continue
        name, value = flag
        if "." in name:
            # ``--kv-transfer-config.kv_connector NixlConnector``: vLLM's parser folds the dotted keys of one option
            # into a JSON object and passes it after every other argument, so it wins over an ``--X '{...}'``
            # written before or after (vllm 0.33.0 vllm/utils/argparse_utils.py:461-499). A dotted option always
            # takes the next word as its value (:467-469); ``key+`` joins a comma list.
            if value is None and i < len(tokens):
                value = tokens[i]
                i += 1
            head, *keys = name.split(".")
            if value is None or not keys or not all(keys):
                continue
            item = json.dumps(value.split(",")) if keys[-1].endswith("+") else value
            keys[-1] = keys[-1].removesuffix("+")
            _merge_into(dotted.setdefault(head, {}), keys, _json_value(item))
            continue
        boolean = name in _BOOLEAN_FLAGS or name.startswith("no-")
        if value is None and not boolean and i < len(tokens) and _flag(tokens[i]) is None:
            value = tokens[i]
            i += 1
        parsed.pop(name[3:] if name.startswith("no-") else f"no-{name}", None)
        parsed[name] = value
    for head, folded in dotted.items():
        parsed.pop(head, None)
        parsed[head] = json.dumps(folded)
    return parsed


def positional_tokens(tokens: list[str]) -> list[tuple[int, str]]:
    """The (index, token) pairs of a command line that are neither an option nor an option's value, read as
    `parse_vllm_args` reads them (a non-boolean option takes the next non-option token)."""
    found = []
    i = 0
    while i < len(tokens):
        flag = _flag(tokens[i])
        if flag is None:
            found.append((i, tokens[i]))
            i += 1
            continue
        name, value = flag
        i += 1
        if "." in name:  # a dotted option takes the next word whatever it is (see parse_vllm_args)
            i += 1 if value is None else 0
            continue
        boolean = name in _BOOLEAN_FLAGS or name.startswith("no-")
        if value is None and not boolean and i < len(tokens) and _flag(tokens[i]) is None:
            i += 1
    return found


def vllm_args(container: Mapping, *, image_entrypoint: bool = True) -> dict[str, str | None]:
    """The container's vLLM options (see `parse_vllm_args`); {} when it starts no vLLM server."""
    line = vllm_command_line(container, image_entrypoint=image_entrypoint)
    return expand_abbreviations(parse_vllm_args(line), container) if line is not None else {}


def expand_abbreviations(args: dict[str, str | None], container: Mapping) -> dict[str, str | None]:
    """``args`` with each unique prefix vLLM's parser expands (argparse allow_abbrev, CPython Lib/argparse.py
    _parse_optional / _get_option_tuples; no vLLM wheel 0.4.0-0.34.0 turns it off) written as the option it stands for,
    at the release the image names (``--tensor-parallel 2`` -> tensor-parallel-size), or, with no release known, only
    where the prefix stands for one option in every release (components/engine_options.py CliOptions.expansion). An
    option written in full keeps its value over an abbreviation of it."""
    row = engine_named("vllm")
    if row is None or row.options is None or not args:
        return args
    table = cli_options(row.options.file)
    image = container.get("image")
    release = tagged_release(image, row.options.images) if isinstance(image, str) else None
    expanded: dict[str, str | None] = {}
    renamed = False
    for name, value in args.items():
        full = table.expansion(f"--{name}", release) if f"--{name}" not in table.options else None
        if full is None:
            expanded[name] = value
            continue
        renamed = True
        key = full[2:]
        if key not in args:
            expanded[key] = None if key in _BOOLEAN_FLAGS else value
    return expanded if renamed else args


def _model_runs_vllm(model: Mapping) -> bool:
    """A KServe predictor `model` spec served by vLLM: model format or runtime says so, or KServe's
    Hugging Face server runs its vLLM backend, as it does unless told ``--backend=huggingface``: the
    default backend is auto, which picks vLLM where vLLM is installed and supports the architecture
    (kserve v0.20.0 python/huggingfaceserver/huggingfaceserver/__main__.py is_vllm_backend_enabled
    L60-70, --backend default "auto" L134-139)."""
    fmt = get(model, "modelFormat", "name")
    runtime = model.get("runtime")
    if isinstance(fmt, str) and fmt.lower() == "vllm":
        return True
    if isinstance(runtime, str) and "vllm" in runtime.lower():
        return True
    backend = parse_vllm_args(_tokens(model.get("args"))).get("backend")
    if isinstance(fmt, str) and fmt.lower() == "huggingface":
        return backend in (None, "auto", "vllm")
    return backend == "vllm"


@dataclass(frozen=True)
class VllmServer:
    """One container that starts a vLLM server, with where it sits and its parsed options.

    `runtime_merged` is true for a KServe predictor `model` spec: the ServingRuntime supplies
    its image, command, volumes and probes, which a resource policy cannot see.
    """

    path: str
    podspec: dict
    container: dict
    args: dict[str, str | None]
    runtime_merged: bool = False

    @property
    def label(self) -> str:
        """How messages name this container."""
        return container_label(self.path, self.container)


def vllm_servers(resource: Any) -> list[VllmServer]:
    """Every container of the resource that starts a vLLM server, in document order."""
    return list(memoized(resource, "vllm_servers", _vllm_servers))


def _vllm_servers(resource: Any) -> list[VllmServer]:
    ray = is_ray(resource.type)
    found = []
    for path, podspec in pod_specs(resource):
        for container in containers(podspec):
            line = vllm_command_line(container, image_entrypoint=not ray)
            if line is not None:
                args = parse_vllm_args(line)
                if "config" in args:
                    args = parse_vllm_args(with_config_file(line, args["config"], podspec, container))
                found.append(VllmServer(path, podspec, container, expand_abbreviations(args, container)))
        model = podspec.get("model")
        if isinstance(model, dict) and _model_runs_vllm(model):
            found.append(
                VllmServer(
                    f"{path}.model",
                    podspec,
                    model_container(model),
                    parse_vllm_args(_tokens(model.get("args"))),
                    runtime_merged=True,
                )
            )
    return found


def parallel_size(args: Mapping[str, str | None], flag: str) -> int | None:
    """A parallelism option (`tensor-parallel-size`, `pipeline-parallel-size`): 1 when absent
    (vLLM's default, config/parallel.py), None when it is not a positive integer."""
    if flag not in args:
        return 1
    value = as_int(args[flag])
    return value if value is not None and value > 0 else None


def serve_model_tag(container: Mapping, *, image_entrypoint: bool = True) -> Optional[str]:
    """The positional model tag of a `vllm serve` line (`vllm serve MODEL ...`, or the first arg to the
    vllm/vllm-openai image's `vllm serve` entrypoint), or None: no positional, or the line runs a module
    (`python -m vllm.entrypoints...` has no model_tag that anything reads). `vllm serve` sets args.model =
    args.model_tag (vllm 0.33.0 vllm/entrypoints/cli/serve.py:56-57); with --model too the line fails in most
    releases (0.11.1+ "unrecognized arguments", earlier a ValueError; S38, policies/vllm/flags_exist.py)."""
    line = vllm_command_line(container, image_entrypoint=image_entrypoint)
    if not line:
        return None
    row = engine_named("vllm")
    modules = row.modules if row else ("vllm.entrypoints",)
    argv = command_tokens(container)[0]
    start = _invocation_start(argv)
    if start is not None and argv[start - 1].startswith(modules):
        run = start >= 2 and argv[start - 2] == "-m"
        if run or container.get("command") or not image_entrypoint or not image_runs_vllm(container.get("image")):
            return None
        return argv[start - 1]  # args alone to the image's `vllm serve`: a module there is its model tag
    if line[0] == "serve":  # `args: [serve, MODEL, ...]` on an image whose entrypoint is `vllm`
        line = line[1:]
    return line[0] if line and _flag(line[0]) is None and line[0] not in ("--", "") else None


def program_word(token: str) -> bool:
    """True for a token that starts a program rather than naming a model: an engine's module
    (vllm.entrypoints.openai.api_server) or command word of the engine table, or python / -m."""
    words = {word for row in ENGINES for command in row.commands for word in command} | {"python", "python3", "-m"}
    return token in words or token.startswith(tuple(m for row in ENGINES for m in row.modules))


def served_model(server: VllmServer) -> Optional[str]:
    """The model a vLLM container serves: the positional model tag of `vllm serve`, then `--model`, then the first
    positional token of the line. A tag together with --model fails to start in most releases (S38 reports it);
    where it starts (--model= at 0.8.5-0.11.0) the tag is served. A tag that is a program word (S38 blocks the line)
    gives way to --model, the model the author meant, so the other rules judge that one."""
    tag = None if server.runtime_merged else serve_model_tag(server.container)
    if tag is not None and not program_word(tag):
        return tag
    if server.args.get("model"):
        return server.args["model"]
    if server.runtime_merged:
        # KServe's Hugging Face server: --model_id, else the Hub repository of storageUri hf://org/name.
        uri = server.container.get("storageUri")
        if server.args.get("model-id"):
            return server.args["model-id"]
        if isinstance(uri, str) and uri.startswith("hf://"):
            return uri[len("hf://") :].split(":", 1)[0]
        return None
    line = vllm_command_line(server.container) or []
    positional = [
        t
        for i, t in enumerate(line)
        if not t.startswith("-") and (i == 0 or not line[i - 1].startswith("-") or "=" in line[i - 1])
    ]
    # `args: [serve, MODEL, ...]` on an image whose entrypoint is `vllm` (or repeated after `vllm serve`).
    if positional[:1] == ["serve"]:
        positional = positional[1:]
    return positional[0] if positional else None
