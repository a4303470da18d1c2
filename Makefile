# CUDA Memory Labs — one non-recursive Makefile for the whole course.
#
#   make                  build common/ and every lab twice: student variant (labs/) and
#                         solution variant (solutions/ over labs/), into build/
#   make lab LAB=3.3      build one lab from your files in labs/<LAB>-*/:
#                         build/<lab folder>/student/lab and its objects (kernels.cu.o)
#   make grade LAB=3.3    grade your work in labs/<LAB>-*/ (exit 0 once grading completed)
#   make selfcheck        instructors: every solution full marks, every skeleton zero
#   make test             the test suite (CI runs this; GPU tests run only with a GPU)
#   make gpu-check        everything that needs a GPU, logged to $(GPU_LOG_DIR)
#   make skeletons        regenerate labs/*/<student files> from solutions/
#   make dist-student     the student release, without solutions/: build/dist/*.tar.gz
#   make gradescope LAB=3.3  a Gradescope autograder zip (GPU autograder machines):
#                         build/dist/gradescope-<lab folder>.zip
#   make CUDA_ARCH=sm_80  build for another GPU (default sm_90: H100/H200)
#   make V=1              show full commands
#
# Flags are layered (redis style): CFLAGS / NVCCFLAGS / LDFLAGS given by the user add to
# the course's own, they do not replace them.

CUDA_ARCH ?= sm_90
NVCC ?= nvcc
CC ?= cc
PYTHON ?= python3
BUILD ?= build
V ?= 0

NVCC_PATH := $(shell command -v $(NVCC) 2>/dev/null)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC_PATH))
CUDA_INC := $(CUDA_HOME)/include
CUDA_LIB := $(firstword $(wildcard $(CUDA_HOME)/lib64 $(CUDA_HOME)/targets/x86_64-linux/lib) $(CUDA_HOME)/lib64)

# Check (unit tests only). Override both where Check is not installed system-wide.
CHECK_CFLAGS ?= $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS ?= $(shell pkg-config --libs check 2>/dev/null)

COURSE_CFLAGS := -std=c11 -Wall -Wextra -Werror -O2 -MD -MP -Icommon -I$(CUDA_INC)
COURSE_NVCCFLAGS := -std=c++17 -O3 -arch=$(CUDA_ARCH) -lineinfo -MD -MP -Icommon \
                    -Xcompiler -Wall
ALL_CFLAGS = $(COURSE_CFLAGS) $(CFLAGS)
ALL_NVCCFLAGS = $(COURSE_NVCCFLAGS) $(NVCCFLAGS)
CUDA_LDLIBS := -L$(CUDA_LIB) -lcudart_static -ldl -lrt -lpthread -lm
# Every lab binary's launches go through the lab's launch record (common/cml_launches.h): GNU
# ld's --wrap for the runtime's launch entry points (what <<<>>> compiles to, and the API).
# Only where common/ has the wrappers (the grader's tests build a fake common/ without them).
CML_LAUNCH_WRAP := $(if $(wildcard common/cml_launch_wrap.c),\
                     $(foreach s,__cudaLaunchKernel __cudaLaunchKernel_ptsz cudaLaunchKernel \
                       cudaLaunchKernel_ptsz cudaLaunchKernelExC cudaLaunchKernelExC_ptsz,\
                       -Xlinker --wrap=$(s)))

ifeq ($(V),1)
  Q :=
  say :=
else
  Q := @
  say = @printf '  %-7s %s\n' $(1) $(2);
endif

# A GPU is present when nvidia-smi lists one (used only to decide which tests run).
HAVE_GPU := $(shell nvidia-smi -L >/dev/null 2>&1 && echo 1)

.DEFAULT_GOAL := all

# ---------------------------------------------------------------------------------------
# common/: libcml.a (plain C11 host code over the CUDA runtime; .cu files if any)

