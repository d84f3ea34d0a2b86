"""G105 (env-references-expand): a ``$(VAR)`` in a container's env, command or args names a variable the kubelet has.

The kubelet expands ``$(VAR)`` itself, before the container starts, and leaves a reference it cannot resolve as the
literal text ``$(VAR)``; ``$$`` escapes (``$$(VAR)`` is the text ``$(VAR)``). What it resolves differs by field:

* **env[].value**: only from the variables defined *before* it: the envFrom sources, the env items above it, and the
  service-link variables (kubernetes/api v0.35.7 core/v1/types.go:2472-2480, EnvVar.Value: "expanded using the
  previously defined environment variables in the container and any service environment variables. If a variable
  cannot be resolved, the reference in the input string will be unchanged"; the kubelet's makeEnvironmentVariables
  (pkg/kubelet/kubelet_pods.go, the code index's stored versions) expands each value with
  ``expansion.MappingFuncFor(tmpEnv, serviceEnv)`` while it walks ``container.Env`` in order, tmpEnv holding the
  envFrom keys and the items already walked). A reference to a variable defined *later* in the list keeps its literal
  text (spent set 94 DArkadich/corp-ai-agent@4863e462 k8s/agent/deployment.yaml: ``PG_DSN`` embeds
  ``$(POSTGRES_PASSWORD)``, declared two items below it, so the DSN's password is the text ``$(POSTGRES_PASSWORD)``;
  labelled none).
* **command and args**: from the container's whole environment, whatever the order (core/v1/types.go:2914-2930,
  Container.Command/Args: "expanded using the container's environment"; kubernetes pkg/kubelet/container/helpers.go
  ExpandContainerCommandAndArgs maps the finished env list), so only a variable defined nowhere stays literal.

Findings: an env value naming a variable defined later in the list (advice: a DSN, a URL, a client's setting), or one
defined nowhere; a command or args item naming a variable defined nowhere. Blocking only where the literal text is a
model server's (engine table, components/serving_engines.toml) model, port or numeric setting: the port and the sizes
are numbers to the engine's parser (vLLM's ``port: int = 8000``, vllm-project/vllm@00522333
vllm/entrypoints/openai/cli_args.py FrontendArgs, which argparse refuses as "invalid int value"; llama.cpp b8914
common/arg.cpp:452,511 reads an int option with std::stoi and :526-529 stops with "error while handling argument"), and
``$(MODEL)`` is
no file and no Hub id (huggingface_hub v1.28.0 src/huggingface_hub/utils/_validators.py:28-35,137-139: a repo id is
word characters, '-', '_' and '.'), so the server exits at start.

Silent (the variable may exist): an envFrom source not among the files (a Secret or ConfigMap defined elsewhere holds
any key); a service-link name (``NAME_SERVICE_HOST``, ``NAME_PORT_8000_TCP``...) and ``KUBERNETES_*``; a variable
defined nowhere in an operator's pod (any kind outside Kubernetes' own groups: LWS injects ``LWS_LEADER_ADDRESS``,
KubeRay and KServe their own), in a Kustomize base a patch of the files targets, or a Job's ``JOB_COMPLETION_INDEX``;
an overlay's patch (its env items are merged among the base's); a lower-case name (``$(date)``); every reference in
a ``sh -c`` script (the shell runs ``$(date)`` as command substitution after the kubelet leaves it; a variable defined
anywhere in env is expanded there first anyway); ``$$(VAR)``; a name a Kustomization of the files declares in
``vars`` (kustomize replaces it at build), or any in an object its ``replacements`` target (the field may be
overwritten at build); and the env order of a chart release's values (a Helm
chart may sort or order a values map: bjw-s app-template's ``dependsOn``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, Optional

from components.serving_engines import flag_name
from policies.framework import Policy, Resource, unproven
from policies.kube import (
    WORKLOAD_TYPES,
    as_dict,
    as_list,
    container_label,
    containers,
    get,
    is_custom_type,
    memoized,
    name_of,
    pod_specs,
    split_type,
    viewed_resources,
)
from policies.reading.config_map_data import config_maps
from policies.reading.secrets import secret_keys_named
from policies.reading.serving import engine_command_line, engine_row, model_servers
from policies.reading.vllm_args import command_tokens

# A variable name as the kubelet reads one between "$(" and ")"; only these are judged (a `$(date +%s)` is no name).
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# Names conventionally given to environment variables: a lower-case `$(date)` is a shell's command, not a variable.
_ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]*\Z")
# The variables the kubelet adds for each Service of the namespace (pkg/kubelet/envvars/envvars.go FromServices):
# NAME_SERVICE_HOST, NAME_SERVICE_PORT[_PORTNAME], NAME_PORT[_NUM_PROTO[_PROTO|_PORT|_ADDR]].
_SERVICE_LINK = re.compile(
    r"[A-Z0-9_]+_(?:SERVICE_HOST|SERVICE_PORT(?:_[A-Z0-9_]+)?|PORT(?:_\d+_(?:TCP|UDP|SCTP)(?:_[A-Z]+)?)?)\Z"
)
# Variables a built-in controller adds to a pod: the Job controller's index of an Indexed Job.
_CONTROLLER_VARIABLES = frozenset({"JOB_COMPLETION_INDEX"})
# Kinds whose pod templates are chart values (the chart renders env, maybe in another order).
_CHART_KINDS = frozenset({"HelmRelease", "Application", "ApplicationSet", "HelmChart"})
# Settings of the engine table whose literal `$(VAR)` text the server cannot start with: a model it cannot find, a
# number its parser refuses.
_STARTING_SETTINGS = ("model", "port", "tensor-parallel-size", "max-model-len", "gpu-memory-utilization")


def references(text: str) -> Iterator[str]:
    """The variable names of the ``$(NAME)`` references the kubelet would try to expand in ``text``, as its expansion
    reads them (third_party/forked/golang/expansion: ``$$`` is an escaped ``$``, ``$(`` opens a reference to the
    next ``)``)."""
    i, end = 0, len(text)
    while i < end:
        j = text.find("$", i)
        if j < 0 or j + 1 >= end:
            return
        nxt = text[j + 1]
        if nxt == "$":
            i = j + 2
            continue
        if nxt == "(":
            close = text.find(")", j + 2)
            if close < 0:
                return
            name = text[j + 2 : close]
            if _NAME.match(name):
                yield name
            i = close + 1
            continue
        i = j + 1


def _env_sources(container: Mapping) -> tuple[set[str], bool]:
    """(the variable names the container's envFrom sources give, whether a source is not among the files)."""
    names: set[str] = set()
    unknown = False
    sources = as_list(container.get("envFrom"))
    maps = config_maps(container) if sources else {}
    for source in (as_dict(s) for s in sources):
        prefix = source.get("prefix") if isinstance(source.get("prefix"), str) else ""
        if isinstance(get(source, "configMapRef"), Mapping):
            data = maps.get(name_of(get(source, "configMapRef")))
            keys: Optional[frozenset[str]] = frozenset(data) if data is not None else None
        elif isinstance(get(source, "secretRef"), Mapping) and isinstance(name_of(get(source, "secretRef")), str):
            keys = secret_keys_named(str(name_of(get(source, "secretRef"))))
        else:
            keys = None
        if keys is None:
            unknown = True
        else:
            names.update(f"{prefix}{k}" for k in keys)
    return names, unknown


def _kustomize_vars(view: Any) -> frozenset[str]:
    """The names of every Kustomization's ``vars`` among the objects read: kustomize itself replaces ``$(NAME)`` in
    a container's command, args and env values at build (kubernetes-sigs/kustomize kustomize/v5.8.1
    api/internal/konfig/builtinpluginconsts/varreference.go:36-42, the default varReference field specs)."""
    return frozenset(
        name
        for r in view
        if split_type(getattr(r, "type", "")) == ("kustomize.config.k8s.io", "Kustomization")
        for name in (get(v, "name") for v in as_list(get(r.props, "vars")))
        if isinstance(name, str)
    )


def _replaced_targets(view: Any) -> frozenset[tuple[Optional[str], Optional[str]]]:
    """(kind, name) of each object a Kustomization of the files points ``replacements`` at (None: any; a replacement
    kept in a file of its own, ``path:``, may point anywhere): kustomize writes the source's value over the target's
    field at build (kubernetes-sigs/kustomize kustomize/v5.8.1 api/types/kustomization.go:95-97 replacements,
    api/types/replacementfield.go:7-8 inline or ``path``, api/types/replacement.go:17-22 source and targets, :55-63
    TargetSelector select/fieldPaths), so a ``$(VAR)`` written there may be a placeholder it replaces."""
    out: set[tuple[Optional[str], Optional[str]]] = set()
    for r in view:
        if split_type(getattr(r, "type", "")) != ("kustomize.config.k8s.io", "Kustomization"):
            continue
        for replacement in as_list(get(r.props, "replacements")):
            if get(replacement, "path") is not None:
                out.add((None, None))
            for target in as_list(get(replacement, "targets")):
                kind, name = get(target, "select", "kind"), get(target, "select", "name")
                out.add((kind if isinstance(kind, str) else None, name if isinstance(name, str) else None))
    return frozenset(out)


def _replaced(resource: Resource) -> bool:
    """Whether a Kustomization of the files may replace a field of ``resource`` at build (_replaced_targets)."""
    view = viewed_resources()
    if not view:
        return False
    targets = memoized(view, "kustomize_replacements", _replaced_targets)
    kind, name = split_type(resource.type)[1], get(resource.props, "metadata", "name")
    return any(k in (None, kind) and n in (None, name) for k, n in targets)


def _may_be_given(name: str, operator: bool) -> bool:
    """True for a variable the files do not define that the cluster (or a kustomize build) may still give it."""
    view = viewed_resources()
    return (
        not _ENV_NAME.match(name)
        or bool(view and name in memoized(view, "kustomize_vars", _kustomize_vars))
        or name.startswith("KUBERNETES_")
        or _SERVICE_LINK.match(name) is not None
        or name in _CONTROLLER_VARIABLES
        or operator
    )


def _starting_flag(container: Mapping, tokens: list[str], index: int, engine: str) -> Optional[tuple[str, str]]:
    """(the flag, the setting) whose value the token at ``index`` is (``--port $(PORT)``, ``--port=$(PORT)``, or the
    positional model of an engine that takes one: ``vllm serve $(MODEL)``) where that flag sets a model, port or
    numeric setting of the engine's row; None otherwise."""
    row = engine_row(engine)
    if row is None:
        return None
    token = tokens[index]
    if token.startswith("-") and "=" in token:
        spelled = token.split("=", 1)[0]
    elif index and tokens[index - 1].startswith("-") and "=" not in tokens[index - 1]:
        spelled = tokens[index - 1]
    else:
        line = engine_command_line(container, row) if row.model_positional else None
        return ("the positional model", "model") if line and line[0] == token else None
    name = flag_name(spelled)
    setting = next((s for s in _STARTING_SETTINGS if name in row.flags.get(s, ())), None)
    return (spelled, setting) if setting is not None else None


def _check_container(label: str, container: Mapping, operator: bool, chart: bool, server_engine: Optional[str]) -> Iterator[Any]:
    env = [as_dict(e) for e in as_list(container.get("env"))]
    names: list[Optional[str]] = [n if isinstance(n := e.get("name"), str) else None for e in env]
    raw = [t for key in ("command", "args") for t in as_list(container.get(key)) if isinstance(t, str)]
    values: list[str] = [v if isinstance(v := e.get("value"), str) else "" for e in env]
    if not any("$(" in v for v in values) and not any("$(" in t for t in raw):
        return
    given, unknown_source = _env_sources(container)
    if unknown_source:
        return  # a Secret or ConfigMap not among the files may hold any name
    defined = given | {n for n in names if n}
    for i, value in enumerate(values):
        if "$(" not in value:
            continue
        before = given | {n for n in names[:i] if n}
        for ref in dict.fromkeys(references(value)):
            if ref in before:
                continue
            if ref in names[i + 1 :] and not chart:
                where = names.index(ref, i + 1)
                yield unproven(
                    f"{label}: env {names[i]} refers to $({ref}), which is defined later in the env list (item "
                    f"{where + 1}, {names[i]} is item {i + 1}); the kubelet expands a reference in env[].value only from "
                    f"the variables defined before it, so {names[i]} holds the literal text `$({ref})`; move {ref} above "
                    f"{names[i]}"
                )
            elif ref not in defined and not _may_be_given(ref, operator):
                yield unproven(
                    f"{label}: env {names[i]} refers to $({ref}), which no env item or envFrom source of the container "
                    f"defines; the kubelet leaves an unresolved reference as written (it does not see the image's own "
                    f"environment), so {names[i]} holds the literal text `$({ref})`; define {ref} above {names[i]} "
                    f"(or write $$({ref}) for the literal)"
                )
    if not any("$(" in t for t in raw) or command_tokens(container)[1]:
        return  # a shell script: `$(...)` left by the kubelet is the shell's command substitution
    for index, token in enumerate(raw):
        for ref in dict.fromkeys(references(token)) if "$(" in token else ():
            if ref in defined or _may_be_given(ref, operator):
                continue
            flag = _starting_flag(container, raw, index, server_engine) if server_engine else None
            text = (
                f"{label}: the argument `{token}` refers to $({ref}), which no env item or envFrom source of the "
                f"container defines; the kubelet leaves it as written"
            )
            if flag is not None:
                spelled, setting = flag
                refused = (
                    "no file or Hub model of that name"
                    if setting == "model"
                    else f"a value the engine's parser refuses for {setting} (a number)"
                )
                yield (
                    f"{text}, so the {server_engine} server is started with {spelled} set to the literal text "
                    f"`$({ref})`: {refused}, and it exits at start; define {ref} in the container's env"
                )
            else:
                yield unproven(f"{text}, so the program gets the literal text `$({ref})`; define {ref} in env")


def _check(resource: Resource, config: dict) -> list:
    messages: list = []
    if resource.patch:
        return messages  # an overlay's patch: its env is a part the merge places among the base's items
    kind = split_type(resource.type)[1]
    # an operator's pod, or a Kustomize base a patch of the run completes: a variable the files do not define here may
    # still be given to the container
    operator = is_custom_type(resource.type) or resource.base or _replaced(resource)
    chart = kind in _CHART_KINDS
    servers: Optional[dict[int, str]] = None
    for path, podspec in pod_specs(resource):
        for container in containers(podspec, init=True, model=True):
            if "$(" not in _text_of(container):
                continue
            if servers is None:
                servers = {id(s.container): s.engine for s in model_servers(resource)}
            label = container_label(path, container)
            messages.extend(_check_container(label, container, operator, chart, servers.get(id(container))))
    return messages


def _text_of(container: Mapping) -> str:
    """The strings the kubelet expands in (env values, command, args), joined: the rule's prefilter."""
    parts = [t for key in ("command", "args") for t in as_list(container.get(key)) if isinstance(t, str)]
    parts += [v for e in as_list(container.get("env")) if isinstance(v := as_dict(e).get("value"), str)]
    return "\n".join(parts)


POLICY = Policy(
    name="env-references-expand",
    description=(
        "A `$(VAR)` in a container's env value names a variable defined above it (or by envFrom), and one in command "
        "or args a variable the container defines: otherwise the kubelet leaves the literal text `$(VAR)`."
    ),
    catalog="G105",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Define the variable before the env item that refers to it (the kubelet expands env values in list order), or "
        "define it at all for a reference in command or args; write `$$(VAR)` where the literal text is meant."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "core/v1 EnvVar.value: references are expanded from the previously defined variables and the service "
        "variables, and an unresolved one is left unchanged (kubernetes/api v0.35.7 core/v1/types.go:2472-2480); "
        "command/args expand from the container's whole environment (types.go:2914-2930). A model server started "
        "with `--port $(PORT)` or `--model $(MODEL)` left literal exits at start."
    ),
)
