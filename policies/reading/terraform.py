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
  of a values file (``spec.chart.spec.chart``/``version``, ``spec.values``), so the release rules read it; values
  may be a ``data "template_file"``'s render (``data.template_file.NAME[0].rendered``, its ``vars`` filled in);
- ``resource "kubernetes_deployment"``/``"kubernetes_service"`` (and ``_v1``): the object the HCL blocks describe
  (policies/reading/terraform_kubernetes.py). ``count``/``for_each`` resources are read once, ``each.key`` unknown.

A Terraform interpolation ``${...}`` is a value the plan fills: the literal the module writes for it where it writes
one (a variable's literal default, a local, a template's vars, a conditional whose results agree:
policies/reading/terraform_scope.py), else the fill-in ``${var_name}`` that policies/reading/placeholders.py reads as
UNKNOWN for every rule and that no rule reports as unrendered (terraform_filled); ``%{...}`` directive lines are
dropped. Every
object is best-effort (its findings advice: ``chart`` label), reported on the .tf file at the resource's line, or a
release whose values are one file of the run (``templatefile("values.yml.tpl", {...})``) on that file, line 1: the
findings are about its values (spent set 121 brunostjohn/homelab terraform/cluster_apps/templates/ollama.yml.tpl).
"""

from __future__ import annotations

import functools
import json
import os
import re
from typing import Any, Callable, Mapping, NamedTuple, Optional, TypeVar

import yaml

from components.loading import MANIFESTS, Document, LoadError, load_yaml_documents, read_bounded
from policies.reading.helm_values import merged_values, set_value
from policies.reading.run_bounds import within_run
from policies.reading.terraform_kubernetes import KINDS, kubernetes_object
from policies.reading.terraform_scope import (
    MAX_PARSED,
    Scope,
    as_text,
    creates_none,
    folder_scope,
    module_calls,
    resolve,
    template_file,
)
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
# A chart package's URL: .../NAME-VERSION.tgz, the version a SemVer (helm v3.16.4 pkg/chartutil/save.go:111).
_PACKAGE_URL = re.compile(r"/([A-Za-z0-9][\w.-]*?)-(v?\d+\.\d+\.\d+(?:[-+][\w.+-]*)?)\.tgz(?:[?#].*)?$")
# The path argument of each file()/templatefile() call in an expression (yamldecode(file("...")) included).
_FILE_ARGUMENT = re.compile(r'\b(?:templatefile|file)\((\s*"(?:[^"\\]|\\.)*")')
# A release's values entry naming a template_file's render: data.template_file.NAME[0].rendered.
_TEMPLATE_REFERENCE = re.compile(r"^\$\{data\.template_file\.([\w-]+)(?:\[[^\]]*\])?\.rendered\}$")
_NO_NAMES: Mapping[str, Any] = {}
# jsonencode()/yamlencode() calls nested in one another that are rendered as their text (deeper ones stay fill-ins).
_MAX_NESTED_CALLS = 4


def _fill_in(match: re.Match, names: Mapping[str, Any]) -> str:
    inner = match.group(1).strip()
    known = resolve(inner, names) if names else None
    if known is not None:
        return as_text(known)  # a literal the module writes (terraform_scope): the text Terraform renders
    name = re.sub(r"\W+", "_", inner).strip("_") if _NAME.fullmatch(inner) else "tf_expression"
    return "${" + (name or "tf_expression") + "}"


def unknowns(text: str, names: Mapping[str, Any] = _NO_NAMES) -> str:
    """``text`` with each Terraform interpolation as the literal it names in ``names`` (terraform_scope) or else a
    ``${name}`` fill-in, and its directive lines dropped."""
    if "%{" in text:
        text = _DIRECTIVE.sub("", _DIRECTIVE_LINE.sub("", text))
    if "${" in text:
        text = _INTERPOLATION.sub(lambda m: _fill_in(m, names), text).replace("$${", "${")
    return text.replace("%%{", "%{")


def _whole(value: Any) -> bool:
    """True for a string that is one interpolation (``"${var.replicas}"``)."""
    return isinstance(value, str) and value.startswith("${") and value.endswith("}") and value.count("${") == 1


def _unescaped(text: str) -> str:
    """A string as Terraform reads it: python-hcl2 keeps a quoted string's escapes (backslash, quote, n, t) and
    escapes a heredoc's backslashes; ``$${`` and ``%%{`` are a literal ``${`` and ``%{``."""
    if "\\" in text:
        text = _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(1)), text)
    return text


