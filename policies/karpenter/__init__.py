"""Karpenter GPU NodePool policies (S11-S14) and the pool-fit check; helpers in nodepool.py."""
