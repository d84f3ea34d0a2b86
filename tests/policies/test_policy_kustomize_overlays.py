"""`policies check` builds the run's Kustomize overlays and checks what `kustomize build` would apply, each finding
reported at the file that made it (policies/overlay_builds.py, policies/reading/kustomize_build.py).

The tree is the layout of Kubernetes' own Kustomize task page (kubernetes.io/docs/tasks/manage-kubernetes-objects/
kustomization/: ``base/`` with a kustomization, ``overlays/<env>/`` each with a kustomization listing ``../../base``
and a ``patch-*.yaml``), holding a vLLM Deployment and a KEDA ScaledObject (keda.sh/v1alpha1, KEDA's documented
``scaleTargetRef``/``minReplicaCount``/prometheus trigger), written by hand:

- ``overlays/prod`` (careful): a namespace, an ``images`` retag and a resource patch; it stays silent;
- ``overlays/dev`` (careless): an inline JSON patch that scales the ScaledObject to zero (S5, reported at its
  kustomization), a ``patch-resources.yaml`` whose preStop only sleeps 15 s (S10) and that swaps the model volume for
  an emptyDir Hugging Face cache with no ephemeral-storage request (S19), reported at that patch file.
"""

from __future__ import annotations

import json
from pathlib import Path

from policies.check import main

TREE = {
    "overlays/dev/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: llm-dev\nresources:\n- ../../base\npatches:\n- path: patch-resources.yaml\n- target:\n    kind: ScaledObject\n    name: vllm\n  patch: |-\n    - op: replace\n      path: /spec/minReplicaCount\n      value: 0\n",
    "overlays/dev/patch-resources.yaml": 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: vllm\nspec:\n  template:\n    spec:\n      containers:\n      - name: vllm\n        args: ["--model", "Qwen/Qwen2.5-7B-Instruct", "--gpu-memory-utilization", "0.9", "--max-model-len", "8192"]\n        lifecycle:\n          preStop:\n            exec:\n              command: ["/bin/sleep", "15"]\n        volumeMounts:\n        - name: models\n          $patch: delete\n          mountPath: /models\n        - name: hf-cache\n          mountPath: /root/.cache/huggingface\n      volumes:\n      - name: models\n        $patch: delete\n      - name: hf-cache\n        emptyDir: {}\n',
    "overlays/prod/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: llm-prod\nresources:\n- ../../base\nimages:\n- name: vllm/vllm-openai\n  newTag: v0.10.2\npatches:\n- path: patch-resources.yaml\n",
    "overlays/prod/patch-resources.yaml": 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: vllm\nspec:\n  template:\n    spec:\n      containers:\n      - name: vllm\n        resources:\n          requests: {cpu: "8", memory: 64Gi, nvidia.com/gpu: 1}\n          limits: {cpu: "16", memory: 64Gi, nvidia.com/gpu: 1}\n',
    "base/deployment.yaml": 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: vllm\n  labels: {app: vllm}\nspec:\n  replicas: 1\n  strategy: {type: Recreate}\n  selector: {matchLabels: {app: vllm}}\n  template:\n    metadata: {labels: {app: vllm}}\n    spec:\n      terminationGracePeriodSeconds: 600\n      nodeSelector: {karpenter.k8s.aws/instance-gpu-name: l40s}\n      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]\n      containers:\n      - name: vllm\n        image: vllm/vllm-openai:v0.10.1\n        args: ["--model", "/models/qwen", "--gpu-memory-utilization", "0.9", "--max-model-len", "8192"]\n        ports: [{containerPort: 8000, name: http}]\n        resources:\n          requests: {cpu: "4", memory: 32Gi, nvidia.com/gpu: 1}\n          limits: {cpu: "8", memory: 32Gi, nvidia.com/gpu: 1}\n        readinessProbe: {httpGet: {path: /health, port: 8000}}\n        startupProbe: {httpGet: {path: /health, port: 8000}, failureThreshold: 90}\n        lifecycle: {preStop: {exec: {command: ["sleep", "60"]}}}\n        volumeMounts: [{name: models, mountPath: /models}]\n      volumes:\n      - name: models\n        persistentVolumeClaim: {claimName: models, readOnly: true}\n',
    "base/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- deployment.yaml\n- scaledobject.yaml\n",
    "base/scaledobject.yaml": 'apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata:\n  name: vllm\nspec:\n  scaleTargetRef: {name: vllm}\n  minReplicaCount: 1\n  maxReplicaCount: 4\n  triggers:\n  - type: prometheus\n    metadata:\n      serverAddress: http://prometheus.monitoring:9090\n      query: sum(vllm:num_requests_waiting{model_name="qwen"})\n      threshold: "5"\n',
}


