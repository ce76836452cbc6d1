"""The fixture models' inference cases, shared by the oracle script (tools/oracle/inference_models.py,
run with real Paddle Inference 2.6.2) and the tests (test_inference_models.py, test_inference_capi.py):
per model its files, and per case the inputs as (name, kind, shape, seed). Inputs are made here,
deterministically (numpy's legacy RandomState stream is stable across versions), so only the
seeds are stored with the expected outputs (tests/python/data/inference/<model>.npz). Pure numpy."""
import os

import numpy as np

FIXTURES = os.environ.get("PADDLE_C_FIXTURES", "/work/shared/fixtures/paddle_models")

# model -> (program file, params file) relative to FIXTURES
MODELS = {
    "lite_simple_conv_bn_relu": ("lite_simple_conv_bn_relu/model.pdmodel", "lite_simple_conv_bn_relu/model.pdiparams"),
    "ppocr_mobile_v2_cls": ("ppocr_mobile_v2_cls/inference.pdmodel", "ppocr_mobile_v2_cls/inference.pdiparams"),
    "paddleclas_mbv3_small_3cls": ("paddleclas_mbv3_small_3cls/inference.pdmodel",
                                   "paddleclas_mbv3_small_3cls/inference.pdiparams"),
    "ppocrv3_en_det": ("ppocrv3_en_det/inference.pdmodel", "ppocrv3_en_det/inference.pdiparams"),
    "blazeface_facedet": ("blazeface_facedet/model.pdmodel", "blazeface_facedet/model.pdiparams"),
    "ppyolo_tiny_320": ("ppyolo_tiny_320/model.pdmodel", "ppyolo_tiny_320/model.pdiparams"),
}


def _det(n, h, w, seed):
    return [("image", "image", (n, 3, h, w), seed), ("im_shape", ("const", [h, w]), (n, 2), 0),
            ("scale_factor", ("const", [1.0, 1.0]), (n, 2), 0)]


# model -> list of cases; a case is a list of inputs (name, kind, shape, seed)
CASES = {
    "lite_simple_conv_bn_relu": [[("image", "image", (1, 3, 224, 224), 1)], [("image", "image", (2, 3, 64, 48), 2)],
                                 [("image", "image", (3, 3, 33, 17), 3)]],
    "ppocr_mobile_v2_cls": [[("x", "image", (1, 3, 32, 100), 11)], [("x", "image", (2, 3, 32, 100), 12)],
                            [("x", "image", (5, 3, 32, 100), 13)]],
    "paddleclas_mbv3_small_3cls": [[("x", "image", (1, 3, 224, 224), 21)], [("x", "image", (2, 3, 224, 224), 22)],
                                   [("x", "image", (3, 3, 224, 224), 23)]],
    "ppocrv3_en_det": [[("x", "text", (1, 3, 64, 64), 31)], [("x", "text", (1, 3, 96, 128), 32)],
                       [("x", "text", (2, 3, 64, 96), 33)]],
    "blazeface_facedet": [_det(1, 128, 128, 41), _det(1, 160, 96, 42), _det(2, 96, 96, 43)],
    "ppyolo_tiny_320": [_det(1, 320, 320, 51), _det(2, 320, 320, 52), _det(3, 320, 320, 53)],
}

# outputs with more elements keep a fixed subsample plus their sum / sum of squares
MAX_STORED = 20000


def make_input(kind, shape, seed):
    """An image-like float32 input: smooth gradients plus quantized noise in [-1, 1] (structure
    gives detectors something to find), or a constant row repeated (im_shape, scale_factor)."""
    if isinstance(kind, tuple) and kind[0] == "const":
        return np.tile(np.asarray(kind[1], dtype="float32"), (shape[0], 1))
    rng = np.random.RandomState(seed)
    n, c, h, w = shape
    if kind == "text":  # dark bars ("text lines" of strokes) on a light page, ImageNet-normalised
        img = np.full(shape, 0.9, dtype="float32")
        for b in range(n):
            for _ in range(3):
                y0, x0, ln = rng.randint(0, h - 16), rng.randint(0, w // 2), rng.randint(20, w // 2 + 1)
                img[b, :, y0:y0 + 12, x0:x0 + ln] = 0.05
                for xs in range(x0, x0 + ln, 6):  # "characters": dark strokes 3 pixels wide
                    img[b, :, y0:y0 + 12, xs:xs + 3] = 0.9
        img += rng.randint(-8, 9, size=shape).astype("float32") / 256.0
        return ((img - 0.45) / 0.225).astype("float32")
    noise = rng.randint(-64, 65, size=shape).astype("float32") / 128.0
    yy = np.arange(h, dtype="float32")[:, None] / max(h - 1, 1)
    xx = np.arange(w, dtype="float32")[None, :] / max(w - 1, 1)
    base = np.stack([np.sin(3.0 * yy + 2.0 * xx + k) for k in range(c)])[None].astype("float32")
    return (0.5 * base + noise).astype("float32")


def case_inputs(case):
    return {name: make_input(kind, shape, seed) for name, kind, shape, seed in case}


def subsample_index(n):
    """Fixed flat indices kept of an output with n elements (all when n <= MAX_STORED)."""
    if n <= MAX_STORED:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, MAX_STORED).astype("int64"))


def summarize(arr):
    """What is stored of one output: the kept values, the shape, dtype, sum and sum of squares."""
    a = np.asarray(arr)
    flat = a.reshape(-1)
    idx = subsample_index(flat.size)
    return {"values": flat[idx], "shape": np.asarray(a.shape, dtype="int64"), "dtype": str(a.dtype),
            "sum": np.float64(flat.astype("float64").sum()), "sumsq": np.float64((flat.astype("float64") ** 2).sum())}
