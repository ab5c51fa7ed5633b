/* Small compiled helpers of `redact(text)`'s one pass (whole.py) and the view it reads (normalize.py).

Optional, like _native.c (setup.py builds it with `optional=True`; fastpath.py loads it, or leaves it None under
`SLUICEGATE_PURE=1`): each function answers exactly what the Python it stands in for answers, and the Python
is kept beside it as the reference the tests compare it with.

`distinct(text)`: the distinct characters of `text` that are not ASCII, each once, in the order they first
occur, as a str. It stands in for `set(text)` in `normalize.plain_view` (the ASCII characters are never mapped
or dropped, so `plain_view` need not see them): on 64 KB of prose in other scripts `set(text)` builds a
one-character string object per character (~25 ns each, 1 ms of the whole text's ~4 ms), this reads the
string's own code units. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

/* One bit per code point seen in the current call (cleared again before it returns: only the bits of the
   characters it hands back were set). The GIL is held throughout and no Python code runs in between. */
static uint8_t seen[0x110000 / 8];

static PyObject *distinct(PyObject *Py_UNUSED(module), PyObject *arg) {
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "distinct(text): text must be a str");
        return NULL;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(arg);
    if (PyUnicode_IS_ASCII(arg) || n == 0)
        return PyUnicode_New(0, 0);
    int kind = PyUnicode_KIND(arg);
    const void *data = PyUnicode_DATA(arg);
    Py_ssize_t cap = 64, count = 0;
    Py_UCS4 *out = PyMem_Malloc(cap * sizeof(Py_UCS4));
    if (out == NULL)
        return PyErr_NoMemory();
    Py_UCS4 most = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c < 0x80 || (seen[c >> 3] >> (c & 7)) & 1)
            continue;
        seen[c >> 3] |= (uint8_t)(1u << (c & 7));
        if (count == cap) {
            Py_UCS4 *grown = PyMem_Realloc(out, 2 * cap * sizeof(Py_UCS4));
            if (grown == NULL) {
                for (Py_ssize_t j = 0; j < count; j++)
                    seen[out[j] >> 3] = 0;
                seen[c >> 3] = 0;
                PyMem_Free(out);
                return PyErr_NoMemory();
            }
            out = grown;
            cap *= 2;
        }
        out[count++] = c;
        if (c > most)
            most = c;
    }
    for (Py_ssize_t j = 0; j < count; j++)
        seen[out[j] >> 3] = 0;
    PyObject *got = PyUnicode_New(count, most);
    if (got != NULL) {
        int k = PyUnicode_KIND(got);
        void *d = PyUnicode_DATA(got);
        for (Py_ssize_t j = 0; j < count; j++)
            PyUnicode_WRITE(k, d, j, out[j]);
    }
    PyMem_Free(out);
    return got;
}

/* `merge(spans, lo)`: `prefilter._merge(spans, lo)` (sorted, merged closed ranges clipped to start at lo) for a
list of (int, int) pairs: the pairs sorted as tuples are (by start, then end), then the same loop. Why: wholedb.py
merges each detector's hits (on 64 KB of logs, 570 pairs: a fifth of a millisecond in Python). A pair that is
not two ints that fit in a long long raises (TypeError, OverflowError): the caller then takes the Python form. */
typedef struct {
    long long a, b;
} Pair;

static int pair_cmp(const void *x, const void *y) {
    const Pair *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    if (p->b != q->b)
        return p->b < q->b ? -1 : 1;
    return 0;
}

static PyObject *pairs_list(const Pair *pairs, Py_ssize_t n);
static Py_ssize_t merge_pairs(Pair *pairs, Py_ssize_t n, long long lo);

/* The (int, int) pairs of a list, in a new buffer (PyMem_Free it), or NULL with an exception set (an
OverflowError for a value outside long long or equal to LLONG_MAX, where the callers take the Python form). */
static Pair *parse_pairs(PyObject *spans, Py_ssize_t *count) {
    if (!PyList_Check(spans)) {
        PyErr_SetString(PyExc_TypeError, "spans must be a list of (int, int) pairs");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(spans);
    Pair *pairs = PyMem_Malloc((n > 0 ? n : 1) * sizeof(Pair));
    if (pairs == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PyList_GET_ITEM(spans, i);
        if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 2 || !PyLong_Check(PyTuple_GET_ITEM(t, 0)) ||
            !PyLong_Check(PyTuple_GET_ITEM(t, 1))) {
            PyMem_Free(pairs);
            PyErr_SetString(PyExc_TypeError, "spans must be a list of (int, int) pairs");
            return NULL;
        }
        pairs[i].a = PyLong_AsLongLong(PyTuple_GET_ITEM(t, 0));
        pairs[i].b = PyLong_AsLongLong(PyTuple_GET_ITEM(t, 1));
        if (PyErr_Occurred()) {
            PyMem_Free(pairs);
            return NULL;
        }
        if (pairs[i].a == LLONG_MAX || pairs[i].b == LLONG_MAX) {
            /* (`merge_pairs` reads `b + 1`: refused here, so the caller takes the Python form) */
            PyMem_Free(pairs);
            PyErr_SetString(PyExc_OverflowError, "spans must be below LLONG_MAX");
            return NULL;
        }
    }
    *count = n;
    return pairs;
}

