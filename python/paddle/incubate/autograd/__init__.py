"""paddle.incubate.autograd (Paddle 2.3): vjp, jvp, Jacobian and Hessian, built on paddle.grad.
jvp uses the double-vjp construction (the vjp is linear in its cotangent, so differentiating
it again with respect to that cotangent gives J v). Jacobian/Hessian compute the full matrix
on first use (one vjp per output row) and index it like a tensor."""
import paddle

from ... import _C

Tensor = _C.Tensor

__all__ = ["vjp", "jvp", "Jacobian", "Hessian"]


def _as_tuple(xs, what):
    if isinstance(xs, Tensor):
        return (xs,), True
    if isinstance(xs, (list, tuple)) and all(isinstance(x, Tensor) for x in xs):
        return tuple(xs), False
    raise TypeError(f"{what} must be a Tensor or a sequence of Tensors, received {type(xs).__name__}")


def _prepare(xs):
    """Detached copies of the inputs that require grad (the user's tensors stay untouched)."""
    out = []
    for x in xs:
        y = x.detach().clone() if hasattr(x, "clone") else x
        y.stop_gradient = False
        out.append(y)
    return tuple(out)


def _check_v(v, like, what):
    if v is None:
        return tuple(paddle.ones(t.shape, dtype=t.dtype) for t in like)
    vs, _ = _as_tuple(v, what)
    if len(vs) != len(like):
        raise ValueError(f"{what} must have {len(like)} tensors, received {len(vs)}")
    for a, b in zip(vs, like):
        if a.shape != b.shape:
            raise ValueError(f"{what}: expected shape {b.shape}, received {a.shape}")
    return vs


def vjp(func, xs, v=None):
    """Returns (func(xs), v^T J): the vector-Jacobian product at xs."""
    xs_t, single_x = _as_tuple(xs, "xs")
    xs_t = _prepare(xs_t)
    ys = func(*xs_t)
    ys_t, single_y = _as_tuple(ys, "func's output")
    vs = _check_v(v, ys_t, "v")
    grads = paddle.grad(list(ys_t), list(xs_t), grad_outputs=list(vs), allow_unused=True)
    grads = [paddle.zeros(x.shape, dtype=x.dtype) if g is None else g for g, x in zip(grads, xs_t)]
    ys_out = tuple(y.detach() for y in ys_t)
    return (ys_out[0] if single_y else ys_out), (grads[0] if single_x else tuple(grads))


def jvp(func, xs, v=None):
    """Returns (func(xs), J v): the Jacobian-vector product at xs (double-vjp construction)."""
    xs_t, single_x = _as_tuple(xs, "xs")
    xs_t = _prepare(xs_t)
    vs = _check_v(v, xs_t, "v")
    ys = func(*xs_t)
    ys_t, single_y = _as_tuple(ys, "func's output")
    us = [paddle.zeros(y.shape, dtype=y.dtype) for y in ys_t]
    for u in us:
        u.stop_gradient = False
    gx = paddle.grad(list(ys_t), list(xs_t), grad_outputs=us, create_graph=True, allow_unused=True)
    pairs = [(g, v) for g, v in zip(gx, vs) if g is not None]
    if not pairs:
        jv = [paddle.zeros(y.shape, dtype=y.dtype) for y in ys_t]
    else:
        jv = paddle.grad([g for g, _ in pairs], us, grad_outputs=[v for _, v in pairs],
                         allow_unused=True)
        jv = [paddle.zeros(y.shape, dtype=y.dtype) if j is None else j.detach() for j, y in zip(jv, ys_t)]
    ys_out = tuple(y.detach() for y in ys_t)
    return (ys_out[0] if single_y else ys_out), (jv[0] if single_y else tuple(jv))


def _flat_cat(ts, batched):
    if batched:
        return paddle.concat([paddle.reshape(t, [t.shape[0], -1]) for t in ts], axis=1)
    return paddle.concat([paddle.reshape(t, [-1]) for t in ts], axis=0)


class Jacobian:
    """J[i, j] = d out_i / d in_j with outputs and inputs flattened and concatenated
    (is_batched: the first dim of every input and output is a batch, J is [B, M, N])."""

    def __init__(self, func, xs, is_batched=False):
        self._func = func
        self._xs, _ = _as_tuple(xs, "xs")
        self._batched = bool(is_batched)
        self._full = None

    def _compute(self):
        if self._full is not None:
            return self._full
        xs = _prepare(self._xs)
        ys = self._func(*xs)
        ys_t, _ = _as_tuple(ys, "func's output")
        yflat = _flat_cat(ys_t, self._batched)
        rows = []
        m = yflat.shape[-1]
        for i in range(m):
            sel = paddle.zeros(yflat.shape, dtype=yflat.dtype)
            if self._batched:
                sel[:, i] = 1.0
            else:
                sel[i] = 1.0
            gs = paddle.grad([yflat], list(xs), grad_outputs=[sel], retain_graph=True, allow_unused=True)
            gs = [paddle.zeros(x.shape, dtype=x.dtype) if g is None else g for g, x in zip(gs, xs)]
            rows.append(_flat_cat(gs, self._batched))
        self._full = paddle.stack(rows, axis=1 if self._batched else 0).detach()
        return self._full

    @property
    def shape(self):
        return self._compute().shape

    def __getitem__(self, idx):
        return self._compute()[idx]

    def numpy(self):
        return self._compute().numpy()


class Hessian(Jacobian):
    """The Jacobian of the gradient of a scalar function (shape [N, N], or [B, N, N])."""

    def __init__(self, func, xs, is_batched=False):
        xs_t, _ = _as_tuple(xs, "xs")

        def grad_fn(*inner):
            y = func(*inner)
            if not isinstance(y, Tensor):
                raise TypeError("Hessian: func must return one Tensor")
            if (not is_batched and y.size != 1) or (is_batched and y.size != y.shape[0]):
                raise ValueError(f"Hessian: func must return a scalar per sample, received shape {y.shape}")
            gs = paddle.grad([y], list(inner), create_graph=True, allow_unused=True)
            return tuple(paddle.zeros(x.shape, dtype=x.dtype) if g is None else g for g, x in zip(gs, inner))

        super().__init__(grad_fn, xs_t, is_batched)
