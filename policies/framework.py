"""The policy pack's engine-independent core: resources, policies, violations, evaluation.

Nothing here imports Pulumi. The offline plan calls `evaluate` on what its mock engine
recorded; `policies.pulumi_adapter` wraps the same `Policy` objects for the Pulumi CLI. Both
apply config defaults, enforcement overrides and exemptions through the functions below, so
the two paths cannot disagree.
"""

from __future__ import annotations

import contextlib
import copy
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from policies import catalog as _catalog
from policies.exemptions import EXEMPTION_PREFIX as EXEMPTION_PREFIX
from policies.exemptions import UNEXEMPT, unexempt
from policies.exemptions import blank_exemption_message as blank_exemption_message
from policies.exemptions import exemption_reason as exemption_reason
from policies.exemptions import run_resource_policy as run_resource_policy
from policies.exemptions import run_stack_policy as run_stack_policy
from policies.finding_levels import Preference as Preference
from policies.finding_levels import Unproven as Unproven
from policies.finding_levels import finding_level as finding_level
from policies.finding_levels import preference as preference
from policies.finding_levels import unproven as unproven
from policies.kube import (
    CLUSTER_VIEW,
    WorkloadTypes,
    cluster_view,
    evaluation_memo,
    read_generically,
    split_type,
    unmerged_patches,
)
from policies.pack_config import ALL_POLICIES, ENFORCEMENT_LEVELS, config_errors
from policies.two_cores import split

SEVERITIES = ("low", "medium", "high", "critical")

# Where every policy is documented (generated from this registry by `python -m policies docs`);
# messages and reports link to DOCS_PAGE#<policy name>, never to files outside the repository.
DOCS_PAGE = "docs/policies.md"

_NAME_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


class Unknown:
    """A value the engine does not know yet (an output during `pulumi preview`).

    The adapter puts the singleton `UNKNOWN` where the Pulumi SDK hands over its unknown
    sentinel. No helper treats it as a number, string or list, so checks pass over what they
    cannot see instead of guessing; the real value is checked again on `pulumi up`.
    """

    _instance: Unknown | None = None

    def __new__(cls) -> Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "<unknown>"


UNKNOWN = Unknown()


@dataclass(frozen=True)
class Resource:
    """One resource as the Pulumi engine sees its inputs.

    `props` keeps the engine's shape: camelCase keys, CustomResource `spec`/`metadata`
    verbatim, every number possibly a float (2.0), secrets possibly redacted to "[secret]".
    `parent` is the parent's URN when known.
    """

    type: str
    name: str
    props: dict
    urn: str = ""
    parent: str | None = None
    # For an object a controller creates from ours (components/derive.Derived: controller, source, the
    # upstream rule behind each field it set); None for what the stack or a manifest file declares.
    origin: Any = None
    # True for a patch a Kustomize overlay merges onto a base (policies/reading/kustomize.py): the object lacks what
    # its base holds, so only what it states itself can prove a problem.
    patch: bool = False
    # True for a Kustomize base that a patch of the run targets (policies/reading/kustomize.py `targeted`): it lacks
    # by design what the patch adds, so findings on an absence are advice there, as on the patch.
    base: bool = False
    # The image names (without tag) a kustomization's `images` entry rewrites for this object: the tag written here
    # is not the one run, so a release read from it is unknown.
    retagged: frozenset = frozenset()
    # True for a Kustomize base whose replica count a kustomization's `replicas:` entry sets (kustomize.rescaled).
    rescaled: bool = False
    # For an object rendered best-effort from a Helm template (policies/reading/helm_chart.py): its chart, as reports
    # name it; "" otherwise. Every finding on it is advice (TEMPLATE_NOTE), and it changes no finding on the others.
    template: str = ""
    # (field path, placeholder) of the fields a file's object holds unrendered (policies/reading/placeholders.py);
    # `props` then has framework.UNKNOWN there, so rules read the value as unknown and S27 alone reports them. None:
    # not looked for (a Pulumi resource), S27 reads the props itself.
    unrendered: tuple | None = None
    # The props as the file writes them, where `unrendered` named placeholders (None otherwise): for the few rules that
    # judge the written text itself, never its value (G46 an image reference's grammar, G1 a literal tag beside a
    # placeholder registry: policies/reading/placeholders.py written_images).
    written: dict | None = None
    # (file, line, first differing field, applied later) of each other definition of it in its folder, content differing (G58)
    redefined: tuple = ()
    # The namespace a kustomization of the run that includes this object's file sets (``namespace:``), "" otherwise
    # (policies/reading/kustomize.py namespace_set): the built object carries it whatever the file says (G38).
    kustomize_namespace: str = ""


