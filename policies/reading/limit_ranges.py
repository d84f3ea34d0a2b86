"""What a namespace's LimitRange among the checked objects fills into a container that sets no requests or limits.

The LimitRanger admission plugin writes a Container-type LimitRange's ``default`` into every container of a new pod
that sets no limit for that resource, and its ``defaultRequest`` into those that set no request
(https://kubernetes.io/docs/concepts/policy/limit-range/: "default ... applied to ... containers that do not
specify" them; a request left unset then takes the limit). A model server without a memory limit in a namespace
whose LimitRange in the same run sets ``default.memory`` runs with that limit. A LimitRange outside the files read
is not guessed.
"""

from __future__ import annotations

from typing import Any

from policies.kube import as_dict, as_list, get, memoized, split_type, viewed_resources


def _index(view: Any) -> dict[str | None, dict[str, dict]]:
    """namespace -> {"limits": default, "requests": defaultRequest} merged over the namespace's Container items, and
    "from": (section, resource name) -> the name of the LimitRange that gave it."""
    out: dict[str | None, dict[str, dict]] = {}
    for r in view:
        if split_type(getattr(r, "type", "")) != ("", "LimitRange"):
            continue
        namespace = get(r.props, "metadata", "namespace")
        name = get(r.props, "metadata", "name")
        entry = out.setdefault(namespace if isinstance(namespace, str) else None, {"limits": {}, "requests": {}, "from": {}})
        for item in as_list(get(r.props, "spec", "limits")):
            item = as_dict(item)
            if item.get("type") != "Container":
                continue
            for section, field in (("limits", "default"), ("requests", "defaultRequest")):
                values = as_dict(item.get(field))
                entry[section].update(values)
                entry["from"].update({(section, key): name if isinstance(name, str) else "?" for key in values})
    return out


def _entry(resource: Any) -> dict:
    view = viewed_resources()
    if not view:
        return {}
    namespace = get(resource.props, "metadata", "namespace")
    return memoized(view, "limit_range_defaults", _index).get(namespace if isinstance(namespace, str) else None) or {}


def namespace_defaults(resource: Any, section: str) -> dict:
    """Every ``resources.<section>`` value a LimitRange of the resource's namespace (among the checked objects) fills
    into a container that sets none, by resource name. LimitRanger fills any resource name, extended resources such
    as nvidia.com/gpu included (kubernetes/kubernetes plugin/pkg/admission/limitranger/admission.go
    defaultContainerResourceRequirements, mergeContainerResources: each default the container lacks is copied)."""
    return as_dict(_entry(resource).get(section))


def namespace_default(resource: Any, section: str, name: str) -> Any:
    """The value a LimitRange of the resource's namespace (among the checked objects) fills into
    ``resources.<section>.<name>`` of a container that sets none, or None."""
    return namespace_defaults(resource, section).get(name)


def filled_by(resource: Any, section: str, name: str) -> tuple[Any, str] | None:
    """The value a LimitRange of the resource's namespace (among the checked objects) fills into
    ``resources.<section>.<name>`` of a container that sets none, with that LimitRange's name; or None."""
    entry = _entry(resource)
    value = as_dict(entry.get(section)).get(name)
    if value is None:
        return None
    return value, as_dict(entry.get("from")).get((section, name), "?")


__all__ = ["filled_by", "namespace_default", "namespace_defaults"]
