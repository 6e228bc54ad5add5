"""``python -m cardroom.tlog``: the offline verifier's command line (``cardroom.tlog.main``). Plain Python."""

import sys

from . import main

sys.exit(main())
