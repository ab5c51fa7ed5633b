/* Optional compiled fast path of `Redactor.feed` (redactor.py's usual-piece branch of `feed`, with
`OpenTracker.open_from`, `Starters.bounds` and the no-findings branch of `Redactor._release`: the pure-Python path
is the reference and the oracle).

Why: on a 4-character piece the Redactor asks the `regex` engine about twice, and the Python around those calls
(appending, the starters table, ordering the tracker's bounds, releasing settled text) cost more than the calls.

The boundary (fastpath.py is the one place that chooses the path and builds the objects below):
- `Feed(**objects)`: one per Redactor, handed explicitly everything it needs that does not move (the tracker's
  per-detector callables and reaches, the starters' dicts, masks and the methods that fill them, the C tables,
  `max_hold`; the field list is at `typedef ... Feed`). It owns the candidate list.
- `Feed.quick(redactor, piece) -> Step | int | None`: a Step (fully handled: the released text, or EMPTY_STEP),
  an int (the settlement point: the caller settles and releases it), or None (not handled, nothing changed:
  take the Python path).
- The moving state it reads and writes by name is listed in `STATE` (module attribute, built from the KEY table
  at the end): the Redactor's `_raw _view _positions _next_check _base` (and `FeedMethod`'s four) and the OpenTracker's
  `_origin _lb _seen _unsure`. tests/redact/test_native_boundary.py checks that list against the classes and
  against this file's KEY table, so a rename on the Python side fails a test instead of silently taking the
  slow path (or, for a field written here, leaving state the Python path never reads).
- `FeedMethod(feed, rest, release)`: `Redactor.feed` as a compiled method (fastpath.install_feed puts it on the
  class): `Feed.quick` and what the Python method does with its answer, without a Python frame; anything else
  is the Python method (see the type below). It reads the Redactor's `_quick_native _stopped _done _ahead`.
- With `fixed` (the default; `compiled_feed(..., fixed_off=True)`: without), the tracker's `_lb` of one
  `open_from` is a C array (`LbMirror`) written back to the dict once at its end, and kept for the next feed while
  `_seen` is the int this file wrote (only the tracker's Python methods change `_lb`, and they write `_seen`).
- `configure(...)`: the module constants it mirrors; `new_tables()`: the C mirror of one Starters' tables.
Anything uncommon (a cache miss in the starters table, the compiled prefilter, a long new text, findings to
settle) is handed to the Python methods, never re-implemented here. tests/redact/test_native*.py, test_oracle.py
and test_invariance.py run the same tests with and without it.
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The state fields this file reads and writes by name (exported as STATE, checked against the classes by
   tests/redact/test_native_boundary.py), and the public names it uses (regex's Match, prefilter.MIN_RANGE). */
static PyObject *k_raw, *k_view, *k_positions, *k_next_check, *k_base, *k_origin, *k_lb, *k_seen, *k_unsure;
static PyObject *k_quick_native, *k_is_stopped, *k_done, *k_ahead; /* what the compiled `feed` method reads */
static PyObject *k_dunder_name = NULL, *k_dunder_qualname = NULL;   /* the Python functions' names */
static PyObject *k_partial, *k_start, *k_end, *k_min_range;
static PyObject *pf_module = NULL; /* sluicegate.redaction.prefilter, for MIN_RANGE (tests change it) */
static PyObject *special = NULL;   /* normalize._SPECIAL.search: a non-ASCII piece that needs no view map */
static PyObject *step_type = NULL, *empty_step = NULL; /* stream.Step and stream.EMPTY_STEP */
static PyObject *k_text, *k_stopped, *k_events, *k_lookahead, *empty_text;
static Py_ssize_t LOOKBEHIND = 32, EAGER = 256, PER_CHAR = 64, PAIRS_MAX = 1 << 17;
static int configured = 0;

#define MAXDET 64
#define LONG_NEW 8192 /* new text longer than this goes to the Python path */

/* Candidate starts, kept by this file only (in the `Feed`): every position of the new text
   where some trusted detector may start after the character before it (the pair table), with those detectors'
   bits, for the text [from, to). A detector whose bound is in that range is searched from its next candidate,
   or not at all if it has none before the current answer: on prose a word's detectors are asked where the
   next word starts, not from the last one. `to` is the tracker's `_seen` after this file last ran: if the
   Python path ran since, the list is dropped and starts again at the new text. */
#define CANDS_MAX 8192 /* past this many the list covers only what comes after (a held block of candidates) */
typedef struct {
    Py_ssize_t from, to;
    Py_ssize_t count, size;
    Py_ssize_t *pos;
    unsigned long long *mask;
    /* `label_near` at each candidate once known (-1: not yet): it reads only the `near_window` characters before
       the candidate, which stay in the view (the released context is at least that long) and never change. */
    signed char *near;
    /* A block detector (`Detector.steady`) found open at `steady_at[i]` by a match when the view ended at
       `steady_to[i]` (-1: not known), its block kind in `steady_kind[i]`, and where its
       opener ended (`steady_open[i]`). */
    Py_ssize_t steady_at[MAXDET], steady_to[MAXDET], steady_open[MAXDET], steady_k[MAXDET];
    Py_ssize_t steady_kind[MAXDET]; /* which entry of the detector's `_steady` tuple */
    int steady_phase[MAXDET];       /* 1: the match there was partial; 2: complete, and the block still open */
    /* A detector with an open tail (opentail.py) found complete at `tail_at[i]` by a match ending at the end of
       the view, when that ended at `tail_to[i]` (-1: not known): open there, and still so over appended text of
       its tail's characters while the match is shorter than its `tail_most` (`open_tail` below). */
    Py_ssize_t tail_at[MAXDET], tail_to[MAXDET];
} Cands;


static void cands_reset(Cands *cs, Py_ssize_t from) {
    cs->count = 0;
    cs->from = from;
    for (int i = 0; i < MAXDET; i++) cs->steady_to[i] = cs->tail_to[i] = -1;
}

/* Append a candidate; 0, or -1 with MemoryError set. */
static int cands_add(Cands *cs, Py_ssize_t pos, unsigned long long mask) {
    if (cs->count == cs->size) {
        if (cs->size >= CANDS_MAX) { /* the list covers only what comes after this position */
            cs->count = 0;
            cs->from = pos + 1;
            return 0;
        }
        Py_ssize_t size = cs->size * 2;
        Py_ssize_t *p = (Py_ssize_t *)PyMem_Realloc(cs->pos, (size_t)size * sizeof(Py_ssize_t));
        if (p == NULL) { PyErr_NoMemory(); return -1; }
        cs->pos = p;
        unsigned long long *m = (unsigned long long *)PyMem_Realloc(cs->mask, (size_t)size * sizeof(unsigned long long));
        if (m == NULL) { PyErr_NoMemory(); return -1; }
        cs->mask = m;
        signed char *nr = (signed char *)PyMem_Realloc(cs->near, (size_t)size);
        if (nr == NULL) { PyErr_NoMemory(); return -1; }
        cs->near = nr;
        cs->size = size;
    }
    cs->pos[cs->count] = pos;
    cs->mask[cs->count] = mask;
    cs->near[cs->count] = -1;
    cs->count++;
    return 0;
}

/* A borrowed item of an instance dict, or NULL (no exception) if absent. */
static PyObject *item(PyObject *dict, PyObject *key) { return PyDict_GetItemWithError(dict, key); }

static int get_ssize(PyObject *dict, PyObject *key, Py_ssize_t *out) {
    PyObject *v = item(dict, key);
    if (v == NULL || !PyLong_CheckExact(v)) return -1;
    *out = PyLong_AsSsize_t(v);
    if (*out == -1 && PyErr_Occurred()) { PyErr_Clear(); return -1; }
    return 0;
}

static int set_ssize(PyObject *dict, PyObject *key, Py_ssize_t value) {
    PyObject *v = PyLong_FromSsize_t(value);
    if (v == NULL) return -1;
    int r = PyDict_SetItem(dict, key, v);
    Py_DECREF(v);
    return r;
}

static PyObject *instance_dict(PyObject *obj) {
    PyObject **ptr = _PyObject_GetDictPtr(obj);
    if (ptr == NULL || *ptr == NULL || !PyDict_CheckExact(*ptr)) return NULL;
    return *ptr; /* borrowed */
}

/* A mask from the starters caches as an unsigned 64-bit value; -1 if it does not fit (or is not an int). */
static int mask_of(PyObject *v, unsigned long long *out) {
    if (!PyLong_CheckExact(v)) return -1;
    unsigned long long m = PyLong_AsUnsignedLongLong(v);
    if (m == (unsigned long long)-1 && PyErr_Occurred()) { PyErr_Clear(); return -1; }
    *out = m;
    return 0;
}

/* The starters tables as C arrays (one per `Starters`, in its dict as a capsule, filled from the Python
   tables as characters are met): a character of the BMP and a pair of ASCII characters cost an array read
   instead of a string object and a dict lookup. The values are the Python methods' answers. Pages of 256
   characters (and rows of ASCII pairs) are allocated when first used, so a selection that meets only ASCII
   text costs a few KiB, not the whole BMP. */
typedef struct {
    unsigned long long mask[256];
    unsigned char known[256];
} Page;

/* A direct-mapped cache of `Starters.quad` answers for keys of four ASCII characters (a collision overwrites). */
#define QUADS_BITS 13
#define QUADS (1 << QUADS_BITS)
typedef struct {
    unsigned int key, valid;
    unsigned long long mask;
} Quad;

typedef struct {
    Page *page[256];  /* the BMP, by high byte */
    Page *pair[128];  /* ASCII pairs, by the previous character (only the first 128 entries are used) */
    Quad *quads;      /* QUADS slots, allocated when first used */
} Tables;

static void tables_free(PyObject *capsule) {
    Tables *t = (Tables *)PyCapsule_GetPointer(capsule, "sluicegate.tables");
    if (t == NULL) return;
    for (int i = 0; i < 256; i++) PyMem_Free(t->page[i]);
    for (int i = 0; i < 128; i++) PyMem_Free(t->pair[i]);
    PyMem_Free(t->quads);
    PyMem_Free(t);
}

static PyObject *new_tables(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(args)) {
    Tables *t = (Tables *)PyMem_Calloc(1, sizeof(Tables));
    if (t == NULL) return PyErr_NoMemory();
    PyObject *capsule = PyCapsule_New(t, "sluicegate.tables", tables_free);
    if (capsule == NULL) PyMem_Free(t);
    return capsule;
}

/* A `Feed`: what the compiled feed of one Redactor needs besides the state fields, handed over explicitly once
   (fastpath.py builds it; every argument is required, so a name changed on the Python side fails there, loudly):
     tracker     the OpenTracker (its state fields, STATE["OpenTracker"], are read and written by name)
     open_from   tracker.open_from, the Python path of the open point
     search, full, match, reach, steady   the tracker's per-detector tuples (probe search, pattern search,
                 anchored pattern match, reach or None, steady kinds or None)
     prefilter   whether the tracker has the compiled prefilter (then long new text goes to Python)
     cache, pairs, quads   the Starters' dicts (char -> mask, pair -> mask, quad -> mask)
     compute, pair, quad   the Starters' methods that fill them
     always, context       the Starters' masks of untrusted and of context detectors
     tables      new_tables(): the C mirror of the starters tables (shared by the streams of one Starters)
     max_hold    the Redactor's max_hold
     near        per detector: None, or (characters, k) from `Detector.near` and `near_k`, or that and
                 (characters, k, new_shape(...) of the rest[, the rest's compiled match or None]) from
                 `Detector.near_rest` (`rest_rules_out` below)
     near_bits, near_window   labels.near_tables() and LOOKBEHIND: `label_near` below
     near_tails  the ASCII tails those bits were set from (labels.tails()): a bit's hit is checked against them
     near_forms, near_gap   None, or per near_tail the label words' forms that end in it (labels.forms()), and
                 the label detectors' larger `wholedb.label_gap` (-1: none): a tail counts only as a word
                 ending within the gap (`label_near` below)
     near_caches per detector: None (a dict of this Feed's own) or the dict its near answers are remembered in
     shape       per detector: None, or new_shape(...) of its `shape.shape` (checked at a candidate start)
     tail        per detector: None, or OpenTail.packed() of its `opentail.open_tail` (`open_tail` below)
     lean        see the field below (False: the feed as before this stop's per-feed changes)
     fixed       see the field below (False: the common feed's fixed costs as before stop 34)
   The Redactor's state (STATE["Redactor"]) is read and written on the redactor passed to `quick`. */
typedef struct Shape Shape;
/* With `fixed`, the tracker's `_lb` (detector index -> absolute bound) of one `open_from`: read once into `at`
   (`was`: the detectors in it then, at `orig`), changed here (`present`; `dirty`: the detectors whose bound was
   set or dropped), and written back to the dict once, at its end (`lb_flush`): a detector added for the new text
   and dropped again when none of its candidates survives costs no dict write, and a bound set to its old value
   none. `active` while the dict is behind the mirror; `fresh` once this feed's mirror is the dict (the release
   then reads the mirror, `no_complete_fixed`). */
typedef struct {
    Py_ssize_t at[MAXDET], orig[MAXDET];
    unsigned long long present, was, dirty;
    int active, fresh;
    PyObject *lb; /* borrowed while active: the tracker's dict */
    /* After a flush with no error, the mirror is the dict `kept_lb` (a reference held) as long as the tracker's
       `_seen` is still `kept_seen`, the int this file wrote there (a reference held, so the address is not
       reused): only the tracker's Python methods change `_lb`, and each that does writes `_seen` (test_feed_fixed
       checks the claim against tracker.py). Then the next feed does not read the dict again. */
    PyObject *kept_lb, *kept_seen;
} LbMirror;
typedef struct {
    PyObject_HEAD
    PyObject *tracker, *open_from, *search, *full, *match, *reach, *steady, *cache, *pairs, *quads, *compute,
        *pair, *quad, *tables_capsule, *near_bits_obj;
    Tables *tables;
    const unsigned char *near_bits;
    /* The ASCII tails (at most NEAR_TAILS_MAX, each at most NEAR_TAIL characters), lowercased: with `lean`, a
       gram whose bit is set counts only if it is one of them (the bits alone let digit grams through: `-12` has
       the bit of `ntno`, so most `:` of a log line's timestamp were asked). */
    unsigned char near_tail[128][4];
    int near_tail_len[128], near_tails;
    /* With `lean`, per tail: the tuple of the forms of label words that end in it (labels.forms(), lowercased
       ASCII str), or NULL (none given: a tail is taken as a word, as before); and `near_gap`, the most
       characters a label detector's match starts after its word's end (wholedb.label_gap, the larger of the
       two; -1: not known). A tail then counts only where one of its forms ends there, within the gap. */
    PyObject *near_forms;
    Py_ssize_t near_gap;
    Py_ssize_t near_window;
    Py_ssize_t near_k[MAXDET];              /* -1: no `near` claim */
    unsigned long long near_chars[MAXDET][2]; /* the ASCII characters of the claim, as a 128-bit set */
    /* view[v:n] -> open (True) or not (False), without a label near: a function of the pattern and that text
       alone, so (`near_caches`) one dict per pattern may be shared by every Feed of the process */
    PyObject *near_cache[MAXDET];
    PyObject *shape_obj[MAXDET];            /* per detector: its shape's capsule (new_shape), or NULL */
    Py_ssize_t rest_k[MAXDET];              /* -1: no `near_rest` claim */
    unsigned long long rest_chars[MAXDET][2];
    PyObject *rest_obj[MAXDET];             /* the capsule of the rest's shape */
    const Shape *rest_shape[MAXDET];
    PyObject *rest_match[MAXDET];           /* the rest alone, compiled (its `match`), or NULL: see `lean` */
    const Shape *shape[MAXDET];
    /* per detector: whether it has an open tail (opentail.py), its ASCII characters (a 128-bit set) and the
       least maximum of its final repeats (-1: unbounded); `tail` of the Feed's arguments */
    int tail_on[MAXDET];
    unsigned long long tail_chars[MAXDET][2];
    Py_ssize_t tail_most[MAXDET];
    int prefilter, ran, many;
    /* 1 (the default): the engine is asked with the GIL held (`concurrent=False`: the same answer, without the
       release and reacquire around each call, a third of a short call), and at a `near_rest` start with no label
       tail before it the rest alone is asked (the same answer, `lean_rest` below). 0: as before those changes
       (tests/benchmarks/redactor_lean_ab.py measures one against the other). */
    int lean;
    /* 1 (the default): the common feed's fixed costs of stop 34 (docs/performance.md, "the common feed's fixed
       costs"): `FeedMethod` hands `quick` the instance dict and `_raw` it looked up, a non-ASCII piece is checked
       for characters to normalize through a per-character memo of `special`'s answers (`plain_piece`), the
       prefilter's `MIN_RANGE` is read once a feed from the module's dict, and the starters' bounds are merged
       into `_lb` from one read of it into a C array that also orders the bounds (`add_bounds_fixed`). The same
       answers and state; 0: as before (tests/redact/test_feed_fixed.py compares them, and
       tests/benchmarks/redactor_fixed_ab.py measures one against the other). */
    int fixed;
    Py_ssize_t min_range; /* with `fixed`: MIN_RANGE as read in this feed, if `min_range_known` */
    int min_range_known;
    LbMirror lbm;         /* with `fixed`: the tracker's bounds during (and after) this feed's `open_from` */
    unsigned long long always, context;
    Py_ssize_t max_hold;
    Cands cs;
} Feed;

/* Remember `value` at `page[hi][lo]` (allocating the page); a failed allocation only means not remembering. */
static void remember(Page **pages, unsigned hi, unsigned lo, unsigned long long value) {
    if (pages[hi] == NULL) pages[hi] = (Page *)PyMem_Calloc(1, sizeof(Page));
    if (pages[hi] == NULL) return;
    pages[hi]->mask[lo] = value;
    pages[hi]->known[lo] = 1;
}

/* The one-character mask of `ch` (`Starters._cache`, or `_compute`). 0, or -1 with an exception set. */
static int char_mask(Feed *f, Py_UCS4 ch, unsigned long long *out) {
    Tables *t = f->tables;
    if (ch < 0x10000 && t->page[ch >> 8] != NULL && t->page[ch >> 8]->known[ch & 0xFF]) {
        *out = t->page[ch >> 8]->mask[ch & 0xFF];
        return 0;
    }
    PyObject *c = PyUnicode_FromOrdinal(ch);
    if (c == NULL) return -1;
    PyObject *got = PyDict_GetItemWithError(f->cache, c);
    int bad;
    if (got == NULL) {
        if (PyErr_Occurred()) { Py_DECREF(c); return -1; }
        got = PyObject_CallOneArg(f->compute, c);
        Py_DECREF(c);
        if (got == NULL) return -1;
        bad = mask_of(got, out);
        Py_DECREF(got);
    } else {
        bad = mask_of(got, out);
        Py_DECREF(c);
    }
    if (bad < 0) { PyErr_SetString(PyExc_OverflowError, "mask"); return -1; }
    if (ch < 0x10000) remember(t->page, ch >> 8, ch & 0xFF, *out);
    return 0;
}

/* `m` refined by the pair table (`Starters._pairs`, or `_pair` while it has room). 0, or -1 with an exception. */
static int pair_mask(Feed *f, Py_UCS4 prev, Py_UCS4 ch, unsigned long long *m) {
    Tables *t = f->tables;
    PyObject *pairs = f->pairs;
    int ascii = prev < 128 && ch < 128;
    if (ascii && t->pair[prev] != NULL && t->pair[prev]->known[ch]) {
        *m = t->pair[prev]->mask[ch];
        return 0;
    }
    Py_UCS4 two[2] = {prev, ch};
    PyObject *key = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, two, 2);
    if (key == NULL) return -1;
    PyObject *p = PyDict_GetItemWithError(pairs, key);
    Py_DECREF(key);
    int bad = 0, known = 0;
    if (p != NULL) {
        bad = mask_of(p, m);
        known = 1;
    } else if (PyErr_Occurred()) {
        return -1;
    } else if (PyDict_GET_SIZE(pairs) < PAIRS_MAX) {
        PyObject *pv = PyUnicode_FromOrdinal(prev), *cv = PyUnicode_FromOrdinal(ch);
        PyObject *mo = PyLong_FromUnsignedLongLong(*m);
        PyObject *r = (pv && cv && mo) ? PyObject_CallFunctionObjArgs(f->pair, pv, cv, mo, NULL) : NULL;
        Py_XDECREF(pv);
        Py_XDECREF(cv);
        Py_XDECREF(mo);
        if (r == NULL) return -1;
        bad = mask_of(r, m);
        Py_DECREF(r);
        known = 1;
    } /* else: the table is full, the one-character mask stands (and is not remembered) */
    if (bad < 0) { PyErr_SetString(PyExc_OverflowError, "mask"); return -1; }
    if (ascii && known) remember(t->pair, prev, ch, *m);
    return 0;
}

/* `Starters.quad(view[v-1 : v+3])` (its dict, or the method), through the C cache for an ASCII key. 0, or -1
   with an exception set. */
