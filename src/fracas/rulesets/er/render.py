"""Readable breakdowns of results: a renderer per output, one hook per node.

A renderer walks a result document (the JSON-ready dicts of docs/ENGINE.md §7 and
the bulk summary) and asks one hook per node for its text: `die`, `crit_die`,
`strike`, `target`, `bulk_target`, `group`, … Rolling never depends on output: a new
output (a chat card, Markdown) is a new subclass of `Renderer`, not new branches.
`TerminalRenderer` is the one the `fracas` CLI prints for Enchanted Realms results.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

#: How a die joined the pool, as shown next to its face.
SOURCES = {"skill": "", "advantage": "adv ", "sneak": "sneak ", "disadvantage": "disadv "}
RESISTANCE = {"normal": "", "resistant": "resistant: halved", "vulnerable": "vulnerable: doubled",
              "immune": "immune: no damage"}
SPARKS = "▁▂▃▄▅▆▇█"


def _signed(value: int) -> str:
    return f"+{value}" if value >= 0 else str(value)


class Renderer:
    """Walks a result; subclasses say how each node reads.

    `render(result)` picks the walk by the document's kind (one attack, a bulk
    summary, an initiative order). The walks (`attack`, `bulk`, `initiative`) call
    the hooks and join what they return.
    """

    def render(self, result: dict[str, Any]) -> str:
        if "order" in result:
            return self.initiative(result)
        if "contest" in result:
            return self.competition(result)
        if "impalement" in result:
            return self.impalement(result)
        if "p_failures" in result:
            return self.saves(result)
        if "p_touch" in result:
            return self.touch(result)
        if result.get("phase") in ("drop", "inflict"):
            return self.drop(result)
        if "rebuff_allowed" in result:
            return self.weapon_lock(result)
        if "thrown" in result:
            return self.throw(result)
        if "placed_within_ft" in result:
            return self.slam(result)
        if "groups" in result:
            return self.bulk(result)
        return self.attack(result)

    # -- walks -----------------------------------------------------------------------
    def attack(self, result: dict[str, Any]) -> str:
        parts = [self.attack_header(result)]
        for index, strike in enumerate(result["strikes"]):
            dice = [self.die(die, strike) for die in strike["dice"]]
            chain = [self.crit_die(link, strike) for link in strike["crit_chain"]]
            parts.append(self.strike(index, strike, dice, chain))
        targets = [self.target(tid, target) for tid, target in result["targets"].items()]
        parts.append(self.targets(targets))
        parts.append(self.attack_footer(result))
        return self.join(parts)

    def bulk(self, result: dict[str, Any]) -> str:
        parts = [self.bulk_header(result)]
        parts.append(self.bulk_targets([(tid, t) for tid, t in result["targets"].items()]))
        parts.append(self.groups(list(enumerate(result["groups"]))))
        parts.append(self.bulk_footer(result))
        return self.join(parts)

    def initiative(self, result: dict[str, Any]) -> str:
        rows = [self.combatant(rank, entry) for rank, entry in enumerate(result["order"], 1)]
        return self.join([self.initiative_header(result), *rows])

    def competition(self, result: dict[str, Any]) -> str:
        raise NotImplementedError

    def saves(self, result: dict[str, Any]) -> str:
        raise NotImplementedError

    def weapon_lock(self, result: dict[str, Any]) -> str:
        raise NotImplementedError

    def throw(self, result: dict[str, Any]) -> str:
        raise NotImplementedError

    def slam(self, result: dict[str, Any]) -> str:
        raise NotImplementedError

    def impalement(self, result: dict[str, Any]) -> str:
        raise NotImplementedError

    def touch(self, result: dict[str, Any]) -> str:
        raise NotImplementedError

    def drop(self, result: dict[str, Any]) -> str:
        raise NotImplementedError

    # -- hooks -----------------------------------------------------------------------
    def join(self, parts: list[str]) -> str:
        return "\n".join(part for part in parts if part)

    def attack_header(self, result: dict[str, Any]) -> str:
        raise NotImplementedError

    def die(self, die: dict[str, Any], strike: dict[str, Any]) -> str:
        raise NotImplementedError

    def crit_die(self, link: dict[str, Any], strike: dict[str, Any]) -> str:
        raise NotImplementedError

    def strike(self, index: int, strike: dict[str, Any], dice: list[str], chain: list[str]) -> str:
        raise NotImplementedError

    def target(self, tid: str, target: dict[str, Any]) -> str:
        raise NotImplementedError

    def targets(self, rendered: list[str]) -> str:
        raise NotImplementedError

    def attack_footer(self, result: dict[str, Any]) -> str:
        raise NotImplementedError

    def bulk_header(self, result: dict[str, Any]) -> str:
        raise NotImplementedError

    def bulk_targets(self, targets: list[tuple[str, dict[str, Any]]]) -> str:
        raise NotImplementedError

    def groups(self, groups: list[tuple[int, dict[str, Any]]]) -> str:
        raise NotImplementedError

    def bulk_footer(self, result: dict[str, Any]) -> str:
        raise NotImplementedError

    def initiative_header(self, result: dict[str, Any]) -> str:
        raise NotImplementedError

    def combatant(self, rank: int, entry: dict[str, Any]) -> str:
        raise NotImplementedError


def _plain(text: str, **_style: Any) -> str:
    return text


class TerminalRenderer(Renderer):
    """Plain text for a terminal, optionally styled (`style` is `click.style`)."""

    def __init__(self, style: Optional[Callable[..., str]] = None):
        self.style = style or _plain

    # -- one attack ------------------------------------------------------------------
    def attack_header(self, result: Any) -> Any:
        bits = [f"seed {result['seed']}", result["ruleset"], f"{result.get('backend', '?')} backend"]
        if result.get("injected"):
            bits.append("injected dice")
        head = self.style("Attack", bold=True) + " · " + " · ".join(bits)
        flee = result.get("flee")
        if flee:
            head += (f"\nFlee attack (ER-20): the target moved {flee['moved']} ft, a {flee['speed']} move: "
                     f"{flee['dice']}d20")
        if result.get("defense_rolls"):
            head += "\nDefense rolls (ER-22): the target's player rolls d20 + AC against DC 21 + the to-hit"
        return head

    def die(self, die: Any, strike: Any) -> Any:
        text = f"{SOURCES.get(die['source'], die['source'] + ' ')}{die['face']}→{die['total']}"
        if "avoided" in die:  # ER-22: the player's defense die
            if die["face"] == 20:
                return self.style(text + " avoided (natural 20)", fg="green", bold=True)
            if die["face"] == 1:
                return self.style(text + " hit (raw 1)", fg="red", bold=True)
            return self.style(text + (" avoided" if die["avoided"] else " hit"), fg=None if die["avoided"] else "red",
                              dim=die["avoided"])
        if die["face"] == 20:
            return self.style(text + " hit (natural 20)", fg="yellow", bold=True)
        if die["hit"]:
            return self.style(text + " hit", fg="green")
        if die["face"] == 1:
            return self.style(text + " miss (natural 1)", dim=True)
        return self.style(text + " miss", dim=True)

    def crit_die(self, link: Any, strike: Any) -> Any:
        text = f"{link['face']}→{link['total']}"
        if link["hit"]:
            text += f" hit, d3 {link['damage']}"
        else:
            text += " miss"
        if link["face"] == 20:
            text += " (20: another crit die)"
        return self.style(text, fg="yellow" if link["hit"] else None, dim=not link["hit"])

    def strike(self, index: Any, strike: Any, dice: Any, chain: Any) -> Any:
        flags = [name for name in ("advantage", "disadvantage") if strike.get(name)]
        if strike.get("sneak"):
            flags.append("sneak" if strike["sneak"] is True else f"sneak ({strike['sneak']})")
        crit = "no crits" if strike["crit_range"] is None else (
            "crits on 20" if strike["crit_range"] == 20 else f"crits on {strike['crit_range']}-20")
        if strike.get("defense_dc") is not None:
            head = (f"Strike {index + 1} → {strike['target']}: {strike['method']}, {strike['style']}, "
                    f"{strike['damage_type']} · {len(strike['dice'])} defense d20 +{strike['ac']} (AC) "
                    f"vs DC {strike['defense_dc']} · 1 point per die not avoided")
        else:
            head = (f"Strike {index + 1} → {strike['target']}: {strike['method']}, {strike['style']}, "
                    f"{strike['damage_type']} · {len(strike['dice'])}d20 {_signed(strike['to_hit'])} "
                    f"vs AC {strike['ac']} · {crit}")
        if flags:
            head += " · " + ", ".join(flags)
        lines = [self.style(head, bold=True), "  dice        " + " · ".join(dice)]
        if strike.get("discarded") is not None:
            which = "lowest die: the monster's disadvantage" if strike.get("defense_dc") is not None else \
                "highest die, disadvantage"
            lines.append(f"  discarded   {strike['discarded']} ({which})")
        if chain:
            lines.append("  crit chain  " + " · ".join(chain))
        summary = [f"{strike['hits']} hit" + ("" if strike["hits"] == 1 else "s")]
        if strike["crit"]:
            summary.append(f"crit ({len(strike['crit_chain'])} crit "
                           f"{'die' if len(strike['crit_chain']) == 1 else 'dice'})")
        summary.append(f"base {strike['base']}")
        if strike.get("modifier") is not None:
            summary.append(f"modifier {_signed(strike['modifier'])}")
        if RESISTANCE.get(strike["resistance"]):
            summary.append(RESISTANCE[strike["resistance"]])
        summary.append(self.style(f"damage {strike['damage']}", bold=True))
        if strike.get("undodgeable"):
            summary.append(f"undodgeable {strike['undodgeable']}")
        lines.append("  result      " + " · ".join(summary))
        stray = strike.get("stray")
        if stray:
            lines.append(self.stray(stray))
        elif strike.get("friendly_fire"):
            lines.append("  friendly fire (ER-17): a miss would stray to the creatures nearby")
        return "\n".join(lines)

    def stray(self, stray: Any) -> Any:
        """ER-17: where a missed shot under friendly fire went."""
        text = f"  stray shot  d10 {stray['roll']}: {stray['why']}"
        if stray["creature"] is not None and stray["ac"] is not None:
            dice = " · ".join(f"{d['face']}+2={d['shifted']}→{d['total']} {'hit' if d['hit'] else 'miss'}"
                              + (" (natural 20)" if d["shifted"] == 20 else "") for d in stray["dice"])
            text += f"\n              vs AC {stray['ac']}: {dice}"
            if stray["crit_chain"]:
                text += "\n              crit chain " + " · ".join(
                    f"{c['face']}→{c['total']} " + (f"hit, d3 {c['damage']}" if c["hit"] else "miss")
                    for c in stray["crit_chain"])
            if stray["hits"]:
                text += "\n              " + self.style(f"{stray['creature']} takes {stray['damage']} damage",
                                                         bold=True, fg="red")
        return text

    def target(self, tid: Any, target: Any) -> Any:
        by_type = ", ".join(f"{kind} {amount}" for kind, amount in target["by_type"].items())
        text = f"  {tid}: " + self.style(f"{target['damage']} damage", bold=True)
        if by_type:
            text += f" ({by_type})"
        if target.get("undodgeable"):
            text += f" · undodgeable {target['undodgeable']}"
        save = target.get("shock_save")
        if save:
            edge = _edge(save.get("situation"))
            if save.get("situation") and save["situation"]["automatic_failure"]:
                text += (f" · shock save DC {save['dc']}: fails automatically ({edge}), incapacitated for "
                         f"{save['incapacitated_actions']} actions")
            elif save.get("roll") is None:
                text += f" · shock: Resilience save DC {save['dc']} required"
            else:
                verdict = "passed" if save["passed"] else (
                    f"failed: incapacitated for {save['incapacitated_actions']} actions")
                rolled = "/".join(map(str, save.get("dice") or [save["roll"]]))
                text += (f" · shock save DC {save['dc']}: rolled {rolled}{' (' + edge + ')' if edge else ''}"
                         f" → {save['total']}, {verdict}")
        elif target.get("shock_save_dc") is not None:
            text += f" · shock: Resilience save DC {target['shock_save_dc']} required"
        release = target.get("grapple_release")
        if release:
            text += self._release(release)
        return text

    def _release(self, release: Any) -> str:
        """ER-21: one Strength feat per strike that dealt body damage, until the first failure."""
        edge = _edge(release.get("situation"))
        feats = release.get("feats") or [dict(release, strike=None, dice=[release.get("roll")])]
        if release.get("situation") and release["situation"]["automatic_failure"]:
            return f" · grappling: Strength feat DC {feats[0]['dc']} fails automatically ({edge}): lets go (ER-21)"
        if release.get("held") is None:
            dcs = ", then ".join(f"DC {f['dc']}" for f in feats)
            return f" · grappling: Strength feat {dcs}{' (' + edge + ')' if edge else ''} or let go (ER-21)"
        parts = []
        for f in feats:
            verdict = "holds" if f["held"] else "lets go"
            rolled = "/".join(map(str, f["dice"]))
            parts.append(f"DC {f['dc']}: rolled {rolled} {_signed(f['modifier'])} = {f['total']}, {verdict}")
        return f" · grappling{' (' + edge + ')' if edge else ''}: Strength feat " + "; ".join(parts)

    def targets(self, rendered: Any) -> Any:
        return self.style("Targets", bold=True) + "\n" + "\n".join(rendered)

    def attack_footer(self, result: Any) -> Any:
        return self.style(f"Total damage: {result['total_damage']}", bold=True)

    # -- bulk ------------------------------------------------------------------------
    def bulk_header(self, result: Any) -> Any:
        return (self.style("Bulk", bold=True) + f" · {result['attacks_total']:,} attacks · "
                f"{result['ruleset']} · detail {result.get('detail', 'summary')}\n"
                f"  seed {result['seed']} · {result.get('backend', '?')} backend")

    def bulk_targets(self, targets: Any) -> Any:
        # Short headers and two-space gaps: the table fits 80 columns (a crit chain's length, undodgeable damage).
        header = ["target", "damage", "by type", "attacks", "hit", "crits", "chain", "undodge"]
        rows = []
        for tid, t in targets:
            hit = f"{t['attacks_hit']:,}"
            if t["attacks"]:
                hit += f" ({t['attacks_hit'] / t['attacks']:.1%})"
            rows.append([tid, f"{t['damage']:,}",
                         ", ".join(f"{k} {v:,}" for k, v in t["by_type"].items()) or "—",
                         f"{t['attacks']:,}", hit, f"{t['crits']:,}", f"{t['longest_chain']}",
                         f"{t['undodgeable']:,}"])
        return self.style("Targets", bold=True) + "\n" + "\n".join(table(header, rows, "lrlrrrrr"))

    def groups(self, groups: Any) -> Any:
        header = ["#", "profile", "target", "count", "hit", "mean", "crits", "damage histogram"]
        rows = []
        for index, g in groups:
            target = g["target"] if isinstance(g["target"], str) else ", ".join(g["target"])
            rows.append([str(index + 1), g["profile"], target, f"{g['count']:,}", f"{g['hit_rate']:.1%}",
                         f"{g['mean_damage']:.2f}", f"{g['crits']:,}", sparkline(g["histogram"])])
        lines = table(header, rows, "rllrrrrl")
        # What bulk does not roll is said, never dropped silently (ER-13, ER-17).
        for index, g in groups:
            if g.get("shock_checks"):
                lines.append(f"  group {index + 1}: {g['shock_checks']:,} shock save(s) due, not rolled: the sneak "
                             "damage reached half the target's Body (DC 5 + that damage, ER-13)")
            if g.get("strays_omitted"):
                lines.append(f"  group {index + 1}: {g['strays_omitted']:,} shot(s) under friendly fire missed "
                             "entirely: their strays are not rolled in bulk (ER-17)")
        return self.style("Groups", bold=True) + "\n" + "\n".join(lines)

    def bulk_footer(self, result: Any) -> Any:
        text = self.style(f"Total damage: {result['total_damage']:,}", bold=True)
        if "attacks" in result:
            text += f"\n({len(result['attacks']):,} attacks listed one by one: see --json)"
        return text

    # -- competitions and impalement ---------------------------------------------------
    def competition(self, result: Any) -> Any:
        lines = [self.style("Competition", bold=True) + f" · {result['contest']} · seed {result['seed']}"
                 + (" · slick ground" if result.get("slick") else "")]
        for name in ("challenger", "defender"):
            side = result[name]
            parts = [f"{side['attribute']} {_signed(side['modifier'])}"]
            if side["bonus"]:
                parts.append(f"bonus {_signed(side['bonus'])}")
            parts += [f"{s['why']} {_signed(s['value'])}" for s in side["situation"]]
            edge = _edge(side if "advantage_from" in side else None)
            edge = f" · {edge}" if edge else (" · advantage" if side["advantage"] else
                                              " · disadvantage" if side["disadvantage"] else "")
            lines.append(f"  {side['id']} ({name}): d12 {_signed(side['total_modifier'])} "
                         f"({', '.join(parts)}){edge} · {side['win_chance']:.1%} to win")
        for i, r in enumerate(result["rounds"], 1):
            c, d = r["challenger"], r["defender"]
            tie = " · tie, roll again" if c["total"] == d["total"] else ""
            lines.append(f"  roll {i}: {result['challenger']['id']} {'/'.join(map(str, c['dice']))}→{c['total']}"
                         f" vs {result['defender']['id']} {'/'.join(map(str, d['dice']))}→{d['total']}{tie}")
        inc = result.get("incidental")
        if inc:  # "ER Grappling: Uncommon Conditions"
            odds = f"P(hurt) {inc['p_dealt']:.1%}"
            if inc["p_delivered"]:
                odds += f" · P({inc['special'] or 'poison'}) {inc['p_delivered']:.1%}"
            if inc["p_release"] is not None:
                odds += f" · P(released) {inc['p_release']:.1%}"
            raw = "no roll" if inc["raw"] is None else f"raw {inc['raw']}"
            lines.append(f"  savage form: {inc['by']}'s {inc['strike']} ({inc['damage_type']}) · {raw} · "
                         f"{inc['damage']} damage to {inc['to']} · {odds}")
            rel = inc["release"]
            if rel is not None:
                got = ("the table rolls it" if rel["roll"] is None else
                       f"{'/'.join(map(str, rel['dice']))}→{rel['total']} · {'holds' if rel['held'] else 'lets go'}")
                lines.append(f"  {inc['to']}'s Strength feat DC {rel['dc']}: {got}")
        lines.append(self.style(result["outcome"], bold=True))
        return "\n".join(lines)

    def impalement(self, result: Any) -> Any:
        ch = result["charger"]
        lines = [self.style("Impalement", bold=True) + f" · seed {result['seed']} · {result['dice']}d20 · "
                 f"{ch['id']} closed {result['closed']} ft"]
        lines.append(self._inner_attack(result["impalement"]))
        state = ("incapacitated: the charge is void" if ch["incapacitated"] else
                 f"still standing ({ch['body_after']} Body left)")
        lines.append(self.style(f"{ch['id']}: {ch['body']} Body - {ch['damage']} = {ch['body_after']}, {state}",
                                bold=True))
        if result.get("charge"):
            lines.append(self.style("The charge", bold=True))
            lines.append(self._inner_attack(result["charge"]))
        return "\n".join(lines)

    def saves(self, result: Any) -> Any:
        what = result["effect"] or ("an area effect" if result["area"] else "an effect")
        lines = [self.style("Saves", bold=True) + f" · {result['save']} DC {result['dc']} against {what}"
                 f" · seed {result['seed']}"]
        for t in result["targets"]:
            parts = [f"{result['save']} {_signed(t['modifier'])}"]
            if t["bonus"]:
                parts.append(f"bonus {_signed(t['bonus'])}")
            if t["cover_bonus"]:
                parts.append(f"{t['cover']} cover {_signed(t['cover_bonus'])}")
            edge = _edge(t)
            edge = f" · {edge}" if edge else ""
            if t["automatic_failure"]:
                roll = "no roll"
            else:
                roll = f"{'/'.join(map(str, t['dice']))}→{t['total']}"
            verdict = "saves" if t["saved"] else "fails"
            added = [c for c in t["conditions_after"] if c not in t["conditions"]]
            tail = f" · now {', '.join(added)}" if added else ""
            lines.append(f"  {t['id']}: d20 {_signed(t['total_modifier'])} ({', '.join(parts)}){edge}"
                         f" · {roll} · {verdict} ({t['p_save']:.1%} to save){tail}")
        summary = (f"{len(result['saved'])} saved, {len(result['failed'])} failed"
                   + (f": {', '.join(result['failed'])}" if result["failed"] else ""))
        lines.append(self.style(summary, bold=True))
        return "\n".join(lines)

    def touch(self, result: Any) -> Any:
        """A touch attack: the hit's dice, or the sleight's d20 against its DC."""
        head = self.style("Touch", bold=True) + f" · {result['touch']} · {result['target']} · seed {result['seed']}"
        lines = [head]
        if result["hit"] is not None:
            hit = result["hit"]
            edge = "advantage" if hit["advantage"] else "disadvantage" if hit["disadvantage"] else ""
            dice = " ".join(f"{d['face']}{'✓' if d['hit'] else '✗'}" for d in hit["dice"])
            dropped = f" (dropped {hit['discarded']})" if hit["discarded"] is not None else ""
            lines.append(f"  d20 +{hit['to_hit']} vs AC {hit['ac']}{' · ' + edge if edge else ''}: {dice}{dropped}")
            verdict = "touched (no damage)" if result["touched"] else "no touch"
        else:
            sl = result["sleight"]
            edge = _edge(sl["situation"])
            roll = "no roll" if sl["kept"] is None else f"{'/'.join(map(str, sl['dice']))}→{sl['total']}"
            lines.append(f"  sleight of hand: d20 {_signed(sl['total_modifier'])}{' · ' + edge if edge else ''} vs DC "
                         f"{sl['dc']} (10 {_signed(sl['target_agility_mod'])} Agility "
                         f"{_signed(sl['target_other_ac'])} Other AC) · {roll}")
            verdict = ("touched, unnoticed" if result["clandestine"] else "touched" if result["touched"]
                       else "no touch")
            verdict += f" ({result['p_clandestine']:.1%} unnoticed)"
        lines.append(self.style(f"{verdict} · {result['p_touch']:.1%} to touch", bold=True))
        return "\n".join(lines)

    def drop(self, result: Any) -> Any:
        """Getting the drop: the attack and its held damage, or the damage inflicted."""
        lines = [self.style("Getting the drop", bold=True) + f" · {result['victim']} · seed {result['seed']}"]
        if result["attack"] is not None:
            lines.append(self._inner_attack(result["attack"]))
            if result["surrenders"]:
                lines.append(self.style(f"{result['held']} damage held over {result['victim']}", bold=True))
            else:
                lines.append(self.style(f"{result['victim']} cannot surrender: a plain sneak attack, "
                                        f"{result['inflicted']} damage dealt", bold=True))
            return "\n".join(lines)
        rel = result["release"]
        edge = _edge(rel["situation"])
        roll = "no roll" if rel["kept"] is None else f"{'/'.join(map(str, rel['dice']))}→{rel['total']}"
        lines.append(f"  {rel['attribute']} feat d20 {_signed(rel['total_modifier'])}{' · ' + edge if edge else ''} "
                     f"vs DC {rel['dc']} (after {rel['rounds']} rounds) · {roll} · "
                     f"{rel['p_half']:.1%} for half")
        verdict = "halved" if rel["halved"] else "full"
        lines.append(self.style(f"{result['held']} held → {result['inflicted']} dealt ({verdict})", bold=True))
        if rel["shock_save"]:
            lines.append(f"  shock: a Resilience save DC {rel['shock_save']['dc']} (ER-13)")
        return "\n".join(lines)

    def throw(self, result: Any) -> Any:
        """A thrown item or a hurled spell ("ER Throwing Items"): its d20s, any hit enough."""
        what = "Throwing magic" if result["magic"] else f"Thrown {result['item']}"
        lines = [self.style(what, bold=True) + f" · {result['target']} · skill {result['skill']}"
                 f" · seed {result['seed']}"]
        t = result["thrown"]
        edge = "advantage" if t["advantage"] else "disadvantage" if t["disadvantage"] else ""
        dice = " ".join(f"{face}{'-' if i == t['dropped'] else '✓' if t['hits'][i] else '✗'}"
                        for i, face in enumerate(t["dice"]))
        agility = f" (Agility {_signed(t['agility_added'])})" if t["agility_added"] else ""
        lines.append(f"  {len(t['dice'])}d20 {_signed(t['to_hit'])}{agility} vs AC {t['ac']}"
                     f"{' · ' + edge if edge else ''}: {dice}")
        d = result["damage"]
        if d is not None:
            rolled = "/".join(map(str, d["dice"]))
            parts = [f"d{d['faces']} {rolled}" if d["dice"] else "", _signed(d["bonus"]) if d["bonus"] else ""]
            tail = f" ({RESISTANCE[result['resistance']]})" if result["resistance"] != "normal" else ""
            lines.append(f"  damage: {' '.join(p for p in parts if p)} = {d['base']} → {d['damage']}"
                         f" {result['damage_type']}{tail}")
        if result["note"]:
            lines.append(f"  {result['item']}: {result['note']}")
        lines.append(self.style(f"{'hit' if result['hit'] else 'miss'}: {result['text']}", bold=True)
                     + f" · P(hit) {result['p_hit']:.1%} · mean {result['mean_damage']:.2f}")
        return "\n".join(lines)

    def slam(self, result: Any) -> Any:
        """A grappler's slam ("ER Grappling: Uncommon Conditions")."""
        vd = result["victim_damage"]
        tall = "ten feet or taller" if result["tall"] else "under ten feet"
        lines = [self.style("Slam", bold=True) + f" · {result['grappler']} → {result['victim']} · seed {result['seed']}",
                 f"  {result['size_difference']} sizes larger · {tall} (by {result['tall_from']}) · Strength bonus "
                 f"{result['strength_bonus']}",
                 f"  {result['victim']}: {vd['damage']} {vd['damage_type']} damage"
                 + (f" ({vd['resistance']})" if vd["resistance"] != "normal" else "")
                 + f" · freed within {result['placed_within_ft']} ft"]
        t = result["into"]
        if t is not None:
            dice = " ".join(f"{d['face']}→{d['total']}{'✓' if d['hit'] else ''}{' (dropped)' if d['dropped'] else ''}"
                            for d in t["dice"])
            edge = " · disadvantage" if t["disadvantage"] else " · advantage" if t["advantage"] else ""
            lines.append(f"  hurled into {t['id']} (AC {t['ac']}, {t['distance']} ft): {dice}{edge} · "
                         f"{'hit' if t['hit'] else 'miss'} ({t['p_hit']:.1%}) · {t['damage']} blunt damage")
        lines.append(self.style(result["text"], bold=True))
        return "\n".join(lines)

    def weapon_lock(self, result: Any) -> Any:
        """A weapon lock, disarm or shield-blitz ("ER Weapon Negation")."""
        title = {"lock": "Weapon lock", "disarm": "Weapon disarm", "blitz": "Shield-blitz"}[result["mode"]]
        lines = [self.style(title, bold=True) + f" · {result['attacker']} → {result['victim']}"
                 f" · seed {result['seed']}"]
        if result["blitz"] is not None:
            b = result["blitz"]
            tail = f" ({b['resistance']})" if b["resistance"] != "normal" else ""
            lines.append(f"  d20 {b['die']} · {b['damage']} blunt damage{tail} · mean {b['mean']:.2f}")
        feat = result["feat"]
        if feat is not None:
            edge = _edge(feat)
            edge = f" · {edge}" if edge else ""
            nat = f" (natural {feat['natural']})" if feat["natural"] else ""
            lines.append(f"  feat: d20 {_signed(feat['total_modifier'])} vs AC {feat['ac']}{edge} · "
                         f"{'/'.join(map(str, feat['dice']))}→{feat['total']}{nat} · "
                         f"{'succeeds' if feat['success'] else 'fails'} ({feat['p_success']:.1%}) · no rebuff allowed")
        r = result["reaction"]
        if r is not None:
            if r["body_cost"] is not None:
                c = r["body_cost"]
                lines.append(f"  {result['victim']} resists: pays {c['points']} Body ({c['damage_type']},"
                             f" {c['weapon']} weapon)")
            for rnd in r["rounds"]:
                lines.append(f"  {r['attribute']} competition: {result['victim']} "
                             f"{'/'.join(map(str, rnd['victim']['dice']))}→{rnd['victim']['total']} vs "
                             f"{result['attacker']} {'/'.join(map(str, rnd['attacker']['dice']))}"
                             f"→{rnd['attacker']['total']} (advantage)")
            lines.append(f"  {result['victim']} wins the reaction {r['p_victim_wins']:.1%} of the time")
        lines.append(self.style(f"{result['outcome']}: {result['text']}", bold=True)
                     + f" · P({result['mode'] if result['mode'] != 'blitz' else 'damage'}) {result['p_effect']:.1%}")
        if result["free_cost_dice"]:
            lines.append(f"  freeing the weapon costs its wielder {result['free_cost_dice']} attack dice")
        return "\n".join(lines)

    def _inner_attack(self, attack: Any) -> Any:
        """An attack inside another result: its strikes and targets, without the header line."""
        return self.attack(attack).split("\n", 1)[1]

    # -- initiative ------------------------------------------------------------------
    def initiative_header(self, result: Any) -> Any:
        return self.style("Initiative", bold=True) + f" · seed {result['seed']} · {result['ruleset']}"

    def combatant(self, rank: Any, entry: Any) -> Any:
        text = (f"  {rank}. {entry['id']}: d10 {entry['roll']} {_signed(entry['modifier'])} = "
                f"{entry['total']}")
        if entry.get("tiebreaks"):
            text += " · tie broken by d20 " + ", ".join(str(f) for f in entry["tiebreaks"])
        return text


