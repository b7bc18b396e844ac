"""Enchanted Realms (ER-1 … ER-23): die pools of d20s, crit chains, resistances, and the
table situations around them (friendly fire, competitions, flee attacks, grapples,
defense rolls, impalement, saves and area effects).

The rules in the project's words: docs/rules/enchanted-realms.md.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from ..base import SAVE as BASE_SAVE, Kind, Ruleset
from . import attack, bulk, compete, drop, impale, initiative, lock, save, slam, throw, touch
from .schema_hints import SCHEMA_HINTS, SCHEMA_TYPES  # noqa: F401 - read by fracas.spec
from .results import RESULT_TYPES
from .schema import NAME
# The typed requests' home, as every ruleset's (`fracas.rulesets.ww.AttackRequest`, …):
# `fracas.rulesets.er.AttackRequest` and its parts. `fracas.AttackRequest` and the nine
# others `fracas._TYPED` lists are compatibility aliases of these (the same classes).
# Re-exported explicitly (`X as X`), so a strict type checker reads them here too.
from .schema import AttackRequest as AttackRequest, BulkRequest as BulkRequest, CompeteRequest as CompeteRequest
from .schema import DropRequest as DropRequest, ImpaleRequest as ImpaleRequest, InitiativeRequest as InitiativeRequest
from .schema import LockRequest as LockRequest, SaveRequest as SaveRequest, SlamRequest as SlamRequest
from .schema import ThrowRequest as ThrowRequest, TouchRequest as TouchRequest
from .schema import AttackGroup as AttackGroup, Attacker as Attacker, Combatant as Combatant  # noqa: F401
from .schema import Profile as Profile, ProfileStrike as ProfileStrike, Strike as Strike, Target as Target  # noqa: F401


#: ER-19 competitions and ER-23 impalement: kinds of request only Enchanted Realms has.
COMPETE = Kind("compete", "compete.roll", "compete", "the competition", "competition", "compile_compete",
               "roll_compete", result="result.compete.roll", command="fracas.rulesets.er.commands:compete")
IMPALE = Kind("impale", "impale.resolve", "impale", "the impalement and the charge", "impalement", "compile_impale",
              "roll_impale", result="result.impale.resolve", command="fracas.rulesets.er.commands:impale")
#: Saves, touch, drop, lock, throw and slam go through the Roll20 relay (`relay`): the Mod script has no
#: port of them, and its `!fracas save`, `touch`, `drop`, `lock`, `throw` and `slam` send them to the bridge
#: (vtt_scripts/roll20/src/mod/bridgekinds.js).
#: Saves (ER-12, ER-14, ER-16): one creature's, or an area effect's against several (the
#: kind old-school saving throws share: `fracas.rulesets.base.SAVE`; relayed: the Roll20
#: Mod's `!fracas save` sends it to the bridge).
SAVE = BASE_SAVE
#: Touch attacks (ER Touch-based Effects): a hit for no damage, or a sleight-of-hand feat.
TOUCH = Kind("touch", "touch.roll", "touch", "the touch", "touch", "compile_touch", "roll_touch",
             result="result.touch.roll", command="fracas.rulesets.er.commands:touch",
             relay=True)
#: Getting the drop (after ER-13): a sneak attack's damage held, then inflicted against a feat.
DROP = Kind("drop", "drop.roll", "drop", "the drop", "drop", "compile_drop", "roll_drop",
            result="result.drop.roll", command="fracas.rulesets.er.commands:drop",
            relay=True)

#: Weapon lock and disarm ("ER Weapon Negation", ER-12, ER-19), and the locker's shield-blitz.
LOCK = Kind("lock", "lock.roll", "lock", "the weapon lock or disarm", "weapon lock", "compile_lock", "roll_lock",
            result="result.lock.roll", command="fracas.rulesets.er.commands:lock",
            relay=True)

#: Throwing items and throwing magic ("ER Throwing Items"): a pool of d20s against an AC.
THROW = Kind("throw", "throw.roll", "throw", "the throw", "throw", "compile_throw", "roll_throw",
             result="result.throw.roll", command="fracas.rulesets.er.commands:throw",
             relay=True)

#: A grappler's slam ("ER Grappling", "ER Grappling: Uncommon Conditions"), into a second target or not.
SLAM = Kind("slam", "slam.roll", "slam", "the slam", "slam", "compile_slam", "roll_slam",
            result="result.slam.roll", command="fracas.rulesets.er.commands:slam",
            relay=True)


class EnchantedRealms(Ruleset):
    name = NAME
    largest_die = 20
    own_kinds = (COMPETE, IMPALE, SAVE, TOUCH, DROP, LOCK, THROW, SLAM)
    request_types = {"attack": AttackRequest, "bulk": BulkRequest, "initiative": InitiativeRequest,
                     "compete": CompeteRequest, "impale": ImpaleRequest, "save": SaveRequest,
                     "touch": TouchRequest, "drop": DropRequest, "lock": LockRequest,
                     "throw": ThrowRequest, "slam": SlamRequest}
    result_types = RESULT_TYPES

    # The module functions themselves, not wrappers: a single attack is a hot path.
    compile_attack = staticmethod(attack.compile_attack)
    roll_attack = staticmethod(attack.roll_attack)
    compile_bulk = staticmethod(bulk.compile_bulk)
    compile_initiative = staticmethod(initiative.compile_initiative)
    roll_initiative = staticmethod(initiative.roll_initiative)
    compile_compete = staticmethod(compete.compile_compete)
    roll_compete = staticmethod(compete.roll_compete)
    compile_impale = staticmethod(impale.compile_impale)
    roll_impale = staticmethod(impale.roll_impale)
    compile_save = staticmethod(save.compile_save)
    roll_save = staticmethod(save.roll_save)
    compile_touch = staticmethod(touch.compile_touch)
    roll_touch = staticmethod(touch.roll_touch)
    compile_drop = staticmethod(drop.compile_drop)
    roll_drop = staticmethod(drop.roll_drop)

    compile_lock = staticmethod(lock.compile_lock)
    roll_lock = staticmethod(lock.roll_lock)

    compile_throw = staticmethod(throw.compile_throw)
    roll_throw = staticmethod(throw.roll_throw)
    compile_slam = staticmethod(slam.compile_slam)
    roll_slam = staticmethod(slam.roll_slam)

    def fight_procedure(self) -> type[Any]:
        """ER-18 initiative every round, `flee_at` (`fight.ErRound`)."""
        from .fight import ErRound

        return ErRound

    def fight_initiative(self, setup: Any, actors: list[Any], sides: list[str], round_: int, dice: Any,
                         seed: int) -> tuple[list[list[str]], dict[str, Any]]:
        """ER-18: every round, each combatant d10 + Agility modifier + its initiative bonus."""
        from ...errors import RequestError
        from ..base import moved_combatant

        request = {"combatants": [{"id": a.id, "agility": a.attacker.get("agility"),
                                   "agility_mod": a.attacker.get("agility_mod"), "bonus": a.initiative}
                                  for a in actors]}
        try:
            plan = initiative.compile_initiative(request)
        except RequestError as exc:
            raise moved_combatant(exc, actors, {"agility": "attacker.agility", "agility_mod": "attacker.agility_mod",
                                                "bonus": "initiative"}) from None
        rolled = initiative.roll_initiative(plan, dice, seed)  # its own order list: no copy needed
        return [[e["id"]] for e in rolled.order], {"ruleset": rolled.ruleset, "seed": seed,
                                                   "injected": rolled.injected, "order": rolled.order}

    def odds(self, plan: Any) -> Any:
        from . import odds

        return odds.odds(plan), odds.CHAIN_CUT * odds.crit_strikes(plan), True

    def odds_total(self, plan: Any) -> Any:
        from . import odds

        return odds.total(plan)

    def odds_notes(self, plan: Any) -> dict[str, Any]:
        from . import odds

        strays = odds.stray_odds(plan)
        return {"friendly_fire": strays} if strays else {}

    def cli_options(self) -> Any:
        from . import cli

        return cli.options()

    def kind_cli_options(self, kind: str) -> list[Any]:
        from . import cli

        return cli.kind_options(kind)

    def kind_from_flags(self, kind: str, flags: dict[str, Any]) -> dict[str, Any]:
        from . import cli

        return cli.kind_from_flags(kind, flags)

    def request_from_flags(self, flags: dict[str, Any]) -> dict[str, Any]:
        from . import cli

        return cli.request_from_flags(flags)

    def flag_hint(self, path: str, flags: dict[str, Any]) -> Optional[str]:
        from . import cli

        return cli.flag_hint(path, flags)

    def request_from_profile(self, profile: dict[str, Any], flags: dict[str, Any]) -> dict[str, Any]:
        from . import cli

        return cli.request_from_profile(profile, flags)

    def render(self, result: dict[str, Any], style: Optional[Callable[..., str]] = None) -> str:
        from .render import TerminalRenderer

        return TerminalRenderer(style).render(result)


ENCHANTED_REALMS = EnchantedRealms()
