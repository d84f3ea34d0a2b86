"""Discrete-event simulation of a planned stack under a traffic profile (`python -m stacks simulate`).

profile.py (the traffic profile and its JSON Schema), workload.py (requests from a profile),
roofline.py (step time of one engine step), engine.py (one replica's vLLM scheduler),
settings.py (what runs, read from the capacity plan and the rendered manifests), cluster.py
(routing, metrics, HPA/KEDA, Karpenter, timeouts and drains), run.py (a run and its summary),
plot.py (the PNGs). docs/simulate.md documents the profile and the JSON.
"""
