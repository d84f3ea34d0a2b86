"""S39: a vLLM engine whose ranks span the pods of a leader/worker group is started the way vLLM starts one.

When tensor parallel × pipeline parallel is larger than the leader pod's GPUs, the engine needs the workers' GPUs,
and vLLM reaches them one of two ways:

- Ray: the leader starts a Ray head and every worker joins it and blocks, then the leader alone runs the server with
  ``--distributed-executor-backend ray``. vLLM's helper does exactly this (examples/online_serving/multi-node-serving.sh,
  vllm-project/vllm at 2584e94b: ``leader`` runs ``ray start --head --port=6379`` and waits for the cluster size;
  ``worker --ray_address=ADDR`` runs ``ray start --address=ADDR:6379 --block``), and LWS's vLLM guide uses it
  (kubernetes-sigs/lws v0.10.0 docs/examples/vllm/GPU/lws.yaml:21-25 leader, :54-57 worker). Without a head, vLLM's
  ``ray.init`` starts a one-pod Ray (or fails to connect, with ``RAY_ADDRESS=auto``) and the placement group for
  TP × PP GPUs is never ready (vllm 0.33.0 wheel vllm/v1/executor/ray_utils.py:266-321 initialize_ray_cluster,
  :201-263 _wait_until_pg_ready raises "Cannot provide a placement group requiring N GPUs").
- vLLM's own multiprocessing across nodes: ``--nnodes``/``--node-rank`` (workers ``--headless``), or data parallel
  ranks across nodes (``--data-parallel-address``); with neither and no Ray, vLLM 0.33.0 refuses a world size above
  the node's GPUs (vllm/config/parallel.py:1064-1077 "World size ... is larger than the number of available GPUs").

Findings (LeaderWorkerSet, and a leader/worker group read generically, policies/reading/groups.py):

- the leader's vLLM needs the workers' GPUs, uses neither form, and nothing in the leader pod runs ``ray start
  --head`` (or vLLM's helper): the engine never starts;
- the leader starts a Ray head but a worker runs a vLLM server of its own instead of joining the head: the head never
  gets the workers' GPUs;
- the workers' last command is ``ray start --address=...`` without ``--block``: it returns, the container ends and
  takes its raylet with it (KubeRay adds --block to every ray start it writes, kuberay v1.7.0 pod.go:1377-1378);
- advice: the leader starts a Ray head that the workers join, but its engine fits the leader pod (TP × PP within its
  GPUs, no data parallel, no --nnodes), so vLLM never places a rank on the workers and their pods hold nodes for nothing.

Mandatory only where the manifest shows every command (the containers' ``command`` starts vLLM or Ray directly, or is
a script of nothing else); an unknown script or image entrypoint in the way could start Ray, so the finding is then
advice. ``RAY_ADDRESS`` naming another cluster (KubeRay's, ``ray://...``) is a head elsewhere: silent. SGLang's
``--nnodes``/``--dist-init-addr`` and KubeRay's own clusters are other engines' forms: not read here.
"""

from __future__ import annotations

import posixpath
from typing import Optional

from components.engine_options import tagged_release
from policies.framework import Policy, Resource, unproven
from policies.kube import as_int, containers, get, gpu_count, pod_specs, split_type
from policies.reading.engines import env_values
from policies.reading.groups import pod_group
from policies.reading.serving import engine_row
from policies.reading.vllm_args import VllmServer, command_tokens, is_shell_operator, parallel_size, vllm_servers

_LWS = "spec.leaderWorkerTemplate"
# Options of vLLM's own multi-node start (multiprocessing over --nnodes, data parallel ranks across nodes).
_OWN_MULTI_NODE = ("nnodes", "node-rank", "headless", "data-parallel-address", "data-parallel-start-rank", "master-addr")
# RAY_ADDRESS values that mean "a Ray of this pod" (ray.init's "auto" looks for a local one).
_LOCAL_RAY = ("", "auto", "localhost", "127.0.0.1")
# Commands that cannot start a Ray head or a server (a script made of these and the engine hides nothing).
_INERT = frozenset(
    {"echo", "export", "set", "sleep", "cd", "true", "env", "printenv", "mkdir", "ls", "cat", "exec", "nvidia-smi"}
)


def _ray_starts(container: dict) -> list[tuple[list[str], list[str]]]:
    """Every ``ray start`` in a container's command line (or script), in order: its arguments (up to a shell operator)
    and the tokens after them."""
    tokens, _ = command_tokens(container)
    found = []
    for i, token in enumerate(tokens[:-1]):
        if posixpath.basename(token) == "ray" and tokens[i + 1] == "start":
            rest = tokens[i + 2 :]
            end = next((j for j, t in enumerate(rest) if is_shell_operator(t)), len(rest))
            found.append((rest[:end], rest[end:]))
    return found