/* `runs(spans) -> (starts, ends)`: whole.py `_places_hold`'s runs of matches, the spans sorted and each joined
to the run before it where it starts inside it (a < that run's end; touching ones are not joined). */
static PyObject *runs(PyObject *Py_UNUSED(module), PyObject *spans) {
    Py_ssize_t n;
    Pair *pairs = parse_pairs(spans, &n);
    if (pairs == NULL)
        return NULL;
    qsort(pairs, (size_t)n, sizeof(Pair), pair_cmp);
    Py_ssize_t m = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (m > 0 && pairs[i].a < pairs[m - 1].b) {
            if (pairs[i].b > pairs[m - 1].b)
                pairs[m - 1].b = pairs[i].b;
        } else {
            pairs[m++] = pairs[i];
        }
    }
    PyObject *starts = PyList_New(m), *ends = PyList_New(m);
    if (starts == NULL || ends == NULL)
        goto fail;
    for (Py_ssize_t j = 0; j < m; j++) {
        PyObject *a = PyLong_FromLongLong(pairs[j].a), *b = PyLong_FromLongLong(pairs[j].b);
        if (a == NULL || b == NULL) {
            Py_XDECREF(a);
            Py_XDECREF(b);
            goto fail;
        }
        PyList_SET_ITEM(starts, j, a);
        PyList_SET_ITEM(ends, j, b);
    }
    PyMem_Free(pairs);
    return Py_BuildValue("(NN)", starts, ends);
fail:
    Py_XDECREF(starts);
    Py_XDECREF(ends);
    PyMem_Free(pairs);
    return NULL;
}

static PyObject *merge(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "merge(spans, lo): spans must be a list of (int, int) pairs");
        return NULL;
    }
    long long lo = PyLong_AsLongLong(args[1]);
    if (lo == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t n;
    Pair *pairs = parse_pairs(args[0], &n);
    if (pairs == NULL)
        return NULL;
    Py_ssize_t m = merge_pairs(pairs, n, lo);
    PyObject *out = pairs_list(pairs, m);
    PyMem_Free(pairs);
    return out;
}

/* The pairs sorted, then merged in place as `prefilter._merge` does; how many are left. */
static Py_ssize_t merge_pairs(Pair *pairs, Py_ssize_t n, long long lo) {
    qsort(pairs, (size_t)n, sizeof(Pair), pair_cmp);
    Py_ssize_t m = 0; /* merged pairs, written over the sorted ones (m <= i) */
    for (Py_ssize_t i = 0; i < n; i++) {
        long long a = pairs[i].a > lo ? pairs[i].a : lo, b = pairs[i].b;
        if (b < a)
            continue;
        if (m > 0 && a <= pairs[m - 1].b + 1) {
            if (b > pairs[m - 1].b)
                pairs[m - 1].b = b;
        } else {
            pairs[m].a = a;
            pairs[m].b = b;
            m++;
        }
    }
    return m;
}

/* `Collector(slots)`: a hyperscan match handler (wholedb.py `_scan`'s `on`) that keeps each hit in C. Why: the
handler is called once per hit (573 times on 64 KB of logs, 361 on JSON); a Python function there, its tuple and
its list's append cost as much again as the scan (a fifth of a millisecond on logs), where this keeps two
integers. `use(meta)` sets what each expression's hits mean: per expression id, four native ints (slot, mode,
K, shortest), mode 0: the pair (start - K, end - shortest); 1 (`_AFTER`): (start + 1, or 0 at the text's start,
end - shortest); 2 (a label word): (end, shortest); 3 (a closing quote): (end, 0). Each slot keeps its pairs in
the order the handler was called: `pairs(slot)` (as the Python handler's lists), `count(slot)`, and
`merged(slot, lo)` (`merge` of them). The handler returns False (go on); an expression id outside `meta`
raises. */
typedef struct {
    PyObject_HEAD Py_ssize_t slots;
    Pair **data;
    Py_ssize_t *len, *cap;
    PyObject *meta; /* a bytes object of 4 ints per expression, kept alive while used */
    Py_ssize_t exprs;
} Collector;

