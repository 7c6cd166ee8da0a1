"""keeporder.py TRACE DEVICE UNDO [resumed]: checks, from an strace of
a --surface --keep-data run (strace -f -ttt -T -y -xx -s 64 -e trace=openat,write,
fsync,rename,renameat2,pwrite64,close), that no write reached DEVICE
before the old contents of the blocks it wrote were safe in the undo
file UNDO: saved in a record of the file named UNDO (made there, or
UNDO.new renamed over it or swapped with it) whose fsync ended after the
record was written, and whose name there was made to last by an fsync
of the directory that began after the rename ended - both ended before
the write began, and that file neither replaced nor written over since
(a file's content starts anew with a header written at its start).
And no file in place is replaced while a write to DEVICE (the data put
back, which only it saved) is not yet made to last by an fsync of
DEVICE that began after the write ended.  With "resumed" (a --resume
run), the writes before the first rename put back what UNDO saved, and
only the second rule holds them.  Prints what it saw ("N device writes,
M records, K renames"), or the first call that broke it, and exits 1.
"""
import os
import re
import struct
import sys

LINE = re.compile(r"^(\d+)\s+(\d+\.\d+)\s+(.*)$")
RESUMED = re.compile(r"^<\.\.\. (\w+) resumed>(.*)$")
CALL = re.compile(r"^(\w+)\((.*)$")
DURATION = re.compile(r"<(\d+\.\d+)>\s*$")
FD = re.compile(r"^(\d+)<([^>]*)>")
RESULT = re.compile(r"\) = (-?\d+)")


def events(path):
    """(name, args, entry time, end time, result) of every system call."""
    pending = {}
    for line in open(path):
        m = LINE.match(line.rstrip("\n"))
        if not m:
            continue
        pid, ts, rest = m.group(1), float(m.group(2)), m.group(3)
        r = RESUMED.match(rest)
        if r:
            name, args, entry = pending.pop((pid, r.group(1)))
            text, end = args + r.group(2), ts
        elif rest.endswith("<unfinished ...>"):
            c = CALL.match(rest[:-len("<unfinished ...>")].rstrip())
            pending[(pid, c.group(1))] = (c.group(1), c.group(2), ts)
            continue
        else:
            c = CALL.match(rest)
            if not c:
                continue
            name, text, entry = c.group(1), c.group(2), ts
            d = DURATION.search(rest)
            end = ts + (float(d.group(1)) if d else 0.0)
        res = RESULT.search(text)
        yield name, text, entry, end, int(res.group(1)) if res else None


def unescape(s):
    """A path as strace -xx prints it: every byte \\xNN."""
    return re.sub(r"\\x([0-9a-f]{2})", lambda m: chr(int(m.group(1), 16)),
                  s)


def fd_of(text):
    """The descriptor a call's text begins with, and its path."""
    m = FD.match(text)
    return (int(m.group(1)), unescape(m.group(2))) if m else (None, None)


def header(text):
    """Is a write's buffer a file's header (magic FBUNDO02)?"""
    m = re.search(r'"((?:\\x[0-9a-f]{2}){8})', text)
    return bool(m) and unescape(m.group(1)) == "FBUNDO02"


def head_of(text):
    """A record head's kind, offset and length from a write's buffer."""
    m = re.search(r'"((?:\\x[0-9a-f]{2})+)"', text)
    if not m:
        return None
    raw = bytes(int(h, 16) for h in m.group(1).split("\\x")[1:])
    if len(raw) < 32 or raw[:8] != b"FBUREC02":
        return None
    return struct.unpack_from("<QQQ", raw, 8)


def main(trace, device, undo, resumed=None):
    device_path = os.path.realpath(device)
    undo = os.path.realpath(undo)
    fresh, folder = undo + ".new", os.path.dirname(undo)
    files, fd_file = [], {}     # per file: records, records fsync'd
    names = {"undo": None, "fresh": None}   # which file each name holds
    # when the name UNDO last changed, and whether a directory fsync
    # made it last since
    state = {"renamed": None, "lasting": False}
    # the end of the last device write, and whether a device fsync
    # begun after it has ended
    device = {"written": None, "flushed": True}
    writes = renames = saves = 0
    # a --resume run puts back what its file saved before its first
    # rename: those writes are the restore's, held only to the flush
    putting_back = resumed == "resumed"
    done = []                   # (end time, action) not yet taken

    def renamed(swap, at):
        if swap:
            names["undo"], names["fresh"] = names["fresh"], names["undo"]
        else:
            names["undo"], names["fresh"] = names["fresh"], None
        state["renamed"], state["lasting"] = at, False

    def dir_synced(at):
        if state["renamed"] is None or state["renamed"] <= at:
            state["lasting"] = True

    def flushed(began):
        if device["written"] is None or device["written"] <= began:
            device["flushed"] = True

    def safe():
        """The records of the file in place that are safe now."""
        if not state["lasting"] or names["undo"] is None:
            return []
        return files[names["undo"]]["synced"]

    for name, text, entry, end, res in sorted(events(trace),
                                              key=lambda e: e[2]):
        # what ended before this call began has happened
        for at, act in sorted(done, key=lambda d: d[0]):
            if at <= entry:
                act()
        done = [(at, act) for at, act in done if at > entry]
        fd, fd_path = fd_of(text)
        if name == "openat" and res is not None and res >= 0:
            target = unescape(re.search(r'"([^"]*)"', text).group(1))
            if os.path.realpath(target) in (fresh, undo):
                files.append({"records": [], "synced": []})
                fd_file[res] = len(files) - 1
                names["fresh" if target.endswith(".new") else "undo"] = \
                    len(files) - 1
        elif name == "close" and fd is not None:
            fd_file.pop(fd, None)
        elif name == "write" and fd in fd_file:
            f = files[fd_file[fd]]
            if header(text):
                f["records"], f["synced"] = [], []
            h = head_of(text)
            if h and h[0] in (1, 5):
                f["records"].append((h[1], h[2]))
                saves += 1
        elif name == "fsync" and fd in fd_file:
            f = files[fd_file[fd]]
            now = list(f["records"])
            done.append((end, lambda f=f, now=now: f.update(synced=now)))
        elif name == "fsync" and fd_path == device_path:
            done.append((end, lambda at=entry: flushed(at)))
        elif name in ("rename", "renameat2") and res == 0:
            if not device["flushed"]:
                print("the undo file was replaced before the device "
                      "flushed the data written up to %.6f" %
                      device["written"])
                return 1
            renames += 1
            putting_back = False
            swap = name == "renameat2" and "RENAME_EXCHANGE" in text
            done.append((end, lambda s=swap, at=end: renamed(s, at)))
        elif name == "fsync" and fd_path == folder:
            done.append((end, lambda at=entry: dir_synced(at)))
        elif name == "pwrite64" and fd_path == device_path:
            writes += 1
            device["written"], device["flushed"] = end, False
            m = re.search(r", (\d+), (\d+)\)", text)
            length, offset = int(m.group(1)), int(m.group(2))
            if not putting_back and not any(
                    o <= offset and offset + length <= o + n
                    for o, n in safe()):
                print("a write of %d bytes at %d began before its old "
                      "contents were safe in the undo file (safe: %s)"
                      % (length, offset, safe()))
                return 1
    print("%d device writes, %d records, %d renames" %
          (writes, saves, renames))
    return 0 if writes and renames else 1


sys.exit(main(*sys.argv[1:]))
