"""``python -m cardverse``: the command line."""

from cardverse.cli import main

raise SystemExit(main())
