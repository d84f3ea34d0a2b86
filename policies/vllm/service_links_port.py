"""S41: a Service's link variables do not take the name of a variable the model server reads.

With service links on (``enableServiceLinks`` unset: Kubernetes' default true, kubernetes/api v0.36.3
core/v1/types.go:4339-4343, :4792 DefaultEnableServiceLinks), the kubelet gives every container of a pod
``<NAME>_PORT=tcp://<cluster IP>:<port>`` (and ``_SERVICE_HOST``, ...) for each Service of its namespace, NAME being
the Service's name upper-cased with dashes as underscores
(https://kubernetes.io/docs/concepts/services-networking/service/#environment-variables); a variable the container
sets itself wins. vLLM reads ``VLLM_PORT`` as an integer and refuses to start on a URI: "VLLM_PORT 'tcp://...' appears
to be a URI. This may be caused by a Kubernetes service discovery issue" (vllm-project/vllm vllm/envs.py
get_vllm_port, the code index's stored version); Aphrodite does the same with ``APHRODITE_PORT``
(aphrodite-engine/aphrodite-engine aphrodite/common/envs.py get_aphrodite_port, the code index's stored version). So
a Service named ``vllm`` in the namespace of a vLLM pod crashes it at every start.

Blocking when that Service is among the objects checked, in the pod's namespace, and the pod template is applied as
written (core, apps, batch; an operator's pod, Knative's under KServe for one, may turn links off: advice). Where no Service of the namespace
is among them, but the workload or its app label is named like the variable (``vllm``: the name the Service in front
of it usually takes), that Service may well be in another file: advice. A headless Service (``clusterIP: None``) or
an ExternalName one gives no variables: the kubelet skips a Service whose cluster IP is "None" or empty
(kubernetes/kubernetes pkg/kubelet/kubelet_pods.go getServiceEnvVarMap, ``!v1helper.IsServiceIPSet(service)``, the
code index's stored version), so a StatefulSet's same-named governing Service is silent.

A GPU model server no engine row names whose image repository or container is named after vLLM (``ml-vllm:v1``,
container ``vllm``: an in-house build whose entrypoint the files do not show), or that sets a variable of vLLM's own
prefix (``VLLM_USE_V1``; not a client's ``VLLM_API_URL``), is presumed to run vLLM: advice only
(spent set 69 ScottNi0809/ml-serving-platform k8s/deployment-vllm.yaml, brief servers50).
"""

from __future__ import annotations

import posixpath
import re
from typing import Iterator, Optional

from components.engine_image_names import OTHER_PROGRAM_WORDS
from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, get, memoized, name_of, split_type, viewed_resources
from policies.reading.engines import env_values, table_servers
from policies.reading.pulumi_objects import AUTONAMED
from policies.reading.serving import GPU_SERVER, model_servers, namespace_of
from policies.reading.vllm_args import vllm_servers

# Engine -> the variable it reads as its own port (see the module docstring for the sources).
_PORT_VARIABLE = {"vllm": "VLLM_PORT", "aphrodite": "APHRODITE_PORT"}
# API groups whose pod templates reach the kubelet as written (core, apps, batch).
_AS_WRITTEN = frozenset({"", "apps", "batch"})
_APP_LABELS = ("app", "app.kubernetes.io/name", "app.kubernetes.io/instance")


def _servers(resource: Resource) -> Iterator[tuple[str, dict, dict, str, bool]]:
    """(label, podspec, container, variable, presumed) of every server that reads a port variable; presumed for a
    GPU model server no engine row names whose image or container is named after vLLM (_named_vllm)."""
    for server in vllm_servers(resource):
        if not _reads_port(server.container):
            continue
        yield server.label, server.podspec, server.container, _PORT_VARIABLE["vllm"], False
    for other in table_servers(resource):
        if other.engine in _PORT_VARIABLE:
            yield other.label, other.podspec, other.container, _PORT_VARIABLE[other.engine], False
    for unnamed in model_servers(resource):
        if unnamed.engine == GPU_SERVER and _named_vllm(unnamed.container):
            yield unnamed.label, unnamed.podspec, unnamed.container, _PORT_VARIABLE["vllm"], True


_WORDS = re.compile(r"[-_./:@]+")
# Variables a client of vLLM names after it (VLLM_API_URL, VLLM_BASE_URL, VLLM_ENDPOINT): where to reach a server.
_CLIENT_SUFFIXES = ("_URL", "_URI", "_ENDPOINT", "_HOST", "_ADDRESS")


