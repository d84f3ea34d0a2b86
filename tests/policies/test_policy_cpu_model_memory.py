"""G10 cpu-model-memory-fits: a CPU-only model server whose memory limit is below the model it loads.

Blocking where the Ollama library's published download alone exceeds the limit on an ollama/ollama release from v0.2.0
to before v0.30.0 (brief cpumem52: refused from v0.13.0, ollama/ollama discover/cpu_linux.go getCPUMemByCgroups and
llm/server.go:984-991@v0.13.0; OOM-killed before, mmap off; review53: llama-server maps the weights from v0.30.0, so
the latest tag is advice); advice for estimates and for weights that fit but not with the KV cache of
Ollama's default context, or vLLM's CPU KV space (VLLM_CPU_KVCACHE_SPACE, 4 GiB unset: vllm 0.6.4.post1
vllm/executor/cpu_executor.py:345-351).

Spent forms (cpumem52): set 102 LHedi22/cyber-ids@32953fa4afca19040612e8d733f69dc977c527b4
k8s/ollama-deployment.yaml (phi3:mini pulled by an init container through /api/pull, ollama/ollama:latest, 2Gi);
set 100 salonich/aranya-cluster@939cfe9f118a059c5e56cfb4bdcdffee8b222592 apps/vllm/deployment.yaml (TinyLlama 1.1B
on vllm/vllm-openai:v0.6.4.post1 --device=cpu, 3Gi); set 98 ifwatts/llm_chess_bot@9a5d1cb4a08fc0c293694c5c92c7a28917b08b99
k8s/ollama-deployment.yaml (llama2, 7b: 3.8GB, at 4Gi: fits alone, not with 2 GiB of KV at 4096 tokens; the repo pulls
it in its image's entrypoint, not in the files, so the fixture pulls it in the pod).

Firing forms (the shape labellers of spent sets found and labelled `none`, brief none48): an Ollama server with no GPU
that pulls ``mistral`` (the library's latest, 7b: 7.24B parameters, 4.4GB at q4_K_M, components/ollama_library.toml)
in its postStart hook under a 3Gi limit; a llama.cpp server (``-m`` a Q4_K_M GGUF of a 7B model, ~3.9 GB) under 2Gi;
``--hf-repo`` of a 7B GGUF repository with its quant tag. No third-party manifest of this exact shape was found in the
code index in the time given; the forms follow the postStart pull of the code index's Ollama Deployments (e.g.
``command: ["/bin/sh", "-c", "ollama pull llama3.1:8b"]``).
Careful forms: a limit above the model; a GPU; a model whose name gives no size; a tag G46 already reports.
"""

import copy

from policy_fixtures import found_by


def _ollama(model="mistral", limit="3Gi", image="ollama/ollama:0.6.8"):
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "ollama", "namespace": "ollama"},
        "spec": {
            "selector": {"matchLabels": {"app": "ollama"}},
            "template": {
                "metadata": {"labels": {"app": "ollama"}},
                "spec": {
                    "containers": [
                        {
                            "name": "ollama",
                            "image": image,
                            "ports": [{"containerPort": 11434}],
                            "lifecycle": {"postStart": {"exec": {"command": ["/bin/sh", "-c", f"ollama pull {model}"]}}},
                            "resources": {"requests": {"memory": "1Gi"}, "limits": {"memory": limit}},
                        }
                    ]
                },
            },
        },
    }


def _llama_cpp(args, limit="2Gi"):
    obj = _ollama()
    obj["metadata"]["name"] = "llama"
    obj["spec"]["template"]["spec"]["containers"] = [
        {
            "name": "llama",
            "image": "ghcr.io/ggml-org/llama.cpp:server-b5000",
            "args": args,
            "resources": {"limits": {"memory": limit}},
        }
    ]
    return obj


def _g10(obj):
    return [(e, m) for e, m in found_by([obj], "cpu-model-memory-fits") if "holds no GPU" in m]


def test_an_ollama_cpu_server_limited_below_the_model_it_pulls():
    # mistral's latest is 7b, a 4.1GB download (ollama/ollama README.md@v0.5.4:64): above 3Gi on ollama/ollama 0.6.8.
    ((level, message),) = _g10(_ollama())
    assert level == "mandatory"
    assert message.startswith("container ollama: this Ollama server holds no GPU and loads mistral, a 4.1 GB download")
    assert "above its memory limit 3Gi" in message
    # A tag naming a quantization is estimated from its name: advice (still below the proven floor G46 reports).
    assert [lvl for lvl, _ in _g10(_ollama(model="mistral:7b-instruct"))] == ["advisory"]
    assert [lvl for lvl, _ in _g10(_ollama(model="llama3.1:8b", limit="4Gi"))] == ["mandatory"]
    # A bare name is sized where the library table states what its latest tag pulls (gemma2: 9b, 5.5GB, README@v0.5.4).
    assert len(_g10(_ollama(model="gemma2", limit="4Gi"))) == 1
    assert len(_g10(_ollama(model="llama3.1", limit="4Gi"))) == 1
    # A custom image (a rebuild of ollama/ollama) or a release before v0.2.0 is not proven: advice.
    assert [lvl for lvl, _ in _g10(_ollama(image="registry.example/ollama:latest"))] == ["advisory"]
    assert [lvl for lvl, _ in _g10(_ollama(image="ollama/ollama:0.1.32"))] == ["advisory"]


