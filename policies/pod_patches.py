"""Pod template patches in custom resources read generically: merged onto the base template they patch.

Operators that run one pod template in several roles write the shared part once and a strategic-merge patch per role
beside it. sgl-project/rbg v0.7.0 (01df6fc3) is the model: a role's ``template`` holds image, resources and volumes,
and ``leaderWorkerPattern.{leaderTemplatePatch, workerTemplatePatch}`` (v1alpha1 ``leaderWorkerSet.{patchLeaderTemplate,
patchWorkerTemplate}``, converted field for field: api/workloads/v1alpha1/rolebasedgroup_conversion.go:161-162) are
applied to it, each giving one role's pods (pkg/reconciler/lws_reconciler.go:248, :262 ``applyStrategicMergePatch
(baseTemplate, leaderPatch|workerPatch)``; api/workloads/v1alpha2/helper.go:338-353 runs
``strategicpatch.StrategicMergePatch(base, patch, &corev1.PodTemplateSpec{})``; an absent patch gives the base as is).
A patch alone is not a pod (its container may hold only a command) and the base alone is not one either once every
role patches it, so the pod rules judge the merged pods.

The merge follows Kubernetes' strategic merge patch on a PodTemplateSpec: mappings merge key by key, a patch's value
wins, ``null`` deletes a key, lists replace except those core/v1 marks ``patchStrategy:"merge"``, which merge item by
item on their ``patchMergeKey`` (kubernetes/api v0.36.3 core/v1/types.go: containers, initContainers and
ephemeralContainers by name :4163-4182, volumes by name :4145, env by name :2978, ports by containerPort :2961,
volumeMounts by mountPath :3029, volumeDevices by devicePath :3036, imagePullSecrets by name :4277, hostAliases by ip
:4304, topologySpreadConstraints by topologyKey :4367, resourceClaims by name :4450), with ``$patch: replace|delete``
directives. So a patch container's command replaces the base's, and its resources merge into the base's.
"""

from __future__ import annotations

import copy
import re
from typing import Any

# Keys holding a patch of a pod template: patch*Template (RBG v1alpha1), *TemplatePatch (RBG v1alpha2), *Patch.
PATCH_KEY = re.compile(r"^patch\w*template$|^\w*patch$", re.IGNORECASE)
# Keys holding the base template a patch applies to, looked for on the patch's holder and its ancestors.
BASE_KEYS = ("template", "podTemplate")

_MERGE_KEYS = {
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "volumes": "name",
    "env": "name",
    "ports": "containerPort",
    "volumeMounts": "mountPath",
    "volumeDevices": "devicePath",
    "imagePullSecrets": "name",
    "hostAliases": "ip",
    "topologySpreadConstraints": "topologyKey",
    "resourceClaims": "name",
}
_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def is_pod_patch(key: Any, value: Any) -> bool:
    """True when ``key: value`` is a patch of a pod template: a patch-like key on a mapping that names a template or
    holds a pod spec (``spec.containers`` or ``containers``)."""
    if not isinstance(key, str) or not isinstance(value, dict) or not PATCH_KEY.match(key):
        return False
    spec = value.get("spec")
    return "template" in key.lower() or isinstance(value.get("containers"), list) or isinstance(get_containers(spec), list)


def get_containers(spec: Any) -> Any:
    return spec.get("containers") if isinstance(spec, dict) else None


def strategic_merge(base: Any, patch: Any) -> Any:
    """``patch`` applied to ``base`` as a strategic merge patch of a pod template (see the module's docstring)."""
    if not isinstance(base, dict) or not isinstance(patch, dict):
        return copy.deepcopy(patch)
    if patch.get("$patch") == "replace":
        return {k: copy.deepcopy(v) for k, v in patch.items() if not str(k).startswith("$")}
    out = copy.deepcopy(base)
    for key, value in patch.items():
        if isinstance(key, str) and key.startswith("$"):
            continue  # directives ($retainKeys, $setElementOrder/...) order or prune, they add no field
        if value is None:
            out.pop(key, None)
        elif key in _MERGE_KEYS and isinstance(value, list) and isinstance(out.get(key), list):
            out[key] = _merge_list(out[key], value, _MERGE_KEYS[key])
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = strategic_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _merge_list(base: list, patch: list, merge_key: str) -> list:
    out = copy.deepcopy(base)
    for item in patch:
        if not isinstance(item, dict) or merge_key not in item:
            out.append(copy.deepcopy(item))
            continue
        at = next((i for i, b in enumerate(out) if isinstance(b, dict) and b.get(merge_key) == item[merge_key]), None)
        if item.get("$patch") == "delete":
            if at is not None:
                del out[at]
        elif at is None:
            out.append({k: copy.deepcopy(v) for k, v in item.items() if k != "$patch"})
        else:
            out[at] = strategic_merge(out[at], item)
    return out


