"""The policy catalogue: every id a policy's `catalog` may name, defined here and nowhere else.

Two series, in report order:
- "S": the serving-safety series, this project's own checks (docs/policy-catalogue.md section 3);
- "G": rows of the general table gathered from public policy sets (section 2; the title is the
  table's "check" column).

The framework refuses a policy whose `catalog` is not listed here, the registry sorts by it, and
docs/policies.md renders its "Catalogue" table from it. A new id is one line below: append an
`Entry` to its series; nothing else in policies/, tests/ or the docs generator lists ids.
Existing ids are never renumbered (reports and SARIF carry them).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Entry:
    """One catalogue row: its series ("S" or "G"), its number in that series and a short title."""

    series: str
    number: int
    title: str

    @property
    def id(self) -> str:
        """The id policies name, e.g. "S2" or "G13"."""
        return f"{self.series}{self.number}"


# Series in report order, with what each one is.
SERIES = {
    "S": "serving safety: checks specific to vLLM, KServe, KubeRay, Karpenter and the ALB/Envoy path",
    "G": "general: rows of the table of public policy sets, adapted to GPU serving",
}

_ENTRIES = (
    Entry("S", 1, "GPU memory utilization within a band"),
    Entry("S", 2, "the weights fit the GPUs (pinned, or any GPU when none is) and max-model-len fits the KV cache"),
    Entry("S", 3, "tensor parallel size matches the GPU limit"),
    Entry("S", 4, "a multi-process GPU server (tensor/pipeline parallel, torchrun, Ray workers) has a bounded memory /dev/shm"),
    Entry("S", 5, "an LLM server can scale to zero or is committed at 0 replicas (minReplicas 0: HPA, KEDA, KServe, Knative)"),
    Entry("S", 6, "no CPU/memory-only autoscaling of GPU workloads"),
    Entry("S", 7, "custom autoscaling, alerting or analysis metric is served (as the engine exports it)"),
    Entry("S", 8, "an LLM autoscaler states no behavior, scales in under 300 s, out by unbounded steps, or past its GPU pool"),
    Entry("S", 9, "request timeouts ordered outer >= inner"),
    Entry("S", 10, "termination drains in-flight streams"),
    Entry("S", 11, "a GPU NodePool does not taint its nodes (non-GPU pods can land on GPU nodes)"),
    Entry("S", 12, "a GPU NodePool without explicit disruption budgets that window consolidation, or with none covering drift"),
    Entry("S", 13, "a GPU NodePool with no GPU limit or one below its models' max replicas; a GPU pod Karpenter cannot place"),
    Entry("S", 14, "a GPU NodePool's expireAfter is below a floor (models reload at each expiry), or Never with no drift budget"),
    Entry("S", 15, "GPU pods tolerate and target their pool"),
    Entry("S", 16, "a model server that loads before it listens has no startupProbe, or one shorter than download + load"),
    Entry("S", 17, "a Hub model or storage URI not pinned to a revision (branch, mutable prefix), or trust-remote-code unlisted"),
    Entry("S", 18, "KubeRay: a head taking a GPU or lacking num-gpus 0, unbounded worker groups, no autoscaler idle timeout"),
    Entry("S", 19, "model server pod ephemeral storage (GPU or CPU)"),
    Entry("S", 20, "a GPU Deployment's rollout cannot finish (a surge with no spare pool GPU, or maxSurge and maxUnavailable 0)"),
    Entry("S", 21, "max-num-batched-tokens covers max-num-seqs"),
    Entry("S", 22, "tensor parallel size divides the attention heads"),
    Entry("S", 23, "max-model-len within the model's limit"),
    Entry("S", 24, "quantization method matches the checkpoint"),
    Entry("S", 25, "vLLM --dtype bfloat16 (or auto on a bfloat16 model before 0.9.0) on a GPU below compute capability 8.0"),
    Entry("S", 26, "custom resource or Kubernetes object that the API server's schema accepts (types, fields, CEL rules, names)"),
    Entry("S", 27, "every file is read; no placeholder or fill-in (${VAR}, YOUR_..., changeme, example.com host, zero UUID)"),
    Entry("S", 28, "Hugging Face token not an empty literal or a placeholder (your-...-token-here)"),
    Entry("S", 29, "model cache volume holds the checkpoint"),
    Entry("S", 30, "single-attach (ReadWriteOnce) volume under a rolling update, several replicas/nodes, or two workloads"),
    Entry("S", 31, "serving code not fetched from a moving URL at start"),
    Entry("S", 32, "requests within limits (ours and the controllers' objects)"),
    Entry("S", 33, "controller-created objects pass the API server's schema"),
    Entry("S", 34, "progress deadline covers the startup budget"),
    Entry("S", 35, "NodePool limits admit its GPU instance types"),
    Entry("S", 36, "no debug-only switch or benchmark setting in a model server, LLM proxy or chat UI (debug logs, CUDA sync)"),
    Entry("S", 37, "a gated Hugging Face model has a way to a token; a KServe s3:// model, to its bucket's keys and endpoint"),
    Entry("S", 38, "engine command line parses at the image's release: names and values"),
    Entry("S", 39, "a multi-node engine is started as the engine starts one"),
    Entry("S", 40, "a server reads a model path something fills (its loader's folder; not a volume that starts empty)"),
    Entry("S", 41, "service links spare the engine's own variables"),
    Entry("S", 42, "a model server is not pinned to one node"),
    Entry("S", 43, "Ray Serve config keys current for the Ray release"),
    Entry("S", 44, "an ingress route or rewrite keeps the model server's API path"),
    Entry("S", 45, "a pod script's model download fails loudly (HTTP error, swallowed status) and waits for its server"),
    Entry("S", 46, "a model server's engine image comes from the engine's publisher"),
    Entry("S", 47, "an offline Hub client finds its model in a cache something fills"),
    Entry("S", 48, "Ray Serve replicas fit the GPUs the Ray cluster can have, of the accelerator type they ask"),
    Entry("S", 49, "a multi-node LeaderWorkerSet group restarts together"),
    Entry("S", 50, "GPU model servers do not run on spot capacity"),
    Entry("S", 51, "a model server listens on the pod IP its probes and Service reach"),
    Entry("S", 52, "an image from a registry that requires a login has pull credentials"),
    Entry("S", 53, "the engine release supports the model's architecture"),
    Entry("S", 54, "a client is told no larger context window than its server serves (any engine of the table)"),
    Entry("S", 55, "a vLLM server's command line names the model it serves"),
    Entry("S", 56, "the server's image ships the backend its models need"),
    Entry("S", 57, "Ollama: the model store outlives the pod or the run pulls models; clients ask Ollama only for models pulled"),
    Entry("S", 58, "a KEDA trigger gives the metadata its scaler requires"),
    Entry("S", 59, "a client of a server loading LoRA adapters asks for an adapter by name"),
    Entry("S", 60, "a KV-cache-aware scheduler gets the KV events it scores by"),
    Entry("S", 61, "prefill and decode of one model agree on KV transfer"),
    Entry("S", 62, "a chat front end's settings leave it a model backend the cluster resolves"),
    Entry("S", 63, "an InferenceService's model format is one its runtime supports"),
    Entry("S", 64, "a scraped model server serves metrics where it is scraped"),
    Entry("S", 65, "a client or router/gateway route (AIBrix, AI Gateway) asks a server for a model and path it serves"),
    Entry("S", 66, "a vLLM server that loads its model from a local path names the model it serves (--served-model-name)"),
    Entry("G", 1, "an image with no tag, :latest or a moving tag (main, nightly, dev); a serving chart at a version range"),
    Entry("G", 2, "an image pinned by tag, not digest (no rule: a moving tag such as :latest or none is G1's)"),
    Entry("G", 3, "a GPU model server sets imagePullPolicy Always (each start waits on the registry for a 10-20 GB image)"),
    Entry("G", 4, "no readiness probe on a model server, proxy or UI (one that cannot fail, or only its operator's TCP check)"),
    Entry("G", 5, "a model server (or a chat UI probed for readiness) has no livenessProbe (a hung server is never restarted)"),
    Entry("G", 6, "a readiness probe that passes before the model answers (a TCP check, Triton's live path, a swallowed pull)"),
    Entry("G", 7, "a probe names a port the container does not declare (no rule yet)"),
    Entry("G", 8, "a container requests no CPU or memory (and an HPA on CPU/memory Utilization of it cannot compute)"),
    Entry("G", 9, "a model server's CPU limit is below the CPUs its engine keeps busy (vLLM's processes, llama.cpp --threads)"),
    Entry("G", 10, "memory limit: set, and on a CPU model server (Ollama, llama.cpp, LocalAI, vLLM) above its model + KV cache"),
    Entry("G", 11, "memory request == limit / Guaranteed QoS"),
    Entry("G", 12, "a model server's memory limit is far above its memory request (over 2.5x: loading the model risks eviction)"),
    Entry("G", 13, "GPU limit present (a GPU engine or CUDA build: vLLM, TGI/TEI default tags, NIM) / GPU requests == limits"),
    Entry("G", 14, "a Deployment's replica count below a floor (no rule: the floor is per environment; zero replicas is S5's)"),
    Entry("G", 15, "an HPA or KEDA ScaledObject of a model server lets it fall below 2 replicas (a restart leaves none serving)"),
    Entry("G", 16, "an HPA or KEDA ScaledObject whose minimum replicas is not below its maximum (it can never scale)"),
    Entry("G", 17, "two autoscalers (HPA, KEDA, KServe's, NIM's, AIBrix) target one workload, or a VPA fights a CPU/memory HPA"),
    Entry("G", 18, "a serving app (or a RayCluster's GPU workers) has no PDB, a PDB that selects no pod, or no Service"),
    Entry("G", 19, "PDB blocks all voluntary disruption"),
    Entry("G", 20, "PDB minAvailable vs replicas / HPA min"),
    Entry("G", 21, "a PodDisruptionBudget without unhealthyPodEvictionPolicy AlwaysAllow (crash-looping pods block node drains)"),
    Entry("G", 22, "a serving pod sets no priorityClassName (or a system-* one); a KubeRay pod group runs below GPU serving"),
    Entry("G", 23, "a serving app's replicas are not spread over nodes (no ScheduleAnyway topology spread constraint)"),
    Entry("G", 24, "hostNetwork: a pod shares the node's network (reported under G25 with hostPID and hostIPC)"),
    Entry("G", 25, "a pod shares the node's network, PID or IPC namespace (hostNetwork, hostPID or hostIPC true)"),
    Entry("G", 26, "privileged container, or seccompProfile Unconfined on a model server, proxy or chat UI (no syscall filter)"),
    Entry("G", 27, "a model-server, serving-path app or chat UI container does not set allowPrivilegeEscalation: false"),
    Entry("G", 28, "runAsNonRoot: a model server, proxy or UI pinned to root (runAsUser 0), or runAsNonRoot on a root image"),
    Entry("G", 29, "a vLLM container on a read-only root filesystem has no writable /tmp or Hugging Face cache: it cannot start"),
    Entry("G", 30, "a container adds Linux capabilities beyond an allow-list (default IPC_LOCK; SYS_ADMIN, NET_ADMIN, ...)"),
    Entry("G", 31, "hostPath: mounted read-only, and tied to the node that holds it (pod placement, PV nodeAffinity)"),
    Entry("G", 32, "a model API or chat UI published without TLS or auth: LoadBalancer/NodePort Service, Ingress, route"),
    Entry("G", 33, "NetworkPolicy: model pods not isolated, or a policy that blocks the pulls, providers or DNS they need"),
    Entry("G", 34, "the service account token is mounted by default (no rule: KServe and Ray pods use their service account)"),
    Entry("G", 35, "secrets in env or a spec; a committed Secret holding a token, or a password under a credential key"),
    Entry("G", 36, "an emptyDir with no sizeLimit: in memory, or on disk (a model store too) with no ephemeral-storage request"),
    Entry("G", 37, "app.kubernetes.io/* recommended labels missing (no rule: labels are cost attribution, not serving safety)"),
    Entry("G", 38, "default namespace, written or left out where nothing of the run sets one"),
    Entry("G", 39, "a bare Pod with no controller (a model server or GPU pod is not recreated when its node goes away)"),
    Entry("G", 40, "an apiVersion not served (removed, wrong API group, an HPA target's), alpha or deprecated; ingress.class"),
    Entry("G", 41, "a Job without ttlSecondsAfterFinished (finished model-download Jobs and their pods are kept forever)"),
    Entry("G", 42, "a ServiceMonitor or PodMonitor that scrapes nothing: no Service or pod of the files matches it on its port"),
    Entry("G", 43, "a model-server Deployment with more than one replica rolls out by Recreate (every replica down at once)"),
    Entry("G", 44, "a NodePool hosting a multi-node engine (Ray, LeaderWorkerSet, KServe workerSpec) lacks expireAfter: Never"),
    Entry("G", 45, "pod template passes the API server's own validation (unique mount paths and names, a selector)"),
    Entry("G", 46, "containers can start (image ref, command path, memory floor, vLLM command, program hidden, nginx config)"),
    Entry("G", 47, "a Secret's data value is not valid base64 (the API server refuses it; plain text belongs in stringData)"),
    Entry("G", 48, "a postStart hook that calls the pod's own server waits for it"),
    Entry("G", 49, "a GPU model server's probes survive one slow answer"),
    Entry("G", 50, "a LimitRange gives no GPU to containers that need none"),
    Entry("G", 51, "a pod's claim is one its repository creates"),
    Entry("G", 53, "a GPU container's env does not hide or swap the GPUs it claims (NVIDIA_/CUDA_VISIBLE_DEVICES)"),
    Entry("G", 54, "a pod passes the Pod Security level its Namespace enforces"),
    Entry("G", 55, "a single-architecture image selects nodes of its architecture"),
    Entry("G", 56, "a Service's selector matches the pods of a workload of its run (of one model), and no Job's"),
    Entry("G", 57, "an ingress-nginx regex path uses pathType ImplementationSpecific"),
    Entry("G", 58, "an object is defined once among the files of a folder"),
    Entry("G", 59, "a model server does not tolerate the taints of nodes in trouble (pressure, cordoned, failed)"),
    Entry("G", 60, "a pod's Secret reference resolves against the Secret its run defines"),
    Entry("G", 61, "a model proxy's route to localhost reaches a model server in its own pod"),
    Entry("G", 62, "NetworkPolicies admit a Service's callers at both ends (ingress controller, outside clients, URL callers)"),
    Entry("G", 63, "an in-cluster URL a container is given names a Service of its run, on a port it exposes"),
    Entry("G", 64, "imagePullPolicy Never on a workload whose run targets a managed cloud cluster"),
    Entry("G", 65, "an Istio ALLOW policy writes a path prefix with a trailing '*'"),
    Entry("G", 66, "a coscheduling PodGroup is named by the pods it gangs"),
    Entry("G", 67, "a KEDA query already per replica, or a latency, is not averaged over the replicas again"),
    Entry("G", 68, "a route's backend is a Service of its run, on a port it offers (an Istio subset some pod carries)"),
    Entry("G", 69, "a reference by name or label resolves: an autoscaler's target, a namespace something creates, a label set"),
    Entry("G", 70, "an EC2NodeClass selects an AMI family EKS still publishes (no AL2 for Kubernetes 1.33+)"),
    Entry("G", 71, "a ReadWriteMany claim names a class that provisions volumes many nodes mount"),
    Entry("G", 72, "a model server downloads a model that exists (a Hub id by its family's naming; an Ollama name and size)"),
    Entry("G", 73, "a Ray Serve application's import_path names a module the cluster can import"),
    Entry("G", 74, "a variable set for an engine (OLLAMA_..., another engine's setting) is one the image's release reads"),
    Entry("G", 75, "a NetworkPolicy's ports name the pods' port, not a Service port forwarded to another"),
    Entry("G", 76, "a model server's probes act within minutes, not hours: initial delay, period, timeout x failureThreshold"),
    Entry("G", 77, "an Ollama server keeps the models it serves loaded (keep-alive not zero, room for the models pulled)"),
    Entry("G", 78, "an Open WebUI keeps its data directory on a volume that outlives the container"),
    Entry("G", 79, "an exec probe, lifecycle hook or command runs a program its image ships"),
    Entry("G", 80, "args fit the image's ENTRYPOINT or give the server's command; health probes ask a path the server answers"),
    Entry("G", 81, "a pod isolated for egress reaches the cluster DNS when it resolves names (port 53, UDP)"),
    Entry("G", 82, "an autoscaler's metric is read where it is asked for (KEDA's query API, a scrape the NetworkPolicies admit)"),
    Entry("G", 83, "a claim can bind the PersistentVolume it names or is written for (access modes, size, class)"),
    Entry("G", 84, "a non-root pod writing to a claim can write it (fsGroup or an init that owns the folder)"),
    Entry("G", 85, "an Ingress names the class its annotations are written for"),
    Entry("G", 86, "a StatefulSet's serviceName names a headless Service, so its pods' DNS names (NAME-0.SERVICE) resolve"),
    Entry("G", 87, "a chat UI keeps its login on and a session signing key that outlives the container (Open WebUI)"),
    Entry("G", 88, "a manifest is not a live object's export (resourceVersion, uid, status copied from a cluster)"),
    Entry("G", 89, "an init container or a Job runs no model server (an engine image given no command: `ollama serve`)"),
    Entry("G", 90, "a workload an autoscaler of the files manages states no spec.replicas (each apply resets the count)"),
    Entry("G", 91, "a KubeRay worker group whose maxReplicas is above its replicas has the in-tree autoscaler to grow it"),
    Entry("G", 92, "a LiteLLM proxy holding provider keys sets a master key, and the clients of the files send that key"),
    Entry("G", 93, "an ALB Ingress listening on HTTPS gives the controller a certificate (certificate-arn or a host)"),
    Entry("G", 94, "a proxy in front of a model API passes streamed replies on unbuffered (nginx proxy_buffering off)"),
    Entry("G", 95, "a model server's Hugging Face token is passed under a variable its Hub client reads (HF_TOKEN)"),
    Entry("G", 96, "a pod of a namespace whose ResourceQuota limits cpu/memory states them (else refused: 'must specify')"),
    Entry("G", 97, "a YAML mapping states each key once (a key written twice, e.g. two env: lists, silently loses one)"),
    Entry("G", 98, "a Deployment holding a hostPort (or hostNetwork) rolls out without a spare node (Recreate or maxSurge 0)"),
    Entry("G", 99, "an init container does not wait for its own pod's app container (app containers start after every init)"),
    Entry("G", 100, "a claim on a StorageClass that creates no volumes (kubernetes.io/no-provisioner) has a PV of it to bind"),
    Entry("G", 101, "LLM app setting that opens access or leaks data (CORS *, open sign-up, client keys, TLS off, prompt logs)"),
    Entry("G", 102, "GPU requested by a container that cannot use it (a CPU build, an app only calling a model server by HTTP)"),
    Entry("G", 103, "a pod's node selector or affinity requires a GPU node label no component sets (nvidia.com/gpu as a label)"),
    Entry("G", 104, "a start script reaches its server and the server's exit ends the container (no sleep inf around it)"),
    Entry("G", 105, "a `$(VAR)` in env, command or args is expanded (one defined later in env, or nowhere, stays literal)"),
    Entry("G", 106, "a client reaches its model backend by a literal IP address (LAN, node or public host), not a Service name"),
    Entry("G", 107, "a setting nothing reads: a chart value its chart ignores, an annotation on a kind its controller ignores"),
)


def _index(entries: tuple[Entry, ...]) -> dict[str, Entry]:
    problems = [f"{e.id}: unknown series {e.series!r}" for e in entries if e.series not in SERIES]
    ids = [e.id for e in entries]
    problems += [f"{i}: listed twice" for i in sorted({i for i in ids if ids.count(i) > 1})]
    problems += [f"{e.id}: number must be >= 1" for e in entries if e.number < 1]
    if problems:
        raise ValueError("policy catalogue: " + "; ".join(problems))
    return {e.id: e for e in sorted(entries, key=lambda e: (list(SERIES).index(e.series), e.number))}


# id -> Entry, in catalogue order (series S then G, each by number). Read it through the functions
# below, which look it up at call time.
CATALOGUE: dict[str, Entry] = _index(_ENTRIES)


def is_id(catalog_id: str) -> bool:
    """True when `catalog_id` is listed in the catalogue."""
    return catalog_id in CATALOGUE


def entry(catalog_id: str) -> Entry:
    """The catalogue row of an id; KeyError for an unknown id."""
    return CATALOGUE[catalog_id]


def entries() -> tuple[Entry, ...]:
    """Every row, in catalogue order."""
    return tuple(CATALOGUE.values())


def sort_key(catalog_id: str) -> tuple[int, int]:
    """Where an id sorts: by series (S before G), then by number. KeyError for an unknown id."""
    row = CATALOGUE[catalog_id]
    return (list(SERIES).index(row.series), row.number)