def _tree(root: Path, **changed: str) -> Path:
    for name, text in {**TREE, **{k.replace("__", "/").replace("_yaml", ".yaml"): v for k, v in changed.items()}}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _check(paths: list[Path], capsys) -> tuple[int, dict]:
    code = main([*map(str, paths), "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def _at(report: dict, folder: str) -> list[tuple[str, str, str]]:
    return sorted(
        (r["catalog"], r["enforcement"], Path(r["file"]).name)
        for r in report["violations"]
        if r["file"] and f"/overlays/{folder}/" in r["file"]
    )


def test_the_careless_overlay_is_reported_at_its_patch_and_kustomization(tmp_path, capsys):
    code, report = _check([_tree(tmp_path)], capsys)
    dev = _at(report, "dev")
    assert ("S5", "mandatory", "kustomization.yaml") in dev  # the inline patch's minReplicaCount 0, built whole
    assert [r.get("built") for r in report["violations"] if r["catalog"] == "S5"] == [True]
    assert ("S10", "advisory", "patch-resources.yaml") in dev  # preStop sleep 15 s
    assert ("S19", "advisory", "patch-resources.yaml") in dev  # emptyDir model cache, no ephemeral-storage request
    assert code == 1
    rows = {r["kustomization"].split("/overlays/")[-1]: r for r in report["kustomize"]}
    assert rows["dev/kustomization.yaml"] == {
        "kustomization": rows["dev/kustomization.yaml"]["kustomization"],
        "objects": 2,
        "changed": 2,
        "skipped": None,
    }


def test_the_careful_overlay_stays_silent(tmp_path, capsys):
    _, report = _check([_tree(tmp_path)], capsys)
    # nothing blocks there, and its build finds nothing: what remains is today's advice on its patch alone, which lacks
    # what the base holds (policies/reading/kustomize.py)
    prod = [r for r in report["violations"] if r["file"] and "/overlays/prod/" in r["file"]]
    assert all(r["enforcement"] == "advisory" and not r.get("built") for r in prod)
    # G36 (brief pods49): the dev build's model cache is an emptyDir with no sizeLimit and no ephemeral-storage request.
    assert {r["catalog"] for r in report["violations"] if r.get("built")} == {"S5", "S10", "S17", "S19", "G36"}


def test_the_same_problem_in_the_base_is_reported_once_at_the_base(tmp_path, capsys):
    base = TREE["base/scaledobject.yaml"].replace("minReplicaCount: 1", "minReplicaCount: 0")
    _, report = _check([_tree(tmp_path, base__scaledobject_yaml=base)], capsys)
    # the base alone keeps today's treatment (a base an overlay patches: advice); the overlays that pass it on with a
    # namespace repeat the same message, so the built copies are dropped, not reported again at their kustomizations
    s5 = [Path(r["file"]).parent.name for r in report["violations"] if r["catalog"] == "S5"]
    assert s5 == ["base"]


def test_an_overlay_not_built_is_named_and_its_patch_checked_alone(tmp_path, capsys):
    k = TREE["overlays/dev/kustomization.yaml"] + "components:\n- ../../components/gpu\n"
    code, report = _check([_tree(tmp_path, overlays__dev__kustomization_yaml=k)], capsys)
    row = next(r for r in report["kustomize"] if "/dev/" in r["kustomization"])
    assert "components" in row["skipped"]
    assert all(e == "advisory" for _, e, _ in _at(report, "dev"))  # today's treatment of a patch alone
    assert code == 0


def test_text_report_names_the_builds(tmp_path, capsys):
    main([str(_tree(tmp_path))])
    out = capsys.readouterr().out
    assert "[built from a kustomization]" in out and "kustomization.yaml#0~built ScaledObject/vllm" in out