static int quad_mask(Feed *f, PyObject *view, Py_ssize_t v, unsigned long long *out) {
    Tables *t = f->tables;
    int kind = PyUnicode_KIND(view);
    const void *data = PyUnicode_DATA(view);
    unsigned int key = 0;
    int ascii = 1;
    for (int j = 0; j < 4; j++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, v - 1 + j);
        if (c >= 128) { ascii = 0; break; }
        key |= (unsigned int)c << (7 * j);
    }
    Quad *slot = NULL;
    if (ascii) {
        if (t->quads == NULL) t->quads = (Quad *)PyMem_Calloc(QUADS, sizeof(Quad));
        if (t->quads != NULL) {
            slot = &t->quads[(key * 2654435761u) >> (32 - QUADS_BITS)];
            if (slot->valid && slot->key == key) { *out = slot->mask; return 0; }
        }
    }
    PyObject *k = PyUnicode_Substring(view, v - 1, v + 3);
    if (k == NULL) return -1;
    PyObject *qm = PyDict_GetItemWithError(f->quads, k);
    int bad;
    if (qm == NULL) {
        if (PyErr_Occurred()) { Py_DECREF(k); return -1; }
        qm = PyObject_CallOneArg(f->quad, k);
        Py_DECREF(k);
        if (qm == NULL) return -1;
        bad = mask_of(qm, out);
        Py_DECREF(qm);
    } else {
        Py_DECREF(k);
        bad = mask_of(qm, out);
    }
    if (bad < 0) { PyErr_SetString(PyExc_OverflowError, "mask"); return -1; }
    if (slot != NULL) { slot->key = key; slot->valid = 1; slot->mask = *out; }
    return 0;
}

/* `Starters.bounds(view, seen, offset)` into `lb` (a dict, merged as `fresh.update(lb)` does: existing bounds
   win), recording the candidates of the new text in `cs`. Returns 0, or -1 with an exception set. */
static int add_bounds(Feed *f, PyObject *view, Py_ssize_t seen, Py_ssize_t n, Py_ssize_t offset, PyObject *lb) {
    Cands *cs = &f->cs;
    unsigned long long always = f->always, have;
    Py_ssize_t first[MAXDET];
    for (int i = 0; i < MAXDET; i++) first[i] = -1;
    for (int i = 0; i < MAXDET; i++)
        if (always >> i & 1) first[i] = seen + offset;
    have = always;
    int kind = PyUnicode_KIND(view);
    const void *data = PyUnicode_DATA(view);
    Py_UCS4 prev = 0;
    int has_prev = seen > 0;
    if (has_prev) prev = PyUnicode_READ(kind, data, seen - 1);
    for (Py_ssize_t j = seen; j < n; j++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, j);
        unsigned long long m;
        if (char_mask(f, ch, &m) < 0) return -1;
        /* Refined whenever it is not empty (the Python path refines only when it may add a bound: the same
           bounds, since refining only removes bits), so that the candidate list has the pair's mask. */
        if (m & ~always) {
            if (has_prev && pair_mask(f, prev, ch, &m) < 0) return -1;
            if ((m & ~always) && cands_add(cs, j + offset, m & ~always) < 0) return -1;
        }
        if (m & ~have) {
            unsigned long long fresh_bits = m & ~have;
            for (int i = 0; i < MAXDET; i++)
                if (fresh_bits >> i & 1) first[i] = j + offset;
            have |= fresh_bits;
        }
        prev = ch;
        has_prev = 1;
    }
    /* `fresh.update(lb)` in Python: a detector with a bound keeps it, one without gets its first position.
       Added to `lb` in place (the order of a dict of bounds is never read). */
    for (int i = 0; i < MAXDET; i++) {
        if (first[i] < 0) continue;
        PyObject *ki = PyLong_FromLong(i);
        if (ki == NULL) return -1;
        int has = PyDict_Contains(lb, ki);
        if (has == 0) {
            PyObject *vi = PyLong_FromSsize_t(first[i]);
            if (vi == NULL || PyDict_SetItem(lb, ki, vi) < 0) { Py_XDECREF(vi); Py_DECREF(ki); return -1; }
            Py_DECREF(vi);
        }
        Py_DECREF(ki);
        if (has < 0) return -1;
    }
    return 0;
}

typedef struct { Py_ssize_t at; long i; } Bound;

/* With `fixed`: `lb` (a dict of bounds, detector index -> absolute position) into `cur` (-1: none) and the bits of the
   detectors in it into `present`. 0, or -1 with an exception set (a key that is not a detector's index). */
static int read_bounds(PyObject *lb, Py_ssize_t *cur, unsigned long long *present) {
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    unsigned long long have = 0;
    while (PyDict_Next(lb, &pos, &key, &value)) {
        long i = PyLong_CheckExact(key) ? PyLong_AsLong(key) : -1;
        if (i < 0 || i >= MAXDET) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "tracker state: a bound of no detector");
            return -1;
        }
        Py_ssize_t at = PyLong_AsSsize_t(value);
        if (at == -1 && PyErr_Occurred()) return -1;
        cur[i] = at;
        have |= 1ULL << i;
    }
    *present = have;
    return 0;
}

/* `add_bounds` with `fixed`: the same bounds and candidates, over `lb` already read into `cur`/`present`
   (`read_bounds`): a detector's first position is kept only for detectors without a bound (no look-up of the
   others), the bits walked one set bit at a time, and the new bounds written to `lb` and `cur`. */
static int add_bounds_fixed(Feed *f, PyObject *view, Py_ssize_t seen, Py_ssize_t n, Py_ssize_t offset, PyObject *lb,
                            Py_ssize_t *cur, unsigned long long *present) {
    Cands *cs = &f->cs;
    unsigned long long always = f->always, have = always | *present;
    Py_ssize_t first[MAXDET];
    for (unsigned long long b = always & ~*present; b; b &= b - 1) first[__builtin_ctzll(b)] = seen + offset;
    int kind = PyUnicode_KIND(view);
    const void *data = PyUnicode_DATA(view);
    Py_UCS4 prev = 0;
    int has_prev = seen > 0;
    if (has_prev) prev = PyUnicode_READ(kind, data, seen - 1);
    for (Py_ssize_t j = seen; j < n; j++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, j);
        unsigned long long m;
        if (char_mask(f, ch, &m) < 0) return -1;
        if (m & ~always) { /* as in add_bounds */
            if (has_prev && pair_mask(f, prev, ch, &m) < 0) return -1;
            if ((m & ~always) && cands_add(cs, j + offset, m & ~always) < 0) return -1;
        }
        for (unsigned long long b = m & ~have; b; b &= b - 1) first[__builtin_ctzll(b)] = j + offset;
        have |= m;
        prev = ch;
        has_prev = 1;
    }
    for (unsigned long long b = have & ~*present; b; b &= b - 1) cur[__builtin_ctzll(b)] = first[__builtin_ctzll(b)];
    f->lbm.dirty |= have & ~*present; /* (written to `lb` by lb_flush) */
    *present = have;
    return 0;
}

/* Set detector i's bound to `v` (`lb[i] = v`), in the mirror while it is active. 0, or -1 with an exception. */
static int lb_set(Feed *f, PyObject *lb, long i, Py_ssize_t v) {
    if (f->lbm.active) {
        f->lbm.at[i] = v;
        f->lbm.present |= 1ULL << i;
        f->lbm.dirty |= 1ULL << i;
        return 0;
    }
    PyObject *ki = PyLong_FromLong(i);
    int r = ki == NULL ? -1 : set_ssize(lb, ki, v);
    Py_XDECREF(ki);
    return r;
}

/* Drop detector i's bound (`del lb[i]`), in the mirror while it is active. 0, or -1 with an exception. */
static int lb_del(Feed *f, PyObject *lb, long i) {
    if (f->lbm.active) {
        f->lbm.present &= ~(1ULL << i);
        f->lbm.dirty |= 1ULL << i;
        return 0;
    }
    PyObject *ki = PyLong_FromLong(i);
    int r = ki == NULL ? -1 : PyDict_DelItem(lb, ki);
    Py_XDECREF(ki);
    return r;
}

/* Write the active mirror's changes to the dict (ascending detector index) and end it. 0, or -1 with an
   exception set; with one pending on entry, it is kept (and the writes still made). */
static int lb_flush(Feed *f) {
    LbMirror *m = &f->lbm;
    if (!m->active) return 0;
    m->active = 0;
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    int bad = 0;
    for (unsigned long long b = m->dirty; b && !bad; b &= b - 1) {
        int i = __builtin_ctzll(b);
        unsigned long long bit = 1ULL << i;
        if ((m->present & bit) && (m->was & bit) && m->orig[i] == m->at[i]) continue;
        if (!(m->present & bit) && !(m->was & bit)) continue;
        PyObject *ki = PyLong_FromLong(i);
        if (ki == NULL) { bad = 1; break; }
        bad = (m->present & bit) ? set_ssize(m->lb, ki, m->at[i]) < 0 : PyDict_DelItem(m->lb, ki) < 0;
        Py_DECREF(ki);
    }
    m->dirty = 0;
    Py_CLEAR(m->kept_lb);
    if (et != NULL) {
        if (bad) PyErr_Clear();
        PyErr_Restore(et, ev, tb);
        return -1;
    }
    if (bad) return -1;
    m->fresh = 1;
    m->kept_lb = Py_NewRef(m->lb); /* the mirror is the dict again */
    return 0;
}

/* Insert (at, i) into `order[0:*k]`, kept sorted as sorted() orders the (at, i) tuples. */
static void order_add(Bound *order, Py_ssize_t *k, Py_ssize_t at, long i) {
    Py_ssize_t m = (*k)++;
    while (m > 0 && (order[m - 1].at > at || (order[m - 1].at == at && order[m - 1].i > i))) {
        order[m] = order[m - 1];
        m--;
    }
    order[m].at = at;
    order[m].i = i;
}

/* `prefilter.MIN_RANGE` (tests change it): with `fixed`, once a feed and from the module's dict. 0, or -1 with an
   exception set. */
static int min_range_of(Feed *f, Py_ssize_t *out) {
    if (f->fixed && f->min_range_known) {
        *out = f->min_range;
        return 0;
    }
    PyObject *mr = NULL;
    if (f->fixed && PyModule_CheckExact(pf_module)) {
        mr = PyDict_GetItemWithError(PyModule_GetDict(pf_module), k_min_range);
        if (mr == NULL && PyErr_Occurred()) return -1;
        Py_XINCREF(mr);
    }
    if (mr == NULL) mr = PyObject_GetAttr(pf_module, k_min_range); /* (the attribute's error, if it has none) */
    if (mr == NULL) return -1;
    Py_ssize_t v = PyLong_AsSsize_t(mr);
    Py_DECREF(mr);
    if (v == -1 && PyErr_Occurred()) return -1;
    *out = v;
    if (f->fixed) {
        f->min_range = v;
        f->min_range_known = 1;
    }
    return 0;
}

/* After a match at view position `v` (absolute `cp`) found detector i open (phase 1: a partial match; phase 2:
   a complete one with the block still open), remember it if a steady kind's opener is whole there (a kind
   without phase-2 triggers is not remembered in phase 2). 0, or -1 with an exception set. */
static int record_steady(Cands *cs, long i, PyObject *steady_t, PyObject *view, PyObject *sv, Py_ssize_t cp,
                         Py_ssize_t end, Py_ssize_t o, int phase) {
    cs->steady_to[i] = -1;
    for (Py_ssize_t t2 = 0; steady_t != Py_None && t2 < PyTuple_GET_SIZE(steady_t); t2++) {
        PyObject *kind = PyTuple_GET_ITEM(steady_t, t2); /* (opener match, triggers, k, complete triggers) */
        if (phase == 2 && PyTuple_GET_ITEM(kind, 3) == Py_None) continue;
        PyObject *args[2] = {view, sv};
        PyObject *om = PyObject_Vectorcall(PyTuple_GET_ITEM(kind, 0), args, 2, NULL);
        if (om == NULL) return -1;
        if (om == Py_None) { Py_DECREF(om); continue; }
        PyObject *oe = PyObject_CallMethodNoArgs(om, k_end);
        Py_DECREF(om);
        if (oe == NULL) return -1;
        Py_ssize_t open_end = PyLong_AsSsize_t(oe);
        Py_DECREF(oe);
        Py_ssize_t k2 = PyLong_AsSsize_t(PyTuple_GET_ITEM(kind, 2));
        if (PyErr_Occurred()) return -1;
        cs->steady_at[i] = cp;
        cs->steady_to[i] = end;
        cs->steady_open[i] = open_end + o;
        cs->steady_k[i] = k2;
        cs->steady_kind[i] = t2;
        cs->steady_phase[i] = phase;
        return 0;
    }
    return 0;
}

/* The probe's answer, `search(view, s, None, None, True)` (args): its start plus `o`, or `end` if nothing of
   the detector is open after `s`. -2 with an exception set on error. */
static Py_ssize_t probe_start(PyObject *search_fn, PyObject *const *args, Py_ssize_t o, Py_ssize_t end) {
    PyObject *pm = PyObject_Vectorcall(search_fn, args, 5, NULL);
    if (pm == NULL) return -2;
    if (pm == Py_None) {
        Py_DECREF(pm);
        return end;
    }
    PyObject *ps = PyObject_CallMethodNoArgs(pm, k_start);
    Py_DECREF(pm);
    if (ps == NULL) return -2;
    Py_ssize_t q = PyLong_AsSsize_t(ps);
    Py_DECREF(ps);
    if (q == -1 && PyErr_Occurred()) return -2;
    return q + o;
}

/* A detector's shape (shape.py): a small automaton over character classes, checked at a candidate start before
   the engine is asked (no path of the pattern reads what the text has there: no match). Built once per pattern
   from `Shape.packed()` by `new_shape` and shared by the Feeds of every Redactor (a capsule). */
#define SHAPE_WORDS 8 /* shape.STATES / 64 */
typedef struct {
    uint64_t lo, hi;              /* the ASCII characters this state may read */
    int wide;                     /* whether it may read a non-ASCII one */
    uint64_t follow[SHAPE_WORDS]; /* the states that may read the next character */
} ShapeState;
struct Shape {
    Py_ssize_t count, words, places;
    uint64_t first[SHAPE_WORDS], stop[SHAPE_WORDS]; /* stop: the accepting states and state 0 (anything) */
    ShapeState st[];
};

static uint64_t read_u64(const unsigned char *p) {
    uint64_t v = 0;
    for (int b = 7; b >= 0; b--) v = v << 8 | p[b];
    return v;
}

static void shape_free(PyObject *capsule) { PyMem_Free(PyCapsule_GetPointer(capsule, "sluicegate.shape")); }

/* new_shape(states, packed, places) -> a capsule (the layout is `Shape.packed()`'s). */
static PyObject *new_shape(PyObject *Py_UNUSED(module), PyObject *args) {
    Py_ssize_t count, places;
    PyObject *data;
    if (!PyArg_ParseTuple(args, "nO!n", &count, &PyBytes_Type, &data, &places)) return NULL;
    const Py_ssize_t B = SHAPE_WORDS * 8, per = 17 + B;
    if (count < 1 || count > SHAPE_WORDS * 64 || places < 0 || PyBytes_GET_SIZE(data) != count * per + 2 * B) {
        PyErr_SetString(PyExc_ValueError, "new_shape: not Shape.packed() of shape.STATES states");
        return NULL;
    }
    Shape *sh = (Shape *)PyMem_Calloc(1, sizeof(Shape) + (size_t)count * sizeof(ShapeState));
    if (sh == NULL) return PyErr_NoMemory();
    const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(data);
    sh->count = count;
    sh->words = (count + 63) / 64;
    sh->places = places;
    for (Py_ssize_t s = 0; s < count; s++, p += per) {
        sh->st[s].lo = read_u64(p);
        sh->st[s].hi = read_u64(p + 8);
        sh->st[s].wide = p[16] != 0;
        for (int w = 0; w < SHAPE_WORDS; w++) sh->st[s].follow[w] = read_u64(p + 17 + 8 * w);
    }
    for (int w = 0; w < SHAPE_WORDS; w++) {
        sh->first[w] = read_u64(p + 8 * w);
        sh->stop[w] = read_u64(p + B + 8 * w);
    }
    sh->stop[0] |= 1; /* state 0: anything from here */
    PyObject *capsule = PyCapsule_New(sh, "sluicegate.shape", shape_free);
    if (capsule == NULL) PyMem_Free(sh);
    return capsule;
}

/* want = the states that may follow any state of got (the shape's one step after a character is read). */
static inline void shape_follow(const Shape *sh, const uint64_t *got, uint64_t *want) {
    Py_ssize_t words = sh->words;
    memset(want, 0, SHAPE_WORDS * sizeof(uint64_t));
    for (Py_ssize_t w = 0; w < words; w++) {
        uint64_t bits = got[w];
        while (bits) {
            int b = __builtin_ctzll(bits);
            bits &= bits - 1;
            const uint64_t *fw = sh->st[w * 64 + b].follow;
            for (Py_ssize_t x = 0; x < words; x++) want[x] |= fw[x];
        }
    }
}

/* `Shape.rules_out(view, v)`: 1 if no path of the pattern can match at v (complete, or open at the end n). */
static int shape_rules_out(const Shape *sh, int kind, const void *data, Py_ssize_t v, Py_ssize_t n) {
    uint64_t want[SHAPE_WORDS], got[SHAPE_WORDS];
    Py_ssize_t words = sh->words, lim = n - v < sh->places ? n - v : sh->places;
    memcpy(want, sh->first, sizeof want);
    for (Py_ssize_t j = 0; j < lim; j++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, v + j);
        uint64_t any = 0, stop = 0;
        for (Py_ssize_t w = 0; w < words; w++) {
            uint64_t bits = want[w], g = 0;
            while (bits) {
                int b = __builtin_ctzll(bits);
                bits &= bits - 1;
                const ShapeState *st = &sh->st[w * 64 + b];
                if (c < 64 ? (st->lo >> c & 1) != 0 : c < 128 ? (st->hi >> (c - 64) & 1) != 0 : st->wide != 0) g |= 1ULL << b;
            }
            got[w] = g;
            any |= g;
            stop |= g & sh->stop[w];
        }
        if (!any) return 1;
        if (stop) return 0;
        shape_follow(sh, got, want);
    }
    return 0;
}


#define NEAR_CACHE_MAX 4096
/* 1 (off: `set_near_prefixes(False)`): `near_prefix_none` is asked where the near answer of view[v:n] is not known. */
static int near_prefixes = 1;
static int near_prefix_none(PyObject *cache, PyObject *view, Py_ssize_t v, Py_ssize_t n);

/* Remember the engine's answer at a label start with no label tail before it, by the text from there. */
static int near_remember(Feed *f, long i, PyObject *key, PyObject *value) {
    if (PyDict_GET_SIZE(f->near_cache[i]) >= NEAR_CACHE_MAX) return 0;
    return PyDict_SetItem(f->near_cache[i], key, value);
}

/* `labels.label_near(view, v, window)`, with a collision of `labels.gram_hash` taken as a tail: 1 if some label
   word's tail (a lowercased ASCII gram of up to NEAR_TAIL characters) may occur in view[v - window : v] or a
   character there is not ASCII, else 0. */
#define NEAR_TAIL 4
#define NEAR_BITS (1 << 20)
static int label_near(Feed *f, PyObject *view, Py_ssize_t v) {
    Py_ssize_t lo = v - f->near_window;
    PyObject *forms = f->lean ? f->near_forms : NULL;
    if (lo < 0) lo = 0;
    int kind = PyUnicode_KIND(view);
    const void *data = PyUnicode_DATA(view);
    const unsigned char *bits = f->near_bits;
    unsigned last[NEAR_TAIL] = {0}; /* last[0]: the character at j, last[1] the one before, ... */
    for (Py_ssize_t j = lo; j < v; j++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, j);
        if (c >= 128) return 1;
        if (c >= 'A' && c <= 'Z') c += 32;
        for (int t = NEAR_TAIL - 1; t > 0; t--) last[t] = last[t - 1];
        last[0] = c;
        for (int len = 1; len <= NEAR_TAIL && len <= j - lo + 1; len++) {
            uint32_t h = (uint32_t)len;
            for (int t = len - 1; t >= 0; t--) h = h * 131u + last[t];
            h &= NEAR_BITS - 1;
            if (!(bits[h >> 3] >> (h & 7) & 1)) continue;
            if (!f->lean) return 1;
            for (int k = 0; k < f->near_tails; k++) {
                if (f->near_tail_len[k] != len) continue;
                int same = 1;
                for (int t = 0; t < len && same; t++) same = f->near_tail[k][t] == last[len - 1 - t];
                if (!same) continue;
                if (forms == NULL) return 1;
                /* the word would end at j + 1: too far before v for any label detector's match at v? */
                if (f->near_gap >= 0 && j + 1 < v - f->near_gap) continue;
                PyObject *fs = PyTuple_GET_ITEM(forms, k);
                for (Py_ssize_t x = 0; x < PyTuple_GET_SIZE(fs); x++) {
                    PyObject *word = PyTuple_GET_ITEM(fs, x);
                    Py_ssize_t wl = PyUnicode_GET_LENGTH(word), from = j + 1 - wl;
                    if (from < lo) return 1; /* it would begin before the window: not read, so taken */
                    const Py_UCS1 *w = PyUnicode_1BYTE_DATA(word);
                    int eq = 1;
                    for (Py_ssize_t y = 0; y < wl && eq; y++) {
                        Py_UCS4 c = PyUnicode_READ(kind, data, from + y); /* ASCII: read above */
                        if (c >= 'A' && c <= 'Z') c += 32;
                        eq = c == w[y];
                    }
                    if (eq) return 1;
                }
            }
        }
    }
    return 0;
}

