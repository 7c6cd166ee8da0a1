/*
 * The simulated card's spec, "sim:[PRESET][,KEY=VALUE | ,ro]...": its
 * key table, its parser and the checks of what no one key can check
 * alone.  A bad spec is a usage error with a message that names the key
 * and what it takes.  It only fills parameters; the model runs them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev.h"
#include "engines/sim/card.h"
#include "engines/sim/presets.h"
#include "engines/sim/spec.h"
#include "lib/units.h"

#define SIM_MAX_PACE_NS	1000000000ULL	/* pace= slows tests, not hangs them */

enum sim_kind {
	SIM_SIZE,	/* units_parse_size, a positive multiple of 512 */
	SIM_TIME,	/* units_parse_duration */
	SIM_RATE,	/* units_parse_rate, positive */
	SIM_COUNT,	/* units_parse_count in [min, max] */
	SIM_FRACTION,	/* units_parse_fraction, at most max_fraction */
	SIM_RANGE,	/* OFFSET+LEN, appended to the bad list */
	SIM_SLOW,	/* OFFSET+LEN:RATE, appended to the slow list */
	SIM_CROSS,	/* SIZE:COST/SIZE:COST/..., the read staircase */
	SIM_FLAG,	/* no value */
	SIM_WEAR,	/* CYCLES[:SPREAD] */
	SIM_WEAR_EOL,	/* read-only or dead */
	SIM_FAKE_MODE,	/* wrap, drop, zero or error */
	SIM_CAPACITY,	/* units_parse_size, a multiple of 512; 0 is none */
	SIM_FLUSH,	/* honest, ignore or late:MS */
	SIM_SLC,	/* SIZE[:RATE], the SLC write cache; 0 none */
};

struct sim_key {
	const char *name;
	enum sim_kind kind;
	size_t field;		/* offsetof(struct sim_params, ...) */
	uint64_t min, max;	/* SIM_COUNT */
	double max_fraction;	/* SIM_FRACTION */
};

#define FIELD(f) offsetof(struct sim_params, f)
#define KEY(n, k, f) { .name = n, .kind = k, .field = FIELD(f) }
#define COUNT(n, f, lo, hi) \
	{ .name = n, .kind = SIM_COUNT, .field = FIELD(f), \
	  .min = lo, .max = hi }
#define FRACTION(n, f, hi) \
	{ .name = n, .kind = SIM_FRACTION, .field = FIELD(f), \
	  .max_fraction = hi }

