"""Input/output shared by every layer: one atomic writer, one figure factory, one progress bar.

Every file krein writes (results tables, trace files, figures, ``krein compare``
outputs) goes through :func:`atomic_write_bytes` (or :func:`atomic_write_text`,
or :func:`atomic_write` for a library writer, which writes to memory first):
the content is written to a fresh temporary file ``.NAME.<pid>.<random>.tmp``
in the destination directory by krein itself, flushed, ``fsync``-ed, closed,
checked for its size, moved onto the destination with ``os.replace``
(atomic on POSIX and Windows within one file system), and the directory is
``fsync``-ed so the rename survives a power cut.  A reader sees the old or the
new file, never a half-written one, whatever moment the writer is killed at;
a kill can only leave a stray temporary file, which :func:`remove_stale_temporaries`
deletes.  A failed write, flush, ``fsync`` or close (a full disk reports ``ENOSPC``
as late as the close) removes the temporary file and raises :class:`WriteError`
naming the destination: never an empty or partial file in place.

Figures are made with :func:`new_figure` (a Matplotlib ``Figure`` on the Agg
canvas: no pyplot state, no change of the global backend) and written with
:func:`save_png` (palette-reduced, atomic).
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import secrets
import sys
import tempfile

__all__ = ["file_stamp", "captured_stdout", "atomic_write", "atomic_write_bytes", "atomic_write_text",
           "csv_bytes", "WriteError", "remove_stale_temporaries", "new_figure", "save_png",
           "progress_bar", "TMP_SUFFIX"]

#: Suffix of the temporary files of :func:`atomic_write`.
TMP_SUFFIX = ".tmp"



def file_stamp(*paths):
    """What identifies the contents of files for an in-process cache: path, size, mtime.

    A cache keyed on a file's path alone returns the old data after the file is
    rewritten (a notebook that saves ``K.npy`` again and reruns ``krein
    compare``); the size and the modification time in nanoseconds change then.

    Parameters
    ----------
    *paths : str, path-like or None
        The files (None entries are skipped).

    Returns
    -------
    tuple
        ``(path, size, mtime_ns)`` per existing file, ``(path, None, None)`` for a
        missing one (its loader raises the error).
    """
    out = []
    for p in paths:
        if p is None:
            continue
        try:
            st = os.stat(p)
            out.append((str(p), st.st_size, st.st_mtime_ns))
        except OSError:
            out.append((str(p), None, None))
    return tuple(out)

def _fsync_directory(directory):
    if os.name != "posix":
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class WriteError(OSError):
    """An output file could not be written (full disk, no permission...).

    An ``OSError`` whose text names the destination and the operating
    system's error, e.g. ``cannot write out/run.json: [Errno 28] No space
    left on device``; ``errno`` and ``strerror`` are the original error's,
    ``filename`` the destination (not the temporary file).
    """

    def __init__(self, path, cause):
        code = getattr(cause, "errno", None)
        reason = getattr(cause, "strerror", None) or str(cause)
        detail = f"[Errno {code}] {reason}" if code is not None else reason
        super().__init__(code, reason, path)
        self.path = path
        self.detail = detail

    def __str__(self):
        return f"cannot write {self.path}: {self.detail}"


def _tmp_path(path):
    directory = os.path.dirname(os.path.abspath(path))
    return directory, os.path.join(directory, f".{os.path.basename(path)}.{os.getpid()}."
                                              f"{secrets.token_hex(6)}{TMP_SUFFIX}")


def atomic_write_bytes(path, data):
    """Write ``data`` to ``path`` atomically and durably; a failure is an error, never a file.

    The bytes go to a fresh temporary file ``.NAME.<pid>.<random>.tmp`` in
    the destination directory, which this function opens, writes in full,
    flushes, ``fsync``-s and closes itself; only when every step succeeded
    and the file holds exactly ``len(data)`` bytes is it moved onto ``path``
    with ``os.replace`` (and the directory ``fsync``-ed).  An error at any
    step (``ENOSPC`` at write, flush or close included) removes the temporary
    file, leaves ``path`` as it was and raises :class:`WriteError`.

    Parameters
    ----------
    path : str or path-like
        Destination; its directory must exist.
    data : bytes
        The complete content.

    Returns
    -------
    str
        ``path`` as a string.

    Raises
    ------
    WriteError
        (an ``OSError``) naming ``path`` and the operating system's error.
    """
    path = os.fspath(path)
    data = bytes(data)
    directory, tmp = _tmp_path(path)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        f = os.fdopen(fd, "wb")
        try:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        finally:
            f.close()  # raises what a failed close (NFS, a full disk) reports
        size = os.stat(tmp).st_size
        if size != len(data):
            raise OSError(errno.EIO, f"{size} of {len(data)} bytes written")
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        if isinstance(exc, OSError) and not isinstance(exc, WriteError):
            raise WriteError(path, exc) from exc
        raise
    _fsync_directory(directory)
    return path


def atomic_write_text(path, text, encoding="utf-8"):
    """Write ``text`` to ``path`` atomically and durably (:func:`atomic_write_bytes`).

    Parameters
    ----------
    path : str or path-like
        Destination; its directory must exist.
    text : str
        The complete content.
    encoding : str
        Text encoding.

    Returns
    -------
    str
        ``path`` as a string.

    Raises
    ------
    WriteError
        (an ``OSError``) naming ``path`` and the operating system's error.
    """
    return atomic_write_bytes(path, text.encode(encoding))


def atomic_write(path, write):
    """Create ``path`` atomically through a writer that takes a file object.

    ``write(f)`` writes the complete content to ``f``, an in-memory binary
    buffer (``io.BytesIO``; libraries that take a path or a file, e.g.
    ``DataFrame.to_csv``, ``Figure.savefig`` or ``Image.save``, accept it);
    the bytes are then written by :func:`atomic_write_bytes`, which opens,
    writes, ``fsync``-s and closes the file itself, so no writer's unclosed
    file can ever be moved into place.

    Parameters
    ----------
    path : str or path-like
        Destination; its directory must exist.
    write : callable
        ``write(f: io.BytesIO) -> None`` writes the complete content.

    Returns
    -------
    str
        ``path`` as a string.

    Raises
    ------
    WriteError
        (an ``OSError``) naming ``path`` and the operating system's error;
        whatever ``write`` raises.  ``path`` is left as it was.
    """
    buf = io.BytesIO()
    write(buf)
    return atomic_write_bytes(path, buf.getvalue())


def csv_bytes(frame, **kwargs):
    """The CSV text of a DataFrame as UTF-8 bytes (for :func:`atomic_write_bytes`).

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    **kwargs
        Passed to ``DataFrame.to_csv`` (e.g. ``index=False``).

    Returns
    -------
    bytes
        The encoded CSV text.
    """
    return frame.to_csv(**kwargs).encode("utf-8")


def remove_stale_temporaries(directory, basename):
    """Delete the temporary files a killed :func:`atomic_write` of ``basename`` left.

    Parameters
    ----------
    directory : str or path-like
        Directory of the destination file.
    basename : str
        File name of the destination (e.g. ``"results.csv"``).
    """
    prefix = f".{basename}."
    with contextlib.suppress(FileNotFoundError):
        for name in os.listdir(directory):
            if name.startswith(prefix) and name.endswith(TMP_SUFFIX):
                with contextlib.suppress(OSError):
                    os.remove(os.path.join(directory, name))


def new_figure(figsize):
    """A Matplotlib figure on the Agg canvas (no pyplot, global backend untouched).

    Parameters
    ----------
    figsize : tuple of (float, float)
        Width and height in inches.

    Returns
    -------
    matplotlib.figure.Figure
        An empty figure of size ``figsize`` with an Agg canvas attached, to be
        written with :func:`save_png` or ``fig.savefig``.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize)
    FigureCanvasAgg(fig)
    return fig


