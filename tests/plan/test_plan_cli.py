"""`python -m stacks plan` end to end, as users and CI call it (a subprocess per run)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT, STACKS
from tests.kube_schemas import validate_object


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stacks", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def variant(tmp_path: Path, name: str, edit) -> Path:
    """A copy of the dev stack file with one edit applied to its config."""
    doc = yaml.safe_load((STACKS / "Pulumi.dev.yaml").read_text())
    edit(doc["config"])
    path = tmp_path / f"Pulumi.{name}.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


@pytest.fixture(scope="module", params=["dev", "staging", "prod"])
def planned(request, tmp_path_factory):
    out = tmp_path_factory.mktemp(request.param)
    proc = run("plan", request.param, "--format", "json", "--out", str(out))
    return request.param, out, proc


def test_plan_exits_zero_with_the_json_contract(planned):
    stack, out, proc = planned
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert set(report) >= {"stack", "resources", "violations", "models"}
    assert report["stack"] == stack
    # prod declares the Monday spike (slo.traffic) and is sized to meet it (llama-70b: five replicas at rest, issue
    # 30), so llm-simulated-slo reports nothing; every predictor's cold path (node launch + image pull + cache fill +
    # startup budget) outlasts the 600 s progress deadline KServe v0.20 fixes on its Deployment (S34, advisory,
    # docs/controllers.md); nothing else fires, and an advisory finding leaves the exit code 0. dev and staging route
    # the ALB straight to the pods, so no NetworkPolicy is rendered and the advisory G33 says every pod reaches them
    # (docs/platform.md, "In-cluster access").
    # Every stack file ships its host under example.com (stacks/Pulumi.*.yaml ingress.host), an RFC 2606 documentation
    # domain a deployer replaces with theirs: S27's fill-in table (components/fill_ins.toml, session 51) says so on the
    # Ingress, as advice.
    expected = {("progress-deadline-covers-startup", "advisory"), ("manifest-is-kubernetes", "advisory")}
    if stack != "prod":
        expected.add(("model-pods-network-isolated", "advisory"))
        # dev and staging run each model at replicas min 1 (stacks/Pulumi.dev.yaml, Pulumi.staging.yaml: one GPU
        # while idle), so G15's floor (hpa-min-replicas-floor, minReplicasFloor 2, session 50) advises; prod's min is 2+.
        expected.add(("hpa-min-replicas-floor", "advisory"))
    assert {(v["policy"], v["enforcement"]) for v in report["violations"]} == expected
    # customTimeouts and awaitAnnotations appear where set (tests/builders/test_awaiting.py checks their values).
    assert all(
        {"type", "name", "parent", "dependsOn"}
        <= set(r)
        <= {
            "type",
            "name",
            "parent",
            "dependsOn",
            "customTimeouts",
            "awaitAnnotations",
            "replaceOnChanges",
            "deleteBeforeReplace",
        }
        for r in report["resources"]
    )
    for m in report["models"]:
        assert {"name", "kv_cache_gib", "kv_cache_tokens", "max_concurrency", "fits", "derived"} <= set(m)
        assert m["fits"] is True


def test_every_model_has_an_inference_service_and_pdb_on_disk(planned):
    stack, out, proc = planned
    report = json.loads(proc.stdout)
    for m in report["models"]:
        if m.get("layout"):
            continue  # a multi-node model is a RayCluster (tests/plan/test_plan_multi_node.py)
        isvc = yaml.safe_load((out / "kubernetes" / "llm" / f"inferenceservice-{m['name']}.yaml").read_text())
        assert isvc["kind"] == "InferenceService" and isvc["metadata"]["name"] == m["name"]
        assert (out / "kubernetes" / "llm" / f"poddisruptionbudget-{m['name']}-pdb.yaml").is_file()
        args = isvc["spec"]["predictor"]["containers"][0]["args"]
        # The report and the manifest agree on the derived numbers (one source of truth).
        assert f"--max-num-seqs={m['max_num_seqs']}" in args
        # vLLM counts running requests against --max-num-queued-reqs: the flag is the batch plus the queue.
        assert f"--max-num-queued-reqs={m['max_num_seqs'] + m['max_num_queued_reqs']}" in args


def test_written_manifests_are_schema_valid_and_integers_stay_integers(planned):
    _, out, _ = planned
    # A Patch resource holds a few fields of an object someone else renders (the node agent's DaemonSet, from its
    # chart): not a whole object (tests/contracts/test_kserve_contracts.py validates it merged into one).
    paths = [p for p in sorted((out / "kubernetes").rglob("*.yaml")) if "patch-" not in p.name]
    docs = [yaml.safe_load(p.read_text()) for p in paths]
    assert docs
    for doc in docs:
        assert validate_object(doc) == [], doc["metadata"]["name"]
    isvc = next(d for d in docs if d["kind"] == "InferenceService")
    assert isinstance(isvc["spec"]["predictor"]["minReplicas"], int)


def test_plan_is_byte_identical_on_a_rerun(planned, tmp_path):
    stack, out, proc = planned
    again = run("plan", stack, "--format", "json", "--out", str(tmp_path))
    assert again.returncode == 0
    assert again.stdout == proc.stdout
    assert files_of(tmp_path) == files_of(out)


def test_secret_value_never_appears_in_any_output(planned):
    stack, out, proc = planned
    config = yaml.safe_load((STACKS / f"Pulumi.{stack}.yaml").read_text())["config"]
    # Every secret of the stack file: the Hugging Face token and, where set, the API key (issue 19).
    secrets = [v["secure"] for v in config.values() if isinstance(v, dict) and set(v) == {"secure"}]
    assert secrets
    files = files_of(out)
    for secret in secrets:
        assert secret not in proc.stdout and secret not in proc.stderr
        for name, data in files.items():
            assert secret.encode() not in data, name
    secret_file = yaml.safe_load((out / "kubernetes" / "llm" / "secret-hf-token.yaml").read_text())
    assert secret_file["stringData"] == {"HF_TOKEN": "[secret]"}
    if "llm-serving:apiKey" in config:
        key_file = yaml.safe_load((out / "kubernetes" / "llm" / "secret-vllm-api-key.yaml").read_text())
        assert key_file["stringData"] == {"key": "[secret]"}


def test_text_report_is_readable(tmp_path):
    proc = run("plan", "prod", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    # 84 + the ingress (21): LlmIngress, the controller (component, role, policy, attachment, pod identity, release),
    # IstioIngress (component, 3 releases, Gateway), the ALB Ingress, a VirtualService and DestinationRule per model;
    # + Karpenter's fifth interruption rule and its target (capacity-reservation interruption) and the h100 pool's
    # EFA security group (issue 19); + three ServiceAccounts (chat-8b, qwen3-32b; chat-8b's cache account) and
    # KServe's job namespace and its Secret, the gateway namespace, the EFA device plugin release and the
    # RayCluster's PDB, and the karpenter-crd release (issue 18); + the API key's Secret and the Pod Identity
    # Agent add-on (issue 19); + 7 NetworkPolicies (issue 31: a default deny, 4 API allows, the 405B's peers and
    # its operator dashboard); + the kuberay-operator chart's four CRD files as ConfigFiles of their own (issue 30),
    # and the aws-load-balancer-controller chart's seven CRDs likewise (issue 30, builders/chart_crds.py).
    # qwen3-32b streams from the S3 mirror: its reader (component, ServiceAccount, role, policy, pod identity) replaces
    # its own ServiceAccount (+4); the node agent's DaemonSetPatch (runs as the download Job's user, +1).
    # + the 405B's own pool h100-ray (its GpuPool component, NodePool, EC2NodeClass, image pre-pull; the EFA group moved
    # with it) (issue 30, review finding 4).
    # prod meets the spike it declares (no llm-simulated-slo); the predictors' progress deadline (KServe v0.20 fixes
    # it at 600 s, below each model's cold path; docs/controllers.md) is its one kind of finding.
    assert text.startswith("Stack prod: 146 resources, ")
    assert "llm-simulated-slo" not in text
    expected = tuple(
        f"  [advisory] progress-deadline-covers-startup (S34) derived-llm-deployment-{m}-predictor: "
        for m in ("chat-8b", "llama-70b", "qwen3-32b")
    )
    # The stack's hosts are under example.com (stacks/Pulumi.prod.yaml ingress.host), a documentation domain a deployer
    # replaces with theirs: S27's fill-in table says so, as advice, on each object that routes by that host (the ALB
    # Ingress, the Istio Gateway, each model's VirtualService), and on nothing else.
    hosts = [line for line in text.splitlines() if line.startswith("  [advisory] manifest-is-kubernetes (S27) prod-ingress-")]
    assert any(
        line.startswith(
            "  [advisory] manifest-is-kubernetes (S27) prod-ingress-alb: spec.rules[0].host holds '*.llm.example.com'"
        )
        for line in hosts
    )
    assert hosts and all("llm.example.com'" in line and "documentation domain" in line for line in hosts)
    expected = expected + tuple(hosts)
    assert [line for line in text.splitlines() if line.startswith("  [")] == [
        line for line in text.splitlines() if line.startswith(expected)
    ]
    assert "Model llama-70b: meta-llama/Llama-3.3-70B-Instruct on 4x H100 (p5.48xlarge), fits:" in text
    assert "= KV cache" in text and "derived maxNumSeqs = " in text


def test_too_high_gpu_memory_utilization_exits_1_naming_the_policy(tmp_path):
    path = variant(tmp_path, "hot", lambda c: c["llm-serving:models"][0]["engine"].update(gpuMemoryUtilization=0.99))
    proc = run("plan", str(path), "--format", "json", "--out", str(tmp_path / "out"))
    assert proc.returncode == 1, proc.stderr
    (v,) = [v for v in json.loads(proc.stdout)["violations"] if v["enforcement"] == "mandatory"]
    assert (v["policy"], v["catalog"], v["enforcement"]) == ("vllm-gpu-memory-utilization-bounds", "S1", "mandatory")
    assert "--gpu-memory-utilization=0.99 is above the maximum 0.95" in v["message"]


def test_scale_to_zero_exits_1_naming_the_policy(tmp_path):
    path = variant(tmp_path, "zero", lambda c: c["llm-serving:models"][0]["replicas"].update(min=0))
    proc = run("plan", str(path), "--out", str(tmp_path / "out"))
    assert proc.returncode == 1
    assert "[mandatory] llm-no-scale-to-zero (S5)" in proc.stdout


def test_typo_key_exits_2_naming_it_and_writes_nothing(tmp_path):
    def typo(c):
        c["llm-serving:models"][0]["engine"]["maxModelLength"] = c["llm-serving:models"][0]["engine"].pop("maxModelLen")

    path = variant(tmp_path, "typo", typo)
    out = tmp_path / "out"
    proc = run("plan", str(path), "--out", str(out))
    assert proc.returncode == 2
    assert "models[0].engine.maxModelLength: unknown key" in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    assert not out.exists()


@pytest.mark.parametrize(
    "text,expected",
    [
        ("config: [1, 2", "line 1: is not valid YAML"),
        ("config: 5\n", "config = 5: must be a mapping of namespaced keys"),
        ("confg: {}\n", "confg: unknown top-level key of a stack file"),
    ],
)
def test_malformed_stack_files_exit_2(tmp_path, text, expected):
    path = tmp_path / "Pulumi.bad.yaml"
    path.write_text(text)
    proc = run("plan", str(path), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert expected in proc.stderr
    assert "Traceback" not in proc.stderr


def test_unknown_stack_name_lists_the_stacks(tmp_path):
    proc = run("plan", "qa", "--out", str(tmp_path))
    assert proc.returncode == 2
    assert "stacks: dev, prod, staging" in proc.stderr


def test_model_outside_the_catalogue_exits_2_with_the_way_out(tmp_path):
    path = variant(tmp_path, "unknown", lambda c: c["llm-serving:models"][0].update(model="acme/secret-model-7b"))
    proc = run("plan", str(path), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert (
        "models[0].model = 'acme/secret-model-7b': model 'acme/secret-model-7b' is not in the lock file or the built-in catalogue; run `python -m stacks models lock`"
        in proc.stderr
    )
    assert "or set models[0].architecture" in proc.stderr


def test_model_given_by_its_config_json(tmp_path):
    config = {
        "num_hidden_layers": 32,
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "vocab_size": 128256,
        "intermediate_size": 14336,
        "max_position_embeddings": 131072,
        "torch_dtype": "bfloat16",
    }
    (tmp_path / "acme.json").write_text(json.dumps(config))
    path = variant(
        tmp_path,
        "custom",
        lambda c: c["llm-serving:models"][0].update(
            model="acme/llama-like-8b", architecture={"configPath": "acme.json", "weightsGib": 14.96}
        ),
    )  # beside the stack file
    proc = run("plan", str(path), "--format", "json", "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    (m,) = json.loads(proc.stdout)["models"]
    assert m["model"] == "acme/llama-like-8b" and m["kv_bytes_per_token"] == 131072


@pytest.mark.parametrize("fmt,marker", [("markdown", "### llm-serving plan: `dev`"), ("sarif", '"version": "2.1.0"')])
def test_other_report_formats(tmp_path, fmt, marker):
    proc = run("plan", "dev", "--format", fmt, "--out", str(tmp_path))
    assert proc.returncode == 0
    assert marker in proc.stdout


def test_policy_figures_are_the_capacity_plans(tmp_path):
    # One source of truth: S2 recomputes from the rendered flags and must land on the report's numbers.
    from components.capacity.plan import plan_stack
    from components.config import load_stack_config
    from policies.reading.vllm_args import vllm_servers
    from policies.reading.vllm_capacity import server_plan
    from stacks.offline import load_stack_file, run_program
    from stacks.plan import policy_resources

    stack = load_stack_file("prod")
    plans = plan_stack(load_stack_config(stack.config), stack.path.parent)
    isvcs = [r for r in policy_resources(run_program(stack)) if r.type.endswith(":InferenceService")]
    assert len(isvcs) == 3  # the fourth prod model is a RayCluster (tests/plan/test_plan_multi_node.py)
    for r in isvcs:
        (server,) = vllm_servers(r)
        recomputed = server_plan(r, server).plan
        assert recomputed == plans[r.props["metadata"]["name"]].memory


def test_custom_model_that_does_not_fit_exits_1(tmp_path):
    config = {
        "num_hidden_layers": 80,
        "hidden_size": 8192,
        "num_attention_heads": 64,
        "num_key_value_heads": 8,
        "vocab_size": 128256,
        "intermediate_size": 28672,
        "max_position_embeddings": 131072,
        "torch_dtype": "bfloat16",
    }
    (tmp_path / "big.json").write_text(json.dumps(config))
    path = variant(
        tmp_path,
        "big",
        lambda c: c["llm-serving:models"][0].update(
            model="acme/private-70b", architecture={"configPath": "big.json", "weightsGib": 131.4}
        ),
    )
    proc = run("plan", str(path), "--format", "json", "--out", str(tmp_path / "out"))
    assert proc.returncode == 1, proc.stderr
    # (and the advisory progress deadline of its predictor Deployment: 600 s against this model's long load)
    (v,) = [v for v in json.loads(proc.stdout)["violations"] if v["enforcement"] == "mandatory"]
    assert v["policy"] == "vllm-max-model-len-fits-kv-cache"
    assert "acme/private-70b does not start: weights need 131.43 GiB per GPU" in v["message"]  # + the rotary cache


def test_under_the_cli_a_bad_config_is_a_run_error_without_traceback():
    # `pulumi up` shows a RunError's message alone; the program must raise that, not a ConfigError.
    import pulumi
    from pulumi.runtime import config as runtime_config

    from components.program import main

    cfg = yaml.safe_load((STACKS / "Pulumi.dev.yaml").read_text())["config"]
    cfg["llm-serving:models"][0]["engine"]["maxModelLen"] = -1
    values = {k: json.dumps(v) if not isinstance(v, str) else v for k, v in cfg.items()}
    saved = runtime_config.CONFIG.get()
    runtime_config.set_all_config(values, ["llm-serving:hfToken"])
    try:
        with pytest.raises(pulumi.RunError) as err:
            main()
    finally:
        runtime_config.set_all_config(saved, [])
    assert str(err.value).startswith(
        "invalid configuration:\n  models[0].engine.maxModelLen = -1: input should be greater than 0"
    )


def test_plan_says_where_it_wrote_and_what_the_folder_is_for(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "stacks", "plan", "dev"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "build" / "dev"
    files = sorted(p for p in out.rglob("*") if p.is_file() and not p.name.startswith(".") and p.parent != out)
    assert (out / "outputs.json").is_file()
    assert proc.stdout.splitlines()[-1] == (
        f"wrote {len(files)} files to build/dev/ (kubernetes/, aws/, helm/, derived/) and the stack's outputs to "
        "build/dev/outputs.json (secrets redacted) for review: Secrets hold placeholders, "
        "so apply with `pulumi up`, not `kubectl apply`"
    )


def test_json_plan_keeps_stdout_json_and_says_where_on_stderr(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "stacks", "plan", "dev", "--format", "json", "--out", str(tmp_path / "o")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    json.loads(proc.stdout)
    assert proc.stderr.startswith("wrote ") and "for review" in proc.stderr


def test_plan_help_states_the_exit_codes():
    proc = subprocess.run(
        [sys.executable, "-m", "stacks", "plan", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert "exit codes:\n  0  no mandatory policy violation\n  1  mandatory policy violations" in proc.stdout
    assert "  2  invalid configuration" in proc.stdout


def test_one_of_a_kind_is_singular():
    from stacks.report import plural

    assert [plural(0, "violation"), plural(1, "violation"), plural(2, "file"), plural(1_500, "file")] == [
        "0 violations",
        "1 violation",
        "2 files",
        "1,500 files",
    ]
