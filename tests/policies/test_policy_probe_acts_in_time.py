"""G76 probe-acts-in-time: a model server's liveness and readiness probes act within minutes, not hours.

Fires (labels filed NONE, now described):
- Spent set 31: openshift-psap/topsail projects/llm-d/testing/llmisvcs/llmisvc-simple.yaml@cfc3e8a2 (and -pd.yaml),
  an LLMInferenceService whose vLLM container has liveness failureThreshold 1000 x periodSeconds 60 (~16 h) and
  readiness failureThreshold 10000 x 30 s.
- Spent set 42: fuhengwu2021/coderepo extra/vllm-llama-4-scout.yaml@b874b446 (and the sglang twin), a bare Pod whose
  readinessProbe runs every 3600 s after a first check at 120 s.
- Second repository of the readiness form: amirhnajafiz/file-access-patterns k8s/vllm.yaml@667dd4a9 (spent set 41,
  no label on it), a vLLM Job whose readinessProbe runs every 300 s (as AurelioAguirre/multi-model-orchestrator
  k8s/inference/vllm-deployment.yaml@a56a9ccc, labelled in set 41).
Careful forms stay silent: vLLM's own Kubernetes guide (vllm-project/vllm docs/deployment/k8s.md, liveness every
10 s, readiness every 5 s), a startupProbe of hours (S16's budget, what startup probes are for), and a non-serving
pod with a liveness budget of hours (turbonomic kibitzer, liveness failureThreshold 1440 x 10 s, found with the
code search: not a model server, not this rule's).
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

G76 = "probe-acts-in-time"


def _http(port: int, **timing: int) -> dict:
    return {"httpGet": {"path": "/health", "port": port}, **timing}


# openshift-psap/topsail projects/llm-d/testing/llmisvcs/llmisvc-simple.yaml@cfc3e8a2, names made valid, router cut.
TOPSAIL = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "LLMInferenceService",
    "metadata": {"name": "qwen", "namespace": "llm-d"},
    "spec": {
        "model": {"uri": "hf://Qwen/Qwen3-0.6B", "name": "Qwen/Qwen3-0.6B"},
        "replicas": 1,
        "template": {
            "containers": [
                {
                    "name": "main",
                    "resources": {"limits": {"nvidia.com/gpu": "1"}, "requests": {"cpu": "4", "memory": "8Gi"}},
                    "livenessProbe": _http(
                        8000, initialDelaySeconds=900, periodSeconds=60, timeoutSeconds=60, failureThreshold=1000
                    ),
                    "readinessProbe": _http(
                        8000, failureThreshold=10000, initialDelaySeconds=60, periodSeconds=30, timeoutSeconds=30
                    ),
                }
            ]
        },
    },
}

# fuhengwu2021/coderepo extra/vllm-llama-4-scout.yaml@b874b446, cut to the probes and what makes it a vLLM server.
SCOUT = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "vllm-llama-4-scout", "labels": {"app": "vllm"}},
    "spec": {
        "runtimeClassName": "nvidia",
        "containers": [
            {
                "name": "vllm-server",
                "image": "vllm/vllm-openai:v0.12.0",
                "command": ["python3", "-m", "vllm.entrypoints.openai.api_server"],
                "args": ["--model", "/models/llama-4-scout", "--port", "8000"],
                "resources": {"limits": {"nvidia.com/gpu": "8"}},
                "livenessProbe": _http(8000, initialDelaySeconds=120, periodSeconds=30, timeoutSeconds=10),
                "readinessProbe": _http(8000, initialDelaySeconds=120, periodSeconds=3600, timeoutSeconds=5),
            }
        ],
    },
}

# amirhnajafiz/file-access-patterns k8s/vllm.yaml@667dd4a9, cut to the serving container.
JOB = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "vllm", "namespace": "llm-servings"},
    "spec": {
        "template": {
            "spec": {
                "restartPolicy": "Never",
                "containers": [
                    {
                        "name": "vllm-container",
                        "image": "vllm/vllm-openai:latest",
                        "command": ["/bin/sh", "-c"],
                        "args": ["vllm serve meta-llama/Llama-3.1-8B --host 0.0.0.0 --port 8000"],
                        "ports": [{"containerPort": 8000}],
                        "resources": {"limits": {"nvidia.com/gpu": "1"}},
                        "livenessProbe": _http(8000, initialDelaySeconds=60, periodSeconds=300),
                        "readinessProbe": _http(8000, initialDelaySeconds=60, periodSeconds=300),
                    }
                ],
            }
        }
    },
}


def _vllm_guide() -> dict:
    """vllm-project/vllm docs/deployment/k8s.md's GPU Deployment: liveness every 10 s, readiness every 5 s."""
    guide = copy.deepcopy(SCOUT)
    server = guide["spec"]["containers"][0]
    server["livenessProbe"] = _http(8000, initialDelaySeconds=60, periodSeconds=10)
    server["readinessProbe"] = _http(8000, initialDelaySeconds=60, periodSeconds=5)
    return guide


