"""A ruleset's round in a whole fight: the `Procedure` protocol the fight driver calls.

The driver (`fracas.drive.fight.Fight`, which encounters and simulations share) owns
what every ruleset's fight has: the members and their health, the round's seed and its
random events in order, choosing targets by tactic, rolling an attack from its plan,
applying damage, ending the fight. Everything a ruleset's rules change in a round is
its `Procedure`, written in the ruleset's folder (`<ruleset>/fight.py`) and named by
`Ruleset.fight_procedure`; the driver and this module name no ruleset.

A round, as the driver plays it, with the calls it makes:

1. `round_started()`, then `declare()` (before initiative: a combatant leaving
   declares it, OS-4);
2. `initiative()`: the slots of the round (a slot acts at once: a combatant, or a
   side), the combatants in no slot being surprised;
3. slot by slot: `slot_started(slot, casting)` (who leaves, who loses its spell: the
   members that make no action in the slot), then each member's `turn(m, casting)`
   (its strikes this turn, by step of `phases`), then step by step each member picks a
   target and attacks: `parts(m, use)` splits the strikes into attacks, `situation(...)`
   says what the round changes in each attack's request, `outcome(result)` reads the
   damage it deals, and `attacked(...)` what the attack leaves behind;
4. after damage lands, `harmed(target)` (a combatant may leave the fight at once);
5. `round_ended()` (morale, OS-4).

A subclass overrides the calls its rules need; every default is the plain round: one
step, damage to health, `flee_at` leaving at once. Random events draw from
`fight.stream()` in the order they happen, so the same seed gives the same round. A
procedure keeps what lasts across turns on its members (`member`, a `Member` subclass
with its own slots) and says what a saved encounter keeps of it (`saved`, `load`).

The compiled fight loop (`fracas.drive.fastfight`) plays a scenario only when its
procedure says how (`compiled`, and the tables of `compiled_tables`); a procedure that
does not says why in the result's `fight_loop`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar, NamedTuple, Optional


STANDING, DOWN, FLED = "standing", "down", "fled"

#: What a round changes in one attack's request (`fracas.drive.scenario.Compiled.plan`):
#: (("target", fields) or (("strike", i), fields), ...), fields being (name, value) pairs.
Situation = tuple[tuple[Any, tuple[tuple[str, Any], ...]], ...]

class Field(NamedTuple):
    """A scenario field a ruleset's round reads, in a combatant's `tactic` (`Procedure.tactics`)
    or in the combatant itself (`Procedure.fields`): the scenario of that ruleset decodes it
    with this type and default, and the scenario schema lists it under the ruleset's name."""

    #: Its type as msgspec reads it: `int`, `Optional[int]`, `Literal["a", "b"]`, `list[str]` …
    type: Any
    #: Its value when a scenario leaves it out.
    default: Any
    #: The rule that needs it ("ER-15"), for the schema and for the error naming its owner.
    rule: str
    #: What it means, one line for the schema.
    doc: str
    #: More JSON Schema for it (`{"minimum": 0, "maximum": 2}`), checked by the procedure.
    schema: Mapping[str, Any] = {}


def frozen(value: Any) -> Any:
    """A request's value as a situation holds it (hashable): an object as a tuple of
    (name, value) pairs, a list as a tuple (`fracas.drive.scenario.thawed` undoes it)."""
    if isinstance(value, dict):
        return tuple((k, frozen(v)) for k, v in value.items())
    if isinstance(value, list):
        return tuple(frozen(x) for x in value)
    return value


class Member:
    """One combatant in the fight (a group of `count` has `count` members)."""

    __slots__ = ("index", "id", "group", "side", "unit", "hp", "hp_max", "injury", "injury_max", "status",
                 "spell_uses", "dealt", "taken", "harmed", "hurt_round", "x", "y", "leaving", "attacked",
                 "attacking")

    def __init__(self, index: int, id_: str, group: int, side: int, hp: int, injury: Optional[int],
                 spell_uses: int, position: tuple[float, float]) -> None:
        self.index, self.id, self.group, self.side = index, id_, group, side
        self.unit = 0
        self.hp = self.hp_max = hp
        self.injury = self.injury_max = injury
        self.status = STANDING
        self.spell_uses = spell_uses
        self.dealt = self.taken = 0
        self.harmed = False
        self.hurt_round = 0
        self.x, self.y = position
        self.leaving = ""           # why it leaves the fight at its slot this round, "" when it does not
        self.attacked: list[str] = []   # whom it attacked in the prior round
        self.attacking: list[str] = []  # whom it attacks this round


