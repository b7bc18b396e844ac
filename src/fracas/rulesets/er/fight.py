"""Enchanted Realms' round in a whole fight (`fracas.rulesets.fight.Procedure`).

- ER-18: every round each combatant rolls d10 + Agility modifier + bonus (the
  ruleset's `fight_initiative`), highest first.
- A combatant leaves the fight when its Body falls to its tactic's `flee_at`.
"""

from __future__ import annotations

from typing import Any

from ..base import Ruleset
from ..fight import Procedure, defined_by


class ErRound(Procedure):
    compiled = "enchanted-realms"

    @classmethod
    def compiled_for(cls, ruleset: Any) -> bool:
        """The compiled round rolls ER-18 initiative and deals each attack's total damage."""
        return (defined_by(ruleset, "fight_initiative", "fracas.rulesets.er:EnchantedRealms")
                and type(ruleset).fight_outcome is Ruleset.fight_outcome)