static Py_ssize_t open_from_core(Feed *f, PyObject *tdict, PyObject *view, Py_ssize_t base);

/* `OpenTracker.open_from(view, base)`; -2 with an exception set on error. With `fixed`, the bounds are the
   mirror's while it runs, and the dict's again when it returns (also on an error). */
static Py_ssize_t open_from(Feed *f, PyObject *tdict, PyObject *view, Py_ssize_t base) {
    Py_ssize_t got = open_from_core(f, tdict, view, base);
    if (f->lbm.active && lb_flush(f) < 0) return -2;
    return got;
}

static Py_ssize_t open_from_core(Feed *f, PyObject *tdict, PyObject *view, Py_ssize_t base) {
    Py_ssize_t o, seen_abs, n = PyUnicode_GET_LENGTH(view);
    if (get_ssize(tdict, k_origin, &o) < 0 || get_ssize(tdict, k_seen, &seen_abs) < 0) goto python;
    Py_ssize_t seen = seen_abs - o;
    if (seen < base) seen = base;
    if (f->prefilter) {
        Py_ssize_t min_range;
        if (min_range_of(f, &min_range) < 0) return -2;
        if (n - seen >= min_range) goto python;
    }
    /* Long new text (a check after a held block grew by a quarter) is still read per character here: cheap in
       C, and the per-position bounds and candidates are what keep the next checks cheap. The Python path gives
       such text one bound for all its starters; both are lower bounds, so the answers are the same. */
    if (n - seen > LONG_NEW) goto python;
    PyObject *lb = item(tdict, k_lb);
    PyObject *reach = f->reach, *full = f->full, *search = f->search, *match = f->match, *steady = f->steady;
    if (f->many || lb == NULL || !PyDict_CheckExact(lb)) goto python;
    unsigned long long always = f->always, context = f->context;
    Cands *cs = &f->cs;
    f->ran = 1;
    if (cs->to != seen + o) { /* the Python path ran since (or this is the first call): start again here */
        cands_reset(cs, seen + o);
    } else { /* drop what was released */
        int drop = 0;
        while (drop < cs->count && cs->pos[drop] < base + o) drop++;
        if (drop) {
            memmove(cs->pos, cs->pos + drop, (size_t)(cs->count - drop) * sizeof(Py_ssize_t));
            memmove(cs->mask, cs->mask + drop, (size_t)(cs->count - drop) * sizeof(unsigned long long));
            memmove(cs->near, cs->near + drop, (size_t)(cs->count - drop));
            cs->count -= drop;
        }
    }
    cs->to = -1; /* not valid until this call has recorded the new text */
    LbMirror *lbm = &f->lbm;
    Py_ssize_t *cur = lbm->at; /* with `fixed`: the bounds, read once (read_bounds) */
    if (f->fixed) {
        PyObject *seen_now = item(tdict, k_seen);
        if (lbm->kept_lb == NULL || lb != lbm->kept_lb || seen_now == NULL || seen_now != lbm->kept_seen) {
            Py_CLEAR(lbm->kept_lb); /* (read again until the next clean flush) */
            if (read_bounds(lb, cur, &lbm->present) < 0) return -2;
        }
        memcpy(lbm->orig, cur, sizeof lbm->orig);
        lbm->was = lbm->present;
        lbm->dirty = 0;
        lbm->lb = lb;
        lbm->active = 1;
        if (n > seen && add_bounds_fixed(f, view, seen, n, o, lb, cur, &lbm->present) < 0) return -2;
    } else if (n > seen && add_bounds(f, view, seen, n, o, lb) < 0) {
        return -2;
    }
    cs->to = n + o;
    if (f->fixed) { /* `_seen`, keeping the int written (the mirror's check above) */
        PyObject *sv = PyLong_FromSsize_t(n + o);
        if (sv == NULL || PyDict_SetItem(tdict, k_seen, sv) < 0) { Py_XDECREF(sv); return -2; }
        if (n + o > 256) { /* (an int the interpreter does not share: -5 to 256 are one object each) */
            Py_XSETREF(lbm->kept_seen, sv);
        } else {
            Py_CLEAR(lbm->kept_seen);
            Py_DECREF(sv);
        }
    } else if (set_ssize(tdict, k_seen, n + o) < 0) {
        return -2;
    }
    Py_ssize_t count = f->fixed ? __builtin_popcountll(lbm->present) : PyDict_GET_SIZE(lb);
    if (count == 0) return n;
    if (count > MAXDET) { PyErr_SetString(PyExc_RuntimeError, "too many bounds"); return -2; }
    Bound order[MAXDET];
    Py_ssize_t pos = 0, k = 0;
    PyObject *key, *value;
    if (f->fixed) {
        for (unsigned long long b = lbm->present; b; b &= b - 1) order_add(order, &k, cur[__builtin_ctzll(b)], __builtin_ctzll(b));
    } else {
        while (PyDict_Next(lb, &pos, &key, &value)) {
            long i = PyLong_AsLong(key);
            Py_ssize_t at = PyLong_AsSsize_t(value);
            if (PyErr_Occurred()) return -2;
            order_add(order, &k, at, i); /* insertion sort by (at, i) */
        }
    }
    Py_ssize_t end = n + o, best = end;
    int kind_v = PyUnicode_KIND(view);
    const void *data_v = PyUnicode_DATA(view);
    for (Py_ssize_t t = 0; t < k; t++) {
        Py_ssize_t at = order[t].at;
        long i = order[t].i;
        if (at >= best) break;
        Py_ssize_t s = at - o;
        if (s < base) s = base;
        unsigned long long bit = 1ULL << i;
        if (!(always & bit) && cs->from <= s + o) {
            /* The candidate list covers [s, n): i can start only at its candidates there, so each is asked with
               an anchored match (a search would try every position in between), and none before the current
               answer means a bound there, or no bound at all. */
            int done = 0;
            for (int c = 0; c < cs->count && !done; c++) {
                Py_ssize_t cp = cs->pos[c];
                if (cp < s + o || !(cs->mask[c] & bit)) continue;
                Py_ssize_t v = cp - o;
                /* Nothing of i can match here: the text does not have its shape (shape.py). Asked first: it costs
                   an array walk, where a key the quad table has not seen costs a Python call and engine calls. */
                if (f->shape[i] != NULL && shape_rules_out(f->shape[i], kind_v, data_v, v, n)) {
                    if (cp < best) cs->steady_to[i] = cs->tail_to[i] = -1; /* as a match asked here would have done */
                    continue;
                }
                if (!(context & bit) && v >= 1 && v + 3 <= n) { /* the two characters after it are known */
                    unsigned long long qv;
                    if (quad_mask(f, view, v, &qv) < 0) return -2;
                    if (!(qv & bit)) continue;
                }
                /* A label start with no label tail before it: no match there, or (within `near_k` characters of the
                   end) one still open before its lookbehind, which depends on view[v:n] alone: remembered. */
                /* At a `near_rest` character the same holds where the alternatives that need no label before
                   them (a reversed comparison: its label after the value) do not have their shape there. */
                PyObject *near_key = NULL;
                PyObject *ask = PyTuple_GET_ITEM(match, i), *then = NULL;
                int near_known = -1;
                if (f->near_k[i] >= 0) {
                    Py_UCS4 c0 = PyUnicode_READ(kind_v, data_v, v);
                    Py_ssize_t claim_k = -1;
                    int at_rest = 0;
                    if (c0 < 128 && (f->near_chars[i][c0 >> 6] >> (c0 & 63) & 1))
                        claim_k = f->near_k[i];
                    else if (c0 < 128 && f->rest_k[i] >= 0 && (f->rest_chars[i][c0 >> 6] >> (c0 & 63) & 1)) {
                        if (shape_rules_out(f->rest_shape[i], kind_v, data_v, v, n))
                            claim_k = f->rest_k[i];
                        else
                            at_rest = 1;
                    }
                    /* lean_rest: a `near_rest` start with no label tail before it can only be a match of the
                       rest (the claim above), and with more than the rest's k characters after it the other
                       alternatives' paths die at their lookbehind before the end of the text, so the rest alone
                       gives the detector's answer there (none, open or complete) at a fraction of the cost: the
                       engine resets every repeat guard of a pattern on each call, and the label alternation
                       holds most of them (tests/redact/test_feed_lean.py compares the two). */
                    int tail = -1; /* label_near(f, view, v), asked once per candidate (lean) */
                    if (claim_k >= 0 || (at_rest && f->lean)) {
                        if (!f->lean) tail = label_near(f, view, v);
                        else if ((tail = cs->near[c]) < 0) tail = cs->near[c] = (signed char)label_near(f, view, v);
                    }
                    /* Within k characters of the end the other alternatives may still be open before their
                       lookbehind, so only an answer of the rest that is not "none" is the detector's there (then
                       some path of the detector runs into the end or completes); a "none" asks the detector. */
                    if (at_rest && f->lean && f->rest_match[i] != NULL && !tail) {
                        ask = f->rest_match[i];
                        if (n - v <= f->rest_k[i]) then = PyTuple_GET_ITEM(match, i);
                    }
                    if (claim_k >= 0 && !tail) {
                        if (n - v > claim_k) continue;
                        near_key = PyUnicode_Substring(view, v, n);
                        if (near_key == NULL) return -2;
                        PyObject *got = PyDict_GetItemWithError(f->near_cache[i], near_key);
                        if (got == NULL && PyErr_Occurred()) { Py_DECREF(near_key); return -2; }
                        if (got != NULL) {
                            near_known = got == Py_True;
                            Py_CLEAR(near_key);
                        } else if (near_prefixes) {
                            int r4 = near_prefix_none(f->near_cache[i], view, v, n);
                            if (r4 < 0) { Py_DECREF(near_key); return -2; }
                            if (r4) { near_known = 0; Py_CLEAR(near_key); }
                        }
                        if (near_known == 0) continue;
                    }
                }
                Py_ssize_t q = -1;
                PyObject *steady_t = steady == NULL ? Py_None : PyTuple_GET_ITEM(steady, i);
                if (cp < best && steady_t != Py_None && cs->steady_to[i] >= 0 && cs->steady_at[i] == cp &&
                    cs->steady_kind[i] < PyTuple_GET_SIZE(steady_t) &&
                    cs->steady_open[i] <= cs->steady_to[i] - cs->steady_k[i]) {
                    /* A block open here at the last check, its opener whole and nothing pending in the last
                       `k` characters then, stays as it was (partial, or complete and open) over text without
                       its kind's trigger characters for that phase. */
                    Py_ssize_t from = cs->steady_to[i] - cs->steady_k[i] - o;
                    if (from < v) from = v;
                    PyObject *trig = PyTuple_GET_ITEM(PyTuple_GET_ITEM(steady_t, cs->steady_kind[i]),
                                                      cs->steady_phase[i] == 2 ? 3 : 1);
                    int hit = 0;
                    for (Py_ssize_t t2 = 0; t2 < PyUnicode_GET_LENGTH(trig) && !hit; t2++) {
                        Py_ssize_t f = PyUnicode_FindChar(view, PyUnicode_READ_CHAR(trig, t2), from, n, 1);
                        if (f == -2) return -2;
                        hit = f >= 0;
                    }
                    if (!hit) {
                        q = cp;
                        cs->steady_to[i] = n + o;
                    }
                }
                if (cp < best && q < 0 && near_known != 1 && f->tail_on[i] && ask == PyTuple_GET_ITEM(match, i) &&
                    cs->tail_to[i] >= 0 && cs->tail_at[i] == cp &&
                    (f->tail_most[i] < 0 || n - v < f->tail_most[i])) {
                    /* Complete here at the last check, by a match ending at the end of the view then: a path ending
                       in a final repeat below its maximum (opentail.py). Appended text of characters every final
                       repeat takes extends it to the new end, still below the maximum: open here, as the engine
                       would say (tests/redact/test_open_tail.py). */
                    Py_ssize_t j = cs->tail_to[i] - o;
                    int same = j > v && j <= n;
                    for (; same && j < n; j++) {
                        Py_UCS4 c = PyUnicode_READ(kind_v, data_v, j);
                        same = c < 128 && (f->tail_chars[i][c >> 6] >> (c & 63) & 1) != 0;
                    }
                    if (same) {
                        q = cp;
                        cs->tail_to[i] = n + o;
                    }
                }
                if (cp < best && q < 0 && near_known == 1) {
                    cs->steady_to[i] = cs->tail_to[i] = -1;
                    q = cp; /* open here before its lookbehind, as the engine said for the same view[v:n] */
                } else if (cp < best && q < 0) {
                    cs->steady_to[i] = cs->tail_to[i] = -1;
                    PyObject *sv = PyLong_FromSsize_t(v);
                    if (sv == NULL) { Py_XDECREF(near_key); return -2; }
                    PyObject *args[5] = {view, sv, Py_None, f->lean ? Py_False : Py_None, Py_True};
                    PyObject *mt = PyObject_Vectorcall(ask, args, 5, NULL);
                    int own = ask == PyTuple_GET_ITEM(match, i); /* the detector's own match (not the rest's) */
                    if (mt == Py_None && then != NULL) {
                        Py_DECREF(mt);
                        mt = PyObject_Vectorcall(then, args, 5, NULL);
                        own = 1;
                    }
                    if (mt == NULL) { Py_XDECREF(near_key); Py_DECREF(sv); return -2; }
                    if (mt == Py_None) {
                        Py_DECREF(mt);
                        Py_DECREF(sv);
                        if (near_key != NULL) {
                            int r3 = near_remember(f, i, near_key, Py_False);
                            Py_DECREF(near_key);
                            if (r3 < 0) return -2;
                        }
                        continue;
                    }
                    PyObject *partial = PyObject_GetAttr(mt, k_partial);
                    if (partial == NULL) { Py_DECREF(mt); Py_XDECREF(near_key); Py_DECREF(sv); return -2; }
                    int is_partial = PyObject_IsTrue(partial);
                    Py_DECREF(partial);
                    if (is_partial < 0) { Py_DECREF(mt); Py_XDECREF(near_key); Py_DECREF(sv); return -2; }
                    /* A complete match ending at the end of the view, of a detector whose every path ends in a
                       final repeat, shorter than that repeat's maximum: the repeat stopped because the text did,
                       so the path runs into the end and this start is open (opentail.py): no probe needed. */
                    int tail_open = 0;
                    if (!is_partial && own && f->tail_on[i] && (f->tail_most[i] < 0 || n - v < f->tail_most[i])) {
                        PyObject *me = PyObject_CallMethodNoArgs(mt, k_end);
                        Py_ssize_t mend = me == NULL ? -1 : PyLong_AsSsize_t(me);
                        Py_XDECREF(me);
                        if (mend == -1 && PyErr_Occurred()) { Py_DECREF(mt); Py_XDECREF(near_key); Py_DECREF(sv); return -2; }
                        tail_open = mend == n;
                    }
                    Py_DECREF(mt);
                    if (near_key != NULL) {
                        int r3 = is_partial ? near_remember(f, i, near_key, Py_True) : 0;
                        Py_CLEAR(near_key);
                        if (r3 < 0) { Py_DECREF(sv); return -2; }
                    }
                    if (is_partial) {
                        q = cp; /* open here, and nothing of i starts before it */
                        if (steady_t != Py_None && record_steady(cs, i, steady_t, view, sv, cp, n + o, o, 1) < 0) {
                            Py_DECREF(sv);
                            return -2;
                        }
                    } else if (tail_open) { /* complete, and open here (above) */
                        q = cp;
                        cs->tail_at[i] = cp;
                        cs->tail_to[i] = n + o;
                    } else { /* a complete match here: where is i still open? (as the search path asks) */
                        q = probe_start(PyTuple_GET_ITEM(search, i), args, o, end);
                        if (q == -2) { Py_DECREF(sv); return -2; }
                        if (q == cp && steady_t != Py_None &&
                            record_steady(cs, i, steady_t, view, sv, cp, n + o, o, 2) < 0) {
                            Py_DECREF(sv);
                            return -2;
                        }
                    }
                    Py_DECREF(sv);
                }
                Py_XDECREF(near_key);
                if (lb_set(f, lb, i, cp) < 0) return -2;
                if (q >= 0 && q < best) best = q;
                done = 1;
            }
            if (!done && lb_del(f, lb, i) < 0) return -2; /* no candidate of i left in [s, n): none can start there */
            continue;
        }
        PyObject *r = PyTuple_GET_ITEM(reach, i);
        if (r != Py_None) {
            Py_ssize_t rv = PyLong_AsSsize_t(r);
            if (rv == -1 && PyErr_Occurred()) return -2;
            if (s < n - rv) {
                s = n - rv;
                if (set_ssize(tdict, k_unsure, end) < 0) return -2;
            }
        }
        PyObject *ki = PyLong_FromLong(i);
        PyObject *sv = PyLong_FromSsize_t(s);
        if (ki == NULL || sv == NULL) { Py_XDECREF(ki); Py_XDECREF(sv); return -2; }
        PyObject *args[5] = {view, sv, Py_None, f->lean ? Py_False : Py_None, Py_True};
        PyObject *mt = PyObject_Vectorcall(PyTuple_GET_ITEM(full, i), args, 5, NULL);
        if (mt == NULL) { Py_DECREF(ki); Py_DECREF(sv); return -2; }
        Py_ssize_t q;
        if (mt == Py_None) {
            Py_DECREF(mt);
            Py_DECREF(sv);
            int r2 = lb_del(f, lb, i);
            Py_DECREF(ki);
            if (r2 < 0) return -2;
            continue;
        }
        PyObject *partial = PyObject_GetAttr(mt, k_partial);
        PyObject *st = partial ? PyObject_CallMethodNoArgs(mt, k_start) : NULL;
        if (st == NULL) { Py_XDECREF(partial); Py_DECREF(mt); Py_DECREF(ki); Py_DECREF(sv); return -2; }
        int is_partial = PyObject_IsTrue(partial);
        Py_ssize_t mstart = is_partial < 0 ? -1 : PyLong_AsSsize_t(st);
        Py_DECREF(st);
        Py_DECREF(partial);
        Py_DECREF(mt);
        if (is_partial < 0 || (mstart == -1 && PyErr_Occurred())) { Py_DECREF(ki); Py_DECREF(sv); return -2; }
        Py_ssize_t newlb;
        if (is_partial) {
            q = mstart + o;
            if (q >= end) {
                Py_DECREF(sv);
                int r2 = lb_del(f, lb, i);
                Py_DECREF(ki);
                if (r2 < 0) return -2;
                continue;
            }
            newlb = q;
        } else {
            q = probe_start(PyTuple_GET_ITEM(search, i), args, o, end);
            if (q == -2) { Py_DECREF(ki); Py_DECREF(sv); return -2; }
            Py_ssize_t c = mstart + o;
            newlb = c < q ? c : q;
        }
        Py_DECREF(sv);
        if (lb_set(f, lb, i, newlb) < 0) { Py_DECREF(ki); return -2; }
        Py_DECREF(ki);
        if (q < best) best = q;
    }
    return best - o;
python : {
        PyObject *bo = PyLong_FromSsize_t(base);
        if (bo == NULL) return -2;
        PyObject *got = PyObject_CallFunctionObjArgs(f->open_from, view, bo, NULL);
        Py_DECREF(bo);
        if (got == NULL) return -2;
        Py_ssize_t point = PyLong_AsSsize_t(got);
        Py_DECREF(got);
        if (point == -1 && PyErr_Occurred()) return -2;
        return point;
    }
}

/* `OpenTracker.complete_mask(base, point) == 0`: 1 if no detector may have a complete match before `point`,
   0 if one may or it is not known, -1 on error. */
static int no_complete(PyObject *tdict, Py_ssize_t base, Py_ssize_t point) {
    Py_ssize_t o, unsure;
    if (get_ssize(tdict, k_origin, &o) < 0 || get_ssize(tdict, k_unsure, &unsure) < 0) return 0;
    if (unsure > base + o) return 0;
    PyObject *lb = item(tdict, k_lb);
    if (lb == NULL || !PyDict_CheckExact(lb)) return 0;
    point += o;
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(lb, &pos, &key, &value)) {
        Py_ssize_t at = PyLong_AsSsize_t(value);
        if (at == -1 && PyErr_Occurred()) return -1;
        if (at < point) return 0;
    }
    return 1;
}

/* `no_complete` from this feed's mirror of the bounds (`fixed`, after its `open_from` ran here). */
static int no_complete_fixed(Feed *f, PyObject *tdict, Py_ssize_t base, Py_ssize_t point) {
    Py_ssize_t o, unsure;
    if (get_ssize(tdict, k_origin, &o) < 0 || get_ssize(tdict, k_unsure, &unsure) < 0) return 0;
    if (unsure > base + o) return 0;
    point += o;
    for (unsigned long long b = f->lbm.present; b; b &= b - 1)
        if (f->lbm.at[__builtin_ctzll(b)] < point) return 0;
    return 1;
}

