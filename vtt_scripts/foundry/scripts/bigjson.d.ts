// The types of bigjson.js, which is generated from the Roll20 Mod script's codec
// (python -m fracas.spec) and not written for a type checker: JSON with exact big integers.

/** JSON.parse, but integer literals beyond 2**53 keep every digit (as BigInt). */
export function parse(text: string): unknown;
/** JSON.stringify that writes BigInts as bare integer literals. */
export function stringify(value: unknown, indent?: string | number): string;
