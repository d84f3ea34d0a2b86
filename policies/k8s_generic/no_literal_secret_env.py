"""G35 (catalogue row 35): secrets must come from a Secret, not from the manifest's clear text.

A literal lands in the pod spec, in etcd, in the Pulumi state and in every `kubectl get -o
yaml`; HF_TOKEN is the usual case in LLM serving. Four places are read:

* ``env``: a variable whose name looks like a secret (``namePatterns``) with a literal value or a
  ``configMapKeyRef``, and any variable whose value holds a credential-shaped token;
* ``args`` and ``command``: a secret-named flag with a literal value (``--api-key=abc``,
  ``--hf-token abc``, also inside ``sh -c`` strings) and any credential-shaped token;
  ``$(VAR)`` references to the environment are what to use instead;
* ConfigMap ``data``: a secret-named key with a value, any credential-shaped token, and a secret-named key with a
  literal value inside a value that is a YAML configuration file (LiteLLM's general_settings.master_key blocks; any
  other name is advice);
* a credential written into a command line (a container's argv or a ConfigMap's script: ``mc alias set`` keys,
  ``PGPASSWORD=x psql``, ``mysql -pX``, ``curl -u user:pass``): advice (command_line_credentials);
* probe and lifecycle-hook ``httpGet.httpHeaders``: an ``Authorization`` (or secret-named) header
  with a literal value, and any credential-shaped token. A header value cannot come from a Secret
  (core/v1 HTTPHeader has only name and value: kubernetes pkg/apis/core/types.go, v1.31.0), so the
  fix is a probe on a path the server does not guard (vLLM's --api-key guards /v1 only).

A key the container's own server enforces (components/server_keys.toml: LiteLLM's master key, vLLM's VLLM_API_KEY and
--api-key on the vLLM server) blocks in any words (``sk-local-dev``: spent set 71 yduman/ai-platform-poc): the stand-in
phrasing components/secrets.py placeholder_value exempts is a CLIENT's key to a server that checks none; on the server
only an exact not-a-key word, a mask or a fill-in for a person stays silent (server_key_stand_in).

A password that repeats its user name (postgresql://postgres:postgres@db, amqp://guest:guest@mq, POSTGRES_PASSWORD
beside POSTGRES_USER with the same value) is a default credential, not a secret: advice (repeats_user).

Token shapes (hf_..., AKIA..., ghp_..., sk-..., xox.-, JWTs, PEM keys) come from
components.secrets, the one place that decides them. Messages never print the value: only the
shape's public prefix.
"""

from __future__ import annotations

import dataclasses
import re

from components.loading import Limits, LoadError, load_yaml
from components.secrets import first_token, placeholder_value, server_key_stand_in
from components.server_keys import CONFIG_KEYS, SERVER_ENV
from policies.config_files import CONFIG_FILE
from policies.framework import Policy, Resource, unproven
from policies.k8s_generic.command_line_credentials import _cli_message, command_line_credentials
from policies.k8s_generic.secret_words import (
    _MASK,
    NAME_PATTERNS,
    looks_secret,
    names_a_setting,
    repeats_user,
    stand_in_password,
)
from policies.kube import (
    annotations_of,
    as_dict,
    as_list,
    container_label,
    containers,
    get,
    name_of,
    pod_specs,
    workload_types,
)
from policies.reading.hf_tokens import TOKEN_VARIABLES, token_placeholder
from policies.reading.placeholders import placeholder_in
from policies.reading.server_keys import enforced_keys

_FIX = "a secret must come from valueFrom.secretKeyRef"
_ARG_FIX = "pass it as $(VAR) of an env var from valueFrom.secretKeyRef"
CONFIG_MAP_TYPE = "kubernetes:core/v1:ConfigMap"
# --flag=value or --flag value inside one argument (a shell string of sh -c, or "--flag=value").
_FLAG_IN_TEXT = re.compile(r"(?<![\w-])--?([A-Za-z][A-Za-z0-9_-]*)(?:=|\s+)(\S+)")
# A dependent variable in an env value: the kubelet expands $(VAR_NAME) from the container's previously defined env
# (core/v1 EnvVar.value, kubernetes-validate 1.37.0 v1.33.0-local-strict/envvar-v1.json:12; "$$(" escapes it), so
# `API_KEY: $(OPENAI_KEY)` or `Bearer $(TOKEN)` holds no literal credential (review51a).
_DEPENDENT = re.compile(r"(?<!\$)\$\([A-Za-z_][A-Za-z0-9_]*\)")
# What a flag's value may be without being a literal: an env reference ($(VAR), $VAR, ${VAR}).
_REFERENCE = re.compile(r"[\"']?\$(\([A-Za-z_][A-Za-z0-9_]*\)|\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*)[\"']?")


