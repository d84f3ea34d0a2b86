"""G97 (key-stated-once): a YAML mapping states each key once; a key written twice with different values loses one.

``kubectl apply -f`` reads a manifest without strict checks: kubernetes/cli-runtime's StreamVisitor decodes each
document with k8s.io/apimachinery's YAMLToJSONDecoder (v0.33.0 pkg/util/yaml/decoder.go:125-132 ``yaml.Unmarshal``),
and sigs.k8s.io/yaml v1.4.0 yaml.go:50-57 says duplicate fields are ignored, goyaml.v2 keeping the key's last value in
the map it builds. The object is converted to JSON on the client, so the API server's field validation never sees the
first value either. A container that writes ``env:`` twice therefore runs with the second list only, a pod spec with
two ``volumes:`` lists mounts only the second one's volumes, and nothing says so. kustomize and strict YAML readers
refuse the file instead (S27 reports that; it is advice there).

Reported on the document (each repeated key is read from the document the loader refused for it,
policies/reading/repeated_keys.py, with PyYAML's composer, which keeps both pairs), once per key whose two values differ, naming what is dropped: the items
of the first list the second does not name (env variables, volumes, ports), the keys of the first mapping, or the
first value. Advice: the dropped value may have been a leftover. Silent: a key repeated with the same value (spent set
14 Angel-FulFilment-Services/Angel-Intelligence k8s/vllm-deployment.yaml@04f4b28e, one nodeSelector twice).
Spent set 73 local-ops/graph-demo k8s/ollama-pull-job.yaml (two ``env:`` keys; the first one's OLLAMA_HOST, the
Ollama server the Job's pulls go to, is dropped; labelled NONE).
"""

from __future__ import annotations

from typing import Any

from policies.framework import Policy, Resource
from policies.input.unreadable import UNREADABLE_TYPE


def _names(value: Any) -> list[str] | None:
    """The ``name`` of every item of a list of named mappings (env, volumes, ports, containers), else None."""
    if not isinstance(value, list) or not value:
        return None
    names = [name for item in value if isinstance(item, dict) and isinstance(name := item.get("name"), str)]
    return names if len(names) == len(value) else None


def _shown(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _dropped(first: Any, kept: Any) -> str:
    """What of the first value the kept one does not carry, for the message."""
    first_names, kept_names = _names(first), _names(kept)
    if first_names is not None and kept_names is not None:
        gone = [n for n in first_names if n not in kept_names]
        if gone:
            verb = "never reaches" if len(set(gone)) == 1 else "never reach"
            return f"the first list's {', '.join(sorted(set(gone)))} {verb} the object"
        return "the first list's values for the same names are dropped"
    if isinstance(first, dict) and isinstance(kept, dict):
        gone_keys = [str(k) for k in first if k not in kept]
        if gone_keys:
            return f"the first mapping's {', '.join(gone_keys)} never reach the object"
        return "the first mapping's values are dropped"
    return f"the first value {_shown(first)} is dropped"


def _check(resource: Resource, config: dict) -> list[str]:
    props = resource.props
    if not isinstance(props, dict) or props.get("kind") != "repeated-read":
        return []
    repeats = props.get("repeats")
    if not isinstance(repeats, tuple | list):
        return []
    messages: list[str] = []
    seen: set[str] = set()
    for entry in repeats:
        if not isinstance(entry, tuple | list) or len(entry) != 3:
            continue
        path, first, kept = entry
        if first == kept or str(path) in seen:
            continue
        seen.add(str(path))
        messages.append(
            f"{path} is written twice with different values: `kubectl apply -f` reads YAML without strict checks and "
            f"keeps only the last one, so {_dropped(first, kept)} (nothing warns; kustomize refuses the file); merge the "
            f"two into one {str(path).rsplit('.', 1)[-1]} key"
        )
    return messages


POLICY = Policy(
    name="key-stated-once",
    description=(
        "A YAML mapping states each key once: a key written twice with different values (two env: lists in one "
        "container) silently loses the first, since kubectl keeps only the last (advice)."
    ),
    catalog="G97",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Merge the two values into one key (one env: list holding every variable, one volumes: list).",
    resource_types=(UNREADABLE_TYPE,),
    check_resource=_check,
    rationale=(
        "kubectl decodes manifests without strict checks (k8s.io/apimachinery v0.33.0 pkg/util/yaml/decoder.go:125-132; "
        "sigs.k8s.io/yaml v1.4.0 yaml.go:50-57: duplicate fields are ignored), so the API server receives only the "
        "last value of a repeated key and the first one is lost without a warning."
    ),
)
