"""Unrendered placeholders in a ConfigMap's data: a configuration file (YAML, JSON, nginx text) or a value a
container reads from its environment, still holding what its author left to fill in.

policies/reading/placeholders.py leaves ConfigMaps alone, because their values are data for another program (scripts
hold ``$VAR``, adapter rules ``${1}``); this reader reads them for the forms that are fill-ins whatever program reads
them, and for ``${NAME}`` only where the program that reads the file is known not to expand it:

- In any value that is not code (a key named ``*.py``, ``*.sh``, ``*.js``, ``*.html``, ... or a text starting with
  ``#!`` is a program whose ``$VAR`` and docs are its own), outside comment lines: ``YOUR_...`` / ``your-...``,
  ``CHANGE_ME`` / ``REPLACE_ME``, a sed step's ``__NAME__``, ``<YOUR_ACCOUNT_ID>`` (an ALL-CAPS word in angle
  brackets), a ``<word>`` written as part of a host or URL (``http://vllm.<llm-namespace>.svc.<cluster-domain>``), and
  a bracketed identifier as a value (``api_key: "[API_Key]"``, ``model_name: [model_name]``, which YAML reads as a one
  item list where the program expects a string: chiheb08/openWebUI-Kubernetes litellm-configmap.yaml@83732e39).
- ``${NAME}`` (and ``$NAME`` in capitals) in a file whose consumer (components/serving_apps.toml ``[consumers]``)
  expands no such form: a LiteLLM proxy config (recognised by its ``model_list``, or mounted by a LiteLLM container),
  which LiteLLM reads with yaml.safe_load and expands only ``os.environ/NAME``
  (roen019/LiteLLM-K8s-Deploy configmaps/litellm-config.yaml@738ba83b ``database_url: postgresql://litellm:
  ${USER_PASSWORD}@...``); an nginx configuration mounted into an nginx container anywhere but its image's template
  folder (``/etc/nginx/templates/*.template``, rendered by the image's entrypoint), where nginx reads ``${NAME}`` as its
  own variable ``name`` and refuses a configuration naming one nothing defines.

Silent: ``os.environ/NAME``; ``${NAME}`` in a file mounted under nginx's template folder with its suffix; a pod that
renders its files itself (a container or init container running envsubst, sed, gomplate, ... on them); a ConfigMap no
known consumer reads (the applying pipeline may render it); scripts (the shell expands ``${VAR}``); ``example.com``
hosts (a real, reserved name; a choice, not a fill-in), except in a value that must resolve (components/fill_ins.toml
``bucket`` and ``issuer`` rows): an OIDC issuer or JWKS URL on a documentation domain (``OIDC_ISSUER:
https://issuer.example.com``, spent set 110 WaffleBits/secure-gpu-inference-gateway@11da3385 deploy/kubernetes/
gateway.yaml), a bucket in the documentation's ``my-...-bucket`` form (``modelBucket: my-model-cache-bucket``, spent
set 114 Goutham-Annem/eks-llm-inference@ae5b8ed8 manifests/vllm-deployment.yaml, or ``s3://my-bucket/...`` under any key).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Iterator, Optional

from components.fill_ins import resolving_fill_in
from components.serving_apps import CONSUMERS, Consumer
from policies.kube import as_dict, as_list, container_label, containers, get, pod_specs, split_type

CONFIG_MAP_TYPE = "kubernetes:core/v1:ConfigMap"
_MAX_SHOWN = 4
# Keys whose value is a program or a document another template language fills: their words are their own.
_CODE = (
    ".py", ".sh", ".bash", ".zsh", ".js", ".mjs", ".ts", ".lua", ".html", ".htm", ".xml", ".md", ".rst", ".txt", ".tpl",
    ".j2", ".jinja", ".jinja2", ".tmpl", ".gotmpl", ".rego", ".sql", ".go", ".rb", ".pl", ".ps1", ".ipynb", ".css",
)  # fmt: skip
_FILL_IN = re.compile(
    r"(?<![\w-])(?:YOUR_[A-Z0-9][A-Z0-9_]*|your[_-][a-z0-9][\w-]{2,})"
    r"|(?<![\w-])(?:REPLACE|CHANGE)[_-]?ME(?![\w-])"
    r"|(?<![A-Za-z0-9])__[A-Z][A-Z0-9_]*[A-Z0-9]__(?![A-Za-z0-9])"
)
# <YOUR_ACCOUNT_ID> anywhere; <word> beside a host's or URL's punctuation.
_ANGLE = re.compile(r"<([A-Za-z][\w-]{1,40})>")
_BRACKETED = re.compile(r"(?<![\w\]\[$])\[([A-Za-z][A-Za-z0-9]*(?:[_/][A-Za-z0-9]+)+)\](?![\w(\[:])")
_SECTION = re.compile(r"^\s*\[[^\]]*\]\s*$")
_KEYED = re.compile(r"""^\s*(?:-\s+)?["']?([\w.-]+)["']?\s*[:=]\s?(.*)$""")
# Keys whose value is one string (a name, a model, a URL, a credential): a one-item flow list there is no list.
_STRING_KEY = re.compile(
    r"(?i)(?:^|[_.-])(?:name|model|url|uri|key|base|host|endpoint|token|version|id|secret|password|domain|region|project|"
    r"deployment|bucket|account)$"
)
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?[-=?+][^}]*)?\}|(?<![\w$\\])\$([A-Z][A-Z0-9_]{2,})\b")
_NOT_FILL_INS = {"<eos>", "<bos>", "<pad>", "<unk>", "<mask>", "<sep>", "<cls>", "<think>", "<tool_call>", "<br>"}
# Programs a pod runs to render its files before the consumer reads them.
_RENDERERS = re.compile(r"(?<![\w-])(?:envsubst|sed|gomplate|yq|awk|perl|confd|consul-template|j2|tpl)(?![\w-])")
# What nginx defines itself in a configuration: set/map/geo/split_clients/js_set/perl_set targets, regex captures.
_NGINX_DEFINES = re.compile(
    r"(?:\bset|\bmap\s+\S+|\bgeo(?:\s+\S+)?|\bsplit_clients\s+\S+|\bjs_set|\bperl_set)\s+\$(\w+)|\(\?P?<(\w+)>"
)