@dataclass(frozen=True)
class Violation:
    """One finding: which policy, at which enforcement level, on which resource, and why."""

    policy: str
    catalog: str
    enforcement: str  # "mandatory" | "advisory"
    resource: str  # resource name, "" for stack-wide
    message: str


# Pod templates another object completes: KServe merges a (Cluster)ServingRuntime's kserve-container under every
# InferenceService that selects it, the InferenceService's fields winning and its args appended (kserve v0.20.0
# pkg/controller/v1beta1/inferenceservice/utils/utils.go:253-263 MergeRuntimeContainers; policies/reading/
# kserve_runtime.py). What a pod rule finds in the runtime alone, the InferenceService (often another file) may
# set or override; the InferenceService is checked with the runtime merged in, and that finding blocks.
# A Flux HelmRelease or an Argo CD Application read as the pods of its app-template values (policies/app_template.py)
# or of a chart's defaults (policies/helm_charts.py; also a k3s HelmChart) is completed by Helm: values files, valuesFrom and post-renderers the files may not show change the rendered pod.
_COMPLETED_ELSEWHERE = frozenset(
    {
        ("serving.kserve.io", "ServingRuntime"),
        ("serving.kserve.io", "ClusterServingRuntime"),
        ("helm.toolkit.fluxcd.io", "HelmRelease"),
        ("argoproj.io", "Application"),
        ("helm.cattle.io", "HelmChart"),
    }
)


def completed_elsewhere(policy_types: Any, resource: Resource) -> bool:
    """True when a pod policy (its resource types a ``WorkloadTypes``) checks a template another object completes."""
    return isinstance(policy_types, WorkloadTypes) and split_type(resource.type) in _COMPLETED_ELSEWHERE


def patched_unknown(policy_types: Any, resource: Resource) -> bool:
    """True when a pod policy checks a resource read generically that holds a pod template patch whose base template
    was not found (policies.kube.unmerged_patches): neither the patch nor any base alone is a whole pod."""
    return isinstance(policy_types, WorkloadTypes) and bool(unmerged_patches(resource))


# What a finding on a generic read says of itself (the policy's ``operator_fills`` names the field).
GENERIC_NOTE = "advisory: read generically, and the operator that renders this kind's pods may fill in {}"


def operator_may_fill(policy: Policy, resource: Resource) -> bool:
    """True when ``policy`` reports a field an operator commonly fills (``operator_fills``) and ``resource`` was read
    generically (policies.kube.read_generically: a custom resource no reader knows, whose operator renders the pods)."""
    return bool(policy.operator_fills) and bool(read_generically(resource))


# Policies that judge a value an object states (an image tag, a literal credential, a privileged flag, a debug
# switch): in a Kustomize patch the stated value wins in the merged object (scalars replace, env merges by name), so
# their findings keep their level there. Every other finding on a patch may rest on a field its base holds.
STATED_VALUE_POLICIES = frozenset(
    {
        "image-tag-pinned",
        "no-literal-secret-env",
        "no-literal-credential",
        "no-privileged",
        "no-host-namespaces",
        "capabilities-allow-list",
        "debug-switches-off",
        "hf-token-not-empty",
        "live-object-export",
    }
)
PATCH_NOTE = "advisory: a patch that Kustomize merges onto a base, which may set what it lacks"
BASE_NOTE = "advisory: a Kustomize base that a patch of the files read targets, which may add what it lacks"


