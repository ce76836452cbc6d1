"""`python -m paddle.distributed.launch`: starts the ranks of a job with OpenMPI's mpirun (see main.py)."""
