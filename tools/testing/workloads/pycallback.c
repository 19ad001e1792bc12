// SPDX-License-Identifier: GPL-2.0
/*
 * pycallback: a CPython C extension whose one function calls back into
 * Python, so that a recursive Python function can go Python -> C ->
 * Python -> C ... (pyrecurse.py --callback).  Built as Debian builds
 * extensions (no frame pointers, .eh_frame, no SFrame): its frames are
 * walked only with a sidecar.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* Rounds of mixing after each callback: a little work of the C frame's own. */
#define PYCALLBACK_MIX_ROUNDS 16

/*
 * call(function, argument): return function(argument) mixed a little, as
 * an int.  The mixing after the call keeps this frame on the stack during
 * the callback (no tail call).
 */
static PyObject *pycallback_call(PyObject *module, PyObject *const *args,
				 Py_ssize_t nargs)
{
	unsigned long value;
	PyObject *result;
	int i;

	if (nargs != 2) {
		PyErr_SetString(PyExc_TypeError,
				"call() takes a function and an argument");
		return NULL;
	}
	result = PyObject_CallOneArg(args[0], args[1]);
	if (!result)
		return NULL;
	value = PyLong_AsUnsignedLongMask(result);
	Py_DECREF(result);
	if (value == (unsigned long)-1 && PyErr_Occurred())
		return NULL;
	for (i = 0; i < PYCALLBACK_MIX_ROUNDS; i++)
		value = (value * 3 + i) % 1000003;
	return PyLong_FromUnsignedLong(value);
}

static PyMethodDef pycallback_methods[] = {
	{ "call", (PyCFunction)(void (*)(void))pycallback_call, METH_FASTCALL,
	  "call(function, argument): function(argument), mixed, as an int" },
	{ NULL, NULL, 0, NULL }
};

static struct PyModuleDef pycallback_module = {
	PyModuleDef_HEAD_INIT,
	.m_name = "pycallback",
	.m_doc = "A C function that calls back into Python.",
	.m_size = -1,
	.m_methods = pycallback_methods,
};

PyMODINIT_FUNC PyInit_pycallback(void)
{
	return PyModule_Create(&pycallback_module);
}
