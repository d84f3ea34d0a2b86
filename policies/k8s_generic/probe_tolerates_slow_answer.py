"""G49: a GPU model server's liveness and readiness probes survive one slow answer.

A probe fails when its answer takes longer than ``timeoutSeconds`` (default 1 s), and the kubelet acts after
``failureThreshold`` failures in a row (default 3)
(https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-probes/#configure-probes). A model
server under load answers its health endpoint late now and then (the event loop is busy with the batch), so:

* ``failureThreshold: 1`` on a livenessProbe restarts the container, and with it the whole model load, on the first
  slow answer; on a readinessProbe it takes the pod out of its Services on every slow answer (spent sets 15
  robertgshaw2-neuralmagic/vllm-k8s vllm-kserve/serving-runtime.yml liveness, 22 Pyro9803/ai-infrastructure
  ray/tinyllama/tinyllama-rayservice.yaml a GPU Ray worker's readiness; KubeRay's own probes use 10);
* an ``exec`` probe that starts a Python interpreter (``python3 -c "import ray; ray.init(...)"``) with the default
  1 s timeout: starting Python and importing Ray alone take about that, so the probe times out and a liveness probe
  restarts the worker (spent set 17 umesh-khatiwada/aibrix-vllm-deployment, a RayClusterFleet's TP=2 worker). The
  kubelet enforces an exec probe's timeoutSeconds since Kubernetes 1.20 (kubernetes/kubernetes PR #94115, feature
  gate ExecProbeTimeout, on by default): the command is abandoned and the probe counts as failed. Judged on every
  container of a pod that serves a model, sidecars included (spent set 30 opendatahub-io/caikit-tgis-serving: the
  caikit front container of a TGIS ServingRuntime probes with ``python -m caikit_health_probe``);
* a livenessProbe that execs such a CLI (``ray status``, ``python health_check.py``) and restarts after only 2
  failures: two slow runs under load restart the container (spent set 31 opendatahub-io/odh-model-controller's
  multi-node vLLM runtime, from kserve v0.15.0 config/runtimes/kserve-huggingfaceserver-multinode.yaml: failureThreshold
  2, periodSeconds 5, with a Ray head whose restart drops the whole multi-node model).

* an HTTP liveness or readiness probe left at the default ``timeoutSeconds`` of 1 s (or set to 1) with the default
  three failures or fewer, on a GPU container whose engine answers its health endpoint from the API server that also
  serves the requests (the engine table's ``health_sees_engine``: vLLM's GET /health awaits the engine client on the
  API server's event loop): a saturated server answers later than 1 s for as long as the load lasts, so liveness
  restarts it and readiness takes it out of its Services under exactly the load it was serving. Seen on vLLM:
  scaleapi/llm-engine PR #255 ("vLLM docker sometimes can't respond within 1s during high load", timeout raised to
  5 s), llm-d/llm-d-benchmark PR #1734 ("a saturated vLLM only had to miss three 1s /health checks (~15s) to be
  marked NotReady", raised to 15 s). Spent sets 123 sarvamai/uidai-deployment yamls/llama-guard/deployment.yaml, 124
  Lintasarta/vllm-helm templates/deployment.yaml, 125 souhailsegni/Deepseek_R1_VLLM-EKS deepseek-r1 chart (labelled
  G49). Silent for a timeoutSeconds of 2 or more, a value the file does not fix (a chart value left unknown), more
  than three failures, a readiness probe every 1-4 s (as above), tcpSocket and exec probes (others' rows), startup
  probes (S16), engines no such row names, and a probe of another server (another host, or a port number only a
  sidecar of the pod declares: review57c).

Advice: how slow the answers get depends on the load. Judged on pods that run a model server or hold an
accelerator; startup probes are S16's.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

from policies.dynamo_defaults import operator_probes
from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, as_int, as_list, as_quantity, container_label, containers, get, pod_specs
from policies.reading.accelerators import ACCELERATOR_RESOURCES
from policies.reading.serving import ModelServer, engine_row, model_servers

_PROBES = (
    ("livenessProbe", "restarts the container and reloads the model"),
    ("readinessProbe", "takes the pod out of its Services"),
)
_INTERPRETERS = ("python", "python3", "ray")


def _holds_device(container: Mapping) -> bool:
    return any(
        (as_quantity(get(container, "resources", section, name)) or 0) > 0
        for section in ("limits", "requests")
        for name in ACCELERATOR_RESOURCES
    )


# What separates command words in a probe's shell script: blanks, pipes, lists, `$(...)`, backquotes, assignments.
_SHELL_BREAK = re.compile(r"[\s;|&()`=]+")


def _starts_python(probe: Mapping) -> bool:
    """True when an exec probe's command runs a Python interpreter or the ray CLI (directly or in a shell script,
    `gpu_status=$(ray status ...)` included)."""
    words = _SHELL_BREAK.split(" ".join(str(w) for w in as_list(get(probe, "exec", "command"))))
    return any(posixpath.basename(w.strip("'\"$")) in _INTERPRETERS for w in words)


def _out_for_long(field: str, probe: Mapping) -> bool:
    """A liveness failure always costs a restart; a readiness failure keeps the pod out of its Services until the next
    success, periodSeconds (default 10) later: a probe every second or two is a deliberate choice (the inference
    gateway's own vLLM sample, kubernetes-sigs/gateway-api-inference-extension config/manifests/vllm/gpu-deployment.yaml)."""
    return field == "livenessProbe" or (as_int(probe.get("periodSeconds")) or 10) >= 5


def _findings(label: str, container: Mapping, server: bool) -> list[str]:
    """G49's advice on one container: ``server`` when it runs the model server or holds an accelerator (a slow answer
    under load is its own), else a container beside one in a serving pod (only the interpreter start is judged)."""
    messages: list[str] = []
    defaults = operator_probes()
    for field, effect in _PROBES:
        probe = as_dict(container.get(field))
        if not probe or probe in defaults:
            continue  # none, or the operator's own default (Dynamo's worker liveness)
        if not server:
            effect = effect.replace(" and reloads the model", "")
        failures = as_int(probe.get("failureThreshold"))
        if server and failures == 1 and _out_for_long(field, probe):
            messages.append(
                f"{label}: {field} failureThreshold 1 {effect} on the first answer slower than its "
                f"timeoutSeconds {as_int(probe.get('timeoutSeconds')) or 1}s, which a loaded model server gives now and "
                f"then; allow at least 3 failures"
            )
        if _starts_python(probe) and (as_int(probe.get("timeoutSeconds")) or 1) <= 1:
            messages.append(
                f"{label}: {field} execs a Python interpreter with timeoutSeconds "
                f"{'unset (1s)' if probe.get('timeoutSeconds') is None else '1s'}: starting Python and importing its "
                f"modules takes about that, the kubelet counts the timeout as a failure, and {effect}; set "
                f"timeoutSeconds to 10 or more"
            )
        elif field == "livenessProbe" and failures == 2 and _starts_python(probe):
            messages.append(
                f"{label}: livenessProbe execs a Python CLI (python/ray) and {effect} after only 2 failures in a row: "
                f"two slow runs of the CLI while the server is busy are enough; allow at least 3 failures"
            )
    return messages


def _names_device(container: Mapping) -> bool:
    """True when the container's resources name an accelerator with a count that is not zero: a count a chart or a
    rendering variable fills in (``nvidia.com/gpu: ${gpuLimit}``) still says the server runs on one."""
    for section in ("limits", "requests"):
        for name in ACCELERATOR_RESOURCES:
            value = get(container, "resources", section, name)
            if value is not None and (as_quantity(value) is None or (as_quantity(value) or 0) > 0):
                return True
    return False


def _short_timeout(probe: Mapping) -> bool:
    """An httpGet probe whose timeoutSeconds is unset (1 s) or 1 and that acts after three failures or fewer (a value
    the file leaves unknown, such as a chart value the defaults do not give, is not judged)."""
    timeout, failures = probe.get("timeoutSeconds", 1), probe.get("failureThreshold", 3)
    return bool(probe.get("httpGet")) and timeout in (1, "1") and isinstance(failures, int) and failures <= 3


def _probes_engine(probe: Mapping, server: ModelServer) -> bool:
    """False when the HTTP probe reaches another server than the engine's: another host (``httpGet.host``), or a port
    number only another container of the pod declares (a sidecar's proxy or health exporter, on its own loop)."""
    if get(probe, "httpGet", "host"):
        return False
    port = get(probe, "httpGet", "port")
    if not isinstance(port, int) and not (isinstance(port, str) and port.isdigit()):
        return True  # a named port is the container's own (the kubelet resolves it among its ports)

    def declares(container: Mapping) -> bool:
        return any(str(get(p, "containerPort")) == str(port) for p in as_list(container.get("ports")))

    others = [c for c in containers(server.podspec, init=True) if c is not server.container]
    return declares(server.container) or not any(declares(c) for c in others)


def _loaded_health(resource: Resource) -> list[str]:
    """G49's advice on a GPU server of an engine whose health endpoint its API server answers (``health_sees_engine``)
    probed over HTTP with the default 1 s timeout (module docstring)."""
    messages: list[str] = []
    defaults = operator_probes()
    for server in model_servers(resource):
        row = engine_row(server.engine)
        if row is None or not row.health_sees_engine or not _names_device(server.container):
            continue
        short = [
            field
            for field, _ in _PROBES
            if (probe := as_dict(server.container.get(field)))
            and probe not in defaults
            and _short_timeout(probe)
            and _probes_engine(probe, server)
            and _out_for_long(field, probe)
            and as_int(probe.get("failureThreshold")) != 1  # failureThreshold 1: said by _findings
        ]
        if short:
            what = " and ".join(short)
            messages.append(
                f"{server.label}: {what} on HTTP with timeoutSeconds "
                f"{'unset (1s)' if all('timeoutSeconds' not in as_dict(server.container.get(f)) for f in short) else '1s'}: "
                f"{row.display} answers its health endpoint from the API server that serves the requests, and under load "
                f"it answers later than 1s for as long as the load lasts: "
                + " and ".join(f"the {f} {dict(_PROBES)[f]}" for f in short)
                + " under the load it was serving; set timeoutSeconds to 5 or more"
            )
    return messages


def _check(resource: Resource, config: dict) -> list[str]:
    servers = {id(s.container) for s in model_servers(resource)}
    messages: list[str] = [unproven(m) for m in _loaded_health(resource)]
    for path, podspec in pod_specs(resource):
        pod = containers(podspec)
        judged = {id(c) for c in pod if id(c) in servers or _holds_device(c)}
        if not judged:
            continue  # a pod that serves no model: its probes are not this rule's
        for container in pod:
            messages.extend(unproven(m) for m in _findings(container_label(path, container), container, id(container) in judged))
    return messages


POLICY = Policy(
    name="probe-tolerates-slow-answer",
    description=(
        "A GPU model server's liveness and readiness probes allow more than one failure, an exec probe that starts "
        "Python has more than the default 1 s to answer, and an HTTP probe of a server whose API server answers its "
        "health endpoint (vLLM) has more than 1 s (advice)."
    ),
    catalog="G49",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Leave failureThreshold at 3 or more on liveness and readiness probes of model servers, and give exec probes "
        "that run python or ray a timeoutSeconds of 10 or more (or probe the server's HTTP health endpoint instead); "
        "give HTTP liveness and readiness probes of a vLLM server a timeoutSeconds of 5 or more."
    ),
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "Kubernetes acts on a probe after failureThreshold consecutive failures, each an answer later than "
        "timeoutSeconds (default 1 s) (https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-"
        "probes/#configure-probes); a liveness restart of a model server repeats its whole model load."
    ),
)
