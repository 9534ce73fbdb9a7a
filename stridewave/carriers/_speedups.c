/*
 * stridewave.carriers._speedups: the scalar paths of Carrier, and the CPU device's
 * two-operand ufunc call, in C (optional).
 *
 * One base type of Carrier, built at import by scalar_base() from the pure-Python
 * scalar methods (stridewave/carriers/_base.py, class _ScalarPath). It holds the
 * carrier's hot state in its struct (_gate, _released, _version, _slots, the
 * fast-path bounds and the scalar accessor _slot_store) and implements get_value,
 * set_value, __getitem__ and __setitem__ for the common case only:
 *
 *   a cached buffer (the accessor is an exact memoryview, 1-D, contiguous, of native
 *   format 'f', 'i' or '?'), an exact int index in [0, _slots), and for a write an
 *   open gate and a value of exactly _fast_type within [_fast_low, _fast_high].
 *
 * Anything else calls the pure-Python method it replaces, so messages, their order
 * and the lock/gate protocol live in one place. The docstrings are the Python
 * methods' own (given to scalar_base). The GIL is held for the whole fast path and
 * nothing in it can run Python code, so it is atomic with respect to every other
 * Python thread: no move can overlap it (docs/threads-and-processes.md).
 *
 * host_binary() (below) builds the second: the common case of one call of the array
 * API's CPU device, with the pure-Python closure as its fallback.
 *
 * Limited API 3.11 (abi3): one build serves CPython 3.11 and later (not the
 * free-threaded builds, which load no abi3 module).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <string.h>
#if PY_VERSION_HEX < 0x030C0000
#include <structmember.h>
#define SW_T_OBJECT_EX T_OBJECT_EX
#else
#define SW_T_OBJECT_EX Py_T_OBJECT_EX
#endif

/* storage kinds: the memoryview format of the cached buffer, and the fast type */
enum { KIND_NONE = 0, KIND_F32 = 1, KIND_I32 = 2, KIND_BOOL = 3 };

typedef struct {
    PyObject_HEAD
    /* Python objects, read and written from Python as plain attributes (slot members:
       as fast as instance attributes for the pure-Python code); NULL until set */
    PyObject *gate;      /* _gate: None (closed) or a token object */
    PyObject *released;  /* _released: bool */
    PyObject *version;   /* _version: int */
    PyObject *slots;     /* _slots: int */
    PyObject *fast_type; /* _fast_type */
    PyObject *fast_low;  /* _fast_low */
    PyObject *fast_high; /* _fast_high */
    PyObject *store;     /* _slot_store: the accessor (a getset: its setter caches) */
    /* the cache of _slot_store (C only) */
    Py_buffer view;      /* held while kind != KIND_NONE */
    int kind;            /* format of the cached buffer */
    int writable;
    char *buf;
    Py_ssize_t length;
} Core;

/* the pure-Python methods: the fallbacks (set by scalar_base) */
static PyObject *py_get_value = NULL;
static PyObject *py_set_value = NULL;
static PyObject *py_getitem = NULL;
static PyObject *py_setitem = NULL;

/* -- the cached buffer --------------------------------------------------------------- */

static int
classify(const Py_buffer *view)
{
    const char *f = view->format;
    if (view->ndim != 1 || view->shape == NULL || view->suboffsets != NULL || f == NULL
        || f[0] == '\0' || f[1] != '\0') {
        return KIND_NONE;
    }
    if (view->strides != NULL && view->strides[0] != view->itemsize) {
        return KIND_NONE;
    }
    if (f[0] == 'f' && view->itemsize == 4 && sizeof(float) == 4) {
        return KIND_F32;
    }
    if (f[0] == 'i' && view->itemsize == 4 && sizeof(int) == 4) {
        return KIND_I32;
    }
    if (f[0] == '?' && view->itemsize == 1) {
        return KIND_BOOL;
    }
    return KIND_NONE;
}

static void
drop_cache(Core *self)
{
    if (self->kind != KIND_NONE) {
        self->kind = KIND_NONE;
        self->buf = NULL;
        self->length = 0;
        PyBuffer_Release(&self->view);
    }
}

