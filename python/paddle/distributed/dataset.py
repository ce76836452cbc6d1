"""InMemoryDataset / QueueDataset feed the parameter-server trainers (Executor.train_from_dataset),
which Paddle-C does not implement: they raise NotImplementedError with that reason."""


class _PSDataset:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"paddle.distributed.{type(self).__name__}: the parameter-server dataset "
                                  "pipeline is not implemented in Paddle-C (use paddle.io.DataLoader with "
                                  "DistributedBatchSampler for collective training)")


class InMemoryDataset(_PSDataset):
    pass


class QueueDataset(_PSDataset):
    pass