def _may_hold(text: str) -> bool:
    return any(m in text for m in ("$", "<", "[", "YOUR", "your", "REPLACE", "CHANGE", "__", "bucket", "example"))


def _code(key: str, value: str) -> bool:
    """A key whose value is no configuration a program reads as values: code, or documentation (a key starting with
    ``_``: Knative's ``_example`` block, knative/pkg package configmap ``ExampleKey = "_example"``, "a given example
    configuration in a ConfigMap")."""
    return key.startswith("_") or key.lower().endswith(_CODE) or value.lstrip().startswith("#!")


def _lines(value: str, key: str = "") -> Iterator[tuple[str, str]]:
    """(key, text) of the parts of a value a program reads as values: each line that is no comment, after its key when
    it has one (a one-line value is the value of the data key ``key``)."""
    if "\n" not in value.strip():
        yield key, value
        return
    for line in value.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", "//", ";")) or _SECTION.match(line):
            continue
        keyed = _KEYED.match(line)
        yield (keyed.group(1), keyed.group(2)) if keyed else ("", line)


def _bracketed(key: str, text: str) -> Optional[str]:
    """A bracketed identifier that is a fill-in: quoted or written inside a word (``"[API_Key]"``,
    ``azure/[model_name_on_azure]``), or a bare one-item flow list under a key that takes one string
    (``model_name: [model_name]``); ``tags: [gpu_a100]`` is a list."""
    found = _BRACKETED.search(text)
    if found is None:
        return None
    if text.strip().rstrip(",") == found.group(0) and not _STRING_KEY.search(key.strip("\"'")):
        return None
    return found.group(0)


def _angles(text: str) -> Iterator[str]:
    for found in _ANGLE.finditer(text):
        word, whole = found.group(1), found.group(0)
        if whole.lower() in _NOT_FILL_INS:
            continue
        before = text[found.start() - 1] if found.start() else ""
        after = text[found.end()] if found.end() < len(text) else ""
        if (word.isupper() and "_" in word) or (before and before in "./:@-") or (after and after in ".:/@"):
            yield whole


def fill_ins(key: str, value: str) -> list[str]:
    """The fill-ins a ConfigMap value holds, whatever program reads it (module docstring): every angle-bracketed one,
    else the first other of each line."""
    if not _may_hold(value) or _code(key, value):
        return []
    found: list[str] = []
    for field, text in _lines(value, key):
        words = list(_angles(text)) if "<" in text else []
        if not words and (hit := _FILL_IN.search(text)):
            words = [hit.group(0)]
        if not words and "[" in text and (bracketed := _bracketed(field, text)):
            words = [bracketed]
        if not words and (resolving := resolving_fill_in(text.strip().strip("\"'"), field)) is not None:
            words = [resolving]
        found += [w for w in words if w not in found]
    return found


