#!/bin/sh
# t9020: --report --write on a flashemu card through the kernel.  flashemu
# serves a simulated card that keeps its data (fake= its whole size: a
# genuine card), attached to a loop device and filled with random data:
# the report runs every part, --detect --write included, ends with exit
# 0, its summary first in text and in one JSON document that holds to
# the schema, and every byte of the device is as before.  A wraparound
# fake (256 MiB of an announced 1 GiB) ends with the fake verdict, exit
# 3, and every byte of its real capacity as before.  As root with
# /dev/fuse and loop devices.

. "$(dirname "$0")/lib.sh"

UNDO=$TRASH/report.undo
ARGS="--write -e 1M --budget=1 --time=0.2 --span=32M --undo-file=$UNDO"
SCHEMA=$TOP/doc/schema/flashbench-3.json

# stop_cards: at the end, whatever a failed test left of either card
stop_cards() {
	emu_stop card
	emu_stop fake
}
test_at_exit stop_cards

# report.py FILE VERDICT: FILE is one --report document, complete, with
# its summary and a part for every mode it ran, the capacity verdict
# VERDICT; it holds to the schema when python3-jsonschema is installed.
cat >"$TRASH/report.py" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["test"] == "report" and doc["incomplete"] is False, doc["test"]
assert sorted(doc["summary"]) == \
    ["advice", "card", "hides", "speed", "verdicts"], sorted(doc["summary"])
tests = [p["test"] for p in doc["parts"]]
assert tests == ["info", "detect", "align", "read-speed", "write-speed",
                 "iops", "iops", "class-check", "capacity-check"], tests
[cap] = [r for p in doc["parts"] if p["test"] == "capacity-check"
         for r in p["results"] if r["kind"] == "capacity"]
assert cap["verdict"] == sys.argv[2], cap
assert doc["summary"]["verdicts"]["capacity"]["text"] \
    .startswith(sys.argv[2] + ":"), doc["summary"]["verdicts"]["capacity"]
try:
    import jsonschema
    jsonschema.Draft202012Validator
except (ImportError, AttributeError):
    print("no jsonschema (draft 2020-12): schema not checked")
else:
    schema = json.load(open(sys.argv[3]))
    jsonschema.Draft202012Validator(schema).validate(doc)
    print("holds to the schema")
print(sys.argv[2], " ".join(tests))
PY

# report_exits CODE OUT ARGS...: --report with $ARGS and ARGS, its
# output in OUT, its stderr in err; it exits CODE and leaves no undo file.
report_exits() {
	re_code=$1
	re_out=$2
	shift 2
	"$FLASHBENCH" --report $ARGS "$@" >"$re_out" 2>err
	re_got=$?
	echo "exit $re_got"
	test "$re_got" = "$re_code" || { sed "s/^/# stderr: /" err; return 1; }
	test ! -e "$UNDO"
}

test_emu 'flashemu serves a card that keeps its data, random data on it' '
	emu_start card --time-scale=1000 sim:size=128M,fake=128M &&
	emu_attach card >"$TRASH/card.dev" &&
	dev=$(cat "$TRASH/card.dev") &&
	test "$(blockdev --getsize64 "$dev")" = $((128 * MIB)) &&
	fill_random "$dev" &&
	dev_sum "$dev" >"$TRASH/card.sum"
'
DEV=$(cat "$TRASH/card.dev" 2>/dev/null)

test_emu '--report --write, text: exit 0, the summary first, every part, every byte back' '
	report_exits 0 out "$DEV" &&
	grep -q "saves what it overwrites to $UNDO" err &&
	grep -q "^flashbench: detect --write overwrites bytes " err &&
	test "$(head -n 1 out)" = "report: $DEV ($((128 * MIB)) bytes, logical blocks of 512), with --write" &&
	for heading in "The card:" "Verdicts:" "What it hides:" "How fast:" \
		"What to do:"; do
		grep -qx "$heading" out || exit 1
	done &&
	grep -q "^  capacity  *genuine: usable $((128 * MIB)) of " out &&
	grep -q "^  write iops qd32  *[0-9]* IOPS$" out &&
	sed -n "s/^== \([a-z0-9-]*\): flashbench .* ==\$/\1/p" out >parts &&
	printf "%s\n" info detect-write align read-speed write-speed iops \
		iops-qd32 class-check capacity-check >expect &&
	test_cmp expect parts &&
	test "$(grep -n "^== info: " out | cut -d: -f1)" -gt \
		"$(grep -n "^What to do:" out | cut -d: -f1)" &&
	dev_sum "$DEV" >now &&
	test_cmp "$TRASH/card.sum" now
'

test_emu python3 '--report --write, JSON: exit 0, one valid document, every byte back' '
	report_exits 0 out.json --format=json "$DEV" &&
	python3 "$TRASH/report.py" out.json genuine "$SCHEMA" &&
	dev_sum "$DEV" >now &&
	test_cmp "$TRASH/card.sum" now
'

test_emu 'SIGTERM stops flashemu: exit 0, nothing mounted or attached' '
	emu_detach "$DEV" &&
	emu_stop card &&
	emu_gone card
'

test_emu python3 'a wraparound fake: --report --write ends fake, exit 3, its real capacity as before' '
	emu_start fake --time-scale=1000 sim:size=1G,fake=256M,fake-mode=wrap &&
	dev=$(emu_attach fake) &&
	dd if=/dev/urandom of="$dev" bs=1M count=256 oflag=direct \
		status=none &&
	dd if="$dev" bs=1M count=256 iflag=direct status=none |
		cksum >before &&
	report_exits 3 fake.json --format=json "$dev" &&
	python3 "$TRASH/report.py" fake.json fake "$SCHEMA" &&
	dd if="$dev" bs=1M count=256 iflag=direct status=none |
		cksum >after &&
	test_cmp before after &&
	emu_detach "$dev" &&
	emu_stop fake &&
	emu_gone fake
'

test_done
