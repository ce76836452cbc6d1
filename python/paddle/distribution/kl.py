"""kl_divergence(p, q) and the register_kl table."""
import functools
import warnings

import paddle

from .bernoulli import Bernoulli
from .beta import Beta
from .cauchy import Cauchy
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exponential_family import ExponentialFamily
from .geometric import Geometric
from .laplace import Laplace
from .lognormal import LogNormal
from .normal import Normal
from .uniform import Uniform

__all__ = ['register_kl', 'kl_divergence']

_REGISTER_TABLE = {}


def kl_divergence(p, q):
    r"""KL(p || q) = E_p[log p(x) - log q(x)], by the function registered for the most specific
    pair of classes (register_kl).

    Args:
        p, q (Distribution): the two distributions.
    """
    return _dispatch(type(p), type(q))(p, q)


def register_kl(cls_p, cls_q):
    """Decorator registering ``f(p, q)`` as the KL divergence of (cls_p, cls_q) instances."""
    if (not isinstance(cls_p, type) or not isinstance(cls_q, type)
            or not issubclass(cls_p, Distribution) or not issubclass(cls_q, Distribution)):
        raise TypeError("cls_p and cls_q must be subclass of Distribution")

    def decorator(f):
        _REGISTER_TABLE[cls_p, cls_q] = f
        return f
    return decorator


@functools.total_ordering
class _Compare:
    def __init__(self, *classes):
        self.classes = classes

    def __eq__(self, other):
        return self.classes == other.classes

    def __le__(self, other):
        for x, y in zip(self.classes, other.classes):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _dispatch(cls_p, cls_q):
    matches = [(a, b) for a, b in _REGISTER_TABLE if issubclass(cls_p, a) and issubclass(cls_q, b)]
    if not matches:
        raise NotImplementedError(
            f"kl_divergence({cls_p.__name__}, {cls_q.__name__}) is not registered "
            "(use paddle.distribution.register_kl)")
    left = min(_Compare(*m) for m in matches).classes
    right = min(_Compare(*reversed(m)) for m in matches).classes
    right = tuple(reversed(right))
    if _REGISTER_TABLE[left] is not _REGISTER_TABLE[right]:
        warnings.warn(f"Ambiguous kl_divergence({cls_p.__name__}, {cls_q.__name__}). Please "
                      f"register_kl({left[0].__name__}, {right[1].__name__})", RuntimeWarning)
    return _REGISTER_TABLE[left]


def _sum_rightmost(value, n):
    return value.sum(list(range(-n, 0))) if n > 0 else value


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    pa, pb, qa, qb = p.alpha, p.beta, q.alpha, q.beta
    return (qa.lgamma() + qb.lgamma() + (pa + pb).lgamma()
            - (pa.lgamma() + pb.lgamma() + (qa + qb).lgamma())
            + (pa - qa) * pa.digamma() + (pb - qb) * pb.digamma()
            + (qa + qb - (pa + pb)) * (pa + pb).digamma())


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    a, b = p.concentration, q.concentration
    a0 = a.sum(-1)
    return (a0.lgamma() - b.sum(-1).lgamma() - (a.lgamma() - b.lgamma()).sum(-1)
            + ((a - b) * (a.digamma() - a0.digamma().unsqueeze(-1))).sum(-1))


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    return p.kl_divergence(q)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    return p.kl_divergence(q)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    return p.kl_divergence(q)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    return p.kl_divergence(q)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    return p.kl_divergence(q)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    return p.kl_divergence(q)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return p.kl_divergence(q)


@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p, q):
    return p._base.kl_divergence(q._base)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """Bregman divergence of the log normalizer (same family only)."""
    if type(p) is not type(q):
        raise NotImplementedError(
            f"kl_divergence({type(p).__name__}, {type(q).__name__}) is not registered")
    p_params = []
    for param in p._natural_parameters:
        param = param.detach()
        param.stop_gradient = False
        p_params.append(param)
    q_params = q._natural_parameters
    p_log_norm = p._log_normalizer(*p_params)
    try:
        if paddle.in_dynamic_mode():
            p_grads = paddle.grad(p_log_norm.sum(), p_params, create_graph=True)
        else:
            p_grads = paddle.static.gradients(p_log_norm.sum(), p_params)
    except RuntimeError as e:
        raise TypeError(f"Cann't compute kl_divergence({type(p).__name__}, {type(q).__name__}) "
                        "use bregman divergence. Please register_kl.") from e
    kl = q._log_normalizer(*q_params) - p_log_norm
    for pp, qp, g in zip(p_params, q_params, p_grads):
        kl = kl - _sum_rightmost((qp - pp) * g, len(q.event_shape))
    return kl