static PyObject *
store_get(Core *self, void *closure)
{
    if (self->store == NULL) {
        PyErr_SetString(PyExc_AttributeError, "_slot_store");
        return NULL;
    }
    Py_INCREF(self->store);
    return self->store;
}

static int
store_set(Core *self, PyObject *value, void *closure)
{
    Py_buffer fresh;
    int kind = KIND_NONE;
    PyObject *old;
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete _slot_store");
        return -1;
    }
    if (PyMemoryView_Check(value)) {
        if (PyObject_GetBuffer(value, &fresh, PyBUF_RECORDS_RO) == 0) {
            kind = classify(&fresh);
            if (kind == KIND_NONE) {
                PyBuffer_Release(&fresh);
            }
        }
        else {
            PyErr_Clear(); /* a released memoryview: no cache, the Python path decides */
        }
    }
    /* Take the new buffer before letting the old one go; nothing here runs Python code
       until the state is whole again (the decref of the old accessor comes last). */
    drop_cache(self);
    if (kind != KIND_NONE) {
        self->view = fresh;
        self->buf = (char *)fresh.buf;
        self->length = fresh.shape[0];
        self->writable = !fresh.readonly;
        self->kind = kind;
    }
    old = self->store;
    Py_INCREF(value);
    self->store = value;
    Py_XDECREF(old);
    return 0;
}

/* -- the scalar paths ---------------------------------------------------------------- */

/* Return the slot of an exact-int index inside the cached buffer and [0, _slots), or -1. */
static Py_ssize_t
fast_index(Core *self, PyObject *index)
{
    Py_ssize_t i, slots;
    if (self->kind == KIND_NONE || !PyLong_CheckExact(index)) {
        return -1;
    }
    i = PyLong_AsSsize_t(index);
    if (i == -1 && PyErr_Occurred()) {
        PyErr_Clear(); /* beyond Py_ssize_t: the Python path names it out of range */
        return -1;
    }
    if (i < 0 || i >= self->length || self->slots == NULL || !PyLong_CheckExact(self->slots)) {
        return -1;
    }
    slots = PyLong_AsSsize_t(self->slots);
    if (slots == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return -1;
    }
    return i < slots ? i : -1;
}

/* Read slot i of the cached buffer as a Python scalar (as memoryview does). */
static PyObject *
read_slot(Core *self, Py_ssize_t i)
{
    switch (self->kind) {
    case KIND_F32: {
        float f;
        memcpy(&f, self->buf + 4 * i, 4);
        return PyFloat_FromDouble((double)f);
    }
    case KIND_I32: {
        int v;
        memcpy(&v, self->buf + 4 * i, 4);
        return PyLong_FromLong((long)v);
    }
    default: {
        unsigned char b = (unsigned char)self->buf[i];
        return PyBool_FromLong(b != 0);
    }
    }
}

/* The storage kind whose fast path _fast_type names (exact type identity). */
static int
fast_kind(Core *self)
{
    PyObject *t = self->fast_type;
    if (t == (PyObject *)&PyFloat_Type) {
        return KIND_F32;
    }
    if (t == (PyObject *)&PyLong_Type) {
        return KIND_I32;
    }
    if (t == (PyObject *)&PyBool_Type) {
        return KIND_BOOL;
    }
    return KIND_NONE;
}

