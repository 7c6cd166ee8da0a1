/*
 * powercutlog: the power-cut test's log, written and read back.  Every
 * line is "EVENT key=value ... sum=XXXXXXXX", the sum a 32-bit fold of
 * FNV-1a over the bytes before " sum=".  doc/power-cut.md tells each
 * line.  Writing goes through stdio: a write line is only formatted
 * into the buffer, every other line pushes the buffer out and syncs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/readfile.h"
#include "lib/stampblock.h"
#include "measure/powercutcheck.h"
#include "measure/powercutlog.h"

/* stdio's buffer: a cycle's write lines between two flushes fit */
#define LOG_BUFFER_BYTES (64 * 1024)

struct powercut_log {
	FILE *f;
	bool sync;		/* a file: fsync after each pushed line */
	char line[POWERCUT_LOG_LINE_BYTES];
	char buffer[LOG_BUFFER_BYTES];
};

/* The errnos a cut shows as, by name in the log; others by number. */
static const struct {
	int errnum;
	const char *name;
} errno_names[] = {
	{ EIO, "EIO" }, { ENODEV, "ENODEV" }, { ENOMEDIUM, "ENOMEDIUM" },
	{ ENXIO, "ENXIO" }, { ENOENT, "ENOENT" }, { EROFS, "EROFS" },
	{ ETIMEDOUT, "ETIMEDOUT" }, { ESHUTDOWN, "ESHUTDOWN" },
};

static uint32_t line_sum(const char *text, size_t length)
{
	uint64_t h = stampblock_hash(STAMPBLOCK_FNV_BASIS, text, length);

	return (uint32_t)(h ^ (h >> 32));
}

static int push(struct powercut_log *log)
{
	if (fflush(log->f) != 0)
		return -errno;
	/* a pipe or a terminal cannot be synced, and need not be */
	if (log->sync && fsync(fileno(log->f)) != 0 && errno != EINVAL &&
	    errno != EROFS)
		return -errno;
	return 0;
}

/* One line, its sum appended; pushed out and synced when sync says. */
__attribute__((format(printf, 3, 4)))
static int emit(struct powercut_log *log, bool sync, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(log->line, sizeof(log->line), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(log->line) - 16)
		return -EOVERFLOW;
	if (fprintf(log->f, "%s sum=%08" PRIx32 "\n", log->line,
		    line_sum(log->line, (size_t)n)) < 0)
		return -(errno ? errno : EIO);
	return sync ? push(log) : 0;
}

/* The identity with every space, control byte and '%' as %XX. */
static void escape(const char *in, char *out, size_t size)
{
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)in;
	     *p && o + 4 < size; p++) {
		if (*p <= ' ' || *p >= 0x7f || *p == '%')
			o += (size_t)snprintf(out + o, size - o, "%%%02X", *p);
		else
			out[o++] = (char)*p;
	}
	out[o] = '\0';
}

static int emit_header(struct powercut_log *log,
		       const struct powercut_run *r)
{
	char identity[3 * POWERCUT_IDENTITY_BYTES];

	escape(r->identity, identity, sizeof(identity));
	return emit(log, true,
		    "%s %d salt=%016" PRIx64 " seed=%" PRIu64
		    " device=%" PRIu64 " offset=%" PRIu64 " span=%" PRIu64
		    " sector=%" PRIu32 " unit=%" PRIu32 " identity=%s",
		    POWERCUT_LOG_MAGIC, POWERCUT_LOG_VERSION, r->salt, r->seed,
		    r->device_bytes, r->offset_bytes, r->span_bytes,
		    r->sector_bytes, r->unit_bytes, identity);
}

