/*
 * reportsum: --report's summary, from its parts' JSON documents: each
 * figure the part that measures it found, or why there is none (the
 * part did not run, failed, or gave no figure), never a guess.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/saved.h"
#include "lib/units.h"
#include "modes/reportsum.h"

/*
 * The part's document, for the summary's figures; none from a part that
 * failed, whose document may stop anywhere (its section still shows
 * what it printed).
 */
static const struct json_value *part_doc(const struct mode_report_parts *r,
					 const char *name)
{
	for (size_t i = 0; i < r->count; i++)
		if (strcmp(r->parts[i].name, name) == 0 &&
		    !r->parts[i].failed[0] && r->parts[i].json)
			return r->parts[i].json;
	return NULL;
}

/* Is the part named in the plan (run, skipped or not reached)? */
static bool planned(const struct mode_report_parts *r, const char *name)
{
	for (size_t i = 0; i < r->count; i++)
		if (strcmp(r->parts[i].name, name) == 0)
			return true;
	return false;
}

/*
 * Why the part named gave the summary no figure, as the run knows it
 * (never a guess): a read-only report has no writing part; a part that
 * did not apply or was not reached says why; a failed part's message
 * is on standard error and its exit status here.
 */
static void why_not(const struct mode_report_parts *r, const char *name,
		    char *buf, size_t size)
{
	for (size_t i = 0; i < r->count; i++) {
		const struct summary_part *p = &r->parts[i];

		if (strcmp(p->name, name) != 0)
			continue;
		if (p->skipped[0]) {
			/* the reason cut short at size, as every text of the
			   summary is */
			size_t at = (size_t)snprintf(buf, size, "the %s part "
						     "did not run: ", name);

			if (at < size)
				snprintf(buf + at, size - at, "%s",
					 p->skipped);
			return;
		}
		if (p->failed[0])
			snprintf(buf, size, "the %s part failed (exit %d), as "
				 "its message on standard error says", name,
				 p->status);
		else if (!p->json)
			snprintf(buf, size, "the %s part wrote no document",
				 name);
		else
			snprintf(buf, size, "the %s part gave no figure",
				 name);
		return;
	}
	snprintf(buf, size, "%s", r->write ?
		 "no part of this report measures it" : "needs --write");
}

/* The card's items when --info gave nothing: why, not a guess. */
static void summarize_no_card(struct report_summary *s, const char *why)
{
	static const char *const keys[] = { "name", "manufacturer" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		summary_add(s, "card", keys[i], NAN, NULL, "not known: %s",
			    why);
	summary_add(s, "card", "capacity", (double)s->device_bytes, "bytes",
		    "%llu bytes", (unsigned long long)s->device_bytes);
	summary_add(s, "card", "transport", NAN, NULL, "not known: %s", why);
	summary_add(s, "card", "claimed_classes", NAN, NULL, "not known: %s",
		    why);
	summary_add(s, "verdicts", "host_link", NAN, "boolean",
		    "not known: %s", why);
}

static void summarize_card(struct report_summary *s,
			   const struct json_value *info, const char *why)
{
	const struct json_value *dev = saved_find_record(info, "device", NULL,
							 NULL);
	const struct json_value *card = saved_find_record(info, "card", NULL,
							  NULL);
	const struct json_value *link = json_get(saved_find_record(info, "link",
							     NULL, NULL),
						 "link");
	const char *name = saved_string(card, "name");
	const char *maker = saved_string(card, "manufacturer");
	char classes[128] = "";
	static const struct { const char *key, *prefix; } marks[] = {
		{ "speed_class", "C" }, { "uhs_grade", "U" },
		{ "video_class", "V" }, { "app_class", "A" } };

	if (!info) {
		summarize_no_card(s, why);
		return;
	}
	summary_add(s, "card", "name", NAN, NULL, "%s", name ? name :
		    "not known (no CID register)");
	summary_add(s, "card", "manufacturer", NAN, NULL, "%s", maker ? maker :
		    "not known (no CID register)");
	summary_add(s, "card", "capacity", (double)s->device_bytes, "bytes",
		    "%llu bytes", (unsigned long long)s->device_bytes);
	summary_add(s, "card", "transport", NAN, NULL, "%s",
		    saved_string(dev, "transport") ?
		    saved_string(dev, "transport") : "not known");
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		double v = saved_number(card, marks[i].key);

		if (isfinite(v) && v > 0)
			snprintf(classes + strlen(classes),
				 sizeof(classes) - strlen(classes), "%s%s%.0f",
				 classes[0] ? " " : "", marks[i].prefix, v);
	}
	summary_add(s, "card", "claimed_classes", NAN, NULL, "%s", classes[0] ?
		    classes : "not known (no SD status register)");
	if (link && saved_string(link, "reason"))
		summary_add(s, "verdicts", "host_link", saved_number(link,
			    "limits_card"), "boolean", "%s%s",
			    saved_number(link, "limits_card") == 1 ?
			    "limits the card: " : "", saved_string(link,
								"reason"));
	else
		summary_add(s, "verdicts", "host_link", NAN, "boolean",
			    "not known (no host link in sysfs)");
}

