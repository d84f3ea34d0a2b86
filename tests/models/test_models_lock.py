"""`python -m stacks models lock` on recorded Hugging Face Hub responses, and the lock read offline.

The Hub is not reachable here: huggingface_hub's own HTTP client (httpx2) is given a MockTransport
that replays tests/models/data/hub_recordings.json and fails on any request that was not recorded,
so the real library code (model_info, hf_hub_download, its error mapping) runs unchanged.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT, STACKS

hub = pytest.importorskip("huggingface_hub")
httpx2 = pytest.importorskip("httpx2")

# huggingface_hub's own client factory, put back after each test (private name: restored only if present).
_DEFAULT_FACTORY = getattr(__import__("huggingface_hub.utils._http", fromlist=["_"]), "_GLOBAL_CLIENT_FACTORY", None)


def restore_client() -> None:
    hub.close_session()
    if _DEFAULT_FACTORY is not None:
        hub.set_client_factory(_DEFAULT_FACTORY)


RECORDINGS = json.loads((Path(__file__).parent / "data" / "hub_recordings.json").read_text())
PHI4 = ("microsoft/phi-4", "187ef0342fff0eb3333be9f00389385e95ef0b61")
GEMMA = ("google/gemma-2-9b-it", "11c9b309abf73637e4b6f9a3fa1e92e615547819")
LLAMA_1B = ("meta-llama/Llama-3.2-1B", "4e20de362430cd3b72f300e6b0f18e50e7166e08")


class ReplayHub:
    """A transport answering from the recordings; every request it saw, and none it does not know."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, bool]] = []

    def __call__(self, request):
        url, token = str(request.url), request.headers.get("authorization", "").startswith("Bearer ")
        self.seen.append((request.method, url, token))
        for item in RECORDINGS["interactions"]:
            want = item["request"]
            if want["method"] == request.method and want["url"] == url and want["token"] in (None, token):
                r = item["response"]
                content = json.dumps(r["json"]).encode() if "json" in r else r.get("text", "").encode()
                return httpx2.Response(r["status"], headers=r["headers"], content=content if request.method != "HEAD" else b"")
        raise AssertionError(f"unrecorded Hub request: {request.method} {url} (token: {token})")


@pytest.fixture
def replay(monkeypatch, tmp_path):
    """huggingface_hub talking to the recordings, with its cache in tmp_path and no token unless a test sets one."""
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    # huggingface_hub reads its environment at import: give it the test's.
    import importlib

    import huggingface_hub.constants as constants

    importlib.reload(constants)
    transport = ReplayHub()
    hub.set_client_factory(lambda: httpx2.Client(transport=httpx2.MockTransport(transport), follow_redirects=True))
    yield transport
    restore_client()


def stack_with(tmp_path: Path, *models: tuple[str, str], pool_types=("p5.48xlarge",)) -> Path:
    """The dev stack with its model replaced by ``models`` (each on an H100 pool, TP 1)."""
    doc = yaml.safe_load((STACKS / "Pulumi.dev.yaml").read_text())
    cfg = doc["config"]
    base = cfg["llm-serving:models"][0]
    cfg["llm-serving:gpuPools"][0]["instanceTypes"] = list(pool_types)
    cfg["llm-serving:models"] = [
        {**base, "name": f"m{i}", "model": model, "revision": revision, "engine": {**base["engine"], "maxModelLen": 4096}}
        for i, (model, revision) in enumerate(models)
    ]
    path = tmp_path / "Pulumi.hub.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def run(*args: str, lock: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "LLM_SERVING_MODELS_LOCK": str(lock), "HF_HUB_OFFLINE": "1", **env},
    )


def test_the_recorded_parameter_counts_are_the_configs_own():
    """The recordings' safetensors counts are what each config's tensors add up to (the Hub pages' 14.7B, 9.24B, 1.24B)."""

    def llama_like(c, tied):
        h, i, layers, v = c["hidden_size"], c["intermediate_size"], c["num_hidden_layers"], c["vocab_size"]
        hd = c.get("head_dim") or h // c["num_attention_heads"]
        q, kv = c["num_attention_heads"] * hd, c["num_key_value_heads"] * hd
        norms = 4 if c["model_type"] == "gemma2" else 2
        per_layer = h * q + 2 * h * kv + q * h + 3 * h * i + norms * h
        return v * h * (1 if tied else 2) + layers * per_layer + h

    configs = json.loads((ROOT / "tests" / "capacity" / "data" / "model_configs.json").read_text())
    counts = {
        i["response"]["json"]["id"]: i["response"]["json"]["safetensors"]["total"]
        for i in RECORDINGS["interactions"]
        if "json" in i["response"]
    }
    for model, tied in ((PHI4[0], False), (GEMMA[0], True), (LLAMA_1B[0], True)):
        assert llama_like(configs[model]["config"], tied) == counts[model], model


def test_lock_writes_config_and_size_from_the_hub(replay, tmp_path, monkeypatch):
    from stacks.models import lock

    monkeypatch.setenv("HF_TOKEN", "hf_" + "x" * 34)
    lock_file = tmp_path / "models.lock.json"
    assert lock([str(stack_with(tmp_path, PHI4, GEMMA))], lock_file) == 0
    data = json.loads(lock_file.read_text())
    phi = data["models"][f"{PHI4[0]}@{PHI4[1]}"]
    configs = json.loads((ROOT / "tests" / "capacity" / "data" / "model_configs.json").read_text())
    assert phi["config"] == configs[PHI4[0]]["config"]
    assert phi["checkpoint_bytes"] == 14659507200 * 2 and phi["safetensors_parameters"] == {"BF16": 14659507200}
    assert data["models"][f"{GEMMA[0]}@{GEMMA[1]}"]["checkpoint_bytes"] == 9241705984 * 2
    # What was asked of the Hub: the model info with its safetensors metadata, then config.json, per model.
    assert sorted({(m, u.split("?")[0]) for m, u, _ in replay.seen}) == sorted(
        {("GET", f"https://huggingface.co/api/models/{m}/revision/{r}") for m, r in (PHI4, GEMMA)}
        | {(verb, f"https://huggingface.co/{m}/resolve/{r}/config.json") for m, r in (PHI4, GEMMA) for verb in ("HEAD", "GET")}
    )


