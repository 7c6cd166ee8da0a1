"""report_matches.py [--write] REPORT.json: the report's summary against
the modes' own JSON (t.json, detect.json, iops.json, iops32.json, and
with --write ws.json, class.json) in the current directory."""
import json
import sys

write = sys.argv[1] == "--write"
rep = json.load(open(sys.argv[2]))
s = rep["summary"]


def load(name):
    return json.load(open(name))


def first(doc, kind, **match):
    for r in doc["results"]:
        if r["kind"] == kind and all(r.get(k) == v for k, v in match.items()):
            return r
    return None


def same(got, want, what):
    assert got == want, "%s: report %r, alone %r" % (what, got, want)


assert rep["test"] == "report" and rep["incomplete"] is False
assert rep["parameters"]["write"] == int(write)
for p in rep["parts"]:
    assert "test" in p and ("results" in p or "skipped" in p), p
tests = [p["test"] for p in rep["parts"]]
assert "info" in tests and "detect" in tests, tests

same(s["speed"]["read"]["value"],
     first(load("t.json"), "summary")["bytes_per_s"], "read")
iops, iops32 = load("iops.json"), load("iops32.json")
same(s["speed"]["read_iops_qd1"]["value"],
     first(iops, "iops", direction="read")["iops"], "read IOPS QD1")
same(s["speed"]["read_iops_qd32"]["value"],
     first(iops32, "iops", direction="read")["iops"], "read IOPS QD32")
det = load("detect.json")
for name, key in (("erase_size", "erase_block"), ("page_size", "page"),
                  ("open_au_linear", "open_erase_blocks")):
    f = first(det, "finding", name=name)
    want = f["value"] if f else None
    same(s["hides"][key]["value"], want, key)
if write:
    same(s["speed"]["write"]["value"],
         first(load("ws.json"), "summary")["bytes_per_s"], "write")
    same(s["speed"]["write_iops_qd1"]["value"],
         first(iops, "iops", direction="write")["iops"], "write IOPS QD1")
    same(s["speed"]["write_iops_qd32"]["value"],
         first(iops32, "iops", direction="write")["iops"],
         "write IOPS QD32")
    classes = [r for r in load("class.json")["results"]
               if r["kind"] == "class"]
    passed = " ".join(r["class"] for r in classes if r["pass"]) or "none"
    # passed on a write rate that never fell: only as far as measured
    as_far = " ".join(r["class"] for r in classes
                      if r["result"] == "pass as far as measured")
    want = "passes as far as measured %s (no fall in the first " % as_far \
        if as_far and passed == "none" else "passes %s;" % passed
    assert s["speed"]["classes"]["text"].startswith(want), \
        (s["speed"]["classes"], want)
else:
    assert s["speed"]["write"]["value"] is None, s["speed"]["write"]