static void collector_dealloc(Collector *self) {
    if (self->data != NULL) {
        for (Py_ssize_t i = 0; i < self->slots; i++)
            PyMem_Free(self->data[i]);
    }
    PyMem_Free(self->data);
    PyMem_Free(self->len);
    PyMem_Free(self->cap);
    Py_XDECREF(self->meta);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int collector_init(Collector *self, PyObject *args, PyObject *kwds) {
    Py_ssize_t slots;
    static char *kwlist[] = {"slots", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "n", kwlist, &slots))
        return -1;
    if (slots < 0 || slots > (1 << 20) || self->data != NULL) {
        PyErr_SetString(PyExc_ValueError, "Collector(slots): 0 <= slots <= 2**20, once");
        return -1;
    }
    self->slots = slots;
    self->data = PyMem_Calloc(slots > 0 ? slots : 1, sizeof(Pair *));
    self->len = PyMem_Calloc(slots > 0 ? slots : 1, sizeof(Py_ssize_t));
    self->cap = PyMem_Calloc(slots > 0 ? slots : 1, sizeof(Py_ssize_t));
    if (self->data == NULL || self->len == NULL || self->cap == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static PyObject *collector_use(Collector *self, PyObject *meta) {
    if (!PyBytes_Check(meta) || PyBytes_GET_SIZE(meta) % (4 * sizeof(int32_t)) != 0) {
        PyErr_SetString(PyExc_TypeError, "use(meta): meta must be bytes of 4 native int32s per expression");
        return NULL;
    }
    Py_ssize_t exprs = PyBytes_GET_SIZE(meta) / (4 * sizeof(int32_t));
    const int32_t *m = (const int32_t *)PyBytes_AS_STRING(meta);
    for (Py_ssize_t e = 0; e < exprs; e++) {
        if (m[4 * e] < 0 || m[4 * e] >= self->slots || m[4 * e + 1] < 0 || m[4 * e + 1] > 3) {
            PyErr_SetString(PyExc_ValueError, "use(meta): a slot outside the collector's, or an unknown mode");
            return NULL;
        }
    }
    Py_INCREF(meta);
    Py_XSETREF(self->meta, meta);
    self->exprs = exprs;
    Py_RETURN_NONE;
}

static PyObject *collector_call(Collector *self, PyObject *args, PyObject *kwds) {
    if (kwds != NULL || !PyTuple_Check(args) || PyTuple_GET_SIZE(args) < 3) {
        PyErr_SetString(PyExc_TypeError, "Collector(id, start, end, ...): three ints at least");
        return NULL;
    }
    unsigned long long id = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(args, 0));
    unsigned long long from = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(args, 1));
    unsigned long long to = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(args, 2));
    if (PyErr_Occurred())
        return NULL;
    if (self->meta == NULL || id >= (unsigned long long)self->exprs || from > (1ULL << 62) || to > (1ULL << 62)) {
        PyErr_SetString(PyExc_ValueError, "Collector: an expression id outside `use`'s meta (or no meta)");
        return NULL;
    }
    const int32_t *m = (const int32_t *)PyBytes_AS_STRING(self->meta) + 4 * id;
    Py_ssize_t slot = m[0];
    long long a, b, s = (long long)from, t = (long long)to;
    switch (m[1]) {
    case 0:
        a = s - m[2];
        b = t - m[3];
        break;
    case 1:
        a = s ? s + 1 : 0;
        b = t - m[3];
        break;
    case 2:
        a = t;
        b = m[3];
        break;
    default:
        a = t;
        b = 0;
    }
    if (self->len[slot] == self->cap[slot]) {
        Py_ssize_t cap = self->cap[slot] ? 2 * self->cap[slot] : 16;
        Pair *grown = PyMem_Realloc(self->data[slot], cap * sizeof(Pair));
        if (grown == NULL)
            return PyErr_NoMemory();
        self->data[slot] = grown;
        self->cap[slot] = cap;
    }
    self->data[slot][self->len[slot]].a = a;
    self->data[slot][self->len[slot]].b = b;
    self->len[slot]++;
    Py_RETURN_FALSE;
}

