"""Policies on GPU pods against their pools: S15 (tolerate and target), S19 (ephemeral storage), S20 (rollout surge)."""
