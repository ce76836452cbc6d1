"""The real Paddle models of ../shared/fixtures/paddle_models and the inputs they are run on by
tools/oracle/make_fixture_expected.py (real Paddle Inference 2.6.2) and
tests/python/test_static_fixtures.py (ours). Inputs are made with integer arithmetic only, so
both sides build the same bits without storing them; large outputs are compared on a fixed
subsample plus their sums. Pure numpy: imported by both."""
import os

import numpy as np

FIXTURES = os.environ.get("PADDLE_C_FIXTURES", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                                            "shared", "fixtures", "paddle_models"))
MAX_KEPT = 6000  # outputs with more elements keep every k-th element (k = ceil(size / MAX_KEPT))


def image(shape, seed):
    """float32 values in [-1, 1) from an integer hash of each element's index (exactly reproducible)."""
    n = int(np.prod(shape))
    i = np.arange(n, dtype=np.uint64) + np.uint64(seed * 7919 + 1)
    h = (i * np.uint64(2654435761)) % np.uint64(4294967291)
    h = (h ^ (h >> np.uint64(13))) % np.uint64(256)
    return (h.astype(np.float32) / np.float32(128.0) - np.float32(1.0)).reshape(shape)


def _det_feeds(n, h, w, seed):
    return {"image": image([n, 3, h, w], seed), "im_shape": np.array([[h, w]] * n, "float32"),
            "scale_factor": np.ones([n, 2], "float32")}


# model dir, file stem, [(case name, feeds)]
MODELS = {
    "lite_simple_conv_bn_relu": ("model", [(f"n{n}", lambda n=n: {"image": image([n, 3, 224, 224], n)}) for n in (1, 2, 3)]),
    "ppocr_mobile_v2_cls": ("inference", [(f"n{n}", lambda n=n: {"x": image([n, 3, 32, 100], 10 + n)}) for n in (1, 2, 3)]),
    "paddleclas_mbv3_small_3cls": ("inference", [(f"n{n}", lambda n=n: {"x": image([n, 3, 224, 224], 20 + n)}) for n in (1, 2, 3)]),
    "ppocrv3_en_det": ("inference", [(nm, lambda s=s, k=k: {"x": image(s, 30 + k)})
                                     for k, (nm, s) in enumerate([("32x32", [1, 3, 32, 32]), ("64x96", [1, 3, 64, 96]),
                                                                  ("n2_96x64", [2, 3, 96, 64])])]),
    "blazeface_facedet": ("model", [(nm, lambda a=a: _det_feeds(*a))
                                    for nm, a in [("64x64", (1, 64, 64, 40)), ("96x128", (1, 96, 128, 41)),
                                                  ("n2_128x96", (2, 128, 96, 42))]]),
    "ppyolo_tiny_320": ("model", [(f"n{n}", lambda n=n: _det_feeds(n, 320, 320, 50 + n)) for n in (1, 2, 3)]),
}
PROGRAMS_ONLY = ["ppocr_mobile_v2_rec_lstm", "ppocrv3_svtr_rec_custom"]


def paths(model):
    stem = MODELS[model][0]
    d = os.path.join(FIXTURES, model)
    return os.path.join(d, stem + ".pdmodel"), os.path.join(d, stem + ".pdiparams")


def keep(a):
    """What is stored of an output: all of it, or every k-th element and the sums."""
    a = np.asarray(a)
    if a.size <= MAX_KEPT:
        return {"full": a}
    k = -(-a.size // MAX_KEPT)
    flat = a.reshape(-1)
    return {"every": flat[::k], "k": np.array(k), "shape": np.array(a.shape), "sum": np.array(flat.astype(np.float64).sum()),
            "abssum": np.array(np.abs(flat.astype(np.float64)).sum())}