def _on_patch(policy: Policy, message: str, note: str = PATCH_NOTE) -> str:
    """A finding on a Kustomize patch (or a base a patch targets, ``note`` BASE_NOTE): unproven (and said so) unless
    the policy judges a value the object states."""
    if policy.name in STATED_VALUE_POLICIES or isinstance(message, Unproven):
        return message
    return unproven(f"{message} ({note})")


def _patch_note(resource: Resource) -> str:
    """What a finding on a Kustomize patch or on a base a patch targets says of itself; "" for any other object."""
    return PATCH_NOTE if resource.patch else BASE_NOTE if resource.base else ""


def _weighed(policy: Policy, message: str, partial: bool, generic: bool, patch: str = "") -> str:
    """A resource policy's finding, marked unproven where another object completes the template (``partial``), an
    operator may fill the field on a generic read (``generic``, which the message then says), or the resource is a
    Kustomize patch or a base a patch targets (``patch`` the note to add, policies/reading/kustomize.py)."""
    if generic:
        return unproven(f"{message} ({GENERIC_NOTE.format(policy.operator_fills)})")
    if patch:
        return _on_patch(policy, message, patch)
    return unproven(message) if partial else message


# What a finding on an object rendered from a Helm template says of itself: the chart's values.yaml stood in for the
# values files and `--set` flags of the real release, so even a literal line of the template proves nothing deployed.
TEMPLATE_NOTE = (
    "advisory: from a Helm template rendered best-effort with its chart's values.yaml; values files and --set "
    "change what is deployed"
)
TERRAFORM_NOTE = "advisory: from a Terraform resource read best-effort; variables at literal defaults, other expressions unknown"
PULUMI_NOTE = "advisory: from a Pulumi program read best-effort without its engine; config, outputs and loops unknown"
HELMFILE_NOTE = "advisory: from a {} read best-effort; its template actions and environment are unknown here"


# What `policies check` reports where a policy raised on an object (evaluate_policies ``failures``): the exception's type
# alone (its text may quote the manifest), and exit 3 says a bug happened.
CHECK_FAILED = (
    "could not be checked: {} (an internal error of the pack, not a finding on the manifest; every other policy and "
    "object was checked; LLM_SERVING_DEBUG=1 shows the traceback)"
)

# Resource.template of an object read best-effort from a document that does not parse (policies/reading/salvage.py):
# the repair is a guess at what the author meant, and kubectl applies nothing of the file as it stands.
SALVAGED = "~salvaged"
SALVAGE_NOTE = (
    "advisory: from a document that kubectl cannot apply as written (not valid YAML, or a repeated key), "
    "read best-effort after a small repair"
)


def _from_template(message: str, template: str = "") -> str:
    """A finding on an object read best-effort (a template's render, a SALVAGED document, Terraform, Pulumi): advice."""
    if template.startswith(("Terraform ", "Pulumi ")):  # policies/reading/terraform.py, pulumi_program.py
        return unproven(f"{message} ({TERRAFORM_NOTE if template[0] == 'T' else PULUMI_NOTE})")
    if template.startswith("helmfile release "):  # policies/reading/helmfile.py
        return unproven(f"{message} ({HELMFILE_NOTE.format(template)})")
    note = TEMPLATE_NOTE.replace("values.yaml;", f"values.yaml and {template.partition(' -f ')[2]};", 1)
    return unproven(f"{message} ({SALVAGE_NOTE if template == SALVAGED else note if ' -f ' in template else TEMPLATE_NOTE})")


def _best_effort_source(name: str, group: Sequence[Resource]) -> str:
    """What a stack finding on ``name`` that only best-effort objects bring rests on: the named object's source, else
    SALVAGED when every best-effort object of the group is salvaged, else a template's."""
    named = next((r.template for r in group if r.name == name and r.template), "")
    sources = {r.template == SALVAGED for r in group if r.template}
    return named or (SALVAGED if sources == {True} else "")