def save_png(fig, path, *, dpi=110, colors=128, bbox_inches="tight"):
    """Write a Matplotlib figure as a small PNG, atomically.

    The figure is rendered at ``dpi``, reduced to an adaptive palette of
    ``colors`` colours (Pillow's median cut; line plots and colour maps look
    the same and the file is 3-4 times smaller, which matters for figures
    committed to a repository), and moved onto ``path`` only when complete.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure to write.
    path : str or path-like
        Destination; its directory is created.
    dpi : float > 0
        Resolution in dots per inch.
    colors : int in [2, 256] or None
        Palette size; None keeps full RGBA.
    bbox_inches : str or None
        Passed to ``savefig``.

    Returns
    -------
    str
        ``path``.

    Raises
    ------
    ValueError
        On ``colors`` outside [2, 256].
    """
    from PIL import Image

    if colors is not None and not (isinstance(colors, int) and 2 <= colors <= 256):
        raise ValueError(f"colors must be an integer in [2, 256] or None; got {colors!r}")
    path = os.fspath(path)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches=bbox_inches)
    buf.seek(0)
    img = Image.open(buf)
    if colors is not None:
        img = img.convert("RGB").quantize(colors=colors, method=Image.Quantize.MEDIANCUT)
    return atomic_write(path, lambda f: img.save(f, format="PNG", optimize=True))