static int slot_of(Collector *self, PyObject *arg, Py_ssize_t *slot) {
    *slot = PyLong_AsSsize_t(arg);
    if (*slot == -1 && PyErr_Occurred())
        return -1;
    if (*slot < 0 || *slot >= self->slots) {
        PyErr_SetString(PyExc_IndexError, "Collector: no such slot");
        return -1;
    }
    return 0;
}

static PyObject *pairs_list(const Pair *pairs, Py_ssize_t n) {
    PyObject *out = PyList_New(n);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t j = 0; j < n; j++) {
        PyObject *t = Py_BuildValue("(LL)", pairs[j].a, pairs[j].b);
        if (t == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, j, t);
    }
    return out;
}

static PyObject *collector_pairs(Collector *self, PyObject *arg) {
    Py_ssize_t slot;
    if (slot_of(self, arg, &slot) < 0)
        return NULL;
    return pairs_list(self->data[slot], self->len[slot]);
}

static PyObject *collector_count(Collector *self, PyObject *arg) {
    Py_ssize_t slot;
    if (slot_of(self, arg, &slot) < 0)
        return NULL;
    return PyLong_FromSsize_t(self->len[slot]);
}

static PyObject *collector_merged(Collector *self, PyObject *const *args, Py_ssize_t nargs) {
    Py_ssize_t slot;
    if (nargs != 2 || slot_of(self, args[0], &slot) < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "merged(slot, lo)");
        return NULL;
    }
    long long lo = PyLong_AsLongLong(args[1]);
    if (lo == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t n = self->len[slot];
    Pair *copy = PyMem_Malloc((n > 0 ? n : 1) * sizeof(Pair));
    if (copy == NULL)
        return PyErr_NoMemory();
    if (n > 0)
        memcpy(copy, self->data[slot], n * sizeof(Pair));
    Py_ssize_t m = merge_pairs(copy, n, lo);
    PyObject *out = pairs_list(copy, m);
    PyMem_Free(copy);
    return out;
}

static PyMethodDef collector_methods[] = {
    {"use", (PyCFunction)collector_use, METH_O, "use(meta): what each expression id's hits mean (see the type)"},
    {"pairs", (PyCFunction)collector_pairs, METH_O, "pairs(slot) -> list of (int, int), in the order kept"},
    {"count", (PyCFunction)collector_count, METH_O, "count(slot) -> int"},
    {"merged", (PyCFunction)(void (*)(void))collector_merged, METH_FASTCALL,
     "merged(slot, lo) -> list: merge(pairs(slot), lo)"},
    {NULL, NULL, 0, NULL}};

static PyTypeObject CollectorType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "sluicegate.redaction._wholec.Collector",
    .tp_basicsize = sizeof(Collector),
    .tp_dealloc = (destructor)collector_dealloc,
    .tp_call = (ternaryfunc)collector_call,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Collector(slots): a hyperscan match handler that keeps each hit's pair in C (see _wholec.c)",
    .tp_methods = collector_methods,
    .tp_init = (initproc)collector_init,
    .tp_new = PyType_GenericNew,
};

/* `matches_in(match, fallback, search, view, spans, first, point, long_span)`: `prefilter.matches_in` (what
`finditer(view, first)` yields before `point`, asked only at the candidate spans) with its loop in C: `match(view,
s)`, or `fallback(view, s)` where that returns None and `fallback` is not None (whole.py `_quick`: a stdlib
pattern of the first alternative, then the detector's own); `search(view, s)` on a span at least `long_span`
long, remembered for the later positions it answers. Why: on 64 KB of logs the Python loop's own work per span
(570 spans, most asked once) cost as much as the engine's match there. */
static PyObject *call2(PyObject *f, PyObject *view, Py_ssize_t s) {
    PyObject *pos = PyLong_FromSsize_t(s);
    if (pos == NULL)
        return NULL;
    PyObject *argv[2] = {view, pos};
    PyObject *got = PyObject_Vectorcall(f, argv, 2, NULL);
    Py_DECREF(pos);
    return got;
}

