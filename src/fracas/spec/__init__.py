"""The single source of shared facts (`facts.toml`) and the generator that writes
them out for Python, Cython, JavaScript and the bridge's JSON Schema; and the one
command that regenerates every generated and fixture file of a source checkout.

    python -m fracas.spec            write the spec's files, rebuild the Roll20 bundles,
                                     rerun the vector generators and fixture tools
    python -m fracas.spec --check    write nothing; exit 1 naming each stale file and
                                     the command that regenerates it

Run from a source checkout: the generated files live across the tree
(`src/`, `cython_core/`, `vtt_scripts/`, `bridge/`, `docs/`, `tests/vectors/`).
"""
