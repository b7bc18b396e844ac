"""Run the CLI in tests."""

from click.testing import CliRunner

from fracas.cli import main


def run(args, stdin=None):
    """Invoke `fracas ARGS`; a user error must be a clean exit, never an escaping exception."""
    result = CliRunner().invoke(main, args, input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    return result
