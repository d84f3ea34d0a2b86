"""Policies on vLLM engine settings, and the parser that reads them from pod specs."""
