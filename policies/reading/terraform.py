"""Kubernetes objects and Helm releases written inside Terraform (``.tf`` files), read as the objects they apply.

Platform repositories keep their serving manifests in Terraform (spent set 119: CyrusTC/aws-eks-llm-perf-test
model.tf's ``kubectl_manifest`` of a vLLM Deployment through ``yamlencode({...})``, brokedba/vllm-lab's
``helm_release`` of the vllm-stack chart). Read here, with the maintained HCL2 parser (python-hcl2, imported only when
a run holds a ``.tf`` file):

- ``resource "kubectl_manifest"`` (gavinbunney/kubectl, alekc/kubectl) ``yaml_body``: a heredoc, ``yamlencode({...})``,
  ``file(...)`` or ``templatefile(...)`` of a file beside the .tf (``${path.module}``/``${path.root}``);
- ``resource "kubernetes_manifest"`` (hashicorp/kubernetes) ``manifest``: an HCL object or ``yamldecode(...)`` of the
  same forms;
- ``resource "helm_release"`` (hashicorp/helm): chart, version and values (``values = [...]`` heredocs/files, then
  ``set {}`` blocks, later ones winning as Helm merges them) as the synthetic HelmRelease policies/values_files.py makes
  of a values file (``spec.chart.spec.chart``/``version``, ``spec.values``), so the release rules read it.

A Terraform interpolation ``${...}`` is a value the plan fills: written as the fill-in ``${var_name}`` that
policies/reading/placeholders.py reads as UNKNOWN, never as the text; ``%{...}`` directive lines are dropped. Every
object is best-effort (its findings advice: ``chart`` label), reported on the .tf file at the resource's line, or a
release whose values are one file of the run (``templatefile("values.yml.tpl", {...})``) on that file, line 1: the
findings are about its values (spent set 121 brunostjohn/homelab terraform/cluster_apps/templates/ollama.yml.tpl).
"""

from __future__ import annotations

import os
import re
from typing import Any, Optional

from components.loading import MANIFESTS, LoadError, load_yaml_documents, read_bounded
from policies.values_files import READ_FROM

# A ${...} interpolation (nested braces one level deep, as `${merge({a = 1})}` writes) and a %{...} directive line.
_INTERPOLATION = re.compile(r"(?<!\$)\$\{((?:[^{}]|\{[^{}]*\})*)\}")
_DIRECTIVE_LINE = re.compile(r"^[ \t]*%\{[^}]*\}[ \t]*\n?", re.MULTILINE)
_DIRECTIVE = re.compile(r"%\{[^}]*\}")
_NAME = re.compile(r"[A-Za-z_][\w.\[\]\"-]*")
_CALL = re.compile(r"^\$\{(yamlencode|jsonencode|yamldecode|file|templatefile)\((.*)\)\}$", re.S)
_PATH_VARS = re.compile(r"\$\{path\.(?:module|root|cwd)\}")
_QUOTED = re.compile(r'^"((?:[^"\\]|\\.)*)"')
_ESCAPE = re.compile(r"\\(.)", re.S)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}
# A module call that forwards a chart to a wrapper module of the repository's own (brunostjohn/homelab
# terraform/cluster_apps/ollama.tf: module "ollama_helm" { source = "../helm_deployment", repo_url, chart,
# target_revision, values = templatefile(...) }): a release when it names a chart and its repository.
_REPOSITORY = ("repository", "repo_url", "repository_url", "chart_repository", "repo")
_VERSION = ("version", "chart_version", "target_revision", "revision")
_TEXT_SUFFIXES = (".yaml", ".yml", ".tpl", ".tftpl", ".json", ".tmpl")


def _fill_in(match: re.Match) -> str:
    inner = match.group(1).strip()
    name = re.sub(r"\W+", "_", inner).strip("_") if _NAME.fullmatch(inner) else "tf_expression"
    return "${" + (name or "tf_expression") + "}"


def unknowns(text: str) -> str:
    """``text`` with each Terraform interpolation as a ``${name}`` fill-in and its directive lines dropped."""
    if "%{" in text:
        text = _DIRECTIVE.sub("", _DIRECTIVE_LINE.sub("", text))
    if "${" in text:
        text = _INTERPOLATION.sub(_fill_in, text).replace("$${", "${")
    return text.replace("%%{", "%{")


def _unescaped(text: str) -> str:
    """A string as Terraform reads it: python-hcl2 keeps a quoted string's escapes (backslash, quote, n, t) and
    escapes a heredoc's backslashes; ``$${`` and ``%%{`` are a literal ``${`` and ``%{``."""
    if "\\" in text:
        text = _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(1)), text)
    return text


def _value(value: Any) -> Any:
    """An HCL value (python-hcl2's serialisation, quotes stripped) with its interpolations as fill-ins."""
    if isinstance(value, dict):
        return {_value(k) if isinstance(k, str) else k: _value(v) for k, v in value.items() if not str(k).startswith("__")}
    if isinstance(value, list):
        return [_value(v) for v in value]
    if isinstance(value, str):
        return unknowns(_unescaped(value))
    return value


