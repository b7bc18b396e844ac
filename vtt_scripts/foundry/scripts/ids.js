// Request ids are the bridge's idempotency keys: one per logical request, reused when
// the same request is resent after a reconnect. `crypto.getRandomValues` exists in
// insecure contexts too (a Foundry served over plain http on a LAN address), unlike
// `crypto.randomUUID`.

/** A random RFC 4122 version-4 UUID string. */
export function newRequestId(cryptoImpl = globalThis.crypto) {
  const b = cryptoImpl.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