# Flag names that hold a credential on their own, beside the name patterns (which want a prefix: *_TOKEN): cloudflared's
# `tunnel run --token` (cloudflare/cloudflared cmd/cloudflared/tunnel: tunnelTokenFlag, name "token", env TUNNEL_TOKEN), the
# --secret / --apikey spellings of other servers.
_SECRET_FLAGS = frozenset({"TOKEN", "SECRET", "APIKEY"})


def _flag_is_secret(flag: str, patterns: list[str]) -> bool:
    """``--api-key`` is API_KEY for the name patterns; ``--hf-token`` is HF_TOKEN; ``--token`` is a credential too."""
    name = flag.lstrip("-").replace("-", "_")
    return name.upper() in _SECRET_FLAGS or looks_secret(name, patterns)


# The keys of BuildKit's secret spec: `buildctl build --secret id=NAME,src=FILE` (moby/buildkit cmd/buildctl/build.go:
# "Secret value exposed to the build. Format id=secretname,src=filepath"), `docker buildx build --secret
# id=NAME,env=VAR|src=FILE`: the value names a file or a variable, never the secret itself.
_SECRET_SPEC_KEYS = frozenset({"id", "src", "source", "env", "type", "target", "required", "mode", "uid", "gid"})


def _secret_spec(value: str) -> bool:
    """True for a ``k=v[,k=v]`` list whose keys are all BuildKit secret-spec keys (id=hf_token,src=/run/secrets/t)."""
    pairs = value.strip("'\"").split(",")
    return all("=" in p and p.split("=", 1)[0].strip().lower() in _SECRET_SPEC_KEYS for p in pairs)


def _literal(value: str, flag: str = "") -> bool:
    """A flag's value that is a credential written out: not an env reference, a file path, a BuildKit secret spec
    (id=...,src=...) or a placeholder word."""
    return (
        not _REFERENCE.fullmatch(value)
        and not value.startswith(("/", "./"))
        and not _secret_spec(value)
        and not placeholder_value(value, flag)
    )


# A URL with a password in its userinfo (RFC 3986 section 3.2.1 "user:password" is deprecated for this reason):
# postgresql://user:pass@host/db, redis://:pass@host, amqp://user:pass@host. The password is what the match checks.
# The user and password are RFC 3986 userinfo characters (no quote, brace, bracket or comma: JSON around a URL is not
# part of it; no "?" or "#", which end the authority: smtp://host:587?from=a@b has no userinfo), the host a name or
# address.
_URL_PASSWORD = re.compile(
    r"\b[A-Za-z][A-Za-z0-9+.-]*://([A-Za-z0-9._~%+-]*):([^\s/@\"'{}<>\[\]\\,?#]+)@[A-Za-z0-9][A-Za-z0-9.-]*(?=[:/?#\s\"']|$)"
)


def _url_passwords(text: str) -> list[tuple[str, str]]:
    """(user, password) of every URL in ``text`` whose userinfo carries a literal password (not a ``$VAR``/``$(VAR)``
    reference, a template placeholder, a ``<password>`` stand-in or a masked ``***``)."""
    found = []
    for match in _URL_PASSWORD.finditer(text[:4096]):
        user, password = match.group(1), match.group(2)
        if password.startswith(("$", "{{", "<", "%", "*")) or set(password) <= {"*", "x", "X"} or stand_in_password(password):
            continue
        found.append((user, password))
    return found


def url_password(text: str) -> bool:
    """True when ``text`` holds a URL whose userinfo carries a literal password (see _url_passwords)."""
    return bool(_url_passwords(text))


