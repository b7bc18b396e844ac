"""Stand-ins for build-time tools at run time (`cython`: see its docstring)."""
