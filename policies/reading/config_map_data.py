"""The string data of the ConfigMaps among the objects being checked, by name: what ``envFrom: configMapRef`` and
``valueFrom.configMapKeyRef`` give a container, and what a ConfigMap volume mounts. One reader, shared by the command
line readers (policies/reading/vllm_args.py expands ``$(VAR)`` from it), engines.env_values and mounted_scripts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from policies.kube import as_dict, as_list, get, memoized, viewed_resources


def config_maps() -> dict[Any, dict[str, str]]:
    """The string data of each ConfigMap among the objects being checked (kube.viewed_resources), by name; {} where no
    evaluation shows them. A name that two namespaces (or two differing copies) hold is left out: a pod reads only its
    own namespace's ConfigMap (https://kubernetes.io/docs/concepts/configuration/configmap/: "must be in the same
    namespace as the Pod"), and the readers do not know the pod's, so its variables stay unknown (review 45 #6).
    Copies in two folders of one namespace are two clusters' (policies.scopes splits them). Built once per evaluation
    (kube.memoized on the view)."""
    view = viewed_resources()
    return memoized(view, "config_maps", _maps_of) if view else {}


def names_config_maps(container: Any) -> bool:
    """Whether a container takes part of its environment from a ConfigMap (an ``envFrom`` configMapRef, a
    ``configMapKeyRef``): only then do the env readers ask config_maps(), whose reading ties what they derive to the
    cluster view (kube.viewed_resources), so a fact of a container that names none stays shared by every scope."""
    for source in as_list(get(container, "envFrom")):
        if isinstance(get(source, "configMapRef"), Mapping):
            return True
    return any(isinstance(get(item, "valueFrom", "configMapKeyRef"), Mapping) for item in as_list(get(container, "env")))


def _maps_of(view: Any) -> dict[Any, dict[str, str]]:
    maps: dict[Any, dict[str, str]] = {}
    spaces: dict[str, set] = {}
    for r in view:
        if getattr(r, "type", None) == "kubernetes:core/v1:ConfigMap":
            data = as_dict(get(r.props, "data"))
            name = get(r.props, "metadata", "name")
            if isinstance(name, str):
                data = {k: v for k, v in data.items() if isinstance(v, str)}
                namespace = get(r.props, "metadata", "namespace")
                # A second ConfigMap of the name with other data (another namespace: dev's and prod's copies) is
                # told apart by nothing the readers see, so which one a pod reads is not known.
                spaces.setdefault(name, set()).add(namespace if isinstance(namespace, str) else None)
                if maps.setdefault(name, data) != data:
                    spaces[name].add(object())
    return {name: data for name, data in maps.items() if len(spaces[name]) == 1}
