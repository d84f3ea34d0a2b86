"""A hostile image tag never crashes a check (brief robust53). review53 found a tag with a part of 5,000 digits
(``vllm/vllm-openai:v0.10.<5000 digits>``) raising ValueError (int() refuses more than 4,300 digits) in a dozen
policies (S36, S37, S38, S40, S41, S53, S2, S10, S25, G46, G74, G79), each a CHECK_FAILED finding of `policies check`.
The release readers now read a tag through components/images.py: a tag over the 128 characters the OCI distribution
spec allows (release_tag), or a release part over 9 digits (release_numbers), names no release. Every policy runs over
each shape with the containment of `policies check` (failures collected), and none may fail."""

from __future__ import annotations

import re

import pytest

from components.engine_options import tagged_release
from components.images import major_minor, named_release, release_numbers, release_tag, vllm_release
from policies.check import load_resources, manifest_files
from policies.framework import Violation
from policies.reading.image_reference import image_reference_error
from policies.registry import evaluate

DIGITS = "9" * 5000

_SERVER = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: llm, namespace: ai}
spec:
  replicas: 2
  selector: {matchLabels: {app: llm}}
  template:
    metadata: {labels: {app: llm}}
    spec:
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}
      containers:
      - name: llm
        image: "%s"
        args: ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--port", "8000"]
        env: [{name: VLLM_USE_V1, value: "1"}, {name: OLLAMA_KEEP_ALIVE, value: "-1"}, {name: HF_TOKEN, value: x}]
        ports: [{containerPort: 8000}]
        readinessProbe: {httpGet: {path: /health, port: 8000}}
        resources: {limits: {nvidia.com/gpu: 1, memory: 32Gi}}
---
apiVersion: v1
kind: Service
metadata: {name: llm, namespace: ai}
spec:
  selector: {app: llm}
  ports: [{port: 8000}]
"""

# One model server per engine whose release the pack reads from the tag; the part of 5,000 digits where its release is.
IMAGES = (
    "vllm/vllm-openai:v0.10.%s",
    "vllm/vllm-openai:v%s.1.0",
    "vllm/vllm-openai:v0.10.0rc%s",
    "lmsysorg/sglang:v0.4.%s",
    "ghcr.io/huggingface/text-generation-inference:3.%s",
    "ghcr.io/huggingface/text-embeddings-inference:cpu-1.%s",
    "ollama/ollama:0.%s.0",
    "ghcr.io/ggml-org/llama.cpp:server-cuda-b%s",
    "localai/localai:v2.%s-cublas-cuda12",
    "kserve/huggingfaceserver:v0.%s.0",
    "rayproject/ray-ml:2.%s.0",
)

SHAPES = {f"{image.split(':')[0].rsplit('/', 1)[-1]}:{image.split(':')[1]}": _SERVER % (image % DIGITS) for image in IMAGES}
SHAPES["ingress-nginx-controller-and-chart"] = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: ingress-nginx-controller, namespace: ingress-nginx, resourceVersion: "%(d)s"}
spec:
  selector: {matchLabels: {app: c}}
  template:
    metadata: {labels: {app: c}}
    spec:
      containers: [{name: controller, image: "registry.k8s.io/ingress-nginx/controller:v1.%(d)s.0"}]
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: ingress-nginx, namespace: ingress-nginx}
spec:
  chart: {spec: {chart: ingress-nginx, version: "4.%(d)s.0"}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: llm, namespace: ai, annotations: {nginx.ingress.kubernetes.io/use-regex: "true"}}
spec:
  ingressClassName: nginx
  rules: [{http: {paths: [{path: "/v1/.*", pathType: Prefix, backend: {service: {name: llm, port: {number: 8000}}}}]}}]
""" % {"d": DIGITS}
SHAPES["ray-version-and-crd-versions"] = """
apiVersion: ray.io/v1
kind: RayService
metadata: {name: llm, namespace: ai}
spec:
  serveConfigV2: |
    applications: [{name: llm, import_path: app:deployment, route_prefix: /}]
  rayClusterConfig:
    rayVersion: "2.%(d)s.0"
    headGroupSpec:
      rayStartParams: {}
      template: {spec: {containers: [{name: head, image: "acme/ray-serve:1"}]}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: foos.example.com}
spec:
  group: example.com
  names: {kind: Foo, plural: foos}
  scope: Namespaced
  versions:
  - {name: "v%(d)s", served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
  - {name: "v1beta%(d)s", served: true, storage: false, schema: {openAPIV3Schema: {type: object}}}
""" % {"d": DIGITS}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_a_hostile_release_part_fails_no_check(tmp_path, name):
    path = tmp_path / "shape.yaml"
    path.write_text(SHAPES[name])
    failures: list[Violation] = []
    violations = evaluate(load_resources(manifest_files([str(path)])), failures=failures)
    assert [(f.policy, f.message[:200]) for f in failures] == []
    assert violations


def test_the_vllm_tag_of_5000_digits_is_an_image_reference_the_kubelet_refuses(tmp_path):
    """G46, which review53 saw raise, now blocks the reference: distribution/reference's tag is at most 128 characters
    (its message quotes the image whole, so the reason lies past the 2,000 characters a message keeps)."""
    image = f"vllm/vllm-openai:v0.10.{DIGITS}"
    path = tmp_path / "shape.yaml"
    path.write_text(_SERVER % image)
    found = [v for v in evaluate(load_resources(manifest_files([str(path)]))) if v.policy == "container-can-start"]
    assert [(v.enforcement, v.message[:46]) for v in found] == [("mandatory", "container llm: image 'vllm/vllm-openai:v0.10.9")]
    assert image_reference_error(image) == "invalid reference format"


def test_a_tag_of_128_characters_names_a_release_and_one_of_129_none():
    tag = "v0.10.1-" + "a" * 120
    assert release_tag(f"vllm/vllm-openai:{tag}") == tag
    assert release_tag(f"vllm/vllm-openai:{tag}a") is None
    assert vllm_release(f"vllm/vllm-openai:{tag}") == "0.10.1"
    assert vllm_release(f"vllm/vllm-openai:{tag}a") is None


def test_a_release_part_of_9_digits_is_read_and_one_of_10_is_none():
    assert release_numbers("v0.5.5.post1") == (0, 5, 5, 1)
    assert release_numbers("0.123456789") == (0, 123456789)
    assert release_numbers("0.1234567890") is None
    assert named_release("0.1234567890") is None
    assert vllm_release("vllm/vllm-openai:v0.1234567890.0") is None
    assert tagged_release("vllm/vllm-openai:v0.10.1234567890", ("vllm/vllm-openai",)) is None
    assert tagged_release("vllm/vllm-openai:v0.10.123456789", ("vllm/vllm-openai",)) == "0.10.123456789"


def test_major_minor_reads_ascii_parts_only():
    """A match of ``\\d`` may hold non-ASCII digits; they are no release (and the image reference refuses them)."""
    assert major_minor(re.match(r"(\d+)\.(\d+)", "1.12")) == (1, 12)
    assert major_minor(re.match(r"(\d+)\.(\d+)", "1.\u0661\u0662")) is None
    assert major_minor(None) is None
