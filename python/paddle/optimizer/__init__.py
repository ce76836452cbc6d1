"""paddle.optimizer: SGD, Momentum, Adam, AdamW, Adamax, Adagrad, Adadelta, RMSProp, Lamb over
fused C update kernels (ops/optim.yaml), and the learning-rate schedulers (paddle.optimizer.lr)."""
from . import lr  # noqa: F401
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .lamb import Lamb
from .momentum import Momentum
from .optimizer import Optimizer
from .rmsprop import RMSProp
from .sgd import SGD

__all__ = ["Optimizer", "Adagrad", "Adam", "AdamW", "Adamax", "Adadelta", "RMSProp", "SGD",
           "Momentum", "Lamb"]
