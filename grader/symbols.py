"""The symbol check of the student objects: a trust boundary.

A submission is linked into the course's harness, so it could redefine a function the
harness or libc relies on (``cudaEventElapsedTime``, ``cml_time_interleaved``, ``exit``,
``rand``, ``main``) or call something no kernel launcher needs (``fopen``, ``system``,
``fork``, ``getenv``). ``nm -P`` lists what each student object defines and references;
anything outside the rules below fails the check, naming the symbol, and a failed check
zeroes the submission without running it.

Defined global symbols (nm types other than U, w, v and lower-case locals):

- the lab's launchers (its exercises' ``launchers`` in the lab binary's ``--list``);
- C++-mangled names (``_Z...``: kernels' host stubs, helper functions, template
  instantiations), except strong definitions inside ``std``, ``__gnu_cxx``,
  ``__cxxabiv1`` or ``cudart`` and replacements of ``operator new``/``delete``: those
  would take the place of the C++ runtime's or CUDA runtime's own. (Weak definitions in
  ``std`` are template instantiations such as ``std::vector<float>::_M_realloc_insert``.)
- nvcc's generated symbols: the kernels' host stubs ``_Z..__device_stub__..`` (mangled),
  ``__fatbinwrap*`` (with -rdc), ``DW.ref.__gxx_personality_v0``; never ``__cuda*``, which
  would replace the CUDA runtime's registration and launch functions;
- the plain names of ``extern "C"`` kernels (found through their ``__device_stub__``),
  unless such a name is reserved (``main``, ``cml_*``, ``cuda*``, ``cu[A-Z]*``, ``_*``,
  or a name the C or math library exports: ``system_library_names()``, with
  ``LIBC_NAMES`` where the libraries cannot be read).

Every other unmangled definition fails, one line per symbol with its line in the source
and what to do: a variable of the global namespace with external linkage (C++ does not
mangle variable names: ``int counter;``, ``extern const int n = 3;``, ``inline int x;``) →
make it ``static`` (or ``const``/``constexpr`` without ``extern``, or put it in an unnamed
namespace: all three give it internal linkage); a C-linkage function that is no launcher →
keep the skeleton's launcher names, or drop the helper's ``extern "C"`` (a C++ function is
mangled and passes, static or not). ``__device__``, ``__constant__``, ``__shared__`` and
``__managed__`` variables pass: nvcc gives their host shadows internal linkage. At most
``MAX_LISTED`` offending symbols are listed per object, then how many more there are; a
file with a plain variable or C-linkage function among them ends with one line stating the
rule (``DEFINE_RULE``).

Undefined references allowed:

- the CUDA runtime (``cuda*``) except ``DENIED_CUDA``: the timing API (events, the
  profiler), calls that change device-wide state the harness and the baseline depend on
  (reset, device selection, limits and cache configuration), streams a submission could
  launch on so that the harness's events would not wait for its kernel, graph capture,
  host callbacks, IPC, the driver entry-point lookups that reach the driver API
  without a symbol, and loading other device code (``cudaLibrary*``: a submission could
  load a compiled reference it embedded and run its kernels);
- nvcc's ``__cuda*`` registration and launch functions;
- C++ support: ``__cxa_*``, ``_Unwind_*``, ``__gxx_personality_v0``, operator new and
  delete, ``std::__throw_*``, ``std::terminate``, ``__stack_chk_fail``, ``__dso_handle``,
  ``atexit`` (nvcc registers the module's unloading with it), ``exit`` (nvcc's host body
  of every non-inline ``__device__`` function calls it; a run that exits early has no
  result document and is graded as a crash);
- memory: ``memcpy``, ``memmove``, ``memset``, ``memcmp``, ``malloc``, ``calloc``,
  ``realloc``, ``free``, and the aligned allocators ``posix_memalign`` and
  ``aligned_alloc`` (a page-aligned buffer to pin with ``cudaHostRegister``, lab 3.2a);
- printing to the standard streams: ``printf``, ``fprintf``, ``puts``, ``putchar``,
  ``fputs``, ``fputc``, ``fwrite`` (what gcc turns ``fprintf(stderr, "...")`` into),
  ``stdout``, ``stderr``, ``snprintf`` and their ``_chk`` variants (no ``fopen``: no other
  stream can be reached);
- the math library (``MATH_FUNCTIONS``);
- lab.toml ``allow_calls`` (which can also re-allow a denied CUDA call).

Everything else fails: ``fopen``, ``system``, ``fork``, ``exec*``, ``socket``,
``getenv``, ``dlopen``, ``clock_gettime``, ``_exit``, ``abort``, ``kill``, ``signal``,
``std::ofstream``...
"""

from __future__ import annotations

