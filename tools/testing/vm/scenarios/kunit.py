"""Host half of kunit: turn each module's KTAP into one test line per case."""

from vmlib.ktap import parse_ktap


def check(run):
    """Report every KUnit case; a declared module without results fails."""
    declared = run.context.get("kunit_declared", [])
    built = [m for m in run.context.get("modules", {}) if m.endswith("_kunit")]
    for name in sorted(set(declared) - set(built)):
        run.fail(f"{name}.ko is declared in kernel/ but was not built")
    for name in sorted(set(declared) | set(built)):
        ktap = run.artefacts.get(f"{name}.ktap")
        if ktap is None:
            run.fail(f"{name}: no KTAP from the guest")
            continue
        cases = parse_ktap(ktap.decode(errors="replace"))
        if not cases:
            run.fail(f"{name}: no KUnit results in its KTAP")
        for case in cases:
            run.subtest(f"{name}:{case.name}", case.ok, case.directive)
        failed = sum(not c.ok for c in cases)
        run.metric(f"{name}_cases", str(len(cases)))
        if failed:
            run.fail(f"{name}: {failed} of {len(cases)} cases failed")
        elif cases:
            run.passed(f"{name}: {len(cases)} cases passed")
