"""Checkpoints that appear all at once, whatever moment a save is killed.

- One file: written to `.NAME.fluidc-tmp.PID.RAND` beside it, fsynced, renamed over NAME, the
  directory fsynced.
- A directory (save_vars, save_persistables, save_inference_model with a dirname): the whole
  new directory is written as a sibling `.DIR.fluidc-tmp.PID.RAND`, every file and directory
  fsynced, then swapped with DIR in one renameat2(RENAME_EXCHANGE); the old one is deleted.
  Files of DIR that the save does not write are carried over (hard links). Where the exchange is
  unsupported, DIR is renamed to `.DIR.fluidc-old.PID.RAND` and the new one renamed in: a kill
  between the two leaves no DIR, and loads (and the next save) take the complete old one.
- Files that belong together under a path prefix (paddle.static.save's .pdparams/.pdopt/.pdmodel,
  static save_inference_model's .pdmodel/.pdiparams): each is written under a temp name and
  fsynced; then a journal `.PREFIX.fluidc-commit` (JSON: each file's temp name, size and
  sha256) is written atomically: the commit point; then the temp files are renamed over their
  targets and the journal is removed. A load that finds a journal finishes the renames if the
  writer is dead (as the next save does); while it cannot, it reads each file from its temp name
  while that still exists (the new set, committed but not yet renamed). Paddle never sees the
  journal or the temp names.
- Temp names carry the writer's pid: a save removes those of dead writers (a kill's leftovers),
  and no load reads them. The modes of new files and directories come from the umask (0666 and
  0777 less it); a replaced file or directory keeps its old mode.
"""
from __future__ import annotations

import ctypes
import errno
import hashlib
import json
import os
import re
import secrets
import shutil
import stat
import warnings

from ..frontend.errors import FluidcError, FormatError

_TEMP_RE = re.compile(r"^\.(?P<base>.+)\.fluidc-(?P<kind>tmp|old)\.(?P<pid>\d+)\.[0-9a-f]{8}$")
_JOURNAL_RE = re.compile(r"^\.(?P<base>.+)\.fluidc-commit$")
# The temp names of fluidc's earlier single-file writes (mkstemp: 8 of [a-z0-9_]).
_LEGACY_TMP_RE = re.compile(r"^\.(?P<base>.+)\.[a-z0-9_]{8}\.tmp$")
SET_EXTENSIONS = (".pdparams", ".pdopt", ".pdmodel", ".pdiparams")


class CheckpointError(FluidcError, OSError):
    """A checkpoint could not be written as a whole (the previous one is left as it was)."""


# -- names --------------------------------------------------------------------------------------

def is_own_file(name: str) -> bool:
    """Whether a directory entry is fluidc's bookkeeping (temp file or dir, journal), never data."""
    return bool(_TEMP_RE.match(name) or _JOURNAL_RE.match(name) or _LEGACY_TMP_RE.match(name))


def _temp_name(base: str, kind: str = "tmp") -> str:
    return f".{base}.fluidc-{kind}.{os.getpid()}.{secrets.token_hex(4)}"


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True
    return True


def _remove(path: str) -> None:
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.unlink(path)
    except OSError:
        pass


def clean_stale(folder: str, bases=None) -> list[str]:
    """Remove the temp files and directories of dead fluidc writers in `folder` (only those of
    the given base names, if any); returns what was removed."""
    removed = []
    try:
        entries = os.listdir(folder)
    except OSError:
        return removed
    for name in entries:
        m = _TEMP_RE.match(name)
        if m is not None:
            if (bases is None or m["base"] in bases) and not _pid_alive(int(m["pid"])):
                _remove(os.path.join(folder, name))
                removed.append(name)
            continue
        m = _LEGACY_TMP_RE.match(name)
        if m is not None and bases is not None and m["base"] in bases:
            _remove(os.path.join(folder, name))
            removed.append(name)
    return removed


# -- durable writes -----------------------------------------------------------------------------

