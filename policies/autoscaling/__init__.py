"""Policies on how LLM workloads scale: replica floors, scaling signals."""
