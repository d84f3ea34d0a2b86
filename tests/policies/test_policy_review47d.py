"""Review 47d's wrong blocking findings (items 1-6), each reproducer a fixture that blocked before the fix.

- S36: a debug switch only a container's shell script sets (a comment, an ``if`` branch, an ``echo``, an ``unset``
  later: vLLM launch scripts carry ``# export CUDA_LAUNCH_BLOCKING=1``) is advice; ``env:`` entries still block.
- S4: data parallel alone (external-LB --data-parallel-rank: one local rank, vllm v0.11.0 vllm/engine/arg_utils.py
  create_engine_config; dense DP ranks "treat like DP=1", vllm/v1/engine/core.py run_engine_core) does not block;
  a hostPath of the node's /dev/shm is silent and a disk emptyDir advice (only "nothing mounted" is vllm#1710's
  failure); tensor parallel on AWS Neuron or TPU (no CUDA NCCL) is advice.
- S16: LocalAI's ``run`` sub-command (mudler/LocalAI v4.9.0 core/cli/cli.go L11) is no model; a local config path and
  an empty JSON list preload nothing to fetch.
"""

from __future__ import annotations

import pytest
import yaml
from policy_fixtures import found_by

S36 = "debug-switches-off"
S4 = "tensor-parallel-requires-dshm"
S16 = "llm-startup-probe-budget"


def _docs(text: str) -> list[dict]:
    return [d for d in yaml.safe_load_all(text) if d]


def _levels(text: str, policy: str) -> list[str]:
    return [level for level, _ in found_by(_docs(text), policy)]


S36_COMMENTED_OUT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: commented}
spec:
  selector: {matchLabels: {app: commented}}
  template:
    metadata: {labels: {app: commented}}
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        command: ["/bin/bash", "-c"]
        args:
        - |
          # export CUDA_LAUNCH_BLOCKING=1   # uncomment when debugging a kernel crash
          exec vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192
        resources: {limits: {nvidia.com/gpu: "1"}}
"""

S36_CONDITIONAL = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: conditional}
spec:
  selector: {matchLabels: {app: conditional}}
  template:
    metadata: {labels: {app: conditional}}
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        command: ["/bin/bash", "-c"]
        args:
        - |
          if [ "${DEBUG_KERNELS:-0}" = "1" ]; then export CUDA_LAUNCH_BLOCKING=1; fi
          exec vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192
        resources: {limits: {nvidia.com/gpu: "1"}}
"""

S36_ECHOED = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: echoed}
spec:
  selector: {matchLabels: {app: echoed}}
  template:
    metadata: {labels: {app: echoed}}
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        command: ["/bin/bash", "-c"]
        args:
        - |
          echo "set CUDA_LAUNCH_BLOCKING=1 to debug kernel errors"
          exec vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192
        resources: {limits: {nvidia.com/gpu: "1"}}
"""

S36_UNSET_AFTER = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: unset_after}
spec:
  selector: {matchLabels: {app: unset_after}}
  template:
    metadata: {labels: {app: unset_after}}
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        command: ["/bin/bash", "-c"]
        args:
        - |
          export VLLM_TRACE_FUNCTION=1
          unset VLLM_TRACE_FUNCTION
          exec vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192
        resources: {limits: {nvidia.com/gpu: "1"}}
"""

S4_DP_EXTERNAL_RANK = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: dp-extlb}
spec:
  selector: {matchLabels: {app: dp-extlb}}
  template:
    metadata: {labels: {app: dp-extlb}}
    spec:

      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        args: ["--model","Qwen/Qwen2.5-7B-Instruct","--data-parallel-size","4","--data-parallel-rank","0","--data-parallel-address","10.0.0.1"]
        resources: {limits: {nvidia.com/gpu: "1", memory: 64Gi}}
