"""The failure tally the interop check scripts share: check() records a
failed condition, finish() reports and sets the exit status."""
import sys

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def finish(script):
    print(f"{script}: {len(failures)} failures")
    sys.exit(1 if failures else 0)
