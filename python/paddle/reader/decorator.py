"""Paddle's legacy reader decorators. A reader is a callable returning an iterable of samples;
each decorator returns a new reader."""
import itertools
import json
import multiprocessing
import random
import sys
import threading
from queue import Queue

QUEUE_GET_TIMEOUT = 60

__all__ = []


def cache(reader):
    """Read all of reader's samples now; the returned reader replays them."""
    all_data = tuple(reader())

    def __impl__():
        yield from all_data
    return __impl__


def map_readers(func, *readers):
    """A reader yielding func(s1, s2, ...) over the readers' samples in step (shortest wins)."""
    def reader():
        yield from map(func, *[r() for r in readers])
    return reader


def shuffle(reader, buf_size):
    """Shuffle within consecutive buffers of buf_size samples."""
    def data_reader():
        buf = []
        for e in reader():
            buf.append(e)
            if len(buf) >= buf_size:
                random.shuffle(buf)
                yield from buf
                buf = []
        if buf:
            random.shuffle(buf)
            yield from buf
    return data_reader


def chain(*readers):
    """The readers' samples one reader after another."""
    def reader():
        yield from itertools.chain(*[r() for r in readers])
    return reader


class ComposeNotAligned(ValueError):
    pass


def compose(*readers, **kwargs):
    """Samples of the readers in step, flattened into one tuple (tuples are concatenated, other
    samples become 1-tuples). check_alignment=True (default) raises ComposeNotAligned when the
    readers have different lengths; False stops at the shortest."""
    check_alignment = kwargs.pop('check_alignment', True)

    def make_tuple(x):
        return x if isinstance(x, tuple) else (x,)

    def reader():
        rs = [r() for r in readers]
        if not check_alignment:
            for outputs in zip(*rs):
                yield sum(map(make_tuple, outputs), ())
        else:
            for outputs in itertools.zip_longest(*rs):
                if any(o is None for o in outputs):
                    raise ComposeNotAligned("outputs of readers are not aligned.")
                yield sum(map(make_tuple, outputs), ())
    return reader


class _End:
    pass


def buffered(reader, size):
    """Read ahead into a buffer of up to size samples on a background thread."""
    end = _End()

    def worker(r, q):
        for d in r:
            q.put(d)
        q.put(end)

    def data_reader():
        q = Queue(maxsize=size)
        t = threading.Thread(target=worker, args=(reader(), q), daemon=True)
        t.start()
        e = q.get()
        while e is not end:
            yield e
            e = q.get()
    return data_reader


def firstn(reader, n):
    """The first n samples of reader."""
    def firstn_reader():
        for i, item in enumerate(reader()):
            if i == n:
                break
            yield item
    return firstn_reader


class XmapEndSignal:
    pass


def xmap_readers(mapper, reader, process_num, buffer_size, order=False):
    """mapper applied to reader's samples by process_num threads, through queues of buffer_size;
    order=True keeps the input order."""
    end = XmapEndSignal()

    def xreader():
        in_q = Queue(buffer_size)
        out_q = Queue(buffer_size)
        cond = threading.Condition()
        next_out = [0]

        def read_worker():
            for i, s in enumerate(reader()):
                in_q.put((i, s))
            in_q.put(end)

        def handle_worker():
            item = in_q.get()
            while not isinstance(item, XmapEndSignal):
                i, s = item
                r = mapper(s)
                if order:
                    with cond:
                        cond.wait_for(lambda: next_out[0] == i)
                        out_q.put(r)
                        next_out[0] += 1
                        cond.notify_all()
                else:
                    out_q.put(r)
                item = in_q.get()
            in_q.put(end)
            out_q.put(end)

        threading.Thread(target=read_worker, daemon=True).start()
        for _ in range(process_num):
            threading.Thread(target=handle_worker, daemon=True).start()
        finished = 0
        while finished < process_num:
            s = out_q.get()
            if isinstance(s, XmapEndSignal):
                finished += 1
            else:
                yield s
    return xreader


def multiprocess_reader(readers, use_pipe=True, queue_size=1000):
    """The samples of several readers, each run in its own (forked) process; samples must be
    JSON-serialisable when use_pipe=True (they travel as JSON, so tuples arrive as lists) and
    picklable otherwise; the order across readers is not defined."""
    if sys.platform == 'win32':
        raise NotImplementedError("The multiprocess_reader method is not supported on windows.")
    assert isinstance(readers, (list, tuple)) and len(readers) > 0, "`readers` must be list or tuple."
    ctx = multiprocessing.get_context('fork')

    def _read_into_queue(reader, queue):
        try:
            for sample in reader():
                if sample is None:
                    raise ValueError("sample has None")
                queue.put(sample)
            queue.put(None)
        except Exception:
            queue.put("")
            raise

    def queue_reader():
        queue = ctx.Queue(queue_size)
        procs = [ctx.Process(target=_read_into_queue, args=(r, queue), daemon=True) for r in readers]
        for p in procs:
            p.start()
        finish = 0
        while finish < len(readers):
            sample = queue.get(timeout=QUEUE_GET_TIMEOUT)
            if sample is None:
                finish += 1
            elif isinstance(sample, str) and sample == "":
                raise ValueError("multiprocess_reader failed to put data into the multiprocessing.Queue.")
            else:
                yield sample
        for p in procs:
            p.join()

    def _read_into_pipe(reader, conn):
        try:
            for sample in reader():
                if sample is None:
                    raise ValueError("sample has None!")
                conn.send(json.dumps(sample))
            conn.send(json.dumps(None))
        except Exception:
            conn.send(json.dumps(""))
            raise
        finally:
            conn.close()

    def pipe_reader():
        conns, procs = [], []
        for r in readers:
            parent, child = ctx.Pipe()
            conns.append(parent)
            p = ctx.Process(target=_read_into_pipe, args=(r, child), daemon=True)
            p.start()
            child.close()
            procs.append(p)
        while conns:
            for conn in list(conns):
                sample = json.loads(conn.recv())
                if sample is None:
                    conn.close()
                    conns.remove(conn)
                elif sample == "":
                    conn.close()
                    conns.remove(conn)
                    raise ValueError("multiprocess_reader failed to send data into the multiprocessing.Pipe.")
                else:
                    yield sample
        for p in procs:
            p.join()

    return pipe_reader if use_pipe else queue_reader
