"""The runtime of converted code (`_jst` in the source ast_transformer.py writes): each helper
runs plain Python when its condition/operands are Python values or eager tensors, and builds
Paddle's program form (conditional_block/select_input, while) when they are program Variables.
Branch and loop bodies reach their variables through get_args/set_args closures."""
import numbers

import numpy as np

from ... import _C
from ...static.framework import default_main_program, _sync_target

Tensor = _C.Tensor
RETURN_NO_VALUE_MAGIC_NUM = 1.77113e27
_NUMBERS = (bool, int, float, np.bool_, np.integer, np.floating)


def _paddle():
    import paddle
    return paddle


def is_var(x):
    """A program Variable (not an eager tensor)."""
    return isinstance(x, Tensor) and _C._is_variable(x)


# ---------------------------------------------------------------------------------- undefined
class UndefinedVar:
    """The value of a local that has no value on this path (set in one branch of a tensor `if`,
    or only inside a tensor `while`). Using it raises with the variable's name."""
    __slots__ = ("_name", "_why")

    def __init__(self, name, why=None):
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_why", why)

    def _fail(self, *a, **k):
        why = self._why or "it is not assigned on every path that reaches this use (or only inside a loop " \
                           "whose condition is a Tensor)"
        raise NameError(f"local variable '{self._name}' has no value here in the converted (to_static) "
                        f"function: {why}")

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        self._fail()

    def __repr__(self):
        return f"UndefinedVar({self._name})"

    __bool__ = __call__ = __iter__ = __len__ = __getitem__ = __setitem__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _fail
    __floordiv__ = __mod__ = __pow__ = __neg__ = __lt__ = __le__ = __gt__ = __ge__ = __matmul__ = _fail
    __int__ = __float__ = __index__ = _fail


class _Conflict(UndefinedVar):
    pass


# ---------------------------------------------------------------------------------- helpers
def to_bool(x):
    """Python truth of a condition that is not a program Variable."""
    if isinstance(x, UndefinedVar):
        x._fail()
    if isinstance(x, Tensor):
        a = np.asarray(x)
        if a.size != 1:
            raise ValueError(f"The truth value of a Tensor with {a.size} elements is ambiguous; a condition must "
                             "have one element")
        return bool(a.reshape(-1)[0])
    return bool(x)


def _bool_var(x):
    """A bool Variable of one element from a condition Variable."""
    paddle = _paddle()
    size = 1
    for s in x.shape:
        size *= s
    if size != 1 and -1 not in x.shape:
        raise ValueError(f"The condition of an if/while on a Tensor must have one element, received shape "
                         f"{list(x.shape)} (use paddle.all / paddle.any to reduce it)")
    if x.dtype != paddle.bool:
        x = paddle.cast(x, "bool")
    if len(x.shape) != 1:
        x = paddle.reshape(x, [1])
    return x


def to_var(v, like=None):
    """A program Variable holding v (a Python number/bool, numpy value or eager tensor)."""
    paddle = _paddle()
    if is_var(v):
        return v
    if isinstance(v, Tensor):
        return paddle.assign(v)
    if isinstance(v, (bool, np.bool_)):
        return paddle.full([1], bool(v), "bool")
    if isinstance(v, (int, np.integer)):
        dt = like.dtype if like is not None and like.dtype in (paddle.int32, paddle.int64) else "int64"
        return paddle.full([1], int(v), dt)
    if isinstance(v, (float, np.floating)):
        dt = like.dtype if like is not None and like.dtype in (paddle.float16, paddle.float32, paddle.float64) \
            else "float32"
        return paddle.full([1], float(v), dt)
    if isinstance(v, np.ndarray):
        return paddle.assign(v)
    raise TypeError(f"cannot make a program Variable from {type(v).__name__}")


def _tensorable(v):
    return isinstance(v, _NUMBERS) or (isinstance(v, Tensor) and not is_var(v)) or isinstance(v, np.ndarray)


