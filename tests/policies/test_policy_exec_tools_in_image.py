"""G79 exec-tools-in-image: an exec probe, hook or command runs a program its image ships.

The facts are components/image_contents.toml's: ollama/ollama v0.1.22-v0.32.15 is FROM ubuntu with only
ca-certificates (and GPU libraries) installed (ollama/ollama Dockerfile v0.32.15 L296-320, re-read at every release tag
by tools/read_image_contents.py), so it ships a shell but no curl, wget or Python.

The firing forms are the ones fresh third-party sets carry (an Ollama Deployment whose readiness or liveness probe
execs curl against :11434, a postStart hook that curls /api/pull); the code search found them in READMEs and compose
files (docker compose `healthcheck: wget -qO- http://localhost:11434/api/tags` on ollama/ollama:latest) rather than in
a citable Kubernetes file, so they are written here in the minimal shape of such a Deployment.
"""

from __future__ import annotations

from policy_fixtures import found_by

from components.image_contents import contents, rows

POLICY = "exec-tools-in-image"


def _deployment(container: dict) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "ollama"},
        "spec": {
            "selector": {"matchLabels": {"app": "ollama"}},
            "template": {"metadata": {"labels": {"app": "ollama"}}, "spec": {"containers": [container]}},
        },
    }


def _ollama(image: str = "ollama/ollama:0.3.12", **extra) -> dict:
    return {"name": "ollama", "image": image, "ports": [{"containerPort": 11434}], **extra}


def _exec(*command: str) -> dict:
    return {"exec": {"command": list(command)}, "periodSeconds": 10}


CURL_READY = _deployment(_ollama(readinessProbe=_exec("curl", "-f", "http://localhost:11434/api/tags")))
SH_CURL_LIVE = _deployment(_ollama(livenessProbe=_exec("/bin/sh", "-c", "curl -sf http://localhost:11434/ > /dev/null")))
WGET_HOOK = _deployment(
    _ollama(
        lifecycle={
            "postStart": {
                "exec": {
                    "command": [
                        "/bin/sh",
                        "-c",
                        'sleep 10 && wget -qO- --post-data \'{"name":"llama3"}\' http://localhost:11434/api/pull',
                    ]
                }
            }
        }
    )
)


def test_the_table_reads_ollama_as_shipping_no_http_client():
    (ollama,) = [r for r in rows() if r.family == "ollama"]
    assert ollama.program("curl") is False and ollama.program("wget") is False and ollama.program("python3") is False
    assert ollama.program("sh") is True and ollama.program("ollama") is True
    assert ollama.entrypoint == ("/bin/ollama",) and ollama.cmd == ("serve",)
    assert contents("ollama/ollama:0.3.12").proven
    assert contents("docker.io/ollama/ollama:v0.32.15").proven
    assert not contents("ollama/ollama:latest").proven
    assert not contents("ollama/ollama").proven
    assert not contents("ollama/ollama:0.3.12-rocm").proven
    assert not contents("ollama/ollama:0.1.20").proven  # FROM rocm/dev-centos-7 then
    assert not contents("harbor.corp/mirror/ollama/ollama:0.3.12").proven
    assert contents("acme/ollama-baked:1.0") is None
    assert contents("vllm/vllm-openai:v0.9.0") is None


def test_a_curl_readiness_probe_on_a_released_ollama_blocks():
    ((level, message),) = found_by([CURL_READY], POLICY)
    assert level == "mandatory"
    assert message.startswith(
        "container ollama: readinessProbe runs `curl`, which the ollama image ollama/ollama:0.3.12 does not ship"
    )
    assert "the pod is never Ready" in message


def test_a_shell_script_probe_and_a_hook_read_through_the_shell():
    ((level, message),) = found_by([SH_CURL_LIVE], POLICY)
    assert level == "mandatory" and "livenessProbe runs `curl`" in message and "restarts the container" in message
    ((level, message),) = found_by([WGET_HOOK], POLICY)
    assert level == "mandatory" and "lifecycle.postStart runs `wget`" in message and "FailedPostStartHook" in message


