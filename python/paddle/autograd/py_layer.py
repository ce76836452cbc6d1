"""paddle.autograd.PyLayer: user-defined forward/backward. forward runs without recording;
if any tensor input requires grad, the outputs get a custom grad node whose backward calls
the user's backward(ctx, *grads) (recorded too under create_graph)."""
from .. import _C

Tensor = _C.Tensor


class PyLayerContext:
    """The ctx object passed to forward and backward."""

    def __init__(self):
        self._saved = ()
        self._non_differentiable = ()
        self.materialize_grads = True

    def save_for_backward(self, *tensors):
        """Saves tensors for backward (retrieve them with saved_tensor())."""
        self._saved = tensors

    def saved_tensor(self):
        return self._saved

    def mark_non_differentiable(self, *tensors):
        """Marks outputs that have no gradient (they get stop_gradient=True)."""
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)


class PyLayerMeta(type):
    pass


class PyLayer(metaclass=PyLayerMeta):
    """Subclass with static forward(ctx, *args, **kwargs) and backward(ctx, *grads)."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("PyLayer subclasses must implement forward(ctx, ...)")

    @staticmethod
    def backward(ctx, *args):
        raise NotImplementedError("PyLayer subclasses must implement backward(ctx, ...)")

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = PyLayerContext()
        prev = _C._set_grad_enabled(False)
        try:
            outs = cls.forward(ctx, *args, **kwargs)
        finally:
            _C._set_grad_enabled(prev)
        single = isinstance(outs, Tensor)
        out_list = [outs] if single else list(outs) if isinstance(outs, (tuple, list)) else None
        if out_list is None:
            raise TypeError(f"{cls.__name__}.forward must return a Tensor or a tuple of Tensors")
        tensor_inputs = [a for a in list(args) + list(kwargs.values()) if isinstance(a, Tensor)]
        need = prev and any(not t.stop_gradient for t in tensor_inputs)
        if need:
            # outputs that are inputs returned unchanged get their own view, so the input keeps its history
            fixed = []
            for o in out_list:
                if isinstance(o, Tensor) and any(o is t for t in tensor_inputs):
                    o = o._share_as(Tensor)
                fixed.append(o)
            out_list = fixed
            nd = {id(t) for t in ctx._non_differentiable}
            tensor_outs = [o for o in out_list if isinstance(o, Tensor)]
            saved = tuple(t.detach() if any(t is o for o in tensor_outs) else t for t in ctx._saved) \
                if ctx._saved else ()
            ctx._saved = saved
            nd_slots = {i for i, o in enumerate(tensor_outs) if id(o) in nd}

            def run_backward(c, *grads):
                grads = tuple(None if i in nd_slots else g for i, g in enumerate(grads))
                return cls.backward(c, *grads)

            # every tensor output is a slot of the node (backward gets one gradient per output)
            _C._pylayer_record(cls.__name__, run_backward, ctx, tensor_inputs, tensor_outs)
            for o in tensor_outs:
                if id(o) in nd:
                    o._detach_()
        if single:
            return out_list[0]
        return tuple(out_list) if isinstance(outs, tuple) else out_list


class LegacyPyLayer(PyLayer):
    pass