/* An exact-int bound (int or bool, compared as integers) into *out; 0 if not one. */
static int
int_bound(PyObject *bound, long long *out)
{
    int overflow = 0;
    if (bound == NULL || !PyLong_Check(bound)) {
        return 0;
    }
    *out = PyLong_AsLongLongAndOverflow(bound, &overflow);
    if (overflow || (*out == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return 0;
    }
    return 1;
}

/* The bytes a fast-path value stores: a binary32, an int32 or a bool byte. */
typedef union {
    float f;
    int i;
    unsigned char b;
} Packed;

/* Pack value if it takes the fast path; return 1 if packed, else 0 (nothing raised).
   Python's test: type(value) is _fast_type and _fast_low <= value <= _fast_high. */
static int
pack_value(Core *self, PyObject *value, Packed *out)
{
    if (!self->writable || fast_kind(self) != self->kind) {
        return 0;
    }
    switch (self->kind) {
    case KIND_F32: {
        double x, low, high;
        if (!PyFloat_CheckExact(value) || self->fast_low == NULL || self->fast_high == NULL
            || !PyFloat_CheckExact(self->fast_low) || !PyFloat_CheckExact(self->fast_high)) {
            return 0;
        }
        x = PyFloat_AsDouble(value);
        low = PyFloat_AsDouble(self->fast_low);
        high = PyFloat_AsDouble(self->fast_high);
        if (!(low <= x && x <= high)) { /* NaN fails too */
            return 0;
        }
        out->f = (float)x; /* the one rounding, as memoryview's pack does */
        return !isinf(out->f); /* always finite with the table's bounds */
    }
    case KIND_I32: {
        int overflow = 0;
        long long v, low, high;
        if (!PyLong_CheckExact(value) || !int_bound(self->fast_low, &low)
            || !int_bound(self->fast_high, &high)) {
            return 0;
        }
        v = PyLong_AsLongLongAndOverflow(value, &overflow);
        if (overflow || (v == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return 0;
        }
        if (v < low || v > high || v < INT_MIN || v > INT_MAX) {
            return 0;
        }
        out->i = (int)v;
        return 1;
    }
    case KIND_BOOL: {
        long long v, low, high;
        if (!PyBool_Check(value) || !int_bound(self->fast_low, &low)
            || !int_bound(self->fast_high, &high)) {
            return 0;
        }
        v = (value == Py_True);
        if (v < low || v > high) {
            return 0;
        }
        out->b = (unsigned char)v;
        return 1;
    }
    default:
        return 0;
    }
}

static PyObject *
call_fallback(PyObject *function, PyObject *self, PyObject *const *args, Py_ssize_t nargs,
              PyObject *kwnames)
{
    PyObject *positional, *keywords = NULL, *result;
    Py_ssize_t j, nkw = kwnames == NULL ? 0 : PyTuple_Size(kwnames);
    if (function == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "stridewave._speedups: scalar_base() was not called");
        return NULL;
    }
    if (nkw == 0 && nargs == 1) { /* the usual shapes: no tuple of our own */
        return PyObject_CallFunctionObjArgs(function, self, args[0], NULL);
    }
    if (nkw == 0 && nargs == 2) {
        return PyObject_CallFunctionObjArgs(function, self, args[0], args[1], NULL);
    }
    positional = PyTuple_New(nargs + 1);
    if (positional == NULL) {
        return NULL;
    }
    Py_INCREF(self);
    PyTuple_SetItem(positional, 0, self);
    for (j = 0; j < nargs; j++) {
        Py_INCREF(args[j]);
        PyTuple_SetItem(positional, j + 1, args[j]);
    }
    if (nkw > 0) {
        keywords = PyDict_New();
        if (keywords == NULL) {
            Py_DECREF(positional);
            return NULL;
        }
        for (j = 0; j < nkw; j++) {
            if (PyDict_SetItem(keywords, PyTuple_GetItem(kwnames, j), args[nargs + j]) < 0) {
                Py_DECREF(positional);
                Py_DECREF(keywords);
                return NULL;
            }
        }
    }
    result = PyObject_Call(function, positional, keywords);
    Py_DECREF(positional);
    Py_XDECREF(keywords);
    return result;
}

static PyObject *
core_get_value(PyObject *op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    Core *self = (Core *)op;
    if (kwnames == NULL && nargs == 1 && self->released == Py_False) {
        Py_ssize_t i = fast_index(self, args[0]);
        if (i >= 0) {
            return read_slot(self, i);
        }
    }
    return call_fallback(py_get_value, op, args, nargs, kwnames);
}

static PyObject *
core_getitem(PyObject *op, PyObject *index)
{
    Core *self = (Core *)op;
    if (self->released == Py_False) {
        Py_ssize_t i = fast_index(self, index);
        if (i >= 0) {
            return read_slot(self, i);
        }
    }
    return PyObject_CallFunctionObjArgs(py_getitem, op, index, NULL);
}

/* 1 when the write took the fast path (stored, version stepped), 0 when the Python path
   must run, -1 on an error (no memory for the new version: nothing was written) */
static int
fast_set(Core *self, PyObject *index, PyObject *value)
{
    Py_ssize_t i;
    long long version;
    int overflow = 0;
    Packed packed;
    PyObject *next, *old;
    if (self->gate == NULL || self->gate == Py_None) { /* closed: the locked path */
        return 0;
    }
    i = fast_index(self, index);
    if (i < 0 || self->version == NULL || !PyLong_CheckExact(self->version)) {
        return 0;
    }
    version = PyLong_AsLongLongAndOverflow(self->version, &overflow);
    if (overflow || version < 0 || version == LLONG_MAX) {
        PyErr_Clear(); /* not a count the fast path steps: the Python path does */
        return 0;
    }
    if (!pack_value(self, value, &packed)) {
        return 0;
    }
    next = PyLong_FromLongLong(version + 1); /* made before the store: all or nothing */
    if (next == NULL) {
        return -1;
    }
    if (self->kind == KIND_BOOL) {
        self->buf[i] = (char)packed.b;
    }
    else {
        memcpy(self->buf + 4 * i, &packed, 4);
    }
    old = self->version;
    self->version = next;
    Py_DECREF(old);
    return 1;
}

static PyObject *
core_set_value(PyObject *op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (kwnames == NULL && nargs == 2) {
        int done = fast_set((Core *)op, args[0], args[1]);
        if (done < 0) {
            return NULL;
        }
        if (done) {
            Py_RETURN_NONE;
        }
    }
    return call_fallback(py_set_value, op, args, nargs, kwnames);
}

static PyObject *
core_setitem(PyObject *op, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs == 2) {
        int done = fast_set((Core *)op, args[0], args[1]);
        if (done < 0) {
            return NULL;
        }
        if (done) {
            Py_RETURN_NONE;
        }
    }
    return call_fallback(py_setitem, op, args, nargs, NULL);
}

