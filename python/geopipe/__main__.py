"""``python3 -m geopipe plot ...`` (see geopipe.cli)."""

import sys

from .cli import main

sys.exit(main())
