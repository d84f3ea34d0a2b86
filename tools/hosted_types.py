"""Write components/hosted/types.py: the config models (components/config/) as the TypedDicts and
Enums Pulumi's component analyzer reads, so the package schema is generated from the one source.

    python tools/hosted_types.py            # rewrite components/hosted/types.py
    python tools/hosted_types.py --check    # exit 1 if it is not current (tests/components/test_hosted.py runs this)

Pulumi's analyzer (pulumi/provider/experimental/analyzer.py in the installed SDK) takes a property's
type from its annotation (str, int, float, bool, list, dict[str, T], Enum, a class, NotRequired[T])
and its description from the string literal after it (``Analyzer.get_docstring`` parses the
class's source), so the generated file holds real classes with a docstring after every field: each
field's pydantic description. Literal choices become Enums, also inside lists and maps (whose items
the SDK's provider would map to {}: components/hosted/provider.py maps them); unions other than Optional are refused
by the analyzer, and none exist here. Property names are the models' field names, which the analyzer
camel-cases the way pydantic's ``to_camel`` makes the aliases a stack file uses (checked below).
"""

from __future__ import annotations

import argparse
import enum
import json
import re
import sys
import typing
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pydantic import BaseModel  # noqa: E402

from components.config.stack import StackConfig  # noqa: E402

OUT = ROOT / "components" / "hosted" / "types.py"
# StackConfig fields another language sets: the stack file's llm-serving keys and aws:region. The
# secrets' flags come from the component's hfToken/apiKey inputs; the AWS identity from its provider.
HOSTED_STACK_FIELDS = (
    "region",
    "cluster",
    "namespace",
    "gpu_pools",
    "models",
    "ingress",
    "environment",
    "karpenter",
    "addons",
    "monitoring",
    "kuberay",
)


def _camel(name: str) -> str:
    """The analyzer's camel_case (pulumi/provider/experimental/util.py): split on "_", upper-case each next word's first letter."""
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def _pascal(name: str) -> str:
    return "".join(w[:1].upper() + w[1:] for w in re.split(r"[_\-]", name))


def _doc(text: str) -> str:
    """A string literal for a docstring: one line per sentence group, no triple quotes inside."""
    text = " ".join((text or "").split()).replace("\\", "\\\\").replace('"""', "'''")
    if text.endswith('"'):
        text += " "
    return f'"""{text}"""'


class Generator:
    """Walks StackConfig's models depth-first and emits each class after the ones it uses."""

    def __init__(self) -> None:
        self.blocks: list[str] = []
        self.done: set[str] = set()

    def enum_for(self, owner: str, field: str, values: tuple) -> str:
        name = f"{owner}{_pascal(field)}"
        if name in self.done:
            return name
        if not all(isinstance(v, str) for v in values):
            raise SystemExit(f"{owner}.{field}: only string choices become enums here, got {values!r}")
        lines = [f"class {name}(str, Enum):", f"    {_doc(f'The choices of {owner}.{_camel(field)}.')}", ""]
        for value in values:
            member = re.sub(r"\W", "_", value).upper() or "EMPTY"
            if member[0].isdigit():
                member = "V_" + member
            # Every member needs a description: the SDK writes a missing one as null, which the
            # package metaschema refuses (enum items' description must be a string).
            lines += [f"    {member} = {json.dumps(value)}", f"    {_doc(f'{owner}.{_camel(field)} = {value}')}"]
        self.blocks.append("\n".join(lines))
        self.done.add(name)
        return name

    def annotation(self, tp: typing.Any, owner: str, field: str) -> str:
        origin = typing.get_origin(tp)
        if origin is typing.Annotated:
            return self.annotation(typing.get_args(tp)[0], owner, field)
        if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
            args = [a for a in typing.get_args(tp) if a is not type(None)]
            if len(args) != 1:
                raise SystemExit(f"{owner}.{field}: a union of {args!r}; the analyzer refuses unions")
            return self.annotation(args[0], owner, field)
        if origin is typing.Literal:
            return self.enum_for(owner, field, typing.get_args(tp))
        if origin in (tuple, list):
            items = [a for a in typing.get_args(tp) if a is not Ellipsis]
            if len(set(map(repr, items))) != 1:
                raise SystemExit(f"{owner}.{field}: a fixed-shape tuple {tp!r} has no schema equivalent")
            return f"list[{self.annotation(items[0], owner, field)}]"
        if origin is dict:
            key, value = typing.get_args(tp)
            while typing.get_origin(key) is typing.Annotated:
                key = typing.get_args(key)[0]
            if key is not str:
                raise SystemExit(f"{owner}.{field}: map keys must be strings")
            return f"dict[str, {self.annotation(value, owner, field)}]"
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            return self.model(tp)
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return self.enum_for(owner, field, tuple(m.value for m in tp))
        if tp in (str, int, float, bool):
            return tp.__name__
        raise SystemExit(f"{owner}.{field}: no schema type for {tp!r}")

    def model(self, model: type[BaseModel], only: tuple[str, ...] = ()) -> str:
        name = model.__name__
        if name in self.done:
            return name
        self.done.add(name)
        lines = [f"class {name}(TypedDict):", f"    {_doc((model.__doc__ or name).strip().split(chr(10) + chr(10))[0])}", ""]
        for field, info in model.model_fields.items():
            if only and field not in only:
                continue
            if info.alias and info.alias != _camel(field):
                raise SystemExit(f"{name}.{field}: alias {info.alias!r} is not the analyzer's camel case {_camel(field)!r}")
            tp = self.annotation(info.annotation, name, field)
            if not info.is_required():
                tp = f"NotRequired[{tp}]"
            lines += [f"    {field}: {tp}", f"    {_doc(info.description or '')}"]
        self.blocks.append("\n".join(lines))
        return name


def render() -> str:
    """The text of components/hosted/types.py."""
    gen = Generator()
    gen.model(StackConfig, HOSTED_STACK_FIELDS)
    header = (
        '"""The config models of components/config/ as TypedDicts and Enums for Pulumi\'s component analyzer.\n\n'
        "Generated by tools/hosted_types.py from the pydantic models: do not edit (a test regenerates it).\n"
        "Values of these shapes are converted back and validated by the same models (components/hosted/convert.py).\n"
        '"""\n\n'
        "# ruff: noqa: E501\n"
        "from enum import Enum\n"
        "from typing import NotRequired, TypedDict\n"
    )
    return header + "\n\n" + "\n\n\n".join(gen.blocks) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when components/hosted/types.py is not current")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT.relative_to(ROOT)} is not current: run python tools/hosted_types.py", file=sys.stderr)
            return 1
        return 0
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text)
    print(f"wrote {OUT.relative_to(ROOT)} ({text.count('class ')} classes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
