"""Policies on the edge: who can reach the serving path from outside the cluster."""
