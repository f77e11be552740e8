import os
import sys

from lib.build.book_tools import ROOT, main

os.environ.setdefault("MPLBACKEND", "Agg")
# Kernels start in the chapter's folder: put this checkout first on their path, so they
# import the `lib` (and read the controls.yaml) of the tree being built, not whichever
# checkout the virtual environment's editable install points at.
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p
)
sys.exit(main())
