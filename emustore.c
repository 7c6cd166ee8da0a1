/*
 * emustore: the emulated card's data, sparse.  In memory the card is cut
 * into chunks of EMUSTORE_CHUNK bytes, each allocated on its first write
 * and freed when a punch covers it; a backing file is a sparse file of the
 * card's size, punched with fallocate.  Every access goes chunk by chunk
 * through emustore_physical_offset.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emustore.h"

/* small enough that 4 KiB writes scattered over a card stay cheap, large
   enough that a 16 GiB card needs only a 2 MiB table */
#define EMUSTORE_CHUNK (64 * 1024ULL)

struct emustore {
	uint64_t size_bytes;
	int fd;			/* backing file; -1 in memory */
	uint64_t cap_bytes;	/* in memory: at most this much data */
	uint64_t held_bytes;	/* in memory: chunks allocated */
	size_t nchunks;
	unsigned char **chunks;	/* NULL: never written, or punched */
};

uint64_t emustore_physical_offset(const struct emustore *store,
				  uint64_t offset)
{
	(void)store;
	return offset;
}

static int open_file(struct emustore *s, const char *path, char *msg,
		     size_t msg_size)
{
	struct stat st;

	s->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (s->fd < 0 || fstat(s->fd, &st) < 0) {
		int err = errno;

		snprintf(msg, msg_size, "store %s: %s", path, strerror(err));
		return -err;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(msg, msg_size, "store %s: not a regular file", path);
		return -EINVAL;
	}
	if ((uint64_t)st.st_size < s->size_bytes &&
	    ftruncate(s->fd, (off_t)s->size_bytes) < 0) {
		int err = errno;

		snprintf(msg, msg_size, "store %s: cannot grow it to %llu "
			 "bytes: %s", path, (unsigned long long)s->size_bytes,
			 strerror(err));
		return -err;
	}
	return 0;
}

int emustore_open(struct emustore **store, uint64_t size_bytes,
		  const char *path, uint64_t cap_bytes, char *msg,
		  size_t msg_size)
{
	struct emustore *s = calloc(1, sizeof(*s));
	uint64_t nchunks = (size_bytes + EMUSTORE_CHUNK - 1) / EMUSTORE_CHUNK;
	int err = 0;

	if (!s)
		return -ENOMEM;
	s->size_bytes = size_bytes;
	s->cap_bytes = cap_bytes;
	s->fd = -1;
	if (path) {
		err = open_file(s, path, msg, msg_size);
	} else if (nchunks > SIZE_MAX / sizeof(*s->chunks) ||
		   !(s->chunks = calloc((size_t)nchunks, sizeof(*s->chunks)))) {
		snprintf(msg, msg_size, "store: no memory for the table of a "
			 "%llu-byte card", (unsigned long long)size_bytes);
		err = -ENOMEM;
	}
	s->nchunks = (size_t)nchunks;
	if (err) {
		emustore_close(s);
		return err;
	}
	*store = s;
	return 0;
}

void emustore_close(struct emustore *store)
{
	if (!store)
		return;
	if (store->chunks)
		for (size_t i = 0; i < store->nchunks; i++)
			free(store->chunks[i]);
	free(store->chunks);
	if (store->fd >= 0)
		close(store->fd);
	free(store);
}

/* One piece of an access: inside one chunk, at a physical offset. */
struct piece {
	uint64_t physical;
	size_t length;
	size_t done;		/* bytes of the access before this piece */
};

/* The next piece of [offset + done, offset + length); false when none. */
static bool next_piece(const struct emustore *s, uint64_t offset,
		       uint64_t length, struct piece *p)
{
	uint64_t pos = offset + p->done, left = length - p->done;
	uint64_t room = EMUSTORE_CHUNK - pos % EMUSTORE_CHUNK;

	if (p->done >= length)
		return false;
	p->physical = emustore_physical_offset(s, pos);
	p->length = (size_t)(left < room ? left : room);
	return true;
}

