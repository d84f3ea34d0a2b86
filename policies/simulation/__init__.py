"""Plan-time policies over simulation results (`python -m stacks plan` with a model's slo.traffic)."""
