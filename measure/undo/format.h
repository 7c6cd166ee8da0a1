/*
 * undo/format: an append-only log of old block contents.  Layout (little
 * endian) of FBUNDO02:
 *
 * - a 256-byte header: magic "FBUNDO02", device size, logical block
 *   size, fingerprint, the file's salt, the number of stamp salts, the
 *   salts (those the run's stamps carry, so a restore tells them from
 *   data), and a checksum of the header;
 * - records: a 64-byte head (magic "FBUREC02", kind, offset, length,
 *   FNV-1a of the data, sequence number, and a checksum of the head
 *   seeded with the file's salt), the data, then a trailer: the head
 *   again under the magic "FBUEND02".  A record of kind 2 holds no data:
 *   it marks the usable size the check found.  A chunked run (--surface
 *   --keep-data) adds kind 3, no data either: the range [offset, offset +
 *   extent) (the extent in the head's seventh word) holds its old
 *   contents again, so a restore leaves the records before it that
 *   saved it alone; and kind 4, a progress record whose data is where
 *   the run stands (struct undo_progress, eight words).  Such a run
 *   starts its file anew, by a rename, once every chunk in it is done:
 *   the file never holds more than the chunks of a few steps.
 *
 * The salted checksum lets a reader that meets a damaged head scan
 * forward to the next head or trailer: no saved block can pass for one,
 * since the salt was drawn after its data was on the device.  A trailer
 * gives back the range of a record whose head is damaged.  A record the
 * file ends inside may be one a crash left before its fsync (its blocks
 * never overwritten) or one whose end was lost since: the file cannot
 * tell, the device can.  Its blocks are read: where none holds what the
 * run writes, it is skipped; else it is put back if its data is whole,
 * and listed as not put back if not.  FBUNDO01 files (a 64-byte header
 * with no salts; records of magic "FBUR", offset, length, FNV-1a of the
 * data, the data) are read as before: up to the first record that is
 * not whole.
 */
#ifndef FLASHBENCH_UNDO_FORMAT_H
#define FLASHBENCH_UNDO_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "measure/undo/undo.h"

#define UNDO_HEADER1_BYTES 64
#define UNDO_HEAD1_BYTES 32		/* an FBUNDO01 record's head */
#define UNDO_HEADER_BYTES 256
#define UNDO_HEAD_BYTES 64		/* a record's head, and its trailer */
#define UNDO_MAX_RECORD_BYTES (64ULL << 20)
/* the header's fields */
enum { UNDO_H_DEVICE = 8, UNDO_H_BLOCK = 16, UNDO_H_FINGERPRINT = 24,
       UNDO_H_SALT = 32, UNDO_H_SALT_COUNT = 40, UNDO_H_SALTS = 48,
       UNDO_H_SUM = UNDO_HEADER_BYTES - 8 };
_Static_assert(UNDO_H_SALTS + 8 * UNDO_MAX_SALTS <= UNDO_H_SUM,
	       "the salts fit");

/* a head's and a trailer's fields */
enum { UNDO_R_KIND = 8, UNDO_R_OFFSET = 16, UNDO_R_LENGTH = 24,
       UNDO_R_HASH = 32, UNDO_R_SEQUENCE = 40, UNDO_R_EXTENT = 48,
       UNDO_R_SUM = UNDO_HEAD_BYTES - 8 };
/* UNDO_KIND_WORDS: saved blocks whose data checksum is taken a word at a
   time (stampblock_hash_words), what is written now; UNDO_KIND_BLOCKS
   ones, byte by byte (FNV-1a), are read as before */
enum { UNDO_KIND_BLOCKS = 1, UNDO_KIND_USABLE = 2, UNDO_KIND_DONE = 3,
       UNDO_KIND_PROGRESS = 4, UNDO_KIND_WORDS = 5 };
#define UNDO_PROGRESS_WORDS 8
#define UNDO_PROGRESS_BYTES (8 * UNDO_PROGRESS_WORDS)

/* stamp.c's layout: magic, offset, then the salt */
#define UNDO_STAMP_SALT_AT 16

/* The magics, 8 bytes each, no terminator. */
extern const char undo_magic_header1[8];	/* FBUNDO01 */
extern const char undo_magic_header[8];		/* FBUNDO02 */
extern const char undo_magic_record1[8];	/* an FBUNDO01 record */
extern const char undo_magic_head[8];
extern const char undo_magic_trailer[8];

/* A checksum of p seeded with salt: a head's, a trailer's, the header's. */
uint64_t undo_salted_sum(uint64_t salt, const unsigned char *p,
			 size_t length);

/* A record's data checksum, as its kind says. */
uint64_t undo_data_hash(uint64_t kind, const void *data, size_t length);

/* A progress record's data, UNDO_PROGRESS_BYTES, written and read. */
void undo_put_progress(unsigned char *p, const struct undo_progress *pr);
void undo_get_progress(const unsigned char *p, struct undo_progress *pr);

#endif
