"""weight_norm: reparameterises a layer's weight as g * v / ||v|| (norm over every dim but
`dim`), recomputed by a forward pre-hook; remove_weight_norm folds it back into one weight."""
from ...framework.param import make_parameter

__all__ = ["weight_norm", "remove_weight_norm"]


def _norm_except_dim(v, dim):
    import paddle
    if dim is None or dim == -1:
        return paddle.sqrt(paddle.sum(v * v))
    nd = len(v.shape)
    axes = [i for i in range(nd) if i != dim]
    if not axes:
        return paddle.abs(v)
    return paddle.sqrt(paddle.sum(v * v, axis=axes, keepdim=True))


class WeightNorm:
    def __init__(self, name, dim):
        self.name, self.dim = name, dim

    def compute_weight(self, layer):
        g = getattr(layer, self.name + "_g")
        v = getattr(layer, self.name + "_v")
        import paddle
        if self.dim is not None and self.dim != -1:
            bshape = [1] * len(v.shape)
            bshape[self.dim] = v.shape[self.dim]
            g = paddle.reshape(g, bshape)
        return v * (g / _norm_except_dim(v, self.dim))

    @staticmethod
    def apply(layer, name, dim):
        import paddle
        for hook in layer._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"weight_norm: the parameter {name!r} already has weight_norm")
        w = layer._parameters.get(name)
        if w is None:
            raise ValueError(f"weight_norm: the layer has no parameter {name!r}")
        nd = len(w.shape)
        if dim is not None and not -nd <= dim < nd:
            raise ValueError(f"weight_norm: dim must be None or in [{-nd}, {nd}), received {dim}")
        if dim is not None and dim < 0:
            dim = dim + nd if dim != -1 else -1
        fn = WeightNorm(name, dim)
        del layer._parameters[name]
        with paddle.no_grad():
            g0 = _norm_except_dim(w, dim)
            g0 = paddle.reshape(g0, [1] if dim is None or dim == -1 else [w.shape[dim]])
            g = make_parameter(g0.clone(), w.name + "_g", trainable=not w.stop_gradient)
            v = make_parameter(w.clone(), w.name + "_v", trainable=not w.stop_gradient)
        layer.add_parameter(name + "_v", v)  # Paddle's order: <name>_v, then <name>_g
        layer.add_parameter(name + "_g", g)
        object.__setattr__(layer, name, fn.compute_weight(layer))
        layer.register_forward_pre_hook(fn)
        return fn

    def remove(self, layer):
        import paddle
        with paddle.no_grad():
            w = self.compute_weight(layer).detach().clone()
        v = layer._parameters[self.name + "_v"]
        del layer._parameters[self.name + "_g"]
        del layer._parameters[self.name + "_v"]
        layer.__dict__.pop(self.name, None)
        layer.add_parameter(self.name, make_parameter(w, v.name[:-2] if v.name.endswith("_v") else v.name,
                                                      trainable=not v.stop_gradient))

    def __call__(self, layer, inputs):
        object.__setattr__(layer, self.name, self.compute_weight(layer))


def weight_norm(layer, name="weight", dim=0):
    """Splits layer.<name> into <name>_g (magnitude) and <name>_v (direction); returns layer."""
    WeightNorm.apply(layer, name, dim)
    return layer


def remove_weight_norm(layer, name="weight"):
    """Undoes weight_norm: layer.<name> becomes one Parameter again; returns layer."""
    for k, hook in list(layer._forward_pre_hooks.items()):
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(layer)
            del layer._forward_pre_hooks[k]
            return layer
    raise ValueError(f"remove_weight_norm: weight_norm of {name!r} not found in {type(layer).__name__}")

