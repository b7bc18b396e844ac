"""The websocket bridge: JSON-RPC 2.0 between VTT scripts and the fracas engine.

    cli.py         ``fracas serve`` / ``python -m fracas.bridge``
    server.py      the websockets shell: handshake checks, auth, worker threads, shutdown
    dispatcher.py  sans-I/O: one message in, one reply out (methods, journal, limits)
    journal.py     SQLite journal: every roll written before its reply is sent
    auth.py        token compare, throttling of failed authentications
    limits.py      every bound on what a client can make the bridge do
    errors.py      the JSON-RPC error codes
    schema.json    the protocol as JSON Schema; README.md documents every method

Importing this package loads nothing heavy; ``fracas.bridge.cli`` needs only click.
"""
