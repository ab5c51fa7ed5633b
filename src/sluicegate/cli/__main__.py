"""`python -m sluicegate.cli`: the same as the `sluicegate` console script."""

import sys

from . import main

sys.exit(main())
