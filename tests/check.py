import json, sys
doc = json.load(open(sys.argv[1]))
want = int(sys.argv[2])
cards = [r for r in doc["results"] if r["kind"] == "card"]
assert doc["test"] == "compare", doc["test"]
assert len(cards) == want, "%d cards, want %d" % (len(cards), want)
ranked = ["read_bytes_per_s", "write_bytes_per_s", "read_iops_qd1",
          "write_iops_qd1", "read_iops_qd32", "write_iops_qd32",
          "open_erase_blocks"]
marked = 0
for key in ranked:
    known = [c[key] for c in cards if c[key] is not None]
    for c in cards:
        assert isinstance(c["best"][key], bool)
        best = len(known) >= 2 and c[key] is not None and \
            c[key] >= max(known) * 0.98
        assert c["best"][key] == best, (c["name"], key, c[key], known)
        marked += best
assert marked > 0, "nothing marked best"
for c in cards:
    assert c["matched_by"] == "path and size", c["matched_by"]
print(marked)
