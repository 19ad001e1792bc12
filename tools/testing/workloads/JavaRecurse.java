// SPDX-License-Identifier: GPL-2.0
/*
 * JavaRecurse: a CPU-bound Java program for sframe-java.  Its main thread
 * alternates two phases for SECONDS seconds: a pure Java recursion DEPTH
 * levels deep that spins at its leaf, and a recursion that crosses into
 * C (libjavacallback.so, JNI) at every few levels, whose native method
 * calls back into Java (CallStaticLongMethod), CROSSINGS times before it
 * spins.  Run with -XX:CompileCommand=dontinline,JavaRecurse::* so that
 * each level is a frame of its own.  It prints the main thread's id
 * first, so that the host judges that thread's samples only.
 */
import java.nio.file.Files;
import java.nio.file.Path;

public final class JavaRecurse {
	/* Deeper than C1's and C2's inlining limits (15, 9 recursive). */
	private static final int DEPTH = 24;
	/* Java levels between two crossings into C, and how many crossings. */
	private static final int LEVELS = 4;
	private static final int CROSSINGS = 4;
	/* Rounds of the leaf's spin: long enough that the leaf holds most samples. */
	private static final int SPIN_ROUNDS = 20000;
	/* How long each phase runs before the other's turn, milliseconds. */
	private static final long PHASE_MS = 50;

	private static volatile long sink;

	private static native long through(int crossings, long seed);

	private static long spin(long seed)
	{
		long x = seed;

		for (int i = 0; i < SPIN_ROUNDS; i++)
			x = x * 6364136223846793005L + 1442695040888963407L;
		return x;
	}

	private static long recurse(int depth, long seed)
	{
		if (depth == 0)
			return spin(seed);
		return recurse(depth - 1, seed + depth) ^ depth;
	}

	/* LEVELS Java frames, then into C, which calls back() below. */
	private static long descend(int levels, int crossings, long seed)
	{
		if (crossings == 0)
			return spin(seed);
		if (levels == 0)
			return through(crossings - 1, seed);
		return descend(levels - 1, crossings, seed + levels) ^ levels;
	}

	/* Called from C. */
	private static long back(int crossings, long seed)
	{
		return descend(LEVELS, crossings, seed);
	}

	public static void main(String[] args) throws Exception
	{
		long end = System.currentTimeMillis() + 1000 * Long.parseLong(args[0]);
		long phases = 0;

		System.loadLibrary("javacallback");
		System.out.println("tid " + Files.readSymbolicLink(Path.of("/proc/thread-self"))
				   .getFileName());
		System.out.flush();
		while (System.currentTimeMillis() < end) {
			long phase_end = System.currentTimeMillis() + PHASE_MS;

			while (System.currentTimeMillis() < phase_end) {
				if (phases % 2 == 0)
					sink += recurse(DEPTH, phases);
				else
					sink += descend(LEVELS, CROSSINGS, phases);
			}
			phases++;
		}
		System.out.println("phases " + phases);
	}
}
