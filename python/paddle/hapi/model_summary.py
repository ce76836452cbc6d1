"""paddle.summary and paddle.flops: run one forward pass with hooks on every layer and report
per-layer input/output shapes and parameter counts (seed E2's table, sizes in MB = 2^20 bytes:
input, forward/backward = 2 x the outputs' bytes, params), or per-layer FLOPs."""
import numpy as np

from .. import _C

Tensor = _C.Tensor


def _shapes(x):
    if isinstance(x, Tensor):
        return list(x.shape)
    if isinstance(x, (list, tuple)):
        return [_shapes(v) for v in x]
    return None


def _numel(shape):
    if shape and isinstance(shape[0], list):
        return sum(_numel(s) for s in shape)
    return int(np.prod(shape)) if shape is not None else 0


def _norm_size(size):
    """input_size as Paddle's summary takes it: a shape (tuple/list of ints, None or -1 for the
    batch: 1), an int, an InputSpec, or a list of those (one per input) -> a shape or a list of shapes."""
    from ..static import InputSpec
    if isinstance(size, InputSpec):
        return _check_shape(tuple(size.shape))
    if isinstance(size, int) and not isinstance(size, bool):
        return (size,)
    if isinstance(size, (list, tuple)) and all(v is None or isinstance(v, (int, np.integer)) for v in size):
        return _check_shape(tuple(size))
    if isinstance(size, (list, tuple)):
        return [_norm_size(v) for v in size]
    raise TypeError(f"summary: input_size entries must be tuples, ints or InputSpecs, received {type(size).__name__}")


def _check_shape(shape):
    out, unknown = [], 0
    for v in shape:
        if v is None or v == -1:
            unknown += 1
            if unknown > 1:
                raise ValueError("Option input_size only the dim of batch_size can be None or -1.")
            v = 1
        elif v <= 0:
            raise ValueError(f"Expected element in input size greater than zero, but got {v}")
        out.append(int(v))
    return tuple(out)


def _make_inputs(input_size, dtypes):
    """One input per shape of input_size (a shape, an InputSpec, or a list of them), float32 unless
    dtypes says; returns the inputs and their shapes."""
    from ..tensor.creation import ones
    size = _norm_size(input_size)
    sizes = [size] if isinstance(size, tuple) else list(size)
    if dtypes is None:
        dtypes = ["float32"] * len(sizes)
    elif isinstance(dtypes, str):
        dtypes = [dtypes] * len(sizes)
    out = []
    for s, d in zip(sizes, dtypes):
        out.append(ones(list(s), dtype=d) if isinstance(s, tuple) else _make_inputs(s, d)[0])
    return out, sizes


def _flat_tensors(x):
    if isinstance(x, Tensor):
        return [x]
    if isinstance(x, dict):
        x = list(x.values())
    if isinstance(x, (list, tuple)):
        return [t for v in x for t in _flat_tensors(v)]
    return []


def _is_container(layer):
    from ..nn.layer.container import LayerDict, LayerList, Sequential
    return isinstance(layer, (Sequential, LayerList, LayerDict))


def _run_with_hooks(net, inputs, on_layer):
    counters = {}
    handles = []
    order = []

    def hook(layer, inp, out):
        name = type(layer).__name__
        counters[name] = counters.get(name, 0) + 1
        order.append((f"{name}-{counters[name]}", layer, inp, out))

    for lname, layer in net.named_sublayers():
        if _is_container(layer) or (layer.children() and lname):
            continue
        handles.append(layer.register_forward_post_hook(hook))
    if not handles:
        handles.append(net.register_forward_post_hook(hook))
    from .. import no_grad
    was_training = net.training
    net.eval()
    try:
        with no_grad():
            net(*inputs)
    finally:
        for h in handles:
            h.remove()
        if was_training:
            net.train()
    for rec in order:
        on_layer(*rec)