static int file_io(struct emustore *s, void *buf, const struct piece *p,
		   bool write)
{
	size_t done = 0;

	while (done < p->length) {
		ssize_t n = write ?
			pwrite(s->fd, (char *)buf + done, p->length - done,
			       (off_t)(p->physical + done)) :
			pread(s->fd, (char *)buf + done, p->length - done,
			      (off_t)(p->physical + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0 && !write) {	/* a store file shorter than the card */
			memset((char *)buf + done, 0, p->length - done);
			return 0;
		}
		done += (size_t)n;
	}
	return 0;
}

static unsigned char **chunk_of(struct emustore *s, uint64_t physical)
{
	return &s->chunks[physical / EMUSTORE_CHUNK];
}

int emustore_read(struct emustore *store, void *buf, uint64_t offset,
		  uint64_t length)
{
	struct piece p = { 0 };

	for (; next_piece(store, offset, length, &p); p.done += p.length) {
		char *out = (char *)buf + p.done;
		unsigned char *chunk;
		int err;

		if (store->fd >= 0) {
			err = file_io(store, out, &p, false);
			if (err)
				return err;
			continue;
		}
		chunk = *chunk_of(store, p.physical);
		if (chunk)
			memcpy(out, chunk + p.physical % EMUSTORE_CHUNK,
			       p.length);
		else
			memset(out, 0, p.length);
	}
	return 0;
}

/* The chunk for physical, allocated (zeroed) when new: NULL at the cap. */
static unsigned char *writable_chunk(struct emustore *s, uint64_t physical)
{
	unsigned char **slot = chunk_of(s, physical);

	if (*slot)
		return *slot;
	if (s->held_bytes + EMUSTORE_CHUNK > s->cap_bytes)
		return NULL;
	*slot = calloc(1, EMUSTORE_CHUNK);
	if (*slot)
		s->held_bytes += EMUSTORE_CHUNK;
	return *slot;
}

int emustore_write(struct emustore *store, const void *buf, uint64_t offset,
		   uint64_t length)
{
	struct piece p = { 0 };

	for (; next_piece(store, offset, length, &p); p.done += p.length) {
		const char *in = (const char *)buf + p.done;
		unsigned char *chunk;
		int err;

		if (store->fd >= 0) {
			err = file_io(store, (void *)in, &p, true);
			if (err)
				return err;
			continue;
		}
		chunk = writable_chunk(store, p.physical);
		if (!chunk)
			return -ENOSPC;
		memcpy(chunk + p.physical % EMUSTORE_CHUNK, in, p.length);
	}
	return 0;
}

/* A piece of a punch in memory: whole chunks are freed, parts zeroed. */
static void punch_memory(struct emustore *s, const struct piece *p)
{
	unsigned char **slot = chunk_of(s, p->physical);

	if (!*slot)
		return;
	if (p->length == EMUSTORE_CHUNK) {
		free(*slot);
		*slot = NULL;
		s->held_bytes -= EMUSTORE_CHUNK;
		return;
	}
	memset(*slot + p->physical % EMUSTORE_CHUNK, 0, p->length);
}

/* A file system without hole punching gets zeros written instead. */
static int punch_file(struct emustore *s, const struct piece *p)
{
	static const unsigned char zeros[EMUSTORE_CHUNK];

	if (fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      (off_t)p->physical, (off_t)p->length) == 0)
		return 0;
	if (errno != EOPNOTSUPP)
		return -errno;
	return file_io(s, (void *)zeros, p, true);
}

int emustore_punch(struct emustore *store, uint64_t offset, uint64_t length)
{
	struct piece p = { 0 };

	for (; next_piece(store, offset, length, &p); p.done += p.length) {
		int err = 0;

		if (store->fd >= 0)
			err = punch_file(store, &p);
		else
			punch_memory(store, &p);
		if (err)
			return err;
	}
	return 0;
}

uint64_t emustore_held_bytes(const struct emustore *store)
{
	struct stat st;

	if (store->fd < 0)
		return store->held_bytes;
	return fstat(store->fd, &st) == 0 ? (uint64_t)st.st_blocks * 512 : 0;
}