LIBCML := $(BUILD)/common/libcml.a
COMMON_C := $(wildcard common/*.c)
COMMON_CU := $(wildcard common/*.cu)
COMMON_OBJS := $(COMMON_C:common/%.c=$(BUILD)/common/%.c.o) \
               $(COMMON_CU:common/%.cu=$(BUILD)/common/%.cu.o)

$(BUILD)/common/%.c.o: common/%.c
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(ALL_CFLAGS) -c $< -o $@

# common/*.cu (the judge's empty kernel) runs on any course GPU whatever CUDA_ARCH the labs
# were built for: machine code for sm_80 and sm_90, and PTX for later chips.
COMMON_GENCODE := -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
                  -gencode arch=compute_90,code=compute_90
$(BUILD)/common/%.cu.o: common/%.cu
	@mkdir -p $(@D)
	$(call say,NVCC,$<)$(NVCC) $(filter-out -arch=%,$(ALL_NVCCFLAGS)) $(COMMON_GENCODE) -c $< -o $@

$(LIBCML): $(COMMON_OBJS)
	$(call say,AR,$@)rm -f $@ && ar rcs $@ $^

.PHONY: common
common: $(LIBCML)

# ---------------------------------------------------------------------------------------
# Labs. Every labs/<id>-<slug>/ with a lab.toml is a lab; its top-level *.cu and *.c are
# its sources (*.c are plain C11, e.g. the CPU reference). A lab is built twice:
#   $(BUILD)/<lab>/student/lab   from labs/<lab>/
#   $(BUILD)/<lab>/solution/lab  from solutions/<lab>/ where a file exists there, else labs/<lab>/
# The grader builds an assembled submission with the same rules: make lab-bin LAB_SRC=DIR LAB_OUT=DIR

LABS := $(patsubst labs/%/lab.toml,%,$(wildcard labs/*/lab.toml))

# $(call obj_rules,OUTDIR,SRCDIR,INCDIRS): compile SRCDIR/*.cu|*.c into OUTDIR/*.o.
# CML_SRC_DIR names the source's folder, so a lab's data files (SRCDIR/data/) can be
# embedded at build time with the assembler's .incbin (lab 3.5's photograph.c); the data
# files are prerequisites, since no dependency file lists what .incbin reads.
define obj_rules
$(1)/%.cu.o: $(2)/%.cu
	@mkdir -p $$(@D)
	$$(call say,NVCC,$$<)$$(NVCC) $$(ALL_NVCCFLAGS) $(addprefix -I,$(3)) -c $$< -o $$@
