"""Loops in converted code: `while` and every `for` become convert_while_loop(cond, body, get_args,
set_args, names). A condition that is a program Variable builds a `while` op (Python numbers
the loop changes become Variables, lists appended to become TensorLists); otherwise the loop
runs in Python, switching to a `while` op if the condition turns into a Variable part way.
`for` iterates through ForIter objects: Python sequences by index, Tensors and range() over
Tensors with a counter Variable."""
import numpy as np

from ... import _C
from .convert_operators import (RETURN_VALUE_PREFIX, TensorList, UndefinedVar, VariadicReturn, _bool_var,
                                _flat_return, _in_block, _index_first, _logical, _paddle, is_var, merge_value,
                                to_bool, to_var)

Tensor = _C.Tensor


# ---------------------------------------------------------------------------------- while
def convert_while_loop(cond, body, get_args, set_args, names):
    pred = cond()
    while True:
        if is_var(pred):
            _static_while(pred, cond, body, get_args, set_args, names)
            return
        if not to_bool(pred):
            return
        body()
        pred = cond()


def _carry_value(v):
    """How a loop variable enters a `while` op: (kind, value). kinds: 'var' (carried), 'list'
    (a TensorList, its accumulator carried), 'local' (undefined before the loop: body-local),
    'const' (a Python object the loop must not change)."""
    paddle = _paddle()
    if isinstance(v, UndefinedVar):
        return "local", v
    if is_var(v):
        return "var", paddle.assign(v)  # the loop's own variable: never an alias of an input or another name
    if isinstance(v, TensorList):
        if v.acc is None:
            return "list", v
        acc = paddle.assign(v.acc)
        acc.desc.set_shape([-1] + list(acc.shape[1:]))
        return "list", TensorList(acc, v.home)
    if isinstance(v, (bool, int, float, np.bool_, np.integer, np.floating)):
        return "var", to_var(v)
    if isinstance(v, Tensor):
        return "var", paddle.assign(v)
    if isinstance(v, list) and all(isinstance(x, Tensor) for x in v):
        return "list", TensorList.from_list(v)
    return "const", v


def _write_back(new, old, name):
    """Inside the loop body: the loop variable old (a parent Variable) takes the value new."""
    paddle = _paddle()
    from ...static.nn.control_flow import _assign
    if isinstance(new, UndefinedVar):
        new._fail()
    if not is_var(new):
        if isinstance(new, Tensor) or isinstance(new, (bool, int, float, np.generic)):
            new = to_var(new, old)
        else:
            raise TypeError(f"the loop variable '{name}' of a while loop on a Tensor holds a Tensor before the loop "
                            f"and a {type(new).__name__} after an iteration")
    if new.dtype != old.dtype:
        new = paddle.cast(new, old.dtype)
    _assign(new, old)


