r"""Source warnings: likely mistakes a lab can see in the student files before anything runs.

Some mistakes only fail at run time — ``cudaMemcpyToSymbol(&c_coef, ...)`` compiles, links
and passes every static check, then fails with "invalid device symbol" on a GPU — so a
student without a GPU would never hear of them. ``[[exercise.lint]]`` in lab.toml lists
regexes with a message; each is searched in the text of the student files with comments
removed (``//`` to the end of the line, ``/* ... */``; string and character literals are
kept as they are), newlines included: ``\s`` and a negated class such as ``[^;]`` cross
lines, ``.`` does not; a rule's ``unless``, found anywhere in them, silences it (what the
mistake leaves out). A match becomes a warning in the report ("kernels.cu:48: ..."): no
points are given or taken, the checks that decide the grade are unchanged. A message may
name what the match found: ``{symbol}`` (or ``{symbol|c_coef}``, with the text to use where
the group matched nothing) stands for the named group ``(?P<symbol>...)`` of the pattern,
so the warning names the student's own ``__constant__`` array (``render``). The rules are
searched in a child interpreter given ``RULES_TIMEOUT_S`` (a regex can take time quadratic or
worse in a hostile file); past it, one warning says they were not looked for.

Every lab is also read for the barrier mistakes (a ``return`` before a barrier, named with
its condition where that is seen to depend on the thread, a barrier under a condition that
depends on the thread): in the kernel the exercise names (the
judge's ``--list``), or, for an exercise that names none (lab 3.5's, where the student chooses
the kernels; lab 3.2's host-side exercises), in every ``__global__`` kernel its launchers
reach in the student files (``exercise_kernels``); and for the texture objects, surface
objects and CUDA arrays its launchers create on each call and never release (``leaks``).
"""

from __future__ import annotations

import ast
import dataclasses
import heapq
import json
import operator
import re
import subprocess
import sys
import warnings as _warnings
from bisect import bisect_left, bisect_right
from collections import ChainMap
from collections.abc import Collection
from pathlib import Path

from grader.manifest import Lab


def strip_comments(text: str) -> list[str]:
    """The lines of C/C++ source ``text`` with comments blanked out (line count kept)."""
    out, i, n = [], 0, len(text)
    state = "code"  # code | line | block | str | chr
    while i < n:
        ch, nxt = text[i], text[i + 1] if i + 1 < n else ""
        if state == "code":
            if ch == "/" and nxt == "/":
                state, i = "line", i + 2
                continue
            if ch == "/" and nxt == "*":
                state, i = "block", i + 2
                out.append(" ")
                continue
            if ch in "\"'":
                state = "str" if ch == '"' else "chr"
            out.append(ch)
        elif state == "line":
            if ch == "\n":
                state = "code"
                out.append(ch)
        elif state == "block":
            if ch == "*" and nxt == "/":
                state, i = "code", i + 2
                continue
            if ch == "\n":
                out.append(ch)
        else:  # inside a string or character literal
            out.append(ch)
            if ch == "\\" and nxt:
                out.append(nxt)
                i += 2
                continue
            if (ch == '"' and state == "str") or (ch == "'" and state == "chr") or ch == "\n":
                state = "code"
        i += 1
    return "".join(out).split("\n")


_GLOBAL = re.compile(r"\b__global__\b")
_WORD = re.compile(r"[A-Za-z_]\w*")
_SPACE = re.compile(r"\s*")
# what a head's reading steps over a character at a time: no bracket, string, word or end
_PLAIN = re.compile(r'[^\[("A-Za-z_;{]+')
# words with arguments that may stand between __global__ and a kernel's name (execution-
# configuration bounds, GNU and MSVC attributes, alignment) or after its parameters
# (noexcept(...), a trailing return type's decltype(...)): none of them is the name
_NOT_THE_NAME = frozenset(
    "__launch_bounds__ __maxnreg__ __cluster_dims__ __block_size__ __attribute__ __declspec "
    "__align__ alignas decltype noexcept throw".split()
)


def _heads(text: str) -> list[tuple[str, int, int]]:
    """(name, index of the name, index of the ``{`` or ``;``) of each ``__global__``
    function in comment-free ``text``: ``kernel_heads``, which says how the name is read.

    Each head is read from its ``__global__`` to the first ``;`` or ``{`` outside brackets,
    a bracketed group or a string a step. Hostile input (``__global__ void a(`` repeated:
    every group unclosed, no ``;`` or ``{``) made that reading quadratic: 90 KB took 12 s,
    360 KB over 5 minutes. Now a group's end comes from a table of the brackets paired in
    one pass (``_pairs``), and what the reading from each index it steps on finds is kept:
    a later head whose reading steps on one of them takes the rest from there, so each
    index is stepped on once, whatever the number of heads."""
    n = len(text)
    pairs: dict[str, dict[int, int]] = {}

    def past(i: int, open_: str, close: str) -> int:
        """Index just past the ``close`` matching the ``open_`` at ``text[i]``, or n."""
        if open_ not in pairs:
            pairs[open_] = _pairs(text, open_, close)
        return min(pairs[open_][i] + 1, n)

    # {index a head's reading stepped on: (the last name read from there, or None; its
    # index; the index where the reading stops)}
    reached: dict[int, tuple[str | None, int, int]] = {}
    found = []
    for g in _GLOBAL.finditer(text):
        i, path = g.end(), []  # path: (index, the name read at that step or None)
        while i < n and text[i] not in ";{" and i not in reached:
            ch, name = text[i], None
            if ch == "[":
                after = past(i, "[", "]")
            elif ch == "(":  # a group no word names: (*p)(...), ((...)) of an attribute
                after = past(i, "(", ")")
            elif ch == '"':  # a string (extern "C" where it does not belong): to its end
                end = text.find('"', i + 1)
                after = n if end < 0 else end + 1
            elif m := _WORD.match(text, i):
                j = m.end()
                k = _SPACE.match(text, j).end()
                if k < n and text[k] == "<":  # a specialisation's arguments
                    k = _SPACE.match(text, past(k, "<", ">")).end()
                if k < n and text[k] == "(":
                    if m.group() not in _NOT_THE_NAME:
                        name = m.group()
                    after = past(k, "(", ")")
                else:
                    after = j
            else:
                after = _PLAIN.match(text, i).end()
            path.append((i, name))
            i = after
        last = reached.get(i, (None, -1, i))
        for at, name in reversed(path):
            if last[0] is None and name is not None:
                last = (name, at, last[2])
            reached[at] = last
        if last[0] is not None and last[2] < n:
            found.append(last)
    return found


def kernel_heads(text: str) -> list[tuple[str, int]]:
    """(name, index of the ``{`` of its body or of the ``;`` of a declaration) of each
    ``__global__`` function in comment-free ``text``. The name is the word before the
    parameter list, whatever stands between ``__global__`` and it: qualifiers and a return
    type (``static``, ``__noinline__``, ``void``), ``__launch_bounds__(256, 2)``,
    ``__maxnreg__(64)``, ``__cluster_dims__(2, 1, 1)``, ``[[...]]`` and ``__attribute__((...))``,
    line breaks; a specialisation's ``<32>``. ``template <...>``, ``extern "C"`` and ``static``
    come before ``__global__``, so they are not read at all. A word with arguments that is
    none of the known attributes is the name only when no other follows it before the body
    (``BOUNDS(256) my_kernel(...)``: a function-like macro of the student's own). In time
    linear in the text (``_heads``)."""
    return [(name, at) for name, _, at in _heads(text)]


_RETURN = re.compile(r"\breturn\b")
_BARRIER = re.compile(r"\b__syncthreads(?:_count|_and|_or)?\s*\(|\.sync\s*\(\s*\)")
EARLY_RETURN_MARK = "return never reach the barrier"
EARLY_RETURN = (
    "a `return` under `{cond}`, a condition that depends on the thread, before {barrier} "
    "(line {bar}) in {kernel}: threads that " + EARLY_RETURN_MARK + ", and the threads that "
    "wait there read tile elements no one loaded (undefined behaviour: wrong results, or a "
    "hang). Keep every thread to the end: guard the loads (outside the array, load what its "
    "border rule gives: 0, or the clamped pixel) and the store instead of returning"
)
# a return whose condition is not seen to depend on the thread: the reading of thread
# dependence misses some spellings (a helper's index, a macro's), so it is warned of still,
# hedged (a student's trial of lab 3.2 read the old warning's closing "unless" too late)
EARLY_RETURN_MAYBE = (
    "a `return` before {barrier} (line {bar}) in {kernel}: if its condition can differ "
    "between the threads of {group} (it depends on threadIdx, directly or through another "
    "variable or call), the threads that " + EARLY_RETURN_MARK + " and the others wait there "
    "(wrong results, or a hang): guard the loads and the store instead of returning. If "
    "every thread of {group} takes it alike ({alike}), ignore this"
)
# a .sync() whose receiver names a cluster or a grid (cluster.sync(), this_grid().sync()):
# the group it waits for is more than the block
_GROUP_SYNC = re.compile(r"(?:cluster|grid)\w*\s*(?:\(\s*\))?\s*$")