$(1)/%.c.o: $(2)/%.c $(wildcard $(2)/data/*)
	@mkdir -p $$(@D)
	$$(call say,CC,$$<)$$(CC) $$(ALL_CFLAGS) $(addprefix -I,$(3)) -DCML_SRC_DIR='"$(abspath $(2))"' -c $$< -o $$@
endef

# $(call lab_rules,OUTDIR,SRCDIRS (first wins),SOURCE NAMES)
define lab_rules
$(1)/lab: $(addprefix $(1)/,$(addsuffix .o,$(3))) $$(LIBCML)
	$$(call say,LINK,$$@)$$(NVCC) -arch=$$(CUDA_ARCH) $$(CML_LAUNCH_WRAP) $$(LDFLAGS) -o $$@ $$^
$(foreach d,$(2),$(eval $(call obj_rules,$(1),$(d),$(2))))
endef

lab_sources = $(notdir $(wildcard labs/$(1)/*.cu labs/$(1)/*.c))

$(foreach L,$(LABS),$(eval $(call lab_rules,$(BUILD)/$(L)/student,labs/$(L),$(call lab_sources,$(L)))))
$(foreach L,$(LABS),$(eval $(call lab_rules,$(BUILD)/$(L)/solution,solutions/$(L) labs/$(L),$(call lab_sources,$(L)))))

# The judge: the lab's pristine harness without its student files, their launchers replaced
# by stubs (grader/stubs.py): the course's process of a judged run (docs/protocol.md).
#   $(BUILD)/<lab>/judge
# The launchers' names come from the harness's own exercise table (cml_exercise.launchers),
# through `--list` of the lister: the same pristine objects linked with the launchers left
# unresolved (a non-PIE link, where such a call would jump to 0: the lister only ever runs
# --list). A launcher the table leaves out then fails the judge's link.
judge_sources = $(filter-out $(shell $(PYTHON) -m grader.stubs --student-files labs/$(1)),$(call lab_sources,$(1)))
# Reading a lab's judge rules runs that Python once (0.04 s; grader/stubs.py imports nothing
# more for it, and the grader passes its own interpreter as PYTHON): `make common` and
# `make lab-bin` (a grading's own builds, several per submission) read none, a goal under
# $(BUILD)/<lab>/ reads that lab's, any other goal every lab's.
MAKE_GOALS := $(or $(MAKECMDGOALS),all)
# the labs that goals under $(BUILD)/<lab>/ name (also read by DEP_DIRS below)
GOAL_LABS := $(foreach L,$(LABS),$(if $(filter $(BUILD)/$(L)/%,$(MAKE_GOALS)),$(L)))
JUDGE_LABS := $(if $(filter-out $(BUILD)/% common lab-bin lab-binaries lab,$(MAKE_GOALS)),$(LABS),\
    $(GOAL_LABS))
$(foreach L,$(JUDGE_LABS),$(eval JUDGE_SOURCES_$(L) := $(call judge_sources,$(L))))
LISTER_LDFLAGS := -Xcompiler -no-pie -Xlinker -no-pie -Xlinker --unresolved-symbols=ignore-all
# Libraries a lab's judge links beyond the course's: lab 3.3's judge times cuBLAS's SGEMM, the
# roof of 3.3d (pct_of_cublas, grader/roofs.py). Only the judge: its harness refers to cuBLAS
# weakly, so the lab binary, which holds the student's code, links without it.
JUDGE_LDLIBS_3.3-tiling := -L$(CUDA_LIB) -Xlinker --no-as-needed -Xlinker -lcublas -Xlinker -rpath=$(CUDA_LIB)
define judge_rules
$(BUILD)/$(1)/lister: $(addprefix $(BUILD)/$(1)/student/,$(addsuffix .o,$(JUDGE_SOURCES_$(1)))) $$(LIBCML)
	$$(call say,LINK,$$@)$$(NVCC) -arch=$$(CUDA_ARCH) $$(LDFLAGS) $$(LISTER_LDFLAGS) -o $$@ $$^
$(BUILD)/$(1)/judge_stubs.c: $(BUILD)/$(1)/lister grader/stubs.py
	@mkdir -p $$(@D)
	$$(call say,GEN,$$@)$$(PYTHON) -m grader.stubs $$< > $$@.tmp && mv $$@.tmp $$@
$(BUILD)/$(1)/judge_stubs.o: $(BUILD)/$(1)/judge_stubs.c
	$$(call say,CC,$$<)$$(CC) $$(ALL_CFLAGS) -c $$< -o $$@
$(BUILD)/$(1)/judge: $(addprefix $(BUILD)/$(1)/student/,$(addsuffix .o,$(JUDGE_SOURCES_$(1)))) $(BUILD)/$(1)/judge_stubs.o $$(LIBCML)
	$$(call say,LINK,$$@)$$(NVCC) -arch=$$(CUDA_ARCH) $$(CML_LAUNCH_WRAP) $$(LDFLAGS) -o $$@ $$^ $$(JUDGE_LDLIBS_$(1))
endef
$(foreach L,$(JUDGE_LABS),$(eval $(call judge_rules,$(L))))
JUDGE_BINS := $(foreach L,$(LABS),$(BUILD)/$(L)/judge)

# the solutions' binaries only where solutions/ exists (not in the students' release)
LAB_BINS := $(foreach L,$(LABS),$(BUILD)/$(L)/student/lab $(if $(wildcard solutions/$(L)),$(BUILD)/$(L)/solution/lab)) $(JUDGE_BINS)

.PHONY: all labs judges lab-binaries
all: $(LIBCML) $(LAB_BINS)
labs: $(LAB_BINS)
judges: $(JUDGE_BINS)
# the student and solution binaries: every source of every lab, without the judges' links
lab-binaries: $(filter-out $(JUDGE_BINS),$(LAB_BINS))

# Used by the grader: build one assembled lab directory.
ifdef LAB_SRC
$(eval $(call lab_rules,$(LAB_OUT),$(LAB_SRC),$(notdir $(wildcard $(LAB_SRC)/*.cu $(LAB_SRC)/*.c))))
# No symbol table in a graded binary: the submission runs inside it and could look up the
# CUDA runtime's functions the symbol check denies (docs/design-notes.md, note 22).
$(LAB_OUT)/lab: LDFLAGS += -Xlinker --strip-all
.PHONY: lab-bin
lab-bin: $(LAB_OUT)/lab
endif

# ---------------------------------------------------------------------------------------
# Check unit tests: common/tests/*.c, and labs/<lab>/tests/*.c linked with the lab's
# plain-C sources (its CPU references). GPU test cases carry the Check tag "gpu".

CHECK_ENV := CK_DEFAULT_TIMEOUT=60 $(if $(HAVE_GPU),,CK_EXCLUDE_TAGS=gpu)
TEST_CFLAGS = $(filter-out -Werror,$(ALL_CFLAGS)) -Werror $(CHECK_CFLAGS)

$(BUILD)/tests/common/%.o: common/tests/%.c
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(TEST_CFLAGS) -c $< -o $@

$(BUILD)/tests/common/run: $(patsubst common/tests/%.c,$(BUILD)/tests/common/%.o,$(wildcard common/tests/*.c)) $(LIBCML)
	$(call say,LINK,$@)$(CC) -o $@ $^ $(CHECK_LIBS) $(CUDA_LDLIBS) -lstdc++

# every lab's runner: common/tests/lab_main/main.c runs the lab's make_reference_suite()
$(BUILD)/tests/lab_main.o: common/tests/lab_main/main.c
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(TEST_CFLAGS) -c $< -o $@

define lab_test_rules
$(BUILD)/tests/$(1)/%.o: labs/$(1)/tests/%.c
	@mkdir -p $$(@D)
	$$(call say,CC,$$<)$$(CC) $$(TEST_CFLAGS) -Ilabs/$(1) -c $$< -o $$@
$(BUILD)/tests/$(1)/run: $(BUILD)/tests/lab_main.o $(patsubst labs/$(1)/tests/%.c,$(BUILD)/tests/$(1)/%.o,$(wildcard labs/$(1)/tests/*.c)) $(patsubst %.c,$(BUILD)/$(1)/student/%.c.o,$(notdir $(wildcard labs/$(1)/*.c))) $$(LIBCML)
	$$(call say,LINK,$$@)$$(CC) -o $$@ $$^ $$(CHECK_LIBS) $$(CUDA_LDLIBS) -lstdc++
endef
TESTED_LABS := $(foreach L,$(LABS),$(if $(wildcard labs/$(L)/tests/*.c),$(L)))
$(foreach L,$(TESTED_LABS),$(eval $(call lab_test_rules,$(L))))

CHECK_RUNNERS := $(BUILD)/tests/common/run $(foreach L,$(TESTED_LABS),$(BUILD)/tests/$(L)/run)

# the runners alone (.ci/run builds them with the labs, in parallel, before make test)
.PHONY: check-runners check-tests
check-runners: $(CHECK_RUNNERS)
check-tests: $(CHECK_RUNNERS)
	@$(if $(HAVE_GPU),,echo "Check: test cases tagged 'gpu' NOT RUN: no GPU on this machine (CK_EXCLUDE_TAGS=gpu)";)
	@set -e; for t in $^; do echo "== $$t"; $(CHECK_ENV) $$t; done

# ---------------------------------------------------------------------------------------
# The grader and the course checks

# LAB is a lab's id (3.3) or its folder name (3.3-tiling).
LAB ?=
LAB_IDS := $(foreach L,$(LABS),$(firstword $(subst -, ,$(L))))
lab_dir = $(firstword $(wildcard labs/$(LAB)-*/lab.toml labs/$(LAB)/lab.toml))

