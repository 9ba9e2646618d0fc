"""``python -m services.kubesim``: the same as ``shoal run kubesim``."""

from __future__ import annotations

import argparse
import sys

from services.kubesim import cli
from shared.errors import UserError

if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="kubesim")
    cli.add_arguments(parser)
    try:
        sys.exit(cli.run(parser.parse_args()))
    except UserError as exc:
        print(f"kubesim: {exc}", file=sys.stderr)
        sys.exit(2)
