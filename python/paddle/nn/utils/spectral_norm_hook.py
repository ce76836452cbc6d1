"""spectral_norm: divides a layer's weight by its largest singular value (estimated by power
iteration on persistent u/v vectors, updated in training mode) through a forward pre-hook.
_spectral_normalize is shared with nn.SpectralNorm."""
import numpy as np

__all__ = ["spectral_norm"]


def _l2n(t, eps):
    import paddle
    return t / (paddle.sqrt(paddle.sum(t * t)) + eps)


def _spectral_normalize(weight, u, v, dim, power_iters, eps, update=True):
    """weight / sigma; u [h], v [w] are refreshed in place (no gradient) power_iters times."""
    import paddle
    nd = len(weight.shape)
    perm = [dim] + [i for i in range(nd) if i != dim]
    mat = paddle.reshape(paddle.transpose(weight, perm) if dim != 0 else weight, [weight.shape[dim], -1])
    if update and power_iters > 0:
        with paddle.no_grad():
            m = mat.detach()
            uu, vv = u.detach(), v.detach()
            for _ in range(power_iters):
                vv = _l2n(paddle.matmul(m, uu, transpose_x=True), eps)
                uu = _l2n(paddle.matmul(m, vv), eps)
            u.set_value(uu.numpy())
            v.set_value(vv.numpy())
    uu, vv = u.detach(), v.detach()
    sigma = paddle.sum(uu * paddle.matmul(mat, vv))
    return weight / sigma


class SpectralNormHook:
    def __init__(self, name, n_power_iterations, dim, eps):
        self.name, self.n_power_iterations, self.dim, self.eps = name, n_power_iterations, dim, eps

    def compute_weight(self, layer, update):
        w = getattr(layer, self.name + "_orig")
        u = getattr(layer, self.name + "_u")
        v = getattr(layer, self.name + "_v")
        return _spectral_normalize(w, u, v, self.dim, self.n_power_iterations, self.eps, update)

    def __call__(self, layer, inputs):
        object.__setattr__(layer, self.name, self.compute_weight(layer, layer.training))


def spectral_norm(layer, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Applies spectral normalisation to layer.<name> (dim None: 1 for Linear and Conv*Transpose,
    whose weights are [in, out], else 0, as Paddle)."""
    import paddle
    w = layer._parameters.get(name)
    if w is None:
        raise ValueError(f"spectral_norm: the layer has no parameter {name!r}")
    if n_power_iterations <= 0:
        raise ValueError(f"spectral_norm: n_power_iterations must be > 0, received {n_power_iterations}")
    if dim is None:
        dim = 1 if isinstance(layer, paddle.nn.Linear) or "Transpose" in type(layer).__name__ else 0
    h = w.shape[dim]
    wd = int(np.prod(w.shape)) // h
    del layer._parameters[name]
    layer.add_parameter(name + "_orig", w)
    rng = np.random.default_rng(0)
    with paddle.no_grad():
        u = paddle.to_tensor(rng.normal(size=[h]).astype(w.numpy().dtype))
        v = paddle.to_tensor(rng.normal(size=[wd]).astype(w.numpy().dtype))
    layer.register_buffer(name + "_u", _l2n(u, eps))
    layer.register_buffer(name + "_v", _l2n(v, eps))
    hook = SpectralNormHook(name, n_power_iterations, dim, eps)
    object.__setattr__(layer, name, hook.compute_weight(layer, True))
    layer.register_forward_pre_hook(hook)
    return layer
