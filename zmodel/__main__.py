"""``python -m zmodel``: the ``zmodel`` command (:func:`zmodel.cli.main`)."""
import sys

from zmodel.cli import main

if __name__ == "__main__":
    sys.exit(main())
