"""Policies over the timeout chain: S9 (ordered chain, keep-alive inversion, default route timeouts) and S10 (drain)."""
