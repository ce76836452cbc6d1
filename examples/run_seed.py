"""Runs seed programs from the Paddle 2.0 docs verbatim (examples/seeds/<name>.py, copied from
../shared/seed_examples). The slides leave some names undefined (np, F, paddle ...): the
preamble below defines them around the unchanged body, as the seed README allows. Several
names run one after another in one namespace (e02 prints the summary of e01's `model`).
`--pre CODE` runs code before the bodies (the data a slide assumes, e.g. e04's datasets),
`--then CODE` after them (e.g. to use a class a seed defines), and `--sub OLD=>NEW` makes an
announced textual edit (e.g. fewer epochs for a test run).

MNIST cannot be downloaded here: when its files are not in the cache, the one allowed edit is
made and announced: `paddle.vision.datasets.MNIST(` becomes `...FashionMNIST(` (Debian's
dataset-fashion-mnist package has the real Fashion-MNIST files).
Usage: python examples/run_seed.py e01_mnist_hapi_fit e02_summary [--then CODE]"""
import os
import sys

PREAMBLE = """\
import numpy as np
import paddle
import paddle.nn.functional as F
"""

MNIST = "paddle.vision.datasets.MNIST("


def _mnist_available():
    import paddle
    try:
        paddle.vision.datasets.MNIST(mode="test")
        return True
    except (FileNotFoundError, OSError, ValueError):
        return False


def load_body(name):
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "seeds", name if name.endswith(".py") else name + ".py")
    with open(path, encoding="utf-8") as f:
        body = f.read()
    if MNIST in body and not _mnist_available():
        print(f"[run_seed] MNIST files are absent: {name} uses FashionMNIST instead (the only edit)",
              file=sys.stderr)
        body = body.replace(MNIST, "paddle.vision.datasets.FashionMNIST(")
    return path, body


def main(names, epilogue="", pre="", subs=()):
    scope = {"__name__": "__main__"}
    exec(compile(PREAMBLE + pre, "<preamble>", "exec"), scope)
    for name in names:
        path, body = load_body(name)
        for old, new in subs:
            if old not in body:
                raise SystemExit(f"[run_seed] --sub: {old!r} does not occur in {name}")
            print(f"[run_seed] {name}: {old!r} -> {new!r}", file=sys.stderr)
            body = body.replace(old, new)
        exec(compile(body, path, "exec"), scope)
    if epilogue:
        exec(compile(epilogue, "<epilogue>", "exec"), scope)


def _parse(argv):
    names, opts = [], {"--then": "", "--pre": "", "--sub": []}
    k = 0
    while k < len(argv):
        a = argv[k]
        if a in opts:
            if k + 1 >= len(argv):
                raise SystemExit(f"[run_seed] {a} needs a value")
            if a == "--sub":
                if "=>" not in argv[k + 1]:
                    raise SystemExit("[run_seed] --sub expects OLD=>NEW")
                opts[a].append(tuple(argv[k + 1].split("=>", 1)))
            else:
                opts[a] = argv[k + 1]
            k += 2
        else:
            names.append(a)
            k += 1
    return names, opts


if __name__ == "__main__":
    names, opts = _parse(sys.argv[1:])
    main(names, opts["--then"], opts["--pre"], opts["--sub"])