/* `Step(text)` (no lookahead: ""), built the way `object.__new__` and the dataclass's `__init__` would (its frozen `__setattr__`
   is the one bypassed, as the generated `__init__` bypasses it): a third of the cost of calling the class. */
static PyObject *make_step(PyObject *text) {
    PyObject *empty = PyTuple_New(0);
    PyObject *st = empty ? PyBaseObject_Type.tp_new((PyTypeObject *)step_type, empty, NULL) : NULL;
    Py_XDECREF(empty);
    if (st == NULL) { Py_DECREF(text); return NULL; }
    PyObject *events = PyTuple_New(0);
    int bad = events == NULL || PyObject_GenericSetAttr(st, k_text, text) < 0 ||
              PyObject_GenericSetAttr(st, k_stopped, Py_False) < 0 || PyObject_GenericSetAttr(st, k_events, events) < 0 ||
              PyObject_GenericSetAttr(st, k_lookahead, empty_text) < 0;
    Py_XDECREF(events);
    Py_DECREF(text);
    if (bad) { Py_DECREF(st); return NULL; }
    return st;
}

static PyObject *quick(Feed *f, PyObject *self, PyObject *piece);
static PyObject *quick_in(Feed *f, PyObject *self, PyObject *piece, PyObject *d, PyObject *raw);

/* With `fixed`: `special(piece) is None` for a non-ASCII piece (no character of it to normalize), from a memo of
   `special`'s answer for each BMP character it was asked about (`special` is the search of a one-character class,
   normalize._SPECIAL: a piece has a match where one of its characters is one; tests/redact/test_feed_fixed.py
   checks the claim). Cleared by `configure`. 1: plain, 0: to normalize, -1 with an exception set. */
static unsigned char special_known[0x10000 / 8], special_hit[0x10000 / 8];
static int plain_piece(PyObject *piece) {
    int kind = PyUnicode_KIND(piece);
    const void *data = PyUnicode_DATA(piece);
    Py_ssize_t n = PyUnicode_GET_LENGTH(piece);
    for (Py_ssize_t j = 0; j < n; j++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, j);
        if (c < 128) continue;
        if (c < 0x10000 && (special_known[c >> 3] >> (c & 7) & 1)) {
            if (special_hit[c >> 3] >> (c & 7) & 1) return 0;
            continue;
        }
        PyObject *ch = PyUnicode_FromOrdinal(c);
        PyObject *m = ch ? PyObject_CallOneArg(special, ch) : NULL;
        Py_XDECREF(ch);
        if (m == NULL) return -1;
        int hit = m != Py_None;
        Py_DECREF(m);
        if (c < 0x10000) {
            special_known[c >> 3] |= (unsigned char)(1 << (c & 7));
            if (hit) special_hit[c >> 3] |= (unsigned char)(1 << (c & 7));
        }
        if (hit) return 0;
    }
    return 1;
}

static PyObject *feed_quick(Feed *f, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "quick(redactor, piece)");
        return NULL;
    }
    return quick(f, args[0], args[1]);
}

static PyObject *quick(Feed *f, PyObject *self, PyObject *piece) { return quick_in(f, self, piece, NULL, NULL); }

/* `quick`, with the redactor's instance dict `d` and its `_raw` already looked up (by `FeedMethod`), or NULL. */
static PyObject *quick_in(Feed *f, PyObject *self, PyObject *piece, PyObject *d, PyObject *raw) {
    if (!configured) Py_RETURN_NONE;
    if (!PyUnicode_CheckExact(piece)) Py_RETURN_NONE;
    f->min_range_known = 0;
    f->lbm.fresh = 0;
    if (!PyUnicode_IS_ASCII(piece)) { /* `needs_normalizing(piece)` means the Python path */
        int needs;
        if (f->fixed) {
            int plain = plain_piece(piece);
            if (plain < 0) return NULL;
            needs = !plain;
        } else {
            PyObject *m = PyObject_CallOneArg(special, piece);
            if (m == NULL) return NULL;
            needs = m != Py_None;
            Py_DECREF(m);
        }
        if (needs) Py_RETURN_NONE;
    }
    if (d == NULL) d = instance_dict(self);
    if (d == NULL) Py_RETURN_NONE;
    if (raw == NULL) raw = item(d, k_raw);
    PyObject *view = item(d, k_view), *positions = item(d, k_positions);
    Py_ssize_t max_hold = f->max_hold, next_check, base;
    if (raw == NULL || view == NULL || positions != Py_None || !PyUnicode_CheckExact(raw) ||
        !PyUnicode_CheckExact(view) || get_ssize(d, k_next_check, &next_check) < 0 || get_ssize(d, k_base, &base) < 0)
        Py_RETURN_NONE;
    if (PyUnicode_GET_LENGTH(raw) + PyUnicode_GET_LENGTH(piece) >= max_hold) Py_RETURN_NONE;
    PyObject *tdict = instance_dict(f->tracker);
    if (tdict == NULL) Py_RETURN_NONE;
    /* From here on the state changes, as in `_quick`. */
    PyObject *nview = PyUnicode_Concat(view, piece);
    if (nview == NULL) return NULL;
    PyObject *nraw = PyUnicode_Concat(raw, piece);
    if (nraw == NULL) { Py_DECREF(nview); return NULL; }
    int bad = PyDict_SetItem(d, k_view, nview) < 0 || PyDict_SetItem(d, k_raw, nraw) < 0;
    Py_DECREF(nview);
    Py_DECREF(nraw);
    if (bad) return NULL;
    view = nview; /* borrowed from d */
    raw = nraw;
    Py_ssize_t held = PyUnicode_GET_LENGTH(raw);
    if (held < next_check) return Py_NewRef(empty_step);
    Py_ssize_t point = open_from(f, tdict, view, base);
    if (point == -2) return NULL;
    if (point <= base) { /* nothing settles */
        if (set_ssize(d, k_next_check, held + (held < EAGER ? 1 : held / 4)) < 0) return NULL;
        return Py_NewRef(empty_step);
    }
    Py_ssize_t min_range;
    if (min_range_of(f, &min_range) < 0) return NULL;
    int none = f->fixed && f->lbm.fresh ? no_complete_fixed(f, tdict, base, point) : no_complete(tdict, base, point);
    if (none < 0) return NULL;
    if (!none || point - base > min_range) return PyLong_FromSsize_t(point);
    /* `_release(point)` with no findings and positions None: the raw and view indexes coincide. */
    Py_ssize_t cut = point - base;
    PyObject *text = PyUnicode_Substring(raw, 0, cut);
    PyObject *rest = text ? PyUnicode_Substring(raw, cut, held) : NULL;
    Py_ssize_t start = point - LOOKBEHIND > 0 ? point - LOOKBEHIND : 0;
    PyObject *vrest = rest ? PyUnicode_Substring(view, start, PyUnicode_GET_LENGTH(view)) : NULL;
    if (vrest == NULL) { Py_XDECREF(text); Py_XDECREF(rest); return NULL; }
    Py_ssize_t o;
    bad = PyDict_SetItem(d, k_raw, rest) < 0 || PyDict_SetItem(d, k_view, vrest) < 0;
    Py_DECREF(rest);
    Py_DECREF(vrest);
    if (bad || get_ssize(tdict, k_origin, &o) < 0 || (start && set_ssize(tdict, k_origin, o + start) < 0) ||
        set_ssize(d, k_base, point - start) < 0) {
        Py_DECREF(text);
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "tracker state");
        return NULL;
    }
    held -= cut;
    if (set_ssize(d, k_next_check, held + (held < EAGER ? 1 : held / 4)) < 0) { Py_DECREF(text); return NULL; }
    if (PyUnicode_GET_LENGTH(text) == 0) { Py_DECREF(text); return Py_NewRef(empty_step); }
    return make_step(text);
}

static void feed_dealloc(Feed *f) {
    Py_XDECREF(f->tracker); Py_XDECREF(f->open_from); Py_XDECREF(f->search); Py_XDECREF(f->full);
    Py_XDECREF(f->match); Py_XDECREF(f->reach); Py_XDECREF(f->steady); Py_XDECREF(f->cache);
    Py_XDECREF(f->pairs); Py_XDECREF(f->quads); Py_XDECREF(f->compute); Py_XDECREF(f->pair);
    Py_XDECREF(f->quad); Py_XDECREF(f->tables_capsule); Py_XDECREF(f->near_bits_obj); Py_XDECREF(f->near_forms);
    for (int i = 0; i < MAXDET; i++) Py_XDECREF(f->near_cache[i]);
    for (int i = 0; i < MAXDET; i++) Py_XDECREF(f->shape_obj[i]);
    for (int i = 0; i < MAXDET; i++) Py_XDECREF(f->rest_obj[i]);
    for (int i = 0; i < MAXDET; i++) Py_XDECREF(f->rest_match[i]);
    Py_XDECREF(f->lbm.kept_lb);
    Py_XDECREF(f->lbm.kept_seen);
    PyMem_Free(f->cs.pos);
    PyMem_Free(f->cs.mask);
    PyMem_Free(f->cs.near);
    Py_TYPE(f)->tp_free((PyObject *)f);
}

static PyObject *feed_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *kw[] = {"tracker", "open_from", "search", "full", "match", "reach", "steady", "prefilter",
                         "cache", "pairs", "quads", "compute", "pair", "quad", "always", "context", "tables",
                         "max_hold", "near", "near_bits", "near_window", "near_tails", "near_caches", "shape",
                         "tail", "near_forms", "near_gap", "lean", "fixed", NULL};
    PyObject *tracker, *open_from, *search, *full, *match, *reach, *steady, *cache, *pairs, *quads, *compute,
        *pair, *quad, *always, *context, *tables, *near, *near_bits, *near_tails, *near_caches, *shapes, *tails, *near_forms;
    int prefilter, lean, fixed;
    Py_ssize_t max_hold, near_window, near_gap;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "$OOO!O!O!O!O!pO!O!O!OOOOOOnO!O!nO!O!O!O!Onpp:Feed", kw, &tracker, &open_from,
                                     &PyTuple_Type, &search, &PyTuple_Type, &full, &PyTuple_Type, &match,
                                     &PyTuple_Type, &reach, &PyTuple_Type, &steady, &prefilter, &PyDict_Type,
                                     &cache, &PyDict_Type, &pairs, &PyDict_Type, &quads, &compute, &pair, &quad,
                                     &always, &context, &tables, &max_hold, &PyTuple_Type, &near, &PyBytes_Type,
                                     &near_bits, &near_window, &PyTuple_Type, &near_tails, &PyTuple_Type, &near_caches,
                                     &PyTuple_Type, &shapes, &PyTuple_Type, &tails, &near_forms, &near_gap,
                                     &lean, &fixed))
        return NULL;
    Py_ssize_t count = PyTuple_GET_SIZE(full);
    if (PyTuple_GET_SIZE(search) != count || PyTuple_GET_SIZE(match) != count ||
        PyTuple_GET_SIZE(reach) != count || PyTuple_GET_SIZE(steady) != count || PyTuple_GET_SIZE(near) != count ||
        PyTuple_GET_SIZE(shapes) != count || PyTuple_GET_SIZE(near_caches) != count || PyTuple_GET_SIZE(tails) != count) {
        PyErr_SetString(PyExc_ValueError, "Feed: the per-detector tuples differ in length");
        return NULL;
    }
    Tables *t = (Tables *)PyCapsule_GetPointer(tables, "sluicegate.tables");
    if (t == NULL) return NULL;
    if (PyBytes_GET_SIZE(near_bits) != NEAR_BITS / 8 || near_window < 0) {
        PyErr_SetString(PyExc_ValueError, "Feed: near_bits must be labels.near_tables()");
        return NULL;
    }
    if (!PyDict_CheckExact(cache) || !PyDict_CheckExact(pairs) || !PyDict_CheckExact(quads)) {
        PyErr_SetString(PyExc_TypeError, "Feed: cache, pairs and quads must be dicts");
        return NULL;
    }
    Feed *f = (Feed *)type->tp_alloc(type, 0);
    if (f == NULL) return NULL;
    if (!PyLong_CheckExact(always) || !PyLong_CheckExact(context)) {
        Py_DECREF(f);
        PyErr_SetString(PyExc_TypeError, "Feed: always and context must be ints");
        return NULL;
    }
    /* More detectors than mask bits: the open point is always Python's (the rest of `quick` still runs). */
    f->many = count > MAXDET || mask_of(always, &f->always) < 0 || mask_of(context, &f->context) < 0;
    f->tracker = Py_NewRef(tracker); f->open_from = Py_NewRef(open_from); f->search = Py_NewRef(search);
    f->full = Py_NewRef(full); f->match = Py_NewRef(match); f->reach = Py_NewRef(reach);
    f->steady = Py_NewRef(steady); f->cache = Py_NewRef(cache); f->pairs = Py_NewRef(pairs);
    f->quads = Py_NewRef(quads); f->compute = Py_NewRef(compute); f->pair = Py_NewRef(pair);
    f->quad = Py_NewRef(quad); f->tables_capsule = Py_NewRef(tables);
    f->tables = t;
    f->near_bits_obj = Py_NewRef(near_bits);
    f->near_bits = (const unsigned char *)PyBytes_AS_STRING(near_bits);
    if (PyTuple_GET_SIZE(near_tails) > 128) {
        Py_DECREF(f);
        PyErr_SetString(PyExc_ValueError, "Feed: more than 128 near_tails");
        return NULL;
    }
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(near_tails); k++) {
        PyObject *t = PyTuple_GET_ITEM(near_tails, k);
        Py_ssize_t len = PyUnicode_Check(t) ? PyUnicode_GET_LENGTH(t) : -1;
        if (len < 1 || len > NEAR_TAIL || !PyUnicode_IS_ASCII(t)) {
            Py_DECREF(f);
            PyErr_SetString(PyExc_ValueError, "Feed: near_tails are ASCII str of 1 to 4 characters");
            return NULL;
        }
        for (Py_ssize_t j = 0; j < len; j++) {
            Py_UCS4 c = PyUnicode_READ_CHAR(t, j);
            f->near_tail[k][j] = (unsigned char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
        }
        f->near_tail_len[k] = (int)len;
    }
    f->near_tails = (int)PyTuple_GET_SIZE(near_tails);
    static PyObject *forms_checked = NULL; /* the last tuple found good (fastpath hands the same one each time) */
    if (near_forms != Py_None) { /* a tuple as long as near_tails, of tuples of lowercased ASCII str */
        int ok = PyTuple_Check(near_forms) && PyTuple_GET_SIZE(near_forms) == PyTuple_GET_SIZE(near_tails);
        if (ok && near_forms == forms_checked) goto forms_ok;
        for (Py_ssize_t k = 0; ok && k < PyTuple_GET_SIZE(near_forms); k++) {
            PyObject *fs = PyTuple_GET_ITEM(near_forms, k);
            ok = PyTuple_Check(fs);
            for (Py_ssize_t x = 0; ok && x < PyTuple_GET_SIZE(fs); x++) {
                PyObject *w = PyTuple_GET_ITEM(fs, x);
                ok = PyUnicode_CheckExact(w) && PyUnicode_IS_ASCII(w) && PyUnicode_GET_LENGTH(w) >= 1;
                for (Py_ssize_t y = 0; ok && y < PyUnicode_GET_LENGTH(w); y++) {
                    Py_UCS4 c = PyUnicode_READ_CHAR(w, y);
                    ok = !(c >= 'A' && c <= 'Z');
                }
            }
        }
        if (!ok) {
            Py_DECREF(f);
            PyErr_SetString(PyExc_ValueError, "Feed: near_forms is None or, per near_tail, a tuple of lowercased ASCII str");
            return NULL;
        }
        Py_XSETREF(forms_checked, Py_NewRef(near_forms));
    forms_ok:
        f->near_forms = Py_NewRef(near_forms);
    }
    f->near_gap = near_gap < 0 ? -1 : near_gap;
    f->near_window = near_window;
    for (Py_ssize_t i = 0; i < MAXDET; i++) {
        f->near_k[i] = -1;
        f->near_chars[i][0] = f->near_chars[i][1] = 0;
        f->rest_k[i] = -1;
        f->rest_chars[i][0] = f->rest_chars[i][1] = 0;
        PyObject *claim = i < count ? PyTuple_GET_ITEM(near, i) : Py_None;
        if (claim == Py_None) continue;
        int with_rest = PyTuple_Check(claim) && (PyTuple_GET_SIZE(claim) == 5 || PyTuple_GET_SIZE(claim) == 6);
        PyObject *chars = PyTuple_Check(claim) && (PyTuple_GET_SIZE(claim) == 2 || with_rest)
                              ? PyTuple_GET_ITEM(claim, 0) : NULL;
        Py_ssize_t kk = chars ? PyLong_AsSsize_t(PyTuple_GET_ITEM(claim, 1)) : -1;
        if (chars == NULL || !PyUnicode_Check(chars) || !PyUnicode_IS_ASCII(chars) || kk < 0) {
            Py_DECREF(f);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "Feed: near holds None or (ASCII str, k >= 0)");
            return NULL;
        }
        for (Py_ssize_t j = 0; j < PyUnicode_GET_LENGTH(chars); j++) {
            Py_UCS4 c = PyUnicode_READ_CHAR(chars, j);
            f->near_chars[i][c >> 6] |= 1ULL << (c & 63);
        }
        f->near_k[i] = kk;
        PyObject *shared = PyTuple_GET_ITEM(near_caches, i);
        if (shared != Py_None && !PyDict_CheckExact(shared)) {
            Py_DECREF(f);
            PyErr_SetString(PyExc_TypeError, "Feed: near_caches holds dicts or None");
            return NULL;
        }
        f->near_cache[i] = shared != Py_None ? Py_NewRef(shared) : PyDict_New();
        if (f->near_cache[i] == NULL) { Py_DECREF(f); return NULL; }
        if (!with_rest) continue;
        PyObject *rchars = PyTuple_GET_ITEM(claim, 2), *rcap = PyTuple_GET_ITEM(claim, 4);
        Py_ssize_t rk = PyLong_AsSsize_t(PyTuple_GET_ITEM(claim, 3));
        const Shape *rsh = PyCapsule_CheckExact(rcap) ? (const Shape *)PyCapsule_GetPointer(rcap, "sluicegate.shape") : NULL;
        if (!PyUnicode_Check(rchars) || !PyUnicode_IS_ASCII(rchars) || rk < 0 || rsh == NULL) {
            Py_DECREF(f);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "Feed: near's rest is (ASCII str, k >= 0, shape)");
            return NULL;
        }
        for (Py_ssize_t j = 0; j < PyUnicode_GET_LENGTH(rchars); j++) {
            Py_UCS4 c = PyUnicode_READ_CHAR(rchars, j);
            f->rest_chars[i][c >> 6] |= 1ULL << (c & 63);
        }
        f->rest_k[i] = rk;
        f->rest_obj[i] = Py_NewRef(rcap);
        f->rest_shape[i] = rsh;
        if (PyTuple_GET_SIZE(claim) == 6 && PyTuple_GET_ITEM(claim, 5) != Py_None) {
            if (!PyCallable_Check(PyTuple_GET_ITEM(claim, 5))) {
                Py_DECREF(f);
                PyErr_SetString(PyExc_TypeError, "Feed: near's sixth item is the rest's match, or None");
                return NULL;
            }
            f->rest_match[i] = Py_NewRef(PyTuple_GET_ITEM(claim, 5));
        }
    }
    for (Py_ssize_t i = 0; i < count && i < MAXDET; i++) {
        PyObject *cap = PyTuple_GET_ITEM(shapes, i);
        if (cap == Py_None) continue;
        const Shape *sh = (const Shape *)PyCapsule_GetPointer(cap, "sluicegate.shape");
        if (sh == NULL) { Py_DECREF(f); return NULL; }
        f->shape_obj[i] = Py_NewRef(cap);
        f->shape[i] = sh;
    }
    for (Py_ssize_t i = 0; i < count && i < MAXDET; i++) {
        PyObject *tl = PyTuple_GET_ITEM(tails, i);
        if (tl == Py_None) continue;
        PyObject *bits = PyTuple_Check(tl) && PyTuple_GET_SIZE(tl) == 2 ? PyTuple_GET_ITEM(tl, 0) : NULL;
        Py_ssize_t most = bits ? PyLong_AsSsize_t(PyTuple_GET_ITEM(tl, 1)) : -2;
        if (bits == NULL || !PyBytes_Check(bits) || PyBytes_GET_SIZE(bits) != 16 || most < -1) {
            Py_DECREF(f);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "Feed: tail holds None or OpenTail.packed()");
            return NULL;
        }
        const unsigned char *b = (const unsigned char *)PyBytes_AS_STRING(bits);
        for (int c = 0; c < 128; c++)
            if (b[c >> 3] >> (c & 7) & 1) f->tail_chars[i][c >> 6] |= 1ULL << (c & 63);
        f->tail_most[i] = most;
        f->tail_on[i] = 1;
    }
    f->prefilter = prefilter;
    f->lean = lean;
    f->fixed = fixed;
    f->min_range_known = 0;
    f->max_hold = max_hold;
    f->cs.size = 64;
    f->cs.pos = (Py_ssize_t *)PyMem_Calloc((size_t)f->cs.size, sizeof(Py_ssize_t));
    f->cs.mask = (unsigned long long *)PyMem_Calloc((size_t)f->cs.size, sizeof(unsigned long long));
    f->cs.near = (signed char *)PyMem_Calloc((size_t)f->cs.size, 1);
    if (f->cs.pos == NULL || f->cs.mask == NULL || f->cs.near == NULL) { Py_DECREF(f); return PyErr_NoMemory(); }
    f->cs.to = -1;
    cands_reset(&f->cs, -1);
    return (PyObject *)f;
}

