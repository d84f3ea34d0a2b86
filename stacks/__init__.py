"""Stack files (Pulumi.<env>.yaml) and the `python -m stacks plan|size` tools."""
