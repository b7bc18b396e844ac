"""Known answers of the Python dice generator (src/fracas/rng.py) for the JavaScript one.

    python vtt_scripts/roll20/test/tools/rng_answers.py     write test/fixtures/rng_known_answers.json

For each seed (0 up to 2**64 - 1, around the edges of 32-bit words and of JavaScript's
safe integers): the xoshiro128** state SplitMix64 makes from it, the next 8 words, then
12 dice of each size from the same generator, and the seeds of some bulk chunks. Seeds
and chunk seeds are decimal strings, as JSON numbers past 2**53 are not exact in
JavaScript. test/rng.test.js replays every entry; `python -m fracas.spec --check`
fails when the file is not what this makes.
"""

from __future__ import annotations

import json
from pathlib import Path

from fracas import rng

HERE = Path(__file__).resolve().parent
FIXTURE = HERE.parent / "fixtures" / "rng_known_answers.json"
SEEDS = [0, 1, 42, 2**32 - 1, 2**32, 2**53 - 1, 2**53 + 1, 2**63, 2**64 - 1,
         0x0123456789ABCDEF, 987654321987654321]
WORDS = 8
FACES = [2, 3, 6, 10, 20, 100, 1000, 2**21]  # up to a face count past 2**20 (Lemire's rejection)
DICE = 12
CHUNKS = [0, 1, 2, 65535, 2**40]


def answers(seed: int) -> dict:
    state = rng.seed_state(seed)
    generator = rng.Xoshiro128(list(state))
    return {
        "seed": str(seed),
        "state": state,
        "words": [generator.next32() for _ in range(WORDS)],
        "dice": {str(faces): [generator.die(faces) for _ in range(DICE)] for faces in FACES},
        "chunks": {str(chunk): str(rng.chunk_seed(seed, chunk)) for chunk in CHUNKS},
    }


def outputs() -> dict[Path, str]:
    """What this tool writes, {path: text} (`python -m fracas.spec` writes and checks it)."""
    lines = ",\n".join(json.dumps(answers(seed), separators=(",", ":")) for seed in SEEDS)
    return {FIXTURE: f"[\n{lines}\n]\n"}


if __name__ == "__main__":
    from fracas.spec import regen

    regen.write(outputs())