def _token_message(where: str, text: str, fix: str = _FIX) -> str | None:
    token = first_token(text)
    if token is None:
        passwords = _url_passwords(text)
        if passwords and all(repeats_user(user, password) for user, password in passwords):
            return unproven(
                f"{where} holds a URL whose password repeats its user name (scheme://user:user@host), a default "
                f"credential rather than a secret: nothing secret is committed, but anyone can guess it; set a real "
                f"password and {fix}"
            )
        if passwords:
            return f"{where} holds a URL with a password in it (scheme://user:password@host); {fix}"
        return None
    return f"{where} holds what looks like {token.described}; {fix}"


# A value written as an envsubst/pipeline variable (``${OPENAI_API_KEY}``, ``$HF_TOKEN``): the kubelet never expands
# it in env (only ``$(VAR)``), so the file is filled in before it is applied, and no credential is committed. Once
# filled, the secret still sits in the pod spec: advice. (Spent set 17's labellers filed the same form in a Secret,
# "filled by `kustomize build | envsubst | kubectl apply`; no credential is committed", as no G35.) A fill-in for a
# person (``<your-hf-token>``) is S28's for a Hugging Face token and stays a block under an API key's name (applied as
# written it is the key the client sends and the server refuses: sets 13 and 31); under a signing key the app issues
# itself (_SELF_ISSUED) it is advice since session 52.
_SED_MARKER = re.compile(r"[\"']?__[A-Z][A-Z0-9_]*[A-Z0-9]__[\"']?")
_SUBSTITUTED = re.compile(r"[\"']?\$(?:\{[A-Za-z_][A-Za-z0-9_]*(?::?[-=?+][^}]*)?\}|[A-Za-z_][A-Za-z0-9_]*)[\"']?")


# A key the app issues and checks itself (a web framework's or a session's signing key: Django/Flask SECRET_KEY, Open
# WebUI's WEBUI_SECRET_KEY, JWT_SECRET, NEXTAUTH_SECRET, Rails' SECRET_KEY_BASE): left as a fill-in, the app still runs
# and signs with a key anyone can read, a risk, not a failure (spent sets' labellers filed `your-secret-key-here` and
# `change-me-to-a-real-random-value` as advisory). A key sent to another service (an API key, a token, a password)
# is refused there when it is a fill-in, so it keeps blocking (sets 13 and 31).
_SELF_ISSUED = re.compile(
    r"(?:^|_)(?:SECRET_KEY(?:_BASE)?|JWT_SECRET(?:_KEY)?|SESSION_SECRET|NEXTAUTH_SECRET|SIGNING_KEY)$", re.I
)


def _substituted(
    resource: Resource, persons: dict[tuple[object, object], str]
) -> tuple[set[tuple[object, object]], set[tuple[object, object]]]:
    """(container, env name) pairs whose value is written as an envsubst variable (the props hold UNKNOWN there), and
    those of a Hugging Face token variable written as a fill-in (``<hf_token>``): S28's row names that form (a token
    that is a committed fill-in, in the env), so it reports them (spent set 73 ratishjain12/eks-vllm-multinode
    lws.yaml, labelled S28, was a wrong G35 block at session 49's freeze 2). ``persons`` receives the values of a
    self-issued signing key (_SELF_ISSUED) written as a fill-in for a person (``your-secret-key-here``,
    ``change-this-in-production``), as written."""
    written = dataclasses.replace(resource, props=resource.written) if resource.written is not None else resource
    pairs: list[tuple[object, object, str]] = [
        (name_of(c), name_of(e), str(e.get("value")))
        for _, podspec in pod_specs(written)
        for c in containers(podspec, init=True, model=True)
        for e in (as_dict(x) for x in as_list(c.get("env")))
        if isinstance(e.get("value"), str)
    ]
    # A sed step's marker standing for the whole value (`__OPENAI_API_KEY__`) is a variable the pipeline fills, as
    # envsubst's is (fresh set 103 archham/kube.web-ui@5cd101e1 03_deployment.yml, labelled S27 advisory, drew a
    # wrong blocking G35 before session 52's fix).
    variables: set[tuple[object, object]] = {
        (c, e) for c, e, v in pairs if _SUBSTITUTED.fullmatch(v.strip()) or _SED_MARKER.fullmatch(v.strip())
    }
    fill_ins: set[tuple[object, object]] = {(c, e) for c, e, v in pairs if e in TOKEN_VARIABLES and token_placeholder(v)}
    for c, e, v in pairs:
        if (c, e) in variables or (c, e) in fill_ins or not isinstance(e, str) or not _SELF_ISSUED.search(e):
            continue
        if (hit := placeholder_in(v.strip())) is not None and not hit.startswith("$"):
            persons[(c, e)] = v.strip()
    return variables, fill_ins


