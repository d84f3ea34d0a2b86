"""tools/form_transforms.py rewrites only where they are the same objects (review 45 #12): no ``--k=v`` -> ``--k v``
for a value Go's strconv.ParseBool reads nor in a llama.cpp container (common/arg.cpp looks the whole word up), and no
file split, merge or List wrap in a folder whose kustomization or Helm chart names its files."""

from __future__ import annotations

import importlib.util
import sys

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
_spec = importlib.util.spec_from_file_location("form_transforms", ROOT / "tools" / "form_transforms.py")
assert _spec and _spec.loader
ft = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("form_transforms", ft)
_spec.loader.exec_module(ft)


def _deployment(image: str, args: list[str]) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "x"},
        "spec": {"template": {"spec": {"containers": [{"name": "x", "image": image, "args": args}]}}},
    }


def test_flag_space_keeps_llama_cpp_and_bool_words():
    llama = ft.Folder({"d.yaml": [_deployment("ghcr.io/ggml-org/llama.cpp:server", ["--ctx-size=4096"])]}, {})
    assert ft.flag_space(llama) is None
    flags = ft.Folder({"d.yaml": [_deployment("ghcr.io/acme/server:1", ["--enable-x=1", "--verbose=t"])]}, {})
    assert ft.flag_space(flags) is None
    # The careful form still rewrites: an argparse engine's option with a value.
    vllm = ft.Folder({"d.yaml": [_deployment("vllm/vllm-openai:v0.10.1", ["--max-model-len=4096"])]}, {})
    out = ft.flag_space(vllm)
    assert out is not None and out.docs["d.yaml"][0]["spec"]["template"]["spec"]["containers"][0]["args"] == [
        "--max-model-len",
        "4096",
    ]


def test_file_rewrites_skip_folders_a_kustomization_or_chart_lists():
    two = [_deployment("a:1", []), _deployment("b:1", [])]
    for marker in ("kustomization.yaml", "Chart.yaml"):
        folder = ft.Folder({"base/all.yaml": two, "base/other.yaml": [two[0]], f"base/{marker}": None}, {})
        assert ft.split_files(folder) is None and ft.merge_folder(folder) is None and ft.list_wrap(folder) is None
    plain = ft.Folder({"base/all.yaml": two, "base/other.yaml": [two[0]]}, {})
    assert ft.split_files(plain) and ft.merge_folder(plain) and ft.list_wrap(plain)
