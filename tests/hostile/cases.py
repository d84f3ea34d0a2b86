"""Hand-made hostile inputs, one per class of issue 6, shared by the regression test and the fuzz suite.

Stack files are the dev stack (stacks/Pulumi.dev.yaml) written as flow YAML (JSON is YAML) with
one value replaced by a raw YAML snippet, so each case differs from a valid stack in one place.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

import yaml

from tests.hostile.sandbox import HF_TOKEN, ROOT, TOKENS

DEV = yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())["config"]
HOLE = "@@hole@@"


def billion_laughs(levels: int = 9, fan: int = 9) -> str:
    """Anchor chain whose last alias expands to ``fan ** levels`` scalars (flow YAML, ~1 KB)."""
    lines = ["&a0 [" + ", ".join(['"lol"'] * fan) + "]"]
    for i in range(1, levels + 1):
        lines.append(f"&a{i} [" + ", ".join([f"*a{i - 1}"] * fan) + "]")
    return "[" + ", ".join(lines) + "]"


def deep(levels: int) -> str:
    """``levels`` nested flow sequences."""
    return "[" * levels + "1" + "]" * levels


def stack_text(path: tuple = (), snippet: str = "", config: Optional[dict] = None, extra: str = "") -> str:
    """The dev stack as flow YAML with the value at ``path`` (keys of ``config:``) replaced by ``snippet``."""
    cfg = copy.deepcopy(config if config is not None else DEV)
    if path:
        node = cfg
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = HOLE
    text = json.dumps(cfg, indent=1)
    if path:
        text = text.replace(json.dumps(HOLE), snippet, 1)
    return "config: " + text + "\n" + extra


MODEL0 = ("llm-serving:models", 0)
ARCH = {"configPath": "config.json", "weightsGib": 15}
LLAMA_CONFIG = {
    "num_hidden_layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
    "max_position_embeddings": 131072,
    "torch_dtype": "bfloat16",
}


def with_architecture(config_json: str) -> dict[str, str]:
    """A stack whose model reads ``config.json`` (given as text) beside the stack file."""
    cfg = copy.deepcopy(DEV)
    cfg["llm-serving:models"][0]["model"] = "acme/custom-8b"
    cfg["llm-serving:models"][0]["architecture"] = ARCH
    return {"Pulumi.case.yaml": stack_text(config=cfg), "config.json": config_json}


DEPLOYMENT_GPU = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: vllm}}
spec:
  selector: {{matchLabels: {{app: vllm}}}}
  template:
    metadata: {{labels: {{app: vllm}}}}
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        command: [vllm, serve]
        args: {args}
        resources: {{limits: {{nvidia.com/gpu: {gpu}}}}}
"""


def deployment(gpu: str = "1", args: str = "[meta-llama/Llama-3.1-8B-Instruct]") -> str:
    """A vLLM Deployment with the given GPU limit and args (YAML text)."""
    return DEPLOYMENT_GPU.format(gpu=gpu, args=args)


def shell_deployment(script: str) -> str:
    """A vLLM Deployment started by ``sh -c SCRIPT`` (YAML text; the script JSON-quoted)."""
    return DEPLOYMENT_GPU.format(gpu="1", args="[]").replace(
        "command: [vllm, serve]", "command: [/bin/sh, -c, %s]" % json.dumps(script)
    )


def url_value_deployment(value: str) -> str:
    """A Service and a Deployment whose one env value is ``value`` (YAML text), so G63 reads it."""
    return (
        "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {ports: [{port: 80}]}\n---\n"
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n      containers:\n"
        "      - name: c\n        image: nginx:1.27\n        env:\n        - name: X\n          value: %s\n" % json.dumps(value)
    )


@dataclass
class Case:
    """One hostile input: the files, the command (``{dir}`` is the case's folder) and what must happen."""

    id: str
    command: list[str]
    files: dict[str, Any] = field(default_factory=dict)
    stdin: Optional[bytes] = None
    allowed: tuple[int, ...] = (2,)
    stderr_has: str = ""
    stdout_has: str = ""
    prepare: Optional[Callable[[Path], None]] = None

    def write(self, folder: Path) -> list[str]:
        """Write the files into ``folder``; the command with ``{dir}`` filled in."""
        for name, content in self.files.items():
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content)
        if self.prepare:
            self.prepare(folder)
        return [part.replace("{dir}", str(folder)) for part in self.command]


