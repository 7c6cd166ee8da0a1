#!/bin/sh
# t4020: --plot=FILE.svg: a chart for every test on the simulated card,
# saved JSON runs overlaid on one chart, and bad input refused with a
# message rather than a crash.
. "$(dirname "$0")/lib.sh"

have_xmllint() { command -v xmllint >/dev/null 2>&1; }

check_svg() {
	if have_xmllint; then
		xmllint --noout "$1"
	else
		grep -q "</svg>" "$1"
	fi
}

for t in "-a" "-A" "-O" "-O -r" "-f" "-s" "-i"; do
	test_expect_success "plot of $t is well-formed SVG" "
		\"\$FLASHBENCH\" $t --plot=chart.svg sim: >out 2>/dev/null &&
		check_svg chart.svg &&
		grep -q '<polyline\\|<circle' chart.svg &&
		grep -q '(log2 scale)\\|(MiB)' chart.svg
	"
done

test_expect_success '-i: the chart draws the regression the text prints' '
	"$FLASHBENCH" -i --plot=i.svg sim:sandisk-su08g >out 2>/dev/null &&
	sed -n "s/^\([0-9.]* MB\/s\), \(.*\) access time\$/\2/p" out >text &&
	test "$(wc -l <text)" -eq 1 &&
	grep -o "fit: [^<]*" i.svg | sed "s/.*, \(.*\) access\$/\1/" >chart &&
	test_cmp text chart
'

test_expect_success 'plotting leaves the text output as it was' '
	"$FLASHBENCH" -a sim: >plain 2>/dev/null &&
	"$FLASHBENCH" -a --plot=a.svg sim: >with-plot 2>/dev/null &&
	test_cmp plain with-plot
'

test_expect_success 'saved open-au runs N=5..8 overlay as four series' '
	for n in 5 6 7 8; do
		"$FLASHBENCH" -O -0 $n --erasesize=4M --blocksize=64K \
			--format=json sim:sandisk-su08g >au$n.json \
			2>/dev/null ||
			return 1
	done &&
	"$FLASHBENCH" --plot=cliff.svg au5.json au6.json au7.json au8.json &&
	check_svg cliff.svg &&
	test "$(grep -c "<polyline" cliff.svg)" = 4 &&
	for n in 5 6 7 8; do
		grep -q ">open_au_nr=$n<" cliff.svg || return 1
	done
'

test_expect_success 'runs of different tests do not share a chart' '
	"$FLASHBENCH" -a --format=json sim: >a.json &&
	"$FLASHBENCH" -O --format=json sim: >o.json 2>/dev/null &&
	test_expect_code 1 "$FLASHBENCH" --plot=x.svg a.json o.json 2>err &&
	grep -q "o.json" err
'

# schema2 NEW OLD: the schema-3 document NEW as schema 2 wrote it: keys
# without units (pre, block, rate), rates with an exponent, the device
# as {path, size, logical_block_size}, flags 0 or 1.
schema2() {
	python3 - "$1" "$2" <<-\PY
	import json, sys
	old = {"align_bytes": "align", "pre_ns": "pre", "on_ns": "on",
	       "post_ns": "post", "diff_ns": "diff", "block_bytes": "block",
	       "bytes_per_s": "rate"}
	d = json.load(open(sys.argv[1]))
	d["schema"] = 2
	dev = d["device"]
	d["device"] = {"path": dev["path"], "size": dev["size_bytes"],
	               "logical_block_size": dev["logical_block_bytes"]}
	d["parameters"] = {k: int(v) if isinstance(v, bool) else v
	                   for k, v in d["parameters"].items()}
	d["results"] = [{old.get(k, k): v for k, v in r.items()}
	                for r in d["results"]]
	d["units"] = {old.get(k, k): v for k, v in d["units"].items()}
	text = json.dumps(d)
	text = text.replace("10701400", "1.07014e+07")
	open(sys.argv[2], "w").write(text)
	PY
}

test_expect_success 'saved schema 2 runs plot as schema 3 runs do' '
	mkdir -p new old &&
	"$FLASHBENCH" -a -c 1 --format=json sim: >new/a.json &&
	"$FLASHBENCH" -O --format=json sim: >new/o.json 2>/dev/null &&
	schema2 new/a.json old/a.json && schema2 new/o.json old/o.json &&
	grep -q "1.07014e+07" old/o.json &&
	for t in a o; do
		"$FLASHBENCH" --plot=new/$t.svg new/$t.json &&
		"$FLASHBENCH" --plot=old/$t.svg old/$t.json &&
		test_cmp new/$t.svg old/$t.svg || return 1
	done &&
	grep -q ">pre<" new/a.svg