import functools
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from grader import run as runner
from grader.sass import plain_name
from grader.tools import Tool

DENIED_CUDA = re.compile(
    r"cudaEvent\w*|cudaProfiler\w*|cudaDeviceReset|cudaThreadExit|cudaSetDevice\w*"
    r"|cudaSetValidDevices|cudaInitDevice|cudaDeviceSetLimit|cudaThreadSetLimit"
    r"|cudaDeviceSetCacheConfig|cudaThreadSetCacheConfig|cudaDeviceSetSharedMemConfig"
    r"|cudaCtxResetPersistingL2Cache|cudaDeviceSetMemPool|cudaStreamCreate\w*"
    r"|cudaStreamBeginCapture\w*|cudaStreamEndCapture\w*|cudaThreadExchangeStreamCaptureMode"
    r"|cudaGraphLaunch\w*|cudaLaunchHostFunc\w*|cudaStreamAddCallback\w*|cudaIpc\w*"
    r"|cudaDeviceEnablePeerAccess|cudaGetDriverEntryPoint\w*|cudaGetExportTable"
    r"|cudaDeviceFlushGPUDirectRDMAWrites|cudaDeviceRegisterAsyncNotification"
    r"|cudaLibrary\w*"
)

# What the harness owns, for the message about a denied call: the first family that matches.
_DENIED_REASONS = (
    (re.compile(r"cudaEvent\w*|cudaProfiler\w*"), "the judge times the kernels; events are timing"),
    (
        re.compile(r"cudaStream\w*|cudaThreadExchangeStreamCaptureMode|cudaGraph\w*"),
        "the harness owns the streams, captures and graphs of this exercise",
    ),
    (
        re.compile(r"cudaLaunchHostFunc\w*|cudaIpc\w*|cudaGetDriverEntryPoint\w*|cudaGetExportTable"
                   r"|cudaLibrary\w*"),
        "host callbacks, IPC and loading device code are the harness's",
    ),
)


def denied_reason(name: str) -> str:
    """Why a denied CUDA call is the harness's (timing, streams, device-wide state)."""
    for pattern, reason in _DENIED_REASONS:
        if pattern.fullmatch(name):
            return reason
    return "the harness owns the device-wide state"


MATH_FUNCTIONS = frozenset(
    f + suffix
    for f in (
        "sqrt cbrt exp exp2 expm1 log log2 log10 log1p pow sin cos tan asin acos atan atan2 "
        "sinh cosh tanh asinh acosh atanh fabs floor ceil round lround llround trunc fmod "
        "remainder fmin fmax fdim fma hypot erf erfc lgamma tgamma ldexp frexp modf copysign "
        "nearbyint rint lrint llrint nan sincos scalbn ilogb logb nextafter"
    ).split()
    for suffix in ("", "f")
)

_ALLOWED_CALLS = frozenset(
    {
        "__gxx_personality_v0",
        "__stack_chk_fail",
        "__dso_handle",
        "atexit",
        # nvcc gives every non-inline __device__ function a host body that calls exit (it
        # must never run on the host), so a plain helper function references exit. A
        # student's own exit() gains nothing: the run ends without its result document
        # and is graded as a crash (grader.harness). _exit, abort, quick_exit stay denied.
        "exit",
        "memcpy",
        "memmove",
        "memset",
        "memcmp",
        "malloc",
        "calloc",
        "realloc",
        "free",
        "posix_memalign",
        "aligned_alloc",
        "printf",
        "fprintf",
        "vprintf",
        "vfprintf",
        "puts",
        "putchar",
        "fputs",
        "fputc",
        "fwrite",
        "fflush",
        "stdout",
        "stderr",
        "snprintf",
        "vsnprintf",
        "__printf_chk",
        "__fprintf_chk",
        "__vprintf_chk",
        "__vfprintf_chk",
        "__snprintf_chk",
        "__vsnprintf_chk",
        "abs",
        "labs",
        "llabs",
        "_ZSt9terminatev",
    }
)
_ALLOWED_CALL_PATTERNS = re.compile(
    r"__cuda\w*|__cxa_\w+|_Unwind_\w+|_Zn[wa]\w*|_Zd[la]\w*|_ZSt\d+__throw_\w+"
)
_GENERATED = re.compile(r"__fatbinwrap\w*|fatbinData|DW\.ref\.__gxx_personality_v0")
_RESERVED_NAME = re.compile(r"main|cml_\w*|cuda\w*|cu[A-Z]\w*|_\w*")
_PROTECTED_NAMESPACE = re.compile(r"_ZN?K?(S[tabsiod]|9__gnu_cxx|10__cxxabiv1|6cudart)")
_OPERATOR_NEW_DELETE = re.compile(r"_Z(nw|na|dl|da)")
_STUB_KERNEL = re.compile(r"__device_stub__(Z\w+)")
_CUDA_RUNTIME = re.compile(r"cuda[A-Z]\w*")
_UNDEFINED_TYPES = frozenset("Uwv")
# C library functions a kernel's name may not take (its host stub would replace them).
LIBC_NAMES = frozenset(
    (
        "exit _exit _Exit abort atexit system fork vfork kill signal raise fopen fclose open "
        "read write close getenv setenv dlopen dlsym socket connect clock_gettime "
        "gettimeofday time clock rand srand sleep usleep popen execv execve execvp execl "
        "execlp remove unlink rename mmap mprotect ptrace setjmp longjmp malloc free printf "
        "puts memcpy memset"
    ).split()
)
_WEAK_TYPES = frozenset("WV")