def summary(net, input_size=None, dtypes=None, input=None):
    """Prints the layer table and size estimates; returns {'total_params', 'trainable_params'}."""
    if input is not None:  # given as it is to forward, as one argument (a Tensor, list or dict)
        if not isinstance(input, (Tensor, list, tuple, dict)):
            raise ValueError("Input is not tensor, list, tuple and dict, unable to determine input_size, "
                             "please input input_size.")
        inputs = [input]
        flat = _flat_tensors(input)
    elif input_size is not None:
        inputs, _ = _make_inputs(input_size, dtypes)
        flat = _flat_tensors(inputs)
    else:
        raise ValueError("input_size and input cannot be None at the same time")
    rows = []

    def on_layer(name, layer, inp, out):
        own = sum(int(np.prod(p.shape)) for p in layer._parameters.values() if p is not None)
        rows.append((name, _shapes(list(inp)), _shapes(out), own))

    _run_with_hooks(net, inputs, on_layer)
    total = sum(int(np.prod(p.shape)) for p in net.parameters())
    trainable = sum(int(np.prod(p.shape)) for p in net.parameters() if not p.stop_gradient)
    width = 75
    fmt = "{:^20}{:^20}{:^20}{:^15}"
    print("-" * width)
    print(fmt.format("Layer (type)", "Input Shape", "Output Shape", "Param #"))
    print("=" * width)
    for name, ins, outs, n in rows:
        print(fmt.format(name, str(ins), str(outs), f"{n:,}"))
    print("=" * width)
    print(f"Total params: {total:,}")
    print(f"Trainable params: {trainable:,}")
    print(f"Non-trainable params: {total - trainable:,}")
    print("-" * width)
    isize = sum(t.size * t.dtype.itemsize for t in flat) / 2 ** 20
    fb = 2 * sum(_numel(o) for _, _, o, _ in rows if o is not None) * 4 / 2 ** 20
    psize = total * 4 / 2 ** 20
    print(f"Input size (MB): {isize:.2f}")
    print(f"Forward/backward pass size (MB): {fb:.2f}")
    print(f"Params size (MB): {psize:.2f}")
    print(f"Estimated Total Size (MB): {isize + fb + psize:.2f}")
    print("-" * width)
    return {"total_params": total, "trainable_params": trainable}


def _layer_flops(layer, inp, out):
    name = type(layer).__name__
    o = out[0] if isinstance(out, (list, tuple)) else out
    if not isinstance(o, Tensor):
        return 0
    n_out = o.size
    if name == "Linear":
        return int(layer.weight.shape[0]) * n_out
    if name.startswith("Conv"):
        w = layer.weight
        k = int(np.prod(w.shape[2:]))
        cin = w.shape[1] if "Transpose" not in name else w.shape[0] // getattr(layer, "_groups", 1)
        bias = 1 if getattr(layer, "bias", None) is not None else 0
        return n_out * (cin * k + bias)
    if "BatchNorm" in name or "LayerNorm" in name or "GroupNorm" in name or "InstanceNorm" in name:
        return 2 * n_out
    if "Pool" in name:
        i = inp[0] if isinstance(inp, (list, tuple)) else inp
        return i.size if isinstance(i, Tensor) else n_out
    return 0  # activations, reshapes, dropout: counted as zero, as Paddle does


def flops(net, input_size, custom_ops=None, print_detail=False):
    """Total floating-point operations of one forward pass at input_size (multiply-adds count
    once, as Paddle counts them); prints a per-layer table when print_detail."""
    inputs, _ = _make_inputs(input_size, None)
    custom_ops = custom_ops or {}
    rows = []

    def on_layer(name, layer, inp, out):
        fn = custom_ops.get(type(layer))
        f = int(fn(layer, inp, out)) if fn else _layer_flops(layer, inp, out)
        params = sum(int(np.prod(p.shape)) for p in layer._parameters.values() if p is not None)
        rows.append((name, _shapes(list(inp)), _shapes(out), params, f))

    _run_with_hooks(net, inputs, on_layer)
    total = sum(r[4] for r in rows)
    total_params = sum(int(np.prod(p.shape)) for p in net.parameters())
    if print_detail:
        fmt = "{:^20}{:^20}{:^20}{:^12}{:^12}"
        print(fmt.format("Layer Name", "Input Shape", "Output Shape", "Params", "Flops"))
        for r in rows:
            print(fmt.format(r[0], str(r[1]), str(r[2]), r[3], r[4]))
    print(f"Total Flops: {total}     Total Params: {total_params}")
    return total

