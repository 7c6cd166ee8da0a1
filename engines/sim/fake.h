/*
 * The simulated card's fake store (fake.c): what a card with a fake key
 * keeps of the data written to it, where each offset lands, and what a
 * read returns.  The time each operation takes is the model's.
 */
#ifndef FLASHBENCH_SIM_FAKE_H
#define FLASHBENCH_SIM_FAKE_H

#include <stdbool.h>
#include <stdint.h>

#include "engines/sim.h"
#include "engines/sim/card.h"

struct sim_fake;

/*
 * The store of a card of parameters p in *out: NULL when p has no fake
 * key (the card keeps no data).  0, or -ENOMEM.
 */
int sim_fake_open(const struct sim_params *p, struct sim_fake **out);

/* Free f and all it holds; NULL is nothing to free. */
void sim_fake_close(struct sim_fake *f);

/* Where the card puts a sector: its fate, and the real offset. */
enum sim_fake_fate sim_fake_place(const struct sim_fake *f, uint64_t offset,
				  uint64_t *real_offset);

/*
 * Where [pos, end) lands, as far as it lands in one piece: the physical
 * offset in *real and the fate (sim_fake_place's), and the end of the
 * piece - the real capacity, or the next wrap.
 */
uint64_t sim_fake_piece(const struct sim_fake *f, uint64_t pos,
			uint64_t end, uint64_t *real,
			enum sim_fake_fate *fate);

/*
 * Keep, or read back, the whole sectors of a range already checked to lie
 * on the card: in the store's memory, or in the caller's store
 * (sim_fake_keep_in).  0, -EIO (a sector lost past the real capacity in
 * error mode) or an error of the caller's store, -ENOMEM.
 */
int sim_fake_write(struct sim_fake *f, const void *buf, uint64_t offset,
		   uint64_t length);
int sim_fake_read(const struct sim_fake *f, void *buf, uint64_t offset,
		  uint64_t length);

/* A discard: the caller's store is punched where it keeps the range. */
int sim_fake_punch(const struct sim_fake *f, uint64_t offset,
		   uint64_t length);

/*
 * Can f take stamps of 512-byte blocks without their bytes (no
 * fake-cache=, which keeps bytes, and no caller's store)?
 */
bool sim_fake_takes_stamps(const struct sim_fake *f);

/*
 * Stamps of [offset, offset + length), each sector naming its own offset
 * with salt, kept as runs (sim_fake_stamp); does each sector of the range
 * read back as such a stamp (sim_fake_stamped)?
 */
int sim_fake_stamp(struct sim_fake *f, uint64_t offset, uint64_t length,
		   uint64_t salt);
bool sim_fake_stamped(const struct sim_fake *f, uint64_t offset,
		      uint64_t length, uint64_t salt);

/* held_bytes and stamp_runs of *out: what the data takes in memory. */
void sim_fake_held(const struct sim_fake *f, struct sim_stats *out);

/*
 * Physical bytes from real on (at most max) that lie in erase blocks a
 * worn card garbles (wear.c); 0 where real's block reads as it holds.
 */
typedef uint64_t (*sim_garbled_fn)(const void *ctx, uint64_t real,
				   uint64_t max);

/*
 * Reads of stamps in garbled blocks are made as garbled stamps without
 * their bytes (sim_garble_sector over a stamp's header): garbled says
 * where.  The caller still garbles what a read returns from bytes.
 */
void sim_fake_garbled_by(struct sim_fake *f, sim_garbled_fn garbled,
			 const void *ctx);

/* From now on the real blocks' data goes to ops (with ctx). */
void sim_fake_keep_in(struct sim_fake *f, const struct sim_data_ops *ops,
		      void *ctx);

#endif
