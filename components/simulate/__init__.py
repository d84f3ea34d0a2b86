"""Discrete-event simulation of a planned stack under a traffic profile (`python -m stacks simulate`).

The traffic profile and the requests drawn from it are components/traffic/ (the capacity plan reads
them too). Here: roofline.py (step time of one engine step), engine.py (one replica's vLLM scheduler),
settings.py (what runs, read from the capacity plan and the rendered manifests), cluster.py
(routing, metrics, HPA/KEDA, Karpenter, timeouts and drains), run.py (a run and its summary),
plot.py (the PNGs). docs/simulate.md documents the profile and the JSON.
"""