/* -- the type ------------------------------------------------------------------------ */

static int
core_traverse(PyObject *op, visitproc visit, void *arg)
{
    Core *self = (Core *)op;
    Py_VISIT(Py_TYPE(op));
    Py_VISIT(self->gate);
    Py_VISIT(self->released);
    Py_VISIT(self->version);
    Py_VISIT(self->slots);
    Py_VISIT(self->store);
    /* Not visited on purpose: the reference the cached Py_buffer holds on the same
       memoryview. It keeps the memoryview out of the collector's unreachable set, so the
       collector never clears it (memoryview's tp_clear drops its buffer while exports are
       held, and its later dealloc would crash); a memoryview refers to no carrier, so no
       cycle goes through it, and core_clear releases the buffer first. */
    Py_VISIT(self->fast_type);
    Py_VISIT(self->fast_low);
    Py_VISIT(self->fast_high);
    return 0;
}

static int
core_clear(PyObject *op)
{
    Core *self = (Core *)op;
    drop_cache(self);
    Py_CLEAR(self->gate);
    Py_CLEAR(self->released);
    Py_CLEAR(self->version);
    Py_CLEAR(self->slots);
    Py_CLEAR(self->store);
    Py_CLEAR(self->fast_type);
    Py_CLEAR(self->fast_low);
    Py_CLEAR(self->fast_high);
    return 0;
}

static void
core_dealloc(PyObject *op)
{
    PyTypeObject *type = Py_TYPE(op);
    freefunc tp_free = (freefunc)PyType_GetSlot(type, Py_tp_free);
    PyObject_GC_UnTrack(op);
    core_clear(op);
    tp_free(op);
    Py_DECREF(type);
}

