"""Functions for tests/python/test_jit.py's table of converted control flow: each runs as plain
dygraph Python and through paddle.jit.to_static (AST conversion), and the results must agree.
They live in a module of their own because to_static reads their source."""
import paddle


def while_tensor(x):
    i = paddle.zeros([1], "int64")
    s = x
    while i < 4:
        s = s * 1.5 + 1
        i = i + 1
    return s


def while_python_counter(x):
    i = 0
    while i < 3:          # a Python condition: unrolled while the program is built
        x = x + i
        i += 1
    return x


def while_tensor_python_counter(x):
    i = 0
    n = paddle.full([1], 3, "int64")
    while i < n:          # int i becomes a loop variable of the while op
        x = x * 2
        i += 1
    return x, i


def if_else(x):
    if x.mean() > 0:
        y = x * 2
    else:
        y = x - 1
    return y


def if_elif_else(x):
    if x.mean() > 2:
        y = x + 100
    elif x.mean() > 0:
        y = x + 10
    else:
        y = x - 10
    return y


def if_one_branch(x):
    y = x
    if x.sum() > 0:
        y = y * 3
    return y


def nested_if_in_while(x):
    i = paddle.zeros([1], "int64")
    while i < 5:
        if (i % 2) == 0:
            x = x + 1
        else:
            x = x * 2
        i += 1
    return x


def for_range_tensor(x):
    n = paddle.shape(x)[0]
    s = paddle.zeros([3])
    for i in range(n):
        s = s + 1.0
    return s


def for_range_start_step(x):
    n = paddle.full([1], 10, "int64")
    s = paddle.zeros([1])
    for i in range(2, n, 3):
        s = s + i * 1.0
    return s


def for_range_python(x):
    for k in range(3):
        x = x + k
    return x


def for_over_tensor(x):
    s = paddle.zeros([x.shape[1]])
    for row in x:
        s = s + row
    return s


def for_enumerate_tensor(x):
    s = paddle.zeros([x.shape[1]])
    for i, row in enumerate(x):
        s = s + row * (i * 1.0)
    return s


def for_zip_tensors(x):
    s = paddle.zeros([x.shape[1]])
    for a, b in zip(x, x * 2):
        s = s + a * b
    return s


def for_list_of_tensors(x):
    out = []
    for t in [x, x * 2, x * 3]:
        out.append(t + 1)
    return paddle.concat(out)


def for_enumerate_list(x):
    s = x
    for i, t in enumerate([x, x + 1]):
        s = s + t * i
    return s


def break_in_while(x):
    s = x
    i = paddle.zeros([1], "int64")
    while i < 10:
        s = s + 1
        if s.sum() > 10:
            break
        i += 1
    return s, i


def continue_in_while(x):
    s = paddle.zeros([1])
    i = paddle.zeros([1])
    while i < 6:
        i = i + 1
        if i % 2 == 0:
            continue
        s = s + i
    return s


def break_continue_for_tensor_range(x):
    a = paddle.zeros([1], "int64")
    for i in range(paddle.full([1], 8, "int64")):
        if a <= 2:
            x = x + 1
            a += 1
            continue
        else:
            x = x + 100
            break
        x = x - 1000
    return x


def break_python_for_tensor_cond(x):
    for k in range(6):     # a Python range whose loop ends on a Tensor condition
        x = x + 1
        if x.sum() > 12:
            break
    return x


def for_else(x):
    for k in range(3):
        x = x + 1
    else:
        x = x * 10
    return x


def return_in_if(x):
    if x.mean() > 0:
        return x * 2
    return x - 1


def return_in_while(x):
    i = paddle.zeros([1], "int64")
    while i < 10:
        x = x + 1
        if x.mean() > 3:
            return x * 10
        i += 1
    return x


def return_different_structure(x):
    if x.mean() > 0:
        return x, x * 2
    return x


def return_none_on_a_path(x):
    if x.mean() > 0:
        return x + 1


def logical_ops(x):
    a = x.mean()
    if a > 0 and a < 2 or not (a > -1):
        return x + 1
    return x - 1


def chained_compare(x):
    if -1 < x.mean() < 2:
        return x + 1
    return x - 1


def ifexp(x):
    return x * 2 if x.mean() > 0 else x * 3


def shape_unknown(x):
    b = x.shape[0]
    return paddle.reshape(x, [b, -1]).sum(1)


def shape_op(x):
    s = paddle.shape(x)
    return paddle.reshape(x, [s[0] * s[1]])


def len_tensor(x):
    n = len(x)
    s = paddle.zeros([1])
    for i in range(n):
        s = s + 1
    return s


def list_append_in_tensor_loop(x):
    res = []
    for i in range(paddle.shape(x)[0]):
        res.append(paddle.ones([2]) * (i * 1.0))
    return paddle.stack(res)


def list_append_concat(x):
    res = [x]
    i = paddle.zeros([1], "int64")
    while i < 2:
        res.append(x * 2)
        i += 1
    return paddle.concat(res)


def list_append_in_if(x):
    out = []
    if x.mean() > 0:
        out.append(x * 2)
    else:
        out.append(x - 1)
    return out[0]


def list_append_in_if_one_branch(x):
    out = [x]
    if x.mean() > 0:
        out.append(x * 2)
    return out[-1] + len(out)


def list_append_uneven_in_if(x):
    out = [x]
    if x.mean() > 0:
        out.append(x * 2)
        out.append(x * 3)
    else:
        out.append(x - 1)
    out.append(x + 5)
    return paddle.concat(out)


def list_append_in_nested_if(x):
    out = []
    if x.mean() > 0:
        if x.sum() > 100:
            out.append(x + 100)
        else:
            out.append(x * 2)
    else:
        out.append(x - 1)
    return out[0] * 2


def index_with_loop_tensor(x):
    s = paddle.zeros([x.shape[1]])
    i = paddle.zeros([1], "int64")
    while i < paddle.shape(x)[0]:
        s = s + x[i] * 2.0
        x[i] = s  # Variable setitem inside the loop
        i = i + 1
    return s, x


def kwargs_fn(x, **kw):
    return x * kw["scale"] + kw.get("shift", 0)


def helper(x):
    if x.sum() > 0:
        return x - 1
    return x + 1


def calls_user_function(x):
    return helper(x) * 2


def print_and_assert(x):
    print(x)
    assert x.mean() > -100, "mean too small"
    return x + 1


def python_value_control_flow(x, flag=True, n=3):
    if flag:
        x = x * 2
    for _ in range(n):
        x = x + 1
    return x


class Block(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 4)

    def forward(self, x):
        h = self.fc(x)
        if h.mean() > 0:
            h = paddle.nn.functional.relu(h)
        else:
            h = -h
        return h


class CFNet(paddle.nn.Layer):
    """A network whose forward (and whose sublayer) branch and loop on Tensors."""

    def __init__(self):
        super().__init__()
        self.block = Block()
        self.fc = paddle.nn.Linear(4, 2)

    def forward(self, x):
        h = self.block(x)
        i = paddle.zeros([1], "int64")
        while i < 2:
            h = paddle.tanh(h) + 0.1
            i += 1
        if h.sum() > 1:
            h = h * 0.5
        return self.fc(h)


def raises_at_known_line(x):
    y = x + 1
    z = paddle.reshape(y, [7, 7])   # ERROR LINE: 4 elements cannot become [7, 7]
    return z