def _helper(container: dict, role: str) -> bool:
    """True when the container runs a multi-node helper script in ``role`` (vLLM's multi-node-serving.sh leader/worker,
    or any script named like it)."""
    tokens, _ = command_tokens(container)
    return any("multi-node" in posixpath.basename(t) or "multinode" in posixpath.basename(t) for t in tokens) and role in tokens


def _starts_head(podspec: dict) -> bool:
    return any(
        any("--head" in args for args, _ in _ray_starts(c)) or _helper(c, "leader") for c in containers(podspec, init=True)
    )


def _returns_at_once(container: dict) -> bool:
    """True when the container's last command is a ``ray start --address ...`` without ``--block``: ray start returns
    once the node's Ray processes run in the background, the container's command ends, and the kubelet stops the
    container and its raylet with it (KubeRay adds --block to every ray start it writes for this reason: kuberay v1.7.0
    ray-operator/controllers/ray/common/pod.go:1377-1378, kuberay#675)."""
    starts = _ray_starts(container)
    if not starts:
        return False
    args, tail = starts[-1]
    ends = all(is_shell_operator(t) for t in tail) and not any(t in ("&", "|", "||") for t in tail)
    return ends and any(a.startswith("--address") for a in args) and not any(a.startswith("--block") for a in args)


def _joins(container: dict) -> bool:
    return any(any(a.startswith("--address") for a in args) for args, _ in _ray_starts(container)) or _helper(container, "worker")


def _whole_command(container: dict) -> bool:
    """True when the container's command line is the manifest's to read: a ``command`` is written and, for a script,
    every command in it is the engine, Ray or an inert one (an unknown script could start anything)."""
    if not isinstance(container.get("command"), list) or not container["command"]:
        # The official image's entrypoint is `vllm serve` (the engine table's vLLM row names the image).
        vllm = engine_row("vllm")
        images = vllm.options.images if vllm is not None and vllm.options is not None else ()
        return tagged_release(str(container.get("image", "")), images) is not None
    tokens, script = command_tokens(container)
    if not script:
        return True
    starts, at_start = [], True
    for token in tokens:
        if is_shell_operator(token):
            at_start = True
        elif at_start and "=" not in token:
            starts.append(posixpath.basename(token))
            at_start = False
    return all(s in _INERT or s in ("vllm", "python", "python3", "ray") for s in starts)


def _group(resource: Resource, path: str) -> Optional[tuple[list[str], int]]:
    """(worker pod spec paths, pods in the group) when ``path`` is a group's leader, else None."""
    if split_type(resource.type)[1] == "LeaderWorkerSet":
        size = as_int(get(resource.props, *_LWS.split("."), "size"))
        if path != f"{_LWS}.leaderTemplate.spec" or size is None or size < 2:
            return None
        return [f"{_LWS}.workerTemplate.spec"], size
    group = pod_group(resource, path)
    if group is None or group.role != "leader" or group.front != path or not group.size or group.size < 2:
        return None
    workers = [p for p, _ in pod_specs(resource) if (g := pod_group(resource, p)) and g.role == "worker" and g.front == path]
    return workers, group.size


def _leader_finding(resource: Resource, server: VllmServer, workers: list[dict], size: int) -> Optional[str]:
    tp, pp = parallel_size(server.args, "tensor-parallel-size"), parallel_size(server.args, "pipeline-parallel-size")
    gpus = gpu_count(server.container)
    if tp is None or pp is None or gpus is None or gpus < 1 or tp * pp <= gpus:
        return None  # the engine fits the leader pod (or its sizes are not literal): no multi-node start needed
    if any(o in server.args for o in _OWN_MULTI_NODE):
        return None  # vLLM's own multi-node start
    ray_address = env_values(server.container).get("RAY_ADDRESS")
    if ray_address is not None and ray_address.split(":", 1)[0].strip() not in _LOCAL_RAY:
        return None  # a Ray head elsewhere (another cluster's address)
    ranks = f"tensor parallel {tp} × pipeline parallel {pp} = {tp * pp} GPUs over a group of {size} pods ({gpus} in the leader)"
    servers = [c for c in workers if any(s.container is c for s in vllm_servers(resource)) and not _joins(c)]
    sure = _whole_command(server.container) and all(_whole_command(c) for c in workers)
    if not _starts_head(server.podspec):
        told = "; the workers each run a vLLM server of their own instead of joining one" if servers else ""
        text = (
            f"{server.label}: {ranks}, but nothing in the leader pod starts a Ray head (ray start --head, or vLLM's "
            f"multi-node-serving.sh leader) and the server uses no --nnodes{told}: vLLM's placement group for "
            f"{tp * pp} GPUs never gets the workers' GPUs and the engine never starts; start the head on the leader and "
            "`ray start --address=$(LWS_LEADER_ADDRESS):6379 --block` on the workers (vLLM's multi-node-serving.sh)"
        )
        return text if sure else unproven(text)
    if servers:
        text = (
            f"{server.label}: {ranks}; the leader starts a Ray head, but the workers run a vLLM server of their own "
            "instead of joining it (ray start --address=$(LWS_LEADER_ADDRESS):6379 --block): the head never gets "
            f"their GPUs and the placement group for {tp * pp} GPUs is never ready"
        )
        return text if sure else unproven(text)
    if any(_returns_at_once(c) for c in workers):
        text = (
            f"{server.label}: {ranks}; the workers join the head with `ray start --address=...` but without --block, "
            "so ray start returns, the container's command ends and the kubelet stops it with its raylet: the workers "
            "keep leaving the Ray cluster; add --block (as KubeRay and vLLM's multi-node-serving.sh do)"
        )
        return text if sure else unproven(text)
    return None


