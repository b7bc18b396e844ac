"""The single source of shared facts (`facts.toml`) and the generator that writes
them out for Python, Cython, JavaScript and the bridge's JSON Schema.

    python -m fracas.spec            write every generated file
    python -m fracas.spec --check    exit 1, naming the stale files, if any differs

Run from a source checkout: the generated files live across the tree
(`src/`, `cython_core/`, `vtt_scripts/`, `bridge/`).
"""
