'use strict';
// Parsing a `!fracas …` command line into a subcommand and `--flag value` options,
// in the manner of TokenMod and ChatSetAttr: options in any order, repeatable,
// quoted values, `{{ … }}` to spread a long command over several lines, and inline
// rolls (`[[1d4]]`) replaced by their totals.

const { UsageError } = require('./usage');

const MAX_TOKENS = 400;

/** Replace `$[[n]]` markers with the totals of the message's inline rolls. */
function expandInlineRolls(content, inlinerolls) {
  if (!Array.isArray(inlinerolls) || !inlinerolls.length) return content;
  return content.replace(/\$\[\[(\d+)\]\]/g, (whole, n) => {
    const roll = inlinerolls[Number(n)];
    const total = roll && roll.results && roll.results.total;
    return typeof total === 'number' && Number.isFinite(total) ? String(total) : whole;
  });
}

/** Split a command line into words; quotes group words, and are removed. */
function words(line) {
  const out = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  let m;
  while ((m = re.exec(line)) !== null) {
    if (out.length >= MAX_TOKENS) throw new UsageError(`too many words in one command (the most is ${MAX_TOKENS})`);
    out.push(m[1] !== undefined ? m[1] : m[2] !== undefined ? m[2] : m[3]);
  }
  return out;
}

/**
 * Parse `!fracas <sub> [positional…] [--flag [value…]]…`. Returns
 * {command, sub, positional: [], options: [{name, values: []}]} in the order given,
 * or null when the line is not for this script.
 */
function parse(content, prefix = '!fracas') {
  let line = String(content || '');
  // HTML line breaks from multi-line macros, and the {{ }} wrapper, are whitespace.
  line = line.replace(/<br\s*\/?>/gi, ' ').replace(/\s+/g, ' ').trim();
  const head = line.split(' ', 1)[0];
  if (head !== prefix) return null;
  line = line.slice(head.length).replace(/\{\{|\}\}/g, ' ').trim();
  const parts = words(line);
  const result = { sub: '', positional: [], options: [] };
  let i = 0;
  if (parts.length && !parts[0].startsWith('--')) {
    result.sub = parts[0].toLowerCase();
    i = 1;
  }
  let current = null;
  for (; i < parts.length; i++) {
    const word = parts[i];
    if (word.startsWith('--') && word.length > 2) {
      const body = word.slice(2);
      const eq = body.indexOf('=');
      // `--flag=value` and `--flag|value` are the same as `--flag value`.
      const sep = eq >= 0 ? eq : body.indexOf('|');
      current = { name: (sep >= 0 ? body.slice(0, sep) : body).toLowerCase(), values: [] };
      if (sep >= 0) current.values.push(body.slice(sep + 1));
      result.options.push(current);
    } else if (current) {
      current.values.push(word);
    } else {
      result.positional.push(word);
    }
  }
  return result;
}

/** Options (`--flag value…`) from text stored on a sheet, e.g. a strikes attribute. */
function parseOptions(text) {
  const parsed = parse(`!fracas x ${String(text || '')}`);
  if (parsed.positional.length) {
    throw new UsageError(`"${parsed.positional[0]}" is not an option (options start with --)`);
  }
  return parsed.options;
}

module.exports = { parse, parseOptions, words, expandInlineRolls, MAX_TOKENS };
