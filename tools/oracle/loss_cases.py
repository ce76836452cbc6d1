"""The losses Paddle added in 2.4-2.6 (issue 23): the differential harness's "loss" family
(tests/conformance/harness.py imports cases() from here). Values at every reduction, float32 and
float64, gradients of the float inputs ("grad": argument indices; the harness backpropagates the
sum of the result), the Layer forms ("init": constructor arguments) and the documented error
cases. Recorded from real PaddlePaddle 2.6.2 with

    cd "$(mktemp -d)" && /work/oracle/bin/python /path/to/tests/conformance/harness.py record loss

This file imports nothing but the standard library."""


def T(shape, dtype="float32", seed=0, low=None, high=None):
    return {"shape": list(shape), "dtype": dtype, "seed": seed, "low": low, "high": high}


F = "paddle.nn.functional."


def _c(cid, api, args, grad=(), init=None, **kwargs):
    c = {"id": cid, "api": api, "args": args, "kwargs": kwargs, "grad": list(grad)}
    if init is not None:
        c["init"] = init
    return c


def cases():
    out = []
    for dt in ("float32", "float64"):
        a, b, n = T([4, 3], dt, 31), T([4, 3], dt, 32), T([4, 3], dt, 33)
        pos = T([4, 3], dt, 34, low=0.1, high=1.5)
        sign = T([4, 3], "int64", 35, low=-1, high=2)  # -1, 1 (0 is replaced by 3 only without low)
        lab01 = T([4, 3], dt, 36, low=0.0, high=1.0)
        cls = T([4], "int64", 37, low=0, high=3)
        w3 = T([3], dt, 38, low=0.5, high=2.0)
        for red in ("none", "mean", "sum"):
            s = f"|{dt}|{red}"
            out.append(_c("soft_margin_loss" + s, F + "soft_margin_loss", [a, b], [0], reduction=red))
            out.append(_c("soft_margin_loss|intlabel" + s, F + "soft_margin_loss", [a, sign], [0], reduction=red))
            out.append(_c("multi_label_soft_margin_loss" + s, F + "multi_label_soft_margin_loss", [a, lab01], [0, 1],
                          reduction=red))
            out.append(_c("multi_label_soft_margin_loss|weight" + s, F + "multi_label_soft_margin_loss",
                          [a, lab01], [0], weight=w3, reduction=red))
            for p in (1, 2):
                out.append(_c(f"multi_margin_loss|p{p}" + s, F + "multi_margin_loss", [a, cls], [0], p=p,
                              reduction=red))
            out.append(_c("multi_margin_loss|weight" + s, F + "multi_margin_loss", [a, cls], [0], p=2, weight=w3,
                          reduction=red))
            out.append(_c("multi_margin_loss|margin0.5" + s, F + "multi_margin_loss", [a, cls], [0], margin=0.5,
                          reduction=red))
            out.append(_c("poisson_nll_loss" + s, F + "poisson_nll_loss", [a, pos], [0], reduction=red))
            out.append(_c("poisson_nll_loss|nolog" + s, F + "poisson_nll_loss", [pos, T([4, 3], dt, 39, 0, 4)], [0],
                          log_input=False, reduction=red))
            out.append(_c("poisson_nll_loss|full" + s, F + "poisson_nll_loss", [a, T([4, 3], dt, 40, 0, 4)], [0],
                          full=True, reduction=red))
            out.append(_c("gaussian_nll_loss" + s, F + "gaussian_nll_loss", [a, b, pos], [0, 1], reduction=red))
            out.append(_c("gaussian_nll_loss|vargrad" + s, F + "gaussian_nll_loss", [a, b, pos], [0, 1, 2],
                          reduction=red))
            out.append(_c("gaussian_nll_loss|full" + s, F + "gaussian_nll_loss", [a, b, pos], [0], full=True,
                          reduction=red))
            out.append(_c("gaussian_nll_loss|homo" + s, F + "gaussian_nll_loss", [a, b, T([4], dt, 41, 0.1, 1.5)],
                          [0], reduction=red))
            out.append(_c("gaussian_nll_loss|homo1" + s, F + "gaussian_nll_loss",
                          [a, b, T([4, 1], dt, 41, 0.1, 1.5)], [0], reduction=red))
            out.append(_c("gaussian_nll_loss|eps" + s, F + "gaussian_nll_loss",
                          [a, b, T([4, 3], dt, 42, 0.0, 0.05)], [0], epsilon=0.02, reduction=red))
            out.append(_c("cosine_embedding_loss" + s, F + "cosine_embedding_loss",
                          [a, b, T([4], "int64", 43, low=-1, high=2)], [0, 1], reduction=red))
            out.append(_c("cosine_embedding_loss|margin" + s, F + "cosine_embedding_loss",
                          [a, b, T([4], "int32", 43, low=-1, high=2)], [0, 1], margin=-0.5, reduction=red))
            out.append(_c("cosine_embedding_loss|1d" + s, F + "cosine_embedding_loss",
                          [T([3], dt, 44), T([3], dt, 45), T([1], "int64", 46, low=1, high=2)], [0],
                          reduction=red))
            out.append(_c("triplet_margin_loss" + s, F + "triplet_margin_loss", [a, b, n], [0, 1, 2], reduction=red))
            out.append(_c("triplet_margin_loss|p1swap" + s, F + "triplet_margin_loss", [a, b, n], [0, 1, 2], p=1,
                          swap=True, margin=2.0, reduction=red))
            out.append(_c("triplet_margin_with_distance_loss" + s, F + "triplet_margin_with_distance_loss",
                          [a, b, n], [0, 1, 2], reduction=red))
            out.append(_c("triplet_margin_with_distance_loss|swap" + s, F + "triplet_margin_with_distance_loss",
                          [a, b, n], [0, 1, 2], swap=True, margin=0.5, reduction=red))
        # RNN-T: log probabilities [B, T, U + 1, D], labels int32 [B, U], lengths
        acts = T([2, 4, 3, 5], dt, 47)
        lab = T([2, 2], "int32", 48, low=1, high=5)
        il, ll = T([2], "int32", 49, low=4, high=5), T([2], "int32", 50, low=2, high=3)
        for red in ("none", "mean", "sum"):
            for lam in (0.0, 0.001):
                out.append(_c(f"rnnt_loss|{lam}|{dt}|{red}", F + "rnnt_loss", [acts, lab, il, ll], [0],
                              fastemit_lambda=lam, reduction=red))
        out.append(_c(f"rnnt_loss|blank2|{dt}", F + "rnnt_loss", [acts, T([2, 2], "int32", 51, low=0, high=2), il,
                                                                   T([2], "int32", 50, low=1, high=2)], [0], blank=2))
    a, b, n = T([4, 3], seed=31), T([4, 3], seed=32), T([4, 3], seed=33)
    pos, cls = T([4, 3], seed=34, low=0.1, high=1.5), T([4], "int64", 37, low=0, high=3)
    # the Layer forms
    nn = "paddle.nn."
    out.append(_c("SoftMarginLoss", nn + "SoftMarginLoss", [a, b], [0], init={"reduction": "sum"}))
    out.append(_c("MultiLabelSoftMarginLoss", nn + "MultiLabelSoftMarginLoss", [a, T([4, 3], seed=36, low=0, high=1)],
                  [0], init={}))
    out.append(_c("MultiMarginLoss", nn + "MultiMarginLoss", [a, cls], [0], init={"p": 2, "margin": 0.8}))
    out.append(_c("PoissonNLLLoss", nn + "PoissonNLLLoss", [a, pos], [0], init={"full": True}))
    out.append(_c("GaussianNLLLoss", nn + "GaussianNLLLoss", [a, b, pos], [0], init={"full": True}))
    out.append(_c("CosineEmbeddingLoss", nn + "CosineEmbeddingLoss", [a, b, T([4], "int64", 43, low=-1, high=2)],
                  [0], init={"margin": 0.2}))
    out.append(_c("TripletMarginLoss", nn + "TripletMarginLoss", [a, b, n], [0], init={"p": 3.0, "swap": True}))
    out.append(_c("TripletMarginWithDistanceLoss", nn + "TripletMarginWithDistanceLoss", [a, b, n], [0],
                  init={"margin": 0.3}))
    out.append(_c("RNNTLoss", nn + "RNNTLoss", [T([2, 4, 3, 5], seed=47), T([2, 2], "int32", 48, low=1, high=5),
                                             T([2], "int32", 49, low=4, high=5), T([2], "int32", 50, low=2, high=3)],
                  [0], init={"fastemit_lambda": 0.01, "reduction": "sum"}))
    out.append(_c("GLU", nn + "GLU", [T([4, 6], seed=52)], [0], init={"axis": 1}))
    out.append(_c("Softmax2D", nn + "Softmax2D", [T([2, 3, 2, 2], seed=53)], [0], init={}))
    out.append(_c("Softmax2D|2d", nn + "Softmax2D", [T([3, 4], seed=53)], init={}))
    # the in-place activations of Paddle 2.6
    out.append(_c("hardtanh_", F + "hardtanh_", [T([3, 4], seed=54)], min=-0.5, max=0.7))
    out.append(_c("leaky_relu_", F + "leaky_relu_", [T([3, 4], seed=54)], negative_slope=0.2))
    out.append(_c("thresholded_relu_", F + "thresholded_relu_", [T([3, 4], seed=54)], threshold=0.5))
    # error cases
    for fn in ("soft_margin_loss", "multi_label_soft_margin_loss", "poisson_nll_loss", "gaussian_nll_loss",
               "triplet_margin_loss", "triplet_margin_with_distance_loss", "multi_margin_loss",
               "cosine_embedding_loss"):
        args = {"gaussian_nll_loss": [a, b, pos], "triplet_margin_loss": [a, b, n],
                "triplet_margin_with_distance_loss": [a, b, n], "multi_margin_loss": [a, cls],
                "cosine_embedding_loss": [a, b, T([4], "int64", 43, low=-1, high=2)]}.get(fn, [a, pos])
        out.append(_c(f"{fn}|err_reduction", F + fn, args, reduction="avg"))
    out.append(_c("soft_margin_loss|err_shape", F + "soft_margin_loss", [a, T([4, 2], seed=1)]))
    out.append(_c("multi_label_soft_margin_loss|err_shape", F + "multi_label_soft_margin_loss", [a, T([3, 3], seed=1)]))
    out.append(_c("poisson_nll_loss|err_eps", F + "poisson_nll_loss", [a, pos], epsilon=0.0))
    out.append(_c("poisson_nll_loss|err_shape", F + "poisson_nll_loss", [a, T([4], seed=1)]))
    out.append(_c("gaussian_nll_loss|err_negvar", F + "gaussian_nll_loss", [a, b, b]))
    out.append(_c("gaussian_nll_loss|err_varshape", F + "gaussian_nll_loss", [a, b, T([4, 2], seed=2, low=0.1)]))
    out.append(_c("gaussian_nll_loss|err_int", F + "gaussian_nll_loss", [T([4, 3], "int64", 3), b, pos]))
    out.append(_c("cosine_embedding_loss|err_3d", F + "cosine_embedding_loss",
                  [T([2, 2, 3], seed=4), T([2, 2, 3], seed=5), T([2], "int64", 43, low=-1, high=2)]))
    out.append(_c("cosine_embedding_loss|err_label2d", F + "cosine_embedding_loss",
                  [a, b, T([4, 1], "int64", 43, low=-1, high=2)]))
    out.append(_c("cosine_embedding_loss|err_shape", F + "cosine_embedding_loss",
                  [a, T([4, 2], seed=6), T([4], "int64", 43, low=-1, high=2)]))
    out.append(_c("cosine_embedding_loss|err_dtype", F + "cosine_embedding_loss",
                  [T([4, 3], "float16", 7), T([4, 3], "float16", 8), T([4], "int64", 43, low=-1, high=2)]))
    out.append(_c("triplet_margin_loss|err_margin", F + "triplet_margin_loss", [a, b, n], margin=-1.0))
    out.append(_c("triplet_margin_loss|err_shape", F + "triplet_margin_loss", [a, b, T([4, 2], seed=9)]))
    out.append(_c("multi_margin_loss|err_batch", F + "multi_margin_loss", [a, T([3], "int64", 37, low=0, high=3)]))
    out.append(_c("multi_margin_loss|err_weight", F + "multi_margin_loss", [a, cls], weight=T([4], seed=11)))
    out.append(_c("CosineEmbeddingLoss|err_margin", nn + "CosineEmbeddingLoss", [a, b, cls], init={"margin": 2.0}))
    out.append(_c("PoissonNLLLoss|err_eps", nn + "PoissonNLLLoss", [a, pos], init={"epsilon": -1.0}))
    out.append(_c("SoftMarginLoss|err_reduction", nn + "SoftMarginLoss", [a, b], init={"reduction": "x"}))
    out.append(_c("Softmax2D|err_1d", nn + "Softmax2D", [T([3], seed=53)], init={}))
    return out
