"""How three CEL libraries from PyPI fare on the rules of our pinned CRDs (why requirements.txt has cel-expr-python).

    pip install --target /tmp/cel/cel-python cel-python
    pip install --target /tmp/cel/common-expression-language common-expression-language
    pip install --target /tmp/cel/cel-expr-python cel-expr-python
    for lib in cel-python common-expression-language cel-expr-python; do
        PYTHONPATH=/tmp/cel/$lib python tools/cel_library_survey.py $lib
    done

For one library: how many of the unique create-time rules of policies/crd/cel_rules.json it compiles as
shipped (no Kubernetes extension added), then one probe per function or macro the rules use (``has``,
``all``/``exists``/``exists_one``/``filter``, ``matches``, string functions, ``duration``, ``int``, and the
Kubernetes additions ``find`` and ``split``), and the time of 1,000 evaluations of a NodePool requirements
rule. Measured on 2026-12-05 (cel-python 0.5.0, common-expression-language 0.10.0, cel-expr-python 0.1.3):
139/139, 139/139 and 129/139 rules compiled; ``find`` missing in all three, ``split`` missing in
cel-python and common-expression-language; the 1,000 evaluations took 1,000-3,200 ms, 32-79 ms and 6-11 ms
respectively (several runs on the shared 2-core machine).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any, Callable

DATA = Path(__file__).resolve().parent.parent / "policies" / "crd" / "cel_rules.json"
PROBES = {
    "has": ("has(self.a) && !has(self.b)", {"a": 1}),
    "size": ("size(self.l) == 2 && self.l.size() == 2", {"l": [1, 2]}),
    "all": ("self.l.all(x, x > 0) && self.m.all(k, k != '')", {"l": [1], "m": {"a": "b"}}),
    "exists": ("self.l.exists(x, x == 1)", {"l": [1]}),
    "exists_one": ("self.l.exists_one(x, x == 1)", {"l": [1, 2]}),
    "filter": ("self.l.filter(x, x > 1).size() == 1", {"l": [1, 2]}),
    "in": ("'a' in self.m && 1 in self.l", {"m": {"a": 1}, "l": [1]}),
    "matches": ("self.s.matches('^[a-z]+@.+$')", {"s": "al@x"}),
    "contains/startsWith/endsWith": ("self.s.contains('@') && self.s.startsWith('a') && self.s.endsWith('b')", {"s": "a@b"}),
    "duration": ("duration(self.s) >= duration('1ms')", {"s": "5s"}),
    "int(string)": ("int(self.s) >= 0", {"s": "3"}),
    "find (Kubernetes regex library)": ("self.s.find('^([^/]+)') == 'karpenter.sh'", {"s": "karpenter.sh/x"}),
    "split (strings extension)": ("self.s.split('@')[0] == 'al2023'", {"s": "al2023@latest"}),
}


def _library(name: str) -> tuple[Callable[[str], Any], Callable[[Any, Any], Any]]:
    if name == "cel-python":
        import celpy

        env = celpy.Environment()
        return (lambda e: env.program(env.compile(e))), (lambda p, s: p.evaluate({"self": celpy.json_to_cel(s)}))
    if name == "common-expression-language":
        import cel

        return cel.compile, (lambda p, s: p.execute({"self": s}))
    from cel_expr_python import cel as cxp
    from cel_expr_python.ext import ext_strings

    env = cxp.NewEnv(variables={"self": cxp.Type.DYN}, extensions=[ext_strings.ExtStrings()])

    def run(program: Any, value: Any) -> Any:
        result = program.eval(data={"self": value})
        if result.type() == cxp.Type.ERROR:
            raise RuntimeError(result.value())
        return result.value()

    return env.compile, run


def main(name: str) -> None:
    """Print the survey of one library (see the module docstring)."""
    compile_, run = _library(name)
    data = json.loads(DATA.read_text(encoding="utf-8"))
    rules = sorted(
        {r["rule"] for crd in data["crds"] for rs in crd["versions"].values() for r in rs if "oldSelf" not in r["rule"]}
    )
    failed = []
    for rule in rules:
        try:
            compile_(rule)
        except Exception as exc:  # each library raises its own error type
            failed.append(f"{rule[:70]}: {str(exc).splitlines()[0][:90]}")
    print(f"{name}: compiled {len(rules) - len(failed)}/{len(rules)} create-time rules as shipped")
    for line in failed:
        print(f"  cannot compile: {line}")
    for probe, (expr, value) in PROBES.items():
        try:
            result = "ok" if run(compile_(expr), value) == True else "wrong result"  # noqa: E712 (celpy's BoolType)
        except Exception as exc:  # each library raises its own error type
            result = f"error: {str(exc).splitlines()[0][:100]}"
        print(f"  {probe:32} {result}")
    program = compile_("self.l.all(x, x.operator == 'In' ? x.values.size() != 0 : true)")
    value = {"l": [{"operator": "In", "values": ["a", "b"]}] * 5}
    start = time.perf_counter()
    for _ in range(1000):
        run(program, value)
    print(f"  1,000 evaluations: {(time.perf_counter() - start) * 1000:.0f} ms")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "cel-expr-python")