def _block_guard_idx(idx):
    """Records into block idx of the main program until restored (see _in_block)."""
    prog = default_main_program()
    old = prog.current_block_idx
    prog.current_block_idx = idx
    _sync_target()
    return prog, old


class _in_block:
    def __init__(self, idx):
        self.idx = idx

    def __enter__(self):
        self.prog, self.old = _block_guard_idx(self.idx)

    def __exit__(self, *a):
        self.prog.current_block_idx = self.old
        _sync_target()
        return False


# ---------------------------------------------------------------------------------- tensor lists
class TensorList:
    """A Python list appended to inside a loop on a Tensor: its items are stacked along a new first
    dim in one Variable (`acc`, first dim unknown), so the loop can carry it. stack/concat/len/
    indexing/iteration of it are converted (see convert_call)."""

    def __init__(self, acc, home, n=None):
        self.acc = acc
        self.home = home  # the block where the empty accumulator is created
        self.n = n  # the number of items when known while converting (None: known only at run time)

    @classmethod
    def from_list(cls, items):
        paddle = _paddle()
        home = default_main_program().current_block_idx
        if not items:
            return cls(None, home, 0)
        vals = [to_var(v) for v in items]
        acc = paddle.stack(vals, 0)
        acc.desc.set_shape([-1] + list(acc.shape[1:]))
        return cls(acc, home, len(items))

    def append(self, v):
        paddle = _paddle()
        v = to_var(v)
        if self.acc is not None:
            have = list(self.acc.shape[1:])
            if len(have) != len(v.shape) or any(a >= 0 and b >= 0 and a != b for a, b in zip(have, v.shape)) or \
                    v.dtype != self.acc.dtype:
                raise NotImplementedError(
                    f"a list appended to inside a loop or an `if` on a Tensor becomes one Tensor (Paddle's tensor "
                    f"array) here, so its items must share one shape and dtype: appending {list(v.shape)} {v.dtype} "
                    f"to items of {have} {self.acc.dtype}")
        if self.acc is None:
            with _in_block(self.home):
                init = paddle.zeros([0] + list(v.shape), v.dtype)
            init.desc.set_shape([-1] + list(v.shape))
            self.acc = init
        acc = paddle.concat([self.acc, paddle.unsqueeze(v, 0)], 0)
        acc.desc.set_shape([-1] + list(acc.shape[1:]))
        return TensorList(acc, self.home, None if self.n is None else self.n + 1)

    def _need(self):
        if self.acc is None:
            raise ValueError("a list built in a loop on a Tensor is used while it is still empty (its items' "
                             "shape is not known)")
        return self.acc

    def stack(self, axis=0):
        paddle = _paddle()
        acc = self._need()
        return acc if axis == 0 else paddle.moveaxis(acc, 0, axis)

    def concat(self, axis=0):
        paddle = _paddle()
        acc = self._need()
        nd = len(acc.shape) - 1
        axis = axis + nd if axis < 0 else axis
        moved = acc if axis == 0 else paddle.moveaxis(acc, 0, axis)
        shape = list(moved.shape)
        new = shape[:axis] + [-1] + shape[axis + 2:]
        if sum(1 for s in new if s < 0) > 1:
            raise ValueError("concat of a list built in a loop on a Tensor: the items' dims other than the "
                             "concatenated one must be known")
        return paddle.reshape(moved, new)

    def length(self):
        paddle = _paddle()
        if self.acc is None:
            return 0
        return paddle.slice(paddle.shape(self.acc), [0], [0], [1])

    def __getitem__(self, i):
        return _index_first(self._need(), i)

    def __len__(self):
        raise TypeError("len() of a list built in a loop on a Tensor is a Tensor: the converted len() "
                        "handles it")


