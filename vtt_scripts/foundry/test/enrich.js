// A model of what v13's TextEditor.enrichHTML sees in a card: it walks the text nodes
// and matches its patterns against each node's *decoded* textContent (foundry.js
// TextEditor#_getTextNodes, #_replaceTextContent). For node tests without a DOM: the
// text between tags, entities decoded, one string per text node.

const ENTITIES = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** The decoded text nodes of `html` (comments and attributes are not text). */
export function textNodes(html) {
  return String(html).replace(/<!--[\s\S]*?-->/g, "<>").split(/<[^>]*>/).filter((s) => s !== "")
    .map((s) => s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e) => {
      if (e[0] === "#") return String.fromCodePoint(e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : Number(e.slice(1)));
      return ENTITIES[e.toLowerCase()] ?? m;
    }));
}

/** v13's core patterns: inline rolls and content links / embeds (foundry.js TextEditor). */
export const ENRICHER_PATTERNS = [/\[\[(\/[a-zA-Z]+\s)?(.*?)(]{2,3})(?:{([^}]+)})?/, /@(\w+)\[([^#\]]+)(?:#([^\]]+))?](?:{([^}]+)})?/];

/** The enrichments v13 would make in `html`: [{pattern, text}] (empty when none). */
export function enrichments(html) {
  const found = [];
  for (const text of textNodes(html)) for (const p of ENRICHER_PATTERNS) if (p.test(text)) found.push({ pattern: String(p), text });
  return found;
}