def sparkline(histogram: list[int]) -> str:
    """Damage 0, 1, 2, … as bar heights: `0▇▁▃█▅▂ 6` (the last bin is 'that much or more')."""
    if not histogram or not any(histogram):
        return "—"
    top = max(histogram)
    bars = "".join(" " if n == 0 else SPARKS[(n * len(SPARKS) - 1) // top] for n in histogram)
    return f"0{bars}{len(histogram) - 1}"


def table(header: list[str], rows: list[list[str]], align: str = "", indent: str = "  ") -> list[str]:
    """Columns padded to width; `align` has one 'l' or 'r' per column (default: the
    first left, the rest right)."""
    align = align or "l" + "r" * (len(header) - 1)
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    out = []
    for row in [header, *rows]:
        cells = [cell.ljust(widths[i]) if align[i] == "l" else cell.rjust(widths[i])
                 for i, cell in enumerate(row)]
        out.append(indent + "  ".join(cells).rstrip())
    return out


def _edge(situation: Any) -> str:
    """ER-12/ER-14 on a feat, save or competition roll, in words ("" when none applies)."""
    if not situation:
        return ""
    if situation.get("automatic_failure"):
        return f"{situation['automatic_failure']}: fails automatically"
    words = []
    if situation["advantage"]:
        words.append(f"advantage: {', '.join(situation['advantage_from'])}")
    if situation["disadvantage"]:
        words.append(f"disadvantage: {', '.join(situation['disadvantage_from'])}")
    penalty = situation.get("penalty")
    if penalty:
        words.append(f"{penalty['condition']} {_signed(penalty['value'])}")
    return "; ".join(words)