DIVERGENT_BARRIER_MARK = "under a condition that depends on the thread"
DIVERGENT_BARRIER = (
    "a __syncthreads() (line {bar}) in {kernel} " + DIVERGENT_BARRIER_MARK + " (`{cond}`, "
    "line {line}): threads for which it is false never reach the barrier, and those that "
    "wait there read tile elements no one loaded (undefined behaviour: wrong results, or a "
    "hang). Put the barrier where every thread of the block reaches it, and guard only the "
    "loads and the store"
)
# the block-wide barrier of a divergent-barrier warning: __syncthreads and its variants only
# (a cooperative group's .sync() may be a warp tile's, legal under a warp-uniform condition)
_SYNCTHREADS = re.compile(r"\b__syncthreads(?:_count|_and|_or)?\s*\(")
_THREAD = re.compile(
    r"\b(?:threadIdx|laneid)\b|__lane_id\s*\(|\.thread_rank\s*\(|\.thread_index\s*\("
)
# an assignment (=, +=, ...; to an element too) is read as this regex reads it:
#   \b([A-Za-z_]\w*)\s*(?:\[[^]=;]*\]\s*)?[-+*/%&|^]?=(?!=)   the name assigned, then
#   ((?:[^;{}()]|\((?:[^;{}()]|\([^;{}()]*\))*\))*)          the right side, up to the end of
# the statement or of a for's header (parentheses nested two deep); in parts (_assignments),
# since the regex's subscript read on to the next ] = or ; from every word (a[a[a[...:
# quadratic)
_LHS = re.compile(r"\b([A-Za-z_]\w*)\s*")
_SUBSCRIPT_END = re.compile(r"[]=;]")
_ASSIGN_OP = re.compile(r"[-+*/%&|^]?=(?!=)")
_RHS = re.compile(r"(?:[^;{}(),]|\((?:[^;{}()]|\([^;{}()]*\))*\))*")
# a name in a right side, not a member of the same name (gridDim.x is not a variable x)
_REF = re.compile(r"(?<![\w.])(?<!->)[A-Za-z_]\w*")
_RUN = re.compile(r"\w+")
_LANE_ID = re.compile(r"__lane_id\s*\(")
_THREAD_RANK = re.compile(r"\.thread_rank\s*\(")
_THREAD_INDEX = re.compile(r"\.thread_index\s*\(")  # cooperative groups' threadIdx (a review)
# a header starts a statement: after ; { }, after another header's ) (an unbraced if under a
# for) or a label's : (a case of a switch); a switch governs its block as an if does
_HEADER = re.compile(r"(?:^|[;{}):])\s*(?:else\s+)?(if|for|while|switch)\s*\(", re.S)
_ELSE = re.compile(r"\s*else\b(?!\s*if\b)")
_CHUNK = re.compile(r"\S{1,61}")
# a condition longer than this is shown cut, with "..."
SHOWN_CONDITION = 60


def _newlines(text: str) -> list[int]:
    """The index of each newline of ``text``: the line of index i is
    ``bisect_left(newlines, i) + 1``, without counting from the start for each."""
    return [m.start() for m in re.finditer("\n", text)]


def _assignments(text: str) -> list[tuple[str, str]]:
    """(name, right side) of each assignment in ``text``, in order: what ``finditer`` of
    the regex above gives, the subscript's end found once for all the words before it."""
    out, at, n = [], 0, len(text)
    close = -1  # the first ] = or ; at or after the last index looked from (they increase)
    while m := _LHS.search(text, at):
        q, op = m.end(), None
        if q < n and text[q] == "[":
            if close < q + 1:
                found = _SUBSCRIPT_END.search(text, q + 1)
                close = found.start() if found else n
            if close < n and text[close] == "]":
                op = _ASSIGN_OP.match(text, _SPACE.match(text, close + 1).end())
        if op is None:
            op = _ASSIGN_OP.match(text, q)
        if op is None:
            at = m.start() + 1
            continue
        rhs = _RHS.match(text, op.end())
        out.append((m.group(1), rhs.group()))
        at = rhs.end()
    return out


def _thread_macros(text: str) -> set[str]:
    """The macros ``#define``d in ``text`` whose replacement text differs between the threads
    of a block: it holds threadIdx (or a lane id, a thread rank) or such a macro
    (``#define TX threadIdx.x``; ``#define GX (blockIdx.x * TILE + TX)``). A function's
    result is not read so: a helper that reads threadIdx may return the same value to every
    thread (a block reduction's sum), and a firm warning there would be wrong."""
    base, users = set(), {}
    for m in _DEFINE.finditer(text):
        if _THREAD.search(m.group(2)):
            base.add(m.group(1))
        for used in set(_NAME.findall(m.group(2))):
            users.setdefault(used, set()).add(m.group(1))
    return _followed(base, users)


def _followed(base: set[str], users: dict[str, set[str]]) -> set[str]:
    """``base`` and every name that uses one of them, directly or through another
    (``users``: {name: the names whose definitions hold it})."""
    names, todo = set(), list(base)
    while todo:
        name = todo.pop()
        if name not in names:
            names.add(name)
            todo.extend(users.get(name, ()))
    return names


def _thread_names(text: str, macros: Collection[str] = ()) -> set[str]:
    """The variables of ``text`` (a kernel body) that differ between the threads of a
    block: every name assigned from threadIdx (or a lane id, a thread rank, a macro of
    ``macros``: ``_thread_macros``), directly or through another such name (the names its
    right sides hold, followed from threadIdx's), and ``macros`` themselves."""
    base, users = set(macros), {}
    for name, rhs in _assignments(text):
        if _THREAD.search(rhs):
            base.add(name)
        for used in _REF.findall(rhs):
            users.setdefault(used, set()).add(name)
    return _followed(base, users)


def _thread_uses(text: str, names: set[str]) -> tuple[list[int], list[int]]:
    """(starts, ends) of what in ``text`` differs between threads (``_THREAD``, or a name of
    ``names`` not after ``.`` or ``->``): the index where each use starts, ascending, and
    the least end of the uses that start there or later. A part ``text[a:b]`` holds one,
    read alone as a regex of them would read it, when the first start at or after ``a`` has
    an end ``<= b`` (``_depends``): each use is a word or ends with ``(``, and the
    characters either side of a condition (``(``, ``)``, ``;``, spaces) are none of a word."""
    ends: dict[int, int] = {}
    for m in _RUN.finditer(text):
        word, at = m.group(), m.start()
        if word in ("threadIdx", "laneid") or (
            word in names and text[at - 1 : at] != "." and (at < 2 or text[at - 2 : at] != "->")
        ):
            ends[at] = m.end()
    for literal, pattern in (
        ("__lane_id", _LANE_ID), (".thread_rank", _THREAD_RANK), (".thread_index", _THREAD_INDEX)
    ):
        at = text.find(literal)
        while at >= 0:
            if m := pattern.match(text, at):
                ends[at] = min(ends.get(at, m.end()), m.end())
            at = text.find(literal, at + 1)
    starts = sorted(ends)
    least, low = [0] * len(starts), len(text) + 1
    for k in range(len(starts) - 1, -1, -1):
        low = min(low, ends[starts[k]])
        least[k] = low
    return starts, least


def _depends(uses: tuple[list[int], list[int]], a: int, b: int) -> bool:
    """Whether ``text[a:b]`` holds a use of ``_thread_uses(text, ...)``."""
    starts, least = uses
    k = bisect_left(starts, a)
    return k < len(starts) and least[k] <= b


def _shown(text: str, a: int, b: int) -> str:
    """``text[a:b]`` with its spaces made one (``" ".join(text[a:b].split())``), cut to
    ``SHOWN_CONDITION`` characters with "..." when longer: what a warning shows of a
    condition, read only as far as it shows."""
    out, size, last = [], 0, -1
    at = a
    while size <= SHOWN_CONDITION and (m := _CHUNK.search(text, at, b)):
        if out and m.start() != last:
            out.append(" ")
            size += 1
        out.append(m.group())
        size += len(m.group())
        at = last = m.end()
    cond = "".join(out)
    return cond if len(cond) <= SHOWN_CONDITION else cond[: SHOWN_CONDITION - 3] + "..."


def _statement_end(text: str, at: int, braces: dict[int, int], semicolons: list[int]) -> int:
    """Index of the end of the statement that starts at or after ``text[at]``: the closing
    brace of a block (``braces``: ``_pairs`` of the braces), else the statement's ``;``
    (``semicolons``: the index of each; or len(text))."""
    start = _SPACE.match(text, at).end()
    if start < len(text) and text[start] == "{":
        return braces[start]
    k = bisect_left(semicolons, at)
    return semicolons[k] if k < len(semicolons) else len(text)


def _thread_scopes(
    text: str, macros: Collection[str] = ()
) -> list[tuple[int, int, int, tuple[str, int, int]]]:
    """(start, end, index of the condition's keyword, (the text the condition is read in,
    its start, its end)) of each statement of the kernel body ``text`` governed by an
    ``if``, ``else``, ``for`` or ``while`` whose condition depends on the thread
    (``_thread_names``; ``macros``: ``_thread_macros`` of the student's files), braced or
    not, in the order of their headers. A condition the same
    for every thread of the block (a loop over tiles, a kernel argument, ``blockIdx``) is
    not one. In time near-linear in the body: parentheses and braces paired once, statement
    ends found by bisection."""
    n = len(text)
    names = _thread_names(text, macros)
    uses = _thread_uses(text, names)
    uses_cut = None  # over text[:-1]: an unclosed condition's (the last character left out)
    parens, braces = _pairs(text, "(", ")"), _pairs(text, "{", "}")
    semicolons = [m.start() for m in re.finditer(";", text)]
    scopes: list[tuple[int, int, int, tuple[str, int, int]]] = []
    elses: dict[int, re.Match | None] = {}
    for m in _HEADER.finditer(text):
        open_at = m.end() - 1
        close = min(parens[open_at] + 1, n)
        # the condition: text[open_at + 1 : close - 1], its last character cut when unclosed
        source, a, b = text, open_at + 1, close - 1
        if close == n and parens[open_at] == n:
            if uses_cut is None:
                cut = text[:-1]
                uses_cut = _thread_uses(cut, names)
            source = cut
        if m.group(1) == "for":  # for (init; condition; step): the condition alone
            k = bisect_left(semicolons, a)
            if (
                k + 2 <= len(semicolons)
                and semicolons[k + 1] < b
                and (k + 2 == len(semicolons) or semicolons[k + 2] >= b)
            ):
                a, b = semicolons[k] + 1, semicolons[k + 1]
        if not _depends(uses if source is text else uses_cut, a, b):
            continue
        end = _statement_end(text, close, braces, semicolons)
        scopes.append((close, end, m.start(1), (source, a, b)))
        # its else: governed by the same condition
        if end not in elses:
            elses[end] = _ELSE.match(text, end + 1) if end + 1 <= n else None
        if tail := elses[end]:
            start = tail.end()
            scopes.append(
                (start, _statement_end(text, start, braces, semicolons), m.start(1), (source, a, b))
            )
    return scopes


