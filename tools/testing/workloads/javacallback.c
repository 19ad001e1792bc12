// SPDX-License-Identifier: GPL-2.0
/*
 * javacallback: the JNI half of JavaRecurse, built as Debian builds
 * libraries (-O2, no frame pointers, .eh_frame, no SFrame): its native
 * method calls back into Java, so that a stack goes JIT -> C -> libjvm
 * -> JIT several times.
 */
#include <jni.h>

/* Global, so the compiler reads it after the call: no tail call. */
jlong javacallback_bias;

/*
 * JavaRecurse.through(crossings, seed): JavaRecurse.back(crossings, seed)
 * and a little of its own work.  JNIEXPORT and JNICALL say nothing on
 * Linux: a shared object's functions are exported already.
 */
jlong Java_JavaRecurse_through(JNIEnv *env, jclass class, jint crossings,
			       jlong seed)
{
	jmethodID back;
	jlong below;

	back = (*env)->GetStaticMethodID(env, class, "back", "(IJ)J");
	if (!back)
		return 0;
	below = (*env)->CallStaticLongMethod(env, class, back, crossings, seed);
	return below + javacallback_bias;
}
