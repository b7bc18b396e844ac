"""`fracas journal list|show|replay|prune` on a journal the dispatcher wrote."""

import orjson
import pytest
from click.testing import CliRunner

from fracas.bridge.dispatcher import Dispatcher, Session
from fracas.bridge.journal import Journal
from fracas.cli import main

from .helpers import ATTACK, TOKEN, request


@pytest.fixture
def written(tmp_path):
    path = tmp_path / "journal.sqlite3"
    journal = Journal(path)
    dispatcher = Dispatcher(token=TOKEN, journal=journal)
    session = Session()
    dispatcher.handle(session, orjson.dumps(request(1, "auth", {"token": TOKEN})).decode())
    for rid, params in (("a1", ATTACK), (7, {"ruleset": "old-school", "morale": 7, "seed": 3})):
        method = "attack.resolve" if rid == "a1" else "morale.check"
        reply = orjson.loads(dispatcher.handle(session, orjson.dumps(request(rid, method, params)).decode()).data)
        assert "result" in reply, reply
    journal.close()
    return str(path)


def cli(*args):
    return CliRunner().invoke(main, ["journal", *args])


def test_list_show_and_replay(written):
    out = cli("list", "--journal", written)
    assert out.exit_code == 0 and "2 journaled roll(s)" in out.output and "morale.check" in out.output
    shown = orjson.loads(cli("show", "--journal", written, "a1").output)
    assert shown["id"] == "a1" and shown["method"] == "attack.resolve"
    assert orjson.loads(cli("show", "--journal", written, "7").output)["method"] == "morale.check"
    out = cli("replay", "--journal", written, "a1")
    assert out.exit_code == 0 and "replays exactly" in out.output
    assert cli("replay", "--journal", written, "7").exit_code == 0


def test_prune_and_errors(written, tmp_path):
    assert "removed 0 roll(s)" in cli("prune", "--journal", written, "--older-than", "1").output
    assert "removed 2 roll(s)" in cli("prune", "--journal", written, "--older-than", "0").output
    out = cli("prune", "--journal", written)
    assert out.exit_code == 2 and "give --older-than DAYS, --max-mb MB or both" in out.output
    out = cli("show", "--journal", written, "a1")
    assert out.exit_code == 1 and "no journaled request has the id 'a1'" in out.output
    out = cli("list", "--journal", str(tmp_path / "none.sqlite3"))
    assert out.exit_code == 0 and "no journal at" in out.output and "yet" in out.output
    out = cli("show", "--journal", str(tmp_path / "none.sqlite3"), "a1")
    assert out.exit_code == 1 and "no journal at" in out.output


def test_prune_by_size(written):
    out = cli("prune", "--journal", written, "--max-mb", "1")
    assert out.exit_code == 0 and "removed 0 roll(s)" in out.output and "2 left" in out.output


def test_replay_says_the_backend_each_result_was_rolled_on(tmp_path):
    """Issue 45: the backend a replay reports is the result's own (ER-1 attack, rolled on the
    pure-Python kernels), not the journal's column: an entry an older bridge wrote says
    "compiled" there for a roll made in Python."""
    import sqlite3

    from fracas import _kernels

    path = tmp_path / "journal.sqlite3"
    journal = Journal(path)
    dispatcher = Dispatcher(token=TOKEN, journal=journal)
    session = Session()
    dispatcher.handle(session, orjson.dumps(request(1, "auth", {"token": TOKEN})).decode())
    with _kernels.using("python"):
        sent = orjson.dumps(request("p1", "attack.resolve", ATTACK)).decode()
        reply = orjson.loads(dispatcher.handle(session, sent).data)
    assert reply["result"]["backend"] == "python"
    journal.close()
    db = sqlite3.connect(path)  # as a bridge before the fix journaled it
    with db:
        assert db.execute("UPDATE entries SET backend = 'compiled' WHERE id_key = '\"p1\"'").rowcount == 1
    db.close()
    with _kernels.using("python"):
        out = cli("replay", "--journal", str(path), "p1")
    assert out.exit_code == 0, out.output
    assert "(recorded on python, replayed on python)" in out.output