@functools.cache
def system_library_names() -> frozenset[str]:
    """Every function and variable the C and math libraries export (``nm -D
    --defined-only`` of the libc.so.6 and libm.so.6 the C compiler links), without symbol
    versions: an ``extern "C"`` kernel may take none of these names, since its host stub
    would replace the library's in the lab binary (a kernel named ``qsort``). Empty where
    the compiler or nm cannot say; ``LIBC_NAMES`` stands in then."""
    names: set[str] = set()
    for lib in ("libc.so.6", "libm.so.6"):
        try:
            path = subprocess.run(
                ["cc", "-print-file-name=" + lib], capture_output=True, text=True, timeout=30
            ).stdout.strip()
            if not path or not Path(path).is_file():
                continue
            out = subprocess.run(
                ["nm", "-D", "--defined-only", path], capture_output=True, text=True, timeout=60
            ).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TWiVDBR":
                names.add(parts[2].split("@")[0])
    return frozenset(names)


@dataclass
class Symbol:
    name: str
    type: str  # nm's letter

    @property
    def defined(self) -> bool:
        return self.type not in _UNDEFINED_TYPES

    @property
    def global_(self) -> bool:
        return self.type.isupper() or self.type in ("u", "i")


@dataclass
class SymbolResult:
    passed: bool
    problems: list[str] = field(default_factory=list)


def parse_nm(text: str) -> list[Symbol]:
    """Symbols of ``nm -P`` output ("name type [value size]" per line)."""
    symbols = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2 and len(parts[1]) == 1:
            symbols.append(Symbol(parts[0], parts[1]))
    return symbols


def _extern_c_kernels(symbols: list[Symbol]) -> set[str]:
    """Plain names of the kernels whose host stubs nvcc generated."""
    names = set()
    for s in symbols:
        m = _STUB_KERNEL.search(s.name)
        if m:
            names.add(plain_name("_" + m.group(1)))
    return names


# nm's letters of data: "u" is a GNU unique object (a C++17 inline variable)
_DATA_TYPES = frozenset("BDRCGSbdrgsVu")
MAX_LISTED = 10  # offending symbols listed per student object; the rest are counted


def definition_line(source: str | None, name: str) -> int | None:
    """The first line of ``source`` that names ``name`` outside a comment (1-based), or
    None: where a report points the student for a symbol nm found."""
    if not source:
        return None
    word = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
    in_block = False
    for number, line in enumerate(source.splitlines(), 1):
        code = ""
        i = 0
        while i < len(line):
            if in_block:
                end = line.find("*/", i)
                if end < 0:
                    break
                in_block, i = False, end + 2
            elif line.startswith("/*", i):
                in_block, i = True, i + 2
            elif line.startswith("//", i):
                break
            else:
                code += line[i]
                i += 1
        if word.search(code):
            return number
    return None


def define_rule(file: str, launchers) -> str:
    """The one line stating what a student object may define (after its offenders)."""
    names = ", ".join(launchers) if launchers else "none"
    return (
        f"{file} may define only: the lab's launchers ({names}), kernels, C++ functions "
        "(static or not, templates too), variables that are static or const/constexpr or "
        "in an unnamed namespace, and __device__, __constant__ and __shared__ variables. "
        "A plain global variable (int counter;) or an extern \"C\" function that is no "
        "launcher could take the place of the harness's or a library's symbol of that name, "
        "so the whole submission scores 0 and none of it runs until it is fixed"
    )


