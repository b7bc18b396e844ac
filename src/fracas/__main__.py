"""`python -m fracas`: the `fracas` command, for when the script is not on PATH."""

from .cli import main

if __name__ == "__main__":
    main(prog_name="fracas")