def _under(scopes, positions) -> list[int | None]:
    """For each of the ascending ``positions``, the index into ``scopes`` (``_thread_scopes``)
    of the first scope, in their order, that holds it, or None: the scopes that start at or
    before it in a heap by their order, those that end at or before it dropped."""
    order = sorted(range(len(scopes)), key=lambda k: scopes[k][0])
    heap: list[tuple[int, int]] = []
    out, nxt = [], 0
    for at in positions:
        while nxt < len(order) and scopes[order[nxt]][0] <= at:
            heapq.heappush(heap, (order[nxt], scopes[order[nxt]][1]))
            nxt += 1
        while heap and heap[0][1] <= at:
            heapq.heappop(heap)
        out.append(heap[0][0] if heap else None)
    return out


# A tile loop whose stores into shared memory come before its first barrier and whose reads
# of it come after its last: the next iteration's stores overwrite what slower threads still
# read (a write-after-read race; the known-bad no_end_barrier of lab 3.3, which a student's
# trial without a GPU could not see: only racecheck found it)
# each read linearly: a __shared__ declaration up to its first [ (the group ends without one
# where none comes before ; = or an unpaired parenthesis; __align__(16) and alignas(16) are
# stepped over), a pointer's declaration (a type's word or > before its *) up to its ;
_SHARED_DECL = re.compile(r"\b__shared__\b((?:[^;=()\[]|\([^()]*\))*)(\[?)")
_POINTER_DECL = re.compile(
    r"[\w>]\s*\*\s*(?:const\s+|__restrict__\s+)*([A-Za-z_]\w*)\s*=(?!=)([^;]*)"
)
_LOOP = re.compile(r"(?:^|[;{}):])\s*(?:else\s+)?(for|while)\s*\(", re.M)
_DO = re.compile(r"(?:^|[;{}):])\s*(?:else\s+)?(do)\s*(?=\{)", re.M)
# a barrier to the tile loops' reading: __syncthreads, a group's .sync(), __syncwarp, and a
# helper of the student's named for one (block_sync(): a review's false warning)
_ANY_SYNC = re.compile(r"\b\w*?(?<![aA])[sS]ync\w*\s*\(")  # not memcpy_async(
# the names after the first of one __shared__ declaration (__shared__ float As[T][T], Bs[T][T];)
_MORE_NAMES = re.compile(r",\s*([A-Za-z_]\w*)\s*\[")
DECLARATION_READ = 300  # a __shared__ declaration's characters read for more names
_SUBSCRIPTS = re.compile(r"(?:\s*\[[^][;{}]*(?:\[[^][;{}]*\][^][;{}]*)*\])+")
_FIRST_SUBSCRIPT = re.compile(r"\s*\[([^][;{}]*(?:\[[^][;{}]*\][^][;{}]*)*)\]")
_STORE_OP = re.compile(r"\s*[-+*/%&|^]?=(?!=)")
# a plain name's assignment (not an element's, not a member's), and a right side that makes
# it alternate between buffers (cur = t & 1, stage = (stage + 1) % 2, buf = 1 - buf, !buf)
_NAME_ASSIGN = re.compile(r"(?<![\w.>])([A-Za-z_]\w*)\s*(\^=|[-+*/%&|]?=(?!=))")
_TOGGLES = re.compile(r"%|&\s*1\b|\^\s*1\b|\b1\s*-|!\s*[\w(]")
HEADER_READ = 200  # a loop header's characters read for its variables, an assignment's too
LOOP_STORES_READ, LOOP_READS_READ = 16, 64  # a loop's stores and late reads looked at
UNSYNCED_TILE_MARK = "read elements other threads may not have stored yet"
UNSYNCED_TILE = (
    "the loop of line {loop} in {kernel} stores into shared memory ({name}, line {store}) "
    "and reads another element of it (line {read}) with no barrier between: threads "
    + UNSYNCED_TILE_MARK + " (a read-after-write race; racecheck names it on a GPU, and "
    "results can come out right by luck). Add __syncthreads() after the stores, before the "
    "first read"
)
REUSED_TILE_MARK = "overwrite a tile other threads may still read"
REUSED_TILE = (
    "the loop of line {loop} in {kernel} stores into shared memory ({names}, line {store}) "
    "before its first __syncthreads() (line {first}) and reads it after its last (line "
    "{last}), with no barrier before the next iteration's stores: threads that go on "
    "first " + REUSED_TILE_MARK + " (a write-after-read race; racecheck names it on a GPU). "
    "Add __syncthreads() at the end of the loop body; ignore this if each iteration stores "
    "into a buffer it does not read (double buffering)"
)


def _shared_names(text: str) -> dict[str, str]:
    """{name: the array it is, or points into} of the arrays of kernel body ``text`` in
    shared memory: each ``__shared__`` array declared there (``extern`` too), itself, and
    each pointer declared from one (``float *Bs = smem + T * T;``: smem)."""
    names = {}
    for m in _SHARED_DECL.finditer(text):
        words = m.group(1).split()
        if m.group(2) and words and _WORD.fullmatch(words[-1]):
            names[words[-1]] = words[-1]
            end = text.find(";", m.end(), m.end() + DECLARATION_READ)
            for more in _MORE_NAMES.findall(text, m.end(), end if end >= 0 else m.end()):
                names[more] = more
    if names:
        for m in _POINTER_DECL.finditer(text):
            root = next((names[w] for w in _REF.findall(m.group(2)) if w in names), None)
            if root is not None and m.group(1) not in names:
                names[m.group(1)] = root
    return names


@dataclasses.dataclass
class _TileLoop:
    """A braced loop of a kernel body that holds a barrier, as the tile loops' readings see
    it (``_tile_loops``): the index of its keyword, its body's braces, the indices of its
    first and last barriers, and the stores into shared memory before the first barrier
    that are not into an alternating buffer: (index, array it is in, name, first
    subscript's words, subscripts)."""

    keyword: int
    start: int
    end: int
    first_bar: int
    last_bar: int
    kept: list


def _tile_loops(text: str):
    """(the loops, the reads, the reads' indices) of kernel body ``text`` for the tile
    loops' readings: each braced ``for``, ``while`` or ``do`` that holds a barrier
    (``_ANY_SYNC``) and stores into a shared array (``_shared_names``; an assignment to an
    element) before its first barrier, in the order of their bodies; (index, array it is
    in, subscripts) of each read of a shared array. Not read as such a store: one into a
    buffer that alternates (its first subscript names the loop's variable or a name the loop
    makes alternate, or the pointer stored through is set again in the loop: double
    buffering, where one barrier a step is right), a copy through ``cp.async`` or a helper;
    nor is a read through a helper. In time near-linear in the body (bisection over the
    stores, reads, barriers and assignments, a bounded number of stores looked at a loop)."""
    names = _shared_names(text)
    if not names:
        return [], [], []
    parens, braces = _pairs(text, "(", ")"), _pairs(text, "{", "}")
    bars = [m.start() for m in _ANY_SYNC.finditer(text)]
    stores: list[tuple[int, str, str, set[str], str]] = []
    reads: list[tuple[int, str, str]] = []
    for m in _RUN.finditer(text):
        if m.group() not in names or text[m.start() - 1 : m.start()] in (".", ">"):
            continue
        sub = _SUBSCRIPTS.match(text, m.end())
        if sub is None:
            continue
        subscripts = "".join(sub.group().split())
        op = _STORE_OP.match(text, sub.end())
        root = names[m.group()]
        if op is not None:
            index = _FIRST_SUBSCRIPT.match(text, m.end())
            words = set(_REF.findall(index.group(1))) if index else set()
            stores.append((m.start(), root, m.group(), words, subscripts))
        if op is None or op.group().strip() != "=":  # a read, or +=: both
            reads.append((m.start(), root, subscripts))
    # where each plain name is set, and where it is set so that it alternates
    set_at: dict[str, list[int]] = {}
    toggled_at: dict[str, list[int]] = {}
    for m in _NAME_ASSIGN.finditer(text):
        set_at.setdefault(m.group(1), []).append(m.start())
        rhs = _RHS.match(text, m.end(), m.end() + HEADER_READ)  # read as far as a header
        if m.group(2) == "^=" or _TOGGLES.search(rhs.group()):
            toggled_at.setdefault(m.group(1), []).append(m.start())
    store_at = [st[0] for st in stores]

    def within(at: dict[str, list[int]], name: str, a: int, b: int) -> bool:
        found = at.get(name, ())
        k = bisect_left(found, a)
        return k < len(found) and found[k] < b

    # (index of the keyword, of the body's {, of the header's end or -1) of each loop
    heads = [(m.start(1), m.end(), -1) for m in _DO.finditer(text)]
    for m in _LOOP.finditer(text):
        close = min(parens[m.end() - 1], len(text))
        heads.append((m.start(1), _SPACE.match(text, min(close + 1, len(text))).end(), close))
    loops = []
    for keyword, start, close in sorted(heads, key=lambda x: x[1]):
        if start >= len(text) or text[start] != "{":
            continue
        end = braces[start]
        b0, b1 = bisect_left(bars, start), bisect_left(bars, end)
        if b0 == b1:  # no barrier in the loop
            continue
        header = text[keyword : min(close, keyword + HEADER_READ)] if close >= 0 else ""
        own = {name for name, _ in _assignments(header)}  # the loop's variables
        s0, s1 = bisect_left(store_at, start), bisect_left(store_at, bars[b0])
        kept = [
            st for st in stores[s0 : min(s1, s0 + LOOP_STORES_READ)]
            if not (st[3] & own)
            and not any(within(toggled_at, w, keyword, end) for w in st[3])
            and not within(set_at, st[2], start, end)
        ]
        if kept:
            loops.append(_TileLoop(keyword, start, end, bars[b0], bars[b1 - 1], kept))
    return loops, reads, [r[0] for r in reads]


