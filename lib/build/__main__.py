import os
import sys

from lib.build.book_tools import kernels_import_this_checkout, main

os.environ.setdefault("MPLBACKEND", "Agg")
kernels_import_this_checkout()
sys.exit(main())