/*
 * Does the link limit the card?  Its ceiling (from --info) against the
 * read rate -t measured: within a tenth of the ceiling, the link is
 * what the card ran into.
 */
static void summarize_link_rate(struct report_summary *s,
				const struct json_value *info,
				const struct json_value *read, const char *why)
{
	const struct json_value *link = json_get(saved_find_record(info, "link",
							     NULL, NULL),
						 "link");
	double ceiling = saved_number(link, "ceiling_bytes_per_s");
	double rate = saved_number(saved_find_record(read, "summary", NULL,
						     NULL), "bytes_per_s");

	if (!isfinite(ceiling) || ceiling <= 0 || !isfinite(rate))
		summary_add(s, "verdicts", "link_vs_read", NAN, "boolean",
			    "cannot tell: %s%s", !isfinite(rate) ?
			    "no read rate measured: " :
			    "the host link's ceiling is not known",
			    !isfinite(rate) ? why : "");
	else
		summary_add(s, "verdicts", "link_vs_read", rate >= 0.9 *
			    ceiling, "boolean", "read %.1f MB/s of the link's "
			    "%.1f MB/s ceiling: %s", rate / 1e6, ceiling / 1e6,
			    rate >= 0.9 * ceiling ? "the link limits what "
			    "the card shows" : "the link leaves room; the card "
			    "is the limit");
}

static void summarize_capacity(struct report_summary *s,
			       const struct json_value *cap, const char *why)
{
	const struct json_value *rec = saved_find_record(cap, "capacity", NULL,
						   NULL);
	const char *verdict = saved_string(rec, "verdict");

	if (!verdict) {
		summary_add(s, "verdicts", "capacity", NAN, NULL,
			    "not checked: %s", why);
		return;
	}
	summary_add(s, "verdicts", "capacity",
		    saved_number(rec, "usable_bytes"),
		    "bytes", "%s: usable %.0f of %.0f bytes; %s", verdict,
		    saved_number(rec, "usable_bytes"),
		    saved_number(rec, "announced_bytes"),
		    saved_string(rec, "certainty") ?
		    saved_string(rec, "certainty") : "");
}

/*
 * A detect finding: its value and confidence, or why it is not known:
 * detect's own reason, else why (no document to find it in).
 */
static void summarize_finding(struct report_summary *s,
			      const struct json_value *detect, const char *why,
			      const char *name, const char *key, bool size)
{
	const struct json_value *rec = saved_find_record(detect, "finding",
							 "name", name);
	double value = saved_number(rec, "value");
	double conf = saved_number(rec, "confidence");
	/* "reason" where detect gives one, else its shorter "why" */
	const char *reason = saved_string(rec, "reason") ?
			     saved_string(rec, "reason") :
			     saved_string(rec, "why");
	char text[64];
	struct summary_item *item;

	if (!isfinite(value)) {
		summary_add(s, "hides", key, NAN, size ? "bytes" : "count",
			    "not determined: %s", reason ? reason : why);
		return;
	}
	if (size)
		units_format_size(text, (uint64_t)value);
	else
		snprintf(text, sizeof(text), "%.0f", value);
	item = summary_add(s, "hides", key, value, size ? "bytes" : "count",
			   "%s (confidence %.2f)", text, conf);
	if (item)
		item->confidence = conf;
}