struct powercut_log *powercut_log_open(int fd, const struct powercut_run *run,
				       char *why, size_t why_size)
{
	struct powercut_log *log = calloc(1, sizeof(*log));
	struct stat sb;
	int copy = -1, err;

	if (!log)
		goto fail;
	copy = dup(fd);
	if (copy < 0 || fstat(copy, &sb) != 0)
		goto fail;
	log->sync = S_ISREG(sb.st_mode);
	log->f = fdopen(copy, "w");
	if (!log->f)
		goto fail;
	copy = -1;
	setvbuf(log->f, log->buffer, _IOFBF, sizeof(log->buffer));
	err = emit_header(log, run);
	if (err == 0)
		return log;
	errno = -err;
fail:
	err = errno;
	snprintf(why, why_size, "log: %s", strerror(err));
	if (copy >= 0)
		close(copy);
	if (log && log->f)
		fclose(log->f);
	free(log);
	errno = err;
	return NULL;
}

int powercut_log_old(struct powercut_log *log)
{
	return emit(log, true, "old");
}

int powercut_log_cycle(struct powercut_log *log, uint32_t cycle,
		       uint32_t first_seq)
{
	return emit(log, true, "cycle n=%" PRIu32 " seq=%" PRIu32, cycle,
		    first_seq);
}

int powercut_log_write(struct powercut_log *log, uint32_t seq,
		       uint64_t offset, uint64_t length, uint64_t t_ns)
{
	return emit(log, false,
		    "write seq=%" PRIu32 " offset=%" PRIu64 " length=%" PRIu64
		    " t=%" PRIu64, seq, offset, length, t_ns);
}

int powercut_log_flush(struct powercut_log *log, uint32_t seq,
		       uint64_t t_ns)
{
	return emit(log, true, "flush seq=%" PRIu32 " t=%" PRIu64, seq, t_ns);
}

static const char *errno_name(int errnum, char *buf, size_t size)
{
	for (size_t i = 0; i < sizeof(errno_names) / sizeof(errno_names[0]);
	     i++)
		if (errno_names[i].errnum == errnum)
			return errno_names[i].name;
	snprintf(buf, size, "%d", errnum);
	return buf;
}

int powercut_log_cut(struct powercut_log *log, const struct powercut_cut *cut)
{
	char name[16];
	const char *e = errno_name(cut->errnum, name, sizeof(name));

	if (!cut->torn)
		return emit(log, true,
			    "cut cycle=%" PRIu32 " t=%" PRIu64 " errno=%s torn=0",
			    cut->cycle, cut->t_ns, e);
	return emit(log, true,
		    "cut cycle=%" PRIu32 " t=%" PRIu64 " errno=%s torn=1"
		    " seq=%" PRIu32 " offset=%" PRIu64 " length=%" PRIu64
		    " start=%" PRIu64, cut->cycle, cut->t_ns, e,
		    cut->write.seq, cut->write.offset_bytes,
		    cut->write.length_bytes, cut->write.t_ns);
}

/* A time or POWERCUT_UNKNOWN as the log writes it. */
static const char *time_text(uint64_t ns, char *buf, size_t size)
{
	if (ns == POWERCUT_UNKNOWN)
		return "unknown";
	snprintf(buf, size, "%" PRIu64, ns);
	return buf;
}

int powercut_log_verify(struct powercut_log *log,
			const struct powercut_cycle *c)
{
	char counts[POWERCUT_CLASSES * 48], cut[24], lost[24];
	size_t o = 0;

	for (int k = 0; k < POWERCUT_CLASSES; k++)
		o += (size_t)snprintf(counts + o, sizeof(counts) - o,
				      " %s=%" PRIu64,
				      powercut_class_name((enum powercut_class)k),
				      c->counts[k]);
	return emit(log, true,
		    "verify cycle=%" PRIu32 " cut=%s units=%" PRIu64
		    " intact=%" PRIu64 " newer=%" PRIu64 "%s lost-before-cut=%s"
		    " capacity=%" PRIu64 " capacity-changed=%d read-only=%d"
		    " dead=%d", c->cycle, time_text(c->cut_ns, cut, sizeof(cut)),
		    c->units, c->intact, c->newer, counts,
		    time_text(c->ack_lost_before_cut_ns, lost, sizeof(lost)),
		    c->capacity_bytes, c->capacity_changed, c->read_only,
		    c->dead);
}

