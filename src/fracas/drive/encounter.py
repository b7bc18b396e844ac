"""Encounters: a fight a GM plays one round at a time, kept in the store between rounds.

    >>> enc = fracas.Encounter.new("crypt", scenario)      # checked, then stored
    >>> log = enc.round(seed=42)                           # one round, journaled with its seed
    >>> enc.undo()                                         # back to the state before it
    >>> fracas.Encounter.open("crypt").show()["round"]
    0

`show()` is a function of the kept state only, so `show()` before a round equals
`show()` after the round and its undo. The same state and round seed play the same
round (`fracas.drive.fight` says which die comes from which stream).
"""

from __future__ import annotations

import builtins
import re
from typing import Any, Callable, Optional

import orjson

from ..errors import RequestError, SchemaError
from ..requests import check_seed, shown
from ..rng import new_seed
from ..store import Conflict, EncounterStore
from .fight import Fight
from .scenario import Compiled, compile_scenario

#: Run inside the store's write transaction with the change's result (`Encounter.new`, `round`,
#: `undo`, `delete` take one as `within`): the bridge journals the request there, so that the
#: change and its journal entry commit together or not at all. Raising rolls the change back.
Within = Optional[Callable[[Any, Any], None]]

_NAME = re.compile(r"[\w][\w .:'()#-]{0,63}\Z")


class EncounterError(RequestError):
    """No such encounter, a name taken, a fight already over, nothing to undo."""


def check_name(name: Any, path: str = "$.name") -> str:
    if not isinstance(name, str) or not _NAME.match(name):
        raise SchemaError(path, "an encounter name is 1 to 64 letters, digits, spaces or . : ' ( ) # - _,"
                                f" starting with a letter or digit; got {shown(name)}")
    return name