static PyMemberDef core_members[] = {
    {"_gate", SW_T_OBJECT_EX, offsetof(Core, gate), 0,
     "The scalar fast path's gate: None (closed) or a token object."},
    {"_released", SW_T_OBJECT_EX, offsetof(Core, released), 0, "Whether release() completed."},
    {"_version", SW_T_OBJECT_EX, offsetof(Core, version), 0,
     "Count of successful public value mutations."},
    {"_slots", SW_T_OBJECT_EX, offsetof(Core, slots), 0, "The slot count."},
    {"_fast_type", SW_T_OBJECT_EX, offsetof(Core, fast_type), 0, "Fast-path value type."},
    {"_fast_low", SW_T_OBJECT_EX, offsetof(Core, fast_low), 0, "Fast-path lower bound."},
    {"_fast_high", SW_T_OBJECT_EX, offsetof(Core, fast_high), 0, "Fast-path upper bound."},
    {NULL, 0, 0, 0, NULL},
};

static PyGetSetDef core_getset[] = {
    {"_slot_store", (getter)store_get, (setter)store_set,
     "The scalar accessor; an exact memoryview is cached as a raw buffer.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* The method table and its docs are built by scalar_base() and live for the process. */
static PyMethodDef *core_methods = NULL;
static PyObject *core_docs = NULL; /* the doc strings (a list), kept alive for ml_doc */
static PyObject *core_type = NULL;

static const char *
keep_doc(PyObject *text)
{
    const char *utf8;
    if (PyList_Append(core_docs, text) < 0) {
        return NULL;
    }
    utf8 = PyUnicode_AsUTF8AndSize(text, NULL);
    return utf8;
}

/* Return "name($self, sig)\n--\n\n" + the function's cleaned docstring, kept alive. */
static const char *
method_doc(PyObject *function, const char *name, const char *signature)
{
    PyObject *doc, *text;
    const char *utf8;
    doc = PyObject_GetAttrString(function, "__doc__");
    if (doc == NULL) {
        return NULL;
    }
    if (!PyUnicode_Check(doc)) {
        Py_DECREF(doc);
        PyErr_Format(PyExc_TypeError, "scalar_base: %s has no docstring", name);
        return NULL;
    }
    text = PyUnicode_FromFormat("%s%s\n--\n\n%U", name, signature, doc);
    Py_DECREF(doc);
    if (text == NULL) {
        return NULL;
    }
    utf8 = keep_doc(text);
    Py_DECREF(text);
    return utf8;
}

static void
replace_ref(PyObject **slot, PyObject *value)
{
    PyObject *old = *slot;
    Py_INCREF(value);
    *slot = value;
    Py_XDECREF(old);
}

static PyObject *
scalar_base(PyObject *module, PyObject *args)
{
    PyObject *get_value, *set_value, *getitem, *setitem;
    PyMethodDef *methods;
    PyType_Slot slots[8];
    PyType_Spec spec;
    PyObject *type;
    const char *docs[4];
    if (!PyArg_ParseTuple(args, "OOOO:scalar_base", &get_value, &set_value, &getitem, &setitem)) {
        return NULL;
    }
    if (core_type != NULL) { /* a second import of the Python module: new fallbacks */
        replace_ref(&py_get_value, get_value);
        replace_ref(&py_set_value, set_value);
        replace_ref(&py_getitem, getitem);
        replace_ref(&py_setitem, setitem);
        Py_INCREF(core_type);
        return core_type;
    }
    if (core_docs == NULL && (core_docs = PyList_New(0)) == NULL) {
        return NULL;
    }
    if ((docs[0] = method_doc(get_value, "get_value", "($self, index)")) == NULL
        || (docs[1] = method_doc(set_value, "set_value", "($self, index, value)")) == NULL
        || (docs[2] = method_doc(getitem, "__getitem__", "($self, index, /)")) == NULL
        || (docs[3] = method_doc(setitem, "__setitem__", "($self, index, value, /)")) == NULL) {
        return NULL;
    }
    methods = PyMem_Calloc(5, sizeof(PyMethodDef));
    if (methods == NULL) {
        return PyErr_NoMemory();
    }
    methods[0] = (PyMethodDef){"get_value", (PyCFunction)(void (*)(void))core_get_value,
                               METH_FASTCALL | METH_KEYWORDS, docs[0]};
    methods[1] = (PyMethodDef){"set_value", (PyCFunction)(void (*)(void))core_set_value,
                               METH_FASTCALL | METH_KEYWORDS, docs[1]};
    /* METH_COEXIST: the documented methods stand in the type's dict instead of the
       undocumented slot wrappers (a Python subclass dispatches c[i] through them). */
    methods[2] = (PyMethodDef){"__getitem__", (PyCFunction)core_getitem, METH_O | METH_COEXIST,
                               docs[2]};
    methods[3] = (PyMethodDef){"__setitem__", (PyCFunction)(void (*)(void))core_setitem,
                               METH_FASTCALL | METH_COEXIST, docs[3]};

    slots[0] = (PyType_Slot){Py_tp_doc, "The scalar paths of Carrier in C (see _base._ScalarPath)."};
    slots[1] = (PyType_Slot){Py_tp_dealloc, (void *)core_dealloc};
    slots[2] = (PyType_Slot){Py_tp_traverse, (void *)core_traverse};
    slots[3] = (PyType_Slot){Py_tp_clear, (void *)core_clear};
    slots[4] = (PyType_Slot){Py_tp_methods, methods};
    slots[5] = (PyType_Slot){Py_tp_members, core_members};
    slots[6] = (PyType_Slot){Py_tp_getset, core_getset};
    slots[7] = (PyType_Slot){0, NULL};
    spec.name = "stridewave.carriers._speedups.ScalarCore";
    spec.basicsize = (int)sizeof(Core);
    spec.itemsize = 0;
    spec.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC;
    spec.slots = slots;
    type = PyType_FromSpec(&spec);
    if (type == NULL) {
        PyMem_Free(methods);
        return NULL;
    }
    core_methods = methods;
    replace_ref(&py_get_value, get_value);
    replace_ref(&py_set_value, set_value);
    replace_ref(&py_getitem, getitem);
    replace_ref(&py_setitem, setitem);
    Py_INCREF(type);
    core_type = type;
    return type;
}

/* -- the CPU device's two-operand ufunc call ------------------------------------------ */

/*
 * host_binary(state) returns a builtin function call(x1, x2) doing the common case of
 * the CPU device's direct call of a two-operand NumPy ufunc (stridewave/array_api/
 * _host.py, _direct_ufunc: its Python closure is the reference and the fallback):
 *
 *   every Array operand a fresh result (its _native token (array, LAZY, dtype)), the
 *   other a Python float, int or bool; both Arrays of one Layout object, of fewer than
 *   `large` elements; no NumPy error state set by the caller; and the ufunc's result
 *   an exact ndarray of a namespace dtype.
 *
 * It then returns (None, layout, 0, (result, LAZY, dtype)), what the closure returns.
 * Anything else before the ufunc runs calls the closure (`fallback`) with the same
 * operands; a result of another form goes to `finish(result)`, the closure's
 * own tail. The ufunc runs in `run(ufunc, a, b)` (NumPy's quiet context); a
 * RuntimeError from it (another thread computes in the context) also calls the
 * closure, which computes under the quiet wrapper instead. Any other exception of
 * the ufunc propagates, as it does from the closure.
 *
 * state: (ufunc, run, get_state, unset, LAZY, dtypes, large, ndarray, fallback, finish)
 */
enum { HB_UFUNC, HB_RUN, HB_GET_STATE, HB_UNSET, HB_LAZY, HB_DTYPES, HB_LARGE, HB_NDARRAY,
       HB_FALLBACK, HB_FINISH, HB_FIELDS };

static PyObject *s_native = NULL, *s_layout = NULL, *s_size = NULL, *s_dtype = NULL;

static int
is_py_scalar(PyObject *x)
{
    return PyFloat_CheckExact(x) || PyLong_CheckExact(x) || PyBool_Check(x);
}

/* Clear an AttributeError (the closure's answer is then its own) and return 0; leave
   any other exception set (it propagates, as from the closure) and return -1. */
static int
clear_attribute_error(void)
{
    if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        return 0;
    }
    return -1;
}

/* The fresh result's array of an Array operand (a new reference), or NULL: with no
   error set where the operand is not a fresh result (an exact 3-tuple token
   (array, LAZY, dtype)), with one set where reading it raised other than
   AttributeError; *layout gets its Layout. */
static PyObject *
fresh_operand(PyObject *x, PyObject *lazy, PyObject **layout)
{
    PyObject *native, *array = NULL;
    native = PyObject_GetAttr(x, s_native);
    if (native == NULL) {
        clear_attribute_error();
        return NULL;
    }
    if (PyTuple_CheckExact(native) && PyTuple_Size(native) == 3
        && PyTuple_GetItem(native, 1) == lazy) {
        array = PyTuple_GetItem(native, 0);
        Py_INCREF(array);
    }
    Py_DECREF(native);
    if (array == NULL) {
        return NULL;
    }
    *layout = PyObject_GetAttr(x, s_layout);
    if (*layout == NULL) {
        clear_attribute_error();
        Py_DECREF(array);
        return NULL;
    }
    return array;
}

static PyObject *
host_binary_call(PyObject *state, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *x1, *x2, *a = NULL, *b = NULL, *layout = NULL, *other = NULL;
    PyObject *size_obj, *errstate, *result, *np_dtype, *dtype, *native, *out;
    Py_ssize_t size, large;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "call(x1, x2) takes two operands");
        return NULL;
    }
    x1 = args[0];
    x2 = args[1];
    if (is_py_scalar(x1)) {
        a = x1;
        Py_INCREF(a);
        if (is_py_scalar(x2)
            || (b = fresh_operand(x2, PyTuple_GetItem(state, HB_LAZY), &layout)) == NULL) {
            goto fallback;
        }
    }
    else {
        if ((a = fresh_operand(x1, PyTuple_GetItem(state, HB_LAZY), &layout)) == NULL) {
            goto fallback;
        }
        if (is_py_scalar(x2)) {
            b = x2;
            Py_INCREF(b);
        }
        else {
            if ((b = fresh_operand(x2, PyTuple_GetItem(state, HB_LAZY), &other)) == NULL) {
                goto fallback;
            }
            if (other != layout) {
                goto fallback;
            }
        }
    }
    size_obj = PyObject_GetAttr(layout, s_size);
    if (size_obj == NULL) {
        goto fallback;
    }
    size = PyLong_CheckExact(size_obj) ? PyLong_AsSsize_t(size_obj) : -1;
    Py_DECREF(size_obj);
    if (size == -1) {
        PyErr_Clear(); /* (not an int, or beyond Py_ssize_t: the closure decides) */
        goto fallback;
    }
    large = PyLong_AsSsize_t(PyTuple_GetItem(state, HB_LARGE)); /* (checked by host_binary) */
    if (size >= large) {
        goto fallback;
    }
    errstate = PyObject_CallNoArgs(PyTuple_GetItem(state, HB_GET_STATE));
    if (errstate == NULL) {
        goto error; /* (as from the closure, which calls it too) */
    }
    if (errstate != PyTuple_GetItem(state, HB_UNSET)) {
        Py_DECREF(errstate);
        goto fallback; /* (the caller's own state: the closure computes under it) */
    }
    Py_DECREF(errstate);
    result = PyObject_CallFunctionObjArgs(PyTuple_GetItem(state, HB_RUN),
                                          PyTuple_GetItem(state, HB_UFUNC), a, b, NULL);
    if (result == NULL) {
        if (PyErr_ExceptionMatches(PyExc_RuntimeError)) {
            PyErr_Clear();
            goto fallback;
        }
        goto error;
    }
    Py_CLEAR(a);
    Py_CLEAR(b);
    Py_CLEAR(other);
    dtype = NULL;
    if ((PyObject *)Py_TYPE(result) == PyTuple_GetItem(state, HB_NDARRAY)) {
        np_dtype = PyObject_GetAttr(result, s_dtype);
        if (np_dtype == NULL) {
            Py_DECREF(result);
            Py_DECREF(layout);
            return NULL;
        }
        dtype = PyDict_GetItemWithError(PyTuple_GetItem(state, HB_DTYPES), np_dtype);
        Py_XINCREF(dtype); /* (borrowed: held before the key's decref can run any code) */
        Py_DECREF(np_dtype);
        if (dtype == NULL && PyErr_Occurred()) {
            Py_DECREF(result);
            Py_DECREF(layout);
            return NULL;
        }
    }
    if (dtype == NULL) {
        out = PyObject_CallFunctionObjArgs(PyTuple_GetItem(state, HB_FINISH), result, NULL);
        Py_DECREF(result);
        Py_DECREF(layout);
        return out;
    }
    native = PyTuple_Pack(3, result, PyTuple_GetItem(state, HB_LAZY), dtype);
    Py_DECREF(dtype);
    Py_DECREF(result);
    if (native == NULL) {
        Py_DECREF(layout);
        return NULL;
    }
    out = PyTuple_New(4);
    if (out == NULL) {
        Py_DECREF(native);
        Py_DECREF(layout);
        return NULL;
    }
    Py_INCREF(Py_None);
    PyTuple_SetItem(out, 0, Py_None);
    PyTuple_SetItem(out, 1, layout); /* (steals the reference) */
    PyTuple_SetItem(out, 2, PyLong_FromLong(0));
    PyTuple_SetItem(out, 3, native);
    return out;