static PyObject *feed_ran(Feed *f, void *Py_UNUSED(closure)) { return PyBool_FromLong(f->ran); }

static PyObject *feed_label_near(Feed *f, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyUnicode_CheckExact(args[0])) {
        PyErr_SetString(PyExc_TypeError, "label_near(view, v)");
        return NULL;
    }
    Py_ssize_t v = PyLong_AsSsize_t(args[1]);
    if (v == -1 && PyErr_Occurred()) return NULL;
    if (v < 0 || v > PyUnicode_GET_LENGTH(args[0])) {
        PyErr_SetString(PyExc_IndexError, "label_near: v out of range");
        return NULL;
    }
    return PyBool_FromLong(label_near(f, args[0], v));
}

static PyObject *feed_rules_out(Feed *f, PyObject *const *args, Py_ssize_t nargs) {
    if ((nargs != 3 && nargs != 4) || !PyUnicode_CheckExact(args[0])) {
        PyErr_SetString(PyExc_TypeError, "rules_out(view, v, i[, rest])");
        return NULL;
    }
    Py_ssize_t v = PyLong_AsSsize_t(args[1]), i = PyLong_AsSsize_t(args[2]);
    if (PyErr_Occurred()) return NULL;
    int rest = nargs == 4 ? PyObject_IsTrue(args[3]) : 0;
    if (rest < 0) return NULL;
    const Shape *sh = i < 0 || i >= MAXDET ? NULL : rest ? f->rest_shape[i] : f->shape[i];
    if (v < 0 || v >= PyUnicode_GET_LENGTH(args[0]) || sh == NULL) {
        PyErr_SetString(PyExc_IndexError, "rules_out: v out of range, or detector i has no such shape");
        return NULL;
    }
    PyObject *view = args[0];
    return PyBool_FromLong(
        shape_rules_out(sh, PyUnicode_KIND(view), PyUnicode_DATA(view), v, PyUnicode_GET_LENGTH(view)));
}

static PyMethodDef feed_methods[] = {
    {"rules_out", (PyCFunction)(void (*)(void))feed_rules_out, METH_FASTCALL,
     "rules_out(view, v, i[, rest]) -> bool: Shape.rules_out(view, v) of detector i's shape (with rest: of its "
     "near_rest shape), as this feed checks it."},
    {"quick", (PyCFunction)(void (*)(void))feed_quick, METH_FASTCALL,
     "quick(redactor, piece) -> Step | int | None: the common case of Redactor.feed (see the file's head)."},
    {"label_near", (PyCFunction)(void (*)(void))feed_label_near, METH_FASTCALL,
     "label_near(view, v) -> bool: the check labels.label_near(view, v, near_window) as this feed makes it."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef feed_getset[] = {
    {"ran", (getter)feed_ran, NULL, "True once the compiled open point ran (not handed to Python)", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject FeedType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "sluicegate.redaction._native.Feed",
    .tp_basicsize = sizeof(Feed),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The compiled feed of one Redactor, over the objects handed to it (see _native.c).",
    .tp_new = feed_new,
    .tp_dealloc = (destructor)feed_dealloc,
    .tp_methods = feed_methods,
    .tp_getset = feed_getset,
};


/* `Redactor.feed` as a compiled method (`FeedMethod(feed, rest, release)`, put on the class by
   `fastpath.install_feed`): on the instance, `feed(piece)` with no keyword does what the Python method does on
   its common path without a Python frame — the instance not stopped, not done and with no lookahead pending
   (`_stopped`, `_done`, `_ahead`), its `_quick_native` this file's `Feed.quick`: the quick answer (a Step),
   or `release(self, point)` (`Redactor._release_step`) for a point to settle, or `rest(self, piece)`
   (`Redactor._feed_rest`, the rest of the Python method) where the compiled feed hands the piece back. Anything
   else (a keyword, a piece that is not a str, a stopped stream, another `_quick_native`) is the Python method
   `feed` itself. On the class (`Redactor.feed`) it is that Python function, so a subclass that assigns it, and
   `inspect`, see the Python method. */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *func, *rest, *release;
    PyObject *rest_name, *release_name; /* their __name__s: a class that has other ones gets the Python method */
} FeedMethod;

static PyObject *method_call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    FeedMethod *m = (FeedMethod *)callable;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs != 2 || (kwnames != NULL && PyTuple_GET_SIZE(kwnames) > 0) || !configured) goto python;
    PyObject *self = args[0], *piece = args[1];
    if (!PyUnicode_CheckExact(piece)) goto python;
    /* The class's own `_feed_rest` and `_release_step` must be the ones this method calls (a subclass that
       overrides one gets the Python method, which calls its override). */
    if (_PyType_Lookup(Py_TYPE(self), m->rest_name) != m->rest ||
        _PyType_Lookup(Py_TYPE(self), m->release_name) != m->release)
        goto python;
    PyObject *d = instance_dict(self);
    if (d == NULL) goto python;
    PyObject *q = item(d, k_quick_native);
    if (q == NULL || !PyCFunction_Check(q) || PyCFunction_GET_FUNCTION(q) != (PyCFunction)(void (*)(void))feed_quick)
        goto python;
    PyObject *fo = PyCFunction_GET_SELF(q);
    if (fo == NULL || Py_TYPE(fo) != &FeedType) goto python;
    if (item(d, k_is_stopped) != Py_False || item(d, k_done) != Py_False) goto python;
    PyObject *ahead = item(d, k_ahead);
    if (ahead == NULL || !PyUnicode_CheckExact(ahead) || PyUnicode_GET_LENGTH(ahead) != 0) goto python;
    if (PyErr_Occurred()) return NULL;
    PyObject *raw = item(d, k_raw);
    if (raw == NULL || !PyUnicode_CheckExact(raw)) goto python;
    if (PyUnicode_GET_LENGTH(raw) + PyUnicode_GET_LENGTH(piece) >= ((Feed *)fo)->max_hold) {
        /* as the Python method: not asked (it would first search all of a long piece for characters to
           normalize), the rest of the method */
        PyObject *a[2] = {self, piece};
        return PyObject_Vectorcall(m->rest, a, 2, NULL);
    }
    Py_INCREF(fo);
    PyObject *got = ((Feed *)fo)->fixed ? quick_in((Feed *)fo, self, piece, d, raw) : quick((Feed *)fo, self, piece);
    Py_DECREF(fo);
    if (got == NULL) return NULL;
    if (got == Py_None) {
        Py_DECREF(got);
        PyObject *a[2] = {self, piece};
        return PyObject_Vectorcall(m->rest, a, 2, NULL);
    }
    if (PyLong_CheckExact(got)) {
        PyObject *a[2] = {self, got};
        PyObject *out = PyObject_Vectorcall(m->release, a, 2, NULL);
        Py_DECREF(got);
        return out;
    }
    return got;
python:
    if (PyErr_Occurred()) return NULL;
    return PyObject_Vectorcall(m->func, args, nargsf, kwnames);
}

static PyObject *method_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *func, *rest, *release;
    if ((kwds != NULL && PyDict_GET_SIZE(kwds) > 0) || !PyArg_ParseTuple(args, "OOO:FeedMethod", &func, &rest, &release))
        return NULL;
    if (!PyCallable_Check(func) || !PyCallable_Check(rest) || !PyCallable_Check(release)) {
        PyErr_SetString(PyExc_TypeError, "FeedMethod(feed, rest, release) takes three functions");
        return NULL;
    }
    FeedMethod *m = (FeedMethod *)type->tp_alloc(type, 0);
    if (m == NULL) return NULL;
    m->vectorcall = method_call;
    m->func = Py_NewRef(func);
    m->rest = Py_NewRef(rest);
    m->release = Py_NewRef(release);
    m->rest_name = PyObject_GetAttr(rest, k_dunder_name);
    m->release_name = m->rest_name ? PyObject_GetAttr(release, k_dunder_name) : NULL;
    if (m->release_name == NULL || !PyUnicode_CheckExact(m->rest_name) || !PyUnicode_CheckExact(m->release_name)) {
        Py_DECREF(m);
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "FeedMethod: rest and release need str names");
        return NULL;
    }
    return (PyObject *)m;
}

static int method_traverse(FeedMethod *m, visitproc visit, void *arg) {
    Py_VISIT(m->func);
    Py_VISIT(m->rest);
    Py_VISIT(m->release);
    return 0;
}

static int method_clear(FeedMethod *m) {
    Py_CLEAR(m->func);
    Py_CLEAR(m->rest);
    Py_CLEAR(m->release);
    Py_CLEAR(m->rest_name);
    Py_CLEAR(m->release_name);
    return 0;
}

static void method_dealloc(FeedMethod *m) {
    PyObject_GC_UnTrack(m);
    method_clear(m);
    Py_TYPE(m)->tp_free((PyObject *)m);
}

/* On the class: the Python function; on an instance: a bound method of this one. */
static PyObject *method_get(PyObject *self, PyObject *obj, PyObject *Py_UNUSED(type)) {
    FeedMethod *m = (FeedMethod *)self;
    if (obj == NULL || obj == Py_None) return Py_NewRef(m->func);
    return PyMethod_New(self, obj);
}

static PyObject *method_wrapped(FeedMethod *m, void *Py_UNUSED(closure)) { return Py_NewRef(m->func); }
static PyObject *method_name(FeedMethod *m, void *Py_UNUSED(closure)) { return PyObject_GetAttr(m->func, k_dunder_name); }
static PyObject *method_qualname(FeedMethod *m, void *Py_UNUSED(closure)) {
    return PyObject_GetAttr(m->func, k_dunder_qualname);
}

