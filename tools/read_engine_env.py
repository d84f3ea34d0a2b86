"""Write the ``settings.ENGINE`` and ``foreign.ENGINE`` rows of components/engine_env_names.json (G74 engine-env-known;
loaded with components/engine_env.toml, JSON because tomllib's pure-Python parse of ~1,000 names costs every run): every variable under the
engine's own prefix some release reads, with the first and the last release read that names it, read from the
engine's source at each release tag of a git mirror brought here by the tool library's ``fetch`` (run by hand, never by
the product or the tests).

    python tools/read_engine_env.py ollama /work/.mirror/ollama+ollama/repo [--check]
    python tools/read_source_options.py llama-cpp /work/.mirror/CrazyForks+llama.cpp/repo --env [--check]
    python tools/read_engine_env.py foreign LOCALAI_MIRROR OLLAMA_MIRROR LLAMA_CPP_MIRROR [--check]

Ollama: every release tag ``vX.Y.Z`` (release candidates and CI tags left out), each quoted string ``"OLLAMA_..."`` of
the Go sources at the tag (``git grep -ho`` over ``*.go``), test-harness names (``OLLAMA_TEST_*``) left out: the
server's settings (envconfig/config.go), its client's and its build's, a superset, so that no name a release reads is
reported. llama.cpp's table is written by tools/read_source_options.py ``--env`` through :func:`settings_text`.

A name's span is (first, last): the oldest and the newest release read whose sources name it (a gap between them is
read as named: generous). ``--check`` writes nothing and exits 1 unless the table is what the mirror gives.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAMES_TABLE = ROOT / "components" / "engine_env_names.json"


def _git(mirror: str, *args: str) -> str:
    done = subprocess.run(["git", "--git-dir", mirror, *args], check=True, capture_output=True)
    return done.stdout.decode("utf-8", "replace")


def _key(release: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", release))


def spans(present: dict[str, set[str]], releases: list[str]) -> dict[str, tuple[str, str]]:
    """{name: (first, last)} over ``releases`` (oldest first) of the names each release's set holds."""
    out: dict[str, tuple[str, str]] = {}
    for release in releases:
        for name in present.get(release, ()):
            first = out.get(name, (release, release))[0]
            out[name] = (first, release)
    return out


def settings_text(
    engine: str, prefix: str, releases: list[str], named: dict[str, tuple[str, str]], images: list[str], tag: str, source: str
) -> dict:
    """The ``settings.ENGINE`` row of components/engine_env_names.json."""
    names = {n: [f, la] for n, (f, la) in sorted(named.items())}
    return {"prefix": prefix, "images": images, "release_tag": tag, "releases": releases, "names": names, "source": source}


def write_row(table: str, engine: str, row: dict) -> None:
    """Replace (or add) the ``TABLE.ENGINE`` row of components/engine_env_names.json."""
    data = json.loads(NAMES_TABLE.read_text()) if NAMES_TABLE.exists() else {}
    data.setdefault(table, {})[engine] = row
    NAMES_TABLE.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


def same_row(table: str, engine: str, row: dict) -> bool:
    data = json.loads(NAMES_TABLE.read_text()) if NAMES_TABLE.exists() else {}
    return data.get(table, {}).get(engine) == row


def check_or_write(engine: str, row: dict, count: int, table: str = "settings") -> None:
    if "--check" in sys.argv:
        same = same_row(table, engine, row)
        print(f"engine_env_names.json {table}.{engine}: {'the same as' if same else 'differs from'} what the mirror gives")
        if not same:
            sys.exit(1)
        return
    write_row(table, engine, row)
    print(f"wrote {table}.{engine} of {NAMES_TABLE}: {count} names")


def ollama(mirror: str) -> tuple[str, int]:
    tags = sorted((t for t in _git(mirror, "tag").split() if re.fullmatch(r"v\d+\.\d+\.\d+", t)), key=_key)
    present: dict[str, set[str]] = {}
    for tag in tags:
        found = re.findall(r'"(OLLAMA_[A-Z0-9_]+)"', _git(mirror, "grep", "-ho", r'"OLLAMA_[A-Z0-9_]*"', tag, "--", "*.go"))
        present[tag[1:]] = {n for n in found if not n.startswith("OLLAMA_TEST_") and not n.endswith("_")}
    releases = [t[1:] for t in tags]
    newest = f"{tags[-1]} {_git(mirror, 'rev-parse', f'refs/tags/{tags[-1]}^{{commit}}').strip()}"
    source = (
        f"tools/read_engine_env.py ollama: ollama/ollama, every release tag {tags[0]} to {newest} ({len(tags)} tags, release "
        'candidates and CI tags left out): every quoted string "OLLAMA_..." of the Go sources at the tag (git grep -ho over '
        "*.go), test-harness names (OLLAMA_TEST_*) left out; first and last release naming each; the server's settings are "
        "envconfig/config.go (v0.32.15 L303 and L318 OLLAMA_GPU_OVERHEAD), OLLAMA_PORT only in v0.0.x (v0.0.1 cmd/cmd.go:161), "
        "no release has OLLAMA_GPU_MEMORY; image tags 0.5.4 and 0.5.4-rocm name the release (docs/docker.mdx)"
    )
    named = spans(present, releases)
    tag = r"v?(\d+\.\d+\.\d+)(?:-rocm)?"
    return settings_text("ollama", "OLLAMA_", releases, named, ["ollama/ollama"], tag, source), len(named)


