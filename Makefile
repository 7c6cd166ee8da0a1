# flashbench: build, test and install.
# make            build flashbench, erase and flashemu
# make check      run the test suite (root adds the loop-device tests)
# make check-repeat  the suite REPEAT (5) times with every core busy
# make install    honours PREFIX, BINDIR, MANDIR and DESTDIR; erase goes in
#                 as flashbench-erase, a name no other package takes

CC ?= cc
CFLAGS ?= -O2 -g
WARNINGS = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wformat=2
# 64-bit file offsets on 32-bit targets too (blockdev.c asserts it); kept
# when CPPFLAGS is given on the command line
override CPPFLAGS += -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64
ALL_CFLAGS = -std=gnu11 $(WARNINGS) $(CFLAGS) -MMD -MP
LDLIBS += -lm -pthread

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
INSTALL ?= install

# Sources live in folders by concern (README: the house); objects and
# dependency files go to $(BUILD), the three programs to the root.  The
# modules are every source but the programs' mains and the emulator.
BUILD ?= build
SRC_DIRS = lib engines engines/sim vm analysis output identity measure measure/undo records modes
MODULE_SRCS = dev.c vm.c $(wildcard $(addsuffix /*.c,$(SRC_DIRS)))
MODULE_OBJS = $(patsubst %.c,$(BUILD)/%.o,$(MODULE_SRCS))
# erase needs only the devices (dev, blockdev, sim), sizes, option errors
# and the error lines
SIM_OBJS = $(patsubst %.c,$(BUILD)/%.o,$(wildcard engines/sim/*.c))
ERASE_OBJS = $(patsubst %,$(BUILD)/%.o,lib/cli lib/die lib/units dev \
	engines/blockdev engines/uring engines/linuxaio lib/stampblock) \
	$(SIM_OBJS)
# erase reports through the output layer, naming the device as every
# JSON document does
ERASE_REPORT_OBJS = $(patsubst %,$(BUILD)/%.o,output/render output/renderjson \
	output/renderstate output/json \
	identity/devname identity/infosysfs identity/inforeg identity/hostlink \
	identity/hostq lib/sysattr lib/readfile lib/record lib/jsonparse)
# flashemu: the devices, the store, the FUSE server and the output layer
EMU_OBJS = $(ERASE_OBJS) $(patsubst %,$(BUILD)/%.o,output/json output/render \
	output/renderjson output/renderstate emu/emustore \
	emu/fuseserver lib/readfile lib/record lib/jsonparse)
PROGRAMS = flashbench erase flashemu
UNIT_TESTS = $(basename $(wildcard tests/unit-*.c))
override CPPFLAGS += -I.

all: $(PROGRAMS)

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

flashbench: $(BUILD)/flashbench.o $(MODULE_OBJS)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

erase: $(BUILD)/erase.o $(ERASE_OBJS) $(ERASE_REPORT_OBJS)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

flashemu: $(BUILD)/emu/flashemu.o $(EMU_OBJS)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# a unit test's dependency file goes to $(BUILD) too, not beside it
UNIT_DEPS = -MF $(BUILD)/tests/$(notdir $@).d

tests/unit-%: tests/unit-%.c $(MODULE_OBJS)
	@mkdir -p $(BUILD)/tests
	$(CC) $(CPPFLAGS) -Itests $(ALL_CFLAGS) $(UNIT_DEPS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# flashemu's store is no module of flashbench's
tests/unit-emustore: tests/unit-emustore.c $(MODULE_OBJS) $(BUILD)/emu/emustore.o
	@mkdir -p $(BUILD)/tests
	$(CC) $(CPPFLAGS) -Itests $(ALL_CFLAGS) $(UNIT_DEPS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# make check runs the suite, then again on a copy of the tree built with
# AddressSanitizer and UndefinedBehaviorSanitizer (SANITIZE=0 skips that)
SANITIZE ?= 1
SAN_DIR = build/sanitize
SAN_CFLAGS = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all

check: all $(UNIT_TESTS) $(if $(filter 1,$(SANITIZE)),sanitized)
	FLASHBENCH_SANITIZED=$(if $(filter 1,$(SANITIZE)),$(CURDIR)/$(SAN_DIR)) \
		sh tests/run.sh

# make check-repeat: the suite REPEAT times while a CPU hog keeps every
# core busy; each run's closing line; fails if any run fails
REPEAT ?= 5
check-repeat: all $(UNIT_TESTS) $(if $(filter 1,$(SANITIZE)),sanitized)
	REPEAT=$(REPEAT) FLASHBENCH_SANITIZED=$(if $(filter 1,$(SANITIZE)),$(CURDIR)/$(SAN_DIR)) \
		sh tests/repeat.sh

unit-tests: $(UNIT_TESTS)

# copy_tree DIR: the sources, fresh, in DIR, for a build of their own
copy_tree = rm -rf $(1) && mkdir -p $(1)/tests && \
	cp *.c *.h Makefile $(1)/ && cp -r --parents $(SRC_DIRS) emu $(1)/ && \
	cp tests/*.c tests/*.h $(1)/tests/

sanitized:
	$(call copy_tree,$(SAN_DIR))
	$(MAKE) -C $(SAN_DIR) CFLAGS="$(SAN_CFLAGS)" all unit-tests >/dev/null

# make doc: the charts in doc/ drawn anew from simulated runs (the open-AU
# sweep of readme-example, which keeps 2 erase blocks open: a cliff at 3)
DOC_RUNS = $(BUILD)/doc
doc: flashbench
	@mkdir -p $(DOC_RUNS)
	for n in 1 2 3 4; do \
		./flashbench -O -0 $$n --erasesize=4M --blocksize=16K \
			--format=json sim:readme-example >$(DOC_RUNS)/run$$n.json \
			2>/dev/null || exit 1; \
	done
	./flashbench --plot=doc/open-au-cliff.svg $(DOC_RUNS)/run1.json \
		$(DOC_RUNS)/run2.json $(DOC_RUNS)/run3.json $(DOC_RUNS)/run4.json

.PHONY: doc

# benchmarks print figures; they are never part of make check
bench:
	sh bench/run.sh

install: all
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	$(INSTALL) -m 755 flashbench flashemu $(DESTDIR)$(BINDIR)
	$(INSTALL) -m 644 doc/flashbench.1 doc/flashemu.1 $(DESTDIR)$(MANDIR)/man1
	$(INSTALL) -m 755 erase $(DESTDIR)$(BINDIR)/flashbench-erase
	$(INSTALL) -m 644 doc/erase.1 $(DESTDIR)$(MANDIR)/man1/flashbench-erase.1

clean:
	rm -f $(PROGRAMS) $(UNIT_TESTS)
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' -not -path '$(BUILD)/*/build/*' 2>/dev/null)

.PHONY: all check check-repeat unit-tests sanitized bench install clean

# make fuzz: libFuzzer targets (fuzz/fuzz-*.c, built with clang into
# build/fuzz/, apart from the normal build), each run FUZZ_SECONDS on its
# corpus in tests/fuzz-corpus/NAME/; inputs found go to build/fuzz/new/NAME/
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_BIN = $(BUILD)/fuzz
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS = -std=gnu11 $(WARNINGS) -Werror -O1 -g -fno-omit-frame-pointer \
	$(FUZZ_SAN)
FUZZ_OBJS = $(patsubst %.c,$(FUZZ_BIN)/obj/%.o,$(MODULE_SRCS))
FUZZ_TARGETS = $(patsubst fuzz/%.c,$(FUZZ_BIN)/%,$(wildcard fuzz/fuzz-*.c))

$(FUZZ_BIN)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link \
		-MMD -MP -c -o $@ $<

$(FUZZ_BIN)/fuzz-%: fuzz/fuzz-%.c fuzz/fuzz.h $(FUZZ_OBJS)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ \
		$< $(FUZZ_OBJS) $(LDLIBS)

fuzz-build: $(FUZZ_TARGETS)

.SECONDARY: $(FUZZ_OBJS)

fuzz: fuzz-build
	sh fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_BIN) $(FUZZ_BIN)/new

# make check-valgrind: the unit and shell tests with every flashbench,
# erase and unit-test process under valgrind's memcheck
check-valgrind: all $(UNIT_TESTS)
	sh tests/valgrind-run.sh

-include $(shell find $(FUZZ_BIN)/obj -name '*.d' 2>/dev/null)

.PHONY: fuzz fuzz-build check-valgrind

# make check-32: a copy of the tree built with $(CC) -m32 in build/32/
# (-Werror, and -Wconversion on every source file), its unit tests and the
# loop set past 4 GiB (tests/check-32bit.sh) run with its binaries.
# make check-armhf: the same cross-built for armhf and run under qemu-arm
# (through wrappers in build/armhf/qemu/).  clang needs only the cross libc,
# libgcc and binutils, where Debian's gcc cross compiler would displace
# gcc-multilib.
B32_DIR = build/32
B32_CFLAGS = -O2 -g -Werror
CONVERSION_CLEAN = $(wildcard *.c emu/*.c) $(MODULE_SRCS)
ARMHF_DIR = build/armhf
ARMHF_CC ?= clang --target=arm-linux-gnueabihf
QEMU_ARM ?= qemu-arm -L /usr/arm-linux-gnueabihf
UNIT_NAMES = $(notdir $(UNIT_TESTS))

check-32: all
	$(call copy_tree,$(B32_DIR))
	$(MAKE) -C $(B32_DIR) CC="$(CC) -m32" CFLAGS="$(B32_CFLAGS)" \
		all unit-tests >/dev/null
	$(CC) -m32 $(CPPFLAGS) -std=gnu11 $(WARNINGS) -Wconversion -Werror \
		-fsyntax-only $(CONVERSION_CLEAN)
	FLASHBENCH_BIN_DIR=$(CURDIR)/$(B32_DIR) \
		sh tests/run.sh $(UNIT_NAMES) check-32bit.sh t4100-golden.sh

check-armhf: all
	$(call copy_tree,$(ARMHF_DIR))
	$(MAKE) -C $(ARMHF_DIR) CC="$(ARMHF_CC)" CFLAGS="$(B32_CFLAGS)" \
		all unit-tests >/dev/null
	mkdir -p $(ARMHF_DIR)/qemu
	ln -sfn ../tests $(ARMHF_DIR)/qemu/tests
	for p in $(PROGRAMS); do \
		printf '#!/bin/sh\nexec %s "$$(dirname "$$0")/../%s" "$$@"\n' \
			"$(QEMU_ARM)" $$p >$(ARMHF_DIR)/qemu/$$p && \
		chmod +x $(ARMHF_DIR)/qemu/$$p || exit 1; \
	done
	FLASHBENCH_BIN_DIR=$(CURDIR)/$(ARMHF_DIR)/qemu \
		UNIT_WRAPPER="$(QEMU_ARM)" \
		sh tests/run.sh $(UNIT_NAMES) check-32bit.sh t4100-golden.sh

.PHONY: check-32 check-armhf