def test_latest_a_mirror_or_another_flavour_is_advice():
    for image in (
        "ollama/ollama:latest",
        "ollama/ollama",
        "registry.local/dockerhub/ollama/ollama:0.3.12",
        "ollama/ollama:0.3.12-rocm",
    ):
        deployment = _deployment(_ollama(image, readinessProbe=_exec("curl", "-f", "http://localhost:11434/")))
        assert [lv for lv, _ in found_by([deployment], POLICY)] == ["advisory"], image


def test_a_step_that_does_not_decide_the_status_is_advice():
    probe = _exec("sh", "-c", "curl -sf http://localhost:11434/; ollama list")
    assert [lv for lv, _ in found_by([_deployment(_ollama(readinessProbe=probe))], POLICY)] == ["advisory"]
    script = {"command": ["/bin/sh", "-c", "ollama serve & sleep 5 && curl -X POST http://localhost:11434/api/pull -d x; wait"]}
    assert [lv for lv, _ in found_by([_deployment(_ollama(**script))], POLICY)] == ["advisory"]
    prestop = {"lifecycle": {"preStop": {"exec": {"command": ["curl", "-X", "POST", "http://localhost:11434/drain"]}}}}
    assert [lv for lv, _ in found_by([_deployment(_ollama(**prestop))], POLICY)] == ["advisory"]


def test_careful_forms_stay_silent():
    careful = [
        _ollama(readinessProbe=_exec("ollama", "list"), livenessProbe=_exec("/bin/ollama", "--version")),
        _ollama(readinessProbe={"httpGet": {"path": "/", "port": 11434}}, livenessProbe={"tcpSocket": {"port": 11434}}),
        _ollama(readinessProbe=_exec("sh", "-c", "if command -v curl; then curl -f http://localhost:11434/; fi")),
        _ollama(readinessProbe=_exec("sh", "-c", "curl -f http://localhost:11434/ || ollama list")),
        _ollama(readinessProbe=_exec("bash", "-c", "echo > /dev/tcp/127.0.0.1/11434")),
        _ollama(readinessProbe=_exec("sh", "-c", "$CHECK http://localhost:11434/")),
        # An image the table has no row for (a rebuild that may add curl), and a curl sidecar beside Ollama.
        _ollama("acme/ollama-with-curl:1.0", readinessProbe=_exec("curl", "-f", "http://localhost:11434/")),
        {"name": "probe", "image": "curlimages/curl:8.5.0", "readinessProbe": _exec("curl", "-f", "http://localhost:11434/")},
    ]
    for container in careful:
        assert found_by([_deployment(container)], POLICY) == [], container


def test_bad_input_does_not_raise():
    for container in (
        _ollama(readinessProbe={"exec": {"command": None}}),
        _ollama(readinessProbe={"exec": {"command": [None, 3]}}),
        _ollama(readinessProbe={"exec": "curl"}),
        _ollama(image=None, readinessProbe=_exec("curl")),
        _ollama(image=["ollama/ollama"], readinessProbe=_exec("curl")),
        _ollama(command="curl"),
        _ollama(readinessProbe=_exec("sh", "-c", "curl 'unbalanced")),
    ):
        found_by([_deployment(container)], POLICY)