ResourceCheck = Callable[[Resource, dict], list[str]]
StackCheck = Callable[[list[Resource], dict], list[tuple[str, str]]]


@dataclass(frozen=True)
class Policy:
    """A policy's metadata plus exactly one pure check function.

    `check_resource(resource, config)` returns messages for one resource of one of
    `resource_types`; `check_stack(resources, config)` returns (resource name, message) pairs
    over the whole stack ("" as the name for a stack-wide finding). `config` is the policy's
    schema defaults merged with the user's values. `catalog` is an id of the policy catalogue
    (policies/catalog.py, the one list of ids: "S<n>" serving safety, "G<n>" general table).
    """

    name: str
    description: str
    catalog: str
    severity: str
    enforcement: str
    remediation_steps: str
    config_schema: dict[str, dict] = field(default_factory=dict)
    resource_types: tuple[str, ...] = ()
    check_resource: ResourceCheck | None = None
    check_stack: StackCheck | None = None
    # Why the policy exists, with public sources (URLs, upstream issues): the "Why" of the
    # generated docs page. Optional here so that a policy without it still loads; the
    # registry meta-test (tests/policies/test_policy_docs.py) names every policy that lacks it.
    rationale: str = ""
    # The fields an operator commonly fills into the pods it renders that this policy reports missing or short
    # (probes, /dev/shm, drain, requests and limits). Non-empty: on a custom resource read generically (no reader
    # knows its kind, policies.kube.read_generically) the policy's findings are advisory, not mandatory; what the
    # manifest itself proves (a :latest tag, a literal secret) stays at the policy's level in policies without it.
    operator_fills: str = ""
    # A stack policy whose findings on an object rest on that object alone (and on the cluster view, kube.cluster_view,
    # which every scope keeps), never on the other objects it is handed nor on none ("" as the name): a scope reporting
    # only some objects' findings (a folder's later variants, policies.scopes) hands it only those. False is always
    # right; tests/policies/test_policy_per_object.py holds each True to it on the objects of both corpora.
    per_object: bool = False

    def __post_init__(self) -> None:
        # Metadata errors are programming errors in the pack: fail at import, not at run time.
        problems = []
        if not _NAME_RE.match(self.name):
            problems.append(f"name {self.name!r} is not kebab-case")
        if not _catalog.is_id(self.catalog):
            problems.append(f"catalog {self.catalog!r} is not an id of the policy catalogue (policies/catalog.py)")
        if self.severity not in SEVERITIES:
            problems.append(f"severity {self.severity!r} is not one of {SEVERITIES}")
        if self.enforcement not in ENFORCEMENT_LEVELS[:2]:
            problems.append(f"enforcement {self.enforcement!r} is not mandatory or advisory")
        if (self.check_resource is None) == (self.check_stack is None):
            problems.append("exactly one of check_resource and check_stack must be set")
        if self.check_resource is not None and not self.resource_types:
            problems.append("a resource policy needs resource_types")
        if self.check_stack is not None and self.resource_types:
            problems.append("a stack policy takes no resource_types")
        if self.per_object and self.check_stack is None:
            problems.append("per_object is a stack policy's (a resource policy is checked object by object already)")
        if "enforcementLevel" in self.config_schema:
            problems.append("enforcementLevel is reserved by Pulumi and cannot be a config property")
        for prop, schema in self.config_schema.items():
            missing = [k for k in ("type", "default", "description") if k not in schema]
            if missing:
                problems.append(f"config property {prop} lacks {', '.join(missing)}")
        if problems:
            raise ValueError(f"policy {self.name}: " + "; ".join(problems))

    @property
    def exemption_annotation(self) -> str:
        """The annotation that exempts one resource from this policy; its value is the reason."""
        return f"{EXEMPTION_PREFIX}{self.name}"

    @property
    def docs_anchor(self) -> str:
        """The policy's section of the docs page, relative to the repository root."""
        return f"{DOCS_PAGE}#{self.name}"

    @property
    def is_stack_policy(self) -> bool:
        """True for a policy over the whole stack, False for a per-resource policy."""
        return self.check_stack is not None

    def defaults(self) -> dict[str, Any]:
        """The config this policy runs with when the user sets nothing."""
        # Copied so that a check can never alter the schema's defaults for later runs.
        return {prop: copy.deepcopy(schema["default"]) for prop, schema in self.config_schema.items()}


