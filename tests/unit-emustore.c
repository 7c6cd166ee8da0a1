/*
 * unit-emustore: the emulated card's data store.  Never-written bytes
 * read as zeros, writes read back across chunk boundaries, a punch
 * zeroes exactly its range and frees the chunks it covers, the memory cap
 * refuses new chunks with -ENOSPC, and a backing file keeps its contents
 * across a close.  Where a backing file may be: a new name or a regular
 * file, resolved, outside the mountpoint, not on /proc, not a FIFO, a
 * device of characters or a directory, not a name another user could
 * have planted; nothing is made by the check, and a file the open made is
 * gone again when it fails or is discarded, while one it found is kept.
 * Also the model's counters (sim_stats) that flashemu
 * reports: a written-through round robin over one block more than the
 * card keeps open closes blocks without a gc; one with gaps costs a gc
 * per close, with the copy counted.  And a counterfeit card whose real
 * blocks the store holds (sim_keep_data_in): a write across a wrap lands
 * at the physical offsets, reads back at both offsets, a discard punches
 * the physical blocks, the memory cap holds; what the card decides stays
 * the card's (dropped writes read as its old data, error mode fails
 * reads, fake-cache= serves the newest writes), and only a card with a
 * fake key takes a store.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dev.h"
#include "emu/emustore.h"
#include "engines/sim.h"
#include "lib/units.h"
#include "unit.h"

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

/* emustore_check of path, outside of dir: 0 or the error, why in msg. */
static int check(const char *path, const char *outside_of,
		 struct emustore_place *place, char *msg, size_t msg_size)
{
	return emustore_check(path, outside_of, 8 * MIB, place, msg,
			      msg_size);
}

static void test_file(void)
{
	char path[] = "/tmp/unit-emustore.XXXXXX", msg[PATH_MAX + 128];
	unsigned char buf[4096], back[4096];
	struct emustore_place place;
	struct emustore *s;
	int fd = mkstemp(path);

	close(fd);
	memset(buf, 0x5c, sizeof(buf));
	UNIT_CHECK(check(path, NULL, &place, msg, sizeof(msg)) == 0 &&
		   place.exists && !place.block,
		   "a regular file may hold a store");
	UNIT_CHECK(emustore_open(&s, 8 * MIB, &place, 0, msg,
				 sizeof(msg)) == 0, "file store opens");
	emustore_write(s, buf, 3 * MIB, sizeof(buf));
	UNIT_CHECK(emustore_flush(s) == 0, "it is flushed");
	emustore_close(s);
	emustore_open(&s, 8 * MIB, &place, 0, msg, sizeof(msg));
	emustore_read(s, back, 3 * MIB, sizeof(back));
	UNIT_CHECK(memcmp(buf, back, sizeof(buf)) == 0,
		   "a file store keeps its data across a close");
	emustore_punch(s, 3 * MIB, sizeof(buf));
	emustore_read(s, back, 3 * MIB, sizeof(back));
	UNIT_CHECK(all_bytes(back, sizeof(back), 0), "a punch in it reads zeros");
	emustore_close(s);
	UNIT_CHECK(check("/nonexistent/dir/x", NULL, &place, msg,
			 sizeof(msg)) == -ENOENT &&
		   strcmp(msg, "directory /nonexistent/dir: No such file or "
			  "directory") == 0,
		   "a store in a missing directory is refused: %s", msg);
	unlink(path);
}

#define NAME_BYTES (PATH_MAX + 32)

/* out (NAME_BYTES long) is dir/name; the tests' names all fit. */
static char *in_dir(char *out, const char *dir, const char *name)
{
	if ((size_t)snprintf(out, NAME_BYTES, "%s/%s", dir, name) >=
	    NAME_BYTES)
		abort();
	return out;
}

/* check(path) is refused with a message that begins with want. */
static void refused(const char *path, const char *outside_of,
		    const char *want)
{
	struct emustore_place place;
	char msg[PATH_MAX + 128] = "";
	int err = check(path, outside_of, &place, msg, sizeof(msg));

	UNIT_CHECK(err < 0 && strncmp(msg, want, strlen(want)) == 0,
		   "%s is refused: %s", path, msg);
}