def fsync_dir(path: str) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_new(path: str, data, mode_of: str | None = None) -> tuple[int, str]:
    """Create `path` (which must not exist) with `data`, fsynced; mode 0666 less the umask, or
    that of the file `mode_of` if it exists. Returns (size, sha256)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        if mode_of is not None:
            try:
                os.fchmod(fd, stat.S_IMODE(os.stat(mode_of).st_mode))
            except (OSError, AttributeError):
                pass
        view = memoryview(data if isinstance(data, (bytes, bytearray)) else bytes(data)).cast("B")
        digest = hashlib.sha256(view).hexdigest()
        done = 0
        while done < len(view):
            done += os.write(fd, view[done:done + (1 << 30)])
        os.fsync(fd)
    finally:
        os.close(fd)
    return len(view), digest


def atomic_write(path: str, data) -> None:
    """Write one file through a temp file beside it: fsync, rename over `path`, fsync the dir,
    so readers see the old file or the whole new one. A kill leaves at most a temp file that
    the next save there removes and that no load reads."""
    path = os.fspath(path)
    folder, base = os.path.split(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    settle(path)
    clean_stale(folder, {base})
    tmp = os.path.join(folder, _temp_name(base))
    try:
        _write_new(tmp, data.encode() if isinstance(data, str) else data, path)
        os.replace(tmp, path)
    except BaseException:
        _remove(tmp)
        raise
    fsync_dir(folder)


# -- sets of files under one prefix -------------------------------------------------------------

def _split_member(path: str) -> tuple[str, str, str] | None:
    """(folder, prefix base, file base) of a file of a prefix set, or None."""
    folder, base = os.path.split(os.path.abspath(path))
    for ext in SET_EXTENSIONS:
        if base.endswith(ext) and len(base) > len(ext):
            return folder, base[:-len(ext)], base
    return None


def _journal_path(folder: str, prefix_base: str) -> str:
    return os.path.join(folder, f".{prefix_base}.fluidc-commit")


def _read_journal(path: str) -> dict | None:
    try:
        with open(path, "rb") as f:
            journal = json.loads(f.read().decode("utf-8"))
        files = journal["files"]
        assert isinstance(files, dict)
        for entry in files.values():
            assert _TEMP_RE.match(entry["tmp"]) and isinstance(entry["sha256"], str)
        return journal
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, AssertionError):
        warnings.warn(f"{path}: not a fluidc commit journal; ignored", UserWarning, stacklevel=3)
        return None


def write_set(files: dict[str, bytes]) -> None:
    """Write files that belong together (same folder, names PREFIX + one of SET_EXTENSIONS) so
    that after a kill at any moment fluidc loads see all old or all new ones."""
    members = {p: _split_member(p) for p in files}
    if any(m is None for m in members.values()) or \
            len({(m[0], m[1]) for m in members.values()}) != 1:
        raise ValueError(f"write_set: {sorted(files)} are not files of one path prefix")
    folder, prefix_base, _ = next(iter(members.values()))
    os.makedirs(folder, exist_ok=True)
    journal = _journal_path(folder, prefix_base)
    _settle(folder, prefix_base)
    clean_stale(folder, {m[2] for m in members.values()} | {prefix_base})
    entries, temps = {}, []
    try:
        for path, data in files.items():
            base = members[path][2]
            tmp = _temp_name(base)
            temps.append(os.path.join(folder, tmp))
            size, digest = _write_new(temps[-1], data, path)
            entries[base] = {"tmp": tmp, "size": size, "sha256": digest}
        fsync_dir(folder)
        atomic_write(journal, json.dumps({"version": 1, "files": entries}, indent=1))  # commit
    except BaseException:
        for tmp in temps:
            _remove(tmp)
        raise
    _finish(folder, prefix_base, entries)


def _finish(folder: str, prefix_base: str, entries: dict) -> None:
    for base, entry in entries.items():
        tmp = os.path.join(folder, entry["tmp"])
        if os.path.exists(tmp):
            os.replace(tmp, os.path.join(folder, base))
    fsync_dir(folder)
    try:
        os.unlink(_journal_path(folder, prefix_base))
    except FileNotFoundError:
        pass
    fsync_dir(folder)


def _settle(folder: str, prefix_base: str) -> None:
    """Finish a set whose save was killed after its commit (the renames it did not get to)."""
    journal = _journal_path(folder, prefix_base)
    entries = _read_journal(journal)
    if entries is not None:
        _finish(folder, prefix_base, entries["files"])
    elif os.path.exists(journal):
        _remove(journal)


def settle(path: str) -> None:
    """Before writing `path`: finish any interrupted set it belongs to."""
    member = _split_member(path)
    if member is not None:
        _settle(member[0], member[1])


def _finish_abandoned(folder: str, prefix_base: str) -> None:
    """A committed set whose writer is dead: finish its renames now (best effort; a read-only
    folder leaves the journal to the readers), so Paddle too sees the whole new set."""
    journal = _read_journal(_journal_path(folder, prefix_base))
    if journal is None:
        return
    pids = {int(_TEMP_RE.match(e["tmp"])["pid"]) for e in journal["files"].values()}
    if any(_pid_alive(pid) for pid in pids):
        return
    try:
        _finish(folder, prefix_base, journal["files"])
    except OSError:
        pass


def read_member(path: str) -> bytes:
    """The bytes of `path` as the last committed save left them: from its temp name while a
    committed set is not yet renamed into place, else the file itself."""
    member = _split_member(path)
    if member is not None:
        journal_path = _journal_path(member[0], member[1])
        if os.path.exists(journal_path):
            _finish_abandoned(member[0], member[1])
        if os.path.exists(journal_path):
            journal = _read_journal(journal_path)
            entry = journal and journal["files"].get(member[2])
            if entry:
                tmp = os.path.join(member[0], entry["tmp"])
                for candidate in (tmp, path):
                    try:
                        with open(candidate, "rb") as f:
                            data = f.read()
                    except FileNotFoundError:
                        continue
                    if hashlib.sha256(data).hexdigest() == entry["sha256"]:
                        return data
                    if candidate == tmp:
                        raise FormatError(f"{path}: the save it belongs to was interrupted and "
                                          f"its new copy ({entry['tmp']}) does not match the "
                                          f"commit journal {journal_path}")
                    break  # overwritten since (not by fluidc's set writer): read as it is
    with open(path, "rb") as f:
        return f.read()


def member_exists(path: str) -> bool:
    """Whether `path` exists, or is committed and waiting under its temp name."""
    if os.path.isfile(path):
        return True
    member = _split_member(path)
    if member is None:
        return False
    journal_path = _journal_path(member[0], member[1])
    if not os.path.exists(journal_path):
        return False
    _finish_abandoned(member[0], member[1])
    if os.path.isfile(path):
        return True
    journal = _read_journal(journal_path)
    entry = journal and journal["files"].get(member[2])
    return bool(entry) and os.path.isfile(os.path.join(member[0], entry["tmp"]))


# -- directories --------------------------------------------------------------------------------

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100
_SYS_RENAMEAT2 = {"x86_64": 316, "aarch64": 276, "riscv64": 276, "ppc64le": 357, "s390x": 347}


def _load_renameat2():
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None
    fn = getattr(libc, "renameat2", None)
    if fn is not None:
        fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
        return lambda a, b: fn(_AT_FDCWD, a, _AT_FDCWD, b, _RENAME_EXCHANGE)
    number = _SYS_RENAMEAT2.get(os.uname().machine) if hasattr(os, "uname") else None
    syscall = getattr(libc, "syscall", None)
    if number is None or syscall is None:
        return None
    syscall.restype = ctypes.c_long
    return lambda a, b: syscall(ctypes.c_long(number), ctypes.c_int(_AT_FDCWD), a,
                                ctypes.c_int(_AT_FDCWD), b, ctypes.c_uint(_RENAME_EXCHANGE))


_renameat2 = _load_renameat2() if os.name == "posix" else None


def exchange(a: str, b: str) -> bool:
    """Swap two paths in one step (Linux renameat2 RENAME_EXCHANGE); False where unsupported."""
    if _renameat2 is None:
        return False
    if _renameat2(os.fsencode(a), os.fsencode(b)) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EPERM):
        return False
    raise OSError(err, os.strerror(err), a, None, b)


def _old_dirs(parent: str, base: str) -> list[str]:
    try:
        names = os.listdir(parent)
    except OSError:
        return []
    out = []
    for name in names:
        m = _TEMP_RE.match(name)
        if m is not None and m["kind"] == "old" and m["base"] == base:
            out.append(os.path.join(parent, name))
    return sorted(out, key=lambda p: os.stat(p).st_mtime_ns if os.path.exists(p) else 0)


def resolve_dir(dirname: str) -> str:
    """The directory a load should read: `dirname`, or, if a save was killed between its two
    renames (no exchange on this file system), the complete old one it moved aside."""
    if os.path.exists(dirname):
        return dirname
    parent, base = os.path.split(os.path.abspath(dirname))
    old = _old_dirs(parent, base)
    return old[-1] if old else dirname


def _recover_dir(parent: str, base: str) -> None:
    target = os.path.join(parent, base)
    if os.path.lexists(target):
        return
    old = [p for p in _old_dirs(parent, base)
           if not _pid_alive(int(_TEMP_RE.match(os.path.basename(p))["pid"]))]
    if old:
        os.rename(old[-1], target)
        fsync_dir(parent)


def _unsafe_to_swap(target: str) -> str | None:
    try:
        cwd = os.path.realpath(os.getcwd())
    except OSError:
        cwd = None
    if cwd is not None and (cwd == target or cwd.startswith(target.rstrip(os.sep) + os.sep)):
        return "it is (or holds) the working directory"
    if os.path.ismount(target) or os.path.dirname(target) == target:
        return "it is a mount point"
    return None


def _carry_over(src: str, dst: str) -> None:
    """Link (or copy) into dst what src holds that dst does not: files the save did not write."""
    for entry in os.scandir(src):
        if is_own_file(entry.name):
            continue
        target = os.path.join(dst, entry.name)
        if entry.is_dir(follow_symlinks=False):
            if not os.path.lexists(target):
                os.mkdir(target)
                shutil.copymode(entry.path, target)
            if os.path.isdir(target) and not os.path.islink(target):
                _carry_over(entry.path, target)
                fsync_dir(target)
        elif os.path.lexists(target):
            continue  # the save wrote this one
        elif entry.is_symlink():
            os.symlink(os.readlink(entry.path), target)
        elif entry.is_file(follow_symlinks=False):
            try:
                os.link(entry.path, target)
            except OSError:
                shutil.copy2(entry.path, target)


def write_dir(dirname: str, write, what: str = "save") -> None:
    """Replace the directory `dirname` by what `write(folder)` writes into an empty folder (files
    it creates with write_file), all at once; other files of `dirname` are kept."""
    dirname = os.fspath(dirname)
    target = os.path.realpath(dirname)
    parent, base = os.path.split(target)
    os.makedirs(parent, exist_ok=True)
    _recover_dir(parent, base)
    clean_stale(parent, {base})
    if os.path.exists(target) and not os.path.isdir(target):
        raise CheckpointError(f"{what}: '{dirname}' exists and is not a directory")
    reason = _unsafe_to_swap(target) if os.path.exists(target) else None
    if reason is not None:
        warnings.warn(f"{what}: '{dirname}' cannot be replaced as a whole ({reason}); its files "
                      f"are written one by one, so a kill can leave vars of two saves",
                      UserWarning, stacklevel=3)
        clean_stale(target)
        write(_InPlace(target))
        fsync_dir(target)
        return
    tmp = os.path.join(parent, _temp_name(base))
    os.mkdir(tmp, 0o777)  # 0777 less the umask
    moved = None  # where the old directory went, when it could not be exchanged
    try:
        existed = os.path.isdir(target)
        if existed:
            shutil.copymode(target, tmp)
        folder = _Folder(tmp)
        write(folder)
        if existed:
            _carry_over(target, tmp)
        for d in sorted(folder.dirs, key=len, reverse=True):
            fsync_dir(d)
        if existed:
            if not exchange(tmp, target):  # after the exchange, tmp holds the old directory
                moved = os.path.join(parent, _temp_name(base, "old"))
                os.rename(target, moved)
                os.rename(tmp, target)
        else:
            os.rename(tmp, target)
        fsync_dir(parent)
    except BaseException:
        if moved is not None and not os.path.lexists(target):
            os.rename(moved, target)  # put the old one back
            moved = None
        _remove(tmp)
        raise
    _remove(moved if moved is not None else tmp)


class _Folder:
    """Where write_dir's callback writes: files are created fresh and fsynced."""

    def __init__(self, root: str) -> None:
        self.root, self.dirs = root, {root}

    def write_file(self, rel: str, data) -> None:
        path = os.path.join(self.root, rel)
        sub = os.path.dirname(path)
        if sub not in self.dirs:
            os.makedirs(sub, exist_ok=True)
            d = sub
            while d not in self.dirs and d.startswith(self.root):
                self.dirs.add(d)
                d = os.path.dirname(d)
        if os.path.lexists(path):
            raise CheckpointError(f"'{rel}' is written twice in one save")
        _write_new(path, data)


class _InPlace(_Folder):
    """The fallback: each file replaced on its own in the directory itself."""

    def __init__(self, root: str) -> None:
        super().__init__(root)
        self.written: set[str] = set()

    def write_file(self, rel: str, data) -> None:
        if rel in self.written:
            raise CheckpointError(f"'{rel}' is written twice in one save")
        self.written.add(rel)
        atomic_write(os.path.join(self.root, rel), data)