static void summarize_rate(struct report_summary *s, const char *key,
			   const struct json_value *doc, const char *why)
{
	double rate = saved_number(saved_find_record(doc, "summary", NULL,
						     NULL), "bytes_per_s");

	if (isfinite(rate))
		summary_add(s, "speed", key, rate, "bytes/s", "%.1f MB/s",
			    rate / 1e6);
	else
		summary_add(s, "speed", key, NAN, "bytes/s",
			    "not measured: %s", why);
}

/*
 * The write rate, and what the writes showed of a write cache: burst
 * and sustained rates, or a rate that never fell, which holds only as
 * far as the writes went.
 */
static void summarize_write(struct report_summary *s,
			    const struct json_value *doc, const char *why)
{
	const struct json_value *w = saved_find_record(doc, "sustained", NULL,
						       NULL);
	double rate = saved_number(saved_find_record(doc, "summary", NULL,
						     NULL), "bytes_per_s");
	double burst = saved_number(w, "burst_bytes_per_s");
	double after = saved_number(w, "sustained_bytes_per_s");
	double cache = saved_number(w, "cache_bytes");
	double written = saved_number(w, "written_bytes");
	char size[UNITS_BUF];

	if (!isfinite(rate) || !w || !isfinite(written)) {
		summarize_rate(s, "write", doc, why);
		return;
	}
	if (isfinite(burst) && isfinite(cache))
		summary_add(s, "speed", "write", rate, "bytes/s", "%.1f MB/s: "
			    "burst %.1f MB/s for the first %s, then %s%.1f%s",
			    rate / 1e6, burst / 1e6, units_format_size(size,
			    cache), isfinite(after) ? "" : "not settled (at most ",
			    isfinite(after) ? after / 1e6 : burst / 1e6,
			    isfinite(after) ? " MB/s sustained" : " MB/s)");
	else
		summary_add(s, "speed", "write", rate, "bytes/s", "%.1f MB/s "
			    "over the first %s, no fall seen: a larger write "
			    "cache would hide a slower sustained rate",
			    rate / 1e6, units_format_size(size, written));
}

static void summarize_iops(struct report_summary *s, const char *key,
			   const struct json_value *doc, const char *direction,
			   const char *why)
{
	double iops = saved_number(saved_find_record(doc, "iops", "direction",
					    direction), "iops");

	if (isfinite(iops))
		summary_add(s, "speed", key, iops, "count", "%.0f IOPS", iops);
	else
		summary_add(s, "speed", key, NAN, "count", "not measured: %s",
			    why);
}

/* word after what buf holds, a space between */
static void append_word(char *buf, size_t size, const char *word)
{
	size_t used = strlen(buf);

	snprintf(buf + used, size - used, "%s%s", used ? " " : "", word);
}

/* A class check's classes by result, and those the card claims. */
struct class_lists {
	char passed[160], as_far[160], failed[160], unjudged[160];
	char claimed[160], claimed_failed[160], claimed_unjudged[160];
	bool claimed_as_far;
	double written_bytes;	/* the writes passes as far as measured
				   stand on */
};

static void sort_class(struct class_lists *l, const struct json_value *rec,
		       const char *name)
{
	const char *result = saved_string(rec, "result");
	bool pass = saved_number(rec, "pass") == 1;
	bool fail = saved_number(rec, "pass") == 0;
	/* passed on a write rate that never fell: not a plain pass */
	bool as_far = !pass && result &&
		      strcmp(result, "pass as far as measured") == 0;
	bool claimed = saved_number(rec, "claimed") == 1;

	append_word(pass ? l->passed : as_far ? l->as_far : fail ? l->failed :
		    l->unjudged, sizeof(l->passed), name);
	if (as_far)
		l->written_bytes = saved_number(json_get(rec, "measured"),
						"written_bytes");
	if (!claimed)
		return;
	append_word(l->claimed, sizeof(l->claimed), name);
	if (fail)
		append_word(l->claimed_failed, sizeof(l->claimed_failed), name);
	else if (!pass && !as_far)
		append_word(l->claimed_unjudged, sizeof(l->claimed_unjudged),
			    name);
	l->claimed_as_far = l->claimed_as_far || as_far;
}

