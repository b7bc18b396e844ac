'use strict';
// Reading a token and its character sheet into the engine's attacker and target
// (docs/ENGINE.md section 6). Attribute names come from `!fracas config --attr`;
// conditions come from the token's markers (`!fracas config --marker`).

const { UsageError, SheetError } = require('./usage');
const { markerFor } = require('./config');
const { CONDITIONS, DAMAGE_TYPES, SIZES } = require('../schema');

/** The display name of a token (its name, else its character's, else its id). */
function tokenName(edge, token) {
  const name = token.get('name');
  if (name) return String(name);
  const character = edge.getCharacter(token.get('represents'));
  if (character && character.get('name')) return String(character.get('name'));
  return token.id;
}

/** The token marker tags on a token, lower case, without counts (`@2`) or ids (`::123`). */
function markerTags(token) {
  const raw = String(token.get('statusmarkers') || '');
  return raw.split(',').map((m) => m.split('@')[0].split('::')[0].trim().toLowerCase()).filter(Boolean);
}

/** The ER conditions a token shows, in the engine's order. */
function tokenConditions(config, token) {
  const tags = new Set(markerTags(token));
  return CONDITIONS.filter((c) => tags.has(markerFor(config, c)));
}

// Fields every sheet has: a sheet default counts for these (see edge.attribute).
const CORE_FIELDS = ['ac', 'strength', 'agility', 'size'];

class SheetReader {
  constructor(edge, config, token) {
    this.edge = edge;
    this.config = config;
    this.token = token;
    this.name = tokenName(edge, token);
    const id = token.get('represents');
    this.character = id ? edge.getCharacter(id) : null;
  }

  raw(field, suffix = '') {
    if (!this.character) return null;
    const name = this.config.attrs[field] + suffix;
    const value = this.edge.attribute(this.character.id, name, CORE_FIELDS.includes(field) && !suffix);
    if (value === null || value === undefined) return null;
    const text = String(value).trim();
    return text === '' ? null : { name, text };
  }

  number(field, suffix = '') {
    const found = this.raw(field, suffix);
    if (!found) return null;
    if (!/^[+-]?\d{1,7}$/.test(found.text)) {
      throw new SheetError(`${this.name}: the attribute "${found.name}" is "${found.text}", not a whole number`, this.token);
    }
    return Number(found.text);
  }

  names(field, allowed, what) {
    const found = this.raw(field);
    if (!found) return [];
    const list = found.text.toLowerCase().split(/[\s,;/]+/).filter(Boolean);
    for (const item of list) {
      if (!allowed.includes(item)) {
        throw new SheetError(`${this.name}: the attribute "${found.name}" names "${item}", not a ${what} ` +
          `(one of: ${allowed.join(', ')})`, this.token);
      }
    }
    return Array.from(new Set(list));
  }

  flag(field) {
    const found = this.raw(field);
    return !!found && ['1', 'on', 'yes', 'true'].includes(found.text.toLowerCase());
  }

  size() {
    const found = this.raw('size');
    if (!found) return null;
    const size = found.text.toLowerCase();
    if (!SIZES.includes(size)) {
      throw new SheetError(`${this.name}: the attribute "${found.name}" is "${found.text}", not a size ` +
        `(one of: ${SIZES.join(', ')})`, this.token);
    }
    return size;
  }

  /** The request's `attacker` object; `extra` adds command options (obscurement). */
  attacker(extra = {}) {
    const spec = {};
    for (const field of ['strength', 'agility', 'strength_mod', 'agility_mod', 'swim_speed']) {
      const v = this.number(field);
      if (v !== null) spec[field] = v;
    }
    const size = this.size();
    if (size) spec.size = size;
    const conditions = tokenConditions(this.config, this.token);
    if (conditions.length) spec.conditions = conditions;
    return Object.assign(spec, extra);
  }

  /** The request's target object for this token; `extra` adds command options (cover). */
  target(extra = {}) {
    const spec = {};
    let ac = this.number('ac');
    if (extra.ac !== undefined) ac = extra.ac;
    if (ac === null) {
      throw new UsageError(this.character
        ? `${this.name} has no "${this.config.attrs.ac}" attribute: add one, or set the name with !fracas config --attr ac=NAME`
        : `${this.name} represents no character, so its AC is unknown: link it to a character, or give --ac`);
    }
    spec.ac = ac;
    const byType = {};
    for (const type of DAMAGE_TYPES) {
      const found = this.character ? this.edge.attribute(this.character.id, this.config.attrs.ac_prefix + type) : null;
      if (found !== null && found !== undefined && String(found).trim() !== '') {
        const text = String(found).trim();
        if (!/^[+-]?\d{1,7}$/.test(text)) {
          throw new SheetError(`${this.name}: the attribute "${this.config.attrs.ac_prefix + type}" is "${text}", not a whole number`, this.token);
        }
        byType[type] = Number(text);
      }
    }
    if (Object.keys(byType).length) spec.ac_by_type = byType;
    const size = this.size();
    if (size) spec.size = size;
    for (const field of ['resistant', 'vulnerable', 'immune']) {
      const list = this.names(field, DAMAGE_TYPES, 'damage type');
      if (list.length) spec[field] = list;
    }
    const conditions = tokenConditions(this.config, this.token);
    if (conditions.length) spec.conditions = conditions;
    if (extra.cover && extra.cover !== 'none') spec.cover = extra.cover;
    const bodyMax = Number(this.token.get(`bar${this.config.bar}_max`));
    if (Number.isInteger(bodyMax) && bodyMax >= 1 && bodyMax <= 1000000) spec.body_max = bodyMax;
    if (this.flag('crit_proof')) spec.crit_proof = true;
    const save = this.number('save_bonus');
    if (save !== null) spec.save_bonus = save;
    return spec;
  }
}

module.exports = { SheetReader, tokenName, tokenConditions, markerTags };
