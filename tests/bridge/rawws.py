"""A minimal websocket client on a raw socket: for clients that misbehave on purpose
(never read, never finish the handshake), which a real client library will not do."""

from __future__ import annotations

import base64
import os
import socket
import struct

import orjson

from .helpers import TOKEN


def open_socket(port: int, *, receive_buffer: int | None = None) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if receive_buffer is not None:  # before connect, so the window is small from the start
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.settimeout(30)
    sock.connect(("127.0.0.1", port))
    return sock


def handshake(sock: socket.socket, port: int) -> None:
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        if not chunk:
            raise ConnectionError(f"closed during the handshake: {head!r}")
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head


def send_text(sock: socket.socket, text: str | bytes) -> None:
    sock.sendall(text_frame(text))


def text_frame(text: str | bytes) -> bytes:
    """One masked text frame, as a client sends it (RFC 6455 section 5.2)."""
    payload = text.encode() if isinstance(text, str) else text
    mask = os.urandom(4)
    length = len(payload)
    if length < 126:
        header = struct.pack("!BB", 0x81, 0x80 | length)
    elif length < 1 << 16:
        header = struct.pack("!BBH", 0x81, 0x80 | 126, length)
    else:
        header = struct.pack("!BBQ", 0x81, 0x80 | 127, length)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload)) if length < 4096 else _mask(payload, mask)
    return header + mask + masked


def _mask(payload: bytes, mask: bytes) -> bytes:
    repeated = (mask * (len(payload) // 4 + 1))[: len(payload)]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(repeated, "big")).to_bytes(len(payload), "big")


def _exactly(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


def recv_frame(sock: socket.socket) -> tuple[int, bytes]:
    first, second = _exactly(sock, 2)
    length = second & 0x7F
    if length == 126:
        (length,) = struct.unpack("!H", _exactly(sock, 2))
    elif length == 127:
        (length,) = struct.unpack("!Q", _exactly(sock, 8))
    return first & 0x0F, _exactly(sock, length)


def authenticated(port: int, *, receive_buffer: int | None = None) -> socket.socket:
    """A raw socket past the handshake and the auth request."""
    sock = open_socket(port, receive_buffer=receive_buffer)
    handshake(sock, port)
    send_text(sock, orjson.dumps({"jsonrpc": "2.0", "id": "auth", "method": "auth", "params": {"token": TOKEN}}))
    opcode, payload = recv_frame(sock)
    assert opcode == 1 and orjson.loads(payload)["result"] == {"authenticated": True}, payload
    return sock


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident memory (VmHWM), in MB."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


def open_files(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))
