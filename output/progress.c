/*
 * progress: the indicator line.  Redraws are limited to one every
 * PROGRESS_INTERVAL_NS of wall time; the estimate assumes the remaining
 * operations take as long as the ones done so far.  Not for measuring.
 */
#include <unistd.h>

#include "output/progress.h"

#define LINE_MAX_COLUMNS 79

static int64_t since_ns(const struct timespec *then,
			const struct timespec *now)
{
	return (int64_t)(now->tv_sec - then->tv_sec) * 1000000000LL +
	       (now->tv_nsec - then->tv_nsec);
}

/* "1:05" or "1:02:03" */
static void format_duration(char *buf, size_t size, int64_t ns)
{
	long long s = ns / 1000000000LL;

	if (s >= 3600)
		snprintf(buf, size, "%lld:%02lld:%02lld", s / 3600,
			 s / 60 % 60, s % 60);
	else
		snprintf(buf, size, "%lld:%02lld", s / 60, s % 60);
}

void progress_start(struct progress *progress, FILE *out, const char *test,
		    bool want)
{
	*progress = (struct progress){ .out = out, .test = test };
	progress->enabled = want && out && isatty(fileno(out));
	clock_gettime(CLOCK_MONOTONIC, &progress->start);
	progress->last = progress->start;
}

static void draw(struct progress *p, const struct timespec *now)
{
	int64_t elapsed = since_ns(&p->start, now);
	char line[LINE_MAX_COLUMNS + 1], taken[24], left[24] = "";
	int n;

	format_duration(taken, sizeof(taken), elapsed);
	if (p->done && p->done < p->total) {
		double rest = (double)elapsed * (double)(p->total - p->done) /
			      (double)p->done;

		format_duration(left, sizeof(left), (int64_t)rest);
	}
	if (p->waiting)
		n = snprintf(line, sizeof(line), "%s: %s, %s", p->test,
			     p->waiting, taken);
	else if (p->bytes)
		n = snprintf(line, sizeof(line), "%s: %lluMiB/%lluMiB (%.0f%%) "
			     "%.1fMB/s %s%s%s", p->test,
			     (unsigned long long)(p->done >> 20),
			     (unsigned long long)(p->total >> 20), p->total ?
			     100.0 * (double)p->done / (double)p->total : 0.0,
			     elapsed > 0 ? (double)p->done * 1e3 /
			     (double)elapsed : 0.0, taken,
			     left[0] ? ", about " : "", left[0] ? left : "");
	else
		n = snprintf(line, sizeof(line), "%s: %llu/%llu (%.0f%%) %s%s%s",
			     p->test, (unsigned long long)p->done,
			     (unsigned long long)p->total, p->total ?
			     100.0 * (double)p->done / (double)p->total : 0.0,
			     taken, left[0] ? ", about " : "",
			     left[0] ? left : "");
	if (n < 0)
		return;
	if (n > LINE_MAX_COLUMNS)
		n = LINE_MAX_COLUMNS;
	/* pad over what the previous line left behind */
	fprintf(p->out, "\r%s%*s", line, p->shown > n ? p->shown - n : 0, "");
	if (p->shown > n)
		fprintf(p->out, "\r%s", line);
	fflush(p->out);
	p->shown = n;
}

/* Draw, unless the last line is younger than the interval. */
static void redraw(struct progress *p)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	/* the first line after an interval too: short runs show none */
	if (since_ns(&p->last, &now) < PROGRESS_INTERVAL_NS)
		return;
	p->last = now;
	draw(p, &now);
}

void progress_update(struct progress *p, uint64_t done, uint64_t total)
{
	if (!p->enabled)
		return;
	p->done = done;
	p->total = total;
	redraw(p);
}

void progress_wait(struct progress *p, const char *what)
{
	if (!p->enabled)
		return;
	p->waiting = what;
	redraw(p);
}

void progress_in_bytes(struct progress *progress)
{
	progress->bytes = true;
}

void progress_clear(struct progress *progress)
{
	if (!progress->enabled || !progress->shown)
		return;
	fprintf(progress->out, "\r%*s\r", progress->shown, "");
	fflush(progress->out);
	progress->shown = 0;
}

void progress_end(struct progress *progress)
{
	progress_clear(progress);
	progress->enabled = false;
}