def _innermost(found: list) -> list:
    """The findings of ``found`` ((start, end, finding) of loops, in the order of their
    starts) whose loop holds no other's: blocks nest or are apart, so a loop holds another
    where the next one found starts before its end."""
    return [
        f for k, (_, end, f) in enumerate(found)
        if k + 1 == len(found) or found[k + 1][0] >= end
    ]


def _reused_tiles_in(first: int, text: str, tiles=None) -> list[tuple[int, int, int, int, str]]:
    """(line of the loop, line of its first store into shared memory, of its first barrier,
    of its last read after its last barrier, the arrays stored before that barrier) for each
    loop of kernel body ``text`` (from line ``first``; ``_tile_loops``) that reads an array
    it stores into before its first barrier after its last, an element other than those
    stored: the next iteration's stores race with the slower threads' reads. Of nested loops
    that do so, the innermost. ``tiles``: ``_tile_loops(text)``, where the caller has it."""
    loops, reads, read_at = _tile_loops(text) if tiles is None else tiles
    newlines = _newlines(text)

    def line(at: int) -> int:
        return bisect_left(newlines, at) + first

    found = []
    for loop in loops:
        stored: dict[str, set[str]] = {}
        for st in loop.kept:
            stored.setdefault(st[1], set()).add(st[4])
        r0, r1 = bisect_left(read_at, loop.last_bar), bisect_left(read_at, loop.end)
        late = next(
            (r for r in reversed(reads[max(r0, r1 - LOOP_READS_READ) : r1])
             if r[1] in stored and r[2] not in stored[r[1]]),
            None,
        )
        if late is not None:
            arrays = ", ".join(sorted({st[2] for st in loop.kept}))
            found.append((loop.start, loop.end, (
                line(loop.keyword), line(loop.kept[0][0]), line(loop.first_bar),
                line(late[0]), arrays,
            )))
    return _innermost(found)


def _unsynced_tiles_in(first: int, text: str, tiles=None) -> list[tuple[int, int, int, str]]:
    """(line of the loop, line of a store into shared memory, line of a read of that array,
    at another element, before any barrier comes between, the array) for each loop of kernel
    body ``text`` (from line ``first``; ``_tile_loops``) whose first barrier comes only after
    such a read: threads read elements that others may not have stored yet (a
    read-after-write race). A read in the store's own statement (``s[t] += s[t + 16]``) is
    not counted. Of nested loops that do so, the innermost. ``tiles``: as for
    ``_reused_tiles_in``."""
    loops, reads, read_at = _tile_loops(text) if tiles is None else tiles
    newlines = _newlines(text)
    found = []
    for loop in loops:
        at, root, subscripts = loop.kept[0][0], loop.kept[0][1], loop.kept[0][4]
        end = text.find(";", at, loop.first_bar)  # the store's statement
        if end < 0:
            continue
        r0, r1 = bisect_left(read_at, end), bisect_left(read_at, loop.first_bar)
        early = next(
            (r for r in reads[r0 : min(r1, r0 + LOOP_READS_READ)]
             if r[1] == root and r[2] != subscripts),
            None,
        )
        if early is not None:
            found.append((loop.start, loop.end, (
                bisect_left(newlines, loop.keyword) + first, bisect_left(newlines, at) + first,
                bisect_left(newlines, early[0]) + first, loop.kept[0][2],
            )))
    return _innermost(found)


def _divergent_barriers_in(
    first: int, text: str, scopes=None
) -> list[tuple[int, int, str]]:
    """(line of a barrier, line of the condition, the condition as a warning shows it:
    ``_shown``) for each barrier in the kernel body ``text`` (starting on line ``first``)
    that lies under an ``if``, ``else``, ``for`` or ``while`` whose condition depends on the
    thread: the first such statement of the body that holds it (``_thread_scopes``, or
    ``scopes`` where the caller has them)."""
    scopes = _thread_scopes(text) if scopes is None else scopes
    newlines = _newlines(text)
    bars = [m.start() for m in _SYNCTHREADS.finditer(text)]
    out, shown = [], {}
    for at, k in zip(bars, _under(scopes, bars)):
        if k is not None:
            if k not in shown:
                shown[k] = _shown(*scopes[k][3])
            line = bisect_left(newlines, scopes[k][2]) + first
            out.append((bisect_left(newlines, at) + first, line, shown[k]))
    return out


def _bodies(lines: list[str]) -> dict[str, tuple[int, str]]:
    """{kernel name: (line of its opening brace, its body's text)} for each ``__global__``
    function in comment-free ``lines`` (braces matched; strings hold no braces in kernels).
    A body ends at the brace that closes it, or before the next kernel's body where that
    comes first (no function is defined in another: the body of an unclosed kernel, or of
    kernels declared in one another's parameters, would otherwise hold all the rest, and
    reading each would be quadratic)."""
    text = "\n".join(lines)
    heads = [(name, at) for name, at in kernel_heads(text) if text[at] == "{"]
    starts = sorted({at for _, at in heads})
    braces = _pairs(text, "{", "}")
    newlines = _newlines(text)
    found = {}
    for name, start in heads:
        k = bisect_right(starts, start)
        end = min(braces[start], starts[k] - 1 if k < len(starts) else len(text))
        found[name] = (bisect_left(newlines, start) + 1, text[start : end + 1])
    return found


# a word before "(" that names no function whose body follows: statements, operators, attributes
_NOT_A_FUNCTION = _NOT_THE_NAME | frozenset(
    "if for while switch catch return sizeof alignof _Alignof static_assert defined".split()
)
_CALLABLE = re.compile(r"\b([A-Za-z_]\w*)\s*(?:<[^<>;{}()]*>\s*)?\(")
# what may stand between a function's parameters and its body (a method's const, noexcept or
# noexcept(true), a trailing return type): spaces and these words, then the body's { or a ->
# and anything up to the first of ;{}()= (which must be the {); _to_body
_TO_BODY_WORDS = re.compile(
    r"(?:\s|\bnoexcept\s*\([^(){};]*\)|\b(?:const|volatile|noexcept|override|final)\b)*"
)
_TO_BODY_STOP = re.compile(r"[;{}()=]")
# a macro and its replacement text, continued lines included
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)((?:[^\n\\]|\\.)*)", re.M | re.S)
_NAME = re.compile(r"\b[A-Za-z_]\w*")


def _pairs(text: str, open_: str, close: str) -> dict[int, int]:
    """{index of each ``open_``: index of the ``close`` that matches it (depth counted from
    the ``open_`` on), or len(text)} in ``text``, in one pass, without reading the text again
    for each (``a(`` repeated over a 2 MB file would take hours)."""
    out, stack = {}, []
    for m in re.finditer(f"[{re.escape(open_ + close)}]", text):
        if m.group() == open_:
            stack.append(m.start())
        elif stack:
            out[stack.pop()] = m.start()
    out.update((i, len(text)) for i in stack)
    return out


def _to_body(text: str, at: int) -> int | None:
    r"""Index of the ``{`` of the body that ``text[at:]`` opens after what may stand between a
    function's parameters and its body, or None: what the regex
    ``(?:\s|\bnoexcept\s*\([^(){};]*\)|\b(?:const|volatile|noexcept|override|final)\b``
    ``|->[^;{}()=]*)*\{`` matches to,
    read in one pass (that regex took time exponential in the spaces after a ``->``: its
    ``[^;{}()=]*`` and ``\s`` share them)."""
    e = _TO_BODY_WORDS.match(text, at).end()
    if text.startswith("{", e):
        return e
    if text.startswith("->", e):
        stop = _TO_BODY_STOP.search(text, e + 2)
        if stop is not None and stop.group() == "{":
            return stop.start()
    return None


def _function_spans(text: str) -> dict[str, list[tuple[int, int]]]:
    """{name: [(start, end), ...]} of the body of every function defined in comment-free
    ``text``, host or device (a word before balanced parentheses and a brace: ``static dim3
    grid_2d(int w, int h) {``; an overload or an ``#if`` branch adds a body), braces
    included, and of every macro (its replacement text). Control statements (``if (...) {``)
    are not functions, and the search goes on after a body (a function holds no other), so
    each character is read a bounded number of times."""
    found: dict[str, list[tuple[int, int]]] = {}
    parens, braces = _pairs(text, "(", ")"), _pairs(text, "{", "}")
    at = 0
    while m := _CALLABLE.search(text, at):
        at = m.end()
        if m.group(1) in _NOT_A_FUNCTION:
            continue
        start = _to_body(text, min(parens[m.end() - 1] + 1, len(text)))
        if start is not None:
            end = braces[start]
            found.setdefault(m.group(1), []).append((start, end + 1))
            at = max(at, end)
    for m in _DEFINE.finditer(text):
        found.setdefault(m.group(1), []).append(m.span(2))
    return found