def _unmangled_definition(
    s: Symbol, file: str, line: int | None, launchers
) -> tuple[str, bool]:
    """The problem line for a plain (C-linkage) global the student file defines, and
    whether it is a plain variable or C-linkage function (``define_rule`` applies)."""
    where = f"{file} (line {line})" if line else file
    name = s.name
    if name == "main":
        return (
            f"{where} defines main: the harness owns main(); remove yours "
            "(test your kernels through the lab binary)"
        ), False
    if _RESERVED_NAME.fullmatch(name) or name in LIBC_NAMES or name in system_library_names():
        return (
            f"{where} defines the global symbol {name}, which only the harness or a library "
            "may define: rename it (and make it static)"
        ), False
    if s.type in _DATA_TYPES:
        return (
            f"{where} defines the global symbol {name}, a variable: make it static (or put it "
            "in an unnamed namespace)"
        ), True
    names = ", ".join(launchers) if launchers else "none"
    return (
        f"{where} defines the global symbol {name}, a function with C linkage that is none "
        f"of the lab's launchers ({names}): keep the skeleton's launcher names; for a helper, "
        'drop its extern "C" (a C++ function passes, static or not) or make it static'
    ), True


def check_symbols(
    symbols: list[Symbol],
    launchers: tuple[str, ...],
    allow_calls: tuple[str, ...],
    file: str,
    source: str | None = None,
) -> list[str]:
    """Problems of one object's symbol table, one line each: every offending symbol (its
    line in ``source`` where it can be found, and what to do) up to ``MAX_LISTED``, then how
    many more, then the rule each kind of offender broke (what a student file may define,
    what it may call)."""
    offenders = []
    plain_definition = False
    not_allowed = False
    kernels = _extern_c_kernels(symbols)
    allow = set(allow_calls)
    for s in symbols:
        name = s.name
        if s.defined:
            if not s.global_ or s.type == "N":
                continue
            if name in launchers or _GENERATED.fullmatch(name):
                continue
            if name.startswith("_Z"):
                strong = s.type not in _WEAK_TYPES
                if _OPERATOR_NEW_DELETE.match(name):
                    offenders.append(
                        f"{file} defines {name} (a replacement of operator new/delete), "
                        "which submissions may not define"
                    )
                elif strong and _PROTECTED_NAMESPACE.match(name):
                    offenders.append(
                        f"{file} defines {name} inside the C++ or CUDA runtime's namespace, "
                        "which submissions may not do"
                    )
                continue
            reserved = (
                _RESERVED_NAME.fullmatch(name)
                or name in LIBC_NAMES
                or name in system_library_names()
            )
            if name in kernels and not reserved:
                continue
            text, plain = _unmangled_definition(s, file, definition_line(source, name), launchers)
            offenders.append(text)
            plain_definition = plain_definition or plain
        else:
            if name in allow:
                continue
            if _CUDA_RUNTIME.fullmatch(name):
                if DENIED_CUDA.fullmatch(name):
                    offenders.append(
                        f"{file} calls {name}, which submissions may not call "
                        f"({denied_reason(name)})"
                    )
                continue
            if (
                name in _ALLOWED_CALLS
                or name in MATH_FUNCTIONS
                or _ALLOWED_CALL_PATTERNS.fullmatch(name)
            ):
                continue
            offenders.append(
                f"{file} calls {name}, which submissions may not call: remove the call "
                "(the linker names no line; search your file for it)"
            )
            not_allowed = True
    problems = offenders[:MAX_LISTED]
    if len(offenders) > MAX_LISTED:
        problems.append(
            f"{file} defines or calls {len(offenders) - MAX_LISTED} more symbols like these "
            "(not listed: fix the ones above and grade again)"
        )
    if plain_definition:
        problems.append(define_rule(file, launchers))
    if not_allowed:
        problems.append(
            f"{file} may call only: the CUDA runtime (except timing, streams and device-wide "
            "state), printing to stdout/stderr, memory functions (memcpy, memset, malloc, "
            "calloc, realloc, free, posix_memalign, aligned_alloc, ...), the math library, C++ "
            "runtime support, and what lab.toml's allow_calls adds (handouts/grading.md, "
            "section 7)"
        )
    return problems


def check_objects(
    nm: Tool,
    objects: dict[str, Path],
    launchers: tuple[str, ...],
    allow_calls: tuple[str, ...],
    sources: dict[str, str] | None = None,
) -> SymbolResult:
    """Runs ``nm -P`` on each student object ({source name: object path}); ``sources``
    ({source name: its text}) lets a problem name its line."""
    problems = []
    for source, obj in objects.items():
        out = runner.run(
            [nm.path, "-P", str(obj)],
            timeout_s=60,
            env=nm.env(),
            max_output=1 << 24,
            limits=False,
            background=True,
        )
        if not out.ok:
            detail = (out.stderr or out.stdout).strip()
            problems.append(f"nm could not read the object of {source}: {detail or out.describe()}")
            continue
        text = (sources or {}).get(source)
        problems.extend(check_symbols(parse_nm(out.stdout), launchers, allow_calls, source, text))
    return SymbolResult(not problems, problems)
