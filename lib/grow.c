/*
 * grow: room in a heap array that doubles as it fills.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/grow.h"

int grow_array(void **array, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 64;
	void *bigger;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return -ENOMEM;
		n *= 2;
	}
	/* a count the heap could never hold is refused, not wrapped */
	if (size && n > SIZE_MAX / size)
		return -ENOMEM;
	bigger = realloc(*array, n * size);
	if (!bigger)
		return -ENOMEM;
	*array = bigger;
	*cap = n;
	return 0;
}