class _Reading:
    """The comment-free ``texts`` of the student files read once for what their launchers
    reach: ``joined`` (the texts one after another, a newline between), the functions'
    bodies in it (``_function_spans``) and the ``__global__`` kernels defined, in order."""

    def __init__(self, texts: dict[str, str]):
        self.texts = texts
        self.joined = "\n".join(texts.values())
        self.spans = _function_spans(self.joined)
        self.kernels = [name for name, at in kernel_heads(self.joined) if self.joined[at] == "{"]
        self._reached: dict[tuple[str, ...], set[str]] = {}
        self._newlines: list[int] | None = None  # where()'s
        self._files: list[tuple[str, int, int]] = []
        self.grids: dict[tuple[int, int], list[tuple[str, int, str]]] = {}  # rounded_grids'
        self._constants: dict[str, int] | None = None
        self._ceil_div: bool | None = None
        # the kinds of RESOURCES whose creating call the texts hold at all (leaks)
        self.created = [r for r in RESOURCES if _RESOURCE_CALLS[r[0]].search(self.joined)]

    def reach(self, launchers) -> set[str]:
        """The functions and macros of the texts that ``launchers`` are or name, directly or
        through each other (kept for the next caller that asks for the same)."""
        key = tuple(launchers)
        if key not in self._reached:
            self._reached[key] = self._reach(key)
        return self._reached[key]

    def _reach(self, launchers) -> set[str]:
        seen: set[str] = set()
        todo = [name for name in launchers if name in self.spans]
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            for a, b in self.spans[name]:
                body = self.joined[a:b]
                todo += [w for w in set(_NAME.findall(body)) if w in self.spans and w not in seen]
        return seen

    @property
    def ceil_div(self) -> bool:
        """Whether the texts define CEIL_DIV (read on first use)."""
        if self._ceil_div is None:
            self._ceil_div = _CEIL_DIV_DEFINED.search(self.joined) is not None
        return self._ceil_div

    @property
    def constants(self) -> dict[str, int]:
        """``constants`` of the texts (read on first use)."""
        if self._constants is None:
            self._constants = constants(self.joined)
        return self._constants

    def where(self, at: int) -> tuple[str, int]:
        """(file, 1-based line) of offset ``at`` of ``joined``, by bisection over its
        newlines (found once: a hostile file's many grids counted them from the start for
        each)."""
        if self._newlines is None:
            self._newlines = _newlines(self.joined)
            self._files, offset = [], 0  # (file, its last offset in joined, its first index)
            for name, text in self.texts.items():
                self._files.append((name, offset + len(text), offset))
                offset += len(text) + 1
        k = bisect_left(self._files, at, key=lambda f: f[1])
        if k == len(self._files):
            raise ValueError("an offset past the texts")
        name, _, first = self._files[k]
        return name, bisect_left(self._newlines, at) - bisect_left(self._newlines, first) + 1


def exercise_kernels(
    lab: Lab, texts: dict[str, str], reading: _Reading | None = None
) -> dict[str, list[str]]:
    """{exercise: the ``__global__`` kernels it runs} for each exercise of the bound ``lab``
    that names no kernel (lab 3.5's: the student chooses them), read from the comment-free
    ``texts`` of the student files (or their ``reading``, made once): the kernels whose names
    its launchers' bodies hold, directly or through the functions and macros of the student
    files they name (a launch, ``cudaLaunchKernel(kernel, ...)``, a pointer taken; a stage
    launcher the pipeline's calls). In file order. A kernel that no launcher reaches (dead
    code, or a launch through a table the reading does not follow) is in none; an unbound
    lab has none."""
    if not lab.bound:
        return {}
    named = [ex for ex in lab.exercises if ex.kernel is None]
    reached = reached_kernels(texts, *(ex.launchers for ex in named), reading=reading)
    return {ex.name: kernels for ex, kernels in zip(named, reached)}


def reached_kernels(
    texts: dict[str, str], *groups, reading: _Reading | None = None
) -> list[list[str]]:
    """For each group of launchers, the ``__global__`` kernels of the comment-free ``texts``
    whose names the launchers' bodies hold, directly or through the functions and macros of
    the texts they name (``exercise_kernels``' reading), in file order. The texts are read
    once for all the groups (``reading``, where the caller has made it)."""
    if not groups:
        return []
    reading = reading or _Reading(texts)
    out = []
    for launchers in groups:
        seen = reading.reach(launchers)
        out.append(list(dict.fromkeys(k for k in reading.kernels if k in seen)))
    return out


# What a launcher may create on each call and must release before it returns: (the call that
# creates, the call that releases, what it is). Created on every call and never released, one
# leaks each call, and the timed runs call a launcher hundreds of times (handout 3.4: "leaks
# run out of resources"); without a GPU nothing else says so (a student's trial, session 45).
RESOURCES = (
    ("cudaCreateTextureObject", "cudaDestroyTextureObject", "texture object"),
    ("cudaCreateSurfaceObject", "cudaDestroySurfaceObject", "surface object"),
    ("cudaMallocArray", "cudaFreeArray", "CUDA array"),
    ("cudaMalloc3DArray", "cudaFreeArray", "CUDA array"),
    ("cudaMallocMipmappedArray", "cudaFreeMipmappedArray", "mipmapped CUDA array"),
    # a lab 3.2 trial: a stream, a buffer made in every launcher call and never released
    ("cudaStreamCreate", "cudaStreamDestroy", "stream"),
    ("cudaStreamCreateWithFlags", "cudaStreamDestroy", "stream"),
    ("cudaStreamCreateWithPriority", "cudaStreamDestroy", "stream"),
    ("cudaEventCreate", "cudaEventDestroy", "event"),
    ("cudaEventCreateWithFlags", "cudaEventDestroy", "event"),
    ("cudaMallocHost", "cudaFreeHost", "page-locked host buffer"),
    ("cudaHostAlloc", "cudaFreeHost", "page-locked host buffer"),
    ("cudaHostRegister", "cudaHostUnregister", "page-locked registration"),
    # (either release frees either allocation: cudaFree waits, cudaFreeAsync is ordered)
    ("cudaMalloc", "cudaFree or cudaFreeAsync", "device buffer"),
    ("cudaMallocAsync", "cudaFreeAsync or cudaFree", "device buffer"),
    ("cudaMallocManaged", "cudaFree", "managed buffer"),
    ("cudaMallocPitch", "cudaFree or cudaFreeAsync", "device buffer"),
)
_RESOURCE_CALLS = {  # a release may be one of several ("cudaFree or cudaFreeAsync")
    create: re.compile(rf"\b{create}\s*\(") for create, _, _ in RESOURCES
}
# a release named at all counts: called, or passed as a function (a unique_ptr's &cudaFree
# deleter, decltype(&cudaFree))
_RESOURCE_CALLS.update({
    call: re.compile(rf"\b{call}\b")
    for _, release, _ in RESOURCES for call in release.split(" or ")
})
LEAK_MARK = "each call leaks"
LEAK = (
    "{create} in {holder}{via}, but {release} is called nowhere {who}: "
    + LEAK_MARK + " a {what} (the timed runs call the launcher hundreds of times, and what "
    "leaks adds up). Release it once its kernel is done (cudaDeviceSynchronize, then "
    "{release}); ignore this if it is made once and kept on purpose"
)


def leaks(reading: _Reading, launchers) -> list[tuple[str, int, str]]:
    """(file, line, warning) for each kind of ``RESOURCES`` that the functions ``launchers``
    reach (``_Reading.reach``) create and none of them releases: at its first creation, in
    file order, naming the function that holds it and the launchers that reach that one (lab
    3.5's pipeline lists every stage's launcher: a student's trial read all four named for a
    texture only one made). A release in code they do not reach (an ``atexit`` handler) is
    not seen."""
    if not reading.created:
        return []
    names = reading.reach(launchers)
    reached = [(span, name) for name in names for span in reading.spans[name]]
    out = []
    for create, release, what in reading.created:
        first = min(
            ((m.start(), name) for (a, b), name in reached
             if (m := _RESOURCE_CALLS[create].search(reading.joined, a, b))),
            default=None,
        )
        if first is None or any(
            _RESOURCE_CALLS[r].search(reading.joined, a, b)
            for (a, b), _ in reached for r in release.split(" or ")
        ):
            continue
        at, _ = first
        # the innermost body that holds it (a macro's text may lie inside a function's)
        holder = min(
            ((b - a, name) for (a, b), name in reached if a <= at < b), default=(0, first[1])
        )[1]
        by = [n for n in launchers if n != holder and holder in reading.reach([n])]
        via = (
            "" if holder in launchers or not by
            else f", which {' and '.join(by)} {'calls' if len(by) == 1 else 'call'}"
        )
        name, line = reading.where(at)
        out.append((name, line, LEAK.format(
            create=create, release=release, what=what, holder=holder, via=via,
            who=f"{launchers[0]} reaches" if len(launchers) == 1
            else "the exercise's launchers reach",
        )))
    return sorted(out, key=lambda w: (list(reading.texts).index(w[0]), w[1]))


