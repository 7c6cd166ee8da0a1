"""undofile.py COMMAND ARGS: reads and damages FBUNDO02 undo files for
t3020 and t3040 (a 256-byte header, then records: a 64-byte head -
magic, kind, offset, length at 0, 8, 16, 24 - the data, a 64-byte
trailer).

  head FILE N / data FILE N: damage record N's head (its offset) or
    data; print "offset length" of it
  both FILE N: damage record N's head and trailer; print "offset length"
    of it, then "unknown" and where it lies in the file
  flip FILE AT: damage the byte at AT
  cut FILE DEV: put the last record's blocks back on DEV (as if it was
    never fsync'd, so they were never overwritten) and cut the file in
    the middle of its data
  cuts FILE: ten places inside the last record, "name offset" (the file
    cut there ends inside it): in its head, its data, its trailer
  done FILE: append a done mark over the last record's range, as the
    writer does once that chunk is back
  v1 FILE OUT: the same records in an FBUNDO01 file (64-byte header
    "FBUNDO01", size, block size, fingerprint; records "FBUR\\0\\0\\0\\0",
    offset, length, FNV-1a 64 of the data, the data)
  differ A B: the ranges where images A and B differ, "offset length"
  listed FILE: the damaged ranges of a --restore's JSON, "offset length"
"""
import json
import os
import struct
import sys

HEADER, HEAD = 256, 64


def records(data):
    at, out = HEADER, []
    while at + HEAD <= len(data):
        assert data[at:at + 8] == b"FBUREC02", at
        kind, offset, length = struct.unpack_from("<QQQ", data, at + 8)
        out.append((at, kind, offset, length))
        at += HEAD + length + HEAD
    return out


BASIS = 0xcbf29ce484222325


def fnv(data, h=BASIS):
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return h


def damage(path, n, where):
    data = bytearray(open(path, "rb").read())
    at, kind, offset, length = records(bytes(data))[n]
    for w in where(length):
        data[at + w] ^= 0x40
    open(path, "wb").write(data)
    print(offset, length)
    return at, length


def show(lines):
    if lines:
        print("\n".join(lines))


def ranges(blocks, size):
    out = []
    for b in blocks:
        if out and out[-1][0] + out[-1][1] == b * size:
            out[-1][1] += size
        else:
            out.append([b * size, size])
    return ["%d %d" % (o, l) for o, l in out]


def cuts(path):
    at, kind, offset, length = records(open(path, "rb").read())[-1]
    for name, past in (("head+1", 1), ("head+20", 20), ("head+40", 40),
                       ("head+63", 63), ("data+0", HEAD),
                       ("data+half", HEAD + length // 2),
                       ("data-1", HEAD + length - 1),
                       ("trailer+0", HEAD + length),
                       ("trailer+30", HEAD + length + 30),
                       ("trailer+63", HEAD + length + 63)):
        print(name, at + past)


def done(path):
    data = open(path, "rb").read()
    salt = struct.unpack_from("<Q", data, 32)[0]
    recs = records(data)
    at, kind, offset, length = recs[-1]
    out = b""
    for magic in (b"FBUREC02", b"FBUEND02"):
        # kind 3, no data (its checksum the FNV basis), the sequence
        # number, the range in the seventh word; salted checksum last
        head = magic + struct.pack("<QQQQQQ", 3, offset, 0, BASIS,
                                   len(recs), length)
        out += head + struct.pack("<Q", fnv(head,
                                            fnv(struct.pack("<Q", salt))))
    open(path, "ab").write(out)


def v1(path, out_path):
    data = open(path, "rb").read()
    size, block, fingerprint = struct.unpack_from("<QQQ", data, 8)
    out = bytearray(b"FBUNDO01" + struct.pack("<QQQ", size, block,
                                              fingerprint))
    out += bytes(64 - len(out))
    for at, kind, offset, length in records(data):
        blocks = data[at + HEAD:at + HEAD + length]
        out += b"FBUR\0\0\0\0" + struct.pack("<QQQ", offset, length,
                                             fnv(blocks)) + blocks
    open(out_path, "wb").write(out)


def main(cmd, args):
    if cmd == "head":
        damage(args[0], int(args[1]), lambda length: [16])
    elif cmd == "data":
        damage(args[0], int(args[1]), lambda length: [HEAD + length // 2])
    elif cmd == "both":
        at, length = damage(args[0], int(args[1]),
                            lambda length: [16, HEAD + length + 16])
        print("unknown", at, HEAD + length + HEAD)
    elif cmd == "flip":
        data = bytearray(open(args[0], "rb").read())
        data[int(args[1])] ^= 0x40
        open(args[0], "wb").write(data)
    elif cmd == "cut":
        data = open(args[0], "rb").read()
        at, kind, offset, length = records(data)[-1]
        fd = os.open(args[1], os.O_WRONLY)
        os.pwrite(fd, data[at + HEAD:at + HEAD + length], offset)
        os.fsync(fd)
        os.close(fd)
        os.truncate(args[0], at + HEAD + length // 2)
    elif cmd == "cuts":
        cuts(args[0])
    elif cmd == "done":
        done(args[0])
    elif cmd == "v1":
        v1(args[0], args[1])
    elif cmd == "differ":
        a, b = open(args[0], "rb").read(), open(args[1], "rb").read()
        assert len(a) == len(b)
        show(ranges([i for i in range(len(a) // 512)
                     if a[i * 512:i * 512 + 512] != b[i * 512:i * 512 + 512]],
                    512))
    elif cmd == "listed":
        doc = json.load(open(args[0]))
        show(["%d %d" % (r["offset_bytes"], r["length_bytes"])
              if r["offset_bytes"] is not None
              else "unknown %d %d" % (r["file_offset_bytes"], r["file_bytes"])
              for r in doc["results"] if r["kind"] == "restore-damaged"])
    else:
        sys.exit("undofile.py: unknown command " + cmd)


main(sys.argv[1], sys.argv[2:])
