"""G72 ollama-model-published: a pod pulls an Ollama library model by a name and size the library publishes.

Fires (labels filed NONE, both blocking, now described by an advisory finding):
- Spent set 20: phucly01/ollama-k8s ollama/ollama.yaml@152e6532, postStart `ollama run $model` over
  PRELOAD_MODELS=llama3.2-vision:8b (Llama 3.2 Vision is 11b and 90b).
- Spent set 45: ryanbeales/personal-microk8s-config ai-services/ollama-fast/deployment.yaml@195e7be8, postStart
  `ollama pull qewn3:8b` after `ollama pull qwen3:14b` (the letters of qwen3 swapped).
- The size form as third-party READMEs write it (code search: `ollama pull llama3.2:7b` and `ollama pull llama3.1:7b`
  in many projects' setup docs; Llama 3.2's text sizes are 1b and 3b, Llama 3.1's 8b, 70b, 405b), in an init container.
The registry answers such a pull with "pull model manifest: file does not exist".
Careful forms stay silent: k3s-ia-lab/infra ollama/README.md `ollama pull llama3.2:3b`; Gobindpreet9/webslayer
ollama-init.sh's `llama3.2:3b-instruct-q3_K_L` (a size tag with a quantization); kimduquan/JavaEE OpenUP/Ollama/ollama.sh
`granite3-dense:8b-instruct-q4_0` (a family the table does not hold); a user namespace (`songfy/llama3.1:7b`);
`latest`; and qwen2 (a real library name one letter from qwen3, not a swap).
"""

from __future__ import annotations

from policy_fixtures import found_by

G72 = "ollama-model-published"


def _ollama(hook: str | None = None, init: str | None = None, env: list[dict] | None = None) -> dict:
    server: dict = {"name": "ollama", "image": "ollama/ollama:0.12.10", "env": env or []}
    if hook is not None:
        server["lifecycle"] = {"postStart": {"exec": {"command": ["/bin/sh", "-c", hook]}}}
    spec: dict = {"containers": [server]}
    if init is not None:
        spec["initContainers"] = [{"name": "pull", "image": "ollama/ollama:0.12.10", "command": ["/bin/sh", "-c", init]}]
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "ollama", "namespace": "ollama"},
        "spec": {
            "selector": {"matchLabels": {"name": "ollama"}},
            "template": {"metadata": {"labels": {"name": "ollama"}}, "spec": spec},
        },
    }


# phucly01/ollama-k8s ollama/ollama.yaml@152e6532 (spent set 20), cut to the hook and its variable.
VISION = _ollama(
    hook='for model in $PRELOAD_MODELS; do ollama run $model ""; done',
    env=[{"name": "PRELOAD_MODELS", "value": "llama3.2-vision:8b"}],
)

# ryanbeales/personal-microk8s-config ai-services/ollama-fast/deployment.yaml@195e7be8 (spent set 45), the hook.
TYPO = _ollama(
    hook=("while ! /bin/ollama ps > /dev/null 2>&1; do\n  sleep 5\ndone\n/bin/ollama pull qwen3:14b\n/bin/ollama pull qewn3:8b\n")
)


def _messages(obj: dict) -> list[str]:
    found = found_by([obj], G72)
    assert {e for e, _ in found} <= {"advisory"}
    return [m for _, m in found]


def test_size_the_family_lacks() -> None:
    assert _messages(VISION) == [
        "container ollama: pulls the Ollama model llama3.2-vision:8b, which the library does not publish "
        "(llama3.2-vision has no 8b tag: its sizes are 11b, 90b; components/ollama_library.toml, from "
        "https://ollama.com/library/llama3.2-vision): the pull fails with 'file does not exist' at every start (a "
        "failing postStart hook gets the container killed, FailedPostStartHook; a failing init container keeps the pod "
        "from starting); name a published model and size"
    ]


def test_swapped_letters_of_a_family_name() -> None:
    messages = _messages(TYPO)
    assert len(messages) == 1
    assert "pulls the Ollama model qewn3:8b" in messages[0]
    assert "the library has no model named qewn3; qwen3 is the name with those letters in order" in messages[0]


def test_readme_size_in_an_init_container() -> None:
    messages = _messages(_ollama(init="ollama serve & sleep 5 && ollama pull llama3.2:7b"))
    assert len(messages) == 1
    assert messages[0].startswith("container pull: pulls the Ollama model llama3.2:7b, which the library does not publish")
    assert "llama3.2 has no 7b tag: its sizes are 1b, 3b" in messages[0]


def test_published_names_and_other_namespaces_stay_silent() -> None:
    for model in (
        "llama3.2:3b",
        "llama3.2:3b-instruct-q3_K_L",
        "granite3-dense:8b-instruct-q4_0",
        "songfy/llama3.1:7b",
        "llama3.2-vision:latest",
        "qwen3:30b-a3b",
        "qwen2:7b",
    ):
        assert _messages(_ollama(init=f"ollama serve & sleep 5 && ollama pull {model}")) == [], model


def test_released_families_read_by_their_size_tabs() -> None:
    # llama3 is 8b/70b, gemma2 2b/9b/27b (ollama.com/library pages, components/ollama_library.toml); a size tag with a
    # distill or quantization suffix is read by its size.
    assert "llama3 has no 7b tag: its sizes are 8b, 70b" in _messages(_ollama(init="ollama pull llama3:7b"))[0]
    assert "gemma2 has no 7b tag: its sizes are 2b, 9b, 27b" in _messages(_ollama(init="ollama pull gemma2:7b"))[0]
    for model in ("deepseek-r1:1.5b-qwen-distill-q4_K_M", "gemma3:270m", "gemma3:12b-it-qat", "llama3:8b-instruct-q4_0"):
        assert _messages(_ollama(init=f"ollama pull {model}")) == [], model
