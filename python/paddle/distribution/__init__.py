"""paddle.distribution (Paddle 2.3): probability distributions, transforms and KL divergence.

Everything is written over paddle's tensor ops, so gradients flow through log_prob / rsample and
the same code appends ops to a program in static mode. Sampling draws from the global generator
(paddle.seed); Dirichlet and Beta sample through the standard_gamma op (ops/distribution.yaml).
"""
from .distribution import Distribution  # noqa: F401
from .exponential_family import ExponentialFamily  # noqa: F401
from .normal import Normal  # noqa: F401
from .uniform import Uniform  # noqa: F401
from .categorical import Categorical  # noqa: F401
from .dirichlet import Dirichlet  # noqa: F401
from .beta import Beta  # noqa: F401
from .multinomial import Multinomial  # noqa: F401
from .independent import Independent  # noqa: F401
from .transformed_distribution import TransformedDistribution  # noqa: F401
from .transform import (  # noqa: F401
    Transform, AbsTransform, AffineTransform, ChainTransform, ExpTransform,
    IndependentTransform, PowerTransform, ReshapeTransform, SigmoidTransform,
    SoftmaxTransform, StackTransform, StickBreakingTransform, TanhTransform)
from .bernoulli import Bernoulli  # noqa: F401
from .cauchy import Cauchy  # noqa: F401
from .geometric import Geometric  # noqa: F401
from .gumbel import Gumbel  # noqa: F401
from .laplace import Laplace  # noqa: F401
from .lognormal import LogNormal  # noqa: F401
from .kl import kl_divergence, register_kl  # noqa: F401

__all__ = [
    'Beta', 'Categorical', 'Dirichlet', 'Distribution', 'ExponentialFamily', 'Multinomial',
    'Normal', 'Uniform', 'kl_divergence', 'register_kl', 'Independent',
    'TransformedDistribution', 'Transform', 'AbsTransform', 'AffineTransform', 'ChainTransform',
    'ExpTransform', 'IndependentTransform', 'PowerTransform', 'ReshapeTransform',
    'SigmoidTransform', 'SoftmaxTransform', 'StackTransform', 'StickBreakingTransform',
    'TanhTransform', 'Bernoulli', 'Cauchy', 'Geometric', 'Gumbel', 'Laplace', 'LogNormal',
]