"""

S4_DP2_ONLY = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: tp1dp2}
spec:
  selector: {matchLabels: {app: tp1dp2}}
  template:
    metadata: {labels: {app: tp1dp2}}
    spec:

      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        args: ["--model","Qwen/Qwen2.5-7B-Instruct","--data-parallel-size","2"]
        resources: {limits: {nvidia.com/gpu: "2", memory: 64Gi}}
"""

S4_HOSTPATH_SHM = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: hostpath-shm}
spec:
  selector: {matchLabels: {app: hostpath-shm}}
  template:
    metadata: {labels: {app: hostpath-shm}}
    spec:
      volumes: [{name: shm, hostPath: {path: /dev/shm}}]
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        args: ["--model","Qwen/Qwen2.5-7B-Instruct","--tensor-parallel-size","2"]
        resources: {limits: {nvidia.com/gpu: "2", memory: 64Gi}}
        volumeMounts: [{name: shm, mountPath: /dev/shm}]
"""

S4_DISK_EMPTYDIR_SHM = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: diskdir-shm}
spec:
  selector: {matchLabels: {app: diskdir-shm}}
  template:
    metadata: {labels: {app: diskdir-shm}}
    spec:
      volumes: [{name: shm, emptyDir: {}}]
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        args: ["--model","Qwen/Qwen2.5-7B-Instruct","--tensor-parallel-size","2"]
        resources: {limits: {nvidia.com/gpu: "2", memory: 64Gi}}
        volumeMounts: [{name: shm, mountPath: /dev/shm}]
"""

S4_NEURON_TP = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: neuron}
spec:
  selector: {matchLabels: {app: neuron}}
  template:
    metadata: {labels: {app: neuron}}
    spec:
      containers:
      - name: vllm
        image: public.ecr.aws/neuron/pytorch-inference-vllm-neuronx:0.9.1-neuronx-py310-sdk2.24.1-ubuntu22.04
        command: ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--device", "neuron", "--tensor-parallel-size", "2", "--max-model-len", "4096"]
        resources: {limits: {aws.amazon.com/neuron: 1, memory: 32Gi}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: tpu}
spec:
  selector: {matchLabels: {app: tpu}}
  template:
    metadata: {labels: {app: tpu}}
    spec:
      nodeSelector: {cloud.google.com/gke-tpu-accelerator: tpu-v6e-slice, cloud.google.com/gke-tpu-topology: 2x2}
      containers:
      - name: vllm
        image: vllm/vllm-tpu:v0.11.1
        command: ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--tensor-parallel-size", "4", "--max-model-len", "4096"]
        resources: {limits: {google.com/tpu: 4}}
"""

S16_RUN_WORD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: run-word}
spec:
  selector: {matchLabels: {app: run-word}}
  template:
    metadata: {labels: {app: run-word}}
    spec:
      containers:
      - name: localai
        image: localai/localai:v2.26.0-aio-cpu
        args: ["run", "--models-path", "/models"]
        ports: [{containerPort: 8080}]
        livenessProbe: {httpGet: {path: /healthz, port: 8080}, initialDelaySeconds: 10, periodSeconds: 10, failureThreshold: 3}
        readinessProbe: {httpGet: {path: /readyz, port: 8080}, initialDelaySeconds: 10, periodSeconds: 10}
"""

S16_LOCAL_CONFIG_PATH = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: local-config}
spec:
  selector: {matchLabels: {app: local-config}}
  template:
    metadata: {labels: {app: local-config}}
    spec:
      containers:
      - name: localai
        image: localai/localai:v2.26.0-aio-cpu
        args: ["/models/phi-2.yaml"]
        ports: [{containerPort: 8080}]
        livenessProbe: {httpGet: {path: /healthz, port: 8080}, initialDelaySeconds: 10, periodSeconds: 10, failureThreshold: 3}
        readinessProbe: {httpGet: {path: /readyz, port: 8080}, initialDelaySeconds: 10, periodSeconds: 10}
