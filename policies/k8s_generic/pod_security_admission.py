"""G54: a pod template must pass the Pod Security level its Namespace enforces, or no pod of it is ever created.

A Namespace of the run labelled ``pod-security.kubernetes.io/enforce: baseline`` (or ``restricted``) makes the API
server's PodSecurity admission refuse every pod that breaks the level (Pod Security Admission,
https://kubernetes.io/docs/concepts/security/pod-security-admission/: "Policy violations will cause the pod to be
rejected"; the checks are kubernetes staging/src/k8s.io/pod-security-admission/policy/check_*.go). A Deployment or
StatefulSet that breaks it is stored with a warning only, and then its controller's every pod creation is refused
("violates PodSecurity"), so the model server never runs. What the baseline level forbids and the pack reads here
(https://kubernetes.io/docs/concepts/security/pod-security-standards/#baseline): hostNetwork, hostPID, hostIPC,
privileged containers, hostPath volumes, host ports, and capabilities added beyond the baseline's list; ``restricted``
adds allowPrivilegeEscalation false, runAsNonRoot true, a RuntimeDefault or Localhost seccomp profile and dropping ALL
capabilities (adding back only NET_BIND_SERVICE).

G24-G26 (no-host-namespaces, no-privileged) advise against the same settings as a risk; here the Namespace of the
files turns them into a refusal. A cluster's admission configuration may exempt namespaces or users, which no
manifest shows: the files do not say so, and the label is the Namespace author's statement of what is enforced.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, container_label, containers, get, pod_specs, split_type
from policies.reading.serving import namespace_of

ENFORCE = "pod-security.kubernetes.io/enforce"
# Pod Security Standards, baseline "Capabilities": anything added beyond these is refused.
_BASELINE_CAPS = frozenset(
    "AUDIT_WRITE CHOWN DAC_OVERRIDE FOWNER FSETID KILL MKNOD NET_BIND_SERVICE SETFCAP SETGID SETPCAP SETUID SYS_CHROOT".split()
)


def _levels(resources: list[Resource]) -> dict[str, str]:
    """Namespace name -> the level it enforces (baseline or restricted), for the Namespaces of the run."""
    found = {}
    for r in resources:
        if split_type(r.type) != ("", "Namespace"):
            continue
        level = str(as_dict(get(r.props, "metadata", "labels")).get(ENFORCE, "")).strip().lower()
        name = get(r.props, "metadata", "name")
        if level in ("baseline", "restricted") and isinstance(name, str):
            found[name] = level
    return found


def _baseline(path: str, podspec: dict) -> list[str]:
    broken = [f"{path}.{field}: true" for field in ("hostNetwork", "hostPID", "hostIPC") if podspec.get(field) is True]
    broken += [
        f"{path}.volumes {as_dict(v).get('name')}: hostPath" for v in as_list(podspec.get("volumes")) if "hostPath" in as_dict(v)
    ]
    for c in containers(podspec, init=True):
        label = container_label(path, c)
        if get(c, "securityContext", "privileged") is True:
            broken.append(f"{label}: privileged: true")
        added = sorted(str(a).upper().removeprefix("CAP_") for a in as_list(get(c, "securityContext", "capabilities", "add")))
        if [a for a in added if a not in _BASELINE_CAPS]:
            broken.append(f"{label}: capabilities.add {', '.join(a for a in added if a not in _BASELINE_CAPS)}")
        if any(as_dict(p).get("hostPort") not in (None, 0) for p in as_list(c.get("ports"))):
            broken.append(f"{label}: a hostPort")
    return broken


def _restricted(path: str, podspec: dict) -> list[str]:
    """The restricted level's own requirements, per container (its pod's securityContext counts where it sets them)."""
    pod = as_dict(podspec.get("securityContext"))
    broken = []
    for c in containers(podspec, init=True):
        own, label = as_dict(c.get("securityContext")), container_label(path, c)
        if own.get("allowPrivilegeEscalation") is not False:
            broken.append(f"{label}: allowPrivilegeEscalation is not false")
        if own.get("runAsNonRoot", pod.get("runAsNonRoot")) is not True:
            broken.append(f"{label}: runAsNonRoot is not true")
        seccomp = as_dict(own.get("seccompProfile") or pod.get("seccompProfile")).get("type")
        if seccomp not in ("RuntimeDefault", "Localhost"):
            broken.append(f"{label}: no RuntimeDefault seccompProfile")
        if "ALL" not in [str(d).upper() for d in as_list(get(own, "capabilities", "drop"))]:
            broken.append(f"{label}: capabilities do not drop ALL")
    return broken


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    levels = _levels(resources)
    findings: list[tuple[str, str]] = []
    for r in resources:
        level = levels.get(namespace_of(r) or "") if r.type in WORKLOAD_TYPES else None
        if level is None:
            continue
        for path, podspec in pod_specs(r):
            broken = _baseline(path, podspec) + (_restricted(path, podspec) if level == "restricted" else [])
            if broken:
                findings.append(
                    (
                        r.name,
                        f"Namespace {namespace_of(r)} enforces Pod Security {level} ({ENFORCE}), which refuses this pod "
                        f"({'; '.join(broken[:6])}{'; ...' if len(broken) > 6 else ''}): the API server's PodSecurity "
                        "admission rejects every pod created from it, so the server never runs; drop those settings "
                        "or run it in a namespace whose level allows them",
                    )
                )
    return findings


POLICY = Policy(
    name="pod-security-admission-admits",
    description="A pod template in a Namespace of the files that enforces Pod Security baseline or restricted "
    "(pod-security.kubernetes.io/enforce) must pass that level, or the API server rejects every pod made from it.",
    catalog="G54",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Remove hostNetwork/hostPID/hostIPC, privileged, hostPath volumes, host ports and added capabilities the level "
        "forbids (restricted: also set allowPrivilegeEscalation: false, runAsNonRoot: true, seccompProfile "
        "RuntimeDefault and capabilities drop ALL), or label the Namespace with the level the workload needs."
    ),
    check_stack=_check,
    rationale=(
        "Pod Security Admission rejects pods that violate the enforced level "
        "(https://kubernetes.io/docs/concepts/security/pod-security-admission/, checks in kubernetes "
        "staging/src/k8s.io/pod-security-admission/policy/); a workload object is only warned about, and its "
        "controller's pod creations then fail."
    ),
)
