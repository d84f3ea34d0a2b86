"""S16 llm-startup-probe-budget: a livenessProbe stretched to hours to wait for the load is effectively off (advice),
and KServe's own LLMInferenceService templates are read as published.

- Spent set 28 (label S16): natifridman/kserve-demo llm-config-v1alpha2/llmisvc-config.yaml@main, an
  LLMInferenceServiceConfig whose main container has no startupProbe and a liveness initialDelaySeconds 4800.
- Spent set 31 (label NONE, now covered): openshift-psap/topsail projects/llm-d/testing/llmisvcs/llmisvc-simple.yaml
  @cfc3e8a, liveness failureThreshold 1000 x periodSeconds 60 (about 16.9 h). Both documents carry KServe's own
  template actions (`{{ .Spec.Model.Name }}`, `{{ ChildName .ObjectMeta.Name `-inference-pool` }}`), which the
  controller fills (kserve v0.16.0 pkg/controller/v1alpha1/llmisvc/config_merge.go:173-204, ReplaceVariables L244-275):
  they were refused as unrendered templates and nothing in them was checked.
- Second forms: manu-joy/rosa-llm-driven-deployment private_code_assistant.md@7128119, Step 11d's vLLM Neuron
  InferenceService (liveness 3600 + 10 x 60 s, fires) and Step 7's LLMInferenceService (ChildName templates, read;
  liveness 300 + 10 x 30 s, silent).
"""

from __future__ import annotations

import copy
import textwrap

from policy_fixtures import found_by

from policies.check import load_resources, manifest_files
from policies.registry import evaluate

S16 = "llm-startup-probe-budget"


def _health(**fields) -> dict:
    return {"httpGet": {"path": "/health", "port": 8000}, **fields}


# natifridman/kserve-demo llm-config-v1alpha2/llmisvc-config.yaml, cut to the workload's main container.
KSERVE_DEMO_CONFIG = textwrap.dedent(
    """\
    apiVersion: serving.kserve.io/v1alpha2
    kind: LLMInferenceServiceConfig
    metadata:
      name: llm-template
    spec:
      template:
        containers:
          - name: main
            image: ghcr.io/llm-d/llm-d-cuda:v0.4.0
            command: ["/bin/sh", "-c"]
            args:
              - |
                vllm serve /mnt/models --served-model-name "{{ .Spec.Model.Name }}" --port 8000 $VLLM_ADDITIONAL_ARGS
            livenessProbe:
              httpGet:
                path: /health
                port: 8000
              initialDelaySeconds: 4800
              periodSeconds: 10
              timeoutSeconds: 10
              failureThreshold: 3
            readinessProbe:
              httpGet:
                path: /health
                port: 8000
              initialDelaySeconds: 10
              periodSeconds: 10
              failureThreshold: 60
    """
)

# openshift-psap/topsail projects/llm-d/testing/llmisvcs/llmisvc-simple.yaml@cfc3e8a, cut (name made valid).
TOPSAIL = textwrap.dedent(
    """\
    apiVersion: serving.kserve.io/v1alpha1
    kind: LLMInferenceService
    metadata:
      name: llama
      namespace: llm
    spec:
      replicas: 1
      model:
        uri: oci://registry.redhat.io/rhelai1/modelcar-llama-3-1-8b-instruct-fp8-dynamic:1.5
        name: llama-3-1-8b-instruct-fp8
      router:
        scheduler:
          template:
            containers:
            - name: main
              command:
              - /app/epp
              - --pool-name
              - '{{ ChildName .ObjectMeta.Name `-inference-pool` }}'
              - --pool-namespace
              - '{{ .ObjectMeta.Namespace }}'
        route: {}
        gateway: {}
      template:
        containers:
          - name: main
            resources:
              limits:
                nvidia.com/gpu: "1"
            livenessProbe:
              httpGet:
                path: /health
                port: 8000
                scheme: HTTPS
              initialDelaySeconds: 900
              periodSeconds: 60
              timeoutSeconds: 60
              failureThreshold: 1000
    """
)

# manu-joy/rosa-llm-driven-deployment private_code_assistant.md@7128119 Step 11d, cut to the predictor.
NEURON_ISVC = {
    "apiVersion": "serving.kserve.io/v1beta1",
    "kind": "InferenceService",
    "metadata": {"name": "qwen3-coder-neuron", "namespace": "llm-serving"},
    "spec": {
        "predictor": {
            "model": {
                "modelFormat": {"name": "vllm-neuron"},
                "command": ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "/models/qwen3-coder-30b"],
                "resources": {"limits": {"aws.amazon.com/neuroncore": "8", "memory": "200Gi"}},
                "readinessProbe": _health(initialDelaySeconds=10, periodSeconds=30, failureThreshold=60),
                "livenessProbe": _health(initialDelaySeconds=3600, periodSeconds=60, timeoutSeconds=10, failureThreshold=10),
            }
        }
    },
}