def _load(text: str) -> dict:
    import hcl2
    from hcl2.utils import SerializationOptions

    options = SerializationOptions(
        with_comments=False, with_meta=True, strip_string_quotes=True, preserve_heredocs=False, explicit_blocks=False
    )
    return hcl2.loads(text, serialization_options=options)


def _expression(text: str) -> Any:
    """The value of one HCL expression written as text (an object literal, a string), or None."""
    try:
        return _load(f"x = {text}\n").get("x")
    except Exception:
        return None


def _path(argument: str, folder: str) -> Optional[str]:
    """The file a ``file("...")``/``templatefile("...", {...})`` argument names, when it is in the run."""
    match = _QUOTED.match(argument.strip())
    if match is None:
        return None
    raw = _PATH_VARS.sub(".", match.group(1))  # the module's folder: the .tf file's
    if "${" in raw:
        return None
    path = raw if os.path.isabs(raw) else os.path.normpath(os.path.join(folder, raw))
    return path if path.endswith(_TEXT_SUFFIXES) and os.path.isfile(path) else None


def _text(value: Any, folder: str) -> Optional[str]:
    """The text a string attribute stands for: a literal/heredoc, or the file a file()/templatefile() reads."""
    if not isinstance(value, str):
        return None
    call = _CALL.match(value)
    if call is None:
        return None if value.startswith("${") and value.endswith("}") else _unescaped(value)
    if call.group(1) not in ("file", "templatefile"):
        return None
    path = _path(call.group(2), folder)
    if path is None:
        return None
    try:
        return read_bounded(path, MANIFESTS)  # the pack's byte limit, as for any file it reads (review55e)
    except (LoadError, OSError, UnicodeDecodeError):
        return None


def _yaml(text: Optional[str]) -> list[Any]:
    if text is None:
        return []
    try:
        # The pack's bounded composer (depth, node count, aliases): a heredoc nested 5,000 deep raised RecursionError
        # and an alias bomb never finished through yaml.safe_load_all (review55e).
        docs = load_yaml_documents("<terraform>", MANIFESTS, text=unknowns(text))
    except (LoadError, RecursionError):
        return []
    return [d.data for d in docs if d.data is not None]


def _structured(value: Any, folder: str, source: str = "") -> list[Any]:
    """The documents a yaml_body/manifest/values entry holds (a mapping, yamlencode/yamldecode of one, or YAML text)."""
    if isinstance(value, dict):
        return [_value(value)]
    if not isinstance(value, str):
        return []
    call = _CALL.match(value)
    if call is not None and call.group(1) in ("yamlencode", "jsonencode"):
        inner = _expression(source) if source else None  # the argument's own text: heredocs in it parse as written
        return [_value(inner)] if isinstance(inner, dict) else []
    if call is not None and call.group(1) == "yamldecode":
        return _structured_text(call.group(2), folder)
    return _yaml(_text(value, folder))


def _structured_text(argument: str, folder: str) -> list[Any]:
    inner = _expression(argument)
    return _yaml(_text(inner, folder)) if isinstance(inner, str) else []


def _set_path(values: dict, dotted: str, value: Any) -> None:
    parts = [p.replace("\\.", ".") for p in re.split(r"(?<!\\)\.", dotted)]
    here = values
    for part in parts[:-1]:
        nxt = here.get(part)
        if not isinstance(nxt, dict):
            nxt = here[part] = {}
        here = nxt
    here[parts[-1]] = value


def _merge(into: dict, new: dict) -> None:
    for key, value in new.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


def values_file(body: dict, folder: str) -> Optional[str]:
    """The one file of the run a release's values come from (``values = [file(...)]``, ``templatefile(...)``): its
    findings are about that file's values, so they are reported there (a values template labelled as such)."""
    entries = body.get("values")
    entries = entries if isinstance(entries, list) else [entries]
    calls = [_CALL.match(e) for e in entries if isinstance(e, str)]
    paths = [_path(c.group(2), folder) for c in calls if c is not None and c.group(1) in ("file", "templatefile")]
    return paths[0] if len(entries) == 1 and len(paths) == 1 else None