# A variable or key that names a user (POSTGRES_USER, DB_USERNAME, RABBITMQ_DEFAULT_USER): a password beside it with the
# same value is the user name repeated (repeats_user).
_USER_NAME = re.compile(r"(?:^|_)USER(?:_?NAME)?$", re.I)


def _user_values(pairs: list[tuple[object, object]]) -> list[str]:
    """The literal values of the user-naming variables or keys among (name, value) pairs."""
    return [v for k, v in pairs if isinstance(k, str) and isinstance(v, str) and v and _USER_NAME.search(k)]


def _default_message(where: str, fix: str) -> str:
    return unproven(
        f"{where} repeats the user name beside it (postgres/postgres, guest/guest), a default credential rather than a "
        f"secret: nothing secret is committed, but anyone can guess it; set a real password and {fix}"
    )


def _check_env(
    label: str,
    container: dict,
    patterns: list[str],
    substituted: set | frozenset = frozenset(),
    fill_ins: set | frozenset = frozenset(),
    persons: dict | None = None,
) -> list[str]:
    persons = persons or {}
    messages: list[str] = []
    patterns = [*patterns, *SERVER_ENV]  # a server's own key (LITELLM_MASTER_KEY) is a credential by its name
    users = _user_values([(as_dict(e).get("name"), as_dict(e).get("value")) for e in as_list(container.get("env"))])
    for env in as_list(container.get("env")):
        env = as_dict(env)
        name = env.get("name")
        if not isinstance(name, str):
            continue
        value = env.get("value")
        if (looks_secret(name, patterns) and names_a_setting(name, value)) or (name_of(container), name) in fill_ins:
            continue
        if looks_secret(name, patterns) and (name_of(container), name) in substituted:
            messages.append(
                unproven(
                    f"{label}: env {name} is written as a variable filled in before apply (envsubst or a pipeline), so "
                    f"no credential is in the file; once filled, the secret sits in the pod spec, etcd and every "
                    f"`kubectl get -o yaml`; {_FIX}"
                )
            )
        elif looks_secret(name, patterns) and isinstance(value, str) and _MASK.match(value.strip()):
            messages.append(
                unproven(
                    f"{label}: env {name} is {value.strip()!r}, a stand-in rather than a credential (nothing secret is in "
                    f"the file); if the server behind it checks a key, this one is refused; {_FIX}"
                )
            )
        elif looks_secret(name, patterns):
            if isinstance(value, str) and any(repeats_user(user, value) for user in users):
                messages.append(_default_message(f"{label}: env {name} has a literal value that", _FIX))
            elif (shown := persons.get((name_of(container), name))) is not None and not _DEPENDENT.search(shown):
                # A fill-in left for a person (`your-secret-key-here`, `change-this-in-production`: S27 names it) is no
                # secret committed: advice on where the real one must come from, not a leak (review51a; before session
                # 52 a SECRET_KEY fill-in blocked).
                messages.append(
                    unproven(
                        f"{label}: env {name} holds the fill-in {shown!r}, not a credential (nothing secret is in "
                        f"the file); the real one must not be written here either: {_FIX}"
                    )
                )
            elif value not in (None, "") and not placeholder_value(value, name) and not _DEPENDENT.search(str(value)):
                messages.append(
                    f"{label}: env {name} has a literal value; {_FIX} (a literal lands in "
                    f"the pod spec, etcd and the Pulumi state)"
                )
            elif value not in (None, "") and not server_key_stand_in(value) and name in enforced_keys(container)[0]:
                messages.append(
                    f"{label}: env {name} has a literal value, the key this server checks every caller against: "
                    f"however it reads, anyone who reads the file holds it; {_FIX}"
                )
            elif "configMapKeyRef" in as_dict(env.get("valueFrom")):
                messages.append(f"{label}: env {name} comes from valueFrom.configMapKeyRef; {_FIX}")
        elif isinstance(value, str):
            found = _token_message(f"{label}: env {name}", value)
            if found:
                messages.append(found)
    return messages


