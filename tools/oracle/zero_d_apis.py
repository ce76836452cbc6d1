"""The APIs whose result is 0-D in Paddle 2.6 (issue 23, "Two API levels"): full reductions,
scalar indexing, to_tensor of a Python number, reduced losses and metrics, scalar-valued linalg.
The cases are the differential harness's "scalar" family (tests/conformance/harness.py imports
cases() from here); running this file with real PaddlePaddle 2.6.2 records them:

    cd "$(mktemp -d)" && /work/oracle/bin/python /path/to/tools/oracle/zero_d_apis.py
        (writes tests/conformance/expected/scalar.json, the oracle's answers, and
         tests/conformance/expected/zero_d_apis.json, the case ids whose result is 0-D)

With FLAGS_set_to_1d=0 Paddle-C must give these shapes exactly; with the default (Paddle 2.3
shapes) every [] of this list is [1]. This file imports only numpy (and paddle when run)."""
import json
import os
import sys


def T(shape, dtype="float32", seed=0, low=None, high=None):
    return {"shape": list(shape), "dtype": dtype, "seed": seed, "low": low, "high": high}


def P(v):
    return {"py": v}


def _c(cid, api, args, **kwargs):
    return {"id": cid, "api": api, "args": args, "kwargs": kwargs}


F = "paddle.nn.functional."