static PyGetSetDef method_getset[] = {
    {"__wrapped__", (getter)method_wrapped, NULL, "the Python method", NULL},
    {"__name__", (getter)method_name, NULL, NULL, NULL},
    {"__qualname__", (getter)method_qualname, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject FeedMethodType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "sluicegate.redaction._native.FeedMethod",
    .tp_basicsize = sizeof(FeedMethod),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_doc = "Redactor.feed's common path, compiled (see _native.c).",
    .tp_new = method_new,
    .tp_dealloc = (destructor)method_dealloc,
    .tp_traverse = (traverseproc)method_traverse,
    .tp_clear = (inquiry)method_clear,
    .tp_vectorcall_offset = offsetof(FeedMethod, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_descr_get = method_get,
    .tp_getset = method_getset,
};

static PyObject *configure(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *pf, *sp, *stype, *sempty;
    Py_ssize_t lookbehind, eager, per_char, pairs_max;
    if (!PyArg_ParseTuple(args, "OOOOnnnn", &pf, &sp, &stype, &sempty, &lookbehind, &eager, &per_char, &pairs_max))
        return NULL;
    if (!PyType_Check(stype)) {
        PyErr_SetString(PyExc_TypeError, "configure: Step must be a class");
        return NULL;
    }
    Py_XDECREF(step_type);
    step_type = Py_NewRef(stype);
    Py_XDECREF(empty_step);
    empty_step = Py_NewRef(sempty);
    Py_XDECREF(pf_module);
    Py_INCREF(pf);
    pf_module = pf;
    Py_XDECREF(special);
    Py_INCREF(sp);
    special = sp;
    memset(special_known, 0, sizeof special_known); /* the memo of `plain_piece` is the old `special`'s */
    memset(special_hit, 0, sizeof special_hit);
    LOOKBEHIND = lookbehind;
    EAGER = eager;
    PER_CHAR = per_char;
    PAIRS_MAX = pairs_max;
    configured = 1;
    Py_RETURN_NONE;
}

static PyObject *whole_starts(PyObject *module, PyObject *args);
static PyObject *py_shape_need(PyObject *module, PyObject *cap);
static int add_keeper(PyObject *m);
static int add_release_one(PyObject *m);
static int add_probe(PyObject *m);
static PyObject *set_near_prefixes(PyObject *module, PyObject *flag);

static PyMethodDef methods[] = {
    {"new_shape", new_shape, METH_VARARGS, "new_shape(states, packed, places) -> a detector's shape (for Feed)"},
    {"new_tables", new_tables, METH_NOARGS, "new_tables() -> the C mirror of one Starters' tables (for Feed)"},
    {"shape_need", py_shape_need, METH_O, "shape_need(shape) -> (character, k) or None: a required character (whole.py)"},
    {"whole_starts", whole_starts, METH_VARARGS, "whole_starts(view, shapes, labelled, tails, window, budget, memo[, owners, table, pair]) -> per shape: candidate ranges or None (whole.py)"},
    {"set_near_prefixes", set_near_prefixes, METH_O, "set_near_prefixes(on) -> the previous setting (see near_prefix_none)"},
    {"configure", configure, METH_VARARGS, "configure(prefilter_module, special_search, Step, EMPTY_STEP, LOOKBEHIND, EAGER, PER_CHAR, PAIRS_MAX)"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "_native", NULL, -1, methods, NULL, NULL, NULL, NULL};

/* STATE: {class name: the attribute names this file reads or writes on its instances}, from the same keys. */
static PyObject *state_fields(void) {
    PyObject *red = PyTuple_Pack(9, k_raw, k_view, k_positions, k_next_check, k_base, k_quick_native, k_is_stopped,
                                 k_done, k_ahead);
    PyObject *tr = PyTuple_Pack(4, k_origin, k_lb, k_seen, k_unsure);
    PyObject *out = red && tr ? Py_BuildValue("{sOsO}", "Redactor", red, "OpenTracker", tr) : NULL;
    Py_XDECREF(red);
    Py_XDECREF(tr);
    return out;
}

PyMODINIT_FUNC PyInit__native(void) {
#define KEY(var, s)                                           \
    if ((var = PyUnicode_InternFromString(s)) == NULL) return NULL;
    KEY(k_raw, "_raw") KEY(k_view, "_view") KEY(k_positions, "_positions") KEY(k_next_check, "_next_check")
    KEY(k_base, "_base") KEY(k_quick_native, "_quick_native") KEY(k_is_stopped, "_stopped") KEY(k_done, "_done")
    KEY(k_ahead, "_ahead") KEY(k_origin, "_origin") KEY(k_lb, "_lb") KEY(k_seen, "_seen") KEY(k_unsure, "_unsure")
    KEY(k_partial, "partial") KEY(k_start, "start") KEY(k_end, "end") KEY(k_min_range, "MIN_RANGE")
    KEY(k_text, "text") KEY(k_stopped, "stopped") KEY(k_events, "events") KEY(k_lookahead, "lookahead")
    KEY(empty_text, "")
#undef KEY
    if ((k_dunder_name = PyUnicode_InternFromString("__name__")) == NULL) return NULL;
    if ((k_dunder_qualname = PyUnicode_InternFromString("__qualname__")) == NULL) return NULL;
    if (PyType_Ready(&FeedType) < 0 || PyType_Ready(&FeedMethodType) < 0) return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (m == NULL) return NULL;
    PyObject *state = state_fields();
    if (state == NULL || PyModule_AddObject(m, "STATE", state) < 0) { Py_XDECREF(state); Py_DECREF(m); return NULL; }
    Py_INCREF(&FeedType);
    if (PyModule_AddObject(m, "Feed", (PyObject *)&FeedType) < 0) { Py_DECREF(&FeedType); Py_DECREF(m); return NULL; }
    Py_INCREF(&FeedMethodType);
    if (PyModule_AddObject(m, "FeedMethod", (PyObject *)&FeedMethodType) < 0) {
        Py_DECREF(&FeedMethodType);
        Py_DECREF(m);
        return NULL;
    }
    if (add_keeper(m) < 0 || add_release_one(m) < 0 || add_probe(m) < 0) { Py_DECREF(m); return NULL; }
    return m;
}

/* A shape's automaton made deterministic as it is read (for `whole_starts`): each state a set of the shape's
   states, its transitions on each ASCII character and on "any other" filled when first taken. The same answers
   as `shape_rules_out`, a table look-up a character instead of a walk over the set. */
#define DFA_MAX 4096
#define DFA_DEAD -2
#define DFA_STOP -3
#define DFA_FULL -4
typedef struct {
    const Shape *sh;
    PyObject *shape_cap;
    Py_ssize_t words, count, cap;
    uint64_t *sets;  /* count * words */
    int32_t *trans;  /* count * classes: -1 not known yet, DFA_DEAD, DFA_STOP, or the next state */
    int classes;     /* the characters (each ASCII one, and 128: any other) that every state reads alike */
    uint8_t cls[129];
    int need, need_k; /* an ASCII character every path reads within its first need_k places, or need = -1 */
    int32_t hash[2 * DFA_MAX];
} Dfa;

static void dfa_free(PyObject *capsule) {
    Dfa *d = (Dfa *)PyCapsule_GetPointer(capsule, "sluicegate.dfa");
    if (d == NULL) return;
    Py_XDECREF(d->shape_cap);
    PyMem_Free(d->sets);
    PyMem_Free(d->trans);
    PyMem_Free(d);
}

static uint32_t dfa_hash(const uint64_t *set, Py_ssize_t words) {
    uint64_t h = 1469598103934665603ULL;
    for (Py_ssize_t w = 0; w < words; w++) h = (h ^ set[w]) * 1099511628211ULL;
    return (uint32_t)(h ^ h >> 29) & (2 * DFA_MAX - 1);
}

/* The state of this set (added if new), or DFA_FULL. */
static int32_t dfa_state(Dfa *d, const uint64_t *set) {
    uint32_t h = dfa_hash(set, d->words);
    while (d->hash[h] >= 0) {
        if (memcmp(&d->sets[d->hash[h] * d->words], set, (size_t)d->words * 8) == 0) return d->hash[h];
        h = (h + 1) & (2 * DFA_MAX - 1);
    }
    if (d->count >= DFA_MAX) return DFA_FULL;
    if (d->count == d->cap) {
        Py_ssize_t cap = d->cap ? 2 * d->cap : 64;
        uint64_t *sets = (uint64_t *)PyMem_Realloc(d->sets, (size_t)(cap * d->words) * 8);
        if (sets == NULL) return DFA_FULL;
        d->sets = sets;
        int32_t *trans = (int32_t *)PyMem_Realloc(d->trans, (size_t)(cap * d->classes) * 4);
        if (trans == NULL) return DFA_FULL;
        d->trans = trans;
        d->cap = cap;
    }
    int32_t id = (int32_t)d->count++;
    memcpy(&d->sets[id * d->words], set, (size_t)d->words * 8);
    for (int k = 0; k < d->classes; k++) d->trans[id * d->classes + k] = -1;
    d->hash[h] = id;
    return id;
}

/* The least k such that no path of the shape reads k characters other than `ch` from its start and stays alive
   without reaching an accepting state (or "anything", state 0) on the way; 0 if there is none within its places.
   A state drops out of the union only where its class is `ch` alone: the union over every other character
   holds the states of any one string of them, so a start with no `ch` in its next k characters is ruled out. */
static Py_ssize_t shape_need_k(const Shape *sh, int ch) {
    uint64_t want[SHAPE_WORDS], got[SHAPE_WORDS];
    Py_ssize_t words = sh->words;
    memcpy(want, sh->first, sizeof want);
    for (Py_ssize_t j = 0; j < sh->places; j++) {
        uint64_t any = 0, stop = 0;
        for (Py_ssize_t w = 0; w < words; w++) {
            uint64_t bits = want[w], g = 0;
            while (bits) {
                int b = __builtin_ctzll(bits);
                bits &= bits - 1;
                const ShapeState *st = &sh->st[w * 64 + b];
                uint64_t lo = st->lo, hi = st->hi;
                if (ch < 64) lo &= ~(1ULL << ch); else hi &= ~(1ULL << (ch - 64));
                if (lo || hi || st->wide) g |= 1ULL << b;
            }
            got[w] = g;
            any |= g;
            stop |= g & sh->stop[w];
        }
        if (!any) return j + 1;
        if (stop) return 0;
        shape_follow(sh, got, want);
    }
    return 0;
}

/* The required character with the least k (`shape_need_k`), among those some state reads alone; -1 if none. */
static void shape_need(const Shape *sh, int *need, int *need_k) {
    *need = -1;
    *need_k = 0;
    uint64_t alone[2] = {0, 0};
    for (Py_ssize_t s = 0; s < sh->count; s++) {
        const ShapeState *st = &sh->st[s];
        if (!st->wide && (st->lo == 0) != (st->hi == 0)) {
            uint64_t x = st->lo ? st->lo : st->hi;
            if ((x & (x - 1)) == 0) alone[st->lo ? 0 : 1] |= x;
        }
    }
    for (int ch = 0; ch < 128; ch++) {
        if (!(alone[ch >> 6] >> (ch & 63) & 1)) continue;
        Py_ssize_t k = shape_need_k(sh, ch);
        if (k > 0 && (*need < 0 || k < *need_k)) {
            *need = ch;
            *need_k = (int)k;
        }
    }
}

/* shape_need(shape) -> (the character, k) or None: what WS_NEED reads off a shape (for tests). */
static PyObject *py_shape_need(PyObject *Py_UNUSED(module), PyObject *cap) {
    const Shape *sh = (const Shape *)PyCapsule_GetPointer(cap, "sluicegate.shape");
    if (sh == NULL) return NULL;
    int need, k;
    shape_need(sh, &need, &k);
    if (need < 0) Py_RETURN_NONE;
    return Py_BuildValue("(Ci)", need, k);
}

static Dfa *dfa_new(PyObject *shape_cap, int classes_on) {
    const Shape *sh = (const Shape *)PyCapsule_GetPointer(shape_cap, "sluicegate.shape");
    if (sh == NULL) return NULL;
    Dfa *d = (Dfa *)PyMem_Calloc(1, sizeof(Dfa));
    if (d == NULL) return (Dfa *)PyErr_NoMemory();
    d->sh = sh;
    d->shape_cap = Py_NewRef(shape_cap);
    d->words = sh->words;
    shape_need(sh, &d->need, &d->need_k);
    /* The character classes: two characters that every state of the shape reads or not alike move every set
       alike (a smaller table, read from the cache: `WS_CLASSES`; else one class per character). */
    uint64_t sig[129][SHAPE_WORDS];
    memset(sig, 0, sizeof sig);
    for (Py_ssize_t s = 0; s < sh->count; s++) {
        const ShapeState *st = &sh->st[s];
        for (int k = 0; k < 129; k++)
            if (k < 64 ? (st->lo >> k & 1) != 0 : k < 128 ? (st->hi >> (k - 64) & 1) != 0 : st->wide != 0)
                sig[k][s >> 6] |= 1ULL << (s & 63);
    }
    d->classes = 0;
    for (int k = 0; k < 129; k++) {
        int same = -1;
        for (int j = 0; j < k && same < 0 && classes_on; j++)
            if (memcmp(sig[j], sig[k], sizeof sig[k]) == 0) same = d->cls[j];
        d->cls[k] = (uint8_t)(same >= 0 ? same : d->classes++);
    }
    for (Py_ssize_t h = 0; h < 2 * DFA_MAX; h++) d->hash[h] = -1;
    if (dfa_state(d, sh->first) != 0) {
        Py_DECREF(d->shape_cap);
        PyMem_Free(d->sets);
        PyMem_Free(d->trans);
        PyMem_Free(d);
        return (Dfa *)PyErr_NoMemory();
    }
    return d;
}

/* The move from state s on character class k (an ASCII character, or 128: any other). */
static int32_t dfa_step(Dfa *d, int32_t s, int k) {
    int32_t t = d->trans[s * d->classes + d->cls[k]];
    if (t != -1) return t;
    const Shape *sh = d->sh;
    uint64_t got[SHAPE_WORDS], want[SHAPE_WORDS], any = 0, stop = 0;
    const uint64_t *set = &d->sets[s * d->words];
    for (Py_ssize_t w = 0; w < d->words; w++) {
        uint64_t bits = set[w], g = 0;
        while (bits) {
            int b = __builtin_ctzll(bits);
            bits &= bits - 1;
            const ShapeState *st = &sh->st[w * 64 + b];
            if (k < 64 ? (st->lo >> k & 1) != 0 : k < 128 ? (st->hi >> (k - 64) & 1) != 0 : st->wide != 0) g |= 1ULL << b;
        }
        got[w] = g;
        any |= g;
        stop |= g & sh->stop[w];
    }
    if (!any)
        t = DFA_DEAD;
    else if (stop)
        t = DFA_STOP;
    else {
        memset(want, 0, sizeof want);
        for (Py_ssize_t w = 0; w < d->words; w++) {
            uint64_t bits = got[w];
            while (bits) {
                int b = __builtin_ctzll(bits);
                bits &= bits - 1;
                const uint64_t *fw = sh->st[w * 64 + b].follow;
                for (Py_ssize_t x = 0; x < d->words; x++) want[x] |= fw[x];
            }
        }
        t = dfa_state(d, want);
        if (t == DFA_FULL) return t; /* (not remembered: the walk falls back to `shape_rules_out`) */
    }
    d->trans[s * d->classes + d->cls[k]] = t;
    return t;
}

/* `shape_rules_out(d->sh, ...)`, by the deterministic automaton. */
static int dfa_rules_out(Dfa *d, int kind, const void *data, Py_ssize_t v, Py_ssize_t n) {
    Py_ssize_t lim = n - v < d->sh->places ? n - v : d->sh->places;
    int32_t s = 0;
    for (Py_ssize_t j = 0; j < lim; j++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, v + j);
        s = dfa_step(d, s, c < 128 ? (int)c : 128);
        if (s == DFA_DEAD) return 1;
        if (s == DFA_STOP) return 0;
        if (s == DFA_FULL) return shape_rules_out(d->sh, kind, data, v, n);
    }
    return 0;
}

/* `dfa_rules_out` on a view of one byte per character: the same walk without the kind's switch. */
static int dfa_rules_out1(Dfa *d, const Py_UCS1 *text, Py_ssize_t v, Py_ssize_t n) {
    Py_ssize_t lim = n - v < d->sh->places ? n - v : d->sh->places;
    const Py_UCS1 *p = text + v;
    int32_t s = 0;
    for (Py_ssize_t j = 0; j < lim; j++) {
        int k = p[j] < 128 ? p[j] : 128;
        int32_t t = d->trans[s * d->classes + d->cls[k]];
        if (t == -1) t = dfa_step(d, s, k);
        if (t == DFA_DEAD) return 1;
        if (t == DFA_STOP) return 0;
        if (t == DFA_FULL) return shape_rules_out(d->sh, PyUnicode_1BYTE_KIND, text, v, n);
        s = t;
    }
    return 0;
}

/* Ways of `whole_starts` (its `mode`; each can be switched off, whole.py `NATIVE_MODE`). */
#define WS_SHAPE_PAIRS 1 /* a table per pair of the shapes (not detectors) that may start there */
#define WS_ONE_BYTE 2    /* `dfa_rules_out1` and the label words' pass by a byte table on a one-byte view */
#define WS_NEED 4        /* a shape's required character (`shape_need_k`) absent from its next k: ruled out */
#define WS_CLASSES 8     /* the automata's moves per class of characters read alike (built with the memo) */
#define WS_FOLD 16       /* label words in any script, compared by `fold`'s case classes */
#define WS_TWO 32        /* a word looked for only where its first two characters may begin it */

/* A character's representative in `fold`'s table (itself where it is not there). */
static Py_UCS4 fold_lookup(const uint32_t *fkey, const uint32_t *fval, Py_UCS4 c) {
    unsigned h = (c * 2654435761u) >> 20;
    while (fkey[h] != 0) {
        if (fkey[h] == c) return fval[h];
        h = (h + 1) & 4095;
    }
    return c;
}

/* whole_starts(view, shapes, labelled, tails, window, budget, memo[, owners, table, pair[, spairs, mode[, fold]]]) -> per shape: merged closed ranges [(a, b), ...] of
   the positions where it does not rule a start out (`shape_rules_out`), or None (no shape, or more than `budget`
   such positions; `memo`: an empty list the first time, which keeps the shapes' deterministic automata for the
   next calls with the same shapes). For a shape whose `labelled` entry is true only the positions within `window` characters
   after the end of an occurrence of one of `tails` (lowercase ASCII, matched on the view lowercased as ASCII, or
   (a word, the length of its tail); at e with its tail starting at a: e <= v <= a + window) are kept (whole.py `_label_spans`; the caller passes
   labelled shapes only for an ASCII view). With `owners` (per shape, the index of its detector), `table` (a
   bytearray of 128 * 128 uint64: per ASCII pair, bit 63 set once known, and the detectors that may start at the
   second character after the first) and `pair(key)` (which answers an unknown pair: starters.py `_pair`), a
   shape is tried only where its owner may start after the character before. whole.py's pure path asks each
   detector only there. `spairs` (a bytearray of 128 * 128 uint64 kept per `shapes` and table, or None) keeps
   per ASCII pair the shapes so allowed (bit 63: known; at most 63 shapes), and `mode` the WS_ ways taken.
   `fold` (bytes of native uint32 pairs: a character >= 128, its representative; with WS_FOLD) lets the words
   be in any script, written in representatives (whole.py `_any_words`). */
static PyObject *whole_starts(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *view, *shapes, *labelled, *tails, *memo, *owners = NULL, *table = NULL, *pair_fn = NULL;
    PyObject *spairs_obj = Py_None, *fold_obj = Py_None;
    Py_ssize_t window, budget;
    int mode = 0;
    if (!PyArg_ParseTuple(args, "UO!O!O!nnO!|O!O!OOiO", &view, &PyTuple_Type, &shapes, &PyTuple_Type, &labelled,
                          &PyTuple_Type, &tails, &window, &budget, &PyList_Type, &memo, &PyTuple_Type, &owners,
                          &PyByteArray_Type, &table, &pair_fn, &spairs_obj, &mode, &fold_obj))
        return NULL;
    if (PyList_GET_SIZE(memo) == 0) { /* the shapes' deterministic automata, kept by the caller between calls */
        PyObject *fresh = PyList_New(0);
        if (fresh == NULL) return NULL;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(shapes); i++) {
            PyObject *cap = PyTuple_GET_ITEM(shapes, i), *got = Py_None;
            if (cap != Py_None) {
                Dfa *d = dfa_new(cap, (mode & WS_CLASSES) != 0);
                if (d == NULL) { Py_DECREF(fresh); return NULL; }
                got = PyCapsule_New(d, "sluicegate.dfa", dfa_free);
                if (got == NULL) {
                    Py_DECREF(d->shape_cap);
                    PyMem_Free(d->sets);
                    PyMem_Free(d->trans);
                    PyMem_Free(d);
                    Py_DECREF(fresh);
                    return NULL;
                }
            } else
                Py_INCREF(got);
            int bad = PyList_Append(fresh, got);
            Py_DECREF(got);
            if (bad < 0) { Py_DECREF(fresh); return NULL; }
        }
        /* (another thread may have filled it meanwhile, where a collection ran Python code: then its own) */
        int bad = PyList_GET_SIZE(memo) == 0 ? PyList_SetSlice(memo, 0, 0, fresh) : 0;
        Py_DECREF(fresh);
        if (bad < 0) return NULL;
    }
    if (PyList_GET_SIZE(memo) != PyTuple_GET_SIZE(shapes)) {
        PyErr_SetString(PyExc_ValueError, "whole_starts: memo is an empty list or the one filled for these shapes");
        return NULL;
    }
    uint64_t *pairs = NULL; /* (prev, ch) -> bit 63: known; the detectors that may start at ch after prev */
    long owner[64];
    if (table != NULL) {
        if (pair_fn == NULL || owners == NULL || PyTuple_GET_SIZE(owners) != PyTuple_GET_SIZE(shapes) ||
            PyByteArray_GET_SIZE(table) != 128 * 128 * 8) {
            PyErr_SetString(PyExc_ValueError, "whole_starts: owners, a 128*128*8-byte table and pair(key) go together");
            return NULL;
        }
        pairs = (uint64_t *)PyByteArray_AS_STRING(table);
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(owners) && i < 64; i++) {
            owner[i] = PyLong_AsLong(PyTuple_GET_ITEM(owners, i));
            if (owner[i] == -1 && PyErr_Occurred()) return NULL;
            if (owner[i] < 0 || owner[i] > 62) {
                PyErr_SetString(PyExc_ValueError, "whole_starts: an owner is a detector index below 63");
                return NULL;
            }
        }
    }
    Py_ssize_t count = PyTuple_GET_SIZE(shapes), n = PyUnicode_GET_LENGTH(view), ntails = PyTuple_GET_SIZE(tails);
    if (count > 64 || PyTuple_GET_SIZE(labelled) != count || window < 0) {
        PyErr_SetString(PyExc_ValueError, "whole_starts: at most 64 shapes, one labelled flag each");
        return NULL;
    }
    uint64_t *spairs = NULL; /* (prev, ch) -> bit 63: known; the shapes that may start at ch after prev */
    if (spairs_obj != Py_None) {
        if (!PyByteArray_Check(spairs_obj) || PyByteArray_GET_SIZE(spairs_obj) != 128 * 128 * 8 || pairs == NULL ||
            count > 63) {
            PyErr_SetString(PyExc_ValueError, "whole_starts: spairs is a 128*128*8-byte table beside table, for at most 63 shapes");
            return NULL;
        }
        if (mode & WS_SHAPE_PAIRS) spairs = (uint64_t *)PyByteArray_AS_STRING(spairs_obj);
    }
    int kind = PyUnicode_KIND(view);
    const void *data = PyUnicode_DATA(view);
    const Shape *sh[64];
    Dfa *dfa[64];
    PyObject *dfa_ref[64] = {NULL}; /* held for the call: another thread may refill `memo` while `pair` runs */
    uint64_t firstlo[64], firsthi[64], wide = 0, lab = 0, byte_mask[128];
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *cap = PyTuple_GET_ITEM(shapes, i);
        sh[i] = cap == Py_None ? NULL : (const Shape *)PyCapsule_GetPointer(cap, "sluicegate.shape");
        if (cap != Py_None && sh[i] == NULL) return NULL;
        PyObject *m = PyList_GET_ITEM(memo, i);
        dfa[i] = m == Py_None ? NULL : (Dfa *)PyCapsule_GetPointer(m, "sluicegate.dfa");
        if (m != Py_None && (dfa[i] == NULL || dfa[i]->shape_cap != cap)) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "whole_starts: memo is for other shapes");
            return NULL;
        }
        int t = PyObject_IsTrue(PyTuple_GET_ITEM(labelled, i));
        if (t < 0) return NULL;
        if (t) lab |= 1ULL << i;
        firstlo[i] = firsthi[i] = 0;
        if (sh[i] == NULL) continue;
        for (Py_ssize_t w = 0; w < sh[i]->words; w++) {
            uint64_t bits = sh[i]->first[w];
            while (bits) {
                int b = __builtin_ctzll(bits);
                bits &= bits - 1;
                const ShapeState *st = &sh[i]->st[w * 64 + b];
                firstlo[i] |= st->lo;
                firsthi[i] |= st->hi;
                if (st->wide) wide |= 1ULL << i;
            }
        }
    }
    for (int c = 0; c < 128; c++) {
        byte_mask[c] = 0;
        for (Py_ssize_t i = 0; i < count; i++)
            if (c < 64 ? firstlo[i] >> c & 1 : firsthi[i] >> (c - 64) & 1) byte_mask[c] |= 1ULL << i;
    }
    /* The label spans, as a count of the ranges covering each position (a difference array). */
    int *cover = NULL;
    if (lab) {
        cover = (int *)PyMem_Calloc((size_t)n + 2, sizeof(int));
        if (cover == NULL) return PyErr_NoMemory();
        if (ntails > 256) {
            PyMem_Free(cover);
            PyErr_SetString(PyExc_ValueError, "whole_starts: at most 256 tails");
            return NULL;
        }
        /* Each entry: a tail (its tail length is its length), or (a word, its tail length), `|` in a word standing
           for one optional `_`, `-` or space between its parts (wholedb.py `label_words`' forms). With `fold`
           (WS_FOLD), a word's characters and the view's are compared as their classes' representatives: an ASCII
           letter as its lowercase, any other character as `fold` maps it (itself if it is not there). */
        Py_UCS4 *tp_of[256];
        Py_ssize_t len_of[256], t_of[256], head[256], next_tail[256];
        uint32_t fkey[4096], fval[4096];
        int folding = fold_obj != Py_None && (mode & WS_FOLD);
        for (int c = 0; c < 256; c++) head[c] = -1;
        for (Py_ssize_t t = 0; t < ntails; t++) tp_of[t] = NULL;
        int bad = 0;
        if (folding) {
            Py_ssize_t size = PyBytes_Check(fold_obj) ? PyBytes_GET_SIZE(fold_obj) : -1;
            if (size < 0 || size % 8 != 0 || size / 8 > 2048) bad = 1;
            memset(fkey, 0, sizeof fkey);
            const uint32_t *pairs_in = bad ? NULL : (const uint32_t *)PyBytes_AS_STRING(fold_obj);
            for (Py_ssize_t j = 0; !bad && j < size / 8; j++) {
                uint32_t key = pairs_in[2 * j], rep = pairs_in[2 * j + 1];
                if (key < 128 || key > 0x10FFFF || rep > 0x10FFFF) {
                    bad = 1;
                    break;
                }
                unsigned h = (key * 2654435761u) >> 20;
                while (fkey[h] != 0 && fkey[h] != key) h = (h + 1) & 4095;
                fkey[h] = key;
                fval[h] = rep;
            }
        }
        for (Py_ssize_t t = 0; t < ntails && !bad; t++) {
            PyObject *e = PyTuple_GET_ITEM(tails, t), *tail = e;
            Py_ssize_t tl = -1;
            if (PyTuple_Check(e) && PyTuple_GET_SIZE(e) == 2) {
                tail = PyTuple_GET_ITEM(e, 0);
                tl = PyLong_AsSsize_t(PyTuple_GET_ITEM(e, 1));
                if (tl == -1 && PyErr_Occurred()) PyErr_Clear();
                if (tl < 0) tail = NULL;
            }
            if (tail == NULL || !PyUnicode_Check(tail) || PyUnicode_GET_LENGTH(tail) < 1 ||
                PyUnicode_READ_CHAR(tail, 0) == '|' || (!folding && (PyUnicode_KIND(tail) != PyUnicode_1BYTE_KIND ||
                                                                     PyUnicode_READ_CHAR(tail, 0) >= 128))) {
                bad = 1;
                break;
            }
            tp_of[t] = PyUnicode_AsUCS4Copy(tail);
            if (tp_of[t] == NULL) {
                bad = 2;
                break;
            }
            len_of[t] = PyUnicode_GET_LENGTH(tail);
            t_of[t] = tl < 0 ? len_of[t] : tl;
        }
        if (bad) {
            for (Py_ssize_t t = 0; t < ntails; t++) PyMem_Free(tp_of[t]);
            PyMem_Free(cover);
            if (bad == 1)
                PyErr_SetString(PyExc_ValueError, "whole_starts: tails are non-empty lowercase ASCII strings or (word, "
                                                  "tail length), fold bytes of (key >= 128, representative) uint32 pairs");
            return NULL;
        }
        for (Py_ssize_t t = ntails - 1; t >= 0; t--) {
            next_tail[t] = head[tp_of[t][0] & 255];
            head[tp_of[t][0] & 255] = t;
        }
        /* WS_TWO: the (first, second) characters some word may begin with, by their low bytes (a word's second
           place is its second character, or one of the separators or its third where its parts are joined). */
        uint8_t two[8192];
        const int two_on = (mode & WS_TWO) != 0;
        memset(two, 0, sizeof two);
        for (Py_ssize_t t = 0; t < ntails; t++) {
            unsigned c0 = tp_of[t][0] & 255;
            const Py_UCS4 *tp = tp_of[t];
            Py_ssize_t len = len_of[t];
            unsigned next[4];
            int m = 0;
            if (len < 2 || (tp[1] == '|' && len < 3)) {
                for (unsigned c1 = 0; c1 < 256; c1++) two[(c0 << 8 | c1) >> 3] |= (uint8_t)(1u << (c1 & 7));
                continue;
            }
            if (tp[1] == '|') {
                next[m++] = '_';
                next[m++] = '-';
                next[m++] = ' ';
                next[m++] = tp[2] & 255;
            } else
                next[m++] = tp[1] & 255;
            for (int j = 0; j < m; j++) two[(c0 << 8 | next[j]) >> 3] |= (uint8_t)(1u << (next[j] & 7));
        }
#define FOLD_OF(x)                                                                                                    \
    ((x) < 128 ? ((x) >= 'A' && (x) <= 'Z' ? (x) + 32 : (x)) : !folding ? (x) : fold_lookup(fkey, fval, (x)))
        /* WS_ONE_BYTE: on a one-byte view each byte's representative from a table of 256 (none: 0x110000). */
        Py_UCS4 fold1[256];
        const Py_UCS1 *bytes1 = (mode & WS_ONE_BYTE) && kind == PyUnicode_1BYTE_KIND ? (const Py_UCS1 *)data : NULL;
        if (bytes1 != NULL)
            for (Py_UCS4 x = 0; x < 256; x++) fold1[x] = x >= 128 && !folding ? 0x110000 : FOLD_OF(x);
        for (Py_ssize_t at = 0; at < n; at++) {
            Py_UCS4 c;
            if (bytes1 != NULL) {
                c = fold1[bytes1[at]];
                if (c == 0x110000) continue;
            } else {
                c = PyUnicode_READ(kind, data, at);
                if (c >= 128 && !folding) continue;
                c = FOLD_OF(c);
            }
            if (head[c & 255] < 0) continue;
            if (two_on && at + 1 < n) {
                Py_UCS4 c1;
                if (bytes1 != NULL)
                    c1 = fold1[bytes1[at + 1]];
                else {
                    c1 = PyUnicode_READ(kind, data, at + 1);
                    c1 = FOLD_OF(c1);
                }
                unsigned key = (c & 255) << 8 | (c1 & 255);
                if (!(two[key >> 3] >> (key & 7) & 1)) continue;
            }
            for (Py_ssize_t t = head[c & 255]; t >= 0; t = next_tail[t]) {
                const Py_UCS4 *tp = tp_of[t];
                if (tp[0] != c) continue;
                Py_ssize_t len = len_of[t], k = 1, pos = at + 1;
                for (; k < len; k++) {
                    if (tp[k] == '|') {
                        if (pos < n) {
                            Py_UCS4 d = PyUnicode_READ(kind, data, pos);
                            if (d == '_' || d == '-' || d == ' ') pos++;
                        }
                        continue;
                    }
                    if (pos >= n) break;
                    Py_UCS4 d = PyUnicode_READ(kind, data, pos);
                    d = FOLD_OF(d);
                    if (d != tp[k]) break;
                    pos++;
                }
                if (k < len) continue;
                Py_ssize_t a = pos, b = pos - t_of[t] + window < n - 1 ? pos - t_of[t] + window : n - 1;
                if (a <= b) {
                    cover[a]++;
                    cover[b + 1]--;
                }
            }
        }
#undef FOLD_OF
        for (Py_ssize_t t = 0; t < ntails; t++) PyMem_Free(tp_of[t]);
        for (Py_ssize_t v = 1; v <= n; v++) cover[v] += cover[v - 1];
    }
    PyObject *lists[64];
    Py_ssize_t found[64], run_a[64], run_b[64];
    for (Py_ssize_t i = 0; i < count; i++) dfa_ref[i] = Py_NewRef(PyList_GET_ITEM(memo, i));
    PyObject *out = NULL;
    /* A cache of characters' own masks for this call (its own: `pair` is Python, so another thread may run a
       pass while this one waits for it). */
    Py_UCS4 *char_key = (Py_UCS4 *)PyMem_Malloc(4096 * sizeof(Py_UCS4));
    uint64_t *char_mask = (uint64_t *)PyMem_Malloc(4096 * sizeof(uint64_t));
    for (Py_ssize_t i = 0; i < count; i++) lists[i] = NULL;
    if (char_key == NULL || char_mask == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (int h = 0; h < 4096; h++) char_key[h] = 0xFFFFFFFF;
    for (Py_ssize_t i = 0; i < count; i++) {
        lists[i] = NULL;
        found[i] = 0;
        run_a[i] = run_b[i] = -2;
    }
    uint64_t live = 0;
    for (Py_ssize_t i = 0; i < count; i++)
        if (sh[i] != NULL) live |= 1ULL << i;
    const int one_byte = (mode & WS_ONE_BYTE) && kind == PyUnicode_1BYTE_KIND, need_on = (mode & WS_NEED) != 0;
    Py_ssize_t next_at[128];
    for (int ch = 0; ch < 128; ch++) next_at[ch] = -1;
    for (Py_ssize_t i = 0; i < count; i++)
        if (live >> i & 1 && (lists[i] = PyList_New(0)) == NULL) goto done;
    for (Py_ssize_t v = 0; v < n && live; v++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, v);
        uint64_t bits = (c < 128 ? byte_mask[c] : wide) & live;
        if (cover != NULL && !cover[v]) bits &= ~lab;
        if (!bits) continue;
        Py_UCS4 pc = v > 0 ? PyUnicode_READ(kind, data, v - 1) : 0x110000;
        if (spairs != NULL && bits && pc < 128 && c < 128) {
            /* The shapes allowed after this pair, known once for every call with these shapes (and the byte
               mask, which depends on the shapes alone); else filled from the detectors' pair answer below. */
            uint64_t *ss = &spairs[pc * 128 + c];
            if (*ss >> 63) {
                bits &= *ss;
                goto tried;
            }
        }
        if (pairs != NULL && bits) {
            /* The starters' pair table (starters.py `_pair`): the character before rules most starts out; where
               it is not ASCII (or there is none), the character's own mask, remembered in a small cache. */
            Py_UCS4 p = pc;
            uint64_t *slot;
            Py_UCS4 key[2] = {p, c};
            int len = 2;
            if (p < 128 && c < 128)
                slot = &pairs[p * 128 + c];
            else {
                unsigned h = (c * 2654435761u) >> 20; /* 12 bits */
                if (char_key[h] != c) {
                    char_key[h] = c;
                    char_mask[h] = 0;
                }
                slot = &char_mask[h];
                key[0] = c;
                len = 1;
            }
            {
                if (!(*slot >> 63)) {
                    PyObject *k = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, key, len);
                    PyObject *r = k == NULL ? NULL : PyObject_CallOneArg(pair_fn, k);
                    Py_XDECREF(k);
                    unsigned long long m = r == NULL ? 0 : PyLong_AsUnsignedLongLongMask(r);
                    Py_XDECREF(r);
                    if (r == NULL || PyErr_Occurred()) goto done;
                    *slot = (m & ~(1ULL << 63)) | 1ULL << 63;
                }
                uint64_t allowed = *slot, keep = 0, b2 = bits;
                if (spairs != NULL && len == 2) {
                    /* every shape the pair allows (the byte mask alone, not this position's live or label cover) */
                    uint64_t all = 0, b3 = byte_mask[c];
                    while (b3) {
                        int i = __builtin_ctzll(b3);
                        b3 &= b3 - 1;
                        if (allowed >> owner[i] & 1) all |= 1ULL << i;
                    }
                    spairs[p * 128 + c] = all | 1ULL << 63;
                    bits &= all;
                    goto tried;
                }
                while (b2) {
                    int i = __builtin_ctzll(b2);
                    b2 &= b2 - 1;
                    if (allowed >> owner[i] & 1) keep |= 1ULL << i;
                }
                bits = keep;
            }
        }
    tried:
        while (bits) {
            int i = __builtin_ctzll(bits);
            bits &= bits - 1;
            if (dfa[i] != NULL && need_on && dfa[i]->need >= 0 && v + dfa[i]->need_k <= n) {
                /* the next occurrence of its required character at or after v (each pointer only moves on) */
                int ch = dfa[i]->need;
                if (next_at[ch] < v) {
                    Py_ssize_t x = v;
                    if (kind == PyUnicode_1BYTE_KIND) {
                        const Py_UCS1 *hit = memchr((const Py_UCS1 *)data + v, ch, (size_t)(n - v));
                        x = hit == NULL ? n : hit - (const Py_UCS1 *)data;
                    } else
                        while (x < n && PyUnicode_READ(kind, data, x) != (Py_UCS4)ch) x++;
                    next_at[ch] = x;
                }
                if (next_at[ch] >= v + dfa[i]->need_k) continue;
            }
            if (dfa[i] != NULL ? (one_byte ? dfa_rules_out1(dfa[i], (const Py_UCS1 *)data, v, n)
                                           : dfa_rules_out(dfa[i], kind, data, v, n))
                               : shape_rules_out(sh[i], kind, data, v, n))
                continue;
            if (++found[i] > budget) { /* too dense: the caller takes the detector's own search */
                live &= ~(1ULL << i);
                Py_CLEAR(lists[i]);
                run_a[i] = -2;
                continue;
            }
            if (run_b[i] == v - 1) {
                run_b[i] = v;
                continue;
            }
            if (run_a[i] >= 0) {
                PyObject *pair = Py_BuildValue("(nn)", run_a[i], run_b[i]);
                if (pair == NULL || PyList_Append(lists[i], pair) < 0) { Py_XDECREF(pair); goto done; }
                Py_DECREF(pair);
            }
            run_a[i] = run_b[i] = v;
        }
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        if (lists[i] != NULL && run_a[i] >= 0) {
            PyObject *pair = Py_BuildValue("(nn)", run_a[i], run_b[i]);
            if (pair == NULL || PyList_Append(lists[i], pair) < 0) { Py_XDECREF(pair); goto done; }
            Py_DECREF(pair);
        }
    }
    out = PyTuple_New(count);
    if (out == NULL) goto done;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyTuple_SET_ITEM(out, i, lists[i] != NULL ? lists[i] : Py_NewRef(Py_None));
        lists[i] = NULL;
    }