PLAN = ["-m", "stacks", "plan", "{dir}/Pulumi.case.yaml", "--out", "{dir}/out"]
CHECK = ["-m", "policies", "check", "{dir}/m"]


def _sparse(name: str, size: int) -> Callable[[Path], None]:
    def make(folder: Path) -> None:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as handle:
            handle.truncate(size)

    return make


def _fifo(name: str) -> Callable[[Path], None]:
    def make(folder: Path) -> None:
        import os

        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(path)

    return make


STACK_CASES = [
    # YAML alias expansion.
    Case(
        "stack-billion-laughs",
        PLAN,
        {"Pulumi.case.yaml": stack_text((*MODEL0, "engine", "extraArgs"), billion_laughs())},
        stderr_has="expands to more than 50,000 YAML nodes (the limit for a stack file; aliases count)",
    ),
    Case(
        "stack-alias-fan-out-into-a-bad-field",
        PLAN,
        {"Pulumi.case.yaml": stack_text((*MODEL0, "name"), billion_laughs(3, 9))},
        stderr_has="models[0].name = [[",
    ),
    # Deep nesting.
    Case(
        "stack-deep-flow",
        PLAN,
        {"Pulumi.case.yaml": stack_text((*MODEL0, "engine"), deep(5000))},
        stderr_has="nested deeper than 32 levels (the limit for a stack file)",
    ),
    Case(
        "stack-deep-block",
        PLAN,
        {"Pulumi.case.yaml": "config:\n" + "".join(" " * i + f"k{i}:\n" for i in range(1, 1100)) + " " * 1100 + "x: 1\n"},
        stderr_has="nested deeper than 32 levels",
    ),
    Case(
        "config-json-deep",
        PLAN,
        with_architecture("[" * 3000 + "]" * 3000),
        stderr_has="models[0].architecture.configPath = 'config.json': line 1: nested deeper than 64 levels",
    ),
    # Odd keys.
    Case(
        "stack-unhashable-key",
        PLAN,
        {"Pulumi.case.yaml": "config:\n  ? [a]\n  : 1\n"},
        stderr_has="a mapping key is a list or a mapping; keys must be strings",
    ),
    Case(
        "stack-mixed-keys",
        PLAN,
        {"Pulumi.case.yaml": stack_text(extra="").replace("config: {", "config: {1: x, ", 1)},
        stderr_has="the mapping key '1' is an int, not a string; quote it",
    ),
    Case(
        "stack-duplicate-key",
        PLAN,
        {"Pulumi.case.yaml": "config:\n  aws:region: us-west-2\n  aws:region: us-east-1\n"},
        stderr_has="repeats the key 'aws:region'",
    ),
    Case("stack-recursive-alias", PLAN, {"Pulumi.case.yaml": "config: &c {a: *c}\n"}, stderr_has="a recursive structure"),
    Case(
        "stack-two-documents",
        PLAN,
        {"Pulumi.case.yaml": "config: {}\n---\nconfig: {}\n"},
        stderr_has="holds more than 1 YAML document",
    ),
    Case(
        "stack-python-tag",
        PLAN,
        {"Pulumi.case.yaml": "config: !!python/object/apply:os.system [id]\n"},
        stderr_has="is not supported",
    ),
    # Numbers out of range.
    Case(
        "stack-400-digit-int",
        PLAN,
        {"Pulumi.case.yaml": stack_text(("llm-serving:gpuPools", 0, "gpuLimit"), "9" * 400)},
        stderr_has="gpuPools[0].gpuLimit = <integer of",
    ),
    Case(
        "stack-5000-digit-int",
        PLAN,
        {"Pulumi.case.yaml": stack_text(("llm-serving:gpuPools", 0, "gpuLimit"), "9" * 5000)},
        stderr_has="cannot be read as an int",
    ),
    Case(
        "stack-inf-utilization",
        PLAN,
        {"Pulumi.case.yaml": stack_text((*MODEL0, "engine", "gpuMemoryUtilization"), "1.0e+400")},
        stderr_has="models[0].engine.gpuMemoryUtilization = inf",
    ),
    Case(
        "stack-nan-utilization",
        PLAN,
        {"Pulumi.case.yaml": stack_text((*MODEL0, "engine", "gpuMemoryUtilization"), ".nan")},
        stderr_has="models[0].engine.gpuMemoryUtilization = nan",
    ),
    Case(
        "config-json-nan",
        PLAN,
        with_architecture(json.dumps(LLAMA_CONFIG).replace("4096", "NaN")),
        stderr_has="hidden_size = nan: not a finite number",
    ),
    Case(
        "config-json-infinity",
        PLAN,
        with_architecture(
            json.dumps({**LLAMA_CONFIG, "rope_scaling": {"rope_type": "yarn", "factor": 1}}).replace(
                '"factor": 1', '"factor": 1e400'
            )
        ),
        stderr_has="rope_scaling.factor = inf: not a finite number",
    ),
    Case(
        "config-json-hidden-below-heads",
        PLAN,
        with_architecture(json.dumps({**LLAMA_CONFIG, "hidden_size": 16})),
        stderr_has="hidden_size = 16 is smaller than num_attention_heads = 32",
    ),
    # Trailing newlines (a quoted "\n" in flow YAML). Every validated string has its own in-process
    # test (tests/config/test_hostile_config.py); these run the whole command line.
    *[
        Case(
            f"stack-newline-{shown}",
            PLAN,
            {"Pulumi.case.yaml": stack_text(path, json.dumps(value + "\n"))},
            stderr_has=f"{shown} = ",
        )
        for path, value, shown in [
            ((*MODEL0, "name"), "chat-8b", "models[0].name"),
            ((*MODEL0, "image"), "vllm/vllm-openai:v0.33.0", "models[0].image"),
            (("llm-serving:ingress", "host"), "llm.dev.example.com", "ingress.host"),
        ]
    ],
    # Literal tokens outside the secret.
    Case(
        "stack-token-bare-extra-arg",
        PLAN,
        {"Pulumi.case.yaml": stack_text((*MODEL0, "engine", "extraArgs"), json.dumps([HF_TOKEN]))},
        stderr_has="models[0].engine.extraArgs[0]: holds what looks like a Hugging Face token (hf_...[redacted])",
    ),
    Case(
        "stack-token-flag-extra-arg",
        PLAN,
        {"Pulumi.case.yaml": stack_text((*MODEL0, "engine", "extraArgs"), json.dumps([f"--chat-template={HF_TOKEN}"]))},
        stderr_has="models[0].engine.extraArgs[0]: holds what looks like a Hugging Face token",
    ),
    *[
        Case(
            f"stack-token-in-{shown}-{token[:4]}",
            PLAN,
            {"Pulumi.case.yaml": stack_text(path, json.dumps(template.format(token)))},
            stderr_has=f"{shown}: holds what looks like",
        )
        for token, (path, template, shown) in zip(
            TOKENS[1:],
            [
                ((*MODEL0, "model"), "acme/{}", "models[0].model"),
                ((*MODEL0, "name"), "{}", "models[0].name"),
                (("llm-serving:cluster", "name"), "{}", "cluster.name"),
                (("aws:accessKey",), "{}", "aws:accessKey"),
            ],
        )
    ],
    # Paths.
    Case(
        "stack-named-dot-dot",
        ["-m", "stacks", "plan", "{dir}/Pulumi....yaml"],
        {"Pulumi....yaml": stack_text()},
        stderr_has="the stack name must be 1-100 letters",
    ),
    # Size: a 50 MB stack file (sparse: nothing is read).
    Case(
        "stack-50-mb",
        PLAN,
        prepare=_sparse("Pulumi.case.yaml", 50 << 20),
        stderr_has="is larger than 1 MiB (the limit for a stack file)",
    ),
]