# A grid dimension that rounds down (dim3 grid(N / TILE, M / TILE), <<<n / BLOCK, ...>>>):
# the partial last block of the data gets no threads, and a size under one block a grid of 0,
# which fails to launch (lab 3.3's known-bad launch_grid_rounded_down; a lab 3.1 trial's
# coalescing grid, which nothing without a GPU flagged). A dimension is read as far as
# GRID_SHOWN characters: one longer is not read.
_GRID_DECL = re.compile(r"\bdim3\s+([A-Za-z_]\w*)\s*[({]")
_GRID_ASSIGN = re.compile(r"\b([A-Za-z_]\w*)\s*=(?!=)")
_GRID_NEXT = re.compile(r"\s*,\s*([A-Za-z_]\w*)\s*[({]")  # a dim3 declaration's next name
_DIM3_CALL = re.compile(r"\s*dim3\s*[({]")
_IDENT = re.compile(r"\s*([A-Za-z_]\w*)\s*$")
_LAUNCH = re.compile(r"<<<")
# a grid's count put right after its division: blocks++, ++blocks, blocks += 1, grid.x = ...
_GRID_CHANGE = re.compile(
    r"(?<![\w.>])([A-Za-z_]\w*)\s*(?:\+\+|--|(?:<<|>>|[-+*/%&|^])="
    r"|\.[xyz]\s*(?:\+\+|--|(?:<<|>>|[-+*/%&|^])?=(?!=)))"
    r"|(?:\+\+|--)\s*([A-Za-z_]\w*)"
    r"|[(,=]\s*&\s*([A-Za-z_]\w*)\b(?!\s*[.\[(]|\s*->)"  # &threads: set by a call (occupancy)
)
# what a function takes the remainder by (n % 256, n % (TILE)): a division by it there is
# rounded up, or checked exact, by hand
_MODULO = re.compile(r"%\s*\(?\s*([A-Za-z_]\w*|\d+)")
# integer constants the files define (#define N 4096, constexpr int N = 64 * 64;, static
# const unsigned N = 1u << 12;): a division of two whose values are known, and exact, rounds
# nothing down (a review: constexpr N = 4096; <<<N / 256>>> was warned)
_CONSTANT = re.compile(
    r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+([^\n]{1,60})$"
    r"|\b(?:constexpr|const)\s+(?:[A-Za-z_]\w*\s+){0,3}([A-Za-z_]\w*)\s*"
    r"(?:=\s*([^;{}\n]{1,60})|\{([^;{}\n]{1,60})\}\s*);",  # = 4096; or {4096};
    re.M,
)
# a name declared as a variable or a (template) parameter (int n), int n = 4;, <int N>):
# it is not a constant there, whatever a const of that name elsewhere says
_DECLARED = re.compile(
    r"\b(?!return\b|case\b|else\b|goto\b|throw\b|define\b|undef\b)"
    r"[A-Za-z_]\w*\s+([A-Za-z_]\w*)\s*[,)=;>\[]"
)
_PRIMARY = re.compile(r"\w+|\((?:[^()]|\([^()]*\))*\)")  # a #define's body read as a value
_INT_SUFFIX = re.compile(r"\b(\d+)[uUlL]{1,3}\b")
_DIGITS = operator.itemgetter(1)  # _INT_SUFFIX's replacement: the digits
_CONSTANT_TEXT = re.compile(r"[\w\s()+\-*/%<>]*")
CONSTANT_LIMIT = 1 << 62  # a value past it (or a shift past 62) is not read
# an integer type's cast before a parenthesised whole: (int)(, (unsigned long)(, static_cast<T>(
_INT_TYPE = r"(?:std::)?(?:int|long|short|unsigned|signed|size_t|u?int(?:8|16|32|64)_t)"
_INT_CAST = re.compile(
    r"(?:\(\s*(?:(?:unsigned|signed|const|long|short)\s+)*" + _INT_TYPE + r"\s*\)"
    r"|static_cast\s*<[^<>()]{1,40}>|(?=" + _INT_TYPE + r"\s*\()" + _INT_TYPE + r")\s*\("
)
GRID_ARGUMENTS = 3  # a dim3's, at most
GRID_SHOWN = 120
ROUNDED_GRID_MARK = "rounds the grid down"
ROUNDED_GRID = (
    "`{dim}` " + ROUNDED_GRID_MARK + ": the last, partial block of the data gets no threads, "
    "and a size below one block makes a grid of 0, which fails to launch. Round up: "
    "{fix}; ignore this if the kernel loops over the rest itself (a grid-stride loop)"
)
# a launch's block of more threads than any CUDA GPU runs in one block: the launch fails
# ("invalid configuration argument") and no thread runs (lab 3.3's known-bad
# launch_2048_threads; a lab 3.2 trial's 2048, which nothing without a GPU flagged)
MAX_THREADS_PER_BLOCK = 1024
BLOCK_TOO_LARGE_MARK = "threads in one block"
BLOCK_TOO_LARGE = (
    "`{block}` asks for {threads} " + BLOCK_TOO_LARGE_MARK + ", over the "
    f"{MAX_THREADS_PER_BLOCK} every CUDA GPU allows: the launch fails (invalid configuration "
    "argument) and no thread runs. Use at most 1024 threads a block (x * y * z), and more "
    "blocks"
)
# the round-up offered: CEIL_DIV only where the student's files define it (lab 3.2's do not:
# a 3.2 trial copied it and failed to build)
ROUND_UP = "({num} + {den} - 1) / {den}"
ROUND_UP_MACRO = "CEIL_DIV({num}, {den}) or " + ROUND_UP
_CEIL_DIV_DEFINED = re.compile(r"^[ \t]*#[ \t]*define[ \t]+CEIL_DIV\b", re.M)


def _closing(text: str, at: int, end: int) -> int:
    """The index of the ``)`` or ``}`` that closes the group opened just before ``at``
    (within GRID_SHOWN characters and before ``end``), or -1."""
    depth = 0
    for i in range(at, min(end, len(text), at + GRID_SHOWN + 1)):
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                return i
            depth -= 1
        elif ch == ";":
            break
    return -1


def _arguments(text: str, at: int, closers: str) -> list[tuple[int, str]]:
    """(start, text) of each top-level comma-separated argument of ``text`` from ``at`` up to
    the first top-level character of ``closers``: at most GRID_ARGUMENTS of them, within
    GRID_SHOWN characters of ``at`` (a list that does not end within them cut there)."""
    out, depth, start, i, n = [], 0, at, at, len(text)
    while i < n and i - at <= GRID_SHOWN and len(out) < GRID_ARGUMENTS:
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif depth == 0 and (ch == "," or ch in closers or text.startswith(">>>", i)):
            out.append((start, text[start:i]))
            if ch != ",":
                return out
            start = i + 1
        elif ch in ")]}":
            depth -= 1
        elif ch == ";":
            break
        i += 1
    return out


def _rounded_down(arg: str) -> tuple[str, str] | None:
    """(numerator, denominator) where the grid dimension ``arg`` is a division at its top
    level with no + or - anywhere (``N / TILE``, ``(cols / 32)``), else None: a dimension
    rounded up (``(n + B - 1) / B``, ``CEIL_DIV(n, B)``, ``n / B + 1``), chosen (``n < B ?
    1 : n / B``) or inside a call (``max(1, n / B)``) is not one."""
    e = arg.strip()
    while True:  # parentheses and integer casts around the whole (a 3.2 trial's (int)(n / B))
        if e.startswith("(") and e.endswith(")") and _pairs(e, "(", ")").get(0) == len(e) - 1:
            e = e[1:-1].strip()
        elif (m := _INT_CAST.match(e)) is not None and e.endswith(")") and (
            _pairs(e, "(", ")").get(m.end() - 1) == len(e) - 1
        ):
            e = e[m.end() - 1 :].strip()
        else:
            break
    if "+" in e or "-" in e or "?" in e:
        return None
    depth, cut = 0, None
    for i, ch in enumerate(e):
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "/" and depth == 0:
            cut = i
    if cut is None:
        return None
    num, den = e[:cut].strip(), e[cut + 1 :].strip()
    return (num, den) if num and den else None


def _constant_value(expr: str, known: dict[str, int], exact: bool = False) -> int | None:
    """The value of the C integer expression ``expr`` (literals with their u/l suffixes,
    ``known`` names, + - * / % << >> and parentheses; ``/`` as C's division of integers that
    are not negative), or None where it is anything else, divides by 0 or leaves
    [-CONSTANT_LIMIT, CONSTANT_LIMIT], or, ``exact``, divides with a remainder."""
    expr = expr.strip()
    if expr.isidentifier():  # the common cases without a parse (a launch's block, a count)
        v = known.get(expr)
        return v if v is not None and abs(v) <= CONSTANT_LIMIT else None
    if expr.isdecimal() and expr.isascii() and len(expr) <= 19 and expr[0] != "0" or expr == "0":
        return int(expr) if int(expr) <= CONSTANT_LIMIT else None
    expr = _INT_SUFFIX.sub(_DIGITS, expr)
    if not expr or len(expr) > GRID_SHOWN or not _CONSTANT_TEXT.fullmatch(expr):
        return None
    if any(known.get(name) is None for name in _NAME.findall(expr)):
        return None  # a name that is not a known constant: no parse (a hostile file's launches)
    try:
        with _warnings.catch_warnings():  # 1if 0 else 2: no SyntaxWarning on stderr
            _warnings.simplefilter("ignore")
            tree = ast.parse(expr.replace("/", "//"), mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None

    def value(node) -> int:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            v = node.value
        elif isinstance(node, ast.Name) and known.get(node.id) is not None:
            v = known[node.id]
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = value(node.operand) * (-1 if isinstance(node.op, ast.USub) else 1)
        elif isinstance(node, ast.BinOp) and type(node.op) in _CONSTANT_OPS:
            left, right = value(node.left), value(node.right)
            if isinstance(node.op, (ast.FloorDiv, ast.Mod)) and (right <= 0 or left < 0):
                raise ValueError
            if exact and isinstance(node.op, ast.FloorDiv) and left % right:
                raise ValueError
            if isinstance(node.op, (ast.LShift, ast.RShift)) and not 0 <= right <= 62:
                raise ValueError
            v = _CONSTANT_OPS[type(node.op)](left, right)
        else:
            raise ValueError
        if abs(v) > CONSTANT_LIMIT:
            raise ValueError
        return v

    try:
        return value(tree)
    except (ValueError, RecursionError):
        return None


_CONSTANT_OPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.LShift: operator.lshift, ast.RShift: operator.rshift,
}


