/*
 * unit-emustore: the emulated card's data store.  Never-written bytes
 * read as zeros, writes read back across chunk boundaries, a punch
 * zeroes exactly its range and frees the chunks it covers, the memory cap
 * refuses new chunks with -ENOSPC, and a backing file keeps its contents
 * across a close.  Also the model's counters (sim_stats) that flashemu
 * reports: a written-through round robin over one block more than the
 * card keeps open closes blocks without a gc; one with gaps costs a gc
 * per close, with the copy counted.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dev.h"
#include "emustore.h"
#include "sim.h"
#include "unit.h"

#define KIB 1024ULL
#define MIB (1024 * KIB)

static int all_bytes(const unsigned char *buf, size_t n, unsigned char v)
{
	for (size_t i = 0; i < n; i++)
		if (buf[i] != v)
			return 0;
	return 1;
}

static void test_memory(void)
{
	struct emustore *s;
	char msg[256];
	unsigned char *buf = malloc(300 * KIB), *back = malloc(300 * KIB);

	UNIT_CHECK(emustore_open(&s, 64 * MIB, NULL, 1 * MIB, msg,
				 sizeof(msg)) == 0, "memory store opens");
	memset(back, 0xaa, 300 * KIB);
	emustore_read(s, back, 10 * MIB, 300 * KIB);
	UNIT_CHECK(all_bytes(back, 300 * KIB, 0), "never written reads zeros");
	UNIT_CHECK(emustore_held_bytes(s) == 0, "reading allocates nothing");
	for (size_t i = 0; i < 300 * KIB; i++)
		buf[i] = (unsigned char)(i * 7 + 1);
	/* 100 KiB + 512 into the card: crosses four 64 KiB chunks */
	UNIT_CHECK(emustore_write(s, buf, 100 * KIB + 512, 300 * KIB) == 0,
		   "a write across chunks succeeds");
	emustore_read(s, back, 100 * KIB + 512, 300 * KIB);
	UNIT_CHECK(memcmp(buf, back, 300 * KIB) == 0, "it reads back");
	UNIT_CHECK(emustore_punch(s, 128 * KIB, 64 * KIB + 512) == 0,
		   "a punch succeeds");
	emustore_read(s, back, 100 * KIB + 512, 300 * KIB);
	UNIT_CHECK(memcmp(buf, back, 28 * KIB - 512) == 0 &&
		   all_bytes(back + 28 * KIB - 512, 64 * KIB + 512, 0) &&
		   memcmp(buf + 92 * KIB, back + 92 * KIB, 208 * KIB) == 0,
		   "the punch zeroes exactly its range");
	/* the write touched the six chunks from 64 KiB; the punch covers
	   the one at 128 KiB */
	UNIT_CHECK(emustore_held_bytes(s) == 5 * 64 * KIB,
		   "the covered chunk is freed (%llu bytes held)",
		   (unsigned long long)emustore_held_bytes(s));
	UNIT_CHECK(emustore_write(s, buf, 32 * MIB, 256 * KIB) == 0 &&
		   emustore_write(s, buf, 40 * MIB, 300 * KIB) == 0 &&
		   emustore_write(s, buf, 48 * MIB, 192 * KIB) == -ENOSPC &&
		   emustore_held_bytes(s) == MIB,
		   "past the 1 MiB cap a write gets -ENOSPC (%llu held)",
		   (unsigned long long)emustore_held_bytes(s));
	emustore_close(s);
	free(buf);
	free(back);
}

static void test_file(void)
{
	char path[] = "/tmp/unit-emustore.XXXXXX", msg[256];
	unsigned char buf[4096], back[4096];
	struct emustore *s;
	int fd = mkstemp(path);

	close(fd);
	memset(buf, 0x5c, sizeof(buf));
	UNIT_CHECK(emustore_open(&s, 8 * MIB, path, 0, msg, sizeof(msg)) == 0,
		   "file store opens");
	emustore_write(s, buf, 3 * MIB, sizeof(buf));
	emustore_close(s);
	emustore_open(&s, 8 * MIB, path, 0, msg, sizeof(msg));
	emustore_read(s, back, 3 * MIB, sizeof(back));
	UNIT_CHECK(memcmp(buf, back, sizeof(buf)) == 0,
		   "a file store keeps its data across a close");
	emustore_punch(s, 3 * MIB, sizeof(buf));
	emustore_read(s, back, 3 * MIB, sizeof(back));
	UNIT_CHECK(all_bytes(back, sizeof(back), 0), "a punch in it reads zeros");
	emustore_close(s);
	UNIT_CHECK(emustore_open(&s, MIB, "/nonexistent/dir/x", 0, msg,
				 sizeof(msg)) < 0 && strstr(msg, "/nonexistent"),
		   "an unusable store path is an error naming it: %s", msg);
	unlink(path);
}

/* Write count blocks of erase block size in turn, rounds times. */
static void round_robin(struct dev *dev, unsigned count, unsigned rounds,
			uint64_t length)
{
	uint64_t ns;

	for (unsigned r = 0; r < rounds; r++)
		for (unsigned b = 0; b < count; b++)
			dev_write(dev, NULL, (16 + b * 4) * 4 * MIB, length,
				  &ns);
}

static void test_counters(void)
{
	struct sim_stats st;
	struct dev dev;
	uint64_t ns;

	dev_open(&dev, "sim:open=4,size=256M", DEV_READ_WRITE);
	dev_allow_writes(&dev, 0, dev.size_bytes);
	round_robin(&dev, 5, 3, 4 * MIB);
	sim_stats(&dev, &st);
	UNIT_CHECK(st.writes == 15 && st.bytes_written == 60 * MIB,
		   "writes and their bytes count");
	UNIT_CHECK(st.opened == 15 && st.closed == 11 && st.gcs == 0,
		   "written through: %llu opened, %llu closed, no gc (%llu)",
		   (unsigned long long)st.opened,
		   (unsigned long long)st.closed, (unsigned long long)st.gcs);
	dev_close(&dev);

	dev_open(&dev, "sim:open=4,size=256M,copy-rate=50M", DEV_READ_WRITE);
	dev_allow_writes(&dev, 0, dev.size_bytes);
	round_robin(&dev, 5, 3, 1 * MIB);
	sim_stats(&dev, &st);
	UNIT_CHECK(st.gcs == 11 && st.copied_bytes == 11 * 3 * MIB &&
		   st.gc_ns > 11 * 100000000ULL,
		   "1 MiB of each 4 MiB block: a gc and a 3 MiB copy per close "
		   "(%llu gcs, %llu bytes)", (unsigned long long)st.gcs,
		   (unsigned long long)st.copied_bytes);
	UNIT_CHECK(st.switches == 15, "every write switched blocks (%llu)",
		   (unsigned long long)st.switches);
	dev_discard(&dev, 0, 64 * MIB, &ns);
	dev_read(&dev, NULL, 0, 4096, &ns);
	sim_stats(&dev, &st);
	UNIT_CHECK(st.discards == 1 && st.bytes_discarded == 64 * MIB &&
		   st.reads == 1 && st.busy_ns > st.gc_ns,
		   "discards and reads count; device time covers the gc time");
	dev_close(&dev);
	UNIT_CHECK(dev_open(&dev, "/dev/null", DEV_READ_ONLY) != 0 ||
		   (sim_stats(&dev, &st) == -EINVAL && (dev_close(&dev), 1)),
		   "sim_stats refuses a device that is not simulated");
}

int main(void)
{
	test_memory();
	test_file();
	test_counters();
	return UNIT_DONE();
}
