/*
 * records/detect: --detect's findings as records with their text layout,
 * rendered in every format by report.c; the staircase and the advice,
 * which --analyze reports the same way.
 */
#ifndef FLASHBENCH_RECORDS_DETECT_H
#define FLASHBENCH_RECORDS_DETECT_H

#include <stdio.h>

#include "analysis/detected.h"
#include "analysis/findings.h"
#include "output/render.h"

/* The looks of both readings' findings: "12KiB", "(confidence 0.99)". */
extern const struct text_look detect_exact_size_look;
extern const struct text_look detect_confidence_look;

/*
 * A detect run's report: the device, the card, each finding, the cost,
 * the staircase, the advice and the read timing behind them.  meta
 * names the run; JSON adds "findings", the findings keyed by name.
 * Returns 0, -ENOMEM or -EIO.
 */
int detect_report(FILE *out, enum render_format format,
		  const struct render_meta *meta, const struct dev *dev,
		  const struct detect_findings *findings);

/*
 * The second reading of the erase size, where two fit: a "finding",
 * shown on line as "SIZE (weight W against C<tail>)".
 */
int detect_report_alternative(struct render *report,
			      const struct analysis_geometry *geometry,
			      const struct text_layout *line,
			      const char *tail);

/*
 * What writing out of order costs, a "finding" named random_linear_ratio
 * (value, nr, confidence and a label field why_key holding why), shown
 * on line as "R <of> at N=1 (confidence C)" or "not determined: WHY";
 * shown false: in no text.
 */
int detect_report_order_cost(struct render *report,
			     const struct analysis_order_cost *cost,
			     const struct text_layout *line, const char *of,
			     const char *why_key, const char *why,
			     bool shown);

/*
 * A "staircase" record (noise, erase visible), then a "level" each;
 * shown: in the text too.
 */
int detect_report_staircase(struct render *report,
			    const struct analysis_geometry *geometry,
			    bool shown);

/* Lines of text (advice, notes), a record of kind each, the first
   under heading. */
int detect_report_lines(struct render *report, const char *kind,
			const char *heading,
			const char (*lines)[ANALYSIS_ADVICE_BYTES],
			size_t count);

#endif
