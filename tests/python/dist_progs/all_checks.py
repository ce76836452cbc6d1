"""One multi-rank job for tests/python/test_distributed.py (start-up is the cost): the collective
checks, then the DataParallel checks, in the same processes (2 ranks under launch, 4 under mpirun)."""
import os
import runpy
import sys

here = os.path.dirname(os.path.abspath(__file__))
runpy.run_path(os.path.join(here, "collectives.py"), run_name="collectives")
runpy.run_path(os.path.join(here, "dp_train.py"), run_name="dp_train")