def _release_tags(mirror: str) -> list[str]:
    return sorted((t for t in _git(mirror, "tag").split() if re.fullmatch(r"v\d+\.\d+\.\d+", t)), key=_key)


def _grep(mirror: str, pattern: str, tag: str, *paths: str) -> str:
    try:
        return _git(mirror, "grep", "-hoE", pattern, tag, "--", *paths)
    except subprocess.CalledProcessError:  # no match at the tag
        return ""


def localai_env(mirror: str) -> set[str]:
    """Every variable a LocalAI release's command line reads: kong's ``env:"LOCALAI_X,X"`` tags (v2.x on) and urfave/cli's
    ``EnvVars: []string{"X"}`` (v1.x), at every release tag."""
    names: set[str] = set()
    for tag in _release_tags(mirror):
        text = _grep(mirror, r'env:"[A-Z0-9_,]+"|EnvVars: *\[\]string\{[^}]*\}', tag, "*.go")
        for group in re.findall(r'env:"([A-Z0-9_,]+)"|EnvVars: *\[\]string\{([^}]*)\}', text):
            names |= set(re.findall(r"[A-Z][A-Z0-9_]+", group[0] or group[1]))
    return names


_QUOTED = r'"[A-Z][A-Z0-9_]{2,}"'
# engine -> (source paths whose quoted upper-case strings are the names it may read, tags read)
_JUDGED = {"ollama": ("*.go",), "llama-cpp": ("*.c", "*.cpp", "*.h", "*.hpp")}


def quoted(mirror: str, engine: str, tags: list[str]) -> set[str]:
    """Every quoted upper-case string of the engine's sources at the tags (a superset of the variables it reads)."""
    out: set[str] = set()
    for tag in tags:
        out |= {q.strip('"') for q in _grep(mirror, _QUOTED, tag, *_JUDGED[engine]).split()}
    return out


def foreign(localai: str, ollama_mirror: str, llama_mirror: str) -> dict[str, dict]:
    """The ``[foreign.ENGINE]`` tables: for Ollama and llama.cpp, the variables exactly one other engine of the tables
    reads (LocalAI's command line at every release, TGI's and TEI's clap env, Ollama's OLLAMA_ and llama.cpp's
    LLAMA_ARG_ names) that the engine's own sources never quote at any release read."""
    import tomllib

    env = tomllib.loads((ROOT / "components" / "engine_env.toml").read_text())
    env.update(json.loads(NAMES_TABLE.read_text()))
    readers: dict[str, set[str]] = {}
    sources = {"localai": localai_env(localai)}
    for engine in ("tgi", "tei", "llama-cpp"):
        sources[engine] = set(json.loads((ROOT / "components" / f"{engine.replace('-', '_')}_cli_flags.json").read_text())["env"])
    for engine, row in env["settings"].items():
        sources[engine] = sources.get(engine, set()) | set(row["names"])
    for engine, names in sources.items():
        for name in names:
            readers.setdefault(name, set()).add(engine)
    own_tags = {
        "ollama": _release_tags(ollama_mirror),
        "llama-cpp": [
            t.split()[0]
            for t in json.loads((ROOT / "components" / "llama_cpp_cli_flags.json").read_text())["provenance"]["tags"].values()
        ],
    }
    mirrors = {"ollama": ollama_mirror, "llama-cpp": llama_mirror}
    texts = {}
    for engine in _JUDGED:
        own = quoted(mirrors[engine], engine, own_tags[engine]) | sources.get(engine, set())
        own |= {n for row in env["tokens"].get(engine, {}).get("releases", {}).values() for n in row}
        prefix = env["settings"][engine]["prefix"]
        names = {
            n: sorted(r)[0]
            for n, r in readers.items()
            if len(r) == 1 and engine not in r and n not in own and not n.startswith(prefix)
        }
        tags = own_tags[engine]
        source = (
            f"tools/read_engine_env.py foreign: variables exactly one other engine reads (mudler/LocalAI kong env tags and "
            f"urfave/cli EnvVars at every release tag to v4.9.0; tgi/tei_cli_flags.json env; [settings] names) that "
            f"{engine}'s sources ({', '.join(_JUDGED[engine])}) never quote at {tags[0]} to {tags[-1]} ({len(tags)} tags), "
            "nor its [settings], [tokens] or option table names"
        )
        texts[engine] = {"names": dict(sorted(names.items())), "source": source}
    return texts


