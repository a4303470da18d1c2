"""The jobs a static rule may ask a kernel's SASS to do (docs/protocol.md, "Static rules by
job").

A rule in lab.toml's ``[exercise.static]`` names either an opcode pattern (upper case,
``LDS``) or a job (lower case, ``shared_store``). A job is done by any instruction of its
families on sm_80 and sm_90, so every way of doing it keeps the points: a tile filled with
``__pipeline_memcpy_async`` or ``cooperative_groups::memcpy_async`` has LDGSTS and no STS,
one filled by the Tensor Memory Accelerator has UTMALDG (CUDA Binary Utilities,
"Instruction Set Reference"; FACTS.md, "SASS mnemonics").
"""

from __future__ import annotations

import re

JOBS: dict[str, tuple[str, tuple[str, ...]]] = {
    "shared_store": (
        "a store into shared memory",
        ("STS", "STSM", "LDGSTS", "UBLKCP", "UTMALDG"),
    ),
    "shared_load": ("a load from shared memory", ("LDS", "LDSM")),
    "barrier": ("a block-wide barrier", ("BAR", "SYNCS")),
    "global_load": ("a load from global memory", ("LDG", "LDGSTS", "UBLKCP", "UTMALDG")),
    "global_store": ("a store to global memory", ("STG", "UBLKCP", "UTMASTG")),
    "readonly_load": (
        "a load through the read-only (non-coherent) path",
        (r"LDG\.E\S*CONSTANT",),
    ),
    "texture_fetch": ("a texture fetch", ("TEX", "TLD", "TLD4", "TXD")),
    "surface_store": ("a surface store", ("SUST",)),
    # sm_90 only: the Tensor Memory Accelerator's copies, plain (cp.async.bulk: UBLKCP, e.g.
    # cuda::memcpy_async with aligned_size_t<16> and a block-scope cuda::barrier) or by a
    # tensor map (cp.async.bulk.tensor: UTMALDG); and the thread-block cluster's barrier
    # (barrier.cluster.arrive / .wait, cluster.sync(): UCGABAR_ARV then UCGABAR_WAIT), whose
    # wait is what lets a block read another's shared memory. Seen in lab 3.2g's solution
    # built for sm_90 (grader/tests/test_sass.py)
    "bulk_copy": (
        "a bulk asynchronous copy into shared memory (the Tensor Memory Accelerator)",
        ("UBLKCP", "UTMALDG"),
    ),
    "cluster_barrier": ("a thread-block-cluster barrier's wait", ("UCGABAR_WAIT",)),
    # A copy into shared memory that does not pass through registers, and a thread's wait for
    # such copies, however the kernel asks for them: cp.async (__pipeline_memcpy_async, a
    # per-thread cuda::pipeline: LDGSTS, waited for by DEPBAR), a block-scope cuda::pipeline
    # (LDGSTS completing on an mbarrier, ARRIVES.LDGSTSBAR, waited for by
    # SYNCS.PHASECHK...TRYWAIT) or a cuda::barrier with 16-byte-aligned copies (UBLKCP on
    # sm_90, the same wait). Lab 3.2e's rule named LDGSTS and DEPBAR, and a student trial's
    # correct block-scope pipeline lost its static points for the mbarrier wait.
    "async_copy": (
        "an asynchronous copy into shared memory (cp.async or a bulk copy)",
        ("LDGSTS", "UBLKCP", "UTMALDG"),
    ),
    "async_wait": (
        "a wait for the asynchronous copies",
        ("DEPBAR", r"SYNCS\.PHASECHK"),
    ),
}
_JOB_NAME = re.compile(r"[a-z][a-z_]*")


def is_job(pattern: str) -> bool:
    """A rule that names a job (lower case) rather than an opcode pattern (upper case)."""
    return _JOB_NAME.fullmatch(pattern) is not None


def families(job: str) -> tuple[str, ...]:
    """The opcode patterns that do ``job`` (none for an unknown one)."""
    return JOBS.get(job, ("", ()))[1]


def shown(family: str) -> str:
    """An opcode pattern as a student reads it: ``LDG\\.E\\S*CONSTANT`` -> ``LDG.E…CONSTANT``."""
    return family.replace("\\S*", "…").replace("\\.", ".")
