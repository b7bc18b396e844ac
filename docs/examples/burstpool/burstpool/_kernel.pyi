# The compiled kernel's calls (_kernel.pyx), for type checkers.
from array import array
from typing import Any, Optional

def strike(state: array[int], rolls: Optional[array[int]], pos: int, dice: int,
           most_bursts: int) -> tuple[list[int], int]: ...
def roll_chunk(plans: array[int], index: array[int], groups: array[int], bounds: array[int], acc_t: array[int],
               acc_g: array[int], marks: array[int], state: array[int], first: int, count: int, most_bursts: int,
               hit_on: int, hist_bins: int) -> None: ...
def pools(stream: Any, dice: int, count: int, most_bursts: int, hit_on: int) -> list[int]: ...
