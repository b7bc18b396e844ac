"""The websocket bridge: JSON-RPC 2.0 between VTT scripts and the fracas engine.

    cli.py         ``fracas serve`` / ``python -m fracas.bridge``
    server.py      the websockets shell: handshake checks, worker threads, shutdown
    lane.py        the single-request threads: one queue put there, one loop callback back
    dispatcher.py  the edge: claims ids, reads and writes the journal for the protocol
    protocol.py    sans I/O: a decoded message in, a reply and journal actions out
      rpc.py       JSON-RPC 2.0: request objects, batches, response and error objects
      methods.py   the handlers, named in one table (method_table)
      forecast.py  fight.forecast: checked and weighed before any fight, played in a worker
      policy.py    the journal policy: idempotency by id, replay, what is committed
      budget.py    what a message, a connection and the bridge may have in flight
    journal.py     SQLite journal: every roll written before its reply is sent
    auth.py        token compare, throttling of failed authentications
    tokenfile.py   the kept token, and how a running bridge says it took a new one
    limits.py      every bound on what a client can make the bridge do
    workers.py     odds and forecasts in worker processes: out of the GIL, killed when cancelled
    errors.py      the JSON-RPC error codes, and the map from engine errors to them
    schema.json    the protocol as JSON Schema; README.md documents every method

Importing this package loads nothing heavy; ``fracas.bridge.cli`` needs only click.
"""