int powercut_log_settled(struct powercut_log *log, uint32_t cycle,
			 uint64_t rewritten_units)
{
	return emit(log, true, "settled cycle=%" PRIu32 " rewritten=%" PRIu64,
		    cycle, rewritten_units);
}

int powercut_log_close(struct powercut_log *log)
{
	int err;

	if (!log)
		return 0;
	err = push(log);
	if (fclose(log->f) != 0 && err == 0)
		err = -errno;
	free(log);
	return err;
}

/* The biggest log replay reads: months of cycles. */
#define LOG_MAX_BYTES (1024u * 1024u * 1024u)

/* A replay under way: the line being read, what to say when it fails. */
struct reader {
	struct powercut_replay *out;
	const struct powercut_expect *expect;
	unsigned line_no;
	char *cur;		/* the rest of the line's fields */
	char *why;
	size_t why_size;
};

__attribute__((format(printf, 3, 4)))
static int refuse(struct reader *rd, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rd->why, rd->why_size, fmt, ap);
	va_end(ap);
	return err;
}

static char *next_token(struct reader *rd)
{
	char *start = rd->cur, *space;

	if (!start || !*start)
		return NULL;
	space = strchr(start, ' ');
	if (space) {
		*space = '\0';
		rd->cur = space + 1;
	} else {
		rd->cur = start + strlen(start);
	}
	return start;
}

/* The next field, which must be key=VALUE: VALUE, or NULL. */
static const char *take(struct reader *rd, const char *key)
{
	char *t = next_token(rd);
	size_t n = strlen(key);

	if (!t || strncmp(t, key, n) != 0 || t[n] != '=')
		return NULL;
	return t + n + 1;
}

static bool number(const char *text, int base, uint64_t *v)
{
	char *end;

	if (!text || !*text || *text == '-' || *text == '+' || *text == ' ')
		return false;
	errno = 0;
	*v = strtoull(text, &end, base);
	return errno == 0 && *end == '\0';
}

static bool take_u64(struct reader *rd, const char *key, uint64_t *v)
{
	return number(take(rd, key), 10, v);
}

static bool take_u32(struct reader *rd, const char *key, uint32_t *v)
{
	uint64_t wide;

	if (!take_u64(rd, key, &wide) || wide > UINT32_MAX)
		return false;
	*v = (uint32_t)wide;
	return true;
}

static bool take_time(struct reader *rd, const char *key, uint64_t *ns)
{
	const char *text = take(rd, key);

	if (text && strcmp(text, "unknown") == 0) {
		*ns = POWERCUT_UNKNOWN;
		return true;
	}
	return number(text, 10, ns) && *ns != POWERCUT_UNKNOWN;
}

static bool take_flag(struct reader *rd, const char *key, bool *flag)
{
	const char *text = take(rd, key);

	if (!text || (strcmp(text, "0") != 0 && strcmp(text, "1") != 0))
		return false;
	*flag = *text == '1';
	return true;
}