def _value(value: Any, scope: Scope, depth: int = 0) -> Any:
    """An HCL value (python-hcl2's serialisation, quotes stripped) with its interpolations as fill-ins, and a
    ``jsonencode``/``yamlencode`` of a literal object inside it as the text Terraform makes of it (review55e: a
    ``jsonencode({...})`` ConfigMap value nested in the ``yamlencode({...})`` body)."""
    if isinstance(value, dict):
        return {
            _value(k, scope, depth) if isinstance(k, str) else k: _value(v, scope, depth)
            for k, v in value.items()
            if not str(k).startswith("__")
        }
    if isinstance(value, list):
        # In a list (a command's words, list(string) arguments of the provider) a number the module names is its text.
        return [
            as_text(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and _whole(item) else v
            for item in value
            for v in [_value(item, scope, depth)]
        ]
    if isinstance(value, str):
        known = resolve(value[2:-1], scope.names) if _whole(value) else None
        if known is not None:
            return known  # "${var.replicas}" of a literal 2 is the number 2
        encoded = _encoded(value, scope, depth)
        return encoded if encoded is not None else unknowns(_unescaped(value), scope.names)
    return value


def _encoded(value: str, scope: Scope, depth: int) -> Optional[str]:
    """The text ``jsonencode(OBJECT)``/``yamlencode(OBJECT)`` makes of a literal object or list (Terraform's
    jsonencode writes object keys in lexical order, without blanks), or None."""
    call = _CALL.match(value) if depth < _MAX_NESTED_CALLS and value.startswith("${") else None
    if call is None or call.group(1) not in ("jsonencode", "yamlencode"):
        return None
    inner = _expression(call.group(2))
    if not isinstance(inner, (dict, list)):
        return None
    data = _value(inner, scope, depth + 1)
    if call.group(1) == "jsonencode":
        return json.dumps(data, sort_keys=True, separators=(",", ":"))
    return yaml.safe_dump(data, sort_keys=True)


def _load(text: str) -> dict:
    import hcl2
    from hcl2.utils import SerializationOptions

    options = SerializationOptions(
        with_comments=False, with_meta=True, strip_string_quotes=True, preserve_heredocs=False, explicit_blocks=False
    )
    return hcl2.loads(text, serialization_options=options)


# A .tf file's parse, kept for the run: its folder's scope (terraform_scope.folder_scope) parses it too.
_parsed = functools.lru_cache(maxsize=32)(_load)


def _expression(text: str) -> Any:
    """The value of one HCL expression written as text (an object literal, a string), or None."""
    try:
        return _load(f"x = {text}\n").get("x")
    except Exception:
        return None


def _path(argument: str, scope: Scope) -> Optional[str]:
    """The file a ``file("...")``/``templatefile("...", {...})`` argument names, when it is in the run."""
    match = _QUOTED.match(argument.strip())
    if match is None:
        return None
    raw = unknowns(_PATH_VARS.sub(".", match.group(1)), scope.names)  # the module's folder: the .tf file's
    if "${" in raw:
        return None
    path = raw if os.path.isabs(raw) else os.path.normpath(os.path.join(scope.folder, raw))
    return path if path.endswith(_TEXT_SUFFIXES) and os.path.isfile(path) and within_run(path) else None


def _text(value: Any, scope: Scope, rendered: bool = False) -> Optional[str]:
    """The text a string attribute stands for, its interpolations rendered where the module says them literally: a
    literal/heredoc, the file a file() reads, a templatefile() or ``data "template_file"`` rendered with its vars."""
    if not isinstance(value, str):
        return None
    template = template_file(value[2:-1], scope) if _whole(value) else None
    if template is not None:  # data.template_file.NAME.rendered: its template with its vars
        return _text(template.get("template"), scope.inside(template.get("vars")), rendered=True)
    call = _CALL.match(value)
    if call is None:
        return None if _whole(value) else unknowns(_unescaped(value), scope.names)
    if call.group(1) not in ("file", "templatefile"):
        return None
    path = _path(call.group(2), scope)
    if path is None:
        return None
    try:
        text = read_bounded(path, MANIFESTS)  # the pack's byte limit, as for any file it reads (review55e)
    except (LoadError, OSError, UnicodeDecodeError):
        return None
    if call.group(1) == "file":
        return unknowns(text, scope.names) if rendered else text  # a template_file's template: with its vars
    inner = _expression(f"[{call.group(2)}]")
    return unknowns(text, scope.inside(inner[1] if isinstance(inner, list) and len(inner) > 1 else None).names)


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


def _structured(value: Any, scope: Scope, source: str = "") -> list[Any]:
    """The documents a yaml_body/manifest/values entry holds (a mapping, yamlencode/yamldecode of one, or YAML text)."""
    if isinstance(value, dict):
        return [_value(value, scope)]
    if not isinstance(value, str):
        return []
    call = _CALL.match(value)
    if call is not None and call.group(1) in ("yamlencode", "jsonencode"):
        inner = _expression(source) if source else None  # the argument's own text: heredocs in it parse as written
        return [_value(inner, scope)] if isinstance(inner, dict) else []
    if call is not None and call.group(1) == "yamldecode":
        return _structured_text(call.group(2), scope)
    return _yaml(_text(value, scope))


def _structured_text(argument: str, scope: Scope) -> list[Any]:
    inner = _expression(argument)
    return _yaml(_text(inner, scope)) if isinstance(inner, str) else []


def values_file(body: dict, scope: Scope) -> Optional[str]:
    """The one file of the run a release's values come from (``values = [file(...)]``, ``templatefile(...)``): its
    findings are about that file's values, so they are reported there (a values template labelled as such)."""
    entries = body.get("values")
    entries = entries if isinstance(entries, list) else [entries]
    paths = _files_read(entries, scope)
    return paths[0] if len(entries) == 1 and len(paths) == 1 else None


def _release(name: str, body: dict, scope: Scope, kind: str = "helm_release") -> Optional[dict]:
    chart = _value(body.get("chart"), scope)
    if not isinstance(chart, str) or "${" in chart:
        return None
    values: dict = {}
    entries = body.get("values")
    for entry in entries if isinstance(entries, list) else [entries]:
        for doc in _structured(entry, scope):
            if isinstance(doc, dict):
                values = merged_values(values, doc)
    for key in ("set", "set_sensitive"):
        blocks = body.get(key)
        for block in blocks if isinstance(blocks, list) else [blocks] if isinstance(blocks, dict) else []:
            if isinstance(block, dict) and isinstance(block.get("name"), str) and "value" in block:
                # type "string" is --set-string, "auto" (the default) --set (terraform-provider-helm v3.1.2
                # helm/resource_helm_release.go:1547-1557 getValue): "true" a boolean only for the second
                string = _value(block.get("type"), scope) == "string"
                set_value(values, block["name"], _value(block["value"], scope), string=string)
    spec: dict = {"chart": chart.rsplit("/", 1)[-1]}
    packaged = _PACKAGE_URL.search(chart) if "://" in chart and not chart.startswith("oci://") else None
    if packaged is not None:
        # A chart given as the URL of its package: Helm downloads that file and ignores any version (helm v3.16.4
        # pkg/downloader/chart_downloader.go:187 "For fully qualified URLs, the version will be ignored"), and a
        # package is named NAME-VERSION.tgz (pkg/chartutil/save.go:111), so the URL pins the version (review55e).
        spec = {"chart": packaged.group(1), "version": packaged.group(2)}
    if not any(body.get(k) for k in _REPOSITORY) and "/" in chart and "://" not in chart:  # a chart folder of the repository
        spec["sourceRef"] = {"kind": "GitRepository", "name": "terraform"}  # (helm_charts.installs_from_folder)
    version = next((body[k] for k in _VERSION if k in body), None)
    if isinstance(version, (str, int, float)) and str(version) and packaged is None:
        spec["version"] = unknowns(str(version), scope.names)
    release = _value(body.get("name"), scope)
    meta: dict = {
        # the release's name, or the resource's when an expression names it (no fill-in in a name: S26 would read it)
        "name": release if isinstance(release, str) and "${" not in release else name.replace("_", "-"),
        "annotations": {READ_FROM: f"Terraform {kind}.{name} of the {spec['chart']} chart"},
    }
    namespace = _value(body.get("namespace"), scope)
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
        spans = []
        for call in block.find_data("function_call"):
            name = next(iter(call.children), None)
            args = next((c for c in call.children if getattr(c, "data", None) == "arguments"), None)
            if name is not None and "".join(name.scan_values(lambda v: True)) in ("yamlencode", "jsonencode") and args:
                spans.append((args.meta.start_pos, args.meta.end_pos))
        # The outermost call: lark's find_data yields the innermost first, and a jsonencode({...}) nested in the body's
        # yamlencode({...}) was read as the body (review55e: the object was lost).
        outer = [(a, b) for a, b in spans if not any(c <= a and b <= d and (c, d) != (a, b) for c, d in spans)]
        source = text[slice(*min(outer))] if outer else ""
        out[(labels[1], labels[2])] = (block.meta.line, source)
    return out


# policies.manifests' ManifestObject and Unreadable (that module imports this one only when a run holds a .tf file).
_Read = TypeVar("_Read", bound=Any)
_Unread = TypeVar("_Unread", bound=Any)


class TerraformObject(NamedTuple):
    """One object a .tf file's resource applies, where it is reported, and the files of its text or values."""

    data: dict
    line: int
    label: str
    at: str  # the file its findings are reported on: the .tf file, or the one values file of a release
    # The files (as _path names them) the resource reads its body or values from with file()/templatefile(): an
    # object whose body is a file the run reads on its own is that file's object (review55e: read once), and a values
    # file a release reads is not "a file with no Kubernetes object".
    read: tuple[str, ...] = ()


def _files_read(value: Any, scope: Scope) -> tuple[str, ...]:
    """The files of file()/templatefile() calls in an expression (or the template of a template_file it names)."""
    entries = value if isinstance(value, list) else [value]
    entries = [(scope.templates.get(t) or {}).get("template") if (t := _template_name(e)) else e for e in entries]
    found = (_path(m.group(1), scope) for e in entries if isinstance(e, str) for m in _FILE_ARGUMENT.finditer(e))
    return tuple(os.path.abspath(p) for p in found if p)


def _template_name(entry: Any) -> Optional[str]:
    match = _TEMPLATE_REFERENCE.match(entry) if isinstance(entry, str) else None
    return match.group(1) if match is not None else None


class TerraformRun(dict):
    """By the id of each object read, the files of the run it reads (read_once); and the run's .tf files, whose module
    calls set the variables of the modules they call (terraform_scope.module_calls, read at the first .tf file)."""

    def __init__(self, files: list[str]) -> None:
        super().__init__()
        self.files = [f for f in files if f.endswith(".tf")]
        self.calls: Optional[dict[str, tuple]] = None

    def module_calls(self) -> dict[str, tuple]:
        if self.calls is None:
            self.calls = module_calls(self.files, _parsed)
        return self.calls


def terraform_objects(file: str, text: str, calls: Optional[Mapping[str, tuple]] = None) -> list[TerraformObject]:
    """Each Kubernetes object and Helm release the .tf file's resources apply; [] when the file does not parse
    (another tool's file: not this pack's to report)."""
    if not any(word in text for word in ("kubectl_manifest", "kubernetes_", "helm_release", "chart")):
        return []
    if len(text) > MAX_PARSED:
        return []  # the HCL parser takes ~17 s on 670 KB (review55e): a file that large is not read
    import hcl2

    try:
        tree = _parsed(text)
    except Exception:
        # A heredoc's closing marker with trailing blanks (brokedba/vllm-lab vllm-production-stack.tf ``YAML  ``),
        # which the parser's lexer refuses: the lines without them (same lines, so every line stays put).
        text = "\n".join(line.rstrip() for line in text.split("\n"))
        try:
            tree = _parsed(text)
        except Exception:
            return []
    try:
        blocks = _blocks(hcl2.parses_to_tree(text), text)
    except Exception:
        blocks = {}
    scope = folder_scope(os.path.dirname(file) or ".", _parsed, calls)
    out: list[TerraformObject] = []
    for group in tree.get("resource") or []:
        if not isinstance(group, dict):
            continue
        for rtype, named in group.items():
            if rtype not in ("kubectl_manifest", "kubernetes_manifest", "helm_release", *KINDS) or not isinstance(named, dict):
                continue
            for name, body in named.items():
                if not isinstance(body, dict) or creates_none(body, scope.names):
                    continue  # count = 0, for_each = {}: no object (review57)
                line, source = blocks.get((rtype, name), (1, ""))
                read: tuple[str, ...]
                label = f"Terraform {rtype}.{name}"
                at, read = file, ()
                if rtype in KINDS:  # an HCL resource of the kubernetes provider: the object it creates
                    docs: list[Any] = [kubernetes_object(rtype, _value(body, scope))]
                elif rtype == "helm_release":
                    docs = [d for d in [_release(name, body, scope)] if d]
                    at = values_file(body, scope) or file
                    read = _files_read(body.get("values"), scope)
                else:
                    written = body.get("yaml_body" if rtype == "kubectl_manifest" else "manifest")
                    docs = _structured(written, scope, source)
                    read = _files_read(written, scope)
                out.extend(TerraformObject(d, line if at == file else 1, label, at, read) for d in docs if isinstance(d, dict))
    for group in tree.get("module") or []:
        for name, body in group.items() if isinstance(group, dict) else ():
            if (
                isinstance(body, dict)
                and isinstance(body.get("chart"), str)
                and any(body.get(k) for k in _REPOSITORY)
                and not creates_none(body, scope.names)
            ):
                release = _release(name, body, scope, "module")
                line = blocks.get(("module", name), (1, ""))[0]
                at = values_file(body, scope) or file
                read = _files_read(body.get("values"), scope)
                out.extend(
                    [TerraformObject(release, line if at == file else 1, f"Terraform module.{name}", at, read)] if release else []
                )
    return out


def read_terraform(
    file: str, text: str, objects_of: Callable[..., list[_Read]], counts: Any, read: dict[int, tuple[str, ...]]
) -> list[_Read]:
    """The objects (``objects_of(document, reported file, counts, label)``: policies.manifests' reading of one
    document, ``counts`` its ReadCounts) of a .tf file's resources; ``read`` gets, by the id of each, the files of the
    run it reads (read_once)."""
    counts.files += 1
    out = []
    calls = read.module_calls() if isinstance(read, TerraformRun) else None
    for i, found in enumerate(terraform_objects(file, text, calls)):
        for obj in objects_of(Document(found.data, i, found.line), found.at, counts, found.label):
            read[id(obj)] = found.read
            out.append(obj)
    return out


def read_once(
    objects: list[_Read], unreadable: list[_Unread], read: dict[int, tuple[str, ...]]
) -> tuple[list[_Read], list[_Unread]]:
    """A file of the run that a Terraform resource reads with file()/templatefile() is read once (review55e): an
    object whose body is a file with objects of its own is that file's object (not counted twice), and a values file
    of a release is that release's values (not a file with no object, nor a release of its own by shape)."""
    if not read:
        return objects, unreadable
    own = {os.path.abspath(o.file) for o in objects if id(o) not in read}
    values = {p for o in objects if o.kind == "HelmRelease" for p in read.get(id(o), ())}
    kept = [
        o
        for o in objects
        if not (id(o) in read and own.intersection(read[id(o)]))
        and not (id(o) not in read and os.path.abspath(o.file) in values and o.kind == "HelmRelease" and o.chart == "")
    ]
    rest = [u for u in unreadable if not (u.kind == "not-kubernetes" and os.path.abspath(u.file) in values)]
    return kept, rest
