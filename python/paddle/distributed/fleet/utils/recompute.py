"""fleet.utils.recompute(function, *args): the activations of function are not kept for backward;
backward runs function again (with the same RNG state) and differentiates that run. A PyLayer:
forward under no_grad, backward re-runs on detached inputs and calls paddle.grad for the input
and parameter gradients (parameter gradients are accumulated into .grad)."""
import paddle
from paddle.autograd import PyLayer


def _params_of(function):
    if isinstance(function, paddle.nn.Layer):
        return [p for p in function.parameters() if not p.stop_gradient]
    owner = getattr(function, "__self__", None)
    if isinstance(owner, paddle.nn.Layer):
        return [p for p in owner.parameters() if not p.stop_gradient]
    return []


class _Recompute(PyLayer):
    @staticmethod
    def forward(ctx, function, preserve_rng_state, *args):
        ctx.function = function
        ctx.tensor_idx = [i for i, a in enumerate(args) if isinstance(a, paddle.Tensor)]
        ctx.args = list(args)
        ctx.rng = paddle.get_rng_state() if preserve_rng_state and hasattr(paddle, "get_rng_state") else None
        ctx.save_for_backward(*[args[i] for i in ctx.tensor_idx])
        with paddle.no_grad():
            return function(*args)

    @staticmethod
    def backward(ctx, *grads):
        saved = ctx.saved_tensor()
        args = list(ctx.args)
        ins = []
        for i, t in zip(ctx.tensor_idx, saved):
            d = t.detach()
            d.stop_gradient = t.stop_gradient
            args[i] = d
            ins.append(d)
        if ctx.rng is not None:
            cur = paddle.get_rng_state()
            paddle.set_rng_state(ctx.rng)
        with paddle.enable_grad():
            outs = ctx.function(*args)
        if ctx.rng is not None:
            paddle.set_rng_state(cur)
        outs = [outs] if isinstance(outs, paddle.Tensor) else list(outs)
        pairs = [(o, g) for o, g in zip(outs, grads) if isinstance(o, paddle.Tensor) and not o.stop_gradient
                 and g is not None]
        params = _params_of(ctx.function)
        want = [d for d in ins if not d.stop_gradient] + params
        res = paddle.grad([o for o, _ in pairs], want, [g for _, g in pairs], allow_unused=True) if pairs and want \
            else [None] * len(want)
        k = len([d for d in ins if not d.stop_gradient])
        for p, g in zip(params, res[k:]):
            if g is not None:
                p.grad = g if p.grad is None else p.grad + g
        it = iter(res[:k])
        out = []
        for d in ins:
            out.append(next(it) if not d.stop_gradient else None)
        return tuple(out) if len(out) != 1 else out[0]


def recompute(function, *args, **kwargs):
    """Runs function(*args) without keeping its activations; backward recomputes them."""
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError(f"recompute: unexpected keyword arguments {sorted(kwargs)}")
    return _Recompute.apply(function, preserve, *args)
