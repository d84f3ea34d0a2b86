"""A container's environment as the kubelet builds it from the objects being checked: literal ``env`` values, and what
a ConfigMap of the run gives through ``envFrom: configMapRef`` or ``valueFrom: configMapKeyRef`` (the one reader of
env resolution policies read variables through; the ConfigMaps' data is config_map_data's)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from components.images import names_image
from policies.kube import as_dict, as_list, get, name_of
from policies.reading.config_map_data import config_maps, names_config_maps


def env_values(container: Mapping) -> dict[str, str]:
    """A container's env values by name: its literal ``value``s, and what a ConfigMap of the objects being checked
    gives it (``envFrom: configMapRef``, with its prefix, and ``valueFrom: configMapKeyRef``). Kubernetes' order:
    envFrom sources in turn, then ``env`` over them (https://kubernetes.io/docs/tasks/inject-data-application/
    define-environment-variable-container/; a ConfigMap outside the set, or a Secret, leaves the variable unknown)."""
    maps = config_maps(container) if names_config_maps(container) else {}
    out: dict[str, str] = {}
    for source in as_list(container.get("envFrom")):
        source = as_dict(source)
        data = maps.get(name_of(get(source, "configMapRef")))
        if data:
            prefix = source.get("prefix") if isinstance(source.get("prefix"), str) else ""
            out.update({f"{prefix}{k}": v for k, v in data.items()})
    for e in as_list(container.get("env")):
        if not isinstance(e, dict) or not isinstance(e.get("name"), str):
            continue
        if isinstance(e.get("value"), str):
            out[e["name"]] = e["value"]
        else:
            ref = get(e, "valueFrom", "configMapKeyRef")
            value = maps.get(name_of(ref), {}).get(str(ref.get("key"))) if isinstance(ref, dict) else None
            if isinstance(value, str):
                out[e["name"]] = value
            else:
                # A Secret, a field or a ConfigMap outside the files: `env` wins over `envFrom` (kubelet
                # makeEnvironmentVariables), so an envFrom value of the name is not what the container sees (review 45 #17).
                out.pop(e["name"], None)
    return out


def outside_env_sources(container: Mapping) -> list[str]:
    """The envFrom sources of a container that are not ConfigMaps of the files read (a Secret, a ConfigMap defined
    elsewhere), as messages name them."""
    if not as_list(container.get("envFrom")):
        return []  # (no view read: the fact stays shared by every scope)
    maps = config_maps(container)
    found = []
    for source in (as_dict(s) for s in as_list(container.get("envFrom"))):
        name = get(source, "configMapRef", "name")
        if name is not None and (not isinstance(name, str) or name not in maps):  # a name that is no text: no map read
            found.append(f"ConfigMap {name}")
        elif get(source, "secretRef", "name") is not None:
            found.append(f"Secret {get(source, 'secretRef', 'name')}")
    return found


def unset_port(container: Mapping, row: Any) -> Optional[tuple[int, str]]:
    """(port, how it is known) of a server of the engine row ``row`` whose port flag is not given: the port the
    publisher's images set through the port variable (the table's ``image_port``: TGI's Dockerfiles ENV PORT=80, the
    launcher's own default being 3000) where the image is theirs, else the row's ``port``; None where the files do not
    show it (the variable named in ``env`` from a source not resolved here, an ``envFrom`` that may hold it, or another
    image of an engine whose images set it, which a rebuild FROM them inherits)."""
    variables = row.env.get("port", ())
    names = {name_of(e) for e in as_list(container.get("env"))}
    if variables and (as_list(container.get("envFrom")) or names & set(variables)):
        return None
    if row.image_port:
        if not names_image(container.get("image"), row.images):
            return None
        return row.image_port, f"the image's ENV {variables[0] if variables else 'PORT'}={row.image_port}"
    if not row.port:
        return None  # no HTTP port unless the setting gives one (OVMS without --rest_port serves no REST)
    return row.port, f"its default port {row.port}"


def env_config_map(container: Mapping, variable: str) -> Optional[tuple[str, str]]:
    """(ConfigMap name, key) the kubelet takes ``variable`` of the container from, among the ConfigMaps of the objects
    being checked, or None (a literal value, a Secret, a field, a ConfigMap outside the files, no such variable). The
    order is env_values's: an ``env`` entry of the name wins, else the last ``envFrom`` configMapRef (with its prefix)
    that holds the key."""
    for e in reversed(as_list(container.get("env"))):
        if isinstance(e, dict) and e.get("name") == variable:
            ref = get(e, "valueFrom", "configMapKeyRef")
            name, key = name_of(ref), name_of(ref, "key")
            if name is None or key is None or not names_config_maps(container):
                return None
            return (name, key) if isinstance(config_maps(container).get(name, {}).get(key), str) else None
    if not as_list(container.get("envFrom")) or not names_config_maps(container):
        return None
    maps = config_maps(container)
    for source in reversed([as_dict(s) for s in as_list(container.get("envFrom"))]):
        name = name_of(get(source, "configMapRef"))
        prefix = source.get("prefix") if isinstance(source.get("prefix"), str) else ""
        if name is not None and variable.startswith(prefix) and variable[len(prefix) :] in maps.get(name, {}):
            return name, variable[len(prefix) :]
    return None