/* "as far as measured: no fall in the first 244MiB written" */
static const char *as_far_words(const struct class_lists *l, char *buf,
				size_t size)
{
	char bytes[UNITS_BUF];

	snprintf(buf, size, "no fall in the first %s written: a larger "
		 "write cache would hide a slower sustained rate",
		 isfinite(l->written_bytes) ? units_format_size(bytes,
		 l->written_bytes) : "bytes");
	return buf;
}

/* Do the claims hold: by FAILs only, a pass as far as measured says so */
static void summarize_claims(struct report_summary *s,
			     const struct class_lists *l)
{
	char why[SUMMARY_TEXT_BYTES];

	if (!l->claimed[0])
		summary_add(s, "verdicts", "against_claim", NAN, NULL,
			    "cannot tell: the card claims no class it can be "
			    "held to (none read from it)");
	else if (l->claimed_failed[0])
		summary_add(s, "verdicts", "against_claim", NAN, NULL,
			    "falls short: claims %s, fails %s", l->claimed,
			    l->claimed_failed);
	else if (l->claimed_unjudged[0])
		summary_add(s, "verdicts", "against_claim", NAN, NULL,
			    "cannot tell: claims %s, not judged %s",
			    l->claimed, l->claimed_unjudged);
	else if (l->claimed_as_far)
		summary_add(s, "verdicts", "against_claim", NAN, NULL,
			    "as claimed as far as measured: claims %s, meets "
			    "them (%s)", l->claimed,
			    as_far_words(l, why, sizeof(why)));
	else
		summary_add(s, "verdicts", "against_claim", NAN, NULL,
			    "as claimed: claims %s, meets them", l->claimed);
}

static void summarize_classes(struct report_summary *s,
			      const struct json_value *classes, const char *why)
{
	const struct json_value *results = json_get(classes, "results");
	struct class_lists l = { .written_bytes = NAN };
	char words[160], far[SUMMARY_TEXT_BYTES] = "";

	if (!results) {
		summary_add(s, "speed", "classes", NAN, NULL,
			    "not checked: %s", why);
		return;
	}
	for (size_t i = 0; i < results->count; i++) {
		const struct json_value *rec = &results->items[i];
		const char *kind = saved_string(rec, "kind");
		const char *name = saved_string(rec, "class");

		if (kind && strcmp(kind, "class") == 0 && name)
			sort_class(&l, rec, name);
	}
	summarize_claims(s, &l);
	if (l.as_far[0])
		snprintf(far, sizeof(far), "passes as far as measured %s "
			 "(%s); ", l.as_far, as_far_words(&l, words,
							  sizeof(words)));
	summary_add(s, "speed", "classes", NAN, NULL, "%s%s%s%sfails %s%s%s",
		    l.passed[0] || !l.as_far[0] ? "passes " : "",
		    l.passed[0] ? l.passed : l.as_far[0] ? "" : "none",
		    l.passed[0] || !l.as_far[0] ? "; " : "", far,
		    l.failed[0] ? l.failed : "none",
		    l.unjudged[0] ? "; not judged " : "", l.unjudged);
}