/* What each refusal names, and that nothing appears where it looked. */
static void test_refusals(const char *dir)
{
	char mnt[NAME_BYTES], name[NAME_BYTES], fifo[NAME_BYTES];

	mkdir(in_dir(mnt, dir, "mnt"), 0700);
	mkfifo(in_dir(fifo, dir, "fifo"), 0600);
	refused(in_dir(name, mnt, "card"), mnt, "inside the mountpoint ");
	refused(mnt, mnt, "inside the mountpoint ");
	refused("/proc/self/mem", NULL, "on proc, a kernel file system");
	refused("/proc/flashbench-store", NULL, "on proc, a kernel file");
	refused("/dev/null", NULL, "a character device, not a regular file");
	refused(fifo, NULL, "a FIFO, not a regular file or a block device");
	refused(dir, NULL, "a directory, not a regular file");
	refused(in_dir(name, dir, "new/"), NULL, "names a directory");
	symlink("nothing-here", in_dir(name, dir, "nowhere"));
	refused(name, NULL, "a symbolic link to nothing");
	unlink(name);
	UNIT_CHECK(access(in_dir(name, mnt, "card"), F_OK) < 0 &&
		   rmdir(mnt) == 0,
		   "the mountpoint holds nothing after the refusals");
	unlink(fifo);
}

/*
 * A shared directory (world-writable, as /tmp): a name another user
 * planted there - a hard link to one of our files, or as root a file or
 * a symbolic link of another user's - is refused.
 */