/* Nothing may follow the last field. */
static bool at_end(const struct reader *rd)
{
	return !rd->cur || !*rd->cur;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* escape's inverse: false for a bad %XX or one that does not fit. */
static bool unescape(const char *in, char *out, size_t size)
{
	size_t o = 0;

	for (; *in; in++) {
		int c = (unsigned char)*in;

		if (c == '%') {
			int hi = hex_digit(in[1]), lo = hi < 0 ? -1 : hex_digit(in[2]);

			if (lo < 0 || (hi == 0 && lo == 0))
				return false;
			c = hi * 16 + lo;
			in += 2;
		}
		if (o + 1 >= size)
			return false;
		out[o++] = (char)c;
	}
	out[o] = '\0';
	return true;
}

static bool parse_run(struct reader *rd, struct powercut_run *r)
{
	const char *salt, *identity;

	memset(r, 0, sizeof(*r));
	salt = take(rd, "salt");
	if (!salt || strlen(salt) != 16 || !number(salt, 16, &r->salt) ||
	    !take_u64(rd, "seed", &r->seed) ||
	    !take_u64(rd, "device", &r->device_bytes) ||
	    !take_u64(rd, "offset", &r->offset_bytes) ||
	    !take_u64(rd, "span", &r->span_bytes) ||
	    !take_u32(rd, "sector", &r->sector_bytes) ||
	    !take_u32(rd, "unit", &r->unit_bytes))
		return false;
	identity = take(rd, "identity");
	return identity &&
	       unescape(identity, r->identity, sizeof(r->identity)) &&
	       at_end(rd);
}

static int read_header(struct reader *rd)
{
	struct powercut_replay *out = rd->out;
	const struct powercut_expect *ex = rd->expect;
	const char *magic = next_token(rd), *version = next_token(rd);
	uint64_t v;

	if (!magic || strcmp(magic, POWERCUT_LOG_MAGIC) != 0)
		return refuse(rd, -EBADMSG,
			      "line 1: not a power-cut log (no %s header)",
			      POWERCUT_LOG_MAGIC);
	if (!number(version, 10, &v) || v != POWERCUT_LOG_VERSION)
		return refuse(rd, -EBADMSG,
			      "line 1: format version %s; this build reads %d",
			      version ? version : "(none)",
			      POWERCUT_LOG_VERSION);
	if (!parse_run(rd, &out->run))
		return refuse(rd, -EBADMSG, "line 1: a header that does not "
			      "parse");
	if (ex && ex->identity && strcmp(ex->identity, out->run.identity))
		return refuse(rd, -EXDEV, "the log is of another device: it "
			      "names '%s', this one is '%s'",
			      out->run.identity, ex->identity);
	if (ex && ex->salt && ex->salt != out->run.salt)
		return refuse(rd, -EXDEV, "the log is of another run: salt "
			      "%016" PRIx64 ", not %016" PRIx64,
			      out->run.salt, ex->salt);
	switch (powercut_state_init(&out->state, &out->run)) {
	case 0:
		return 0;
	case -ENOMEM:
		return refuse(rd, -ENOMEM, "%s", strerror(ENOMEM));
	default:
		return refuse(rd, -EBADMSG, "line 1: a range that does not "
			      "hold together");
	}
}

static bool parse_errno(const char *text, int *errnum)
{
	uint64_t v;

	for (size_t i = 0; text && i < sizeof(errno_names) /
					  sizeof(errno_names[0]); i++)
		if (strcmp(text, errno_names[i].name) == 0) {
			*errnum = errno_names[i].errnum;
			return true;
		}
	if (!number(text, 10, &v) || v > 4095)
		return false;
	*errnum = (int)v;
	return true;
}

static bool parse_cut(struct reader *rd, struct powercut_cut *cut)
{
	memset(cut, 0, sizeof(*cut));
	if (!take_u32(rd, "cycle", &cut->cycle) ||
	    !take_u64(rd, "t", &cut->t_ns) ||
	    !parse_errno(take(rd, "errno"), &cut->errnum) ||
	    !take_flag(rd, "torn", &cut->torn))
		return false;
	if (!cut->torn)
		return at_end(rd);
	return take_u32(rd, "seq", &cut->write.seq) &&
	       take_u64(rd, "offset", &cut->write.offset_bytes) &&
	       take_u64(rd, "length", &cut->write.length_bytes) &&
	       take_u64(rd, "start", &cut->write.t_ns) && at_end(rd);
}

static bool parse_verify(struct reader *rd, struct powercut_cycle *c)
{
	memset(c, 0, sizeof(*c));
	if (!take_u32(rd, "cycle", &c->cycle) ||
	    !take_time(rd, "cut", &c->cut_ns) ||
	    !take_u64(rd, "units", &c->units) ||
	    !take_u64(rd, "intact", &c->intact) ||
	    !take_u64(rd, "newer", &c->newer))
		return false;
	for (int k = 0; k < POWERCUT_CLASSES; k++)
		if (!take_u64(rd, powercut_class_name((enum powercut_class)k),
			      &c->counts[k]))
			return false;
	return take_time(rd, "lost-before-cut", &c->ack_lost_before_cut_ns) &&
	       take_u64(rd, "capacity", &c->capacity_bytes) &&
	       take_flag(rd, "capacity-changed", &c->capacity_changed) &&
	       take_flag(rd, "read-only", &c->read_only) &&
	       take_flag(rd, "dead", &c->dead) && at_end(rd);
}

static int add_verified(struct reader *rd, const struct powercut_cycle *c)
{
	struct powercut_replay *out = rd->out;
	struct powercut_cycle *grown;

	grown = realloc(out->verified, (out->verified_n + 1) * sizeof(*grown));
	if (!grown)
		return refuse(rd, -ENOMEM, "%s", strerror(ENOMEM));
	out->verified = grown;
	out->verified[out->verified_n++] = *c;
	powercut_mark_verified(&out->state);
	return 0;
}

/* Each event's line read and applied: 0, -EINVAL, or -ENOMEM. */
static int on_old(struct reader *rd, struct powercut_state *st)
{
	if (!at_end(rd) || st->old_stamped)
		return -EINVAL;
	powercut_old(st);
	return 0;
}

static int on_cycle(struct reader *rd, struct powercut_state *st)
{
	uint32_t n, seq;

	if (!take_u32(rd, "n", &n) || !take_u32(rd, "seq", &seq) ||
	    !at_end(rd))
		return -EINVAL;
	return powercut_cycle_begin(st, n, seq);
}

static int on_write(struct reader *rd, struct powercut_state *st)
{
	uint64_t offset, length, t_ns;
	uint32_t seq;

	if (!take_u32(rd, "seq", &seq) || !take_u64(rd, "offset", &offset) ||
	    !take_u64(rd, "length", &length) || !take_u64(rd, "t", &t_ns) ||
	    !at_end(rd))
		return -EINVAL;
	return powercut_wrote(st, seq, offset, length, t_ns);
}

static int on_flush(struct reader *rd, struct powercut_state *st)
{
	uint64_t t_ns;
	uint32_t seq;

	if (!take_u32(rd, "seq", &seq) || !take_u64(rd, "t", &t_ns) ||
	    !at_end(rd))
		return -EINVAL;
	return powercut_flushed(st, seq, t_ns);
}

static int on_cut(struct reader *rd, struct powercut_state *st)
{
	struct powercut_cut cut;

	if (!parse_cut(rd, &cut))
		return -EINVAL;
	return powercut_cut(st, &cut);
}

static int on_verify(struct reader *rd, struct powercut_state *st)
{
	struct powercut_cycle c;

	if (!parse_verify(rd, &c) || st->cycle == 0 || c.cycle != st->cycle ||
	    st->verified)
		return -EINVAL;
	return add_verified(rd, &c);
}

static int on_settled(struct reader *rd, struct powercut_state *st)
{
	uint64_t rewritten;
	uint32_t cycle;

	if (!take_u32(rd, "cycle", &cycle) ||
	    !take_u64(rd, "rewritten", &rewritten) || !at_end(rd) ||
	    cycle != st->cycle || !st->verified || st->settled)
		return -EINVAL;
	powercut_settled(st);
	return 0;
}

static const struct {
	const char *name;
	int (*apply)(struct reader *rd, struct powercut_state *st);
} events[] = {
	{ "old", on_old }, { "cycle", on_cycle }, { "write", on_write },
	{ "flush", on_flush }, { "cut", on_cut }, { "verify", on_verify },
	{ "settled", on_settled },
};

/*
 * One event applied to the state: 0; -EINVAL when the line does not
 * parse or does not fit where the state stands; -ENOMEM.
 */
static int apply_event(struct reader *rd, const char *event)
{
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if (strcmp(event, events[i].name) == 0)
			return events[i].apply(rd, &rd->out->state);
	return -EINVAL;
}

/*
 * Is the line (length bytes, its newline gone, NUL-terminated) whole:
 * does it end in " sum=XXXXXXXX" over the bytes before it?  Then the
 * sum is cut off.
 */
static bool line_sound(char *line, size_t length)
{
	static const char tag[] = " sum=";
	size_t tag_bytes = sizeof(tag) - 1, at;
	uint64_t sum;

	if (length < tag_bytes + 8)
		return false;
	at = length - tag_bytes - 8;
	if (memcmp(line + at, tag, tag_bytes) != 0 ||
	    !number(line + at + tag_bytes, 16, &sum) ||
	    sum != line_sum(line, at))
		return false;
	line[at] = '\0';
	return true;
}

static int apply_line(struct reader *rd, char *line)
{
	const char *event;
	int err;

	rd->cur = line;
	if (rd->out->lines == 0)
		return read_header(rd);
	event = next_token(rd);
	err = apply_event(rd, event ? event : "");
	if (err == -ENOMEM)
		return refuse(rd, err, "%s", strerror(ENOMEM));
	if (err)
		return refuse(rd, -EBADMSG, "line %u: a '%s' line that does "
			      "not follow from the lines before it",
			      rd->line_no, event ? event : "");
	return 0;
}

static int replay_text(struct reader *rd, const char *text, size_t length)
{
	char line[POWERCUT_LOG_LINE_BYTES];
	size_t at = 0;

	while (at < length) {
		const char *nl = memchr(text + at, '\n', length - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : length - at;
		bool sound = nl && n < sizeof(line);
		int err;

		rd->line_no++;
		if (sound) {
			memcpy(line, text + at, n);
			line[n] = '\0';
			sound = line_sound(line, n);
		}
		if (!sound && (!nl || nl + 1 == text + length)) {
			rd->out->torn_tail = true;	/* the last: torn */
			break;
		}
		if (!sound)
			return refuse(rd, -EBADMSG, "line %u: its checksum does "
				      "not match: the log is damaged",
				      rd->line_no);
		err = apply_line(rd, line);
		if (err)
			return err;
		rd->out->lines++;
		at += n + 1;
	}
	if (rd->out->lines == 0)
		return refuse(rd, -EBADMSG, "not a power-cut log: no whole "
			      "header line");
	return 0;
}

int powercut_log_replay(int fd, const struct powercut_expect *expect,
			struct powercut_replay *out, char *why,
			size_t why_size)
{
	struct reader rd = { .out = out, .expect = expect, .why = why,
			     .why_size = why_size };
	int copy = dup(fd), err;
	FILE *f;

	/* from its start, wherever fd stands (a pipe has no start to seek) */
	if (copy >= 0 && lseek(copy, 0, SEEK_SET) < 0 && errno != ESPIPE) {
		close(copy);
		copy = -1;
	}
	f = copy >= 0 ? fdopen(copy, "r") : NULL;
	char *text = NULL;
	size_t length = 0;

	memset(out, 0, sizeof(*out));
	if (!f) {
		err = -errno;
		if (copy >= 0)
			close(copy);
		return refuse(&rd, err, "log: %s", strerror(-err));
	}
	err = readfile_stream(f, LOG_MAX_BYTES, &text, &length);
	fclose(f);
	if (err == -EFBIG)
		return refuse(&rd, err, "log: larger than 1 GiB");
	if (err)
		return refuse(&rd, err, "log: %s", strerror(-err));
	err = replay_text(&rd, text, length);
	free(text);
	if (err)
		powercut_replay_free(out);
	return err;
}

void powercut_replay_free(struct powercut_replay *r)
{
	powercut_state_free(&r->state);
	free(r->verified);
	r->verified = NULL;
	r->verified_n = 0;
}