def _static_while(pred, cond, body, get_args, set_args, names):
    from ...static.nn.control_flow import While, _assign
    paddle = _paddle()
    vals = list(get_args())
    kinds = []
    for i, v in enumerate(vals):
        if names[i].startswith(RETURN_VALUE_PREFIX) and (v is None or isinstance(v, UndefinedVar)):
            kinds.append("ret")  # a return value first set inside the loop: carried once its form is known
            continue
        k, nv = _carry_value(v)
        kinds.append(k)
        vals[i] = nv
    set_args(tuple(vals))
    pred = _bool_var(pred)
    home = _paddle().static.default_main_program().current_block_idx
    loop = While(pred)
    with loop.block():
        body()
        new = list(get_args())
        for i, k in enumerate(kinds):
            if k == "ret":
                vals[i] = new[i] = _carry_return(new[i], home)
        # a result that is itself a loop variable (a, b = b, a) is copied before anything is written
        olds = {id(vals[i]) for i, k in enumerate(kinds) if k == "var"}
        olds |= {id(vals[i].acc) for i, k in enumerate(kinds) if k == "list" and vals[i].acc is not None}
        for i, k in enumerate(kinds):
            n = new[i]
            if k == "var" and is_var(n) and id(n) in olds:
                new[i] = paddle.assign(n)
            elif k == "list" and isinstance(n, TensorList) and n.acc is not None and id(n.acc) in olds:
                new[i] = TensorList(paddle.assign(n.acc), n.home)
        next_pred = cond()
        for i, k in enumerate(kinds):
            n, name = new[i], names[i]
            if k == "ret" and n is not None:
                for leaf, init in zip(n[2], n[3]):
                    _write_back(leaf, init, name)
            if k == "var":
                _write_back(n, vals[i], name)
            elif k == "list":
                if not isinstance(n, TensorList):
                    raise TypeError(f"the list '{name}' changes into a {type(n).__name__} in a while loop on a Tensor")
                if n.acc is not None and n is not vals[i]:
                    if vals[i].acc is None:
                        raise ValueError(f"the list '{name}' gets its first item in a nested branch of a loop on a "
                                         "Tensor; append to it directly in the loop body")
                    _write_back(n.acc, vals[i].acc, name)
            elif k == "const" and n is not vals[i]:
                same = False
                try:
                    same = bool(n == vals[i])
                except Exception:  # noqa: BLE001
                    pass
                if not same:
                    raise TypeError(f"the variable '{name}' ({type(vals[i]).__name__}) changes inside a while loop on "
                                    "a Tensor; only Tensors, numbers and lists of Tensors can change in such a loop")
        if is_var(next_pred):
            _assign(_bool_var(next_pred), pred)
        else:
            paddle.assign(paddle.full([1], to_bool(next_pred), "bool"), pred)
    out = []
    for i, k in enumerate(kinds):
        if k == "ret":
            rf = names[i].replace(RETURN_VALUE_PREFIX, "_jst_rf", 1)
            flag = vals[names.index(rf)] if rf in names else None
            v = vals[i][1] if isinstance(vals[i], tuple) and len(vals[i]) == 4 and vals[i][0] == "__ret__" else None
            if v is None or flag is None or not is_var(flag):
                out.append(v)
            else:
                out.append(merge_value(names[i], v, None, _paddle().cast(flag, "int32")))
        elif k == "local":
            out.append(UndefinedVar(names[i], "it is assigned only inside a loop whose condition is a Tensor"))
        else:
            out.append(vals[i])
    set_args(tuple(out))


def _carry_return(r, home):
    """A return value the loop body set (r): ('__ret__', structure over new parent variables,
    its leaves, the parent variables) -- the parent variables are created before the loop."""
    if r is None or isinstance(r, UndefinedVar):
        return None
    paddle = _paddle()
    leaves = [x if is_var(x) else to_var(x) for x in _flat_return(r)]
    inits = []
    with _in_block(home):
        for x in leaves:
            shape = list(x.shape)
            z = paddle.zeros([d if d >= 0 else 0 for d in shape], x.dtype)
            z.desc.set_shape(shape)
            inits.append(z)
    if isinstance(r, VariadicReturn) or isinstance(r, (list, tuple)) and len(inits) != len(r):
        struct = VariadicReturn(inits)
    elif isinstance(r, (list, tuple)):
        struct = type(r)(inits)
    else:
        struct = inits[0]
    return ("__ret__", struct, leaves, inits)


# ---------------------------------------------------------------------------------- for
class ForIter:
    """Index-based iteration for converted `for` loops: start() gives the first index, has(i)
    the loop condition, item(i) the target value, step(i) the next index."""

    def start(self):
        return 0

    def step(self, i):
        return i + 1


class _PyIter(ForIter):
    def __init__(self, items):
        self.items = items

    def has(self, i):
        if is_var(i) and not isinstance(self.items, range):
            # switched to a while op part way: the rest cannot be indexed by a Variable
            raise TypeError("a for loop over a Python sequence cannot continue after a `break` or `return` under "
                            "a Tensor condition; iterate over a range, or over a Tensor")
        return i < len(self.items)

    def item(self, i):
        if is_var(i):  # a Python range continued by a while op
            return i * self.items.step + self.items.start if self.items.step != 1 or self.items.start else i
        return self.items[i]