def _index_first(t, i):
    """t[i] along the first dim, i a Python int or an integer Variable of one element."""
    paddle = _paddle()
    if is_var(i):
        idx = paddle.reshape(paddle.cast(i, "int64"), [1])
        if t.shape and t.shape[0] != -1:
            idx = paddle.where(idx < 0, idx + t.shape[0], idx)
        return paddle.squeeze(paddle.gather(t, idx, 0), [0])
    i = int(i)
    if i < 0:
        if t.shape[0] < 0:
            n = paddle.slice(paddle.shape(t), [0], [0], [1])
            return _index_first(t, paddle.cast(n, "int64") + i)
        i += t.shape[0]
    return paddle.squeeze(paddle.slice(t, [0], [i], [i + 1]), [0])


def convert_append(lst, value):
    """`lst.append(value)` as `lst = convert_append(lst, value)`."""
    if isinstance(lst, TensorList):
        return lst.append(value)
    lst.append(value)
    return lst


# ---------------------------------------------------------------------------------- merging
class VariadicReturn:
    """Return values of different structure merged by a tensor `if`: a flat list of Variables in
    which missing values are placeholders filled with RETURN_NO_VALUE_MAGIC_NUM (removed after
    the program runs, as Paddle does)."""

    def __init__(self, items):
        self.items = items


def _flat_return(v):
    if isinstance(v, VariadicReturn):
        return list(v.items)
    if v is None:
        return []
    if isinstance(v, (list, tuple)):
        out = []
        for x in v:
            out.extend(_flat_return(x) if isinstance(x, (list, tuple)) else [x])
        return out
    return [v]


def _placeholder():
    return _paddle().full([1], RETURN_NO_VALUE_MAGIC_NUM, "float64")


def _same_structure(a, b):
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same_structure(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_structure(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple, dict)) or isinstance(b, (list, tuple, dict)):
        return False
    if isinstance(a, VariadicReturn) or isinstance(b, VariadicReturn):
        return False
    return (a is None) == (b is None)


def _select(f, t, mask):
    from ...static.nn.control_flow import _select_input
    return _select_input([f, t], mask)


def merge_value(name, t, f, mask):
    """The value of `name` after a tensor `if` whose branches left t (true) and f (false)."""
    if t is f:
        return t
    if isinstance(t, _Conflict) or isinstance(f, _Conflict):
        return t if isinstance(t, _Conflict) else f
    if isinstance(t, UndefinedVar):
        return f
    if isinstance(f, UndefinedVar):
        return t
    if name.startswith(RETURN_VALUE_PREFIX) and not _same_structure(t, f):
        ft, ff = _flat_return(t), _flat_return(f)
        n = max(len(ft), len(ff))
        ft += [None] * (n - len(ft))
        ff += [None] * (n - len(ff))
        items = []
        for a, b in zip(ft, ff):
            a = _placeholder() if a is None else a
            b = _placeholder() if b is None else b
            items.append(merge_value("", a, b, mask))
        return VariadicReturn(items)
    if is_var(t) and is_var(f):
        return _select(f, t, mask)
    if isinstance(t, TensorList) and isinstance(f, TensorList):
        if t.acc is None and f.acc is None:
            return t
        n = t.n if t.n == f.n else None
        if t.acc is None or f.acc is None:
            # one branch appended nothing to an empty list: it leaves zero items of the other's shape
            like = f.acc if t.acc is None else t.acc
            empty = _paddle().zeros([0] + list(like.shape[1:]), like.dtype)
            t, f = (TensorList(empty, t.home, 0), f) if t.acc is None else (t, TensorList(empty, f.home, 0))
        acc = _select(f.acc, t.acc, mask)
        acc.desc.set_shape([-1] + list(acc.shape[1:]))
        return TensorList(acc, t.home, n)
    if isinstance(t, (list, tuple)) and isinstance(f, (list, tuple)) and type(t) is type(f) and len(t) == len(f):
        vals = [merge_value(name, a, b, mask) for a, b in zip(t, f)]
        return type(t)(vals) if not hasattr(t, "_fields") else type(t)(*vals)
    if isinstance(t, list) and isinstance(f, list) and len(t) != len(f):
        return _Conflict(name or "value", f"the branches of an `if` on a Tensor leave the list with {len(t)} "
                                          f"and {len(f)} items; a list both branches append to becomes one Tensor "
                                          f"(Paddle's tensor array) only when its items are Tensors of one shape "
                                          f"and dtype")
    if isinstance(t, dict) and isinstance(f, dict) and t.keys() == f.keys():
        return type(t)((k, merge_value(name, t[k], f[k], mask)) for k in t)
    if (is_var(t) and _tensorable(f)) or (is_var(f) and _tensorable(t)):
        like = t if is_var(t) else f
        return _select(to_var(f, like), to_var(t, like), mask)
    if not isinstance(t, Tensor) and not isinstance(f, Tensor):
        try:
            same = bool(t == f) and type(t) is type(f)
        except Exception:  # noqa: BLE001 (objects whose == is not a bool)
            same = False
        if same:
            return t
        if isinstance(t, _NUMBERS) and isinstance(f, _NUMBERS):
            return _select(to_var(f), to_var(t), mask)
    if isinstance(t, Tensor) and isinstance(f, Tensor):
        return _select(to_var(f), to_var(t), mask)
    return _Conflict(name or "value", f"the branches of an `if` on a Tensor leave it with different values of "
                                      f"types {type(t).__name__} and {type(f).__name__} that cannot be merged")