fallback:
    Py_XDECREF(a);
    Py_XDECREF(b);
    Py_XDECREF(layout);
    Py_XDECREF(other);
    if (PyErr_Occurred()) {
        if (clear_attribute_error() < 0) {
            return NULL; /* (reading an operand raised: as from the closure) */
        }
    }
    return PyObject_CallFunctionObjArgs(PyTuple_GetItem(state, HB_FALLBACK), x1, x2, NULL);
error:
    Py_XDECREF(a);
    Py_XDECREF(b);
    Py_XDECREF(layout);
    Py_XDECREF(other);
    return NULL;
}

static PyMethodDef host_binary_def = {
    "host_binary_call", (PyCFunction)(void (*)(void))host_binary_call, METH_FASTCALL,
    "call(x1, x2)\n--\n\nThe CPU device's direct call of a two-operand ufunc, its common case in C."};

static PyObject *
host_binary(PyObject *module, PyObject *state)
{
    Py_ssize_t large;
    if (!PyTuple_CheckExact(state) || PyTuple_Size(state) != HB_FIELDS) {
        PyErr_Format(PyExc_TypeError, "host_binary: state must be a tuple of %d items", HB_FIELDS);
        return NULL;
    }
    if (!PyDict_CheckExact(PyTuple_GetItem(state, HB_DTYPES))
        || !PyType_Check(PyTuple_GetItem(state, HB_NDARRAY))
        || !PyLong_CheckExact(PyTuple_GetItem(state, HB_LARGE))) {
        PyErr_SetString(PyExc_TypeError,
                        "host_binary: state's dtypes must be a dict, ndarray a type and "
                        "large an int");
        return NULL;
    }
    large = PyLong_AsSsize_t(PyTuple_GetItem(state, HB_LARGE));
    if (large == -1 && PyErr_Occurred()) {
        return NULL;
    }
    /* (each name interned once; a failure leaves the rest to the next call) */
    if ((s_native == NULL && (s_native = PyUnicode_InternFromString("_native")) == NULL)
        || (s_layout == NULL && (s_layout = PyUnicode_InternFromString("_layout")) == NULL)
        || (s_size == NULL && (s_size = PyUnicode_InternFromString("_size")) == NULL)
        || (s_dtype == NULL && (s_dtype = PyUnicode_InternFromString("dtype")) == NULL)) {
        return NULL;
    }
    return PyCFunction_NewEx(&host_binary_def, state, NULL);
}

static PyMethodDef module_methods[] = {
    {"scalar_base", scalar_base, METH_VARARGS,
     "scalar_base(get_value, set_value, getitem, setitem, /)\n--\n\n"
     "Build the C base type of Carrier once; the four pure-Python methods are its\n"
     "fallbacks and give it their docstrings."},
    {"host_binary", host_binary, METH_O,
     "host_binary(state, /)\n--\n\n"
     "Return the C form of the CPU device's direct call of a two-operand ufunc:\n"
     "(ufunc, run, get_state, unset, LAZY, dtypes, large, ndarray, fallback, finish)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "stridewave.carriers._speedups",
    "The scalar paths of Carrier in C (optional; the pure-Python path is the reference).",
    -1,
    module_methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    return PyModule_Create(&module_def);
}
