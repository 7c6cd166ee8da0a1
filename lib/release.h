/*
 * release: the tool's version, one for flashbench, erase and flashemu,
 * as each prints it for --version ("erase 1.0").
 */
#ifndef FLASHBENCH_RELEASE_H
#define FLASHBENCH_RELEASE_H

#define VERSION "1.0"

#endif
