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

static PyMethodDef methods[] = {
    {"distinct", distinct, METH_O,
     "distinct(text) -> str: the characters of text that are not ASCII, each once, in order of first occurrence"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "_wholec", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__wholec(void) { return PyModule_Create(&moduledef); }
