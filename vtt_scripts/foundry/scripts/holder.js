// Which client holds the bridge connection: exactly one, the active GM's first tab.
//
// Foundry lets one user log in from several tabs or machines at once, and each of them
// sees itself as `game.users.activeGM`. Left alone, every one of them would connect to
// the bridge and answer every player's request (two rolls, double damage). So the
// active GM's clients agree among themselves over the module socket:
//
//   * each client has a random id and the time it joined (`since`);
//   * on joining it says "hello", every other client of the same user answers with its
//     own id and time, and all of them repeat a short "here" beacon;
//   * the client with the earliest (since, id) among the live ones holds the bridge;
//     a newcomer listens for `listenMs` before it may claim, so it never holds while
//     an older tab it has not heard from yet is holding;
//   * a closing tab says "bye" (pagehide); a tab that stops beaconing for three beacons
//     is taken as gone. Either way the next oldest takes over (the hand-over).
//
// Only peers the server names as the same user count (the sender id is the server's,
// not a field of the message: the socket relay names the sender, as socketlib relies
// on in its `_onSocketReceived(message, senderId)`, manuelVo/foundryvtt-socketlib).
// No Foundry globals here: the socket, clock and ids are passed in.

/**
 * @typedef {{setTimeout: (fn: () => void, ms: number) => unknown, clearTimeout: (t: unknown) => void, now: () => number}} HolderClock
 */

export class HolderElection {
  #opts;
  /** @type {Map<string, {since: number, seen: number}>} client id → when it joined, when last heard */
  #peers = new Map();
  #listening = true;
  #started = false;
  /** @type {unknown} the beacon timer */
  #beacon = null;
  /** @type {unknown} the listening timer */
  #listen = null;
  #holds = false;

  /**
   * @param {object} opts
   * @param {string} opts.clientId       this tab's random id
   * @param {number} opts.since          when this tab joined (ms)
   * @param {(message: object) => void} opts.emit   send on the module socket (to the other clients)
   * @param {HolderClock} opts.clock
   * @param {number} [opts.beaconMs]
   * @param {number} [opts.listenMs]
   * @param {(holds: boolean) => void} [opts.onChange]
   */
  constructor(opts) {
    this.#opts = { beaconMs: 5000, listenMs: 1500, onChange: () => {}, ...opts };
  }

  /** Whether this client holds the bridge connection now. */
  get holds() {
    return this.#holds;
  }

  /** The other live clients of this user, oldest first (for the status text). */
  get peers() {
    return [...this.#peers.entries()].map(([client, p]) => ({ client, since: p.since }))
      .sort((a, b) => a.since - b.since || (a.client < b.client ? -1 : 1));
  }

  /** Join: say hello, start the beacon, and claim after the listening time unless an older tab answered. */
  start() {
    if (this.#started) return;
    this.#started = true;
    this.#listening = true;
    this.#send("hello");
    const { clock, listenMs } = this.#opts;
    this.#listen = clock.setTimeout(() => {
      this.#listen = null;
      this.#listening = false;
      this.#decide();
    }, listenMs);
    this.#tick();
  }

  /** Leave (the tab closes, or this user is no longer the active GM): say bye, hold nothing. */
  stop() {
    if (!this.#started) return;
    this.#started = false;
    const { clock } = this.#opts;
    if (this.#beacon) clock.clearTimeout(this.#beacon);
    if (this.#listen) clock.clearTimeout(this.#listen);
    this.#beacon = this.#listen = null;
    this.#send("bye");
    this.#peers.clear();
    this.#set(false);
  }

  /**
   * A message from the module socket, already known to come from this same user.
   * @param {{kind?: string, client?: unknown, since?: unknown}} message
   */
  receive(message) {
    if (!this.#started || !message || typeof message.client !== "string" || message.client === this.#opts.clientId) return;
    const { kind, client } = message;
    if (kind === "bye") {
      this.#peers.delete(client);
      this.#decide();
      return;
    }
    if (kind !== "hello" && kind !== "here") return;
    if (typeof message.since !== "number" || !Number.isFinite(message.since)) return;
    const known = this.#peers.has(client);
    this.#peers.set(client, { since: message.since, seen: this.#opts.clock.now() });
    // A newcomer learns of us at once, without waiting for our next beacon.
    if (kind === "hello" || !known) this.#send("here");
    this.#decide();
  }

  #tick() {
    const { clock, beaconMs } = this.#opts;
    this.#beacon = clock.setTimeout(() => {
      this.#beacon = null;
      if (!this.#started) return;
      // A peer silent for three beacons has gone (a crashed tab sends no bye).
      const now = clock.now();
      for (const [client, p] of this.#peers) if (now - p.seen > 3 * beaconMs) this.#peers.delete(client);
      this.#send("here");
      this.#decide();
      this.#tick();
    }, beaconMs);
  }

  #decide() {
    if (!this.#started || this.#listening) return;
    const { clientId, since } = this.#opts;
    const older = [...this.#peers.entries()].some(([client, p]) => p.since < since || (p.since === since && client < clientId));
    this.#set(!older);
  }

  /** @param {boolean} holds */
  #set(holds) {
    if (holds === this.#holds) return;
    this.#holds = holds;
    this.#opts.onChange(holds);
  }

  /** @param {"hello"|"here"|"bye"} kind */
  #send(kind) {
    try {
      this.#opts.emit({ type: "holder", kind, client: this.#opts.clientId, since: this.#opts.since });
    } catch {
      // The socket may be gone while the page closes; the beacon timeout covers it.
    }
  }
}
