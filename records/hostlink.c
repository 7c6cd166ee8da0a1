/*
 * hostlink: the link record.  Text shows its reason alone ("link: the
 * host runs ..."); the machine formats have every value of the link.
 */
#include <math.h>

#include "records/hostlink.h"
#include "vm/layout.h"

static const struct text_look reason_text = { .display = TEXT_AS_UNIT,
					      .template = "link: %" };
static const struct text_layout link_layout = { .style = TEXT_SPACES };

/* a value for the machine formats: the text shows the reason only */
static void add_value(struct record *rec, enum record_unit unit,
		      const char *key, bool known, double value)
{
	record_add(rec, unit, key, &text_hidden, NULL, known ? value : NAN);
}

void link_record(const struct link_info *l, struct record *rec)
{
	bool mmc = link_mmc_read(l);

	*rec = (struct record){ .layout = &link_layout, .kind = "link" };
	record_add(rec, RECORD_LABEL, "link.bus", &text_hidden,
		   link_bus_name(l), 0);
	record_add(rec, RECORD_LABEL, "link.timing", &text_hidden,
		   link_timing_name(l), 0);
	add_value(rec, RECORD_COUNT, "link.clock_hz", mmc && l->ios.has_clock,
		  (double)link_clock_hz(l));
	add_value(rec, RECORD_COUNT, "link.bus_width_bits",
		  mmc && l->ios.has_bus_width, (double)l->ios.bus_width_bits);
	record_add(rec, RECORD_LABEL, "link.signal_voltage", &text_hidden,
		   mmc && l->ios.has_signal_voltage ?
		   l->ios.signal_voltage : NULL, 0);
	add_value(rec, RECORD_RATE, "link.ceiling_bytes_per_s",
		  l->has_ceiling, (double)l->ceiling_bytes_per_s);
	add_value(rec, RECORD_BOOL, "link.limits_card",
		  l->limits_card != LINK_UNKNOWN, l->limits_card == LINK_YES);
	record_add(rec, RECORD_LABEL, "link.reason", &reason_text, l->reason,
		   0);
}