done:
    for (Py_ssize_t i = 0; i < count; i++) {
        Py_XDECREF(lists[i]);
        Py_XDECREF(dfa_ref[i]);
    }
    PyMem_Free(char_key);
    PyMem_Free(char_mask);
    PyMem_Free(cover);
    return out;
}


/* `Keeper(fn)`: calls `fn` with the arguments it is called with and keeps its last answer that is not None
   (`.last`, None until then). The compiled feed of a Redactor whose release reuses matches is handed its
   detectors' `match` and `search` behind these (fastpath.compiled_feed), so that `Engine.settle_short` can take
   the complete match a check has just found instead of searching for it again (settle.py, `_reused`: whether a
   kept match stands in for the search is decided there, from the match object's own fields). A vectorcall
   around the engine's call: a few ns a call, and no Python frame. `Keeper(fn, limit)`: an answer is kept only for
   a first argument (the view) of at most `limit` characters, so that a stream keeps no long view alive through
   its kept matches (a settle's view is short: `Engine.settle_short` takes at most 512 characters). */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *fn, *last;
    Py_ssize_t limit; /* -1: any length */
} Keeper;

static PyObject *keeper_call(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Keeper *k = (Keeper *)self;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    PyObject *got = PyObject_Vectorcall(k->fn, args, nargs, kwnames);
    if (got != NULL && got != Py_None &&
        (k->limit < 0 || (nargs >= 1 && PyUnicode_Check(args[0]) && PyUnicode_GET_LENGTH(args[0]) <= k->limit)))
        Py_XSETREF(k->last, Py_NewRef(got));
    return got;
}

static PyObject *keeper_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *fn;
    Py_ssize_t limit = -1;
    if ((kwds != NULL && PyDict_GET_SIZE(kwds) > 0) || !PyArg_ParseTuple(args, "O|n:Keeper", &fn, &limit))
        return NULL;
    if (!PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "Keeper(fn) takes a callable");
        return NULL;
    }
    Keeper *k = (Keeper *)type->tp_alloc(type, 0);
    if (k == NULL) return NULL;
    k->vectorcall = keeper_call;
    k->fn = Py_NewRef(fn);
    k->last = Py_NewRef(Py_None);
    k->limit = limit < 0 ? -1 : limit;
    return (PyObject *)k;
}

static int keeper_traverse(Keeper *k, visitproc visit, void *arg) {
    Py_VISIT(k->fn);
    Py_VISIT(k->last);
    return 0;
}

static int keeper_clear(Keeper *k) {
    Py_CLEAR(k->fn);
    Py_CLEAR(k->last);
    return 0;
}

static void keeper_dealloc(Keeper *k) {
    PyObject_GC_UnTrack(k);
    keeper_clear(k);
    Py_TYPE(k)->tp_free((PyObject *)k);
}

static PyObject *keeper_last(Keeper *k, void *Py_UNUSED(closure)) { return Py_NewRef(k->last); }

static int keeper_set_last(Keeper *k, PyObject *value, void *Py_UNUSED(closure)) {
    Py_XSETREF(k->last, Py_NewRef(value == NULL ? Py_None : value));
    return 0;
}

static PyObject *keeper_fn(Keeper *k, void *Py_UNUSED(closure)) { return Py_NewRef(k->fn); }