def _secret_names(container: dict) -> set[str]:
    """The names of the Secrets the container reads (env secretKeyRef, envFrom secretRef)."""
    names = {name_of(get(as_dict(e), "valueFrom", "secretKeyRef")) for e in as_list(container.get("env"))}
    names |= {name_of(get(as_dict(e), "secretRef")) for e in as_list(container.get("envFrom"))}
    return {n for n in names if isinstance(n, str) and n}


def _check_argv(label: str, container: dict, patterns: list[str]) -> list[str]:
    # A flag given the name of a Secret the container reads (--hf-api-token=huggingface-token beside a secretKeyRef to
    # huggingface-token) passes a name, not a credential: no secret is written out (fresh set 28 brayanpena530/
    # multiLLM-EKS-Deploy, whose labeller filed it as a broken token and a G35 trap).
    secrets = _secret_names(container)

    def _literal_here(value: str, flag: str) -> bool:
        if value in secrets:
            return False
        if _literal(value, flag):
            return True
        # A stand-in's words exempt a client's key, not the key this container's own server enforces (--api-key).
        return (
            not _REFERENCE.fullmatch(value)
            and not server_key_stand_in(value)
            and f"--{flag.lstrip('-')}" in enforced_keys(container)[1]
        )

    messages = []
    for field in ("command", "args"):
        argv = [a for a in as_list(container.get(field))]
        for i, arg in enumerate(argv):
            if not isinstance(arg, str):
                continue
            where = f"{label}: {field}[{i}]"
            found = _token_message(where, arg)
            if found:
                messages.append(found)
                continue
            for flag, value in _FLAG_IN_TEXT.findall(arg):
                if _flag_is_secret(flag, patterns) and _literal_here(value, flag):
                    messages.append(f"{where}: --{flag} has a literal value; {_ARG_FIX}")
                    break
            else:
                if cli := command_line_credentials(arg, patterns):
                    messages.append(_cli_message(where, cli, _ARG_FIX))
                    continue
                nxt = argv[i + 1] if i + 1 < len(argv) else None
                if (
                    arg.startswith("-")
                    and "=" not in arg
                    and _flag_is_secret(arg, patterns)
                    and isinstance(nxt, str)
                    and nxt
                    and not nxt.startswith("-")
                    and _literal_here(nxt, arg)
                    and first_token(nxt) is None
                ):  # a token there is reported on its own
                    messages.append(f"{where}: {arg} has a literal value in {field}[{i + 1}]; {_ARG_FIX}")
    return messages


_PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
_HOOKS = ("postStart", "preStop")
_AUTH_HEADERS = ("AUTHORIZATION", "PROXY_AUTHORIZATION")


def _handlers(container: dict) -> list[tuple[str, dict]]:
    found = [(name, as_dict(container.get(name))) for name in _PROBES]
    lifecycle = as_dict(container.get("lifecycle"))
    found += [(f"lifecycle.{name}", as_dict(lifecycle.get(name))) for name in _HOOKS]
    return [(where, handler) for where, handler in found if handler]


def _check_headers(label: str, container: dict, patterns: list[str]) -> list[str]:
    """A literal credential in a probe's or hook's HTTP header: it lands in the pod spec like env."""
    messages = []
    for where, handler in _handlers(container):
        for header in as_list(as_dict(handler.get("httpGet")).get("httpHeaders")):
            header = as_dict(header)
            name, value = header.get("name"), header.get("value")
            if not isinstance(name, str) or not isinstance(value, str) or not value.strip():
                continue
            at = f"{label}: {where}.httpGet.httpHeaders {name}"
            key = name.upper().replace("-", "_")
            found = _token_message(at, value, _HEADER_FIX)
            if found:
                messages.append(found)
            elif (key in _AUTH_HEADERS and len(value.split()) > 1) or (key not in _AUTH_HEADERS and looks_secret(key, patterns)):
                messages.append(f"{at} has a literal credential; {_HEADER_FIX}")
    return messages