static void test_shared(const char *dir)
{
	char shared[NAME_BYTES], mine[NAME_BYTES], other[NAME_BYTES];

	mkdir(in_dir(shared, dir, "shared"), 0700);
	chmod(shared, 01777);
	close(open(in_dir(mine, shared, "mine"), O_CREAT | O_WRONLY, 0600));
	in_dir(other, shared, "other");
	UNIT_CHECK(link(mine, other) == 0, "a hard link in %s", shared);
	refused(other, NULL, "a file with 2 names in a directory anyone can "
		"write");
	unlink(other);
	if (geteuid() == 0) {
		UNIT_CHECK(symlink(mine, other) == 0 &&
			   lchown(other, 65534, 65534) == 0,
			   "a symbolic link of another user");
		refused(other, NULL, "a symbolic link of uid 65534 in a "
			"directory anyone can write");
		unlink(other);
		UNIT_CHECK(chown(mine, 65534, 65534) == 0,
			   "a file of another user");
		refused(mine, NULL, "a file of uid 65534 in a directory");
	}
	unlink(mine);
	rmdir(shared);
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

/* --- a counterfeit card's real blocks in the store ---------------------- */

/* spec opened read-write on *dev, its real blocks in a new memory store. */
static struct emustore *fake_on_store(struct dev *dev, const char *spec,
				      uint64_t cap_bytes)
{
	struct emustore *s = NULL;
	char msg[256];

	if (dev_open(dev, spec, DEV_READ_WRITE))
		return NULL;
	dev_allow_writes(dev, 0, dev->size_bytes);
	if (emustore_open(&s, dev->size_bytes, NULL, cap_bytes, msg,
			  sizeof(msg)) ||
	    sim_keep_data_in(dev, &emustore_sim_ops, s)) {
		emustore_close(s);
		dev_close(dev);
		return NULL;
	}
	return s;
}

/* 128 KiB across the second wrap of a 16 MiB card announced as 64 MiB. */
static void test_fake_wrap(unsigned char *buf, unsigned char *back)
{
	struct sim_stats st;
	struct emustore *s;
	struct dev dev;
	uint64_t ns;

	s = fake_on_store(&dev, "sim:size=64M,fake=16M", 64 * MIB);
	UNIT_CHECK(s != NULL, "a wraparound fake takes a store");
	if (!s)
		return;
	UNIT_CHECK(dev_write(&dev, buf, 32 * MIB - 64 * KIB, 128 * KIB,
			     &ns) == 0, "a write across the wrap succeeds");
	emustore_read(s, back, 16 * MIB - 64 * KIB, 64 * KIB);
	emustore_read(s, back + 64 * KIB, 0, 64 * KIB);
	UNIT_CHECK(memcmp(buf, back, 128 * KIB) == 0 &&
		   emustore_held_bytes(s) == 128 * KIB,
		   "the store holds it at the physical offsets (%llu held)",
		   (unsigned long long)emustore_held_bytes(s));
	dev_read(&dev, back, 32 * MIB - 64 * KIB, 128 * KIB, &ns);
	UNIT_CHECK(memcmp(buf, back, 128 * KIB) == 0,
		   "it reads back where it was written");
	dev_read(&dev, back, 16 * MIB - 64 * KIB, 64 * KIB, &ns);
	UNIT_CHECK(memcmp(buf, back, 64 * KIB) == 0,
		   "and where it landed");
	sim_stats(&dev, &st);
	UNIT_CHECK(st.held_bytes == 0, "the card keeps no data of its own "
		   "(%llu bytes)", (unsigned long long)st.held_bytes);
	UNIT_CHECK(dev_discard(&dev, 48 * MIB, 64 * KIB, &ns) == 0 &&
		   emustore_held_bytes(s) == 64 * KIB &&
		   (emustore_read(s, back, 0, 64 * KIB), 1) &&
		   all_bytes(back, 64 * KIB, 0),
		   "a discard at 48 MiB punches the block at 0");
	emustore_close(s);
	dev_close(&dev);
	s = fake_on_store(&dev, "sim:size=64M,fake=16M", 64 * KIB);
	UNIT_CHECK(s && dev_write(&dev, buf, 20 * MIB, 128 * KIB, &ns) ==
		   -ENOSPC, "past the store's cap the write gets -ENOSPC");
	emustore_close(s);
	dev_close(&dev);
}

/*
 * Past the real capacity the card decides: drop reads as what the card
 * keeping its own data reads (its old data), error fails, and the cache
 * serves the newest writes from the card's memory.
 */
static void test_fake_decides(unsigned char *buf, unsigned char *back)
{
	unsigned char *own = malloc(64 * KIB);
	struct emustore *s;
	struct sim_stats st;
	struct dev dev, self;
	uint64_t ns;

	s = fake_on_store(&dev, "sim:size=64M,fake=16M,fake-mode=drop",
			  64 * MIB);
	dev_open(&self, "sim:size=64M,fake=16M,fake-mode=drop",
		 DEV_READ_WRITE);
	UNIT_CHECK(s && dev_write(&dev, buf, 20 * MIB, 64 * KIB, &ns) == 0 &&
		   emustore_held_bytes(s) == 0, "a dropped write stores nothing");
	dev_read(&dev, back, 20 * MIB, 64 * KIB, &ns);
	dev_read(&self, own, 20 * MIB, 64 * KIB, &ns);
	UNIT_CHECK(memcmp(back, own, 64 * KIB) == 0 &&
		   memcmp(back, buf, 64 * KIB) != 0,
		   "it reads as the card's old data");
	dev_close(&self);
	emustore_close(s);
	dev_close(&dev);
	s = fake_on_store(&dev, "sim:size=64M,fake=16M,fake-mode=error",
			  64 * MIB);
	UNIT_CHECK(s && dev_read(&dev, back, 20 * MIB, 4 * KIB, &ns) == -EIO,
		   "error mode fails a read past the real capacity");
	emustore_close(s);
	dev_close(&dev);
	s = fake_on_store(&dev, "sim:size=64M,fake=16M,fake-mode=drop,"
			  "fake-cache=64K", 64 * MIB);
	UNIT_CHECK(s && dev_write(&dev, buf, 20 * MIB, 64 * KIB, &ns) == 0 &&
		   dev_read(&dev, back, 20 * MIB, 64 * KIB, &ns) == 0 &&
		   memcmp(back, buf, 64 * KIB) == 0,
		   "fake-cache= serves the newest write");
	sim_stats(&dev, &st);
	UNIT_CHECK(st.held_bytes >= 64 * KIB && emustore_held_bytes(s) == 0,
		   "the cache is the card's memory (%llu bytes)",
		   (unsigned long long)st.held_bytes);
	emustore_close(s);
	dev_close(&dev);
	dev_open(&dev, "sim:size=64M", DEV_READ_WRITE);
	UNIT_CHECK(sim_keep_data_in(&dev, &emustore_sim_ops, NULL) == -EINVAL,
		   "a card without a fake key takes no store");
	dev_close(&dev);
	free(own);
}

static void test_fake(void)
{
	unsigned char *buf = malloc(128 * KIB), *back = malloc(128 * KIB);

	for (size_t i = 0; i < 128 * KIB; i++)
		buf[i] = (unsigned char)(i * 13 + 5);
	test_fake_wrap(buf, back);
	test_fake_decides(buf, back);
	free(buf);
	free(back);
}

/* A new name: resolved, made only by the open, removed on discard. */
static void test_new(const char *dir)
{
	char name[NAME_BYTES], msg[PATH_MAX + 128], *real = realpath(dir, NULL);
	struct emustore_place place;
	struct emustore *s;
	int err;

	err = check(in_dir(name, dir, "./new.img"), NULL, &place, msg,
		    sizeof(msg));
	in_dir(name, real, "new.img");
	UNIT_STREQ(err ? msg : place.path, name, "a new name is resolved");
	UNIT_CHECK(!place.exists && access(name, F_OK) < 0,
		   "the check makes nothing");
	UNIT_CHECK(emustore_open(&s, 8 * MIB, &place, 0, msg,
				 sizeof(msg)) == 0 && access(name, F_OK) == 0,
		   "the open makes it");
	emustore_discard(s);
	UNIT_CHECK(access(name, F_OK) < 0, "a discarded new store is gone");
	check(name, NULL, &place, msg, sizeof(msg));
	emustore_open(&s, 8 * MIB, &place, 0, msg, sizeof(msg));
	emustore_close(s);
	UNIT_CHECK(access(name, F_OK) == 0, "a closed new store is kept");
	check(name, NULL, &place, msg, sizeof(msg));
	emustore_open(&s, 8 * MIB, &place, 0, msg, sizeof(msg));
	emustore_discard(s);
	UNIT_CHECK(access(name, F_OK) == 0,
		   "a store found there is kept, even discarded");
	unlink(name);
	free(real);
}

/*
 * A store that cannot grow to the card's size (RLIMIT_FSIZE stands for a
 * full or small file system): a new one is gone again, an existing one
 * is kept as it was.
 */
static void test_grow_fails(const char *dir)
{
	char name[NAME_BYTES], msg[PATH_MAX + 128];
	struct rlimit old, small;
	struct emustore_place place;
	struct emustore *s;
	struct stat st;
	int fd;

	in_dir(name, dir, "small.img");
	getrlimit(RLIMIT_FSIZE, &old);
	small = old;
	small.rlim_cur = MIB;
	signal(SIGXFSZ, SIG_IGN);
	setrlimit(RLIMIT_FSIZE, &small);
	check(name, NULL, &place, msg, sizeof(msg));
	UNIT_CHECK(emustore_open(&s, 8 * MIB, &place, 0, msg,
				 sizeof(msg)) == -EFBIG &&
		   access(name, F_OK) < 0,
		   "a new store that cannot grow is removed: %s", msg);
	fd = open(name, O_CREAT | O_WRONLY, 0600);
	UNIT_CHECK(write(fd, "data", 4) == 4, "an existing store written");
	close(fd);
	check(name, NULL, &place, msg, sizeof(msg));
	UNIT_CHECK(emustore_open(&s, 8 * MIB, &place, 0, msg,
				 sizeof(msg)) == -EFBIG &&
		   stat(name, &st) == 0 && st.st_size == 4,
		   "an existing one that cannot grow is kept as it was");
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_DFL);
	unlink(name);
}

int main(void)
{
	char dir[] = "/tmp/unit-emustore-dir.XXXXXX";

	test_memory();
	test_file();
	if (!mkdtemp(dir)) {
		UNIT_CHECK(0, "mkdtemp: %s", strerror(errno));
		return UNIT_DONE();
	}
	test_refusals(dir);
	test_shared(dir);
	test_new(dir);
	test_grow_fails(dir);
	UNIT_CHECK(rmdir(dir) == 0, "nothing is left in %s", dir);
	test_counters();
	test_fake();
	return UNIT_DONE();
}