# Exit 0 once grading completed, whatever the score (the grader's 1, "points lost", is a
# completed grading); 3 when checks that need a GPU could not run (also when points are
# lost for certain but others are pending: the report's "final" is false); 2 on usage errors.
# CUDA_ARCH given (make CUDA_ARCH=sm_80 grade LAB=3.3): the grader builds and reports that
# architecture, with a judge of its own (a student's trial: without --arch the report said
# sm_90 and the judge was the sm_90 one, while the inner make built kernels.cu for sm_80)
GRADE_ARCH = $(if $(findstring file,$(origin CUDA_ARCH)),,--arch $(CUDA_ARCH))
.PHONY: grade
grade: $(LIBCML)
	@test -n "$(LAB)" || { echo "usage: make grade LAB=<id>   (labs: $(LAB_IDS))"; exit 2; }
	@test -n "$(lab_dir)" || { echo "make grade: no lab '$(LAB)' (labs: $(LAB_IDS))"; exit 2; }
	@mkdir -p $(BUILD)
	@$(PYTHON) -m grader grade $(dir $(lab_dir)) $(GRADE_ARCH) --json $(BUILD)/last-grade.json; rc=$$?; \
	  if [ $$rc -eq 1 ] && ! $(PYTHON) -c "import json, sys; sys.exit(not json.load(open('$(BUILD)/last-grade.json'))['final'])"; then \
	    rc=3; lost="; some points are already lost for certain (see the report above)"; fi; \
	  if [ $$rc -eq 3 ]; then \
	    echo "make grade: exit 3 — the checks that need a GPU were not run (see NOT RUN above)$$lost"; fi; \
	  if [ $$rc -eq 1 ]; then exit 0; else exit $$rc; fi