static void summarize_advice(struct report_summary *s,
			     const struct json_value *detect,
			     const struct json_value *cap, const char *why)
{
	const struct json_value *results = json_get(detect, "results");
	const struct json_value *fixes = json_get(cap, "results");
	static const char *const keys[] = { "advice_1", "advice_2",
		"advice_3", "advice_4", "advice_5", "advice_6" };
	size_t n = 0;

	for (size_t i = 0; fixes && i < fixes->count && n < 6; i++) {
		const char *kind = saved_string(&fixes->items[i], "kind");
		const char *cmd = saved_string(&fixes->items[i], "command");

		if (kind && strcmp(kind, "capacity-fix") == 0 && cmd)
			summary_add(s, "advice", keys[n++], NAN, NULL,
				    "fake card: %s", cmd);
	}
	for (size_t i = 0; results && i < results->count && n < 6; i++) {
		const char *kind = saved_string(&results->items[i], "kind");
		const char *text = saved_string(&results->items[i], "text");

		if (kind && strcmp(kind, "recommendation") == 0 && text)
			summary_add(s, "advice", keys[n++], NAN, NULL, "%s",
				    text);
	}
	if (!n)
		summary_add(s, "advice", keys[0], NAN, NULL, "none: %s",
			    detect ? "the geometry was not found" : why);
}

/* The summary's figures, each with why it is missing where it is. */
static void summarize_speed(const struct mode_report_parts *r,
			    struct report_summary *s)
{
	static const struct { const char *key, *part, *direction; } iops[] = {
		{ "read_iops_qd1", "iops", "read" },
		{ "read_iops_qd32", "iops-qd32", "read" },
		{ "write_iops_qd1", "iops", "write" },
		{ "write_iops_qd32", "iops-qd32", "write" },
	};
	char why[SUMMARY_TEXT_BYTES];

	why_not(r, "read-speed", why, sizeof(why));
	summarize_rate(s, "read", part_doc(r, "read-speed"), why);
	why_not(r, "write-speed", why, sizeof(why));
	summarize_write(s, part_doc(r, "write-speed"), why);
	for (size_t i = 0; i < sizeof(iops) / sizeof(iops[0]); i++) {
		/* a read-only report's iops parts measure no writes */
		if (!r->write && strcmp(iops[i].direction, "write") == 0)
			snprintf(why, sizeof(why), "needs --write");
		else
			why_not(r, iops[i].part, why, sizeof(why));
		summarize_iops(s, iops[i].key, part_doc(r, iops[i].part),
			       iops[i].direction, why);
	}
	why_not(r, "class-check", why, sizeof(why));
	summarize_classes(s, part_doc(r, "class-check"), why);
}

/*
 * The geometry from --detect --write, else from --detect (which runs
 * instead where the writing form does not apply); the open erase blocks
 * only from the writing form when --write was given.
 */
static void summarize_geometry(const struct mode_report_parts *r,
			       struct report_summary *s)
{
	const char *name = planned(r, "detect") ? "detect" : "detect-write";
	const struct json_value *detect = part_doc(r, "detect-write") ?
					  part_doc(r, "detect-write") :
					  part_doc(r, "detect");
	const struct json_value *open = r->write ?
					part_doc(r, "detect-write") : detect;
	char why[SUMMARY_TEXT_BYTES], open_why[SUMMARY_TEXT_BYTES];

	why_not(r, name, why, sizeof(why));
	why_not(r, r->write ? "detect-write" : name, open_why,
		sizeof(open_why));
	summarize_finding(s, detect, why, "erase_size", "erase_block", true);
	summarize_finding(s, detect, why, "page_size", "page", true);
	summarize_finding(s, open, open_why, "open_au_linear",
			  "open_erase_blocks", false);
}

void mode_report_summarize(const struct mode_report_parts *r,
			   struct report_summary *s)
{
	const struct json_value *detect = part_doc(r, "detect-write") ?
					  part_doc(r, "detect-write") :
					  part_doc(r, "detect");
	char why[SUMMARY_TEXT_BYTES];

	why_not(r, "info", why, sizeof(why));
	summarize_card(s, part_doc(r, "info"), why);
	why_not(r, "read-speed", why, sizeof(why));
	summarize_link_rate(s, part_doc(r, "info"), part_doc(r, "read-speed"),
			    why);
	why_not(r, "capacity-check", why, sizeof(why));
	summarize_capacity(s, part_doc(r, "capacity-check"), why);
	summarize_geometry(r, s);
	summarize_speed(r, s);
	why_not(r, planned(r, "detect") ? "detect" : "detect-write", why,
		sizeof(why));
	summarize_advice(s, detect, part_doc(r, "capacity-check"), why);
}