# review46a #1: the pod installs the program before its probe or hook runs it (a compose file of ollama/ollama:latest
# runs `apt-get update && apt-get install -y curl && ollama serve` with a curl healthcheck; code index id 38084579064).
INSTALLS_CURL = _ollama(
    "ollama/ollama:0.5.7",
    command=["/bin/sh", "-c"],
    args=["apt-get update && apt-get install -y curl && exec ollama serve"],
    readinessProbe=_exec("curl", "-sf", "http://localhost:11434/api/tags"),
    lifecycle={
        "postStart": {
            "exec": {
                "command": [
                    "/bin/sh",
                    "-c",
                    "apt-get update && apt-get install -y curl=7.81.0-1ubuntu1.15 && curl -s http://localhost:11434/api/pull -d x",
                ]
            }
        }
    },
)
# review46a #2: an init container copies a static curl into an emptyDir the probe runs it from (an init container
# running `cp /usr/bin/curl /tools/curl` for a container that lacks curl: code index id 53962619837).
MOUNTED_CURL = {
    **_ollama(
        "ollama/ollama:0.5.7",
        volumeMounts=[{"name": "tools", "mountPath": "/tools"}],
        livenessProbe=_exec("/tools/curl", "-sf", "http://localhost:11434/api/tags"),
    )
}


def test_a_program_the_pod_adds_stays_silent():
    careful = [
        INSTALLS_CURL,
        MOUNTED_CURL,
        _ollama("ollama/ollama:0.5.7", readinessProbe=_exec("./curl", "-sf", "http://localhost:11434/")),
        _ollama(
            "ollama/ollama:0.5.7",
            env=[{"name": "PATH", "value": "/tools:/usr/bin:/bin"}],
            readinessProbe=_exec("curl", "-sf", "http://localhost:11434/"),
        ),
        _ollama(
            "ollama/ollama:0.5.7",
            volumeMounts=[{"name": "bin", "mountPath": "/usr/local/bin"}],
            readinessProbe=_exec("curl", "-sf", "http://localhost:11434/"),
        ),
    ]
    for container in careful:
        assert found_by([_deployment(container)], POLICY) == [], container


def test_the_same_forms_without_what_the_pod_adds_block():
    # Installing another package, or a path on the image's PATH, adds nothing.
    other = _ollama(
        "ollama/ollama:0.5.7",
        command=["/bin/sh", "-c"],
        args=["apt-get update && apt-get install -y jq && exec ollama serve"],
        readinessProbe=_exec("curl", "-sf", "http://localhost:11434/api/tags"),
    )
    assert [lv for lv, _ in found_by([_deployment(other)], POLICY)] == ["mandatory"]
    on_path = _ollama("ollama/ollama:0.5.7", livenessProbe=_exec("/usr/bin/curl", "-sf", "http://localhost:11434/"))
    assert [lv for lv, _ in found_by([_deployment(on_path)], POLICY)] == ["mandatory"]


def test_a_guard_or_an_exit_fallback_still_fails_without_the_program():
    """review46a #11: with curl absent, `command -v curl && curl` and `curl ... || exit 1` exit non-zero every period."""
    for script in (
        "curl -sf http://localhost:11434/ || exit 1",
        "command -v curl >/dev/null && curl -sf http://localhost:11434/",
        "command -v curl && curl -f http://localhost:11434/",
    ):
        found = found_by([_deployment(_ollama("ollama/ollama:0.5.7", readinessProbe=_exec("/bin/sh", "-c", script)))], POLICY)
        assert [lv for lv, _ in found] == ["mandatory"], script
        assert "readinessProbe runs `curl`" in found[0][1]


def test_a_script_in_args_under_sh_c_is_read():
    container = _ollama("ollama/ollama:0.5.7", command=["/bin/sh", "-c"], args=["python3 /warm.py && exec ollama serve"])
    ((level, message),) = found_by([_deployment(container)], POLICY)
    assert level == "advisory" and "command runs `python3`" in message