static const struct sim_key keys[] = {
	KEY("size", SIM_SIZE, size_bytes),
	KEY("erase", SIM_SIZE, erase_bytes),
	KEY("page", SIM_SIZE, page_bytes),
	KEY("prog", SIM_SIZE, prog_bytes),
	KEY("read-lat", SIM_TIME, read_lat_ns),
	KEY("read-rate", SIM_RATE, read_rate),
	KEY("page-cross", SIM_TIME, page_cross_ns),
	KEY("au-cross", SIM_TIME, au_cross_ns),
	KEY("write-lat", SIM_TIME, write_lat_ns),
	KEY("write-rate", SIM_RATE, write_rate),
	KEY("gc", SIM_TIME, gc_ns),
	COUNT("open", open, 1, SIM_MAX_OPEN),
	COUNT("open-random", open_random, 0, SIM_MAX_OPEN),
	COUNT("fat", fat, 0, UINT32_MAX),
	COUNT("spill", spill, 0, SIM_MAX_OPEN),
	KEY("spill-rate", SIM_RATE, spill_rate),
	KEY("spill-buffer", SIM_SIZE, spill_buffer_bytes),
	KEY("copy-rate", SIM_RATE, copy_rate),
	KEY("cache", SIM_SIZE, cache_bytes),
	KEY("cache-lat", SIM_TIME, cache_lat_ns),
	COUNT("cache-blocks", cache_blocks, 0, SIM_MAX_OPEN),
	KEY("buffer", SIM_SIZE, buffer_bytes),
	KEY("granule", SIM_SIZE, granule_bytes),
	KEY("switch-lat", SIM_TIME, switch_ns),
	KEY("reader-cache", SIM_SIZE, reader_cache_bytes),
	KEY("reader-lat", SIM_TIME, reader_lat_ns),
	KEY("reader-rate", SIM_RATE, reader_rate),
	FRACTION("noise", noise, 0.5),
	FRACTION("spikes", spikes, 1.0),
	FRACTION("jitter", jitter, 1.0),
	FRACTION("drift", drift, 0.5),
	COUNT("drift-reads", drift_reads, 1, 1000000000),
	COUNT("seed", seed, 0, UINT64_MAX),
	KEY("pace", SIM_TIME, pace_ns),
	COUNT("queue", queue, 1, DEV_MAX_DEPTH),
	{ .name = "cross", .kind = SIM_CROSS },
	{ .name = "bad", .kind = SIM_RANGE },
	{ .name = "slow", .kind = SIM_SLOW },
	{ .name = "ro", .kind = SIM_FLAG },
	KEY("fake", SIM_SIZE, fake_bytes),
	{ .name = "fake-mode", .kind = SIM_FAKE_MODE },
	KEY("fake-cache", SIM_SIZE, fake_cache_bytes),
	{ .name = "wear", .kind = SIM_WEAR },
	{ .name = "wear-eol", .kind = SIM_WEAR_EOL },
	COUNT("spare", spare_blocks, 0, SIM_MAX_WEAR_BLOCKS),
	KEY("volatile", SIM_CAPACITY, volatile_bytes),
	{ .name = "flush", .kind = SIM_FLUSH },
	FRACTION("cut-damage", cut_damage, 1.0),
	FRACTION("cut-shorn", cut_shorn, 1.0),
	COUNT("cut-map", cut_map, 0, SIM_MAX_CUT_MAP),
	FRACTION("cut-dead", cut_dead, 1.0),
	{ .name = "slc", .kind = SIM_SLC },
	KEY("slc-fold", SIM_RATE, slc_fold_rate),
	COUNT("cache-any", cache_any, 0, 1),
};

#define NKEYS (sizeof(keys) / sizeof(keys[0]))