class _TensorIter(ForIter):
    """Iterating a Variable along its first dim (a while op with a counter)."""

    def __init__(self, t):
        self.t = t

    def start(self):
        return _paddle().full([1], 0, "int64")

    def _len(self):
        paddle = _paddle()
        return paddle.cast(paddle.slice(paddle.shape(self.t), [0], [0], [1]), "int64")

    def has(self, i):
        return i < self._len()

    def item(self, i):
        return _index_first(self.t, i)


class _ListIter(_TensorIter):
    def __init__(self, tl):
        self.t = tl._need()


class _RangeIter(ForIter):
    """range(start, stop, step) with a Variable among them."""

    def __init__(self, start, stop, step):
        paddle = _paddle()

        def iv(v):
            v = to_var(v) if not is_var(v) else v
            return paddle.cast(paddle.reshape(v, [1]), "int64") if v.dtype != paddle.int64 or len(v.shape) != 1 \
                else v
        self.start_v, self.stop_v = iv(start), iv(stop)
        self.step_py = step if not is_var(step) else None
        self.step_v = iv(step)

    def start(self):
        return self.start_v

    def has(self, i):
        if self.step_py is not None:
            if int(self.step_py) == 0:
                raise ValueError("range() arg 3 must not be zero")
            return i < self.stop_v if self.step_py > 0 else i > self.stop_v
        pos = _logical("and", self.step_v > 0, i < self.stop_v)
        neg = _logical("and", self.step_v < 0, i > self.stop_v)
        return _logical("or", pos, neg)

    def item(self, i):
        return i

    def step(self, i):
        return i + self.step_v


class _EnumerateIter(ForIter):
    def __init__(self, inner, start):
        self.inner, self.offset = inner, start

    def start(self):
        return self.inner.start()

    def has(self, i):
        return self.inner.has(i)

    def item(self, i):
        k = i if not isinstance(self.inner, _RangeIter) else i
        return (k + self.offset if self.offset else k, self.inner.item(i))

    def step(self, i):
        return self.inner.step(i)


class _ZipIter(ForIter):
    def __init__(self, inners):
        self.inners = inners
        self.static = any(not isinstance(x, _PyIter) for x in inners)

    def start(self):
        return _paddle().full([1], 0, "int64") if self.static else 0

    def has(self, i):
        res = None
        for x in self.inners:
            h = x.has(i) if not isinstance(x, _PyIter) else _py_has(x, i)
            if res is None:
                res = h
            elif is_var(res) or is_var(h):
                res = _logical("and", res, h) if is_var(res) else _logical("and", h, res)
            else:
                res = res and h
        return res

    def item(self, i):
        return tuple(x.item(i) for x in self.inners)


def _py_has(x, i):
    if is_var(i):
        n = len(x.items)
        return i < n
    return x.has(i)


def _iter_of(obj):
    """The ForIter for iterating obj."""
    if isinstance(obj, ForIter):
        return obj
    if is_var(obj):
        return _TensorIter(obj)
    if isinstance(obj, TensorList):
        return _ListIter(obj)
    if isinstance(obj, UndefinedVar):
        obj._fail()
    if isinstance(obj, Tensor):
        return _PyIter([obj[i] for i in range(obj.shape[0])]) if obj.shape else _PyIter(list(obj))
    if isinstance(obj, (list, tuple)):
        return _PyIter(obj)
    return _PyIter(list(obj))


def for_iter(obj):
    return _iter_of(obj)


def for_range(*args):
    if any(is_var(a) for a in args):
        if len(args) == 1:
            return _RangeIter(0, args[0], 1)
        if len(args) == 2:
            return _RangeIter(args[0], args[1], 1)
        return _RangeIter(*args)
    return _PyIter(range(*[_py_int(a) for a in args]))


def _py_int(a):
    if isinstance(a, Tensor):
        return int(np.asarray(a).reshape(-1)[0])
    return a


def for_enumerate(obj, start=0):
    return _EnumerateIter(_iter_of(obj), start)


def for_zip(*objs):
    inners = [_iter_of(o) for o in objs]
    if all(isinstance(x, _PyIter) for x in inners):
        return _PyIter(list(zip(*[x.items for x in inners])))
    return _ZipIter(inners)
