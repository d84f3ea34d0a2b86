"""G60: a pod's Secret reference resolves against the Secret its run defines under that name.

The kubelet builds a container's environment from ``env[].valueFrom.secretKeyRef`` and ``envFrom[].secretRef`` before
it starts the container; a referenced Secret that does not exist, or a ``secretKeyRef`` key the Secret lacks, fails the
start with CreateContainerConfigError (``secret "NAME" not found`` / ``couldn't find key KEY in Secret NS/NAME``)
unless the reference is ``optional: true`` (kubernetes pkg/kubelet/kubelet_pods.go makeEnvironmentVariables;
https://kubernetes.io/docs/concepts/configuration/secret/#using-secrets-as-environment-variables). Where the files read
define the Secret in the pod's namespace, two forms show the reference cannot resolve:

- the Secret's ``data`` holds a value that is not base64, so the API server refuses the Secret (G47, secret-data-base64)
  and it never exists (set 34: brokedba/vllm-lab examples/k8s/civo/vllm_deploy_cpu_civo.yml@ccbb525 reads
  HUGGING_FACE_HUB_TOKEN from hf-token-secret, whose only manifest, vllm_pvc_civo.yml, holds
  ``token: "<base64-HF-token>"``);
- the Secret holds ``data``/``stringData`` without the key a ``secretKeyRef`` names.

Where the files define the Secret only in another namespace than the pod's (both stated), an environment reference or
a Secret volume (``volumes[].secret``, a projected source) cannot resolve: a pod reads Secrets of its own namespace only.

Advice: the Secret may be created another way (kubectl create secret from a README, a sealed or external secret the
cluster holds), which the files do not show. Silent for an optional reference, where the run defines no Secret of
that name in the namespace, where it defines two (an overlay may choose), where an operator's custom resource, a Helm
template or a Kustomize patch in the namespace may create or complete it, and for a name or key left unrendered.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Optional

from policies.framework import Policy, Resource, unproven
from policies.k8s_generic.secret_data_base64 import decode
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, containers, get, metadata_name, pod_specs, split_type
from policies.reading.run_objects import hidden_namespaces, templated
from policies.reading.serving import namespace_of


def _refs(podspec: Mapping) -> Iterator[tuple[str, str, str, Optional[str]]]:
    """(where, container name, Secret name, key or None for envFrom) of every non-optional Secret reference."""
    for c in containers(podspec, init=True):
        for i, e in enumerate(as_list(c.get("env"))):
            ref = as_dict(get(e, "valueFrom", "secretKeyRef"))
            if ref and ref.get("optional") is not True and isinstance(ref.get("name"), str) and isinstance(ref.get("key"), str):
                yield f"env[{i}] {as_dict(e).get('name')}", str(c.get("name")), ref["name"], ref["key"]
        for i, source in enumerate(as_list(c.get("envFrom"))):
            ref = as_dict(as_dict(source).get("secretRef"))
            if ref and ref.get("optional") is not True and isinstance(ref.get("name"), str):
                yield f"envFrom[{i}]", str(c.get("name")), ref["name"], None


def _why(secret: Resource, key: Optional[str]) -> Optional[str]:
    """Why the run's Secret cannot serve the reference, or None."""
    data = as_dict(secret.props.get("data"))
    bad = [k for k, v in data.items() if isinstance(v, str) and decode(v) is None]
    if bad:
        return f"data.{bad[0]} is not base64, so the API server refuses that Secret (secret-data-base64, G47) and it never exists"
    keys = set(data) | set(as_dict(secret.props.get("stringData")))
    if key is not None and (data or secret.props.get("stringData") is not None) and key not in keys:
        return f"it holds no key {key} (it has {', '.join(sorted(map(str, keys))) or 'none'})"
    return None


def _elsewhere(secrets: dict[tuple[str, str], list[Resource]], workload: Resource, name: str) -> list[str]:
    """The namespaces other than the workload's where the files define Secret ``name``, when the workload and every one
    of those Secrets state their namespace (a Secret without one lands wherever it is applied)."""
    own = namespace_of(workload)
    spaces = [ns for (ns, n), found in secrets.items() if n == name and ns != own and all(namespace_of(s) for s in found)]
    unplaced = any(n == name and not namespace_of(s) for (_, n), found in secrets.items() for s in found)
    return sorted(spaces) if own and not unplaced else []