def _at(props: Any, steps: list[tuple[str, str]]) -> Any:
    node = props
    for name, index in steps:
        if name:
            node = node.get(name) if isinstance(node, dict) else None
        else:
            node = node[int(index)] if isinstance(node, list) and int(index) < len(node) else None
    return node


def _join(steps: list[tuple[str, str]]) -> str:
    out = ""
    for name, index in steps:
        out += f"[{index}]" if not name else (f".{name}" if out else name)
    return out


def _base_of(props: Any, patch_path: str, found: dict[str, dict]) -> str | None:
    """The path of the pod spec the patch at ``patch_path`` applies to: a ``template`` (or ``podTemplate``) found as
    a pod spec on the patch's holder or the nearest ancestor holding one, or the template a ``templateRef: {name}``
    there names (RBG's ``roleTemplates[]``: sgl-project/rbg v0.7.0 api/workloads/v1alpha2/helper.go:306-325
    GetResolvedTemplate finds the RoleTemplate by name and patches its template)."""
    steps = [(n, i) for n, i in _STEP.findall(patch_path)]
    for end in range(len(steps) - 1, 0, -1):
        holder = _at(props, steps[:end])
        if not isinstance(holder, dict):
            continue
        for key in BASE_KEYS:
            candidate = _join([*steps[:end], (key, ""), ("spec", "")])
            if candidate in found:
                return candidate
        ref = holder.get("templateRef")
        name = ref.get("name") if isinstance(ref, dict) else ref
        if isinstance(name, str):
            return _named_template(props, name, found)
    return None


def _named_template(props: Any, name: str, found: dict[str, dict]) -> str | None:
    """The found pod spec ``<list>[i].template.spec`` of a list item named ``name`` (one level under the spec)."""
    spec = props.get("spec") if isinstance(props, dict) else None
    for key, items in (spec or {}).items() if isinstance(spec, dict) else ():
        for i, item in enumerate(items if isinstance(items, list) else ()):
            if isinstance(item, dict) and item.get("name") == name:
                candidate = f"spec.{key}[{i}].template.spec"
                if candidate in found:
                    return candidate
    return None


def merge_patches(
    props: Any, found: list[tuple[str, dict]], patches: list[tuple[str, dict]]
) -> tuple[list[tuple[str, dict]], list[str]]:
    """The pod specs of a resource with each patch merged onto its base: (pod specs, paths of patches no base was
    found for). A merged patch is a pod spec at ``<patch path>.spec``; a base that two or more patches of one holder
    apply to (a leader's and a worker's) is no pod of its own, one patched once still is (the role without a patch
    runs it as is: an empty patch gives the base, sgl-project/rbg v0.7.0 api/workloads/v1alpha2/helper.go:341-344)."""
    by_path = dict(found)
    merged: list[tuple[str, dict]] = []
    uses: dict[tuple[str, str], int] = {}
    unmerged: list[str] = []
    for path, patch in patches:
        base = _base_of(props, path, by_path)
        template = patch if "spec" in patch or "metadata" in patch else {"spec": patch}
        at = f"{path}.spec" if template is patch else path
        if base is None:
            unmerged.append(path)
            if isinstance(get_containers(template.get("spec")), list):
                merged.append((at, template["spec"]))
            continue
        holder = path.rsplit(".", 1)[0]
        uses[(base, holder)] = uses.get((base, holder), 0) + 1
        spec = strategic_merge({"spec": by_path[base]}, template).get("spec")
        if isinstance(spec, dict):
            merged.append((at, spec))
    overridden = {base for (base, _), count in uses.items() if count >= 2}
    kept = [(p, s) for p, s in found if p not in overridden]
    return kept + merged, unmerged


__all__ = ["PATCH_KEY", "is_pod_patch", "merge_patches", "strategic_merge"]