"""

S16_PRELOAD_EMPTY_LIST = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: preload-empty}
spec:
  selector: {matchLabels: {app: preload-empty}}
  template:
    metadata: {labels: {app: preload-empty}}
    spec:
      containers:
      - name: localai
        image: localai/localai:v2.26.0-aio-cpu
        env: [{name: PRELOAD_MODELS, value: "[]"}]
        ports: [{containerPort: 8080}]
        livenessProbe: {httpGet: {path: /healthz, port: 8080}, initialDelaySeconds: 10, periodSeconds: 10, failureThreshold: 3}
        readinessProbe: {httpGet: {path: /readyz, port: 8080}, initialDelaySeconds: 10, periodSeconds: 10}
"""

S16_LOAD_TO_MEMORY = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: l2m}
spec:
  selector: {matchLabels: {app: l2m}}
  template:
    metadata: {labels: {app: l2m}}
    spec:
      containers:
      - name: localai
        image: localai/localai:v2.26.0-aio-cpu
        env: [{name: LOCALAI_LOAD_TO_MEMORY, value: "phi-2"}]
        ports: [{containerPort: 8080}]
        livenessProbe: {httpGet: {path: /healthz, port: 8080}, initialDelaySeconds: 10, periodSeconds: 10, failureThreshold: 3}
        readinessProbe: {httpGet: {path: /readyz, port: 8080}, initialDelaySeconds: 10, periodSeconds: 10}
"""


@pytest.mark.parametrize("text", [S36_COMMENTED_OUT, S36_CONDITIONAL, S36_ECHOED, S36_UNSET_AFTER])
def test_s36_switch_only_in_a_script_is_advice(text: str) -> None:
    assert _levels(text, S36) == ["advisory"]


def test_s36_switch_in_env_still_blocks() -> None:
    docs = _docs(S36_COMMENTED_OUT)
    container = docs[0]["spec"]["template"]["spec"]["containers"][0]
    container["env"] = [{"name": "CUDA_LAUNCH_BLOCKING", "value": "1"}]
    assert [level for level, _ in found_by(docs, S36)] == ["mandatory"]


def test_s4_external_lb_data_parallel_runs_one_local_rank() -> None:
    assert _levels(S4_DP_EXTERNAL_RANK, S4) == []


def test_s4_data_parallel_alone_is_advice() -> None:
    assert _levels(S4_DP2_ONLY, S4) == ["advisory"]


def test_s4_hostpath_of_the_node_shm_is_silent() -> None:
    assert _levels(S4_HOSTPATH_SHM, S4) == []


def test_s4_disk_emptydir_at_dev_shm_is_advice() -> None:
    assert _levels(S4_DISK_EMPTYDIR_SHM, S4) == ["advisory"]


def test_s4_tensor_parallel_on_neuron_or_tpu_is_advice() -> None:
    assert _levels(S4_NEURON_TP, S4) == ["advisory", "advisory"]


def test_s4_tensor_parallel_on_gpus_with_nothing_mounted_still_blocks() -> None:
    docs = _docs(S4_DISK_EMPTYDIR_SHM)
    spec = docs[0]["spec"]["template"]["spec"]
    del spec["volumes"], spec["containers"][0]["volumeMounts"]
    assert [level for level, _ in found_by(docs, S4)] == ["mandatory"]


@pytest.mark.parametrize("text", [S16_RUN_WORD, S16_LOCAL_CONFIG_PATH, S16_PRELOAD_EMPTY_LIST])
def test_s16_localai_with_nothing_to_fetch_stays_silent(text: str) -> None:
    assert _levels(text, S16) == []


def test_s16_localai_load_to_memory_still_blocks() -> None:
    assert _levels(S16_LOAD_TO_MEMORY, S16) == ["mandatory"]


def test_s16_run_then_a_gallery_model_still_blocks() -> None:
    docs = _docs(S16_RUN_WORD)
    docs[0]["spec"]["template"]["spec"]["containers"][0]["args"] = ["run", "phi-2"]
    assert [level for level, _ in found_by(docs, S16)] == ["mandatory"]
