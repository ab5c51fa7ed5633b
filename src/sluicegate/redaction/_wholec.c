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

static PyObject *merge(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyList_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "merge(spans, lo): spans must be a list of (int, int) pairs");
        return NULL;
    }
    long long lo = PyLong_AsLongLong(args[1]);
    if (lo == -1 && PyErr_Occurred())
        return NULL;
    PyObject *spans = args[0];
    Py_ssize_t n = PyList_GET_SIZE(spans);
    Pair *pairs = PyMem_Malloc((n > 0 ? n : 1) * sizeof(Pair));
    if (pairs == NULL)
        return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PyList_GET_ITEM(spans, i);
        if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 2 || !PyLong_Check(PyTuple_GET_ITEM(t, 0)) ||
            !PyLong_Check(PyTuple_GET_ITEM(t, 1))) {
            PyMem_Free(pairs);
            PyErr_SetString(PyExc_TypeError, "merge(spans, lo): spans must be a list of (int, int) pairs");
            return NULL;
        }
        pairs[i].a = PyLong_AsLongLong(PyTuple_GET_ITEM(t, 0));
        pairs[i].b = PyLong_AsLongLong(PyTuple_GET_ITEM(t, 1));
        if (PyErr_Occurred()) {
            PyMem_Free(pairs);
            return NULL;
        }
    }
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
    PyObject *out = PyList_New(m);
    if (out == NULL) {
        PyMem_Free(pairs);
        return NULL;
    }
    for (Py_ssize_t j = 0; j < m; j++) {
        PyObject *t = Py_BuildValue("(LL)", pairs[j].a, pairs[j].b);
        if (t == NULL) {
            Py_DECREF(out);
            PyMem_Free(pairs);
            return NULL;
        }
        PyList_SET_ITEM(out, j, t);
    }
    PyMem_Free(pairs);
    return out;
}

static PyMethodDef methods[] = {
    {"distinct", distinct, METH_O,
     "distinct(text) -> str: the characters of text that are not ASCII, each once, in order of first occurrence"},
    {"merge", (PyCFunction)(void (*)(void))merge, METH_FASTCALL,
     "merge(spans, lo) -> list: sorted, merged closed ranges of (int, int) pairs, clipped to start at lo"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "_wholec", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__wholec(void) { return PyModule_Create(&moduledef); }