CHECK_CASES = [
    Case(
        "manifest-billion-laughs",
        CHECK,
        {"m/a.yaml": "apiVersion: v1\nkind: ConfigMap\ndata: " + billion_laughs() + "\n"},
        stderr_has="expands to more than 1,000,000 YAML nodes",
    ),
    Case(
        "manifest-deep",
        CHECK,
        {"m/a.yaml": "apiVersion: v1\nkind: Pod\nspec: " + deep(100_000) + "\n"},
        stderr_has="nested deeper than 100 levels",
    ),
    Case(
        "manifest-deep-json",
        CHECK,
        {"m/a.json": '{"apiVersion": "v1", "kind": "Pod", "spec": ' + deep(5000) + "}"},
        stderr_has="nested deeper than 100 levels",
    ),
    Case(
        "manifest-unhashable-key",
        CHECK,
        {"m/a.yaml": "apiVersion: v1\nkind: Pod\n? [a]\n: 1\n"},
        stderr_has="keys must be strings",
    ),
    Case("manifest-mixed-keys", CHECK, {"m/a.yaml": "apiVersion: v1\nkind: Pod\n1: a\n"}, stderr_has="is an int, not a string"),
    Case("manifest-gpu-1e400", CHECK, {"m/a.yaml": deployment(gpu='"1e400"')}, allowed=(0, 1)),
    Case("manifest-gpu-float-inf", CHECK, {"m/a.yaml": deployment(gpu="1.0e+400")}, allowed=(0, 1)),
    Case("manifest-gpu-400-digits", CHECK, {"m/a.yaml": deployment(gpu="9" * 400)}, allowed=(0, 1)),
    Case("manifest-gpu-huge-exponent", CHECK, {"m/a.yaml": deployment(gpu='"1e999999999"')}, allowed=(0, 1)),
    Case(
        "manifest-nested-list",
        CHECK,
        {
            "m/a.yaml": "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items:\n  - "
            + deployment().replace("\n", "\n    ").rstrip()
            + "\n"
        },
        allowed=(1,),
        stdout_has="a.yaml#0[0][0] Deployment/vllm",
    ),
    Case(
        "manifest-typed-list",
        CHECK,
        {
            "m/a.yaml": "apiVersion: apps/v1\nkind: DeploymentList\nitems:\n- "
            + "\n".join(deployment().splitlines()[2:]).replace("\n", "\n  ")
            + "\n"
        },
        allowed=(1,),
        stdout_has="a.yaml#0[0] Deployment/vllm",
    ),
    Case(
        "manifest-token-in-args",
        CHECK,
        {"m/a.yaml": deployment(args=f"[m, '{HF_TOKEN}', '--hf-token={TOKENS[3]}']")},
        allowed=(1,),
        stdout_has="args[1] holds what looks like a Hugging Face token (hf_...[redacted])",
    ),
    Case(
        "manifest-token-in-command",
        CHECK,
        {"m/a.yaml": deployment().replace("command: [vllm, serve]", f"command: [sh, -c, 'AWS={TOKENS[1]} vllm serve']")},
        allowed=(1,),
        stdout_has="command[2] holds what looks like an AWS access key id (AKIA...[redacted])",
    ),
    Case(
        "manifest-token-in-configmap",
        CHECK,
        {"m/a.yaml": f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c}}\ndata: {{settings: 'token={TOKENS[2]}'}}\n"},
        allowed=(1,),
        stdout_has="ConfigMap data settings holds what looks like a GitHub token",
    ),
    Case(
        "manifest-token-as-name",
        CHECK,
        {"m/a.yaml": deployment().replace("{name: vllm}", f"{{name: '{TOKENS[4]}'}}").replace("v0.10.1", "latest")},
        allowed=(1,),
        stdout_has="Deployment/xoxb-...[redacted]",
    ),
    Case(
        "manifest-newline-in-name",
        CHECK,
        {"m/a.yaml": deployment().replace("{name: vllm}", '{name: "x\\n::error::forged"}').replace("v0.10.1", "latest")},
        allowed=(1,),
        stdout_has="Deployment/x\\n::error::forged",
    ),
    Case(
        "manifest-10-mb-image",
        CHECK,
        {"m/a.yaml": deployment().replace("vllm/vllm-openai:v0.10.1", "x" * 10_000_000)},
        allowed=(1,),
        stdout_has="image-tag-pinned",
    ),
    Case(
        "manifest-deep-json-annotation",
        CHECK,
        {
            "m/a.yaml": deployment().replace(
                "metadata: {name: vllm}",
                "metadata: {name: vllm, annotations: {llm-serving.io/capacity-plan: '" + deep(100_000) + "'}}",
            )
        },
        allowed=(0, 1),
    ),
    Case(
        "manifest-latin1",
        CHECK,
        {"m/a.yaml": b"apiVersion: v1\nkind: Pod\nmetadata: {name: \xe9}\n"},
        stderr_has="is not UTF-8 text",
    ),
    Case("manifest-fifo", CHECK, prepare=_fifo("m/pipe.yaml"), stderr_has="pipe.yaml: is not a regular file"),
    Case("manifest-50-mb", CHECK, prepare=_sparse("m/big.yaml", 50 << 20), stderr_has="is larger than 16 MiB"),
    Case(
        "manifest-many-documents", CHECK, {"m/a.yaml": "a: 1\n---\n" * 10_001}, stderr_has="holds more than 10,000 YAML documents"
    ),
    Case(
        "manifest-stdin-bomb",
        ["-m", "policies", "check", "-"],
        stdin=("data: " + billion_laughs() + "\n").encode(),
        stderr_has="<stdin>: line 1: expands to more than",
    ),
    Case(
        "policy-config-nan",
        ["-m", "policies", "check", "{dir}/m", "--config", "{dir}/cfg.json"],
        {"m/a.yaml": deployment(), "cfg.json": '{"vllm-gpu-memory-utilization-bounds": {"max": NaN}}'},
        stderr_has="cannot be read as JSON (vllm-gpu-memory-utilization-bounds.max = nan: not a finite number",
    ),
    Case("manifest-missing", ["-m", "policies", "check", "{dir}/nothing-here"], stderr_has="no such file or folder"),
    # Cold review 29, finding 2: 24 KB of unclosed `${` cost 12.6 s of CPU (quadratic); 256 KB must end in the cap.
    Case(
        "manifest-shell-unclosed-expansions",
        CHECK,
        {"m/a.yaml": shell_deployment("vllm serve m " + "${" * 131_072)},
        allowed=(0, 1),
    ),
    Case(
        "manifest-unclosed-download-calls",
        CHECK,
        {"m/a.yaml": shell_deployment("python -c 'from huggingface_hub import hf_hub_download; " + "hf_hub_download(" * 16_384)},
        allowed=(0, 1),
    ),
    # Cold review 43, item 6: G63's URL scheme pattern ran to the end of every `a.a.a...` stretch at each word boundary
    # (quadratic: a 40 KB env value cost 13 s, 400 KB did not end in 90 s); with one Service in the run it must end
    # in the cap. Generated shapes of /tmp/review43/hostile/h4.yaml and h3.yaml, plus a value dense with "://".
    *(
        Case(f"manifest-url-scheme-run-{size}", CHECK, {"m/a.yaml": url_value_deployment(value)}, allowed=(0, 1))
        for size, value in (
            ("40k", "a." * 20_000),
            ("400k", "a." * 200_000),
            ("dense-scheme-marks", "http://a.b" * 40_000),
            ("long-host", "http://" + "a-" * 200_000),
        )
    ),
]