static PyGetSetDef keeper_getset[] = {
    {"last", (getter)keeper_last, (setter)keeper_set_last, "the last answer of fn that was not None", NULL},
    {"fn", (getter)keeper_fn, NULL, "the callable", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject KeeperType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "sluicegate.redaction._native.Keeper",
    .tp_basicsize = sizeof(Keeper),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "Keeper(fn[, limit]): fn, keeping its last answer that is not None in .last (see _native.c).",
    .tp_new = keeper_new,
    .tp_dealloc = (destructor)keeper_dealloc,
    .tp_traverse = (traverseproc)keeper_traverse,
    .tp_clear = (inquiry)keeper_clear,
    .tp_vectorcall_offset = offsetof(Keeper, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_getset = keeper_getset,
};

/* Adds `Keeper` to the module (from PyInit__native). 0, or -1 with an exception set. */
static int add_keeper(PyObject *m) {
    if (PyType_Ready(&KeeperType) < 0) return -1;
    Py_INCREF(&KeeperType);
    if (PyModule_AddObject(m, "Keeper", (PyObject *)&KeeperType) < 0) {
        Py_DECREF(&KeeperType);
        return -1;
    }
    return 0;
}


/* `release_one(redactor, point, tracker, counts, operator, keep, kept, info, short_max)`: `Redactor._release_step`'s
   lean release (`Engine.settle_short`, then `_release_plain` and the Step) done here for its common cases, or
   None where it is not one (then nothing has changed and the Python path does it all). The case: the tracker
   knows its bounds (`_unsure`), at most ONE_MAX detectors may have a complete match before `point` (their bounds),
   and for each of them what follows holds (the choice among them is `_choose_lazy`'s, `choose_c`); each is
   a built-in (`info[i]`: (pattern, has a value group `v`, entity, detector, built-in, prefilter, locate); a
   windowed one's `locate` is called as `_choose_lazy` would, for at most ONE_CANDS windows), the range is short (at most `short_max`, and not the prefilter's `MIN_RANGE` when there is a prefilter), the view has no
   position map, and the kept match of each (`kept[i]`: fastpath.keepers) is the search from its bound
   (settle._reused's test, field by field), starts before `point`, and no other match of it starts before `point`
   (one search from its end, where that is before the point); then `_choose`'s pull-back (a match still open at
   the end of the view, or straddling the point, moves the point back to its start). Then, as the Python path: `keep(detector, value)`,
   the operator on the raw value, the count, the released text, the state moved on, a Step. Why: on the settling
   feeds of logs and JSON this path's Python (a mask, a settle, a release, two objects) was most of the release. */
static PyObject *k1_string, *k1_re, *k1_pos, *k1_endpos, *k1_span, *k1_last, *k1_v, *k1_search;

static int k1_init(void) {
    if (k1_v != NULL) return 0;
#define K1(var, s) if ((var = PyUnicode_InternFromString(s)) == NULL) return -1;
    K1(k1_string, "string") K1(k1_re, "re") K1(k1_pos, "pos") K1(k1_endpos, "endpos") K1(k1_span, "span")
    K1(k1_last, "last") K1(k1_search, "search") K1(k1_v, "v")
#undef K1
    return 0;
}

/* An int attribute of `obj` (a match's pos, endpos) or a no-argument method's int answer (start, end). 0, or -1
   (an exception may be set). */
static int int_attr(PyObject *obj, PyObject *name, int call, Py_ssize_t *out) {
    PyObject *v = call ? PyObject_CallMethodNoArgs(obj, name) : PyObject_GetAttr(obj, name);
    if (v == NULL) return -1;
    *out = PyLong_AsSsize_t(v);
    Py_DECREF(v);
    return *out == -1 && PyErr_Occurred() ? -1 : 0;
}

/* settle._reused(m, view, pattern, at) is m: 1 yes, 0 no, -1 error. */
static int reusable(PyObject *m, PyObject *view, PyObject *pattern, Py_ssize_t at, Py_ssize_t *start, Py_ssize_t *end) {
    if (m == Py_None) return 0;
    PyObject *s = PyObject_GetAttr(m, k1_string);
    if (s == NULL) return -1;
    Py_DECREF(s);
    if (s != view) return 0;
    PyObject *re = PyObject_GetAttr(m, k1_re);
    if (re == NULL) return -1;
    Py_DECREF(re);
    if (re != pattern) return 0;
    Py_ssize_t pos, endpos;
    if (int_attr(m, k1_pos, 0, &pos) < 0 || int_attr(m, k_start, 1, start) < 0) return -1;
    if (!(pos <= at && at <= *start)) return 0;
    if (int_attr(m, k1_endpos, 0, &endpos) < 0) return -1;
    if (endpos != PyUnicode_GET_LENGTH(view)) return 0;
    PyObject *partial = PyObject_GetAttr(m, k_partial);
    if (partial == NULL) return -1;
    int is_partial = PyObject_IsTrue(partial);
    Py_DECREF(partial);
    if (is_partial) return is_partial < 0 ? -1 : 0;
    return int_attr(m, k_end, 1, end) < 0 ? -1 : 1;
}

/* One detector's match in `release_one`: its detector index (= its priority: `Engine._priority`), the kept match,
   its span. */
typedef struct {
    long i;
    PyObject *m; /* a new reference */
    Py_ssize_t start, end;
} OneMatch;

/* A candidate value of `_choose`: its span, its detector index (priority). */
typedef struct {
    Py_ssize_t a, b;
    long i;
} OneCand;

#define ONE_MAX 4    /* detectors with a bound before the point */
#define ONE_CANDS 16 /* candidate values */

/* Does candidate x sort before y in `_choose`'s order (start, longest, priority)? */
static int cand_before(const OneCand *x, const OneCand *y) {
    if (x->a != y->a) return x->a < y->a;
    if (x->a - x->b != y->a - y->b) return x->a - x->b < y->a - y->b;
    if (x->i != y->i) return x->i < y->i;
    return x->b < y->b;
}

/* Push the candidates of match `om` (its `locate`'s windows, its value group's span or its own) onto `ready`.
   1 done, 0 not this path's case (too many), -1 error. */
static int push_cands(OneMatch *om, PyObject *row, PyObject *view, OneCand *ready, int *nready) {
    PyObject *locate = PyTuple_GET_ITEM(row, 6);
    if (locate != Py_None) {
        PyObject *g = PyUnicode_Substring(view, om->start, om->end);
        PyObject *spans = g ? PyObject_CallOneArg(locate, g) : NULL;
        Py_XDECREF(g);
        if (spans == NULL) return -1;
        if (!PyList_CheckExact(spans)) { Py_DECREF(spans); return 0; }
        for (Py_ssize_t k = 0; k < PyList_GET_SIZE(spans); k++) {
            PyObject *w = PyList_GET_ITEM(spans, k);
            if (!PyTuple_CheckExact(w) || PyTuple_GET_SIZE(w) != 2 || *nready >= ONE_CANDS) {
                Py_DECREF(spans);
                return 0;
            }
            Py_ssize_t a = PyLong_AsSsize_t(PyTuple_GET_ITEM(w, 0)), b = PyLong_AsSsize_t(PyTuple_GET_ITEM(w, 1));
            if (PyErr_Occurred()) { Py_DECREF(spans); return -1; }
            ready[*nready].a = om->start + a;
            ready[*nready].b = om->start + b;
            ready[*nready].i = om->i;
            (*nready)++;
        }
        Py_DECREF(spans);
        return 1;
    }
    Py_ssize_t a = om->start, b = om->end;
    if (PyTuple_GET_ITEM(row, 1) == Py_True) { /* the value group's span */
        PyObject *sp = PyObject_CallMethodOneArg(om->m, k1_span, k1_v);
        if (sp == NULL) return -1;
        if (!PyTuple_CheckExact(sp) || PyTuple_GET_SIZE(sp) != 2) { Py_DECREF(sp); return 0; }
        a = PyLong_AsSsize_t(PyTuple_GET_ITEM(sp, 0));
        b = PyLong_AsSsize_t(PyTuple_GET_ITEM(sp, 1));
        Py_DECREF(sp);
        if (PyErr_Occurred()) return -1;
    }
    if (*nready >= ONE_CANDS) return 0;
    ready[*nready].a = a;
    ready[*nready].b = b;
    ready[*nready].i = om->i;
    (*nready)++;
    return 1;
}

/* The findings of `release_one`'s matches, as `Engine._choose_lazy` chooses them (the same order of candidates, `keep`
   asked only of one that would be taken): into `found` (at most ONE_MAX). 1 done, 0 not this path's case, -1
   error. `ms` sorted by start. */
static int choose_c(OneMatch *ms, int nm, PyObject *info, PyObject *view, PyObject *keep, OneCand *found, int *nfound) {
    OneCand ready[ONE_CANDS];
    int nready = 0, j = 0;
    Py_ssize_t last = -1;
    *nfound = 0;
    for (;;) {
        for (;;) { /* locate every pending match that starts at or before the best waiting candidate */
            if (j >= nm) break;
            if (nready) {
                int best = 0;
                for (int t = 1; t < nready; t++)
                    if (cand_before(&ready[t], &ready[best])) best = t;
                if (ms[j].start > ready[best].a) break;
            }
            OneMatch *om = &ms[j++];
            if (om->end <= last) continue;
            int r = push_cands(om, PyTuple_GET_ITEM(info, om->i), view, ready, &nready);
            if (r <= 0) return r;
        }
        if (!nready) return 1;
        int best = 0;
        for (int t = 1; t < nready; t++)
            if (cand_before(&ready[t], &ready[best])) best = t;
        OneCand c = ready[best];
        ready[best] = ready[--nready];
        if (c.a < last || c.a >= c.b) continue;
        PyObject *value = PyUnicode_Substring(view, c.a, c.b);
        if (value == NULL) return -1;
        PyObject *ka[2] = {PyTuple_GET_ITEM(PyTuple_GET_ITEM(info, c.i), 3), value};
        PyObject *ok = PyObject_Vectorcall(keep, ka, 2, NULL);
        Py_DECREF(value);
        if (ok == NULL) return -1;
        int yes = PyObject_IsTrue(ok);
        Py_DECREF(ok);
        if (yes < 0) return -1;
        if (!yes) continue;
        if (*nfound >= ONE_MAX) return 0;
        found[(*nfound)++] = c;
        last = c.b;
    }
}

static PyObject *release_one_body(PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 9) {
        PyErr_SetString(PyExc_TypeError,
                        "release_one(redactor, point, tracker, counts, operator, keep, kept, info, short_max)");
        return NULL;
    }
    if (k1_init() < 0) return NULL;
    if (!configured) Py_RETURN_NONE;
    PyObject *self = args[0], *tracker = args[2], *counts = args[3], *op = args[4], *keep = args[5];
    PyObject *kept = args[6], *info = args[7];
    Py_ssize_t point = PyLong_AsSsize_t(args[1]), short_max = PyLong_AsSsize_t(args[8]);
    if ((point == -1 || short_max == -1) && PyErr_Occurred()) return NULL;
    if (!PyDict_CheckExact(counts) || !PyTuple_CheckExact(kept) || !PyTuple_CheckExact(info)) Py_RETURN_NONE;
    PyObject *d = instance_dict(self), *td = instance_dict(tracker);
    if (d == NULL || td == NULL) Py_RETURN_NONE;
    PyObject *positions = item(d, k_positions), *raw = item(d, k_raw), *view = item(d, k_view);
    if (positions != Py_None || raw == NULL || view == NULL || !PyUnicode_CheckExact(raw) || !PyUnicode_CheckExact(view))
        Py_RETURN_NONE;
    Py_ssize_t base, o, unsure, n = PyUnicode_GET_LENGTH(view);
    if (get_ssize(d, k_base, &base) < 0 || get_ssize(td, k_origin, &o) < 0 || get_ssize(td, k_unsure, &unsure) < 0)
        Py_RETURN_NONE;
    if (point <= base || point > n || unsure > base + o || point - base > short_max) Py_RETURN_NONE;
    if (PyUnicode_GET_LENGTH(raw) != n - base) Py_RETURN_NONE; /* (no map: the view's body is the held text) */
    /* With a prefilter (info[i][5]), a range past its MIN_RANGE is its case, not this one (as in settle_short). */
    PyObject *mr = PyObject_GetAttr(pf_module, k_min_range);
    if (mr == NULL) return NULL;
    Py_ssize_t min_range = PyLong_AsSsize_t(mr);
    Py_DECREF(mr);
    if (min_range == -1 && PyErr_Occurred()) return NULL;
    PyObject *lb = item(td, k_lb);
    if (lb == NULL || !PyDict_CheckExact(lb)) Py_RETURN_NONE;
    /* the detectors with a bound before the point (`complete_mask`), at most ONE_MAX */
    long which[ONE_MAX];
    Py_ssize_t bound[ONE_MAX];
    int nd = 0;
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(lb, &pos, &key, &value)) {
        Py_ssize_t at = PyLong_AsSsize_t(value);
        if (at == -1 && PyErr_Occurred()) return NULL;
        if (at < point + o) {
            if (nd >= ONE_MAX) Py_RETURN_NONE;
            long i = PyLong_AsLong(key);
            if (i == -1 && PyErr_Occurred()) return NULL;
            if (i < 0 || i >= PyTuple_GET_SIZE(info) || i >= PyTuple_GET_SIZE(kept)) Py_RETURN_NONE;
            which[nd] = i;
            bound[nd++] = at;
        }
    }
    if (nd == 0) Py_RETURN_NONE;
    OneMatch ms[ONE_MAX];
    int nm = 0;
    PyObject *out = Py_None; /* what to return on leaving early: None (not this path's case) or NULL (an error) */
    for (int t = 0; t < nd; t++) {
        long i = which[t];
        PyObject *row = PyTuple_GET_ITEM(info, i);
        if (!PyTuple_CheckExact(row) || PyTuple_GET_SIZE(row) != 7) goto leave;
        if (PyTuple_GET_ITEM(row, 4) != Py_True) goto leave; /* a custom detector */
        if (PyTuple_GET_ITEM(row, 5) == Py_True && point - base > min_range) goto leave; /* the prefilter's */
        PyObject *pattern = PyTuple_GET_ITEM(row, 0);
        Py_ssize_t at = bound[t] - o > base ? bound[t] - o : base;
        PyObject *pair = PyTuple_GET_ITEM(kept, i);
        if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2) goto leave;
        PyObject *m = NULL;
        Py_ssize_t s = 0, e = 0;
        for (int u = 0; u < 2 && m == NULL; u++) {
            PyObject *last = PyObject_GetAttr(PyTuple_GET_ITEM(pair, u), k1_last);
            if (last == NULL) { out = NULL; goto leave; }
            int r = reusable(last, view, pattern, at, &s, &e);
            if (r < 0) { Py_DECREF(last); out = NULL; goto leave; }
            if (r) m = last;
            else Py_DECREF(last);
        }
        if (m == NULL) goto leave; /* not kept: the Python path searches */
        /* a match before the point (one that starts at or after it: the Python path) */
        if (s >= point || e <= s) { Py_DECREF(m); goto leave; }
        ms[nm].i = i;
        ms[nm].m = m;
        ms[nm].start = s;
        ms[nm++].end = e;
        if (e >= point) continue; /* the next match starts at or after its end: none before the point */
        PyObject *sv = PyLong_FromSsize_t(e);
        PyObject *search = sv ? PyObject_GetAttr(pattern, k1_search) : NULL;
        PyObject *sa[4] = {view, sv, Py_None, Py_False};
        PyObject *nxt = search ? PyObject_Vectorcall(search, sa, 4, NULL) : NULL;
        Py_XDECREF(search);
        Py_XDECREF(sv);
        if (nxt == NULL) { out = NULL; goto leave; }
        int more = 0;
        if (nxt != Py_None) {
            Py_ssize_t ns;
            if (int_attr(nxt, k_start, 1, &ns) < 0) { Py_DECREF(nxt); out = NULL; goto leave; }
            more = ns < point;
        }
        Py_DECREF(nxt);
        if (more) goto leave; /* several matches of one detector: the Python path */
    }
    /* by start, then detector index (the order `_choose_lazy`'s pending list has; starts of one detector differ) */
    for (int t = 1; t < nm; t++) {
        OneMatch x = ms[t];
        int u = t;
        while (u > 0 && (ms[u - 1].start > x.start || (ms[u - 1].start == x.start && ms[u - 1].i > x.i))) {
            ms[u] = ms[u - 1];
            u--;
        }
        ms[u] = x;
    }
    /* the pull-back (`_choose`'s): to the start of any match that straddles the point or is still open at the end
       of the view; then only the matches that start before it are candidates (`ms` is sorted by start) */
    for (;;) {
        Py_ssize_t back = point;
        for (int t = 0; t < nm; t++)
            if (ms[t].start < back && (ms[t].end > back || ms[t].end >= n)) back = ms[t].start;
        if (back == point) break;
        point = back;
    }
    int before = 0;
    while (before < nm && ms[before].start < point) before++;
    OneCand found[ONE_MAX];
    int nf = 0;
    {
        int r = choose_c(ms, before, info, view, keep, found, &nf);
        if (r < 0) { out = NULL; goto leave; }
        if (r == 0) goto leave;
    }
    /* (from here as `_release_plain`) */
    Py_ssize_t cut = point - base;
    PyObject *parts = PyList_New(0);
    if (parts == NULL) { out = NULL; goto leave; }
    Py_ssize_t at = 0;
    for (int t = 0; t < nf; t++) {
        Py_ssize_t ra = found[t].a - base, rb = found[t].b - base;
        PyObject *entity = PyTuple_GET_ITEM(PyTuple_GET_ITEM(info, found[t].i), 2);
        PyObject *p1 = PyUnicode_Substring(raw, at, ra);
        PyObject *rv = PyUnicode_Substring(raw, ra, rb), *vv = PyUnicode_Substring(view, found[t].a, found[t].b);
        PyObject *rep = NULL;
        if (p1 != NULL && rv != NULL && vv != NULL && PyList_Append(parts, p1) == 0) {
            PyObject *oa[3] = {entity, rv, vv};
            rep = PyObject_Vectorcall(op, oa, 3, NULL);
        }
        Py_XDECREF(p1);
        Py_XDECREF(rv);
        Py_XDECREF(vv);
        int bad = rep == NULL || PyList_Append(parts, rep) < 0;
        Py_XDECREF(rep);
        if (!bad) {
            PyObject *have = PyDict_GetItemWithError(counts, entity);
            PyObject *one = have == NULL && PyErr_Occurred() ? NULL : PyLong_FromLong(1);
            PyObject *sum = one == NULL ? NULL : have == NULL ? Py_NewRef(one) : PyNumber_Add(have, one);
            Py_XDECREF(one);
            bad = sum == NULL || PyDict_SetItem(counts, entity, sum) < 0;
            Py_XDECREF(sum);
        }
        if (bad) { Py_DECREF(parts); out = NULL; goto leave; }
        at = rb;
    }
    PyObject *tail = PyUnicode_Substring(raw, at, cut);
    PyObject *text = tail != NULL && PyList_Append(parts, tail) == 0 ? PyUnicode_Join(empty_text, parts) : NULL;
    Py_XDECREF(tail);
    Py_DECREF(parts);
    if (text == NULL) { out = NULL; goto leave; }
    PyObject *rest = PyUnicode_Substring(raw, cut, PyUnicode_GET_LENGTH(raw));
    Py_ssize_t start = point > LOOKBEHIND ? point - LOOKBEHIND : 0;
    PyObject *nview = rest ? PyUnicode_Substring(view, start, n) : NULL;
    if (nview == NULL || PyDict_SetItem(d, k_raw, rest) < 0 || PyDict_SetItem(d, k_view, nview) < 0 ||
        set_ssize(td, k_origin, o + start) < 0 || set_ssize(d, k_base, point - start) < 0) {
        Py_XDECREF(rest);
        Py_XDECREF(nview);
        Py_DECREF(text);
        out = NULL;
        goto leave;
    }
    Py_ssize_t held = PyUnicode_GET_LENGTH(rest);
    Py_DECREF(rest);
    Py_DECREF(nview);
    if (set_ssize(d, k_next_check, held + (held < EAGER ? 1 : held / 4)) < 0) {
        Py_DECREF(text);
        out = NULL;
        goto leave;
    }
    for (int t = 0; t < nm; t++) Py_DECREF(ms[t].m);
    if (PyUnicode_GET_LENGTH(text) == 0) {
        Py_DECREF(text);
        return Py_NewRef(empty_step);
    }
    return make_step(text);
leave:
    for (int t = 0; t < nm; t++) Py_DECREF(ms[t].m);
    return out == NULL ? NULL : Py_NewRef(Py_None);
}

/* `release_one_body` with the held text and the view it reads (borrowed from the instance dict) held for the
   call: `keep` and the operator are Python (a subclass's, a user's callable) and may replace them in the dict, which
   would free the strings the body goes on reading. */
static PyObject *release_one(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs) {
    if (nargs < 1 || k1_init() < 0) return release_one_body(args, nargs);
    PyObject *d = instance_dict(args[0]);
    PyObject *raw = d != NULL ? item(d, k_raw) : NULL;
    Py_XINCREF(raw);
    PyObject *view = d != NULL && !PyErr_Occurred() ? item(d, k_view) : NULL;
    Py_XINCREF(view);
    PyObject *got = PyErr_Occurred() ? NULL : release_one_body(args, nargs);
    Py_XDECREF(raw);
    Py_XDECREF(view);
    return got;
}

static PyMethodDef release_one_def = {
    "release_one", (PyCFunction)(void (*)(void))release_one, METH_FASTCALL,
    "release_one(redactor, point, tracker, counts, operator, keep, kept, info, short_max) -> a Step, or None: "
    "Redactor._release_step's lean release of one finding (see _native.c)"};

/* Adds `release_one` to the module (from PyInit__native). 0, or -1 with an exception set. */
static int add_release_one(PyObject *m) {
    PyObject *fn = PyCFunction_NewEx(&release_one_def, NULL, NULL);
    if (fn == NULL) return -1;
    if (PyModule_AddObject(m, "release_one", fn) < 0) {
        Py_DECREF(fn);
        return -1;
    }
    return 0;
}

/* `Probe(fallback, search, reach, stop, table)`: tracker._open_probe's bounded probe as a vectorcall, without its
   Python frame, and with the alphabet bound (`stop`, a reverse search for the last character the pattern cannot
   read) read off `table` (128 bytes: 1 where an ASCII character is one) while the characters scanned are ASCII.
   The same answer as `fallback` (the Python closure), which it calls for anything but the common call
   `(view: str, pos: int, [endpos=None, concurrent, partial])` with 0 <= pos <= len(view); a non-ASCII character
   met in the scan hands the bound to `stop` itself. Why: after a complete e-mail, IP address or phone number the
   compiled feed probes from its start, and the probe's reverse search over a class with Unicode properties cost
   more than the probe (4 µs of an e-mail's 10 in a JSON document's settling feed: redactor_tail_floor --profile). */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *fallback, *search, *stop; /* stop: None for none */
    Py_ssize_t reach;                   /* -1: none */
    unsigned char table[128];
    int has_table;
} Probe;

static PyObject *probe_call(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Probe *p = (Probe *)self;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    PyObject *endpos = Py_None, *concurrent = Py_None, *partial = Py_False;
    if (nargs < 2 || nargs > 5 || !PyUnicode_CheckExact(args[0]) || !PyLong_CheckExact(args[1]))
        return PyObject_Vectorcall(p->fallback, args, nargsf, kwnames);
    if (nargs >= 3) endpos = args[2];
    if (nargs >= 4) concurrent = args[3];
    if (nargs >= 5) partial = args[4];
    if (kwnames != NULL) {
        for (Py_ssize_t t = 0; t < PyTuple_GET_SIZE(kwnames); t++) {
            PyObject *name = PyTuple_GET_ITEM(kwnames, t), *value = args[nargs + t];
            if (PyUnicode_CompareWithASCIIString(name, "partial") == 0 && nargs < 5) partial = value;
            else if (PyUnicode_CompareWithASCIIString(name, "concurrent") == 0 && nargs < 4) concurrent = value;
            else if (PyUnicode_CompareWithASCIIString(name, "endpos") == 0 && nargs < 3) endpos = value;
            else return PyObject_Vectorcall(p->fallback, args, nargsf, kwnames);
        }
    }
    PyObject *view = args[0];
    Py_ssize_t pos = PyLong_AsSsize_t(args[1]), n = PyUnicode_GET_LENGTH(view);
    if (pos == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return PyObject_Vectorcall(p->fallback, args, nargsf, kwnames);
    }
    if (pos < 0 || pos > n) return PyObject_Vectorcall(p->fallback, args, nargsf, kwnames);
    PyObject *at = NULL; /* the position to search from, when it moved */
    if (endpos == Py_None) {
        if (p->reach >= 0 && pos < n - p->reach) pos = n - p->reach;
        if (p->stop != Py_None && pos < n) {
            int kind = PyUnicode_KIND(view);
            const void *data = PyUnicode_DATA(view);
            Py_ssize_t found = -1, j = n - 1;
            int ascii = p->has_table;
            for (; ascii && j >= pos; j--) {
                Py_UCS4 c = PyUnicode_READ(kind, data, j);
                if (c >= 128) ascii = 0;
                else if (p->table[c]) { found = j + 1; break; }
            }
            if (!ascii) { /* a non-ASCII character (or no table): the reverse search itself */
                PyObject *sv = PyLong_FromSsize_t(pos);
                PyObject *sa[2] = {view, sv};
                PyObject *k = sv ? PyObject_Vectorcall(p->stop, sa, 2, NULL) : NULL;
                Py_XDECREF(sv);
                if (k == NULL) return NULL;
                if (k != Py_None) {
                    PyObject *e = PyObject_CallMethodNoArgs(k, k_end);
                    Py_DECREF(k);
                    if (e == NULL) return NULL;
                    found = PyLong_AsSsize_t(e);
                    Py_DECREF(e);
                    if (found == -1 && PyErr_Occurred()) return NULL;
                } else {
                    Py_DECREF(k);
                }
            }
            if (found >= 0) pos = found;
        }
    }
    at = PyLong_FromSsize_t(pos);
    if (at == NULL) return NULL;
    PyObject *ca[5] = {view, at, endpos, concurrent, partial};
    PyObject *got = PyObject_Vectorcall(p->search, ca, 5, NULL);
    Py_DECREF(at);
    return got;
}

static PyObject *probe_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *fallback, *search, *stop, *table;
    Py_ssize_t reach;
    if ((kwds != NULL && PyDict_GET_SIZE(kwds) > 0) ||
        !PyArg_ParseTuple(args, "OOnOO:Probe", &fallback, &search, &reach, &stop, &table))
        return NULL;
    if (!PyCallable_Check(fallback) || !PyCallable_Check(search) || (stop != Py_None && !PyCallable_Check(stop))) {
        PyErr_SetString(PyExc_TypeError, "Probe(fallback, search, reach, stop, table) takes callables");
        return NULL;
    }
    if (table != Py_None && (!PyBytes_CheckExact(table) || PyBytes_GET_SIZE(table) != 128)) {
        PyErr_SetString(PyExc_TypeError, "Probe: table is 128 bytes or None");
        return NULL;
    }
    Probe *p = (Probe *)type->tp_alloc(type, 0);
    if (p == NULL) return NULL;
    p->vectorcall = probe_call;
    p->fallback = Py_NewRef(fallback);
    p->search = Py_NewRef(search);
    p->stop = Py_NewRef(stop);
    p->reach = reach < 0 ? -1 : reach;
    p->has_table = table != Py_None;
    if (p->has_table) memcpy(p->table, PyBytes_AS_STRING(table), 128);
    return (PyObject *)p;
}

static int probe_traverse(Probe *p, visitproc visit, void *arg) {
    Py_VISIT(p->fallback);
    Py_VISIT(p->search);
    Py_VISIT(p->stop);
    return 0;
}

static int probe_clear(Probe *p) {
    Py_CLEAR(p->fallback);
    Py_CLEAR(p->search);
    Py_CLEAR(p->stop);
    return 0;
}

static void probe_dealloc(Probe *p) {
    PyObject_GC_UnTrack(p);
    probe_clear(p);
    Py_TYPE(p)->tp_free((PyObject *)p);
}

static PyObject *probe_fallback(Probe *p, void *Py_UNUSED(closure)) { return Py_NewRef(p->fallback); }

static PyGetSetDef probe_getset[] = {
    {"fallback", (getter)probe_fallback, NULL, "the Python probe it stands for", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject ProbeType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "sluicegate.redaction._native.Probe",
    .tp_basicsize = sizeof(Probe),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "Probe(fallback, search, reach, stop, table): tracker._open_probe's probe, compiled (see _native.c).",
    .tp_new = probe_new,
    .tp_dealloc = (destructor)probe_dealloc,
    .tp_traverse = (traverseproc)probe_traverse,
    .tp_clear = (inquiry)probe_clear,
    .tp_vectorcall_offset = offsetof(Probe, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_getset = probe_getset,
};

/* Adds `Probe` to the module (from PyInit__native). 0, or -1 with an exception set. */
static int add_probe(PyObject *m) {
    if (PyType_Ready(&ProbeType) < 0) return -1;
    Py_INCREF(&ProbeType);
    if (PyModule_AddObject(m, "Probe", (PyObject *)&ProbeType) < 0) {
        Py_DECREF(&ProbeType);
        return -1;
    }
    return 0;
}

/* Whether some proper prefix view[v:v+j] (j >= 1) of the text after a label start with no label tail before it is
   remembered with the answer "none" (False) in `cache` (the near answers, `near_remember`): then the answer for
   view[v:n] is "none" too. 1 yes, 0 no, -1 error. Why it holds: a near answer is the engine's for that text alone
   (no label before it), and a start none of whose paths reached the end of view[v:v+j] has none that reaches
   further: appending text revives no path (the tracker's first fact, tracker.py; the pattern has no assertion
   that appended text could satisfy, such as \\B: tests/redact/test_near_prefix.py checks both against the
   engine). Why: in logs a timestamp's `:56:12` and a `took=29` are label starts the near check leaves (a label
   word earlier in the line), whose texts after them differ (the whole key missed the cache) but begin alike
   (`:5`): each missed key cost the detector's call, 5-10 µs (a fifth of the logs corpus's top 1% of feeds,
   redactor_tail_floor --profile). */
static int near_prefix_none(PyObject *cache, PyObject *view, Py_ssize_t v, Py_ssize_t n) {
    if (cache == NULL || PyDict_GET_SIZE(cache) == 0) return 0;
    for (Py_ssize_t j = 1; v + j < n; j++) {
        PyObject *key = PyUnicode_Substring(view, v, v + j);
        if (key == NULL) return -1;
        PyObject *got = PyDict_GetItemWithError(cache, key);
        Py_DECREF(key);
        if (got == NULL && PyErr_Occurred()) return -1;
        if (got == Py_False) return 1;
    }
    return 0;
}

static PyObject *set_near_prefixes(PyObject *Py_UNUSED(module), PyObject *flag) {
    int on = PyObject_IsTrue(flag);
    if (on < 0) return NULL;
    int was = near_prefixes;
    near_prefixes = on;
    return PyBool_FromLong(was);
}