'

test_expect_success 'a saved --report draws its first part with a chart, its align table' '
	"$FLASHBENCH" --report --write --time=0.1 --budget=1 --format=json \
		sim:plain >report.json 2>/dev/null &&
	"$FLASHBENCH" -a --format=json sim:plain >a.json &&
	"$FLASHBENCH" --plot=report.svg report.json &&
	"$FLASHBENCH" --plot=a.svg a.json &&
	check_svg report.svg &&
	grep -q ">flashbench align on sim:plain<" report.svg &&
	test "$(grep -c "<polyline" report.svg)" = 4 &&
	grep "<polyline" a.svg >alone &&
	grep "<polyline" report.svg >from-report &&
	test_cmp alone from-report
'

test_expect_success 'a saved --report after a -t run: its -t part on that chart, not --write-speed'"'"'s rate against bytes' '
	"$FLASHBENCH" -t --time=0.5 --format=json sim:plain >t.json &&
	"$FLASHBENCH" --plot=speeds.svg t.json report.json &&
	check_svg speeds.svg &&
	test "$(grep -c "<polyline" speeds.svg)" = 2 &&
	grep -q ">read-speed report.json<" speeds.svg &&
	! grep -q ">write-speed report.json<" speeds.svg
'

test_expect_success 'a saved --report with no part for the chart is refused, named' '
	"$FLASHBENCH" -O --format=json sim: >o.json 2>/dev/null &&
	test_expect_code 1 "$FLASHBENCH" --plot=x.svg o.json report.json \
		2>err &&
	grep -x "flashbench: report.json: a saved --report with no part that goes on this chart" err
'

test_expect_success 'hostile json is refused with a message' '
	printf "{\"schema\": 1, \"test\": \"align\", \"results\": [" \
		>cut.json &&
	test_expect_code 1 "$FLASHBENCH" --plot=x.svg cut.json 2>err &&
	grep -q "cut.json: line 1" err &&
	python3 -c "print(\"[\" * 100000)" >deep.json &&
	test_expect_code 1 "$FLASHBENCH" --plot=x.svg deep.json 2>err &&
	grep -q "nested too deeply" err &&
	head -c 100000 /dev/urandom >noise.json &&
	test_expect_code 1 "$FLASHBENCH" --plot=x.svg noise.json 2>err &&
	test_expect_code 1 "$FLASHBENCH" --plot=x.svg missing.json 2>err &&
	grep -q "No such file" err
'

test_expect_success 'json of a --program run plots on generic axes' '
	cat >p.fb <<-\PROGRAM &&
	for n in pow2 65536 4096 none {
		let t = read 0 n
		report size n n
		report time t t
		newline
	}
	PROGRAM
	"$FLASHBENCH" --program=p.fb --format=json sim: >p.json &&
	"$FLASHBENCH" --plot=p.svg p.json &&
	check_svg p.svg && grep -q "<polyline" p.svg
'

# A renderer: headless Chromium, or librsvg's rsvg-convert, where installed.
render=
for b in chromium chromium-browser google-chrome headless_shell; do
	command -v $b >/dev/null 2>&1 &&
		render="$b --headless --disable-gpu --no-sandbox \
			--window-size=800,500 --screenshot=\$PWD/r.png \
			file://\$PWD/r.svg" && break
done
[ -z "$render" ] && command -v rsvg-convert >/dev/null 2>&1 &&
	render="rsvg-convert -w 800 -o r.png r.svg"
if [ -n "$render" ] && command -v python3 >/dev/null 2>&1; then
	test_expect_success 'a chart renders to a PNG that is not blank' '
		"$FLASHBENCH" -O --erasesize=4M --blocksize=64K \
			--plot=r.svg sim: >/dev/null 2>&1 &&
		eval "$render" >/dev/null 2>&1 &&
		python3 - r.png <<-\PY
		import sys, zlib, struct
		data = open(sys.argv[1], "rb").read()
		assert data[:8] == b"\x89PNG\r\n\x1a\n"
		pos, idat = 8, b""
		while pos < len(data):
		    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
		    if kind == b"IDAT":
		        idat += data[pos + 8:pos + 8 + n]
		    pos += 12 + n
		raw = zlib.decompress(idat)
		assert len(set(raw)) > 8, "blank image"
		PY
	'
else
	test_skip 'a chart renders to a PNG that is not blank' \
		'needs python3, and headless chromium or rsvg-convert'
fi

test_done