def _variables(value: str) -> list[str]:
    """The ``${NAME}`` / ``$NAME`` forms of a configuration's value lines (comments left out)."""
    found: list[str] = []
    for _, text in _lines(value):
        if "$" in text:
            for m in _VARIABLE.finditer(text):
                if m.group(0) not in found:
                    found.append(m.group(0))
    return found


@dataclass(frozen=True)
class Mount:
    """One container that mounts a ConfigMap key as a file: where, and whether its pod renders files itself."""

    label: str
    container: dict
    path: str
    renders: bool


def _pod_renders(podspec: Mapping) -> bool:
    texts = []
    for c in containers(podspec, init=True):
        texts += [str(t) for key in ("command", "args") for t in as_list(c.get(key))]
        texts += [str(t) for t in as_list(get(c, "lifecycle", "postStart", "exec", "command"))]
    return bool(_RENDERERS.search(" ".join(texts)))


def _key_paths(volume_source: Mapping, mount: Mapping, keys: list[str]) -> dict[str, str]:
    """Key -> the path it has in the container through one volume mount (items, subPath)."""
    base = mount.get("mountPath")
    if not isinstance(base, str) or not base.startswith("/") or "subPathExpr" in mount:
        return {}
    if "items" in volume_source:
        files = {}
        for item in as_list(volume_source.get("items")):
            k, p = as_dict(item).get("key"), as_dict(item).get("path")
            if isinstance(k, str) and isinstance(p, str) and p.strip("/"):
                files[k] = posixpath.normpath(p.strip("/"))
    else:
        files = {k: k for k in keys}
    sub = mount.get("subPath")
    if isinstance(sub, str) and sub.strip("/"):
        sub = posixpath.normpath(sub.strip("/"))
        return {k: posixpath.normpath(base) for k, f in files.items() if f == sub}
    return {k: posixpath.join(posixpath.normpath(base), f) for k, f in files.items()}


def mounts_by_config_map(resources: list[Any]) -> dict[tuple[Optional[str], str], list[tuple[str, Mount]]]:
    """(namespace written or None, ConfigMap name) -> (key, mount) of every container of the resources' pod templates
    that mounts a key of that ConfigMap as a file (a configMap volume or a projected volume's configMap source)."""
    keys_of: dict[str, list[str]] = {}
    for r in resources:
        if r.type == CONFIG_MAP_TYPE and isinstance(name := get(r.props, "metadata", "name"), str):
            keys_of.setdefault(name, []).extend(k for k in as_dict(get(r.props, "data")) if isinstance(k, str))
    index: dict[tuple[Optional[str], str], list[tuple[str, Mount]]] = {}
    if not keys_of:
        return index
    for r in resources:
        if r.type == CONFIG_MAP_TYPE or not isinstance(r.props, Mapping):
            continue
        namespace = get(r.props, "metadata", "namespace")
        namespace = namespace if isinstance(namespace, str) and namespace else None
        owner = f"{split_type(r.type)[1]}/{get(r.props, 'metadata', 'name') or r.name}"
        for path, podspec in pod_specs(r):
            sources: dict[str, list[Mapping]] = {}
            for volume in as_list(podspec.get("volumes")):
                volume = as_dict(volume)
                found = [as_dict(volume.get("configMap"))] + [
                    as_dict(as_dict(s).get("configMap")) for s in as_list(get(volume, "projected", "sources"))
                ]
                for source in found:
                    if isinstance(source.get("name"), str) and source["name"] in keys_of and isinstance(volume.get("name"), str):
                        sources.setdefault(volume["name"], []).append(source)
            if not sources:
                continue
            renders = _pod_renders(podspec)
            for c in containers(podspec, init=True):
                for item in as_list(c.get("volumeMounts")):
                    mount = as_dict(item)
                    for held in sources.get(str(mount.get("name")), []):
                        name = held["name"]
                        for key, file in _key_paths(held, mount, keys_of[name]).items():
                            entry = (key, Mount(f"{owner} {container_label(path, c)}", c, file, renders))
                            index.setdefault((namespace, name), []).append(entry)
    return index


def _consumer_of(container: Mapping) -> Optional[Consumer]:
    image = container.get("image")
    if not isinstance(image, str) or not image:
        return None
    reference = image.split("@", 1)[0].lower()
    last = reference.rsplit("/", 1)[-1].split(":", 1)[0]
    for consumer in CONSUMERS:
        if any(word in last for word in consumer.not_names):
            continue
        if any(marker in reference for marker in consumer.images) and any(n in reference for n in consumer.names):
            return consumer
        if any(last == n or last.startswith((f"{n}-", f"{n}_")) for n in consumer.names):
            return consumer
    return None


def _by_name(name: str) -> Optional[Consumer]:
    return next((c for c in CONSUMERS if c.name == name), None)