RETURN_VALUE_PREFIX = "_jst_rv"


# ---------------------------------------------------------------------------------- if / else
def convert_ifelse(pred, true_fn, false_fn, get_args, set_args, names, push_pop_names=()):
    """if pred: true_fn() else: false_fn(), with the branches' variables read/written through
    get_args/set_args (a tuple in the order of names); push_pop_names: the lists the branches
    append to (Paddle's push_pop_names)."""
    if is_var(pred):
        _static_ifelse(pred, true_fn, false_fn, get_args, set_args, names, push_pop_names)
    elif to_bool(pred):
        true_fn()
    else:
        false_fn()


def _run_branch(pred, fn, init, get_args, set_args):
    from ...static.nn.control_flow import ConditionalBlock, _copy_to_parent
    with ConditionalBlock([pred], is_scalar_condition=True).block():
        set_args(init)
        fn()
        out = list(get_args())
        for i, v in enumerate(out):
            out[i] = _copy_out(v)
    return out


def _copy_out(v):
    from ...static.nn.control_flow import _copy_to_parent
    if is_var(v):
        return _copy_to_parent(v)
    if isinstance(v, TensorList):
        return TensorList(_copy_to_parent(v.acc) if v.acc is not None else None, v.home, v.n)
    if isinstance(v, VariadicReturn):
        return VariadicReturn([_copy_out(x) for x in v.items])
    if isinstance(v, (list, tuple)) and any(is_var(x) or isinstance(x, (list, tuple, dict)) for x in v):
        vals = [_copy_out(x) for x in v]
        return type(v)(vals) if not hasattr(v, "_fields") else type(v)(*vals)
    if isinstance(v, dict) and any(is_var(x) for x in v.values()):
        return type(v)((k, _copy_out(x)) for k, x in v.items())
    return v


def _copy_mutable(v):
    """New lists/dicts (and tuples holding them) around the same items: each branch of a tensor
    `if` starts from the values before it, whatever the other branch did to them (Paddle's
    copy_mutable_vars)."""
    if isinstance(v, list):
        return [_copy_mutable(x) for x in v]
    if isinstance(v, tuple) and not hasattr(v, "_fields"):
        return tuple(_copy_mutable(x) for x in v)
    if isinstance(v, dict):
        return type(v)((k, _copy_mutable(x)) for k, x in v.items())
    return v


def _pushed_list(v):
    """A Python list the branches append to, as Paddle's tensor array (a TensorList: the items
    stacked in one Variable, so branches may append different numbers of items); None when it
    cannot be one (items that are not Tensors or differ in shape/dtype: it stays a Python list)."""
    if not isinstance(v, list) or not all(isinstance(x, Tensor) for x in v):
        return None
    if v and any(list(x.shape) != list(v[0].shape) or x.dtype != v[0].dtype for x in v):
        return None
    return TensorList.from_list(v)


