# flashbench: build, test and install.
# make            build flashbench and erase
# make check      run the test suite (root adds the loop-device tests)
# make install    honours PREFIX, BINDIR, MANDIR and DESTDIR

CC ?= cc
CFLAGS ?= -O2 -g
WARNINGS = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wformat=2
CPPFLAGS += -D_GNU_SOURCE
ALL_CFLAGS = -std=gnu11 $(WARNINGS) $(CFLAGS) -MMD -MP
LDLIBS += -lm

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
INSTALL ?= install

# every module; the two programs add their own main
MODULES = cli units lfsr dev blockdev sim vm programs report analysis analyze info json \
	plot progress speed detect
MODULE_OBJS = $(addsuffix .o,$(filter $(MODULES),$(basename $(wildcard *.c))))
PROGRAMS = flashbench erase
UNIT_TESTS = $(basename $(wildcard tests/unit-*.c))

all: $(PROGRAMS)

%.o: %.c
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

flashbench: flashbench.o $(MODULE_OBJS)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

erase: erase.o $(MODULE_OBJS)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

tests/unit-%: tests/unit-%.c $(MODULE_OBJS)
	$(CC) $(CPPFLAGS) -I. -Itests $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# make check runs the suite, then again on a copy of the tree built with
# AddressSanitizer and UndefinedBehaviorSanitizer (SANITIZE=0 skips that)
SANITIZE ?= 1
SAN_DIR = .sanitize
SAN_CFLAGS = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all

check: all $(UNIT_TESTS) $(if $(filter 1,$(SANITIZE)),sanitized)
	FLASHBENCH_SANITIZED=$(if $(filter 1,$(SANITIZE)),$(CURDIR)/$(SAN_DIR)) \
		sh tests/run.sh

unit-tests: $(UNIT_TESTS)

sanitized:
	rm -rf $(SAN_DIR)
	mkdir -p $(SAN_DIR)/tests
	cp *.c *.h Makefile $(SAN_DIR)/
	cp tests/*.c tests/*.h $(SAN_DIR)/tests/
	$(MAKE) -C $(SAN_DIR) CFLAGS="$(SAN_CFLAGS)" all unit-tests >/dev/null

# benchmarks print figures; they are never part of make check
bench:
	sh bench/run.sh

install: all
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	$(INSTALL) -m 755 $(PROGRAMS) $(DESTDIR)$(BINDIR)
	$(INSTALL) -m 644 flashbench.1 erase.1 $(DESTDIR)$(MANDIR)/man1

clean:
	rm -f $(PROGRAMS) *.o *.d tests/*.o tests/*.d $(UNIT_TESTS)
	rm -rf $(SAN_DIR)

-include $(wildcard *.d tests/*.d)

.PHONY: all check unit-tests sanitized bench install clean