def progress_bar(total, desc, enabled=True, unit="it", leave=False):
    """A tqdm progress bar on stderr, or None when disabled.

    Parameters
    ----------
    total : int
        Number of steps.
    desc : str
        Label shown before the bar.
    enabled : bool
        False returns None (callers test for it).
    unit : str
        Name of one step (``"fit"``, ``"cell"``).
    leave : bool
        Keep the finished bar on screen.

    Returns
    -------
    tqdm.tqdm or None
        A ``tqdm.auto`` bar writing to stderr, or None when ``enabled`` is false.
    """
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, dynamic_ncols=True,
                leave=leave)


class _Captured:
    """What :func:`captured_stdout` caught (its ``text``), and a way to drop it."""

    def __init__(self, path):
        self.path = path
        self._text = None

    def text(self):
        """The captured output (``""`` when nothing was written).

        Returns
        -------
        str
            Everything written to file descriptor 1 inside the context.
        """
        if self._text is None:
            try:
                with open(self.path, errors="replace") as f:
                    self._text = f.read()
            except OSError:
                self._text = ""
        return self._text

    def discard(self):
        """Drop the captured output."""
        self._text = ""


@contextlib.contextmanager
def captured_stdout():
    """Send everything written to standard output (file descriptor 1) to a temporary file.

    Solvers written in C or C++ (HiGHS prints its licence banner, some CVXPY
    back ends their logs) write to file descriptor 1 directly, past
    ``sys.stdout``; the command line runs its fits inside this context so that
    their output does not reach the terminal (``krein compare`` saves it as
    ``solver_output.txt``).  Worker processes started inside the context inherit
    the redirection.  Progress bars write to standard error and still show.

    Yields
    ------
    _Captured
        ``text()`` returns what was written (after the context ends).
    """
    try:
        sys.stdout.flush()
    except (AttributeError, OSError, ValueError):
        pass
    fd = 1  # where C and C++ code writes, whatever sys.stdout is
    tmp = tempfile.NamedTemporaryFile(prefix="krein-stdout-", suffix=".txt", delete=False)
    captured = _Captured(tmp.name)
    try:
        saved = os.dup(fd)
    except OSError:  # no real file descriptor (e.g. a notebook): capture nothing
        tmp.close()
        os.unlink(tmp.name)
        yield captured
        return
    try:
        os.dup2(tmp.fileno(), fd)
        yield captured
    finally:
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        os.dup2(saved, fd)
        os.close(saved)
        tmp.close()
        captured.text()
        os.unlink(tmp.name)