SIZE = ["-m", "stacks", "size", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L40S"]
SIZE_CASES = [
    Case("size-400-digit-max-model-len", [*SIZE, "--max-model-len", "9" * 400], stderr_has="--max-model-len"),
    Case("size-400-digit-tp", [*SIZE, "--tensor-parallel-size", "9" * 400], stderr_has="--tensor-parallel-size"),
    Case("size-nan-utilization", [*SIZE, "--gpu-memory-utilization", "nan"], stderr_has="--gpu-memory-utilization"),
    Case("size-inf-gpu-memory", [*SIZE, "--gpu-memory-gib", "1e400"], stderr_has="--gpu-memory-gib"),
    Case(
        "size-config-json-nan",
        ["-m", "stacks", "size", "--model-config", "{dir}/config.json", "--weights-gib", "15", "--gpu", "H100"],
        {"config.json": json.dumps(LLAMA_CONFIG).replace("4096", "NaN")},
        stderr_has="hidden_size = nan: not a finite number",
    ),
    Case(
        "size-config-json-hidden-below-heads",
        ["-m", "stacks", "size", "--model-config", "{dir}/config.json", "--weights-gib", "15", "--gpu", "H100"],
        {"config.json": json.dumps({**LLAMA_CONFIG, "hidden_size": 16})},
        stderr_has="is smaller than num_attention_heads",
    ),
]