def cases():
    x234, x6, x33 = T([2, 3, 4], seed=11), T([6], seed=12), T([3, 3], "float64", seed=13)
    prob = T([4, 3], seed=14, low=0.1, high=0.8)
    lab01 = T([4, 3], seed=15, low=0.1, high=0.8)
    logits, cls = T([4, 5], seed=16), T([4], "int64", seed=17, low=0, high=5)
    a, b = T([4, 3], seed=18), T([4, 3], seed=19)
    out = []
    # full reductions (axis=None), functions and Tensor methods
    for op in ["sum", "mean", "prod", "max", "min", "amax", "amin", "logsumexp", "std", "var",
               "nansum", "nanmean", "median", "nanmedian", "argmax", "argmin", "count_nonzero", "numel"]:
        out.append(_c(op, "paddle." + op, [x234]))
    for op in ["all", "any"]:
        out.append(_c(op, "paddle." + op, [T([2, 3], "bool", seed=20)]))
    for op in ["sum", "mean", "max", "min", "prod", "all", "any"]:
        arg = T([2, 3], "bool", seed=20) if op in ("all", "any") else x234
        out.append(_c("Tensor." + op, "Tensor." + op, [arg]))
    out.append(_c("sum|keepdim", "paddle.sum", [x234], keepdim=True))
    out.append(_c("sum|axis0", "paddle.sum", [x6], axis=0))
    out.append(_c("mean|[1]", "paddle.mean", [T([1], seed=21)]))
    out.append(_c("max|axis_list", "paddle.max", [x234], axis=[0, 1, 2]))
    # scalar-valued linear algebra and comparisons
    out.append(_c("norm", "paddle.linalg.norm", [x234]))
    out.append(_c("norm|p1_vec", "paddle.linalg.norm", [x6], p=1))
    out.append(_c("paddle.norm", "paddle.norm", [x33]))
    out.append(_c("dot", "paddle.dot", [x6, T([6], seed=22)]))
    out.append(_c("dot|2d", "paddle.dot", [a, b]))  # not 0-D: [N] in 2.6, [N, 1] in 2.3
    out.append(_c("inner|1d", "paddle.inner", [x6, T([6], seed=22)]))
    out.append(_c("matmul|1d1d", "paddle.matmul", [x6, T([6], seed=22)]))
    out.append(_c("dist", "paddle.dist", [a, b]))
    out.append(_c("det", "paddle.linalg.det", [x33]))
    out.append(_c("slogdet", "paddle.linalg.slogdet", [x33]))
    out.append(_c("trace", "paddle.trace", [x33]))
    out.append(_c("cond", "paddle.linalg.cond", [x33]))
    out.append(_c("matrix_rank", "paddle.linalg.matrix_rank", [x33]))
    out.append(_c("rank", "paddle.rank", [x234]))
    out.append(_c("allclose", "paddle.allclose", [a, a]))
    out.append(_c("equal_all", "paddle.equal_all", [a, b]))
    out.append(_c("kthvalue|1d", "paddle.kthvalue", [x6], k=2))
    out.append(_c("mode|1d", "paddle.mode", [T([6], "int64", seed=23, low=0, high=3)]))
    out.append(_c("einsum|i,i->", "paddle.einsum", [P("i,i->"), x6, T([6], seed=22)]))
    out.append(_c("is_empty", "paddle.is_empty", [x6]))
    out.append(_c("quantile", "paddle.quantile", [x6, P(0.5)]))
    out.append(_c("cosine_similarity|1d", F + "cosine_similarity", [x6, T([6], seed=22)], axis=0))
    # shape ops that drop every dim
    out.append(_c("squeeze|[1]", "paddle.squeeze", [T([1], seed=24)]))
    out.append(_c("squeeze|[1,1]", "paddle.squeeze", [T([1, 1], seed=24)]))
    out.append(_c("reshape|[]", "paddle.reshape", [T([1], seed=24)], shape=[]))
    out.append(_c("unbind|1d", "paddle.unbind", [T([3], seed=25)]))
    out.append(_c("gather_nd|full", "paddle.gather_nd", [x33, T([2], "int64", seed=26, low=0, high=3)]))
    # scalar indexing and creation
    out.append(_c("x[0]|1d", "Tensor.__getitem__", [x6, P(0)]))
    out.append(_c("x[-1]|1d", "Tensor.__getitem__", [x6, P(-1)]))
    out.append(_c("x[1]|2d", "Tensor.__getitem__", [x33, P(1)]))
    out.append(_c("to_tensor|float", "paddle.to_tensor", [P(3.5)]))
    out.append(_c("to_tensor|int", "paddle.to_tensor", [P(3)]))
    out.append(_c("to_tensor|bool", "paddle.to_tensor", [P(True)]))
    out.append(_c("to_tensor|[float]", "paddle.to_tensor", [P([3.5])]))
    # reduced losses (default reduction 'mean' unless named)
    out.append(_c("mse_loss", F + "mse_loss", [a, b]))
    out.append(_c("mse_loss|sum", F + "mse_loss", [a, b], reduction="sum"))
    out.append(_c("l1_loss", F + "l1_loss", [a, b]))
    out.append(_c("l1_loss|sum", F + "l1_loss", [a, b], reduction="sum"))
    out.append(_c("smooth_l1_loss", F + "smooth_l1_loss", [a, b]))
    out.append(_c("cross_entropy", F + "cross_entropy", [logits, cls]))
    out.append(_c("cross_entropy|sum", F + "cross_entropy", [logits, cls], reduction="sum"))
    out.append(_c("cross_entropy|soft", F + "cross_entropy", [prob, lab01], soft_label=True))
    out.append(_c("nll_loss", F + "nll_loss", [logits, cls]))
    out.append(_c("binary_cross_entropy", F + "binary_cross_entropy", [prob, lab01]))
    out.append(_c("binary_cross_entropy_with_logits", F + "binary_cross_entropy_with_logits", [a, lab01]))
    out.append(_c("kl_div", F + "kl_div", [a, prob]))
    out.append(_c("kl_div|batchmean", F + "kl_div", [a, prob], reduction="batchmean"))
    out.append(_c("margin_ranking_loss", F + "margin_ranking_loss", [a, b, T([4, 3], seed=27)]))
    out.append(_c("hinge_embedding_loss", F + "hinge_embedding_loss", [a, b]))
    out.append(_c("soft_margin_loss", F + "soft_margin_loss", [a, b]))
    out.append(_c("poisson_nll_loss", F + "poisson_nll_loss", [a, prob]))
    out.append(_c("multi_label_soft_margin_loss", F + "multi_label_soft_margin_loss", [a, lab01]))
    out.append(_c("multi_margin_loss", F + "multi_margin_loss", [logits, cls]))
    out.append(_c("cosine_embedding_loss", F + "cosine_embedding_loss",
                  [a, b, T([4], "int64", seed=28, low=1, high=2)]))
    out.append(_c("triplet_margin_loss", F + "triplet_margin_loss", [a, b, T([4, 3], seed=29)]))
    out.append(_c("sigmoid_focal_loss", F + "sigmoid_focal_loss", [a, lab01]))
    out.append(_c("gaussian_nll_loss", F + "gaussian_nll_loss", [a, b, prob]))
    out.append(_c("square_error_cost", F + "square_error_cost", [a, b]))
    # metrics
    out.append(_c("accuracy", "paddle.metric.accuracy", [logits, T([4, 1], "int64", seed=17, low=0, high=5)]))
    return out


def _ids_0d(results):
    def zero(r):
        if isinstance(r, list):
            return any(zero(v) for v in r)
        return isinstance(r, dict) and r.get("shape") == []
    return sorted(k for k, r in results.items() if zero(r))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(here)), "tests", "conformance"))
    import harness
    harness.record(["scalar"])
    with open(os.path.join(harness.EXPECTED, "scalar.json")) as f:
        res = json.load(f)
    with open(os.path.join(harness.EXPECTED, "zero_d_apis.json"), "w") as f:
        json.dump({"paddle": res["paddle"], "zero_d": _ids_0d(res["results"])}, f, indent=0)
        f.write("\n")


if __name__ == "__main__":
    main()