static int match_pos(PyObject *m, PyObject *name, Py_ssize_t *out) {
    PyObject *got = PyObject_CallMethodNoArgs(m, name);
    if (got == NULL)
        return -1;
    *out = PyLong_AsSsize_t(got);
    Py_DECREF(got);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

static PyObject *str_start, *str_end;

static PyObject *matches_in(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 8 || !PyList_Check(args[4])) {
        PyErr_SetString(PyExc_TypeError,
                        "matches_in(match, fallback, search, view, spans, first, point, long_span): spans a list");
        return NULL;
    }
    PyObject *match = args[0], *fallback = args[1] == Py_None ? NULL : args[1], *search = args[2];
    PyObject *view = args[3], *spans = args[4];
    Py_ssize_t first = PyLong_AsSsize_t(args[5]), point = PyLong_AsSsize_t(args[6]);
    Py_ssize_t long_span = PyLong_AsSsize_t(args[7]);
    if (PyErr_Occurred())
        return NULL;
    PyObject *found = PyList_New(0);
    if (found == NULL)
        return NULL;
    Py_ssize_t at = first, known_from = -1, known_start = 0;
    PyObject *known = NULL; /* search(view, known_from), a new reference, or NULL for None */
    Py_ssize_t n = PyList_GET_SIZE(spans);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PyList_GET_ITEM(spans, i);
        if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 2) {
            PyErr_SetString(PyExc_TypeError, "matches_in: spans must be (int, int) pairs");
            goto fail;
        }
        Py_ssize_t a = PyLong_AsSsize_t(PyTuple_GET_ITEM(t, 0)), b = PyLong_AsSsize_t(PyTuple_GET_ITEM(t, 1));
        if (PyErr_Occurred())
            goto fail;
        if (a >= point)
            break;
        Py_ssize_t s = a > at ? a : at;
        Py_ssize_t end = b < point - 1 ? b : point - 1;
        while (s <= end) {
            PyObject *m; /* a new reference, or Py_None (new) */
            if (known_from >= 0 && known_from <= s && (known == NULL || s <= known_start)) {
                m = known != NULL ? known : Py_None;
                Py_INCREF(m);
            } else if (end - s >= long_span) {
                PyObject *got = call2(search, view, s);
                if (got == NULL)
                    goto fail;
                Py_XDECREF(known);
                known = NULL;
                known_from = s;
                if (got != Py_None) {
                    known = got;
                    Py_INCREF(got);
                    if (match_pos(got, str_start, &known_start) < 0) {
                        Py_DECREF(got);
                        goto fail;
                    }
                }
                m = got;
            } else {
                m = call2(match, view, s);
                if (m == NULL)
                    goto fail;
                if (m == Py_None && fallback != NULL) {
                    Py_DECREF(m);
                    m = call2(fallback, view, s);
                    if (m == NULL)
                        goto fail;
                }
                if (m == Py_None) {
                    Py_DECREF(m);
                    s += 1;
                    continue;
                }
            }
            if (m == Py_None) { /* no match starts at or after s */
                Py_DECREF(m);
                Py_XDECREF(known);
                return found;
            }
            Py_ssize_t ms, me;
            if (match_pos(m, str_start, &ms) < 0 || match_pos(m, str_end, &me) < 0) {
                Py_DECREF(m);
                goto fail;
            }
            if (ms > end) {
                Py_DECREF(m);
                break;
            }
            int bad = PyList_Append(found, m);
            Py_DECREF(m);
            if (bad < 0)
                goto fail;
            at = s = me;
        }
    }
    Py_XDECREF(known);
    return found;
fail:
    Py_XDECREF(known);
    Py_DECREF(found);
    return NULL;
}

static PyMethodDef methods[] = {
    {"distinct", distinct, METH_O,
     "distinct(text) -> str: the characters of text that are not ASCII, each once, in order of first occurrence"},
    {"matches_in", (PyCFunction)(void (*)(void))matches_in, METH_FASTCALL,
     "matches_in(match, fallback, search, view, spans, first, point, long_span) -> list: prefilter.matches_in"},
    {"runs", runs, METH_O, "runs(spans) -> (starts, ends): the spans sorted, overlapping ones joined"},
    {"merge", (PyCFunction)(void (*)(void))merge, METH_FASTCALL,
     "merge(spans, lo) -> list: sorted, merged closed ranges of (int, int) pairs, clipped to start at lo"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "_wholec", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__wholec(void) {
    if (PyType_Ready(&CollectorType) < 0)
        return NULL;
    str_start = PyUnicode_InternFromString("start");
    str_end = PyUnicode_InternFromString("end");
    if (str_start == NULL || str_end == NULL)
        return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&CollectorType);
    if (PyModule_AddObject(m, "Collector", (PyObject *)&CollectorType) < 0) {
        Py_DECREF(&CollectorType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