# One lab's student build, without the other labs, the solutions or the judges: the binary
# and one object per source (kernels.cu.o, what cuobjdump -sass reads), from labs/<lab>/.
LAB_FOLDER = $(notdir $(patsubst %/,%,$(dir $(lab_dir))))
.PHONY: lab
lab:
	@test -n "$(LAB)" || { echo "usage: make lab LAB=<id>   (labs: $(LAB_IDS))"; exit 2; }
	@test -n "$(lab_dir)" || { echo "make lab: no lab '$(LAB)' (labs: $(LAB_IDS))"; exit 2; }
	@$(MAKE) --no-print-directory $(BUILD)/$(LAB_FOLDER)/student/lab
	@echo "make lab: $(BUILD)/$(LAB_FOLDER)/student/lab; its objects beside it, e.g. $(BUILD)/$(LAB_FOLDER)/student/kernels.cu.o"

.PHONY: selfcheck
selfcheck: $(LIBCML)
	$(PYTHON) -m grader selfcheck

.PHONY: skeletons skeleton-drift
skeletons:
	$(PYTHON) -m grader skeleton --write
skeleton-drift:
	$(PYTHON) -m grader skeleton --check

# The course as students receive it (grader/dist.py): no solutions/, no known-bad fixtures.
.PHONY: dist-student
dist-student:
	$(PYTHON) -m grader dist-student --out $(BUILD)/dist/cuda-memory-labs-student.tar.gz

