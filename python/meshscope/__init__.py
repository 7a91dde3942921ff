"""meshscope: how LLMs split across GPUs, from Python (docs/python.md).

Every function takes its inputs as ``meshscope-cli`` does -- a model preset name or file path, a cluster
generator string or file path, dicts of the ``--train``/``--serve``/``--layout``/``--efficiency``/``--comm``
keys -- and returns the document the CLI prints with ``--json`` for the same command, as plain dicts and
lists. An input the core refuses raises :class:`meshscope.Error` (a ``ValueError``) with the core's message.

    >>> import meshscope
    >>> meshscope.params("gpt2")["total"]
    124439808
"""

from ._meshscope import (
    Error,
    calibrate_nccl_tests,
    collective,
    compare_nccl_tests,
    compare_trace,
    estimate,
    flops,
    import_launcher,
    import_log,
    import_nccl_tests,
    import_trace,
    memory,
    params,
    presets,
    rank,
    scaling,
    serve,
    serve_rank,
    tradeoff,
)

Error.__module__ = "meshscope"  # shown as meshscope.Error in tracebacks, where users catch it


__all__ = [
    "Error",
    "calibrate_nccl_tests",
    "collective",
    "compare_nccl_tests",
    "compare_trace",
    "estimate",
    "flops",
    "import_launcher",
    "import_log",
    "import_nccl_tests",
    "import_trace",
    "memory",
    "params",
    "presets",
    "rank",
    "scaling",
    "serve",
    "serve_rank",
    "to_pandas",
    "tradeoff",
]

# The row lists of each document that to_pandas takes when given the whole document, in order of preference.
_ROW_KEYS = ("layouts", "ranks", "operations", "points", "rows", "collectives", "iterations", "curve")


def _rows_of(result):
    if isinstance(result, list):
        return result
    if isinstance(result, dict):
        for key in _ROW_KEYS:
            rows = result.get(key)
            if isinstance(rows, list) and all(isinstance(row, dict) for row in rows):
                return rows
        raise ValueError(
            "to_pandas: the result has none of the row lists %s; pass one of its lists, e.g. to_pandas(result['...'])"
            % ", ".join(_ROW_KEYS)
        )
    raise TypeError("to_pandas: expected a result dict or a list of row dicts, not %s" % type(result).__name__)


def to_pandas(result, flatten=True):
    """A pandas DataFrame of a result's rows, one row per dict.

    ``result`` is a list of dicts (``rank(...)["layouts"]``, ``memory(...)["ranks"]``,
    ``estimate(...)["operations"]``) or a whole document, whose first row list among ``layouts``, ``ranks``,
    ``operations``, ``points``, ``rows``, ``collectives``, ``iterations`` and ``curve`` is taken. With
    ``flatten`` nested dicts become dotted columns (``layout.tp``, ``categories.weights``), as
    ``pandas.json_normalize`` makes them.

    Raises ImportError when pandas is not installed.
    """
    try:
        import pandas
    except ImportError as error:
        raise ImportError(
            "meshscope.to_pandas needs pandas (Debian: apt install python3-pandas; or pip install pandas)"
        ) from error
    rows = _rows_of(result)
    if flatten:
        return pandas.json_normalize(rows)
    return pandas.DataFrame(rows)
