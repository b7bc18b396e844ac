"""``python -m fracas.bridge``: the same as ``fracas serve``."""

from .cli import serve

serve(prog_name="python -m fracas.bridge")