# A Gradescope autograder zip for one lab (grader/gradescope_zip.py): setup.sh,
# run_autograder and the course without solutions/, for autograder machines with a GPU.
.PHONY: gradescope
gradescope:
	@test -n "$(LAB)" || { echo "usage: make gradescope LAB=<id>   (labs: $(LAB_IDS))"; exit 2; }
	@test -n "$(lab_dir)" || { echo "make gradescope: no lab '$(LAB)' (labs: $(LAB_IDS))"; exit 2; }
	$(PYTHON) -m grader gradescope-zip $(notdir $(patsubst %/,%,$(dir $(lab_dir)))) \
	  --out $(BUILD)/dist/gradescope-$(notdir $(patsubst %/,%,$(dir $(lab_dir)))).zip

# Across the machine's cores with pytest-xdist where it is installed (.ci/requirements.txt):
# 310 s on the 2-core CI machine in session 31, 12 % of the cores' time idle (tests that wait
# for a fake run's time limit or sleep); four workers kept them 98 % busy and took 294 s, so
# .ci/run, where no GPU test runs, asks for two a core (PYTEST_JOBS=...). A GPU machine keeps
# one a core: each GPU test's grading holds GPU memory.
PYTEST_JOBS = $(shell $(PYTHON) -c "import xdist" 2>/dev/null && echo "-n auto --dist worksteal")
# more pytest options, e.g. PYTEST_ARGS=--durations=20 (.ci/run: the slowest tests in CI's log)
PYTEST_ARGS ?=
.PHONY: pytest
pytest: all
	$(PYTHON) -m pytest -ra --strict-markers $(PYTEST_JOBS) $(PYTEST_ARGS) grader/tests

# The fast loop while editing the grader: no test that builds a lab or runs the whole grader
# (marked slow), no GPU test; seconds, not minutes. `make test` runs everything.
.PHONY: test-fast
test-fast:
	$(PYTHON) -m pytest -q --strict-markers $(PYTEST_JOBS) -m "not slow and not gpu" grader/tests

.PHONY: test
test: all build-sm80 skeleton-drift check-tests pytest
	@echo "make test: all test steps finished"

# The labs must also build for Ampere (DESIGN.md: sm_80 and sm_90 at least).
.PHONY: build-sm80
build-sm80:
	$(MAKE) --no-print-directory CUDA_ARCH=sm_80 BUILD=$(BUILD)/sm_80 lab-binaries

GPU_LOG_DIR ?= $(BUILD)/gpu-check
.PHONY: gpu-check
gpu-check:
	bash grader/gpu_check.sh $(GPU_LOG_DIR)

# The handouts as a browsable site (mkdocs.yml; mkdocs is a tool outside grading, installed
# on demand): build/site/index.html.
.PHONY: site
site:
	@$(PYTHON) -c "import mkdocs" 2>/dev/null || { echo "make site: needs mkdocs (python3 -m pip install mkdocs)"; exit 2; }
	$(PYTHON) -m mkdocs build --strict -f mkdocs.yml
	@echo "make site: build/site/index.html"

.PHONY: clean
clean:
	rm -rf $(BUILD)

# The compilers' dependency files (-MD -MP), read for the goals' own folders only: a grading's
# `make common`, `make lab-bin` and `make $(BUILD)/<lab>/judge` (several per submission) read
# those of the course library and of that lab (and of LAB_OUT where it lies under $(BUILD)),
# any other goal all of $(BUILD)'s. After `make all build-sm80` those are 162 files, 2 MB:
# 0.1 s of CPU for each make call that read them all.
DEP_LAB_GOALS := $(foreach L,$(GOAL_LABS),$(BUILD)/$(L)/%)
DEP_DIRS := $(if $(filter-out common lab-bin $(DEP_LAB_GOALS),$(MAKE_GOALS)),$(BUILD),\
    $(BUILD)/common $(filter $(BUILD)/% $(abspath $(BUILD))/%,$(LAB_OUT)) $(GOAL_LABS:%=$(BUILD)/%))
-include $(shell find $(DEP_DIRS) -name '*.d' 2>/dev/null)