def test_liveness_of_hours_is_effectively_off() -> None:
    found = found_by([TOPSAIL], G76)
    assert {e for e, _ in found} == {"advisory"}
    liveness = next(m for _, m in found if "livenessProbe" in m)
    assert "spec.template container main: livenessProbe failureThreshold 1000 x periodSeconds 60" in liveness
    assert "only after 60000s (about 17 h), so the probe is effectively off" in liveness


def test_readiness_budget_of_hours_keeps_a_hung_server_in_its_service() -> None:
    readiness = [m for _, m in found_by([TOPSAIL], G76) if "readinessProbe" in m]
    assert len(readiness) == 1
    assert "readinessProbe failureThreshold 10000 x periodSeconds 30" in readiness[0]
    assert "out of its Service only after 300000s (about 83 h)" in readiness[0]


def test_readiness_every_hour_delays_every_start() -> None:
    found = found_by([SCOUT], G76)
    assert len(found) == 1
    enforcement, message = found[0]
    assert enforcement == "advisory"
    assert message.startswith("container vllm-server: readinessProbe periodSeconds 3600:")
    assert "the first runs 120s after the start" in message
    assert "3600s (about 60 min) later" in message


def test_second_repository_readiness_every_five_minutes() -> None:
    found = found_by([JOB], G76)
    assert [m.split(":")[1].strip() for _, m in found] == ["readinessProbe periodSeconds 300"]
    # liveness 3 x 300 s = 15 min: slow, but not an hour; this rule stays out of it
    assert not any("livenessProbe" in m for _, m in found)


def test_vllm_guide_probes_stay_silent() -> None:
    assert found_by([_vllm_guide()], G76) == []


def test_long_startup_probe_stays_silent() -> None:
    guide = _vllm_guide()
    guide["spec"]["containers"][0]["startupProbe"] = _http(8000, periodSeconds=10, failureThreshold=1440)
    assert found_by([guide], G76) == []


def test_non_serving_pod_with_lax_liveness_stays_silent() -> None:
    kibitzer = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "kibitzer"},
        "spec": {
            "selector": {"matchLabels": {"app": "kibitzer"}},
            "template": {
                "metadata": {"labels": {"app": "kibitzer"}},
                "spec": {
                    "containers": [
                        {
                            "name": "kibitzer",
                            "image": "turbonomic/kibitzer:8.9.0",
                            "livenessProbe": _http(8080, periodSeconds=10, failureThreshold=1440),
                        }
                    ]
                },
            },
        },
    }
    assert found_by([kibitzer], G76) == []


# Fresh-set forms (session 47 brief): a timeoutSeconds above periodSeconds. The kubelet runs one probe at a time
# (kubernetes/kubernetes pkg/kubelet/prober/worker.go at 00421113e1c6 run() :146-188, doProbe :201), so each check of a
# server that accepts the connection and hangs takes max(periodSeconds, timeoutSeconds).
def _timed_guide(probe: str, **timing: int) -> dict:
    guide = _vllm_guide()
    guide["spec"]["containers"][0][probe] = _http(8000, **timing)
    return guide


