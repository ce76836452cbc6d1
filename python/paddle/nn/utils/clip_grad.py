"""clip_grad_norm_ / clip_grad_value_: in-place clipping of parameters' gradients."""

__all__ = ["clip_grad_norm_", "clip_grad_value_"]


def _grads(parameters):
    from ...framework.param import Tensor
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scales all gradients so that their joint norm is at most max_norm; returns the norm."""
    import paddle
    ps = _grads(parameters)
    norm_type = float(norm_type)
    if not ps:
        return paddle.to_tensor([0.0])
    with paddle.no_grad():
        if norm_type == float("inf"):
            norms = [paddle.max(paddle.abs(p.grad)) for p in ps]
            total = paddle.max(paddle.stack(norms)) if len(norms) > 1 else norms[0]
        else:
            norms = [paddle.sum(paddle.pow(paddle.abs(p.grad), norm_type)) for p in ps]
            total = paddle.pow(paddle.add_n(norms) if hasattr(paddle, "add_n") else sum(norms[1:], norms[0]),
                               1.0 / norm_type)
        total = paddle.reshape(total, [1])
        tv = float(total.numpy()[0])
        if error_if_nonfinite and not (tv == tv and abs(tv) != float("inf")):
            raise RuntimeError(f"clip_grad_norm_: the total norm of order {norm_type} is non-finite")
        coef = float(max_norm) / (tv + 1e-6)
        if coef < 1.0:
            for p in ps:
                p.grad.set_value((p.grad * coef).numpy())
    return total


def clip_grad_value_(parameters, clip_value):
    """Clamps every gradient into [-clip_value, clip_value] in place."""
    import paddle
    cv = float(clip_value)
    with paddle.no_grad():
        for p in _grads(parameters):
            p.grad.set_value(paddle.clip(p.grad, -cv, cv).numpy())
