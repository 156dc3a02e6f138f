# The two commands of the README: `make run` and `make test`. Each installs what it needs
# (Debian packages, as root), configures and builds. Everything else is meson.
BUILD ?= build
SANBUILD ?= build-san
EXAMPLE ?= examples/page.dot
D ?= 3
DEB_PACKAGES = meson ninja-build pkg-config gcc g++ clang binutils libgmp-dev libgraphviz-dev libcriterion-dev python3 graphviz clang-format libcadical-dev nodejs python3-matplotlib time

.PHONY: all deps run test test-fast bench clean

all: $(BUILD)/build.ninja
	ninja -C $(BUILD)

deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" -ne 0 ]; then echo "make: run as root (or with sudo) to install:$$missing" >&2; exit 1; fi; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing; \
	fi

$(BUILD)/build.ninja: | deps
	meson setup $(BUILD) --buildtype=debugoptimized

$(SANBUILD)/build.ninja: | deps
	meson setup $(SANBUILD) --buildtype=debug -Db_sanitize=address,undefined -Db_lundef=false

# Generate a hitting family for the example event-loop page and verify it.
run: all
	$(BUILD)/cli/hitfam stats --d $(D) $(EXAMPLE)
	$(BUILD)/cli/hitfam gen --d $(D) $(EXAMPLE) | tee $(BUILD)/family.txt
	$(BUILD)/cli/hitfam verify --d $(D) $(EXAMPLE) $(BUILD)/family.txt
	$(BUILD)/cli/hitfam draw $(EXAMPLE) $(BUILD)/family.txt --row 1 | dot -Tsvg -o $(BUILD)/schedule1.svg
	@echo "drawn: $(BUILD)/schedule1.svg (the order with schedule 1 of the family)"

# The whole suite, then again under AddressSanitizer + UBSan (leaks fail it too).
test: all $(SANBUILD)/build.ninja
	ninja -C $(SANBUILD)
	meson test -C $(BUILD) --print-errorlogs
	meson test -C $(SANBUILD) --print-errorlogs --timeout-multiplier 3

test-fast: all
	meson test -C $(BUILD) --print-errorlogs

bench: all
	meson test -C $(BUILD) --benchmark --verbose

# The figure of coverage against runs (docs/figures/compare_page_d3.svg and .png) from
# `hitfam compare --json`, with Debian's matplotlib (python3-matplotlib, installed by deps).
FIGURE_PYTHON ?= /usr/bin/python3
.PHONY: figures
figures: all
	$(FIGURE_PYTHON) papers/baselines/figure.py $(BUILD)/cli/hitfam

clean:
	rm -rf $(BUILD) $(SANBUILD)
