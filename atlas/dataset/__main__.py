"""`python -m atlas.dataset [DATA_DIR]`: rebuild a data folder's issues db (the bundled one by default)."""

import sys

from atlas.dataset.ensure import main

raise SystemExit(main(sys.argv[1:]))