class PolicyConfigError(ValueError):
    """A pack config that does not validate; `errors` lists every problem found."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("invalid policy config: " + "; ".join(errors))
        self.errors = errors


def policy_settings(config: Mapping[str, Any] | None, policy: Policy) -> tuple[str, dict[str, Any]]:
    """Resolve one policy's enforcement level and config from a pack config.

    The pack config uses Pulumi's `--policy-pack-config` shape: `{policy-name: {prop: value,
    enforcementLevel: level}}`, or `{policy-name: level}` as shorthand, and `{"all": level}`
    for every policy; a policy's own entry wins over "all". Schema defaults fill what the
    user left out.
    """
    config = config or {}
    level = policy.enforcement
    if isinstance(config.get(ALL_POLICIES), str):
        level = config[ALL_POLICIES]
    values = dict(policy.defaults())
    entry = config.get(policy.name)
    if isinstance(entry, str):
        level = entry
    elif entry is not None and isinstance(entry, Mapping):
        for key, value in entry.items():
            if key == "enforcementLevel":
                level = value
            else:
                values[key] = value
    return level, values


def evaluate_policies(
    resources: Sequence[Resource],
    config: Mapping[str, Mapping] | None,
    policies: Sequence[Policy],
    *,
    scopes: Sequence[Sequence[Resource]] | None = None,
    reported: Sequence[frozenset[str] | None] | None = None,
    failures: list[Violation] | None = None,
) -> list[Violation]:
    """Run every policy over the resources and return the violations, sorted.

    `config` is a pack config (see `policy_settings`); it is validated first and a
    `PolicyConfigError` lists every problem. `policies.registry.evaluate` runs the whole pack. A policy
    whose level resolves to "disabled" is skipped. The result is sorted by (policy, resource,
    message) so that reports are byte-stable.

    `scopes` partitions the resources into groups that may be joined (one cluster each, policies.scopes): stack
    policies run on each group alone, so objects of two clusters are never joined (None: one stack); `reported` names
    per scope the resources whose findings it reports (None: all; policies.scopes variants). With ``failures`` (a list),
    a policy that raises on one object (or on one group, as a stack policy) adds a CHECK_FAILED finding there and the run
    goes on (`policies check`); without it, and under LLM_SERVING_DEBUG, the exception ends the run."""
    policies = tuple(policies)
    errors = config_errors(config, policies)
    if errors:
        raise PolicyConfigError(errors)
    groups = scopes if scopes is not None else (resources,)
    only_of = list(reported or [None] * len(groups))
    group_views = [_views(group, only) for group, only in zip(groups, only_of)]  # once, not once per policy
    every = {id(r): r for group in (resources, *groups) for r in group}
    token = UNEXEMPT.set(frozenset(key for key, r in every.items() if unexempt(r)))
    try:
        return _evaluated(policies, config, groups, only_of, group_views, failures)
    finally:
        UNEXEMPT.reset(token)


def _evaluated(
    policies: tuple[Policy, ...],
    config: Mapping[str, Mapping] | None,
    groups: Sequence[Sequence[Resource]],
    only_of: list[frozenset[str] | None],
    group_views: list[list[_View]],
    failures: list[Violation] | None,
) -> list[Violation]:
    """evaluate_policies' loop, over its scopes (``groups``) and their views; with ``failures`` (`policies check`),
    on two cores where this process has them (policies.two_cores)."""
    with evaluation_memo():
        if failures is None:
            violations, _ = _policy_loop(policies, config, groups, only_of, group_views, None)
        else:
            parts = split(lambda some: _policy_loop(some, config, groups, only_of, group_views, []), policies)
            violations = [v for found, _ in parts for v in found]
            order = {p.name: i for i, p in enumerate(policies)}  # the objects failed on, in the policies' order
            failures.extend(sorted((v for _, failed in parts for v in failed), key=lambda v: order[v.policy]))
    return sorted(violations, key=lambda v: (v.policy, v.resource, v.message))


def _policy_loop(
    policies: Sequence[Policy],
    config: Mapping[str, Mapping] | None,
    groups: Sequence[Sequence[Resource]],
    only_of: list[frozenset[str] | None],
    group_views: list[list[_View]],
    failures: list[Violation] | None,
) -> tuple[list[Violation], list[Violation]]:
    """``policies``' findings over the scopes, and the objects they failed on (where ``failures`` is a list)."""
    violations: list[Violation] = []
    for policy in policies:
        level, values = policy_settings(config, policy)
        if level == "disabled":
            continue
        findings: list[tuple[str, str]] = []
        failed: list[tuple[str, str]] | None = None if failures is None else []
        stack = policy.is_stack_policy
        for group, only, views in zip(groups, only_of, group_views):
            new: list[tuple[str, str]] = []  # a variant's facts read from no view are shared: kube.memoized
            if stack:
                _stack_findings(policy, group, views, values, new, failed, only if policy.per_object else None)
            else:
                _resource_findings(policy, views, values, new, failed)
            if new:  # most policies find nothing in most scopes (~2,500 of ~2,750 a manifests-v2 run)
                before = set(findings)  # a finding two scopes share is reported once
                findings.extend(f for f in new if f not in before and (only is None or f[0] in only))
        violations.extend(
            Violation(policy.name, policy.catalog, finding_level(level, message), _shown(name, 8000), _shown(message, 2000))
            for name, message in findings
        )
        if failed and failures is not None:  # each object once, whichever scopes it failed in
            failures.extend(
                Violation(policy.name, policy.catalog, "advisory", _shown(n, 8000), CHECK_FAILED.format(kind))
                for n, kind in dict.fromkeys(failed)
            )
    return violations, failures or []


@contextlib.contextmanager
def _best_effort(template: str = "x") -> Iterator[None]:
    """Around checks that read objects rendered from templates (which may hold framework.UNKNOWN anywhere, even where
    a list is due): a check that cannot read one finds nothing there, as if the template had not been rendered, rather
    than ending the run. ``template`` "" (a file's own object) and LLM_SERVING_DEBUG let errors through."""
    try:
        yield
    except Exception:
        if not template or os.environ.get("LLM_SERVING_DEBUG"):
            raise


def _stack_findings(
    policy: Policy,
    group: Sequence[Resource],
    views: list[_View],
    values: dict,
    findings: list,
    failed: list | None = None,
    only: frozenset[str] | None = None,
) -> None:
    """A stack policy's findings on one group, added to ``findings``. Objects rendered from templates join a second
    run: what the run without them finds keeps its level, what only they bring is advice (TEMPLATE_NOTE). Each run sees
    the objects as resource policies do (``views``), so kube.memoized shares what it derives from them with those.
    ``only``: a per_object policy in a scope that reports those objects' findings alone is handed only them."""
    patches = views[0].patches
    judged = group if only is None else [r for r in group if r.name in only]
    # The group's own objects are its first view's (_views), in their order.
    literal = views[0].seen if only is None else [r for r in judged if not r.template]
    found: list[tuple[str, str]] = []
    try:
        if literal or only is None:
            token = CLUSTER_VIEW.set(views[0].seen)  # cluster_view's work, without its three calls
            try:
                found = run_stack_policy(policy, literal, values)
            finally:
                CLUSTER_VIEW.reset(token)
    except Exception as exc:
        if failed is None or os.environ.get("LLM_SERVING_DEBUG"):
            raise
        failed.append(("", type(exc).__name__))  # the group's objects, as a stack-wide finding
    if len(views) > 1 and judged:  # the group holds objects rendered from templates (_views)
        seen = set(found)
        with _best_effort(), cluster_view(views[-1].seen):
            found += [
                (n, _from_template(m, _best_effort_source(n, group)))
                for n, m in run_stack_policy(policy, list(judged), values)
                if (n, m) not in seen
            ]
    if found:
        findings.extend(
            (name, _on_patch(policy, message, patches[name]) if name in patches else message) for name, message in found
        )


class _View:
    """What resource policies see of one group (``seen``: kube.cluster_view) and check there (``_views``)."""

    def __init__(self, seen: Sequence[Resource], checked: list[Resource], group: Sequence[Resource] = ()) -> None:
        self.seen, self.checked = tuple(seen), checked
        self._typed: dict[int, tuple[Any, list[Resource]]] = {}
        # The notes on the group's Kustomize patches and bases, by name (_stack_findings; once per group, not per policy)
        self.patches = {r.name: _patch_note(r) for r in group if r.patch or r.base}

    def of_types(self, types: Any) -> list[Resource]:
        """The checked objects of ``types`` (a policy's resource_types; 49 of 80 resource policies share one object)."""
        entry = self._typed.get(id(types))
        if entry is None or entry[0] is not types:
            entry = self._typed[id(types)] = (types, [r for r in self.checked if r.type in types])
        return entry[1]


def _views(group: Sequence[Resource], only: frozenset[str] | None = None) -> list[_View]:
    # Objects a file states are checked among them alone, as if no template had been read; templated ones among all;
    # with ``only``, only those (the others' findings are not reported from this group).
    literal = [r for r in group if not r.template]
    views = [_View(literal, [r for r in literal if only is None or r.name in only], group)]
    if len(literal) < len(group):
        views.append(_View(group, [r for r in group if r.template and (only is None or r.name in only)]))
    return views


def _resource_findings(
    policy: Policy, views: list[_View], values: dict, findings: list[tuple[str, str]], failed: list | None = None
) -> None:
    """A resource policy's findings on one group (its ``_views``), added to ``findings``; those of objects rendered from
    templates are advice. An object a file states that the policy raises on is added to ``failed`` where it is a list
    (evaluate_policies ``failures``), else the exception ends the run."""
    for view in views:
        # Only the policy's types: run_resource_policy passes over the others, but ~80% of the ~5,800 policy x
        # resource pairs of a corpus run are of another type, each a _best_effort context for nothing.
        checked = view.of_types(policy.resource_types)  # a tuple, or a subclass whose `in` admits more
        if not checked:
            continue
        token = CLUSTER_VIEW.set(view.seen)  # cluster_view's work, without its three calls
        try:
            for r in checked:
                # _best_effort's rule, written out: ~2,200 policy x resource pairs a corpus run, each a context manager.
                try:
                    found = run_resource_policy(policy, r, values)
                except Exception as exc:
                    if os.environ.get("LLM_SERVING_DEBUG") or (not r.template and failed is None):
                        raise
                    if not r.template:
                        failed.append((r.name, type(exc).__name__))  # type: ignore[union-attr]
                    found = []
                if not found:  # the weighing below shapes findings only; ~5,000 policy x resource pairs a corpus run
                    continue
                partial = completed_elsewhere(policy.resource_types, r) or patched_unknown(policy.resource_types, r)
                generic = operator_may_fill(policy, r)
                weighed = [_weighed(policy, m, partial, generic, _patch_note(r)) for m in found]
                findings.extend((r.name, _from_template(m, r.template) if r.template else m) for m in weighed)
        finally:
            CLUSTER_VIEW.reset(token)


def _shown(text: str, limit: int) -> str:
    """A resource name or message as reports show it (components.secrets.printable).

    Both may quote manifest text (metadata.name, an image, a flag), which `policies check` reads
    from files anyone can change: credentials redacted, bounded, control characters escaped.
    """
    from components.secrets import printable

    return printable(text, limit)