def test_readiness_timeout_above_period_keeps_a_wedged_server_ready_half_an_hour() -> None:
    found = found_by([_timed_guide("readinessProbe", periodSeconds=10, timeoutSeconds=600)], G76)
    assert [e for e, _ in found] == ["advisory"]
    assert "readinessProbe failureThreshold 3 x timeoutSeconds 600 (timeoutSeconds above periodSeconds 10" in found[0][1]
    assert "out of its Service only after 1800s (about 30 min)" in found[0][1]


def test_leader_readiness_timeout_on_a_leader_worker_set() -> None:
    lws = {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": "vllm"},
        "spec": {
            "leaderWorkerTemplate": {
                "size": 2,
                "leaderTemplate": {"spec": {"containers": [copy.deepcopy(SCOUT["spec"]["containers"][0])]}},
                "workerTemplate": {"spec": {"containers": [{"name": "w", "image": "vllm/vllm-openai:v0.12.0"}]}},
            }
        },
    }
    leader = lws["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"]["containers"][0]
    leader["readinessProbe"] = {"tcpSocket": {"port": 8000}, "periodSeconds": 15, "timeoutSeconds": 720}
    found = found_by([lws], G76)
    assert len(found) == 1 and "leaderTemplate.spec container vllm-server: readinessProbe failureThreshold 3 x " in found[0][1]
    assert "timeoutSeconds 720" in found[0][1] and "2160s (about 36 min)" in found[0][1]


def test_liveness_timeout_above_period_counts_too() -> None:
    found = found_by([_timed_guide("livenessProbe", periodSeconds=10, timeoutSeconds=300, failureThreshold=5)], G76)
    assert len(found) == 1 and found[0][1].startswith(
        "container vllm-server: livenessProbe failureThreshold 5 x timeoutSeconds 300"
    )


def test_short_timeouts_stay_silent() -> None:
    assert found_by([_timed_guide("readinessProbe", periodSeconds=10, timeoutSeconds=5)], G76) == []
    # a slow /health under load: a minute's timeout, three minutes in all
    assert found_by([_timed_guide("readinessProbe", periodSeconds=10, timeoutSeconds=60)], G76) == []
    assert found_by([_timed_guide("livenessProbe", periodSeconds=30, timeoutSeconds=60, failureThreshold=5)], G76) == []


# Spent set 89: helixml/llms-on-k8s vllm/llama-deployment.yaml (labelled G76): a vLLM livenessProbe with
# initialDelaySeconds 1800000. The kubelet skips a probe until the container has run initialDelaySeconds
# (kubernetes/kubernetes pkg/kubelet/prober/worker.go@00421113e1c6 doProbe :271-274), liveness starting at Success.
def test_liveness_initial_delay_of_weeks_does_not_restart_a_hung_server() -> None:
    found = found_by([_timed_guide("livenessProbe", initialDelaySeconds=1800000, periodSeconds=10)], G76)
    assert [e for e, _ in found] == ["advisory"]
    assert "livenessProbe initialDelaySeconds 1800000 (about 21 days)" in found[0][1]
    assert "not restarted before then" in found[0][1]


def test_readiness_initial_delay_of_hours_keeps_the_pod_out_of_its_service() -> None:
    found = found_by([_timed_guide("readinessProbe", initialDelaySeconds=7200, periodSeconds=10)], G76)
    assert [e for e, _ in found] == ["advisory"]
    assert "readinessProbe initialDelaySeconds 7200 (about 2 h)" in found[0][1]


def test_initial_delay_of_minutes_stays_silent() -> None:
    # vLLM's production-stack and most guides wait minutes before the first liveness check: not this row's.
    assert found_by([_timed_guide("livenessProbe", initialDelaySeconds=600, periodSeconds=10)], G76) == []