def _named_vllm(container: dict) -> bool:
    """True when the container sets a variable of vLLM's own prefix (VLLM_*, not a client's VLLM_*_URL), or the image's
    repository name (its last path segment) or the container's name has the word vllm, with no word of another program
    after it (components/serving_engines.toml other_program_words: vllm-router): an in-house
    build of vLLM whose entrypoint the files do not show (spent set 69 ScottNi0809/ml-serving-platform
    k8s/deployment-vllm.yaml: image ml-vllm:v1, container vllm, one GPU, its Dockerfile.vllm, not among the files,
    installs vllm==0.7.3)."""
    if any(
        isinstance(name := as_dict(item).get("name"), str) and name.startswith("VLLM_") and not name.endswith(_CLIENT_SUFFIXES)
        for item in as_list(container.get("env"))
    ):
        return True  # vLLM's own variables (VLLM_USE_V1, VLLM_LOGGING_LEVEL) set on the GPU container that runs it
    image = container.get("image")
    repository = image.lower().split("@", 1)[0].rsplit("/", 1)[-1].split(":", 1)[0] if isinstance(image, str) else ""
    for name in (repository, str(container.get("name") or "").lower()):
        words = [w for w in _WORDS.split(name) if w]
        if "vllm" in words and not set(words[words.index("vllm") + 1 :]) & OTHER_PROGRAM_WORDS:
            return True
    return False


# vLLM reads VLLM_PORT from 0.4.3 on (v0.4.3 vllm/envs.py:103-105 int(os.getenv('VLLM_PORT')), read by
# vllm/utils.py:290 get_open_port, which every executor calls for its distributed init method; v0.4.2's envs.py and
# utils.py never name it; read at the upstream tags in the HabanaAI/vllm-fork mirror). Fresh set 28: brayanpena530/
# multiLLM-EKS-Deploy runs v0.4.1 beside a Service named vllm, which its labeller filed as a trap.
_READS_PORT_FROM = (0, 4, 3)


def _reads_port(container: dict) -> bool:
    """False where the image's tag names a vLLM release before 0.4.3 and the container installs no vLLM of its own."""
    from components.engine_options import tagged_release, version_key
    from policies.reading.installs import installs_engine
    from policies.reading.serving import engine_row
    from policies.reading.vllm_args import command_tokens

    row = engine_row("vllm")
    if row is None or row.options is None or installs_engine(command_tokens(container)[0], "vllm"):
        return True
    release = tagged_release(str(container.get("image") or ""), row.options.images)
    return release is None or version_key(release) >= _READS_PORT_FROM


def _sets_itself(container: dict, variable: str) -> bool:
    """True when the container's own environment names the variable: its env, or an envFrom ConfigMap of the files
    (engines.env_values). The kubelet adds a service-link variable only where the name is not already there
    (kubernetes pkg/kubelet/kubelet_pods.go makeEnvironmentVariables, ``if _, present := tmpEnv[k]; !present``, as
    set 47's labeller read it: SecureCloudOps/llm-rag-infra-platform sets VLLM_PORT=8000 through its ConfigMap, a
    trap of S41)."""
    return any(as_dict(e).get("name") == variable for e in as_list(container.get("env"))) or variable in env_values(container)


def _services_in_namespace(namespace: Optional[str]) -> dict[str, bool]:
    """The Services of ``namespace`` among the objects checked: name -> whether it gives link variables. Built once
    per namespace and evaluation (kube.memoized on the view), not once per server."""
    view = viewed_resources()
    if not view:
        return {}
    return memoized(
        view,
        f"link_services:{namespace}",
        lambda objects: {
            get(other.props, "metadata", "name"): _has_cluster_ip(other.props)
            for other in objects
            if split_type(other.type) == ("", "Service")
            and namespace_of(other) == namespace
            and isinstance(get(other.props, "metadata", "name"), str)
            and not _autonamed(other.props)
        },
    )


def _unplaced_service(resource: Resource, namespace: Optional[str], service: str) -> Optional[str]:
    """Where a Service named ``service`` with a cluster IP, in the pod's file or folder, sits when exactly one of the
    two names no namespace (each then goes to the client's namespace at apply time, and one file, or one folder with
    ``kubectl apply -f DIR``, is applied as one: spent set 28, savyasachi6/llm-serving-platform infra/kubernetes/base,
    Service vllm with no namespace beside vllm-agents in default), else None."""
    file = str(resource.name).split("#", 1)[0]
    for other in viewed_resources() or ():
        if split_type(other.type) != ("", "Service") or get(other.props, "metadata", "name") != service:
            continue
        if _autonamed(other.props):
            continue
        theirs_file = str(other.name).split("#", 1)[0]
        if posixpath.dirname(theirs_file) != posixpath.dirname(file) or not _has_cluster_ip(other.props):
            continue
        where = "" if theirs_file == file else f" in {posixpath.basename(theirs_file)}"
        theirs = namespace_of(other)
        if namespace is None and theirs is not None:
            return f"in namespace {theirs}{where}, while the pod names none"
        if namespace is not None and theirs is None:
            return f"with no namespace{where}, while the pod names {namespace}"
    return None


