"""The benchmarks `fracas bench` runs (installed as `fracas.benchmarks`).

- `scenarios`: the scenarios as engine requests and as kernel plans, with the exact
  answers of scenario 1;
- `randint_loop`, `numpy_batch`, `d20_library`: scenario 1 written the ways people
  write it without fracas; `engine_runs`: fracas itself (public API, bare kernel,
  generator alone);
- `harness`: interleaved rounds, medians, paired ratios; `suite`: every section and
  the result document; `report`: the tables; `plot`: the scaling PNG; `memory`: peak
  memory in a fresh process; `bench_bridge` (the bridge's own): `fracas bench --bridge`.

See README.md in this folder for the method and the JSON document.
"""
