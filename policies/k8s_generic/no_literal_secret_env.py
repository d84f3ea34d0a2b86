"""G35 (catalogue row 35): secret-looking environment variables must come from a Secret.

A literal `value` lands in the pod spec, in etcd, in the Pulumi state and in every
`kubectl get -o yaml`; HF_TOKEN is the usual case in LLM serving. Messages never print the
value.
"""

from __future__ import annotations

from fnmatch import fnmatchcase

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, container_label, containers, pod_specs

_FIX = "a secret must come from valueFrom.secretKeyRef"


def _looks_secret(name: str, patterns: list[str]) -> bool:
    return any(fnmatchcase(name.upper(), str(p).upper()) for p in patterns)


def _check(resource: Resource, config: dict) -> list[str]:
    patterns = list(config["namePatterns"])
    messages = []
    for path, podspec in pod_specs(resource):
        for container in containers(podspec, init=True, model=True):
            label = container_label(path, container)
            for env in as_list(container.get("env")):
                name = as_dict(env).get("name")
                if not isinstance(name, str) or not _looks_secret(name, patterns):
                    continue
                if env.get("value") not in (None, ""):
                    messages.append(f"{label}: env {name} has a literal value; {_FIX} (a literal lands in "
                                    f"the pod spec, etcd and the Pulumi state)")
                elif "configMapKeyRef" in as_dict(env.get("valueFrom")):
                    messages.append(f"{label}: env {name} comes from valueFrom.configMapKeyRef; {_FIX}")
    return messages


POLICY = Policy(
    name="no-literal-secret-env",
    description=(
        "Environment variables whose names look like secrets (HF_TOKEN, *_TOKEN, *PASSWORD*, ...) "
        "must use valueFrom.secretKeyRef."
    ),
    catalog="G35",
    severity="critical",
    enforcement="mandatory",
    remediation_steps=(
        "Store the value in a Kubernetes Secret (created from a Pulumi secret) and reference it with "
        "env[].valueFrom.secretKeyRef {name, key}; rotate any token that was committed as a literal."),
    config_schema={
        "namePatterns": {
            "type": "array", "items": {"type": "string"},
            "default": ["HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "*_TOKEN", "*_SECRET*", "*PASSWORD*",
                        "*API_KEY*", "AWS_SECRET_ACCESS_KEY"],
            "description": ("Shell-style, case-insensitive patterns of env names treated as secrets "
                            "(default HF_TOKEN, HUGGING_FACE_HUB_TOKEN, *_TOKEN, *_SECRET*, *PASSWORD*, "
                            "*API_KEY*, AWS_SECRET_ACCESS_KEY)."),
        },
    },
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "A literal env value is stored in the pod spec, in etcd, in the Pulumi state and in every `kubectl get -o yaml`; "
        "Secrets can be encrypted at rest and access-controlled separately "
        "(https://kubernetes.io/docs/concepts/configuration/secret/#using-secrets-as-environment-variables). HF_TOKEN "
        "is the usual case in LLM serving. Catalogue row 35 (kube-linter env-var-secret, Checkov CKV_K8S_35)."),
)