def _volumes(podspec: Mapping) -> Iterator[tuple[str, str]]:
    """(where, Secret name) of every non-optional Secret volume and projected Secret source of a pod spec: the kubelet
    does not mount the volume, and the pod stays in ContainerCreating (FailedMount: secret not found), without it
    (https://kubernetes.io/docs/concepts/configuration/secret/#using-secrets-as-files-from-a-pod)."""
    for i, volume in enumerate(as_dict(v) for v in as_list(podspec.get("volumes"))):
        secret = as_dict(volume.get("secret"))
        if secret and secret.get("optional") is not True and isinstance(secret.get("secretName"), str):
            yield f"volumes[{i}] {volume.get('name')}", secret["secretName"]
        for j, source in enumerate(as_dict(s) for s in as_list(get(volume, "projected", "sources"))):
            projected = as_dict(source.get("secret"))
            if projected and projected.get("optional") is not True and isinstance(projected.get("name"), str):
                yield f"volumes[{i}] {volume.get('name')} projected.sources[{j}]", projected["name"]


def _elsewhere_advice(
    path: str,
    reader: str,
    name: str,
    namespace: str,
    elsewhere: list[str],
    fails: str = "the container stays in CreateContainerConfigError",
) -> str:
    """Set 39 (spent early this session), bnice00/k3s-vLLM-Streamlit-inference-stack- manifests/streamlit.yaml@ae2ba97 reads gateway-secret in namespace
    vllm-rocm while the files define gateway-secret only in namespace hermes-lair."""
    return unproven(
        f"{path}: {reader} reads Secret {name} (not optional) in namespace {namespace}, but the "
        f"files define Secret {name} only in namespace {', '.join(elsewhere)}: a pod reads Secrets of its own namespace "
        f"only, so unless {namespace}/{name} is created another way {fails}; "
        f"define the Secret in {namespace} too, or mark the reference optional: true"
    )


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    secrets: dict[tuple[str, str], list[Resource]] = {}
    for r in resources:
        if split_type(r.type) == ("", "Secret") and isinstance(r.props, dict) and not r.urn and (n := metadata_name(r.props)):
            secrets.setdefault((namespace_of(r, "default"), str(n)), []).append(r)
    if not secrets:
        return []
    hidden = hidden_namespaces(resources)
    findings: list[tuple[str, str]] = []
    for workload in resources:
        namespace = namespace_of(workload, "default")
        if workload.type not in WORKLOAD_TYPES or not isinstance(workload.props, dict) or namespace in hidden:
            continue
        for path, podspec in pod_specs(workload):
            for where, name in _volumes(podspec):
                if secrets.get((namespace, name)) or templated(name) or not (elsewhere := _elsewhere(secrets, workload, name)):
                    continue
                fails = "the pod stays in ContainerCreating (FailedMount: secret not found)"
                findings.append((workload.name, _elsewhere_advice(path, f"{where}", name, namespace, elsewhere, fails)))
            for where, container, name, key in _refs(podspec):
                found = secrets.get((namespace, name), [])
                if not found and (elsewhere := _elsewhere(secrets, workload, name)) and not templated(name):
                    reader = f"container {container} {where}"
                    findings.append((workload.name, _elsewhere_advice(path, reader, name, namespace, elsewhere)))
                if len(found) != 1 or templated(f"{name}{key or ''}"):
                    continue
                why = _why(found[0], key)
                if why is None:
                    continue
                what = f"key {key} of Secret {name}" if key else f"Secret {name}"
                findings.append(
                    (
                        workload.name,
                        unproven(
                            f"{path}: container {container} {where} reads {what} (not optional), and the Secret "
                            f"{namespace}/{name} of the files read cannot give it: {why}; unless the Secret is created "
                            f"another way, the kubelet cannot build the container's environment and it stays in "
                            f"CreateContainerConfigError; fix the Secret, or mark the reference optional: true"
                        ),
                    )
                )
    return findings


POLICY = Policy(
    name="secret-ref-resolves",
    description="A container's non-optional secretKeyRef or envFrom secretRef resolves against the Secret of that name "
    "the files define in its namespace: advice when that Secret is refused by the API server (data not base64) or "
    "lacks the key; silent where the files define no such Secret.",
    catalog="G60",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Give the Secret the key the pod reads, with a base64 value under data (or plain text under "
    "stringData), or create it at deploy time; mark the reference optional: true where the value is not needed.",
    config_schema={},
    check_stack=_check,
    rationale=(
        "The kubelet resolves secretKeyRef and envFrom secretRef before it starts a container; a missing Secret or key "
        "fails the start with CreateContainerConfigError unless the reference is optional "
        "(https://kubernetes.io/docs/concepts/configuration/secret/#using-secrets-as-environment-variables)."
    ),
)