# vLLM (brief ollama51): every quoted 'VLLM_...' string of the wheel's Python files and every NUL-ended VLLM_... string
# of its shared objects, per release (a superset of envs.py's environment_variables, the names vLLM reads: vllm 0.34.0
# vllm/envs.py:662, and since the release that added it vllm/platforms/interface.py:1494-1502 validate_environ warns
# "Unknown vLLM environment variable detected" for any other VLLM_ name).
_VLLM_QUOTED = re.compile(rb"""["'](VLLM_[A-Z0-9_]*[A-Z0-9])["']""")
_VLLM_CSTRING = re.compile(rb"(?<![A-Za-z0-9_])(VLLM_[A-Z0-9_]*[A-Z0-9])\x00")


def vllm_scan(wheel: str) -> list[str]:
    """The VLLM_ names one vLLM wheel (pip download vllm==X --no-deps --only-binary :all:) names."""
    import zipfile

    names: set[str] = set()
    with zipfile.ZipFile(wheel) as z:
        for info in z.infolist():
            if info.filename.endswith(".py"):
                names |= {m.decode() for m in _VLLM_QUOTED.findall(z.read(info))}
            elif info.filename.endswith(".so"):
                names |= {m.decode() for m in _VLLM_CSTRING.findall(z.read(info))}
    return sorted(names)


def vllm(names_dir: str) -> tuple[dict, int]:
    """The ``settings.vllm`` row from the per-release name lists ``vllm-scan`` wrote into ``names_dir`` (RELEASE.json)."""
    present = {p.stem: set(json.loads(p.read_text())["names"]) for p in Path(names_dir).glob("*.json")}
    releases = sorted(present, key=_key)
    source = (
        f"tools/read_engine_env.py vllm: the PyPI wheels of vLLM {', '.join(releases)} ({len(releases)} releases; pip download "
        "vllm==X --no-deps --only-binary :all:, scanned one at a time by `vllm-scan`): every quoted 'VLLM_...' string of the "
        "Python files and every NUL-ended VLLM_ string of the shared objects, a superset of the names vLLM reads (0.34.0 "
        "vllm/envs.py:662 environment_variables; 0.11.0 vllm/envs.py:364; 0.34.0 vllm/platforms/interface.py:1494-1502 warns "
        "'Unknown vLLM environment variable detected' for any other VLLM_ name); first and last release naming each"
    )
    named = spans(present, releases)
    tag = r"v?(\d+\.\d+\.\d+)(?:\.post\d+)?(?:-[a-z0-9.]+)?"
    return settings_text("vllm", "VLLM_", releases, named, ["vllm/vllm-openai"], tag, source), len(named)


if __name__ == "__main__":
    engine = sys.argv[1]
    if engine == "vllm-scan":
        # python tools/read_engine_env.py vllm-scan WHEEL OUT_DIR  (writes OUT_DIR/RELEASE.json)
        release = Path(sys.argv[2]).name.split("-")[1]
        Path(sys.argv[3], f"{release}.json").write_text(json.dumps({"names": vllm_scan(sys.argv[2])}, indent=0) + "\n")
        sys.exit(0)
    if engine == "vllm":
        # python tools/read_engine_env.py vllm NAMES_DIR [--check]
        check_or_write("vllm", *vllm(sys.argv[2]))
        sys.exit(0)
    if engine == "foreign":
        # python tools/read_engine_env.py foreign LOCALAI_MIRROR OLLAMA_MIRROR LLAMA_CPP_MIRROR
        for judged, row in foreign(sys.argv[2], sys.argv[3], sys.argv[4]).items():
            check_or_write(judged, row, len(row["names"]), "foreign")
        sys.exit(0)
    mirror = sys.argv[2]
    if engine != "ollama":
        sys.exit(f"{engine}: llama-cpp is written by tools/read_source_options.py --env; only ollama and foreign here")
    check_or_write(engine, *ollama(mirror))