_HEADER_FIX = (
    "a header value cannot come from a Secret, so probe a path the server does not guard "
    "(vLLM's --api-key guards /v1 only; /health needs no header) or use an exec probe that reads the key from the environment"
)


# A ConfigMap value that is itself a configuration file (a LiteLLM proxy's config.yaml) is read as YAML through the
# bounded loader (aliases charged at their expanded size), so a key inside it is read as a top-level key is.
_EMBEDDED = Limits("a ConfigMap's embedded configuration", max_bytes=1 << 20, max_depth=64, max_nodes=200_000, max_documents=1)
# LiteLLM's proxy admin key (general_settings.master_key): the proxy takes it as the key every caller and the admin UI
# must present; its config loader resolves a value spelled "os.environ/NAME" from the environment (BerriAI/litellm
# v1.55.0 litellm/proxy/proxy_server.py, load_config: master_key = general_settings.get("master_key") then
# get_secret when it starts with "os.environ/"). A literal there is the admin credential in clear text.
_PROVEN_KEYS = CONFIG_KEYS  # components/server_keys.toml: ("general_settings", "master_key")
_EMBEDDED_NAMES = ("MASTER_KEY",)
# How a configuration file names a value it reads elsewhere: LiteLLM's "os.environ/NAME", env and template references.
_REFERENCE_STARTS = ("os.environ/", "$", "{{", "<")


def _embedded_secret(text: str, patterns: list[str]) -> tuple[str, bool] | None:
    """(dotted path, proven) of the first key in a YAML mapping ``text`` that is named like a credential and holds a
    literal value: proven for a key whose program is known to take it as a credential (LiteLLM's master_key)."""
    if "\n" not in text or ":" not in text:
        return None
    try:
        doc = load_yaml("ConfigMap data", _EMBEDDED, text=text)
    except LoadError:
        return None
    stack: list[tuple[tuple[str, ...], object]] = [((), doc)]
    while stack:
        path, item = stack.pop()
        if not isinstance(item, dict) or len(path) > 16:
            continue
        for key, value in reversed(list(item.items())):
            if not isinstance(key, str):
                continue
            here = (*path, key)
            if isinstance(value, dict):
                stack.append((here, value))
            elif isinstance(value, list):
                stack.extend((here, v) for v in reversed(value))
            elif not isinstance(value, str):
                continue
            elif here[-2:] in _PROVEN_KEYS:
                if _server_literal(value):
                    return ".".join(here), True
            elif _literal_value(value, key) and looks_secret(key, [*patterns, *_EMBEDDED_NAMES]):
                return ".".join(here), False
    return None


def _server_literal(value: str) -> bool:
    """A literal under a key the server enforces: a reference or a fill-in is none, any other words are the key."""
    text = value.strip()
    return bool(text) and not text.startswith(_REFERENCE_STARTS) and not server_key_stand_in(text)


def _literal_value(value: str, key: str = "") -> bool:
    text = value.strip()
    return bool(text) and not text.startswith(_REFERENCE_STARTS) and not placeholder_value(text, key)


def _check_config_map(resource: Resource, patterns: list[str]) -> list[str]:
    messages = []
    data = as_dict(resource.props.get("data"))
    users = _user_values(list(data.items()))
    for key in sorted(k for k in data if isinstance(k, str)):
        value = data[key]
        if looks_secret(key, patterns) and isinstance(value, str) and any(repeats_user(u, value) for u in users):
            messages.append(_default_message(f"ConfigMap data {key}", "store it in a Secret and reference it with secretKeyRef"))
        elif looks_secret(key, patterns) and placeholder_value(value, key):
            continue  # a key for a server that checks none, in words that say so (components/secrets.py)
        elif looks_secret(key, patterns) and value not in (None, "") and not names_a_setting(key, value):
            messages.append(
                f"ConfigMap data {key} looks like a secret; store it in a Secret and reference it "
                f"with secretKeyRef (a ConfigMap is clear text to anyone who can read it)"
            )
        elif isinstance(value, str):
            found = _token_message(f"ConfigMap data {key}", value, "store it in a Secret and reference it with secretKeyRef")
            if found:
                messages.append(found)
            elif (embedded := _embedded_secret(value, patterns)) is not None:
                where, proven = embedded
                message = (
                    f"ConfigMap data {key} sets {where} to a literal value, a credential by its name; keep it in a "
                    f"Secret and let the program read it from the environment (LiteLLM: os.environ/NAME)"
                )
                messages.append(message if proven else unproven(message))
            elif cli := command_line_credentials(value, patterns):
                messages.append(
                    _cli_message(f"ConfigMap data {key}", cli, "read it from a Secret mounted or set as an environment variable")
                )
    return messages