def constants(text: str, base: dict[str, int] | None = None) -> dict[str, int]:
    """{name: value} of the integer constants the comment-free ``text`` defines
    (``_CONSTANT``), in order, each read with those before it; a name defined twice with
    two values, or whose value is not a constant expression, is left out, and so is one
    declared anywhere as a variable or a parameter (``_DECLARED``: constants are read for
    the whole text, not a scope) and a ``#define`` whose body is not one token or wholly in
    parentheses (its text is pasted: ``#define N 1 << 20`` makes ``N / 256`` 1 << 0).
    ``base``: the constants of an enclosing text (a function's body is read over the
    files': its own definitions take the place of theirs, its variables remove them)."""
    # over a base: a ChainMap whose first map holds this text's own (None hides a base's
    # name), so reading each function of a file costs its own text, not the file's constants
    known = {} if base is None else ChainMap({}, base)
    found = list(_CONSTANT.finditer(text))
    heads = {m.start(3) for m in found if m.group(3)}  # const int N = : not a variable
    dropped = {m.group(1) for m in _DECLARED.finditer(text) if m.start(1) not in heads}

    def drop(name: str) -> None:
        if base is not None and name in base:
            known[name] = None
        else:
            known.pop(name, None)

    for name in dropped:
        drop(name)
    own: dict[str, int] = {}  # this text's definitions (a base's may differ)
    for m in found:
        name, expr = (m.group(1), m.group(2)) if m.group(1) else (m.group(3),
                                                                  m.group(4) or m.group(5))
        # #define N 1 << 20 is text: N / 256 is 1 << 0 in C
        primary = not m.group(1) or _PRIMARY.fullmatch(expr.strip())
        v = _constant_value(expr, known) if primary else None
        if name in dropped:
            continue
        if v is None or own.get(name, v) != v:
            drop(name)
            dropped.add(name)
        else:
            known[name] = own[name] = v
    return known


def _grid_dims(
    text: str, at: int, grid: str, defined: dict, changed: dict
) -> list[tuple[int, str]]:
    """(start, text) of each dimension of the launch grid ``grid`` (its text, starting at
    ``at``): a ``dim3(...)`` or an expression as it stands, or, for a name, what its last
    definition before the launch gives (``defined``: {name: [(index, start of the
    definition's arguments or expression, whether a dim3's)]}, ascending), none where the
    name is changed between the two (``changed``: {name: [index, ...]}, ascending:
    ``blocks++``, ``grid.x = ...``)."""
    if (m := _DIM3_CALL.match(grid)) is not None:
        return _arguments(text, at + m.end(), ")}")
    if (m := _IDENT.match(grid)) is None or m.group(1) not in defined:
        return [(at, grid)]
    found = defined[m.group(1)]
    k = bisect_left(found, (at, -1, False))
    if k == 0:
        return []
    where, start, is_dim3 = found[k - 1]
    moved = changed.get(m.group(1), [])
    j = bisect_left(moved, where + 1)
    if j < len(moved) and moved[j] < at:
        return []
    if is_dim3:
        return _arguments(text, start, ")}")
    end = text.find(";", start, start + GRID_SHOWN + 1)
    expr = text[start:end] if end >= 0 else ""
    if (m := _DIM3_CALL.match(expr)) is not None:
        return _arguments(text, start + m.end(), ")}")
    return [(start, expr)] if expr else []


def _exact(num: str, den: str, known: dict[str, int]) -> bool:
    """Whether ``num / den`` are both constants (``known``) and the division is exact."""
    return _constant_value(f"({num}) / ({den})", known, exact=True) is not None


def rounded_grids(reading: _Reading, launchers) -> list[tuple[str, int, str]]:
    """(file, line, warning) for each dimension of a launch's grid that rounds down
    (``_rounded_down``) in the functions ``launchers`` reach, in file order: the grid as the
    ``<<<`` gives it, or the last ``dim3`` declaration or assignment of its name before the
    launch in the same function, unless the name is changed in between or the function
    takes a remainder by the same divisor (``if (n % 256) blocks++;``, ``assert(n % 256 ==
    0)``). A grid made elsewhere (a helper's result) is not read."""
    spans = sorted(span for name in set(reading.reach(launchers)) for span in reading.spans[name])
    out = []
    for span in spans:
        if span not in reading.grids:  # read once for all the exercises
            reading.grids[span] = _rounded_grids_in(reading, *span)
        out += reading.grids[span]
    return sorted(set(out), key=lambda w: (list(reading.texts).index(w[0]), w[1], w[2]))


def _rounded_grids_in(reading: _Reading, a: int, b: int) -> list[tuple[str, int, str]]:
    """``rounded_grids`` of the body ``reading.joined[a:b]`` of one function."""
    text = reading.joined
    launches = [m.end() for m in _LAUNCH.finditer(text, a, b)]
    if not launches:
        return []
    defined: dict[str, list[tuple[int, int, bool]]] = {}
    for m in _GRID_DECL.finditer(text, a, b):
        defined.setdefault(m.group(1), []).append((m.start(), m.end(), True))
        at = m.end()
        for _ in range(GRID_ARGUMENTS):  # dim3 block(16, 16), grid(n / 16, m / 16);
            close = _closing(text, at, b)
            if close < 0 or (m := _GRID_NEXT.match(text, close + 1, b)) is None:
                break
            defined.setdefault(m.group(1), []).append((m.start(1), m.end(), True))
            at = m.end()
    for m in _GRID_ASSIGN.finditer(text, a, b):
        defined.setdefault(m.group(1), []).append((m.start(), m.end(), False))
    changed: dict[str, list[int]] = {}
    for m in _GRID_CHANGE.finditer(text, a, b):
        changed.setdefault(m.group(1) or m.group(2) or m.group(3), []).append(m.start())
    for found in defined.values():
        found.sort()
    moduli = {m.group(1) for m in _MODULO.finditer(text, a, b)}
    out: list[tuple[str, int, str]] = []
    local: dict[str, int] | None = None

    def known() -> dict[str, int]:
        """The function's own constants, over the files' (a trial: a BLOCK per launcher),
        read once and only where a launch asks."""
        nonlocal local
        if local is None:
            local = constants(text[a:b], reading.constants)
        return local

    for at in launches:
        arguments = _arguments(text, at, "")
        for start, block in arguments[1:2]:  # the block: every dimension a known constant
            dims = _grid_dims(text, start, block, defined, changed)
            values = [_constant_value(dim, known()) for _, dim in dims]
            threads = 1
            for v in values:
                threads *= v if v is not None and v > 0 else 0
            if dims and threads > MAX_THREADS_PER_BLOCK:
                name, line = reading.where(start + len(block) - len(block.lstrip()))
                out.append((name, line, BLOCK_TOO_LARGE.format(
                    block=" ".join(block.split()), threads=threads
                )))
        for start, grid in arguments[:1]:
            for dim_at, dim in _grid_dims(text, start, grid, defined, changed):
                parts = _rounded_down(dim)
                if parts is None or parts[1].strip("() ") in moduli:
                    continue
                if _exact(*parts, known()):
                    continue
                name, line = reading.where(dim_at + len(dim) - len(dim.lstrip()))
                fix = ROUND_UP_MACRO if reading.ceil_div else ROUND_UP
                out.append((name, line, ROUNDED_GRID.format(
                    dim=" ".join(dim.split()), fix=fix.format(num=parts[0], den=parts[1])
                )))
    return out


def early_returns(lines: list[str], kernel: str) -> list[tuple[int, int, str, str]]:
    """(line of a ``return``, line of the first barrier after it, the condition that depends
    on the thread it lies under as a warning shows it, or "" where none is seen, and the
    barrier's kind: "syncthreads", "sync" (a group's ``.sync()``) or "group" (a cluster's or
    a grid's)) for each ``return`` before a barrier in the ``__global__`` function
    ``kernel`` of comment-free source ``lines``: a thread that returns there skips the
    barrier, while others wait at it (CUDA C++ Programming Guide, "Synchronization
    Functions": __syncthreads() in divergent code is allowed only if the condition is the
    same across the block). Whether a condition is the same for the block is not decided
    here (a condition seen to depend on the thread is; the reading misses some spellings):
    the warning for "" says when to ignore it."""
    body = _bodies(lines).get(kernel)
    return [] if body is None else _early_returns_in(*body)


def _early_returns_in(first: int, text: str, scopes=None) -> list[tuple[int, int, str, str]]:
    """``early_returns`` of one kernel body ``text`` that starts on line ``first``
    (``scopes``: its ``_thread_scopes``, where the caller has them)."""
    newlines = _newlines(text)
    found = list(_BARRIER.finditer(text))
    barriers = [bisect_left(newlines, m.start()) + first for m in found]
    returns = [m.start() for m in _RETURN.finditer(text)]
    if not barriers or not returns:
        return []
    # each barrier's kind, and the index of the first cluster's or grid's at or after it
    kinds = [
        "syncthreads" if not m.group().startswith(".")
        else "group" if _GROUP_SYNC.search(text, max(0, m.start() - 40), m.start())
        else "sync"
        for m in found
    ]
    group, nxt = [0] * len(found), None
    for i in range(len(found) - 1, -1, -1):
        nxt = i if kinds[i] == "group" else nxt
        group[i] = nxt
    scopes = _thread_scopes(text) if scopes is None else scopes
    out, shown = [], {}
    for at, k in zip(returns, _under(scopes, returns)):
        line = bisect_left(newlines, at) + first
        later = bisect_right(barriers, line)  # the barriers' lines ascend
        if later == len(barriers):
            continue
        if k is not None and k not in shown:
            shown[k] = _shown(*scopes[k][3])
        cond = shown[k] if k is not None else ""
        # a return the block takes alike is still one before a later cluster's barrier
        bar = later if cond or group[later] is None else group[later]
        out.append((line, barriers[bar], cond, kinds[bar]))
    return out


