"""One rank of paddle.distributed.spawn (see spawn.py): python -m paddle.distributed._spawn_worker TMPDIR."""
import json
import os
import pickle
import sys

from .launch._mpi import rank_env, run_guarded


def main():
    tmp = sys.argv[1]
    rank_env()
    with open(os.path.join(tmp, "meta.json")) as f:
        meta = json.load(f)
    sys.path[:0] = [p for p in meta["sys_path"] if p not in sys.path]

    def run():
        if meta["main_path"] and meta["main_module"] == "__main__":
            # the main script's functions: load it as __mp_main__ (its `if __name__ == "__main__"` stays off)
            import multiprocessing.spawn as mps
            mps._fixup_main_from_path(meta["main_path"])
        with open(os.path.join(tmp, "job.pkl"), "rb") as f:
            func, args = pickle.load(f)
        func(*args)

    run_guarded(run)


if __name__ == "__main__":
    main()
