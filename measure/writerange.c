/*
 * writerange: the one floor under every write test (writerange.h).
 */
#include "measure/writerange.h"

uint64_t measure_write_floor(uint64_t erase_bytes)
{
	return (MEASURE_WRITE_FLOOR_BYTES + erase_bytes - 1) / erase_bytes *
	       erase_bytes;
}
