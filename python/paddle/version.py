"""paddle.version: what this build is (Paddle's names). The version follows paddle.__version__
(the API contract, Paddle 2.3); a CPU build: no CUDA, cuDNN, XPU or CINN (each answers 'False',
as Paddle's CPU wheels do); BLAS is OpenBLAS, not MKL."""
full_version = "2.3.0"
major = "2"
minor = "3"
patch = "0"
rc = "0"
istaged = True
commit = "paddle-c"
with_mkl = "OFF"
cuda_version = "False"
cudnn_version = "False"
xpu_version = "False"
xpu_xccl_version = "False"
cinn_version = "False"

__all__ = ["cuda", "cudnn", "show", "xpu", "xpu_xccl", "cinn", "mkl"]


def show():
    """Prints the version and what the build was compiled with."""
    for k, v in (("full_version", full_version), ("major", major), ("minor", minor), ("patch", patch), ("rc", rc),
                 ("cuda", cuda_version), ("cudnn", cudnn_version), ("xpu", xpu_version),
                 ("xpu_xccl", xpu_xccl_version), ("cinn", cinn_version)):
        print(f"{k}: {v}")


def cuda():
    return cuda_version


def cudnn():
    return cudnn_version


def xpu():
    return xpu_version


def xpu_xccl():
    return xpu_xccl_version


def cinn():
    return cinn_version


def mkl():
    return with_mkl
