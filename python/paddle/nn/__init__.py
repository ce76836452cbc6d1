"""paddle.nn: layers come with the nn issue (issue 5); for now only the functional forms of the
foundation's activation ops (softmax, log_softmax, sigmoid) are here."""
from . import functional  # noqa: F401
