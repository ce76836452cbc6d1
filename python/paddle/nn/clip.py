"""Gradient clipping for the optimizers' grad_clip argument: ClipGradByValue, ClipGradByNorm
(per tensor) and ClipGradByGlobalNorm (over all gradients). Each is called with a list of
(param, grad) pairs and returns new pairs; parameters with need_clip=False pass unchanged, and
param.grad itself is never modified (as in Paddle's dygraph).

Row-sparse gradients (RowSparseGrad, from Embedding(sparse=True); rows already merged) are
clipped as Paddle clips SelectedRows: norms are taken over the merged values (the same as over
the dense gradient), scaling keeps the gradient row-sparse, and ClipGradByValue clips the merged
values only (absent rows stay zero). A user-defined clipper receives them densified.

In static mode (gradients are program Variables) _static_clip records the same computation as
ops: the norms in float64 as eager's Python floats are, so the clipped gradients are identical."""
import math

from ..framework.sparse_grad import RowSparseGrad

__all__ = ["ClipGradByValue", "ClipGradByNorm", "ClipGradByGlobalNorm"]


def _ops():
    import paddle
    return paddle


def _need_clip(p):
    return getattr(p, "need_clip", True)


def _check_number(name, v, cls):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{cls}: {name} must be a float, received {type(v).__name__}")
    return float(v)


class ClipGradBase:
    """Base class of the gradient clippers (Paddle's GradientClipBase)."""

    _sparse_aware = False  # the built-in clippers take RowSparseGrad

    def __call__(self, params_grads):
        from .. import _C
        if any(g is not None and _C._is_variable(g) for _, g in params_grads):
            return self._static_clip(params_grads)
        if not self._sparse_aware:
            params_grads = [(p, g.to_dense() if type(g) is RowSparseGrad else g)
                            for p, g in params_grads]
        return self._dygraph_clip(params_grads)

    def _dygraph_clip(self, params_grads):
        raise NotImplementedError

    def _static_clip(self, params_grads):
        raise NotImplementedError(f"{type(self).__name__} does not implement _static_clip (static mode)")


def _f64(x):
    return _ops().cast(x, "float64")


def _static_scale(g, scale64):
    """g * scale as eager's g * <Python float> computes it (the scale rounded to g's dtype)."""
    paddle = _ops()
    return paddle.multiply(g, paddle.cast(scale64, g.dtype))


GradientClipBase = ClipGradBase


class ClipGradByValue(ClipGradBase):
    """Clips every gradient element into [min, max] (min defaults to -max)."""

    _sparse_aware = True

    def __init__(self, max, min=None):  # noqa: A002
        max = _check_number("max", max, "ClipGradByValue")
        if min is None:
            if max <= 0:
                # Paddle asserts it (AssertionError)
                raise AssertionError(f"ClipGradByValue: max must be > 0 when min is None, received {max}")
            min = -max
        min = _check_number("min", min, "ClipGradByValue")
        self.max, self.min = max, min  # min > max is accepted, as in Paddle

    def __str__(self):
        return f"Clip Gradient By Value, min = {self.min:f}, max={self.max:f}"

    def _dygraph_clip(self, params_grads):
        paddle = _ops()
        out = []
        for p, g in params_grads:
            if g is None or not _need_clip(p):
                out.append((p, g))
                continue
            if type(g) is RowSparseGrad:
                out.append((p, g.with_values(paddle.clip(g.values, min=self.min, max=self.max))))
            else:
                out.append((p, paddle.clip(g, min=self.min, max=self.max)))
        return out

    def _static_clip(self, params_grads):
        return self._dygraph_clip(params_grads)


def _sum_sq(g):
    paddle = _ops()
    if type(g) is RowSparseGrad:
        g = g.values
    if g.dtype.name in ("float16", "bfloat16"):
        g = g.astype("float32")
    return paddle.sum(g * g)


def _scaled(g, scale):
    if type(g) is RowSparseGrad:
        return g.with_values(g.values * scale)
    return (g * scale).astype(g.dtype) if g.dtype.name in ("float16", "bfloat16") else g * scale


class ClipGradByNorm(ClipGradBase):
    """Scales each gradient whose L2 norm exceeds clip_norm down to norm clip_norm."""

    _sparse_aware = True

    def __init__(self, clip_norm):
        self.clip_norm = _check_number("clip_norm", clip_norm, "ClipGradByNorm")  # any number, as Paddle

    def __str__(self):
        return f"Gradient Clip By Norm, clip_norm={self.clip_norm:f}"

    def _dygraph_clip(self, params_grads):
        out = []
        for p, g in params_grads:
            if g is None or not _need_clip(p):
                out.append((p, g))
                continue
            # Paddle's clip_by_norm kernel: max_norm > 0, floating gradients only
            if not self.clip_norm > 0:
                raise ValueError(f"(InvalidArgument) [clip_by_norm] max_norm should be greater than 0, "
                                 f"received {self.clip_norm}")
            gd = (g.values if type(g) is RowSparseGrad else g).dtype.name
            if gd not in ("float16", "bfloat16", "float32", "float64"):
                raise RuntimeError(f"(NotFound) [clip_by_norm] no kernel for the gradient dtype {gd}; "
                                   "expected float16, bfloat16, float32 or float64")
            norm = math.sqrt(float(_sum_sq(g)))
            if norm > self.clip_norm:
                g = _scaled(g, self.clip_norm / norm)
            out.append((p, g))
        return out

    def _static_clip(self, params_grads):
        paddle = _ops()
        out = []
        for p, g in params_grads:
            if g is None or not _need_clip(p):
                out.append((p, g))
                continue
            norm = paddle.sqrt(_f64(_sum_sq(g)))
            clip = paddle.full([1], self.clip_norm, "float64")
            scale = paddle.where(norm > clip, clip / norm, paddle.full([1], 1.0, "float64"))
            out.append((p, _static_scale(g, scale)))
        return out


class ClipGradByGlobalNorm(ClipGradBase):
    """Scales all gradients by clip_norm / max(global_norm, clip_norm), where global_norm is
    the L2 norm of every clipped gradient taken together."""

    _sparse_aware = True

    def __init__(self, clip_norm, group_name="default_group"):
        self.clip_norm = _check_number("clip_norm", clip_norm, "ClipGradByGlobalNorm")  # any number, as Paddle
        if not isinstance(group_name, str):
            raise TypeError("ClipGradByGlobalNorm: group_name must be a str")
        self.group_name = group_name

    def __str__(self):
        return f"Gradient Clip By GlobalNorm, global_norm={self.clip_norm:f}"

    def _dygraph_clip(self, params_grads):
        total = 0.0
        for p, g in params_grads:
            if g is not None and _need_clip(p):
                total += float(_sum_sq(g))
        global_norm = math.sqrt(total)
        if global_norm <= self.clip_norm:
            return list(params_grads)
        scale = self.clip_norm / global_norm
        out = []
        for p, g in params_grads:
            if g is None or not _need_clip(p):
                out.append((p, g))
            else:
                out.append((p, _scaled(g, scale)))
        return out

    def _static_clip(self, params_grads):
        paddle = _ops()
        total = None
        for p, g in params_grads:
            if g is not None and _need_clip(p):
                s = _f64(_sum_sq(g))
                total = s if total is None else total + s
        if total is None:
            return list(params_grads)
        clip = paddle.full([1], self.clip_norm, "float64")
        scale = clip / paddle.maximum(paddle.sqrt(total), clip)  # 1 when the norm is within clip
        return [(p, g) if g is None or not _need_clip(p) else (p, _static_scale(g, scale))
                for p, g in params_grads]