def _api_pull(model, limit, image="ollama/ollama:latest"):
    """The set 102 form: an init container pulls through the server's API (curl -X POST .../api/pull -d JSON)."""
    obj = _ollama(limit=limit, image=image)
    pod = obj["spec"]["template"]["spec"]
    del pod["containers"][0]["lifecycle"]
    script = (
        "sleep 30\nuntil curl -sf http://localhost:11434/api/tags; do sleep 5; done\n"
        'curl -X POST http://localhost:11434/api/pull \\\n  -H "Content-Type: application/json" \\\n'
        f'  -d \'{{"name":"{model}"}}\'\n'
    )
    pod["initContainers"] = [{"name": "pull", "image": "curlimages/curl:latest", "command": ["/bin/sh", "-c"], "args": [script]}]
    return obj


def test_the_spent_phi3_mini_form_blocks_on_a_release_that_refuses_it():
    # phi3:mini is phi3's 3.8b, a 2.3GB download (README.md@v0.5.4:59): above 2Gi, refused (v0.13.0-v0.24.x) or
    # OOM-killed (v0.2.0-v0.12.x, mmap off).
    ((level, message),) = _g10(_api_pull("phi3:mini", "2Gi", image="ollama/ollama:0.6.8"))
    assert level == "mandatory" and "loads phi3:mini, a 2.3 GB download" in message
    assert "above its memory limit 2Gi" in message
    assert [lvl for lvl, _ in _g10(_api_pull("phi3:mini", "2Gi", image="ollama/ollama:0.24.0"))] == ["mandatory"]


def test_latest_and_releases_from_v0_30_are_not_proven():
    """review53: from v0.30.0 Ollama runs every GGML model through llama-server (ollama/ollama 9db4bdba "use
    llama-server exclusively for GGML models", first in v0.30.0-rc32) with mmap on unless the request turns it off
    (llm/llama_server.go:355-358@v0.30.0, appendLoadModeArgs :634-636@v0.32.15) and no longer refuses a CPU model above
    the cgroup's free memory (verifyLayout's "model requires more system memory" of llm/server.go@v0.24.0 is gone at
    v0.30.0); the mapped weights are reclaimable page cache (llm/llama_server.go:2651-2658@v0.32.15). So the spent
    set 102 form on ollama/ollama:latest (today a v0.32 release) or an untagged image is advice, not a proven failure."""
    for image in ("ollama/ollama:latest", "ollama/ollama", "ollama/ollama:0.30.0", "ollama/ollama:v0.32.15"):
        assert [lvl for lvl, _ in _g10(_api_pull("phi3:mini", "2Gi", image=image))] == ["advisory"], image
        assert [lvl for lvl, _ in _g10(_ollama(image=image))] == ["advisory"], image


def test_weights_that_fit_without_the_default_kv_cache_are_advised():
    # llama2 (7b, 3.8GB) fits 4Gi alone; its 512 KiB per token at 4096 tokens adds 2 GiB (the set 98 form).
    ((level, message),) = _g10(_ollama(model="llama2", limit="4Gi", image="ollama/ollama:latest"))
    assert level == "advisory" and "default context (about 2.0 GiB more)" in message
    # phi3:mini at 3Gi: 2.3GB + 1.5 GiB of KV at 4096 tokens.
    assert [lvl for lvl, _ in _g10(_api_pull("phi3:mini", "3Gi"))] == ["advisory"]


def test_careful_kv_forms_are_silent():
    assert _g10(_ollama(model="llama2", limit="6Gi", image="ollama/ollama:latest")) == []
    small = _ollama(model="llama2", limit="4Gi", image="ollama/ollama:latest")
    env = [{"name": "OLLAMA_CONTEXT_LENGTH", "value": "512"}]
    small["spec"]["template"]["spec"]["containers"][0]["env"] = env
    assert _g10(small) == []
    # A smaller build of the family at the spent limit: phi3:mini at 4Gi, gemma:2b at 2Gi.
    assert _g10(_api_pull("phi3:mini", "4Gi")) == []
    assert _g10(_api_pull("gemma:2b", "2Gi")) == []


