"""paddle.autograd.backward, paddle.grad and the Tensor methods backward / register_hook /
clear_grad / gradient, over the C engine (csrc/autograd)."""
from .. import _C
from ..profiler import utils as _prof

Tensor = _C.Tensor


def _as_list(x, what):
    if isinstance(x, Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        for i, t in enumerate(x):
            if not isinstance(t, Tensor):
                raise TypeError(f"{what}[{i}] must be a paddle.Tensor, received {type(t).__name__}")
        return list(x)
    raise TypeError(f"{what} must be a Tensor or a list of Tensors, received {type(x).__name__}")


_post_backward = []


def _queue_post_backward(fn):
    """fn() runs once after the next Tensor.backward / paddle.autograd.backward finishes (how
    paddle.DataParallel all-reduces the gradients a forward pass will produce)."""
    if fn not in _post_backward:
        _post_backward.append(fn)


def _run_post_backward():
    while _post_backward:
        _post_backward.pop(0)()


def backward(tensors, grad_tensors=None, retain_graph=False):
    """Computes gradients of tensors w.r.t. the graph's leaves and accumulates them in .grad."""
    tensors = _as_list(tensors, "tensors")
    if grad_tensors is not None:
        if isinstance(grad_tensors, Tensor):
            grad_tensors = [grad_tensors]
        grad_tensors = list(grad_tensors)
        if len(grad_tensors) != len(tensors):
            raise ValueError(f"grad_tensors must have {len(tensors)} entries, received {len(grad_tensors)}")
    if len({id(t) for t in tensors}) != len(tensors):
        raise ValueError("backward: the same tensor appears twice in tensors")
    _C._run_backward(tensors, grad_tensors, None, bool(retain_graph), False, False)
    _run_post_backward()


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, no_grad_vars=None):
    """Returns the gradients of outputs w.r.t. inputs (does not touch .grad)."""
    outputs = _as_list(outputs, "outputs")
    inputs = _as_list(inputs, "inputs")
    if any(_C._is_variable(o) for o in outputs):  # a static program: gradient variables
        from ..static import gradients
        return gradients(outputs, inputs, grad_outputs, no_grad_vars)
    if not only_inputs:
        raise NotImplementedError("paddle.grad: only_inputs=False is not supported (as in Paddle)")
    if grad_outputs is not None:
        if isinstance(grad_outputs, Tensor):
            grad_outputs = [grad_outputs]
        grad_outputs = list(grad_outputs)
        if len(grad_outputs) != len(outputs):
            raise ValueError(f"grad_outputs must have {len(outputs)} entries, received {len(grad_outputs)}")
    if retain_graph is None:
        retain_graph = create_graph
    saved = []
    if no_grad_vars is not None:
        nv = [no_grad_vars] if isinstance(no_grad_vars, Tensor) else list(no_grad_vars)
        for v in nv:
            saved.append((v, v.stop_gradient))
            v.stop_gradient = True
    try:
        res = _C._run_backward(outputs, grad_outputs, inputs, bool(retain_graph), bool(create_graph),
                               bool(allow_unused))
    finally:
        for v, sg in saved:
            v.stop_gradient = sg
    return res


class _HookHandle:
    """The removable handle register_hook returns."""

    def __init__(self, tensor, hid):
        self._tensor = tensor
        self._id = hid

    def remove(self):
        if self._tensor is not None:
            self._tensor._remove_hook(self._id)
            self._tensor = None
            return True
        return False


def _tensor_backward(self, grad_tensor=None, retain_graph=False):
    """Runs backward from this tensor (grad_tensor defaults to ones) and accumulates .grad."""
    if grad_tensor is not None and not isinstance(grad_tensor, Tensor):
        raise TypeError(f"grad_tensor must be a paddle.Tensor or None, received {type(grad_tensor).__name__}")
    if _prof._is_profiler_used:  # Paddle's "Gradient Backward" range while profiling
        with _prof.RecordEvent("Gradient Backward", _prof.TracerEventType.Backward):
            _C._run_backward([self], None if grad_tensor is None else [grad_tensor], None,
                             bool(retain_graph), False, False)
        return
    _C._run_backward([self], None if grad_tensor is None else [grad_tensor], None,
                     bool(retain_graph), False, False)
    _run_post_backward()


def _register_hook(self, hook):
    return _HookHandle(self, self._register_hook(hook))


def _clear_gradient(self, set_to_zero=True):
    self._clear_grad(bool(set_to_zero))


def _gradient(self):
    """The gradient as a numpy array, or None."""
    g = self.grad
    return None if g is None else g.numpy()


def install():
    Tensor.backward = _tensor_backward
    Tensor.register_hook = _register_hook
    Tensor.clear_gradient = _clear_gradient
    Tensor.clear_grad = _clear_gradient
    Tensor.gradient = _gradient
