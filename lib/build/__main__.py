import os
import sys

from lib.build.book_tools import main

os.environ.setdefault("MPLBACKEND", "Agg")
sys.exit(main())
