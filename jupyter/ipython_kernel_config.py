# IPython kernel settings shipped with the book: `make install` copies this file to
# .venv/etc/ipython/ (binder/postBuild to the image), where every kernel of the venv reads it,
# whoever starts it (JupyterLab, papermill, nbclient, nbval).
#
# ipykernel warns "Kernel is running over TCP without encryption" whenever the client that
# started it did not provision CurveZMQ keys. The book's own clients do (`make lab`, `make run`,
# `make sweep`, `make execute`); a plain `papermill` or `pytest --nbval` cannot be told to. Those
# kernels listen on 127.0.0.1 only, with a signed connection file readable by this user alone,
# so the warning says nothing a reader can act on. This filter drops that one message; every
# other kernel warning still shows.
import logging


class _PlainTcpOnLoopback(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "running over TCP without encryption" not in record.getMessage()


logging.getLogger("IPKernelApp").addFilter(_PlainTcpOnLoopback())