# The lab's own [[exercise.lint]] patterns are the course's regexes run over hostile text, and
# Python's re sets no bound on its steps: a pattern that reads on to the end of the file from
# each match (lab 3.3's partial-tile rules as they were: (?![\s\S]*...)) or whose quantifiers
# share characters (lab 3.4's \s*&?\s*(?P<symbol>[^,;()]+?)\s*,) takes time quadratic or
# worse in a hostile file (100 KB of `for (;i < N / TILE;` took over 5 s; assemble takes 2 MB
# a file), and holds the interpreter's lock meanwhile, stalling a batch's other gradings. So
# they are searched in a child interpreter given RULES_TIMEOUT_S (the course's own files take
# a few milliseconds); past it, their warnings are left out and one warning says so. Session
# 39 rewrote the course's slow rules to read on only up to a bound, with no two quantifiers
# sharing a character (1 MB in under 0.5 s a rule: docs/design-notes.md, note 90); the child
# stays the bound for the next rule that does not.
RULES_TIMEOUT_S = 2.0
RULES_NOT_SEARCHED = (
    "the lab's source warnings (likely mistakes in the student files) were not looked for: "
    "{why}; no points depend on them"
)
# the child: for each rule (pattern, unless), [file, line, named groups] of the first match
# that starts on each line of each file, in file and line order; none where ``unless`` is
# found in any file. A call split over lines (``cudaMemcpy(d_dst,\n d_src, ...)``) is
# searched as one text, as the compiler reads it; the matches' starts ascend, so the lines are
# counted on from the last match.
_RULES_CHILD = """
import json, re, sys
job = json.load(sys.stdin)
texts, out = job["texts"], []
for pattern, unless in job["rules"]:
    hits = []
    if not (unless and any(re.search(unless, t) for t in texts.values())):
        rx = re.compile(pattern)
        for name, text in texts.items():
            seen, line, counted = set(), 1, 0
            for m in rx.finditer(text):
                line += text.count("\\n", counted, m.start())
                counted = m.start()
                if line not in seen:
                    seen.add(line)
                    hits.append([name, line, m.groupdict()])
    out.append(hits)
json.dump(out, sys.stdout)
"""


def rule_matches(
    rules: list[tuple[str, str | None]], texts: dict[str, str], timeout_s: float = RULES_TIMEOUT_S
) -> tuple[list[list[tuple[str, int, dict[str, str | None]]]], str | None]:
    """For each rule (``pattern``, ``unless``): (file, 1-based line, named groups) of the
    first match of ``pattern`` that starts on each line of each of the comment-free
    ``texts``, in file and line order, or none where ``unless`` is found in any of them;
    searched in a child interpreter given ``timeout_s`` (see RULES_TIMEOUT_S). Returns
    (matches, None), or ([], why) when the search did not finish."""
    if not rules:
        return [], None
    job = json.dumps({"rules": rules, "texts": texts})  # ASCII: no encoding to agree on
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-c", _RULES_CHILD],
            input=job,
            capture_output=True,
            text=True,
            timeout=timeout_s,
        )
    except subprocess.TimeoutExpired:
        return [], f"searching the student files took over {timeout_s:g} s"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        return [], f"searching the student files stopped ({last})"
    matches = json.loads(done.stdout)
    return [[(f, line, groups) for f, line, groups in hits] for hits in matches], None


# {name} or {name|fallback} in a rule's message, name a named group of its pattern
_PLACEHOLDER = re.compile(r"\{(\w+)(?:\|([^{}]*))?\}")


def render(message: str, match: re.Match | dict[str, str | None]) -> str:
    """``message`` with each ``{name}`` or ``{name|fallback}`` whose name is a named group
    of the rule's pattern replaced by the text that group matched (stripped), or by the
    fallback where it matched nothing: a warning names the student's own identifier
    (``cudaMemcpyToSymbol(c_filter, ...)``), not the skeleton's. Braces that name no group
    stay as written. ``match``: the match, or its named groups (``rule_matches``)."""
    groups = match.groupdict() if isinstance(match, re.Match) else match

    def fill(m: re.Match) -> str:
        name, fallback = m.group(1), m.group(2)
        if name not in groups:
            return m.group(0)
        text = (groups[name] or "").strip()
        return text or (fallback if fallback is not None else m.group(0))

    return _PLACEHOLDER.sub(fill, message)


def student_texts(lab: Lab, src: Path) -> dict[str, str]:
    """{file: its comment-free text (``strip_comments``, lines kept)} of the student files
    under ``src`` that are there, but the written report (Markdown, not C)."""
    texts = {}
    for name in lab.required_files:
        path = src / name
        if path.is_file():
            texts[name] = "\n".join(strip_comments(path.read_text(errors="replace")))
    return texts


def kernel_lines(texts: dict[str, str]) -> dict[str, tuple[str, int]]:
    """{kernel: (file, line of its name)} of the first definition of each ``__global__``
    kernel in the comment-free ``texts`` (``student_texts``): the line of the word the head
    reads as the name (not of the last occurrence of that string before the body: a
    parameter named ``blur_kernel_out`` on the next line is not the name, and looking back
    from each body was quadratic)."""
    out: dict[str, tuple[str, int]] = {}
    for name, text in texts.items():
        newlines = None
        for kernel, at_name, at in _heads(text):
            if text[at] == "{" and kernel not in out:
                newlines = _newlines(text) if newlines is None else newlines
                out[kernel] = (name, bisect_left(newlines, at_name) + 1)
    return out


def _early_return_message(bar: int, cond: str, kind: str, kernel: str) -> str:
    """The warning for one of ``early_returns``' finds (its barrier's line, condition and
    kind) in ``kernel``: firm where the condition is seen to depend on the thread
    (``EARLY_RETURN``), else hedged (``EARLY_RETURN_MAYBE``), for the block or, before a
    cluster's or a grid's barrier, for the group it syncs."""
    barrier = "a __syncthreads()" if kind == "syncthreads" else "a barrier (`.sync()`)"
    if cond:
        return EARLY_RETURN.format(bar=bar, kernel=kernel, cond=cond, barrier=barrier)
    group, alike = (
        ("the cluster or grid it syncs", "the same for all its blocks") if kind == "group"
        else ("the block", "a condition on blockIdx or the kernel's arguments only")
    )
    return EARLY_RETURN_MAYBE.format(
        bar=bar, kernel=kernel, barrier=barrier, group=group, alike=alike
    )


def warnings(lab: Lab, src: Path) -> dict[str, list[str]]:
    """Per exercise, one line per match of its lint rules in the student files under
    ``src`` ("kernels.cu:48: <message>"), in file and line order, one per kind of
    ``RESOURCES`` its launchers create and never release (``leaks``), and one per ``return``
    a kernel of it makes before a barrier (``early_returns``) or barrier it holds under a
    condition that depends on the thread (``_divergent_barriers_in``), the same for every
    lab. Its kernel is the lab binary's (``--list``), or where that names none every kernel
    its launchers reach (``exercise_kernels``), one after the other: ``lab`` is bound
    (``manifest.bind``), else those two are not looked for."""
    found: dict[str, list[str]] = {}
    texts = student_texts(lab, src)
    bodies = {
        name: _bodies(text.split("\n")) for name, text in texts.items() if name.endswith(".cu")
    }
    # the kernels of the exercises that name none: those their launchers reach
    reading = _Reading(texts)
    reached = exercise_kernels(lab, texts, reading)
    macros = _thread_macros(reading.joined)  # #define TX threadIdx.x and its kin
    barriers: dict[tuple[str, str], tuple[list, ...]] = {}
    # every rule of every exercise, searched at once (rule_matches)
    rules = [(rule.pattern, rule.unless) for ex in lab.exercises for rule in ex.lint]
    matches, why = rule_matches(rules, texts)
    k = 0
    for ex in lab.exercises:
        if ex.lint and why is not None:
            found.setdefault(ex.name, []).append(RULES_NOT_SEARCHED.format(why=why))
        for rule in ex.lint:
            for name, number, groups in matches[k] if why is None else ():
                message = render(rule.message, groups)
                found.setdefault(ex.name, []).append(f"{name}:{number}: {message}")
            k += 1
        for name, line, message in leaks(reading, ex.launchers) if lab.bound else ():
            found.setdefault(ex.name, []).append(f"{name}:{line}: {message}")
        for name, line, message in rounded_grids(reading, ex.launchers) if lab.bound else ():
            found.setdefault(ex.name, []).append(f"{name}:{line}: {message}")
        names = [ex.kernel] if ex.kernel is not None else reached.get(ex.name, [])
        for name, kernels in bodies.items():
            for kernel in (k for k in names if k in kernels):
                if (name, kernel) not in barriers:  # read once, whatever the exercises
                    scopes = _thread_scopes(kernels[kernel][1], macros)
                    tiles = _tile_loops(kernels[kernel][1])
                    barriers[name, kernel] = (
                        _early_returns_in(*kernels[kernel], scopes),
                        _divergent_barriers_in(*kernels[kernel], scopes),
                        _reused_tiles_in(*kernels[kernel], tiles),
                        _unsynced_tiles_in(*kernels[kernel], tiles),
                    )
                early, divergent, reused, unsynced = barriers[name, kernel]
                for ret, bar, cond, kind in early:
                    message = _early_return_message(bar, cond, kind, kernel)
                    found.setdefault(ex.name, []).append(f"{name}:{ret}: {message}")
                for bar, line, cond in divergent:
                    message = DIVERGENT_BARRIER.format(bar=bar, line=line, cond=cond, kernel=kernel)
                    found.setdefault(ex.name, []).append(f"{name}:{bar}: {message}")
                for loop, store, bar, read, arrays in reused:
                    message = REUSED_TILE.format(
                        loop=loop, kernel=kernel, names=arrays, store=store, first=bar, last=read
                    )
                    found.setdefault(ex.name, []).append(f"{name}:{read}: {message}")
                for loop, store, read, array in unsynced:
                    message = UNSYNCED_TILE.format(
                        loop=loop, kernel=kernel, name=array, store=store, read=read
                    )
                    found.setdefault(ex.name, []).append(f"{name}:{read}: {message}")
    return found