class SideView(NamedTuple):
    """What a procedure's morale triggers read of a side (or morale unit)."""

    start: int
    defeated: int
    standing: list[Member]
    fired: set[str]
    killed: int


class Procedure:
    """The plain round (see the module's docstring); a ruleset's procedure overrides
    what its rules change. `fight` is the driver (`fracas.drive.fight.Fight`): its
    `sc` (the compiled scenario), `members`, `stream()`, `log(event)`, `standing()`,
    `leave(m)` and `morale_step()` are what a procedure uses."""

    #: The steps of a turn, in order; each strike belongs to one (`phase_of`).
    phases: ClassVar[tuple[str, ...]] = ("attack",)
    #: The step in which casters cast their spell instead of attacking.
    spell_phase: ClassVar[str] = "attack"
    #: Health pools of a combatant: "hp" always, "injury" where damage may bypass it.
    pools: ClassVar[tuple[str, ...]] = ("hp",)
    #: The tactic fields its round reads beyond the shared ones (`target`, `focus`, `flee`,
    #: `flee_at`), each a `Field`: a scenario of this ruleset may set them, another's may not.
    tactics: ClassVar[dict[str, Field]] = {}
    #: The combatant fields its round reads beyond the shared ones, each a `Field`.
    fields: ClassVar[dict[str, Field]] = {}
    #: The kinds of event it logs beyond the driver's, and what each says (the protocol
    #: schema lists them).
    events: ClassVar[dict[str, str]] = {}
    #: Its members' type (a subclass adds the slots of what lasts across turns).
    member: ClassVar[type[Member]] = Member
    #: Which round of the compiled fight loop plays it ("" none): honoured only when the
    #: class itself says so, so that a subclass that changes a call plays on the Python
    #: loop until it says the compiled loop still matches. The plain round's is "plain":
    #: one combatant per slot, the ruleset's own initiative called each round
    #: (`initiative_call`), attacks of strike rows.
    compiled: ClassVar[str] = "plain"

    def __init__(self, fight: Any) -> None:
        self.fight = fight
        self.sc = fight.sc
        self.ruleset = fight.sc.ruleset

    # -- the scenario, before any fight -------------------------------------------------------

    @classmethod
    def phase_of(cls, strike: dict[str, Any]) -> str:
        """The step of `phases` in which a strike is made."""
        return cls.phases[-1]

    @classmethod
    def check_tactic(cls, ruleset: Any, spec: Any, phases: dict[str, list[int]], path: str) -> None:
        """Check a scenario combatant's tactic fields that the procedure reads (errors name
        `path`); the scenario has decoded those it lists in `tactics` and `fields`, and
        refused another ruleset's. Nothing to check by default."""

    @classmethod
    def check_scenario(cls, sc: Any) -> None:
        """Check what joins combatants of the whole compiled scenario `sc` (errors name
        their scenario path), once every combatant passed `check_tactic`. Nothing by default."""

    @classmethod
    def compiled_for(cls, ruleset: Any) -> bool:
        """Whether the compiled round `compiled` names still matches `ruleset`'s calls it
        reads (its initiative, its outcome); a ruleset that changed one plays on the Python
        loop rather than differently. The plain round calls the ruleset's initiative itself
        and deals each attack's total damage: a ruleset with its own `fight_outcome` plays
        on the Python loop."""
        return defined_by(ruleset, "fight_outcome", "fracas.rulesets.base:Ruleset")

    @classmethod
    def compiled_why(cls, sc: Any) -> Optional[str]:
        """Why the compiled round cannot play this scenario although it plays the
        procedure (a rule in play that it does not take); None: it can."""
        return None

    # -- its compiled twin (fracas.drive.fastfight), when `compiled` names one ---------------
    # The compiled fight loop is a C twin of the built-in rounds; a procedure that declares
    # one says here how its scenario is laid out for it: the attacks of a turn, the
    # situations each can be made in, the initiative modifiers and the round's own tables.

    @classmethod
    def compiled_units(cls, sc: Any, g: Any) -> list[tuple[str, Optional[tuple[int, ...]]]]:
        """The attacks group `g` makes a turn as the compiled loop rolls them, each (step,
        strikes): the plain round's one attack of all its strikes."""
        strikes = g.phases.get("attack", [])
        return [("attack", tuple(strikes))] if strikes else []

    @classmethod
    def compiled_variants(cls, sc: Any, g: Any, key: str, use: Optional[tuple[int, ...]], t: Any,
                          tables: dict[str, Any]) -> list[tuple[Optional[tuple[int, ...]], Situation]]:
        """Every (strikes, situation) of an attack unit of `g` at group `t`, in the order the
        compiled round indexes them; (None, ()) where every strike is broken."""
        return [(use, ()), (use, ())]

    @classmethod
    def compiled_reaction(cls, sc: Any, g: Any) -> Optional[tuple[str, tuple[int, ...]]]:
        """The reaction attack group `g` makes at an enemy engaged with it in melee that
        leaves the fight (its tables' `leave_draws`), as the compiled loop rolls it: (step,
        strikes), one random event, one a round; None: it makes none (the default)."""
        return None

    @classmethod
    def compiled_reaction_variants(cls, sc: Any, g: Any, key: str, use: tuple[int, ...], t: Any,
                                   tables: dict[str, Any]) -> list[tuple[Optional[tuple[int, ...]], Situation]]:
        """The situation of `g`'s reaction at a member of group `t` leaving, as one variant;
        (None, ()) where `t`'s leaving draws none."""
        return [(None, ())]

    @classmethod
    def compiled_row_info(cls, plan: Any) -> list[int]:
        """Per strike row of a compiled attack, two numbers the round's own tables read
        beside the row (where its tables set `strays`: a stray shot's flags and crit
        threshold); none by default (zeros)."""
        return []

    @classmethod
    def compiled_initiative(cls, sc: Any, specs: list[Any]) -> tuple[list[int], list[int], int]:
        """Per member the initiative modifier and the tie-break value the compiled round
        sorts by, and the die it rolls (a side initiative: zeros)."""
        return [0] * len(specs), [0] * len(specs), 10

    @classmethod
    def compiled_tables(cls, sc: Any, tables: dict[str, Any]) -> Optional[str]:
        """Set the compiled round's flags and tables in `tables` (neutral ones are there);
        returns why the compiled loop cannot play the scenario (None: it can). The plain
        round's: attacks of strike rows (a ruleset on the row kernel; another's attacks
        say why they cannot be rolled there), its initiative called (`initiative_call`)."""
        tables.update(rows=True, init_call=cls.initiative_call(sc))
        return None

    @classmethod
    def initiative_call(cls, sc: Any, alone: bool = False) -> Callable[[int, int, list[bool]], Optional[list[int]]]:
        """The plain round's initiative as the compiled loop calls it each round, with the
        round, the seed of its random event and who stands (`standing[m]`): the ruleset's
        `fight_initiative` as `initiative()` calls it (the standing combatants in member
        order, the same dice), its slots as members in order. None where the loop does not
        play them (a slot of several sides, acting at once; with `alone`, a round whose
        `slot_started` reads a whole slot, any slot of several): the Python round loop
        plays that fight, as it does one whose call raised."""
        from ..dice import Dice

        ruleset, actors = sc.ruleset, [sc.actor(m) for m in range(len(sc.member_ids))]
        index = {member: m for m, member in enumerate(sc.member_ids)}
        side = [sc.groups[g].side for g in sc.member_group]

        def call(round_: int, seed: int, standing: list[bool]) -> Optional[list[int]]:
            slots, _record = ruleset.fight_initiative(sc.setup, [a for a, up in zip(actors, standing) if up],
                                                      sc.sides, round_, Dice.from_seed(seed), seed)
            order: list[int] = []
            for slot in slots:
                members = [index[member] for member in slot]
                if len({side[m] for m in members}) > 1 or (alone and len(members) > 1):
                    return None
                order.extend(members)
            return order

        return call

    @classmethod
    def compiled_unfit(cls, plan: Any) -> Optional[str]:
        """Why a compiled attack is one the compiled round cannot roll (None: it can)."""
        return None

    # -- a member's state ----------------------------------------------------------------------

    def start(self, m: Member) -> None:
        """`m` as the fight begins (what its procedure keeps across turns; its group's
        morale as the fight starts, `fight.groups[m.group]`, where the ruleset has morale)."""

    def saved(self, m: Member) -> dict[str, Any]:
        """What a saved encounter keeps of `m` beyond its health (JSON-ready)."""
        return {}

    def load(self, m: Member, saved: dict[str, Any]) -> None:
        """`m` from a saved encounter's member state (`saved`'s keys)."""

    # -- a round ---------------------------------------------------------------------------------

    def round_started(self) -> None:
        """Before anything of the round happens (members' per-round state)."""

    def declare(self) -> None:
        """Declarations before initiative."""

    def initiative(self) -> tuple[list[list[str]], Optional[dict[str, Any]]]:
        """The round's slots of combatant ids and its initiative record: the ruleset's
        `fight_initiative` every round."""
        rolled: tuple[list[list[str]], Optional[dict[str, Any]]] = self.fight.roll_initiative()
        return rolled

    def slot_started(self, slot: list[Member], casting: set[int]) -> set[int]:
        """A slot's start: the members of `slot` that make no action in it (their index)."""
        return set()

    def turn(self, m: Member, casting: bool) -> dict[str, list[int]]:
        """The strikes `m` makes this turn, by step (none: it makes no attack)."""
        phases: dict[str, list[int]] = self.sc.groups[m.group].phases
        return phases

    def parts(self, m: Member, use: Optional[tuple[int, ...]]) -> list[Optional[tuple[int, ...]]]:
        """The attacks a step's strikes are made as: one attack of all of them."""
        return [use]

    def before_attack(self, m: Member, target: Member, key: str, use: Optional[tuple[int, ...]]) -> bool:
        """Just before `m`'s attack at `target`: reactions that come first (they may strike
        `m` down); False voids the attack."""
        return True

    def situation(self, m: Member, target: Member, key: str, use: Optional[tuple[int, ...]]) -> Situation:
        """What the round changes in `m`'s attack at `target` (nothing)."""
        return ()

    def request_ids(self, m: Member, target: Member) -> dict[str, str]:
        """The combatant behind each target id of the attack request being made (the
        round log shows their ids): the target is "t"."""
        return {"t": target.id}

    def outcome(self, result: Any) -> tuple[int, int, int]:
        """(damage to the target's hp, damage straight to its injury, cost to the attacker's
        hp) of a one-target attack result: the ruleset's `fight_outcome`."""
        out: tuple[int, int, int] = self.ruleset.fight_outcome(result)
        return out

    def attacked(self, m: Member, target: Member, key: str, use: Optional[tuple[int, ...]],
                 situation: Situation, result: Any) -> None:
        """What an attack leaves behind, after its damage is known."""

    def harmed(self, target: Member) -> None:
        """`target` took damage and stands: it leaves at once at or below its `flee_at`."""
        flee_at = self.sc.groups[target.group].spec.tactic.flee_at
        if flee_at is not None and target.hp <= flee_at:
            target.status = FLED
            self.fight.log({"type": "fled", "who": target.id, "why": f"hp {target.hp} <= flee_at {flee_at}"})

    def round_ended(self) -> None:
        """The end of the round."""

    # -- morale (a procedure with morale checks calls fight.morale_step at the round's end) --

    def morale_triggers(self, side: SideView) -> list[str]:
        """The morale checks a side's losses call for, as trigger names, noted when they
        happen (none: no morale)."""
        return []



def defined_by(ruleset: Any, call: str, where: str) -> bool:
    """Whether `ruleset`'s `call` is the one `where` ("module:Class") defines, not an
    override (what a procedure's `compiled_for` asks of the calls its compiled twin reads)."""
    module, _, cls = where.partition(":")
    func = getattr(type(ruleset), call, None)
    qualname = getattr(func, "__qualname__", "")
    return getattr(func, "__module__", None) == module and qualname in (f"{cls}.{call}", call)