class Encounter:
    """One stored encounter: its compiled scenario and current state, played a round at a
    time and kept in the encounter store between rounds (`fracas encounter` in Python).

    Make one with `Encounter.new`, find it again with `Encounter.open`; `round()` plays and
    keeps the next round, `undo()` takes it back, `show()` is the state as it stands.

    Example:
        >>> import fracas
        >>> enc = fracas.Encounter.new("crypt", "@er-skeleton-horde", replace=True)
        >>> log = enc.round(seed=42)
        >>> log["round"], enc.show()["round"]
        (1, 1)
        >>> enc.undo()["round"]
        0
    """

    def __init__(self, name: str, compiled: Compiled, fight: Fight, seq: int, store: EncounterStore) -> None:
        self.name, self.compiled, self.fight, self.seq, self.store = name, compiled, fight, seq, store

    # -- making and finding ----------------------------------------------------------------

    @classmethod
    def new(cls, name: str, scenario: Any, *, store: Optional[EncounterStore] = None,
            replace: bool = False, within: Within = None) -> "Encounter":
        """Check a scenario and store it as a new encounter at round 0.

        Nothing is stored unless the whole scenario is valid.

        Args:
            name: The encounter's name: 1 to 64 letters, digits, spaces or `. : ' ( ) # - _`,
                starting with a letter or digit.
            scenario: A scenario, as `fracas.simulate` takes it: a dict, JSON text or bytes,
                a file path (str or `os.PathLike`) or `@NAME` (an example that ships with fracas).
            store: The encounter store (default: `journal.sqlite3`, the bridge's journal file,
                in `$FRACAS_HOME` when that is set, else in the user data directory).
            replace: Replace an encounter of that name instead of refusing.
            within: Called inside the store's transaction with the connection and `show()`
                of the new encounter (see `Within`).

        Returns:
            The new encounter, at round 0.

        Raises:
            SchemaError: The name, or a field of the scenario, is invalid (its `path` names it),
                or the file cannot be read.
            RulesError: The scenario asks for what its ruleset does not allow.
            EncounterError: An encounter of that name exists and `replace` is false.

        Example:
            >>> import fracas
            >>> enc = fracas.Encounter.new("duel", "@ww-duel", replace=True)
            >>> enc.show()["round"], enc.show()["ruleset"]
            (0, 'worldwalker')
        """
        from .simulate import read_scenario

        check_name(name)
        source = read_scenario(scenario)
        compiled = compile_scenario(source)
        store = store or EncounterStore()
        fight = Fight(compiled)
        made = cls(name, compiled, fight, 0, store)
        also = None if within is None else (lambda db: within(db, made._show([])))
        if not store.create(name, orjson.dumps(source), compiled.ruleset.name, fight.state(), replace=replace,
                            also=also):
            raise EncounterError("$.name", f"an encounter named {name!r} exists already"
                                           " (delete it first, or replace it)")
        return made

    @classmethod
    def open(cls, name: str, *, store: Optional[EncounterStore] = None) -> "Encounter":
        """The stored encounter `name`, as its last kept round left it.

        Args:
            name: The encounter's name.
            store: The encounter store (default: the one `Encounter.new` uses).

        Returns:
            The encounter.

        Raises:
            SchemaError: `name` is not an encounter name.
            EncounterError: There is no encounter of that name (the message lists those there are).

        Example:
            >>> import fracas
            >>> _ = fracas.Encounter.new("duel", "@ww-duel", replace=True)
            >>> fracas.Encounter.open("duel").show()["scenario"]
            'A Worldwalker duel at the bridge'
        """
        check_name(name)
        store = store or EncounterStore()
        found = store.load(name)
        if found is None:
            known = store.names()
            raise EncounterError("$.name", f"no encounter named {name!r}"
                                           + (f" (encounters: {', '.join(known[:20])})" if known else
                                              " (there are none yet: make one with encounter new)"))
        scenario, _ruleset, seq, state = found
        compiled = compile_scenario(scenario)
        return cls(name, compiled, Fight(compiled, state), seq, store)

    @staticmethod
    def list(*, store: Optional[EncounterStore] = None) -> list[dict[str, Any]]:
        """Every stored encounter, by name.

        Args:
            store: The encounter store (default: the one `Encounter.new` uses).

        Returns:
            One dict per encounter: `name`, `ruleset`, `round`, `over`, `winner`, `updated_at`.

        Raises:
            StoreError: The store cannot be opened.

        Example:
            >>> import fracas
            >>> _ = fracas.Encounter.new("duel", "@ww-duel", replace=True)
            >>> [e["name"] for e in fracas.Encounter.list() if e["name"] == "duel"]
            ['duel']
        """
        return (store or EncounterStore()).summaries()

    @staticmethod
    def delete(name: str, *, store: Optional[EncounterStore] = None, within: Within = None) -> None:
        """Delete the encounter `name` and the rounds kept with it.

        Args:
            name: The encounter's name.
            store: The encounter store (default: the one `Encounter.new` uses).
            within: Called inside the store's transaction with the connection and None.

        Returns:
            None.

        Raises:
            SchemaError: `name` is not an encounter name.
            EncounterError: There is no encounter of that name.

        Example:
            >>> import fracas
            >>> _ = fracas.Encounter.new("duel", "@ww-duel", replace=True)
            >>> fracas.Encounter.delete("duel")
            >>> "duel" in [e["name"] for e in fracas.Encounter.list()]
            False
        """
        check_name(name)
        also = None if within is None else (lambda db: within(db, None))
        if not (store or EncounterStore()).delete(name, also=also):
            raise EncounterError("$.name", f"no encounter named {name!r}")

    # -- playing ---------------------------------------------------------------------------

    def show(self) -> dict[str, Any]:
        """The encounter as it stands.

        Returns:
            `name`, `scenario` (its title), `ruleset`, `round`, whether it is `over` and its
            `winner`, `sides` (each member's id, status, health and more), `standing` (members
            standing per side) and `rounds` (each round kept, with its seed). It is a function
            of the kept state only: `show()` after a round and its undo equals `show()` before.

        Example:
            >>> import fracas
            >>> enc = fracas.Encounter.new("duel", "@ww-duel", replace=True)
            >>> enc.show()["standing"]
            {'swordmaster': 1, 'knight': 1}
        """
        return self._show(self.store.rounds(self.name))

    def _show(self, rounds: "builtins.list[dict[str, Any]]") -> dict[str, Any]:
        """`show()` with the rounds kept given (`rounds` of the store)."""
        sc, state = self.compiled, self.fight.state()
        sides: dict[str, list[dict[str, Any]]] = {side: [] for side in sc.sides}
        labels = {g.spec.name: g.spec.label for g in sc.groups if g.spec.label}
        for member in state.pop("members"):
            side = member.pop("side")
            if member["group"] in labels:
                member["label"] = labels[member["group"]]
            sides[side].append(member)
        return {"name": self.name, "scenario": sc.name, "ruleset": sc.ruleset.name, **state, "sides": sides,
                "standing": {side: sum(1 for m in ms if m["status"] == "standing") for side, ms in sides.items()},
                "rounds": rounds}

    def _expect(self, expect_round: Optional[int]) -> None:
        if expect_round is not None and expect_round != self.fight.round:
            raise EncounterError("$.expect_round", f"{self.name!r} is at round {self.fight.round}, not"
                                                   f" {expect_round}: it changed elsewhere; show it again")

    def _sync(self, hp: dict[str, Any]) -> None:
        """Members' health as the table shows it (a GM edited a token bar): `{id: hp}`."""
        from ..requests import key_path
        from .fight import DOWN, STANDING

        if not isinstance(hp, dict):
            raise SchemaError("$.hp", "expected an object of member id -> hp")
        for mid, value in hp.items():
            member = self.fight.by_id.get(mid)
            path = key_path("$.hp", mid)
            if member is None:
                raise EncounterError(path, f"{self.name!r} has no member {mid!r}")
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= member.hp_max:
                raise SchemaError(path, f"hp must be an integer 0 to {member.hp_max}, got {shown(value)}")
        for mid, value in hp.items():
            member = self.fight.by_id[mid]
            if member.status == "fled":
                continue
            member.hp = value
            if member.injury_max is None:
                member.status = DOWN if value == 0 else STANDING

    def round(self, seed: Optional[int] = None, *, request_key: Optional[str] = None,
              expect_round: Optional[int] = None, hp: Optional[dict[str, int]] = None,
              within: Within = None) -> dict[str, Any]:
        """Play the next round and keep it.

        Args:
            seed: The round's seed (0 to 2**64 - 1); the same state and seed play the same
                round. None: a seed from the operating system (the log says which).
            request_key: A key (the bridge's request id): a resend with the same key returns
                the round it played instead of playing another.
            expect_round: Refuse unless the encounter is at this round (it changed elsewhere).
            hp: Members' health to set first, `{member id: hp}` (a GM edited a token's bar).
            within: Called inside the store's transaction with the connection and the log
                (not for a resend answered with the round it played).

        Returns:
            The round's log: `round`, `seed`, the order, every attack with its situation and
            result, each procedure step (morale, flight, reserves, parries), and each member's
            status and health after it.

        Raises:
            SchemaError: `seed` or `hp` is invalid (the path names it).
            EncounterError: The fight is over, `expect_round` does not match, `hp` names no
                member, or another round was kept meanwhile (nothing is kept then).

        Example:
            >>> import fracas
            >>> enc = fracas.Encounter.new("duel", "@ww-duel", replace=True)
            >>> enc.round(seed=7)["round"]
            1
        """
        if request_key is not None:
            played = self.store.played_by(self.name, request_key)
            if played is not None:
                return played
        self._expect(expect_round)
        if hp:
            self._sync(hp)
            self.fight.decide()  # the table's bars may have ended it
        if self.fight.over:
            raise EncounterError("$.name", f"the fight of {self.name!r} is over"
                                           f" ({'won by ' + self.fight.winner if self.fight.winner else 'a draw'},"
                                           f" round {self.fight.round}); undo a round or make a new encounter")
        check_seed(seed, "$.seed")
        seed = new_seed() if seed is None else seed
        log = self.fight.play_round(seed)
        log["encounter"] = self.name
        log["ruleset"] = self.compiled.ruleset.name
        log["standing"] = {side: len(self.fight.standing(s)) for s, side in enumerate(self.compiled.sides)}
        log["members"] = {m.id: {"status": m.status, "hp": m.hp, **({"injury": m.injury} if m.injury_max else {})}
                          for m in self.fight.members}
        try:
            self.store.advance(self.name, self.seq, self.fight.state(), log, request_key,
                               also=None if within is None else (lambda db: within(db, log)))
        except Conflict:
            raise EncounterError("$.name", f"{self.name!r} changed while this round was played (another round"
                                           " or undo); nothing was kept, show it and play again") from None
        self.seq += 1
        return log

    def undo(self, *, expect_round: Optional[int] = None, within: Within = None) -> dict[str, Any]:
        """Go back to the state before the last round kept.

        Args:
            expect_round: Refuse unless the encounter is at this round (it changed elsewhere).
            within: Called inside the store's transaction with the connection and the result.

        Returns:
            `show()` of the state it went back to.

        Raises:
            EncounterError: No round was kept, `expect_round` does not match, or the encounter
                changed meanwhile (nothing is undone then).

        Example:
            >>> import fracas
            >>> enc = fracas.Encounter.new("duel", "@ww-duel", replace=True)
            >>> _ = enc.round(seed=7)
            >>> enc.undo()["round"]
            0
        """
        self._expect(expect_round)
        if self.seq == 0:
            raise EncounterError("$.name", f"{self.name!r} has no round to undo")
        # The result is made before the write (the state before the last round, the rounds
        # kept but that one), so that it is journaled in the same transaction; the write
        # checks that nothing changed meanwhile.
        state = self.store.state_at(self.name, self.seq - 1)
        rounds = self.store.rounds(self.name)[:-1]
        if state is None:
            raise EncounterError("$.name", f"{self.name!r} changed meanwhile; nothing was undone")
        back = Encounter(self.name, self.compiled, Fight(self.compiled, state), self.seq - 1, self.store)
        shown = back._show(rounds)
        try:
            self.store.undo(self.name, self.seq, also=None if within is None else (lambda db: within(db, shown)))
        except Conflict:
            raise EncounterError("$.name", f"{self.name!r} changed meanwhile; nothing was undone") from None
        self.seq, self.fight = back.seq, back.fight
        return shown

    def last_round(self, round_: Optional[int] = None) -> Optional[dict[str, Any]]:
        """The kept log of a round played.

        Args:
            round_: The round's number (the last one when None).

        Returns:
            The log `round()` returned for it, or None when no such round is kept.

        Example:
            >>> import fracas
            >>> enc = fracas.Encounter.new("duel", "@ww-duel", replace=True)
            >>> enc.last_round() is None
            True
            >>> enc.round(seed=7) == enc.last_round(1)
            True
        """
        return self.store.round_log(self.name, round_)
