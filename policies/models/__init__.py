"""Policies on where model weights and model code come from."""
