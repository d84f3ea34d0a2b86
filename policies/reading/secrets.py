"""The committed values of the Secrets among the files read, so a rule can see what a ``secretKeyRef`` resolves to.

A Secret's ``data`` holds base64 values and ``stringData`` plain ones; the API server merges ``stringData`` over
``data`` on write ("stringData ... All keys and values are merged into the data field on write, overwriting any
existing values", kubernetes/api core/v1 types.go Secret.StringData). A value that is not valid base64 is kept
unknown (None): G47 reports it, and what the API server makes of it is not this reader's guess.

Secrets are joined to a pod by name and namespace: the pod's namespace, or the default one on both sides when neither
names it (a Secret is namespaced, and ``secretKeyRef`` reaches only its own pod's namespace).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, Mapping, Optional

from policies.kube import as_dict, containers, get, memoized, name_of, pod_specs, viewed_resources

SecretKey = tuple[Optional[str], Any]


def _namespace(props: Mapping) -> Optional[str]:
    value = get(props, "metadata", "namespace")
    return value if isinstance(value, str) and value and value != "default" else None


def decoded(value: object) -> Optional[str]:
    """A Secret ``data`` value's text (base64, blanks ignored, UTF-8); None when it is not that."""
    if not isinstance(value, str):
        return None
    try:
        return base64.b64decode("".join(value.split()), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None


def _secrets_of(view: Any) -> dict[SecretKey, dict[str, Optional[str]]]:
    found: dict[SecretKey, dict[str, Optional[str]]] = {}
    for r in view:
        if getattr(r, "type", None) != "kubernetes:core/v1:Secret":
            continue
        values: dict[str, Optional[str]] = {str(k): decoded(v) for k, v in as_dict(get(r.props, "data")).items()}
        for k, v in as_dict(get(r.props, "stringData")).items():
            values[str(k)] = v if isinstance(v, str) else None
        key = (_namespace(r.props), get(r.props, "metadata", "name"))
        if isinstance(key[1], str) and isinstance(key[0], (str, type(None))):
            found[key] = values
    return found


def secret_values(namespace: Optional[str], name: Any) -> Optional[dict[str, Optional[str]]]:
    """The committed values of the Secret ``name`` in ``namespace`` (None or "default" for the default namespace)
    among the files read, by key (None for a value this reader cannot decode); None when no such Secret is read."""
    view = viewed_resources()
    if not view or not isinstance(name, str) or not isinstance(namespace, (str, type(None))):
        return None
    secrets = memoized(view, "secret_values", _secrets_of)
    return secrets.get((namespace if namespace != "default" else None, name))


def secret_keys_named(name: str) -> Optional[frozenset[str]]:
    """The keys of every Secret ``name`` among the files read, whatever its namespace (for a reader that does not know
    the pod's namespace); None when no Secret of that name is read."""
    view = viewed_resources()
    secrets = memoized(view, "secret_values", _secrets_of) if view else {}
    found = [values for (_, n), values in secrets.items() if n == name]
    return frozenset(k for values in found for k in values) if found else None


def variables_of_key(namespace: Optional[str], name: Any) -> dict[str, frozenset[str]]:
    """Key -> the variables the containers of the files read it as through ``valueFrom.secretKeyRef``, for the Secret
    ``name`` in ``namespace`` (a side that leaves the namespace out may be applied into the other's); {} outside an
    evaluation. (An ``envFrom`` secretRef gives each key under its own name.)"""
    view = viewed_resources()
    if not view or not isinstance(name, str):
        return {}
    space = namespace if namespace != "default" else None
    found: dict[str, set[str]] = {}
    for (pod_space, secret, key), variables in memoized(view, "secret_key_readers", _key_readers).items():
        if secret == name and (space is None or pod_space is None or space == pod_space):
            found.setdefault(key, set()).update(variables)
    return {key: frozenset(v) for key, v in found.items()}


def _key_readers(view: Any) -> dict[tuple[Optional[str], str, str], set[str]]:
    """(pod namespace, Secret, key) -> variable names, over the containers of the view's objects."""
    found: dict[tuple[Optional[str], str, str], set[str]] = {}
    for r in view:
        props = getattr(r, "props", None)
        if not isinstance(props, Mapping) or getattr(r, "type", None) == "kubernetes:core/v1:Secret":
            continue
        space = _namespace(props)
        for _, podspec in pod_specs(r):
            for container in containers(podspec, init=True):
                for item in container.get("env") or ():
                    ref = get(item, "valueFrom", "secretKeyRef")
                    secret, key, variable = name_of(as_dict(ref)), name_of(as_dict(ref), "key"), name_of(as_dict(item))
                    if secret and key and variable:
                        found.setdefault((space, secret, key), set()).add(variable)
    return found
