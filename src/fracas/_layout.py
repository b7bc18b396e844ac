"""Column layout of the flat arrays the kernels read and write.

The compiled core declares the same numbers (`cython_core/_core.pyx`); a test
checks that both agree. Every array is a flat `array.array`, row-major.
"""

# Plan: one row of PLAN_WIDTH int32 per strike.
P_SKILL = 0        # skill dice (1-5)
P_ADV = 1          # 1 if the advantage die is rolled
P_SNEAK = 2        # 1 if the sneak die is rolled
P_DISADV = 3       # 1 if the disadvantage extra die is rolled
P_TO_HIT = 4       # added to every die
P_AC = 5           # effective AC (by type, plus cover)
P_CRIT = 6         # lowest crit face, 0 = cannot crit
P_AUTO_CRIT = 7    # paralyzed target: a hit grants a crit die
P_WEIGHT = 8
P_MOD = 9          # attribute modifier (once per target, ER-9)
P_RESIST = 10      # R_NORMAL / R_HALF / R_DOUBLE / R_IMMUNE
P_ONLY_CHAIN = 11  # petrified target: only crit-chain damage
P_CRIT_PROOF = 12  # crit-chain d3s removed
P_TARGET = 13      # target index
P_TYPE = 14        # damage type index
PLAN_WIDTH = 15

R_NORMAL, R_HALF, R_DOUBLE, R_IMMUNE = 0, 1, 2, 3

# Strike results: one row of OUT_WIDTH int64 per strike rolled.
O_HITS = 0         # hitting counting dice
O_CRIT = 1         # 1 if the crit chain started
O_CHAIN_LEN = 2    # crit dice rolled
O_CHAIN_DMG = 3    # sum of the chain's d3s (before crit_proof)
O_BASE = 4         # damage before modifier and resistance
O_MOD = 5          # modifier added (0 if none)
O_MOD_USED = 6     # 1 if this strike took the target's modifier
O_DAMAGE = 7       # final damage
O_UNDODGEABLE = 8
O_DISCARD = 9      # position in the pool of the die discarded by disadvantage, or -1
O_NAT20 = 10       # counting dice showing a natural 20
O_POOL = 11        # dice drawn for the pool (counting + discarded)
O_LOG = 12         # first log entry of this strike
OUT_WIDTH = 13

# Die log: two int32 per entry, (face, hit); a d3 after a hitting crit die is (face, 1).
LOG_WIDTH = 2

# Error codes a kernel returns (0 = fine).
E_OK = 0
E_ROLLS_SHORT = 1      # injected rolls ran out
E_ROLL_RANGE = 2       # injected face out of range for its die
E_CHAIN_LIMIT = 3      # crit chain past CHAIN_LIMIT
E_LOG_FULL = 4         # detail log buffer too small (the caller retries)

CHAIN_LIMIT = 10_000

# Bulk summary accumulators.
# Per target: T_WIDTH int64.
T_DAMAGE = 0
T_ATTACKS = 1
T_ATTACKS_HIT = 2
T_CRITS = 3
T_LONGEST = 4
T_UNDODGEABLE = 5
T_STRIKES = 6
T_STRIKES_HIT = 7
T_WIDTH = 8
N_TYPES = 10
# Per group: G_WIDTH int64 then HIST_BINS histogram bins (last bin: that many or more).
G_ATTACKS_HIT = 0
G_DAMAGE = 1
G_CRITS = 2
G_WIDTH = 3
HIST_BINS = 64

CHUNK_SIZE = 65_536