def test_the_same_hub_answers_give_a_byte_identical_lock(replay, tmp_path, monkeypatch):
    from stacks.models import lock

    monkeypatch.setenv("HF_TOKEN", "hf_" + "x" * 34)
    stack = str(stack_with(tmp_path, GEMMA, PHI4))
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert lock([stack], first) == 0 and lock([stack], second) == 0
    assert first.read_bytes() == second.read_bytes()
    assert list(json.loads(first.read_text())["models"]) == sorted(json.loads(first.read_text())["models"])


def test_a_gated_model_without_a_token_names_hf_token_and_writes_nothing(replay, tmp_path, capsys):
    from stacks.models import lock

    lock_file = tmp_path / "models.lock.json"
    assert lock([str(stack_with(tmp_path, PHI4, LLAMA_1B))], lock_file) == 1
    err = capsys.readouterr().err
    assert f"could not lock {LLAMA_1B[0]}@{LLAMA_1B[1]}: a gated model; accept its licence on the Hub and set HF_TOKEN" in err
    assert "models.lock.json left as it was: 1 of 2 models could not be resolved" in err
    assert not lock_file.exists()


def test_with_hf_token_the_gated_model_locks(replay, tmp_path, monkeypatch):
    from stacks.models import lock

    monkeypatch.setenv("HF_TOKEN", "hf_" + "x" * 34)
    assert lock([str(stack_with(tmp_path, LLAMA_1B))], tmp_path / "l.json") == 0
    assert all(token for _, _, token in replay.seen)


def test_plan_size_and_policies_check_read_the_lock_offline(replay, tmp_path, monkeypatch):
    """After `models lock`, every command sizes phi-4 from the lock with the network off (HF_HUB_OFFLINE=1)."""
    from stacks.models import lock

    lock_file = tmp_path / "models.lock.json"
    stack = stack_with(tmp_path, PHI4)
    assert lock([str(stack)], lock_file) == 0

    plan = run("stacks", "plan", str(stack), "--out", str(tmp_path / "out"), "--format", "json", lock=lock_file)
    assert plan.returncode == 0, plan.stderr
    model = json.loads(plan.stdout)["models"][0]
    assert model["model"] == PHI4[0] and model["weights_gib"] == pytest.approx(27.31, abs=0.01)

    size = run("stacks", "size", "--model", PHI4[0], "--gpu", "H100", "--json", lock=lock_file)
    assert size.returncode == 0, size.stderr
    assert json.loads(size.stdout)["weights_gib"] == model["weights_gib"]

    check = run("policies", "check", str(tmp_path / "out" / "kubernetes"), "--format", "json", lock=lock_file)
    assert json.loads(check.stdout)["unsized"] == [], check.stdout


def test_a_model_in_neither_the_lock_nor_the_catalogue_exits_2_saying_to_lock_it(tmp_path):
    stack = stack_with(tmp_path, PHI4)
    plan = run("stacks", "plan", str(stack), "--out", str(tmp_path / "out"), lock=tmp_path / "absent.json")
    assert plan.returncode == 2
    assert (
        "models[0].model = 'microsoft/phi-4': model 'microsoft/phi-4' is not in the lock file or the built-in "
        "catalogue; run `python -m stacks models lock`"
    ) in plan.stderr
    assert not (tmp_path / "out").exists()
    size = run("stacks", "size", "--model", PHI4[0], "--gpu", "H100", lock=tmp_path / "absent.json")
    assert size.returncode == 2 and "run `python -m stacks models lock`" in size.stderr


def test_a_broken_lock_file_exits_2_naming_it(tmp_path):
    bad = tmp_path / "models.lock.json"
    bad.write_text(json.dumps({"models": {"x@y": {"model": "x", "revision": "y", "config": {}, "checkpoint_bytes": 0}}}))
    proc = run("stacks", "size", "--model", "llama-3.1-8b", "--gpu", "H100", lock=bad)
    assert proc.returncode == 2 and "checkpoint_bytes = 0: must be a whole number of bytes > 0" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_models_lock_help_states_exit_codes():
    proc = subprocess.run(
        [sys.executable, "-m", "stacks", "models", "lock", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert "exit codes:\n  0  every model locked\n  1  some model could not be resolved" in proc.stdout


def test_no_network_is_said_in_one_line_and_writes_nothing(tmp_path, monkeypatch, capsys):
    """The Hub unreachable (DNS, proxy, offline machine): exit 1 naming each model, no traceback, no lock file."""
    from stacks.models import lock

    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))

    def unreachable(request):
        raise httpx2.ConnectError("[Errno -2] Name or service not known", request=request)

    hub.set_client_factory(lambda: httpx2.Client(transport=httpx2.MockTransport(unreachable)))
    try:
        assert lock([str(stack_with(tmp_path, PHI4))], tmp_path / "l.json") == 1
    finally:
        restore_client()
    err = capsys.readouterr().err
    assert f"could not lock {PHI4[0]}@{PHI4[1]}: the Hub could not be reached (ConnectError: " in err
    assert not (tmp_path / "l.json").exists()