def _unused_workers(resource: Resource, server: VllmServer, workers: list[dict], size: int) -> Optional[str]:
    """Advice where the leader starts a Ray head that the workers join, but the leader's engine fits the leader pod
    (TP x PP within its GPUs, no data parallel, no --nnodes): vLLM then runs one node's ranks without Ray, and the worker
    pods hold their nodes for nothing (spent set 22, mitzenjeremywoo/deepseek-llama-huge llama405b.yaml)."""
    tp, pp = parallel_size(server.args, "tensor-parallel-size"), parallel_size(server.args, "pipeline-parallel-size")
    dp = parallel_size(server.args, "data-parallel-size")
    gpus = gpu_count(server.container) or 0
    if tp is None or pp is None or dp != 1 or tp * pp > max(gpus, 1) or any(o in server.args for o in _OWN_MULTI_NODE):
        return None
    ray_address = env_values(server.container).get("RAY_ADDRESS")
    if ray_address is not None and ray_address.split(":", 1)[0].strip() not in _LOCAL_RAY:
        return None
    if not workers or not _starts_head(server.podspec) or not all(_joins(c) for c in workers):
        return None
    return unproven(
        f"{server.label}: the leader starts a Ray head for a group of {size} pods and the workers join it, but the "
        f"engine is tensor parallel {tp} × pipeline parallel {pp} = {tp * pp} GPU(s) (--tensor-parallel-size/"
        f"--pipeline-parallel-size {'unset' if 'tensor-parallel-size' not in server.args else 'as set'}), which the "
        "leader pod holds alone: vLLM never places a rank on the workers, so their pods hold nodes and GPUs for "
        "nothing; size TP × PP to the group's GPUs (with --distributed-executor-backend ray) or make the group one pod"
    )


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings = []
    for r in resources:
        specs = dict(pod_specs(r))
        for server in vllm_servers(r):
            if server.runtime_merged:
                continue
            group = _group(r, server.path)
            if group is None:
                continue
            workers = [c for p in group[0] if isinstance(specs.get(p), dict) for c in containers(specs[p])]
            message = _leader_finding(r, server, workers, group[1]) or _unused_workers(r, server, workers, group[1])
            if message is not None:
                findings.append((r.name, message))
    return findings


POLICY = Policy(
    name="vllm-multi-node-start",
    description="A vLLM engine whose ranks span a leader/worker group is started as vLLM starts one: a Ray head on the "
    "leader that the workers join (or vLLM's --nnodes form).",
    catalog="S39",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "On the leader run `multi-node-serving.sh leader --ray_cluster_size=$(LWS_GROUP_SIZE)` (or `ray start --head "
        "--port=6379`) before the server, with --distributed-executor-backend ray; on the workers run only "
        "`multi-node-serving.sh worker --ray_address=$(LWS_LEADER_ADDRESS)` (or `ray start --address=$(LWS_LEADER_ADDRESS):6379 "
        "--block`), as LWS's vLLM guide does. Or use vLLM's --nnodes/--node-rank form with --headless workers. "
        'Where a Ray head is started some other way, annotate llm-serving.io/exempt-vllm-multi-node-start: "<reason>".'
    ),
    check_stack=_check,
    per_object=True,
    rationale=(
        "vLLM's helper examples/online_serving/multi-node-serving.sh (vllm-project/vllm 2584e94b) and LWS's vLLM guide "
        "(kubernetes-sigs/lws v0.10.0 docs/examples/vllm/GPU/lws.yaml) start a Ray head on the leader that the workers "
        "join; vLLM 0.33.0 ray_utils.py initialize_ray_cluster otherwise starts a one-pod Ray whose placement group for "
        "TP × PP GPUs is never ready."
    ),
)
