"""The confidence bands of bench/calibration.sh's tables, for each of its
summaries: a finding row is (mode, kind, expected, reported, confidence,
right, spec); per band, right / findings of each kind and the share right
of all of them."""

BANDS = [(0.0, 0.5), (0.5, 0.7), (0.7, 0.9), (0.9, 0.995), (0.995, 1.01)]


def found(row):
    """A finding: a reported value, not "-" (none) nor ">=N" (a bound)."""
    return row[3] != "-" and not row[3].startswith(">=")


def label(lo, hi):
    return "1.00" if lo >= 0.995 else "%.2f-%.2f" % (lo, min(hi, 0.99))


def band_lines(rows, kinds):
    """A markdown table row per band."""
    for lo, hi in BANDS:
        cells, right_all, total = [], 0, 0
        for kind in kinds:
            f = [r for r in rows if r[1] == kind and found(r) and
                 lo <= float(r[4]) < hi]
            right = sum(int(r[5]) for r in f)
            right_all += right
            total += len(f)
            cells.append("%d / %d" % (right, len(f)))
        share = "%.0f%%" % (100.0 * right_all / total) if total else "-"
        yield "| %s | %s | %s |" % (label(lo, hi), " | ".join(cells), share)


def sure_share(rows):
    """The findings at confidence >= 0.9: (them, how many right, percent
    right)."""
    sure = [r for r in rows if found(r) and float(r[4]) >= 0.9]
    right = sum(int(r[5]) for r in sure)
    return sure, right, 100.0 * right / len(sure) if sure else 100.0


def print_wrong(rows):
    """A line for each wrong finding of rows, and a blank line after."""
    wrong = [r for r in rows if not int(r[5])]
    for r in wrong:
        print("- wrong at %.2f: %s %s, expected %s: `%s`" %
              (float(r[4]), r[1], r[3], r[2], r[6]))
    if wrong:
        print()