# A LiteLLM configuration file read as a ConfigMap (policies/config_files.py): a secretGenerator makes a Secret of it,
# whose committed value this rule reports on the Secret the overlay builds, not as a ConfigMap's; from a file no
# kustomization makes an object of, the ConfigMap is a guess (a compose mount, a chart's .Files.Get into a Secret), so
# its credential is advice, as a token in a file holding no object is.
_FILE_NOTE = "(the file is read as a ConfigMap; no kustomization of the files makes one of it)"


def _check(resource: Resource, config: dict) -> list[str]:
    patterns = list(config["namePatterns"])
    if resource.type == CONFIG_MAP_TYPE:
        made = annotations_of(resource.props).get(CONFIG_FILE)
        if made == "secret":
            return []
        found = _check_config_map(resource, patterns)
        return [unproven(f"{m} {_FILE_NOTE}") for m in found] if made == "file" else found
    messages = []
    persons: dict[tuple[object, object], str] = {}
    substituted, fill_ins = _substituted(resource, persons)
    for path, podspec in pod_specs(resource):
        for container in containers(podspec, init=True, model=True):
            label = container_label(path, container)
            messages.extend(_check_env(label, container, patterns, substituted, fill_ins, persons))
            messages.extend(_check_argv(label, container, patterns))
            messages.extend(_check_headers(label, container, patterns))
    return messages


POLICY = Policy(
    name="no-literal-secret-env",
    description=(
        "Environment variables whose names look like secrets (HF_TOKEN, *_TOKEN, *PASSWORD*, ...) "
        "must use valueFrom.secretKeyRef; no env value, argument, command or ConfigMap entry may hold "
        "a literal credential (a token shape or a secret-named flag or key), nor may a probe's or "
        "lifecycle hook's HTTP header (Authorization: Bearer ...); a password that repeats its user name "
        "(postgres:postgres, guest:guest) is a default credential, not a secret: advice."
    ),
    catalog="G35",
    severity="critical",
    enforcement="mandatory",
    remediation_steps=(
        "Store the value in a Kubernetes Secret (created from a Pulumi secret) and reference it with "
        "env[].valueFrom.secretKeyRef {name, key}; rotate any token that was committed as a literal."
    ),
    config_schema={
        "namePatterns": {
            "type": "array",
            "items": {"type": "string"},
            "default": list(NAME_PATTERNS),
            "description": (
                "Shell-style, case-insensitive patterns of env names, flag names (--api-key "
                "reads as API_KEY) and ConfigMap keys treated as secrets "
                "(default HF_TOKEN, HUGGING_FACE_HUB_TOKEN, *_TOKEN, *_SECRET*, *PASSWORD*, "
                "*API_KEY*, AWS_SECRET_ACCESS_KEY)."
            ),
        },
    },
    resource_types=workload_types(CONFIG_MAP_TYPE),
    check_resource=_check,
    rationale=(
        "A literal env value is stored in the pod spec, in etcd, in the Pulumi state and in every `kubectl get -o yaml`; "
        "Secrets can be encrypted at rest and access-controlled separately "
        "(https://kubernetes.io/docs/concepts/configuration/secret/#using-secrets-as-environment-variables). HF_TOKEN "
        "is the usual case in LLM serving. Catalogue row 35 (kube-linter env-var-secret, Checkov CKV_K8S_35)."
    ),
)