def _autonamed(service: dict) -> bool:
    """True for a Service a Pulumi program declares with no metadata.name: the provider applies it as
    ``<resource name>-<random>`` (policies/reading/pulumi_objects.AUTONAMED), so its variables carry that name."""
    return get(service, "metadata", "annotations", AUTONAMED) == "true"


def _has_cluster_ip(service: dict) -> bool:
    """False for a headless (clusterIP None) or ExternalName Service: the kubelet gives no variables for it."""
    spec = as_dict(service.get("spec"))
    return spec.get("type") != "ExternalName" and str(spec.get("clusterIP") or "").strip() != "None"


def _named_like(resource: Resource, service: str) -> bool:
    """True when the workload, or the app label of its pods, carries the Service's name."""
    labels = get(resource.props, "spec", "template", "metadata", "labels") or get(resource.props, "metadata", "labels")
    names = {name_of(as_dict(resource.props).get("metadata"))} | {name_of(labels, k) for k in _APP_LABELS}
    return service in names


def _check(resource: Resource, config: dict) -> list[str]:
    messages = []
    namespace = namespace_of(resource)
    for label, podspec, container, variable, presumed in _servers(resource):
        if podspec.get("enableServiceLinks") is False or _sets_itself(container, variable):
            continue
        if presumed:
            # No row names the server: its image or container is named after vLLM, which the files cannot prove.
            label = f"{label} (named after vLLM: a build of it, if its image runs vLLM 0.4.3 or later)"
        service = variable[: -len("_PORT")].lower()
        fix = "set enableServiceLinks: false in the pod spec (or rename the Service)"
        services = _services_in_namespace(namespace)
        if services.get(service):
            message = (
                f"{label}: the Service {service} of this namespace gives the pod {variable}=tcp://<ip>:<port> "
                f"(service links are on), and the server reads {variable} as its port and refuses to start on a URI; "
                f"{fix}"
            )
            # An operator that builds the pod (Knative under KServe's serverless mode turns service links off by
            # default) may set the field the template leaves out: only a pod template applied as written blocks.
            as_written = split_type(resource.type)[0] in _AS_WRITTEN
            messages.append(message if as_written and not presumed else unproven(message))
        elif (elsewhere := _unplaced_service(resource, namespace, service)) is not None:
            # One of the two names no namespace: it lands in the client's (kubectl -n, the context's), which may be
            # the other's. The same failure, not proven: advice.
            messages.append(
                unproven(
                    f"{label}: the Service {service} ({elsewhere}) lands in this pod's namespace when both are applied "
                    f"to one namespace, and then gives the pod {variable}=tcp://<ip>:<port>, which the server refuses "
                    f"at start as a URI; {fix}"
                )
            )
        elif not services and _named_like(resource, service):
            # No Service of the namespace is among the files read: the one in front of it may well carry its name.
            messages.append(
                unproven(
                    f"{label}: service links are on and this workload is named {service}; a Service named {service} "
                    f"in its namespace (not among the files read) would give it {variable}=tcp://<ip>:<port>, which "
                    f"the server refuses at start as a URI; {fix}"
                )
            )
    return messages


POLICY = Policy(
    name="service-links-spare-engine-variables",
    description=(
        "A model server that reads <NAME>_PORT as its own setting (vLLM's VLLM_PORT) must not get it from a Service "
        "named NAME through service links."
    ),
    rationale=(
        "Service links (on by default) inject <SERVICE>_PORT=tcp://ip:port for every Service of the namespace "
        "(https://kubernetes.io/docs/concepts/services-networking/service/#environment-variables); vLLM refuses to "
        "start when VLLM_PORT is a URI (vllm/envs.py get_vllm_port; https://docs.vllm.ai/en/stable/serving/"
        "env_vars.html warns not to name the Service vllm)."
    ),
    catalog="S41",
    severity="high",
    enforcement="mandatory",
    remediation_steps="Set spec.template.spec.enableServiceLinks: false on the model server's pods, or give the Service "
    "another name than the engine's variable prefix (vllm).",
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
)
