"""G10 serving-memory-limit: a CPU-only model server whose memory limit is below the model it loads (advice).

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
    return [(e, m) for e, m in found_by([obj], "serving-memory-limit") if "holds no GPU" in m]


def test_an_ollama_cpu_server_limited_below_the_model_it_pulls():
    ((level, message),) = _g10(_ollama())
    assert level == "advisory"
    assert message.startswith("container ollama: this Ollama server holds no GPU and loads mistral, whose weights alone")
    assert "about 3.7 GiB" in message and "memory limit is 3Gi" in message
    # The tag names the size (7b at the default 4-bit build): still below the proven floor G46 reports, so G10 says it.
    assert len(_g10(_ollama(model="mistral:7b-instruct"))) == 1
    assert len(_g10(_ollama(model="llama3.1:8b", limit="4Gi"))) == 1
    # A bare name is sized only where the library table states what its latest tag pulls (mistral, read on its page;
    # llama3.1 from ollama/ollama README.md@v0.5.4:57, litellm50); gemma2's latest is not stated.
    assert _g10(_ollama(model="gemma2", limit="4Gi")) == []
    assert len(_g10(_ollama(model="llama3.1", limit="4Gi"))) == 1


def test_a_llama_cpp_cpu_server_limited_below_its_gguf():
    ((level, message),) = _g10(_llama_cpp(["-m", "/models/mistral-7b-instruct-v0.2.Q4_K_M.gguf", "--port", "8080"]))
    assert level == "advisory" and "loads /models/mistral-7b-instruct-v0.2.Q4_K_M.gguf" in message
    assert len(_g10(_llama_cpp(["--hf-repo", "bartowski/Qwen2.5-7B-Instruct-GGUF:Q8_0"], limit="6Gi"))) == 1


def test_careful_forms_are_silent():
    assert _g10(_ollama(limit="8Gi")) == []
    assert _g10(_ollama(model="llama3.2:1b")) == []
    assert _g10(_ollama(model="phi3:mini")) == []  # the tag names no size
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