def test_localai_flavours_are_not_judged_for_wget_or_python():
    # review47a item 1 (/tmp/review47a/g79-vulkan-wget.yaml): the vulkan flavour installs wget (mudler/LocalAI v2.19.0
    # Dockerfile L106-119, a RUN heredoc on BUILD_TYPE=vulkan), the sycl and hipblas flavours build FROM other bases
    # (.github/workflows/image.yml v2.19.0 L148-232) and Python comes with IMAGE_TYPE=extras only: the localai row
    # records no base and no program but curl (requirements-core, every flavour).
    local_ai = {
        "name": "local-ai",
        "image": "localai/localai:v2.19.0-vulkan-ffmpeg-core",
        "args": ["phi-2"],
        "ports": [{"containerPort": 8080}],
        "readinessProbe": _exec("wget", "-qO-", "http://localhost:8080/readyz"),
    }
    assert found_by([_deployment(local_ai)], POLICY) == []
    for image in ("localai/localai:v2.19.0-ffmpeg-core", "localai/localai:v2.19.0", "localai/localai:v2.14.0-sycl-f16-core"):
        match = contents(image)
        assert match is not None and match.row.family == "localai"
        assert {p: match.row.program(p) for p in ("wget", "python3", "python", "curl")} == {
            "wget": None,
            "python3": None,
            "python": None,
            "curl": True,
        }


def test_the_reader_joins_a_heredoc_bodys_continuation_lines():
    # review47a item 1: tools/read_image_contents.py read `RUN <<EOT` bodies line by line, so the packages on the line
    # after `apt-get install -y \` were lost (mudler/LocalAI v2.19.0 Dockerfile L107-119, wget on BUILD_TYPE=vulkan).
    from tools.read_image_contents import read

    dockerfile = (
        "FROM ubuntu:22.04\n"
        "RUN <<EOT bash\n"
        '    if [ "${BUILD_TYPE}" = "vulkan" ]; then\n'
        "        apt-get install -y  --no-install-recommends \\\n"
        "            software-properties-common pciutils wget gpg-agent && \\\n"
        "        apt-get clean\n"
        "    fi\n"
        "EOT\n"
        'ENTRYPOINT ["/build/entrypoint.sh"]\n'
    )
    assert "wget" in [p for _, p in read(dockerfile)["packages"]]


# afterdarksys/meowdel.ai k8s/ollama-deployment.yaml (spent set 82, labelled G79): a Job on ollama/ollama:latest whose
# script waits with `until curl -f http://ollama-service:11434/api/tags; do sleep 5; done` before `ollama pull`.
MEOWDEL_WAIT = "until curl -f http://ollama-service:11434/api/tags; do\n  sleep 5\ndone\nollama pull llama3.2:3b\n"


def _puller(image: str, script: str) -> dict:
    return _deployment({"name": "model-puller", "image": image, "command": ["/bin/sh", "-c", script]})


def test_a_wait_loop_on_a_missing_program_never_ends():
    ((level, message),) = found_by([_puller("ollama/ollama:latest", MEOWDEL_WAIT)], POLICY)
    assert level == "advisory"  # latest: no release read
    assert "command waits in a loop on `curl`" in message and "never ends" in message
    ((level, _),) = found_by([_puller("ollama/ollama:0.3.12", MEOWDEL_WAIT)], POLICY)
    assert level == "mandatory"
    negated = "while ! curl -sf http://ollama:11434/; do sleep 2; done; ollama pull m"
    assert [lvl for lvl, _ in found_by([_puller("ollama/ollama:0.3.12", negated)], POLICY)] == ["mandatory"]


def test_careful_wait_loops_stay_silent():
    # A wait on a program the image ships, a negated until (ends at once), a plain while (never runs), a guard, and a
    # script that installs curl first.
    for script in (
        "until ollama list; do sleep 5; done; ollama pull m",
        "until ! curl -sf http://x/; do sleep 5; done",
        "while curl -sf http://x/; do sleep 5; done",
        "if command -v curl; then until curl -sf http://x/; do sleep 5; done; fi",
        "apt-get update && apt-get install -y curl; until curl -sf http://x/; do sleep 5; done",
    ):
        assert found_by([_puller("ollama/ollama:0.3.12", script)], POLICY) == [], script