static int usage(char *msg, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int usage(char *msg, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, size, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Name i of the presets or of the keys; NULL past the last. */
static const char *nth_name(bool of_presets, size_t i)
{
	const struct sim_preset *preset;

	if (!of_presets)
		return i < NKEYS ? keys[i].name : NULL;
	preset = sim_preset_at(i);
	return preset ? preset->name : NULL;
}

/*
 * "a, b, c" of the preset names, or of the key names that start with
 * letter (all of them for 0).  A name that does not fit whole ends the
 * list with "...": the message it goes in has a fixed size.
 */
static const char *name_list(char *buf, size_t size, bool of_presets,
			     char letter)
{
	const char *name;
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; (name = nth_name(of_presets, i)); i++) {
		const char *sep = used ? ", " : "";
		size_t need = strlen(sep) + strlen(name) + sizeof(", ...");

		if (letter && name[0] != letter)
			continue;
		if (used + need > size) {
			snprintf(buf + used, size - used, "%s...", sep);
			break;
		}
		used += (size_t)snprintf(buf + used, size - used, "%s%s", sep,
					 name);
	}
	return buf;
}

static const struct sim_key *find_key(const char *name)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

static int unknown_key(const char *name, char *msg, size_t size)
{
	char list[160];

	/* the keys of its first letter, the likely misspelt ones */
	if (*name_list(list, sizeof(list), false, name[0]))
		return usage(msg, size, "sim: unknown key '%s' (keys with "
			     "'%c': %s; all in doc/simulator.md)", name,
			     name[0], list);
	return usage(msg, size, "sim: unknown key '%s' (keys: %s)", name,
		     name_list(list, sizeof(list), false, 0));
}

/* OFFSET+LEN (the first len bytes of text), both sizes; LEN positive. */
static int parse_offset_length(const char *text, size_t len,
			       struct sim_range *r)
{
	char offset[64], length[64];
	const char *plus = memchr(text, '+', len);
	size_t before = plus ? (size_t)(plus - text) : 0;

	if (!plus || before >= sizeof(offset) ||
	    len - before - 1 >= sizeof(length))
		return -EINVAL;
	memcpy(offset, text, before);
	offset[before] = '\0';
	memcpy(length, plus + 1, len - before - 1);
	length[len - before - 1] = '\0';
	if (units_parse_size(offset, &r->offset) ||
	    units_parse_size(length, &r->length) ||
	    r->length == 0 || r->offset + r->length < r->offset)
		return -EINVAL;
	return 0;
}

/* bad=OFFSET+LEN */
static int parse_range(const char *text, struct sim_params *p)
{
	struct sim_range r;

	if (parse_offset_length(text, strlen(text), &r))
		return -EINVAL;
	if (p->nbad == SIM_MAX_BAD)
		return -ENOSPC;
	p->bad[p->nbad++] = r;
	return 0;
}

/* slow=OFFSET+LEN:RATE */
static int parse_slow(const char *text, struct sim_params *p)
{
	const char *colon = strchr(text, ':');
	struct sim_slow slow;

	if (!colon ||
	    parse_offset_length(text, (size_t)(colon - text), &slow.range) ||
	    units_parse_rate(colon + 1, &slow.rate) || !slow.rate)
		return -EINVAL;
	if (p->nslow == SIM_MAX_SLOW)
		return -ENOSPC;
	p->slow[p->nslow++] = slow;
	return 0;
}

/* SIZE:COST[/SIZE:COST]...: replaces the levels the preset had. */
static int parse_cross(const char *text, struct sim_params *p)
{
	char level[96];
	unsigned int n = 0;

	while (*text) {
		const char *slash = strchr(text, '/');
		size_t len = slash ? (size_t)(slash - text) : strlen(text);
		char *colon;
		struct sim_cross c;

		if (len == 0 || len >= sizeof(level))
			return -EINVAL;
		if (n == SIM_MAX_CROSS)
			return -ENOSPC;
		memcpy(level, text, len);
		level[len] = '\0';
		colon = strchr(level, ':');
		if (!colon)
			return -EINVAL;
		*colon = '\0';
		if (units_parse_size(level, &c.size_bytes) ||
		    c.size_bytes == 0 || c.size_bytes % SIM_SECTOR ||
		    units_parse_duration(colon + 1, &c.cost_ns))
			return -EINVAL;
		p->cross[n++] = c;
		text += len;
		if (slash && !*++text)
			return -EINVAL;	/* a trailing '/' */
	}
	if (n == 0)
		return -EINVAL;
	p->ncross = n;
	return 0;
}

static int parse_number(const struct sim_key *key, const char *text,
			void *field)
{
	uint64_t *u = field;
	double *d = field;

	switch (key->kind) {
	case SIM_SIZE:
		if (units_parse_size(text, u))
			return -EINVAL;
		return *u && *u % SIM_SECTOR == 0 ? 0 : -EINVAL;
	case SIM_CAPACITY:
		if (units_parse_size(text, u))
			return -EINVAL;
		return *u % SIM_SECTOR == 0 ? 0 : -EINVAL;
	case SIM_TIME:
		return units_parse_duration(text, u) ? -EINVAL : 0;
	case SIM_RATE:
		if (units_parse_rate(text, u))
			return -EINVAL;
		return *u ? 0 : -EINVAL;
	case SIM_COUNT:
		return units_parse_count(text, key->min, key->max, u) ?
		       -EINVAL : 0;
	case SIM_FRACTION:
		if (units_parse_fraction(text, d))
			return -EINVAL;
		return *d <= key->max_fraction ? 0 : -EINVAL;
	default:
		return -EINVAL;
	}
}

/* fake-mode=wrap|drop|zero|error */
static int parse_fake_mode(const char *text, struct sim_params *p)
{
	static const char *const names[] = {
		[SIM_FAKE_WRAP] = "wrap", [SIM_FAKE_DROP] = "drop",
		[SIM_FAKE_ZERO] = "zero", [SIM_FAKE_ERROR] = "error",
	};

	for (int i = SIM_FAKE_WRAP; i <= SIM_FAKE_ERROR; i++)
		if (strcmp(text, names[i]) == 0) {
			p->fake_mode = (enum sim_fake_mode)i;
			return 0;
		}
	return -EINVAL;
}

/*
 * flush=honest|ignore|late:MS.  MS is milliseconds, as the name says;
 * a unit (late:1s, late:200us) is taken as written.
 */
static int parse_flush(const char *text, struct sim_params *p)
{
	const char *late = text + strlen("late:");
	uint64_t ms;

	if (strcmp(text, "honest") == 0 || strcmp(text, "ignore") == 0) {
		p->flush = text[0] == 'h' ? SIM_FLUSH_HONEST :
					    SIM_FLUSH_IGNORE;
		return 0;
	}
	if (strncmp(text, "late:", strlen("late:")) != 0)
		return -EINVAL;
	p->flush = SIM_FLUSH_LATE;
	if (late[strspn(late, "0123456789")] == '\0' &&
	    !units_parse_count(late, 0, UINT64_MAX / 1000000, &ms)) {
		p->flush_late_ns = ms * 1000000;
		return 0;
	}
	return units_parse_duration(late, &p->flush_late_ns) ? -EINVAL : 0;
}

/*
 * wear=CYCLES[:SPREAD]: CYCLES from 1 to SIM_MAX_WEAR_CYCLES, SPREAD a
 * fraction from 0 to 1 (SIM_WEAR_SPREAD when not given).
 */
static int parse_wear(const char *text, struct sim_params *p)
{
	const char *colon = strchr(text, ':');
	char cycles[32];
	size_t len = colon ? (size_t)(colon - text) : strlen(text);

	if (len >= sizeof(cycles))
		return -EINVAL;
	memcpy(cycles, text, len);
	cycles[len] = '\0';
	if (units_parse_count(cycles, 1, SIM_MAX_WEAR_CYCLES,
			      &p->wear_cycles))
		return -EINVAL;
	p->wear_spread = SIM_WEAR_SPREAD;
	if (colon && (units_parse_fraction(colon + 1, &p->wear_spread) ||
		      p->wear_spread > 1.0))
		return -EINVAL;
	return 0;
}

/* wear-eol=read-only|dead */
static int parse_wear_eol(const char *text, struct sim_params *p)
{
	if (strcmp(text, "read-only") == 0)
		p->wear_eol = SIM_EOL_READ_ONLY;
	else if (strcmp(text, "dead") == 0)
		p->wear_eol = SIM_EOL_DEAD;
	else
		return -EINVAL;
	return 0;
}

/* What the power-fault and wear keys take, for their error: the rest
   say it in doc/simulator.md. */
static const char *value_hint(const struct sim_key *key)
{
	if (key->kind == SIM_WEAR)
		return " (CYCLES[:SPREAD], CYCLES 1 to 100000000, SPREAD 0 "
		       "to 1: 3000:0.2)";
	if (key->kind == SIM_WEAR_EOL)
		return " (read-only or dead)";
	if (key->field == FIELD(spare_blocks) && key->kind == SIM_COUNT)
		return " (a count of erase blocks, 0 to 4194304)";
	if (key->kind == SIM_FLUSH)
		return " (honest, ignore or late:MS)";
	if (key->kind == SIM_CAPACITY)
		return " (a size, a multiple of 512: 0, 64K, 1M)";
	if (strncmp(key->name, "cut-map", 7) == 0)
		return " (a count of writes, 0 to 256)";
	if (strncmp(key->name, "cut-", 4) == 0)
		return " (a probability from 0 to 1)";
	return "";
}

/*
 * slc=SIZE[:RATE]: SIZE a multiple of 512, 0 for no cache (a preset's
 * taken away); RATE positive, or the default when not given.
 */
static int parse_slc(const char *text, struct sim_params *p)
{
	char size[64];
	const char *colon = strchr(text, ':');
	size_t len = colon ? (size_t)(colon - text) : strlen(text);
	uint64_t rate = 0;

	if (len >= sizeof(size))
		return -EINVAL;
	memcpy(size, text, len);
	size[len] = '\0';
	if (units_parse_size(size, &p->slc_bytes) ||
	    p->slc_bytes % SIM_SECTOR)
		return -EINVAL;
	if (colon && (units_parse_rate(colon + 1, &rate) || !rate))
		return -EINVAL;
	p->slc_rate = rate;
	return 0;
}

static int set_value(const struct sim_key *key, const char *text,
		     struct sim_params *p, char *msg, size_t size)
{
	int err;

	if (key->kind == SIM_FLAG)
		return usage(msg, size, "sim: key '%s' takes no value",
			     key->name);
	if (key->kind == SIM_RANGE)
		err = parse_range(text, p);
	else if (key->kind == SIM_SLOW)
		err = parse_slow(text, p);
	else if (key->kind == SIM_FAKE_MODE)
		err = parse_fake_mode(text, p);
	else if (key->kind == SIM_WEAR)
		err = parse_wear(text, p);
	else if (key->kind == SIM_WEAR_EOL)
		err = parse_wear_eol(text, p);
	else if (key->kind == SIM_CROSS)
		err = parse_cross(text, p);
	else if (key->kind == SIM_FLUSH)
		err = parse_flush(text, p);
	else if (key->kind == SIM_SLC)
		err = parse_slc(text, p);
	else
		err = parse_number(key, text, (char *)p + key->field);
	if (err == -ENOSPC && key->kind == SIM_CROSS)
		return usage(msg, size, "sim: too many cross levels (at most "
			     "%d)", SIM_MAX_CROSS);
	if (err == -ENOSPC)
		return usage(msg, size, "sim: too many %s ranges (at most %d)",
			     key->name, key->kind == SIM_SLOW ? SIM_MAX_SLOW :
							       SIM_MAX_BAD);
	if (err)
		return usage(msg, size, "sim: bad value for %s: '%s'%s",
			     key->name, text, value_hint(key));
	return 0;
}

/* An item without '=': a flag, or a preset name in first place. */
static int parse_word(const char *word, bool first, struct sim_params *p,
		      char *msg, size_t size)
{
	const struct sim_key *key = find_key(word);
	const struct sim_preset *preset = sim_preset_find(word);

	if (!*word)
		return usage(msg, size, "sim: empty item in the spec");
	if (key && key->kind == SIM_FLAG) {
		p->ro = true;
		return 0;
	}
	if (key)
		return usage(msg, size, "sim: key '%s' needs a value (%s=...)",
			     word, word);
	if (preset && first) {
		*p = preset->params;
		return 0;
	}
	if (preset)
		return usage(msg, size, "sim: preset '%s' must come first",
			     word);
	if (first) {
		char list[200];

		return usage(msg, size, "sim: unknown preset '%s' "
			     "(presets: %s)", word,
			     name_list(list, sizeof(list), true, 0));
	}
	return unknown_key(word, msg, size);
}

/*
 * Which keys a spec gave, by their index in keys[] (a bit each), and so
 * which ways of setting the read staircase it used.
 */
struct spec_seen {
	uint64_t keys;
	bool cross;		/* cross= */
	bool shorthand;		/* page-cross= or au-cross= */
};

_Static_assert(NKEYS <= 64, "spec_seen has a bit for each key");

static bool given(const struct spec_seen *seen, const char *name)
{
	return seen->keys >> (find_key(name) - keys) & 1;
}

static int parse_item(char *item, bool first, struct sim_params *p,
		      struct spec_seen *seen, char *msg, size_t size)
{
	char *eq = strchr(item, '=');
	const struct sim_key *key;

	if (!eq)
		return parse_word(item, first, p, msg, size);
	*eq = '\0';
	key = find_key(item);
	if (!key)
		return unknown_key(item, msg, size);
	seen->keys |= 1ULL << (key - keys);
	if (key->field == FIELD(volatile_bytes) || key->kind == SIM_FLUSH ||
	    strncmp(key->name, "cut-", 4) == 0)
		p->power_keys = true;
	if (key->kind == SIM_CROSS)
		seen->cross = true;
	else if (key->field == FIELD(page_cross_ns) ||
		 key->field == FIELD(au_cross_ns))
		seen->shorthand = true;
	if (seen->cross && seen->shorthand)
		return usage(msg, size, "sim: cross= and page-cross=/au-cross= "
			     "both set the read staircase; give one");
	return set_value(key, eq + 1, p, msg, size);
}

static int check_divides(const char *key, uint64_t unit, uint64_t erase,
			 char *msg, size_t size)
{
	char a[UNITS_BUF], b[UNITS_BUF];

	if (erase % unit == 0)
		return 0;
	return usage(msg, size, "sim: %s %s does not divide erase %s", key,
		     units_format_exact_size(a, unit),
		     units_format_exact_size(b, erase));
}

static int check_fake(const struct sim_params *p, char *msg, size_t size)
{
	if (p->fake_cache_bytes > SIM_MAX_FAKE_CACHE)
		return usage(msg, size, "sim: fake-cache is at most 256MiB");
	if (p->fake_bytes > p->size_bytes)
		return usage(msg, size, "sim: fake %llu is more than the "
			     "announced size %llu",
			     (unsigned long long)p->fake_bytes,
			     (unsigned long long)p->size_bytes);
	return 0;
}

/*
 * The power-fault keys: the volatile cache is allocated when the card
 * opens (a card's RAM, not more), and a flush= other than honest needs
 * a cache to lie about.
 */
static int check_power(const struct sim_params *p, char *msg, size_t size)
{
	if (p->volatile_bytes > SIM_MAX_VOLATILE)
		return usage(msg, size, "sim: volatile is at most 256MiB");
	if (p->flush != SIM_FLUSH_HONEST && !p->volatile_bytes)
		return usage(msg, size, "sim: flush=%s needs volatile=SIZE, "
			     "a write cache to flush",
			     p->flush == SIM_FLUSH_IGNORE ? "ignore" : "late");
	if (p->cut_map == 1)
		return usage(msg, size, "sim: cut-map=1 forgets nothing (the "
			     "newest write always survives); give 2 or more");
	return 0;
}

/* A range of key name (bad, slow) that ends past the card is refused. */
static int check_range(const struct sim_params *p, const char *name,
		       const struct sim_range *r, char *msg, size_t size)
{
	if (r->offset + r->length <= p->size_bytes)
		return 0;
	return usage(msg, size, "sim: %s range %llu+%llu ends past the "
		     "card's %llu bytes", name, (unsigned long long)r->offset,
		     (unsigned long long)r->length,
		     (unsigned long long)p->size_bytes);
}

/* bad= and slow= ranges lie on the card; slow ones do not overlap. */
static int check_ranges(const struct sim_params *p, char *msg, size_t size)
{
	int err = 0;

	for (unsigned int i = 0; !err && i < p->nbad; i++)
		err = check_range(p, "bad", &p->bad[i], msg, size);
	for (unsigned int i = 0; !err && i < p->nslow; i++) {
		err = check_range(p, "slow", &p->slow[i].range, msg, size);
		for (unsigned int j = 0; !err && j < i; j++)
			if (sim_ranges_overlap(&p->slow[i].range,
					       &p->slow[j].range))
				err = usage(msg, size, "sim: slow ranges "
					    "%u and %u overlap; give each "
					    "byte one rate", j + 1, i + 1);
	}
	return err;
}

/*
 * A preset's FAT area and open erase blocks shrink to what a small card
 * has (sim:size=1M is one erase block); keys the spec gave stay as they
 * are, for check_params to refuse when they cannot fit.
 */
static void fit_defaults(struct sim_params *p, const struct spec_seen *seen)
{
	uint64_t blocks = sim_block_count(p);

	if (!given(seen, "fat") && p->fat > blocks)
		p->fat = blocks;
	if (!given(seen, "open") && p->open > blocks)
		p->open = blocks;
	if (!given(seen, "open-random") && p->open_random > p->open)
		p->open_random = p->open;
	if (!given(seen, "spare") && sim_wears(p))
		p->spare_blocks = sim_real_block_count(p) *
				  SIM_SPARE_PERCENT / 100;
}

/*
 * wear-eol= and spare= say what a card that wears does; without wear=
 * they say nothing, and are refused.  Its counters are a few bytes per
 * erase block: a card of more blocks than SIM_MAX_WEAR_BLOCKS is refused
 * rather than allocated.
 */
static int check_wear(const struct sim_params *p,
		      const struct spec_seen *seen, char *msg, size_t size)
{
	const char *alone = given(seen, "wear-eol") ? "wear-eol" :
			    given(seen, "spare") ? "spare" : NULL;

	if (!sim_wears(p) && alone)
		return usage(msg, size, "sim: %s= needs wear=CYCLES, blocks "
			     "that wear", alone);
	if (sim_wears(p) && sim_real_block_count(p) > SIM_MAX_WEAR_BLOCKS)
		return usage(msg, size, "sim: wear= counts at most %llu erase "
			     "blocks, this card has %llu; give a larger "
			     "erase=", (unsigned long long)SIM_MAX_WEAR_BLOCKS,
			     (unsigned long long)sim_real_block_count(p));
	return 0;
}

/*
 * The SLC cache lies on the card, and slc-fold= needs one: given without
 * it, the key would silently do nothing.
 */
static int check_slc(const struct sim_params *p, const struct spec_seen *seen,
		     char *msg, size_t size)
{
	char a[UNITS_BUF], b[UNITS_BUF];

	if (p->slc_bytes > p->size_bytes)
		return usage(msg, size, "sim: slc %s is more than the card's "
			     "size %s", units_format_exact_size(a, p->slc_bytes),
			     units_format_exact_size(b, p->size_bytes));
	if (given(seen, "slc-fold") && !p->slc_bytes)
		return usage(msg, size, "sim: slc-fold needs an SLC cache "
			     "(slc=SIZE)");
	return 0;
}

/* Geometry that no single key can check alone. */
static int check_params(const struct sim_params *p, char *msg, size_t size)
{
	int err;

	err = check_divides("page", p->page_bytes, p->erase_bytes, msg, size);
	if (!err)
		err = check_divides("prog", p->prog_bytes, p->erase_bytes,
				    msg, size);
	if (err)
		return err;
	if (p->open_random > p->open)
		return usage(msg, size, "sim: open-random %llu exceeds open "
			     "%llu", (unsigned long long)p->open_random,
			     (unsigned long long)p->open);
	if (p->fat > sim_block_count(p))
		return usage(msg, size, "sim: fat %llu exceeds the card's "
			     "%llu erase blocks", (unsigned long long)p->fat,
			     (unsigned long long)sim_block_count(p));
	if (p->pace_ns > SIM_MAX_PACE_NS)
		return usage(msg, size, "sim: pace is at most 1s per "
			     "operation");
	err = check_fake(p, msg, size);
	if (!err)
		err = check_power(p, msg, size);
	return err ? err : check_ranges(p, msg, size);
}

/*
 * [PRESET][,KEY=VALUE | ,ro]...; empty means the first preset, and a spec
 * that starts with a key or ro builds on "plain".
 */
int sim_spec_parse(const char *spec, struct sim_params *p, char *msg,
		   size_t size)
{
	char *copy, *rest, *item;
	struct spec_seen seen = { 0, false, false };
	bool first = true;
	int err = 0;

	*p = sim_preset_at(0)->params;
	if (!*spec)
		return 0;
	*p = sim_preset_find("plain")->params;
	copy = strdup(spec);
	if (!copy)
		return -ENOMEM;
	rest = copy;
	while (!err && (item = strsep(&rest, ","))) {
		err = parse_item(item, first, p, &seen, msg, size);
		first = false;
	}
	free(copy);
	if (!err)
		err = check_wear(p, &seen, msg, size);
	/* the shorthand on a preset with levels replaces those levels */
	if (!err && seen.shorthand)
		p->ncross = 0;
	if (!err)
		fit_defaults(p, &seen);
	if (!err)
		err = check_params(p, msg, size);
	return err ? err : check_slc(p, &seen, msg, size);
}