def _release(name: str, body: dict, folder: str, kind: str = "helm_release") -> Optional[dict]:
    chart = body.get("chart")
    if not isinstance(chart, str) or "${" in chart:
        return None
    values: dict = {}
    entries = body.get("values")
    for entry in entries if isinstance(entries, list) else [entries]:
        for doc in _structured(entry, folder):
            if isinstance(doc, dict):
                _merge(values, doc)
    for key in ("set", "set_sensitive"):
        blocks = body.get(key)
        for block in blocks if isinstance(blocks, list) else [blocks] if isinstance(blocks, dict) else []:
            if isinstance(block, dict) and isinstance(block.get("name"), str) and "value" in block:
                _set_path(values, block["name"], _value(block["value"]))
    spec: dict = {"chart": chart.rsplit("/", 1)[-1]}
    if not any(body.get(k) for k in _REPOSITORY) and "/" in chart and "://" not in chart:  # a chart folder of the repository
        spec["sourceRef"] = {"kind": "GitRepository", "name": "terraform"}  # (helm_charts.installs_from_folder)
    version = next((body[k] for k in _VERSION if k in body), None)
    if isinstance(version, (str, int, float)) and str(version):
        spec["version"] = unknowns(str(version))
    release = body.get("name")
    meta: dict = {
        # the release's name, or the resource's when an expression names it (no fill-in in a name: S26 would read it)
        "name": release if isinstance(release, str) and "${" not in release else name.replace("_", "-"),
        "annotations": {READ_FROM: f"Terraform {kind}.{name} of the {spec['chart']} chart"},
    }
    namespace = body.get("namespace")
    if isinstance(namespace, str) and "${" not in namespace:
        meta["namespace"] = namespace
    return {
        "apiVersion": "helm.toolkit.fluxcd.io/v2",
        "kind": "HelmRelease",
        "metadata": meta,
        "spec": {"chart": {"spec": spec}, "values": values},
    }


def _blocks(tree: Any, text: str) -> dict[tuple[str, str], tuple[int, str]]:
    """(type, name) of each resource block -> its line and the text of the first yamlencode/jsonencode argument in it."""
    out: dict[tuple[str, str], tuple[int, str]] = {}
    for block in tree.find_data("block"):
        words = [c for c in block.children if getattr(c, "data", None) in ("identifier", "string")]
        labels = ["".join(str(t) for t in w.scan_values(lambda v: True)).strip('"') for w in words[:3]]
        if labels[:1] == ["module"] and len(labels) >= 2:
            labels = ["module", "module", labels[1]]
        if len(labels) < 3 or labels[0] not in ("resource", "module"):
            continue
        source = ""
        for call in block.find_data("function_call"):
            name = next(iter(call.children), None)
            args = next((c for c in call.children if getattr(c, "data", None) == "arguments"), None)
            if name is not None and "".join(name.scan_values(lambda v: True)) in ("yamlencode", "jsonencode") and args:
                source = text[args.meta.start_pos : args.meta.end_pos]
                break
        out[(labels[1], labels[2])] = (block.meta.line, source)
    return out


# The largest .tf file parsed (python-hcl2's lark parser is slow on large inputs: ~17 s on 670 KB, review55e).
_MAX_PARSED = 256 * 1024


def terraform_objects(file: str, text: str) -> list[tuple[Any, int, str, str]]:
    """(object, line, label) for each Kubernetes object and Helm release the .tf file's resources apply; [] when the
    file does not parse (another tool's file: not this pack's to report)."""
    if not any(word in text for word in ("kubectl_manifest", "kubernetes_manifest", "helm_release", "chart")):
        return []
    if len(text) > _MAX_PARSED:
        return []  # the HCL parser takes ~17 s on 670 KB (review55e): a file that large is not read
    import hcl2

    try:
        tree = _load(text)
    except Exception:
        # A heredoc's closing marker with trailing blanks (brokedba/vllm-lab vllm-production-stack.tf ``YAML  ``),
        # which the parser's lexer refuses: the lines without them (same lines, so every line stays put).
        text = "\n".join(line.rstrip() for line in text.split("\n"))
        try:
            tree = _load(text)
        except Exception:
            return []
    try:
        blocks = _blocks(hcl2.parses_to_tree(text), text)
    except Exception:
        blocks = {}
    folder = os.path.dirname(file) or "."
    out: list[tuple[Any, int, str, str]] = []
    for group in tree.get("resource") or []:
        if not isinstance(group, dict):
            continue
        for rtype, named in group.items():
            if rtype not in ("kubectl_manifest", "kubernetes_manifest", "helm_release") or not isinstance(named, dict):
                continue
            for name, body in named.items():
                if not isinstance(body, dict):
                    continue
                line, source = blocks.get((rtype, name), (1, ""))
                label = f"Terraform {rtype}.{name}"
                at = file
                if rtype == "helm_release":
                    docs = [d for d in [_release(name, body, folder)] if d]
                    at = values_file(body, folder) or file
                else:
                    docs = _structured(body.get("yaml_body" if rtype == "kubectl_manifest" else "manifest"), folder, source)
                out.extend((d, line if at == file else 1, label, at) for d in docs if isinstance(d, dict))
    for group in tree.get("module") or []:
        for name, body in group.items() if isinstance(group, dict) else ():
            if isinstance(body, dict) and isinstance(body.get("chart"), str) and any(body.get(k) for k in _REPOSITORY):
                release = _release(name, body, folder, "module")
                line = blocks.get(("module", name), (1, ""))[0]
                at = values_file(body, folder) or file
                out.extend([(release, line if at == file else 1, f"Terraform module.{name}", at)] if release else [])
    return out