def _s16(tmp_path, text: str) -> list[tuple[str, str, str]]:
    path = tmp_path / "llmisvc.yaml"
    path.write_text(text)
    violations = evaluate(load_resources(manifest_files([str(path)])))
    return [
        (v.enforcement, v.resource.split(" ", 1)[-1], v.message)
        for v in violations
        if v.policy in (S16, "manifest-is-kubernetes")
    ]


def test_a_liveness_delayed_80_minutes_in_an_llmisvc_config_is_advice(tmp_path):
    assert _s16(tmp_path, KSERVE_DEMO_CONFIG) == [
        (
            "advisory",
            "LLMInferenceServiceConfig/llm-template",
            "container main: livenessProbe restarts a wedged server only after 4830s (initialDelaySeconds 4800 + "
            "failureThreshold 3 × periodSeconds 10, about 1.3 h): a hung engine keeps its GPUs and its Service endpoint "
            "that long, so the probe is effectively off; wait for the load with a startupProbe (a budget of at least "
            "600s) and keep the liveness window to minutes",
        )
    ]


def test_a_liveness_of_1000_failures_a_minute_apart_is_advice(tmp_path):
    [(level, resource, message)] = _s16(tmp_path, TOPSAIL)
    assert (level, resource) == ("advisory", "LLMInferenceService/llama")
    assert message.startswith(
        "spec.template container main: livenessProbe restarts a wedged server only after 60900s (initialDelaySeconds 900 "
        "+ failureThreshold 1000 × periodSeconds 60, about 16.9 h)"
    )


def test_a_neuron_predictor_s_hour_long_liveness_is_advice():
    [(level, message)] = found_by([NEURON_ISVC], S16)
    assert (
        level == "advisory" and "only after 4200s (initialDelaySeconds 3600 + failureThreshold 10 × periodSeconds 60" in message
    )
    assert "wait for the load with a startupProbe" in message


def test_a_long_startup_probe_with_a_tight_liveness_is_silent(tmp_path):
    careful = copy.deepcopy(NEURON_ISVC)
    model = careful["spec"]["predictor"]["model"]
    model["startupProbe"] = _health(periodSeconds=30, failureThreshold=120)  # an hour to load
    model["livenessProbe"] = _health(periodSeconds=10, failureThreshold=3)
    assert found_by([careful], S16) == []
    # manu-joy/rosa-llm-driven-deployment Step 7: KServe's ChildName templates are read, liveness 300 + 10 x 30 s.
    step7 = TOPSAIL.replace("initialDelaySeconds: 900", "initialDelaySeconds: 300").replace(
        "periodSeconds: 60", "periodSeconds: 30"
    )
    assert _s16(tmp_path, step7.replace("failureThreshold: 1000", "failureThreshold: 10")) == []


def test_a_helm_template_in_an_llmisvc_is_still_an_unrendered_template(tmp_path):
    helm = TOPSAIL.replace("replicas: 1", "replicas: {{ .Values.replicas }}")
    [(level, _, message)] = _s16(tmp_path, helm)
    assert level == "advisory" and "an unrendered template" in message
    structure = TOPSAIL.replace("    route: {}", "    {{- if .Spec.Router }}\n    route: {}\n    {{- end }}")
    [(level, _, message)] = _s16(tmp_path, structure)
    assert level == "advisory" and "an unrendered template" in message


def test_kserve_s_own_actions_are_read_in_json_and_in_a_list(tmp_path):
    # The same object as `kubectl get -o json` prints it, and as an item of a `kind: List` (`kubectl get -o yaml`):
    # KServe fills its actions whatever the form (tools/form_variants.py json-documents, list-wrap).
    import json

    import yaml

    obj = yaml.safe_load(TOPSAIL)
    expected = _s16(tmp_path, TOPSAIL)
    assert _s16(tmp_path, json.dumps(obj)) == expected
    assert _s16(tmp_path, yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [obj]})) == expected
    # A List that also holds another object with an action stays an unrendered template.
    other = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "{{ .ObjectMeta.Name }}"}}
    [(level, _, message)] = _s16(tmp_path, yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [obj, other]}))
    assert level == "advisory" and "an unrendered template" in message