def _env_value(container: Mapping, name: str) -> Optional[str]:
    for item in as_list(container.get("env")):
        if isinstance(item, Mapping) and item.get("name") == name and isinstance(item.get("value"), str):
            return item["value"]
    return None


def _rendered(consumer: Consumer, mount: Mount) -> bool:
    """True when the consumer's image renders the file at the mount's path before the program reads it."""
    if not consumer.template_dirs:
        return False
    folder_env, suffix_env = consumer.template_env
    folders = [_env_value(mount.container, folder_env) or d for d in consumer.template_dirs] if folder_env else []
    suffix = _env_value(mount.container, suffix_env) if suffix_env else None
    suffixes = (suffix,) if suffix else consumer.template_suffixes
    return any(mount.path.startswith(folder.rstrip("/") + "/") for folder in folders) and mount.path.endswith(suffixes)


def _nginx_unknown(consumer: Consumer, value: str, variables: list[str]) -> list[str]:
    """The ALL-CAPS variables of an nginx text that are none of nginx's own and that the text does not define."""
    defined = {(a or b).lower() for a, b in _NGINX_DEFINES.findall(value)}
    out = []
    for form in variables:
        name = form.strip("${}").split(":", 1)[0]
        lower = name.lower()
        if name != name.upper() or lower in consumer.own_variables or lower.startswith(consumer.own_prefixes):
            continue
        if lower not in defined:
            out.append(form)
    return out


def config_map_findings(resource: Any, mounts: Mapping[tuple[Optional[str], str], list[tuple[str, Mount]]]) -> list[str]:
    """One finding naming a ConfigMap's keys that hold fill-ins or variables their consumer does not expand, or none."""
    from policies.reading.litellm import litellm_configs

    data = as_dict(get(resource.props, "data"))
    if not data or not any(isinstance(v, str) and _may_hold(v) for v in data.values()):
        return []
    name = get(resource.props, "metadata", "name")
    namespace = get(resource.props, "metadata", "namespace")
    namespace = namespace if isinstance(namespace, str) and namespace else None
    mounted: list[tuple[str, Mount]] = []
    for (space, held), entries in mounts.items():
        if held == name and (space is None or namespace is None or space == namespace):
            mounted += entries
    litellm_keys = {key for key, _ in litellm_configs(resource)}
    hits: list[str] = []
    literal: list[str] = []
    for key, value in data.items():
        if not isinstance(key, str) or not isinstance(value, str):
            continue
        if words := fill_ins(key, value):
            hits.append(f"data.{key} holds {', '.join(words[:_MAX_SHOWN])}" + (" and more" if len(words) > _MAX_SHOWN else ""))
        if "$" not in value or _code(key, value):
            continue
        variables = _variables(value)
        if not variables:
            continue
        readers = [(m, _consumer_of(m.container)) for k, m in mounted if k == key]
        if any(m.renders for m, _ in readers):
            continue
        litellm = _by_name("litellm")
        if litellm is not None and (key in litellm_keys or any(c is litellm for _, c in readers)):
            shown = ", ".join(variables[:_MAX_SHOWN])
            literal.append(
                f"data.{key} holds {shown} in a {litellm.display} configuration, which the proxy reads as written: it "
                f"expands only {' and '.join(litellm.expands)}, so the value reaches it literally (a password, key or "
                f"URL that is the placeholder's text); write os.environ/NAME, or render the file before the proxy reads it"
            )
            continue
        for mount, consumer in readers:
            if consumer is None or consumer.name != "nginx" or _rendered(consumer, mount):
                continue
            unknown = _nginx_unknown(consumer, value, variables)
            if unknown:
                folder = consumer.template_dirs[0]
                literal.append(
                    f"data.{key}, mounted by {mount.label} at {mount.path}, holds {', '.join(unknown[:_MAX_SHOWN])}: "
                    f"nginx reads no environment, takes it for a variable of its own that nothing defines and refuses "
                    f"the configuration (unknown variable), so the server never starts; only files under {folder} "
                    f"named *{consumer.template_suffixes[0]} are passed through envsubst by the image's entrypoint: "
                    f"mount it there (e.g. default.conf{consumer.template_suffixes[0]})"
                )
                break
    findings = []
    if hits:
        shown = "; ".join(hits[:_MAX_SHOWN]) + (f"; and {len(hits) - _MAX_SHOWN} more" if len(hits) > _MAX_SHOWN else "")
        findings.append(
            f"{shown}: a fill-in its author left for the user, which the program reading it takes literally (a host "
            f"that does not resolve, a key no server accepts, a list where a name belongs); fill it in before applying"
        )
    return findings + literal