def _static_ifelse(pred, true_fn, false_fn, get_args, set_args, names, push_pop_names=()):
    paddle = _paddle()
    pred = _bool_var(pred)
    init = list(get_args())
    as_list = set()
    for i, n in enumerate(names):
        if n in push_pop_names:
            tl = _pushed_list(init[i])
            if tl is not None:
                init[i] = tl
                as_list.add(i)
    init = tuple(init)
    t_out = _run_branch(pred, true_fn, _copy_mutable(init), get_args, set_args)
    f_out = _run_branch(paddle.logical_not(pred), false_fn, _copy_mutable(init), get_args, set_args)
    mask = paddle.cast(pred, "int32")
    merged = [merge_value(n, t, f, mask) for n, t, f in zip(names, t_out, f_out)]
    for i in as_list:
        v = merged[i]
        # both branches left the same number of items: a Python list again, as in dygraph
        if isinstance(v, TensorList) and v.n is not None:
            merged[i] = [_index_first(v.acc, k) for k in range(v.n)] if v.n else []
    set_args(tuple(merged))


def convert_ifelse_expr(pred, true_fn, false_fn):
    """`a if pred else b`."""
    if not is_var(pred):
        return true_fn() if to_bool(pred) else false_fn()
    box = [None]

    def get():
        return (box[0],)

    def put(v):
        box[0] = v[0]

    def tf():
        box[0] = true_fn()

    def ff():
        box[0] = false_fn()
    _static_ifelse(pred, tf, ff, get, put, ("ifexp",))
    return box[0]


# ---------------------------------------------------------------------------------- logic
def convert_logical_and(x_fn, y_fn):
    x = x_fn()
    if is_var(x):
        return _logical("and", x, y_fn())
    if not to_bool(x):
        return x
    return y_fn()


def convert_logical_or(x_fn, y_fn):
    x = x_fn()
    if is_var(x):
        return _logical("or", x, y_fn())
    if to_bool(x):
        return x
    return y_fn()


def _logical(op, x, y):
    paddle = _paddle()
    xb = _bool_var(x)
    if not is_var(y):
        yv = to_bool(y)
        if op == "and":
            return xb if yv else paddle.full([1], False, "bool")
        return paddle.full([1], True, "bool") if yv else xb
    yb = _bool_var(y)
    return paddle.logical_and(xb, yb) if op == "and" else paddle.logical_or(xb, yb)


def convert_logical_not(x):
    if is_var(x):
        return _paddle().logical_not(_bool_var(x))
    return not to_bool(x)


def not_any(*flags):
    """not (f1 or f2 ...) for loop flags (Python bools or bool Variables)."""
    vs = [f for f in flags if is_var(f)]
    if any(not is_var(f) and to_bool(f) for f in flags):
        return False
    if not vs:
        return True
    paddle = _paddle()
    acc = vs[0]
    for v in vs[1:]:
        acc = paddle.logical_or(acc, v)
    return paddle.logical_not(acc)


def loop_cond(test_fn, *flags):
    """A loop's condition: test_fn() and not any flag (break, return)."""
    ok = not_any(*flags) if flags else True
    if ok is False:
        return False
    t = test_fn()
    if ok is True:
        return t
    return _logical("and", ok, t) if is_var(ok) else t


def convert_compare_chain(*parts):
    """a < b < c: parts are (value_fn, op, value_fn, op, value_fn ...)."""
    import operator
    ops = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq,
           "!=": operator.ne}
    left = parts[0]()
    result = None
    for k in range(1, len(parts), 2):
        right = parts[k + 1]()
        r = ops[parts[k]](left, right)
        if result is None:
            result = r
        else:
            prev = result
            result = convert_logical_and(lambda: prev, lambda: r)
        if not is_var(result) and not to_bool(result):
            return result
        left = right
    return result
