"""``python -m services.webhook`` and the ``shoal-webhook`` script: ``shoal run webhook``."""

from __future__ import annotations

import argparse
import sys

from services.webhook import cli


def main() -> int:
    parser = argparse.ArgumentParser(prog="shoal-webhook")
    cli.add_arguments(parser)
    return cli.run(parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