def test_a_pull_job_of_another_server_is_no_server():
    # Spent set 58 Knickkennedy/k8s-llm-inference-stack base/ollama/model-pull-job.yaml: the ollama/ollama image as a
    # client (OLLAMA_HOST=http://ollama:11434) pulling mistral under 1Gi loads nothing itself.
    job = _ollama(limit="1Gi", image="ollama/ollama:latest")
    container = job["spec"]["template"]["spec"]["containers"][0]
    del container["lifecycle"]
    container["command"] = ["/usr/bin/bash", "-c", "until ollama list; do sleep 5; done; ollama pull mistral"]
    container["env"] = [{"name": "OLLAMA_HOST", "value": "http://ollama:11434"}]
    assert _g10(job) == []
    inline = copy.deepcopy(job)
    inline["spec"]["template"]["spec"]["containers"][0]["env"] = []
    inline["spec"]["template"]["spec"]["containers"][0]["command"][2] = "OLLAMA_HOST=ollama-service:11434 ollama pull mistral"
    assert _g10(inline) == []
    # Its own server (OLLAMA_HOST 0.0.0.0) is judged; in a Job, which need not load what it pulls, as advice.
    container["env"] = [{"name": "OLLAMA_HOST", "value": "0.0.0.0"}]
    container["command"][2] = "ollama serve & sleep 5; ollama pull mistral"
    job["kind"], job["apiVersion"] = "Job", "batch/v1"
    job["spec"]["template"]["spec"]["restartPolicy"] = "OnFailure"
    assert [lvl for lvl, _ in _g10(job)] == ["advisory"]


def _vllm(args, limit="3Gi", env=None, image="vllm/vllm-openai:v0.6.4.post1"):
    obj = _ollama()
    obj["metadata"]["name"] = "vllm"
    obj["spec"]["template"]["spec"]["containers"] = [
        {"name": "vllm", "image": image, "args": args, "env": env or [], "resources": {"limits": {"memory": limit}}}
    ]
    return obj


def _vllm_cpu(obj):
    return [(e, m) for e, m in found_by([obj], "cpu-model-memory-fits") if "runs on the CPU" in m]


def test_a_vllm_cpu_server_below_weights_and_its_kv_space():
    # The set 100 form: TinyLlama 1.1B (2.2 GB in bf16) + 4 GiB of CPU KV space by default, in 3Gi.
    spent = ["--model=TinyLlama/TinyLlama-1.1B-Chat-v1.0", "--device=cpu", "--dtype=float16", "--swap-space=0"]
    ((level, message),) = _vllm_cpu(_vllm(spent))
    assert level == "advisory" and "KV cache of 4 GiB" in message and "VLLM_CPU_KVCACHE_SPACE unset" in message
    assert len(_vllm_cpu(_vllm(["--model=Qwen/Qwen2.5-0.5B-Instruct"], image="vllm/vllm-openai-cpu:v0.9.0"))) == 1


def test_careful_vllm_cpu_forms_are_silent():
    spent = ["--model=TinyLlama/TinyLlama-1.1B-Chat-v1.0", "--device=cpu"]
    assert _vllm_cpu(_vllm(spent, limit="8Gi")) == []
    assert _vllm_cpu(_vllm(spent, env=[{"name": "VLLM_CPU_KVCACHE_SPACE", "value": "1"}], limit="4Gi")) == []
    assert _vllm_cpu(_vllm(["--model=TinyLlama/TinyLlama-1.1B-Chat-v1.0"])) == []  # a GPU build with no --device
    # A later GPU build given --device cpu does not start at all (G13's finding), so its memory is not judged.
    assert _vllm_cpu(_vllm(spent, image="vllm/vllm-openai:v0.9.2")) == []
    assert _vllm_cpu(_vllm(["--model=TheBloke/TinyLlama-1.1B-Chat-v1.0-AWQ", "--device=cpu"])) == []


def test_a_llama_cpp_cpu_server_limited_below_its_gguf():
    ((level, message),) = _g10(_llama_cpp(["-m", "/models/mistral-7b-instruct-v0.2.Q4_K_M.gguf", "--port", "8080"]))
    assert level == "advisory" and "loads /models/mistral-7b-instruct-v0.2.Q4_K_M.gguf" in message
    assert len(_g10(_llama_cpp(["--hf-repo", "bartowski/Qwen2.5-7B-Instruct-GGUF:Q8_0"], limit="6Gi"))) == 1


def test_careful_forms_are_silent():
    assert _g10(_ollama(limit="8Gi")) == []
    assert _g10(_ollama(model="llama3.2:1b")) == []
    assert _g10(_ollama(model="phi3:mini", limit="5Gi")) == []  # 2.3GB + 1.5 GiB of KV fit
    assert _g10(_ollama(model="phi3:custom-variant")) == []  # a tag naming neither a size nor a size word
    assert _g10(_ollama(model="someone/custom")) == []
    gpu = _ollama()
    gpu["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = "1"
    assert _g10(gpu) == []
    assert _g10(_llama_cpp(["-m", "/models/mistral-7b-instruct-v0.2.Q4_K_M.gguf"], limit="6Gi")) == []
    assert _g10(_llama_cpp(["-m", "/models/model.gguf"])) == []
    assert _g10(_llama_cpp(["-m", "/models/mixtral-8x7b.Q4_K_M.gguf"])) == []
    # A tag whose proven floor exceeds the limit is G46's (container-can-start), not repeated here.
    big = _ollama(model="llama3.3:70b-instruct-q2_K", limit="10000Mi")
    assert _g10(big) == []
    assert found_by([copy.deepcopy(big)], "container-can-start") != []
