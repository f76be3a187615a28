"""``python -m demine``."""

import sys

from demine.cli import main

sys.exit(main())
