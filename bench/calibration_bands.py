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
